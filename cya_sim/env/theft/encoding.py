"""The theft game's observation (RULES.md §10 applied to §9) as a fixed-shape ``float32`` vector.

The theft game's :class:`~cya_sim.env.theft.interface.TheftGame` encodes one
:class:`~cya_sim.engine.theft.observation.TheftObservation` with :meth:`TheftObservationEncoder.encode`
(PettingZoo, Gymnasium, OpenSpiel) and a batch of them with :meth:`TheftObservationEncoder.encode_batch`
(the vector env); both run the same code, so a row of the batch equals the single vector.

Seats are relative to the observer: block index ``r`` is the seat ``r`` places on from the observer
(``r = 0`` is the observer), the ``offset`` of the theft actions. Points are plain points (R-T-END).
The layout, in order (T card types, N numbers, P seats, D = ``depth`` asset slots per seat):

================  ===========  ==========================================================
block             size         content
================  ===========  ==========================================================
phase             5            one-hot: setup, play, defence, discard, over
hand              T            the observer's cards of each type
unseen            T            cards the observer has not seen (§10)
hand_sizes        P            cards in each hand
draw              2            cards in the draw pile; cards in the discard pile
discard_counts    T            discard pile, cards of each type (every discard is public)
discard_top       T            one-hot of the top discard (all zero when empty)
current_player    P            one-hot, relative seat (whose turn it is)
to_act            P            one-hot, relative seat (who chooses now; zero when over)
seats             P*4          per seat: assets held, points seen / low / high (a hidden face-down
                               card counted at its lowest and highest value)
assets            P*D*(5+N+1)  per seat, its asset slots 0..D-1 (oldest first, the slots of the
                               theft actions): present, hidden cards, points seen / low / high,
                               known cards per asset type (numbers and gold)
theft             5+2P         a theft waiting for its answer: active, gold theft, thief and
                               target one-hot, the targeted slot, its points low / high
turn              3            theft cards the mover played this turn; R-T-END triggered;
                               turns still to play after it
================  ===========  ==========================================================

Assets past slot ``D - 1`` are counted in the ``seats`` block only (the structured observation has
them all). With ``depth = None`` every slot an action can name fits (D = ``max_assets``).
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from cya_sim.engine.theft.observation import TheftObservation
from cya_sim.env.games import DEFAULT_STACK_DEPTH
from cya_sim.game.jsontext import show
from cya_sim.game.theft.rules import TheftRuleSet

PHASES = ("setup", "play", "defence", "discard", "over")


class TheftObservationEncoder:
    """Encode theft observations of one rule set and table size into ``(D_obs,) float32`` vectors.

    Args:
        rules: the :class:`~cya_sim.game.theft.rules.TheftRuleSet`. n_players: P.
        depth: asset slots per seat encoded one by one (slots 0..depth-1); None: all ``max_assets``.

    Attributes:
        size: D_obs. blocks: dict name -> (start, stop). low, high: ``(D_obs,) float32`` finite bounds
            derived from the rules (:meth:`_bounds`), the bounds of the observation ``Box`` (:meth:`space`).

    Raises:
        ValueError: ``depth`` < 1. RulesError: ``n_players`` not allowed by ``rules``.
    """

    def __init__(self, rules: TheftRuleSet, n_players: int, depth: int | None = DEFAULT_STACK_DEPTH) -> None:
        rules.check_players(n_players)
        if depth is not None and (not isinstance(depth, int | np.integer) or isinstance(depth, bool) or depth < 1):
            raise ValueError(f"stack_depth: {show(depth, python_str=True)} ({type(depth).__name__}); allowed: an "
                             "int >= 1 or None (every asset slot)")
        self.rules, self.n_players = rules, n_players
        self.t, self.na = rules.n_types, rules.n_asset_types
        self.depth = rules.max_assets if depth is None else max(1, min(int(depth), rules.max_assets))
        p, t, d = n_players, self.t, self.depth
        sizes = {"phase": len(PHASES), "hand": t, "unseen": t, "hand_sizes": p, "draw": 2, "discard_counts": t,
                 "discard_top": t, "current_player": p, "to_act": p, "seats": 4 * p,
                 "assets": p * d * (5 + self.na), "theft": 5 + 2 * p, "turn": 3}
        self.blocks: dict[str, tuple[int, int]] = {}
        s = 0
        for k, n in sizes.items():
            self.blocks[k] = (s, s + n)
            s += n
        self.size = s
        self.low, self.high = self._bounds()

    def _bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """``(low, high)``, each ``(D_obs,) float32``: every vector lies between them (R-T-DECK, R-T-END).

        Low is 0 everywhere. High: 1 for a one-hot or flag; the copies of a type (``rules.counts``) for a
        count of one type; NC (the deck) for a count of cards; ``max_assets`` for assets held; 2 for the
        cards of one asset; for points, every asset card at the highest card value (a bound on any set of
        assets, a hidden card counted high included); ``max_assets - 1`` for a slot; the theft cards of
        the deck for thefts played in a turn; P - 1 for R-T-END's last turns.
        """
        r, p, t, d, na = self.rules, self.n_players, self.t, self.depth, self.na
        counts = r.counts.astype(np.float64)
        nc = float(r.n_cards)
        asset_cards = float(counts[:na].sum())
        points = asset_cards * float(max(r.values[:na].max(initial=0), r.numbers))
        one_p, one_t = np.ones(p), np.ones(t)
        high = {
            "phase": np.ones(len(PHASES)), "hand": counts, "unseen": counts, "hand_sizes": np.full(p, nc),
            "draw": np.full(2, nc), "discard_counts": counts, "discard_top": one_t, "current_player": one_p,
            "to_act": one_p, "seats": np.tile([float(r.max_assets), points, points, points], p),
            "assets": np.tile(np.concatenate([[1.0, 2.0, points, points, points], np.full(na, 2.0)]), p * d),
            "theft": np.concatenate([[1.0, 1.0], one_p, one_p, [float(max(r.max_assets - 1, 0)), points, points]]),
            "turn": [float(r.plain_thefts + r.gold_thefts), 1.0, float(p - 1)],
        }
        out = np.concatenate([np.asarray(high[k], np.float64).ravel() for k in self.blocks])
        assert out.shape == (self.size,)
        return np.zeros(self.size, np.float32), out.astype(np.float32)

    def space(self):
        """The ``gymnasium.spaces.Box(low, high, (D_obs,), float32)`` of these vectors."""
        from gymnasium import spaces

        return spaces.Box(self.low, self.high, (self.size,), np.float32)

    def encode(self, obs: TheftObservation) -> np.ndarray:
        """``(D_obs,) float32`` vector of one :class:`~cya_sim.engine.theft.observation.TheftObservation`."""
        p, t, d, na = self.n_players, self.t, self.depth, self.na
        out = np.zeros(self.size, np.float32)

        def put(name: str, value) -> None:
            a, z = self.blocks[name]
            out[a:z] = np.asarray(value, np.float32).ravel()

        def onehot(i: int, n: int) -> np.ndarray:
            o = np.zeros(n, np.float32)
            if i >= 0:
                o[i] = 1.0
            return o

        def rel(s: int) -> int:
            return -1 if s < 0 else (s - obs.seat) % p

        seats = [(obs.seat + r) % p for r in range(p)]
        put("phase", onehot(PHASES.index(obs.phase), len(PHASES)))
        put("hand", obs.hand)
        put("unseen", obs.unseen)
        put("hand_sizes", np.asarray(obs.hand_sizes)[seats])
        put("draw", [obs.draw_size, len(obs.discard_pile)])
        put("discard_counts", np.bincount(np.asarray(obs.discard_pile, np.int64), minlength=t)[:t])
        put("discard_top", onehot(obs.discard_pile[-1] if obs.discard_pile else -1, t))
        put("current_player", onehot(rel(obs.current_player), p))
        put("to_act", onehot(rel(obs.to_act), p))
        seat_rows = np.zeros((p, 4), np.float32)
        slots = np.zeros((p, d, 5 + na), np.float32)
        for r, s in enumerate(seats):
            views = obs.assets[s]
            seat_rows[r] = [len(views), sum(v.value_seen for v in views), sum(v.value_low for v in views),
                            sum(v.value_high for v in views)]
            for v in views[:d]:
                slots[r, v.slot, :5] = [1.0, v.n_hidden, v.value_seen, v.value_low, v.value_high]
                for c in v.cards:
                    slots[r, v.slot, 5 + c] += 1.0
        put("seats", seat_rows)
        put("assets", slots)
        th = obs.theft
        if th is not None:
            target = obs.assets[th.target][th.slot] if th.slot < len(obs.assets[th.target]) else None
            put("theft", np.concatenate([[1.0, float(th.card == self.rules.gold_theft)], onehot(rel(th.thief), p),
                                         onehot(rel(th.target), p),
                                         [th.slot, target.value_low if target else 0,
                                          target.value_high if target else 0]]))
        final = obs.final_turns_left
        put("turn", [obs.thefts_this_turn, float(final is not None), final or 0])
        return out

    def encode_batch(self, ob) -> np.ndarray:
        """``(B, D_obs) float32`` vectors of a batch: ``ob.obs`` is a sequence of B observations (None for a
        row without a game, encoded as zeros), as :func:`cya_sim.env.theft.batched_bridge.observe` gives."""
        out = np.zeros((len(ob.obs), self.size), np.float32)
        for i, o in enumerate(ob.obs):
            if o is not None:
                out[i] = self.encode(o)
        return out

    def arrays_of(self, obs: TheftObservation) -> SimpleNamespace:
        """A batch of one row holding ``obs`` (what :meth:`encode_batch` reads)."""
        return SimpleNamespace(obs=[obs])
