"""The §10 observation as a fixed-shape ``float32`` vector (RULES.md §10, R-HIDDEN-WILD).

One encoder serves every environment of :mod:`cya_sim.env`: the PettingZoo and
Gymnasium environments encode one reference :class:`~cya_sim.engine.classic.reference.observation.Observation`
(:meth:`ObservationEncoder.encode`), the batched vector environment encodes a
whole :class:`~cya_sim.engine.classic.batch_observation.ObservationBatch` at once
(:meth:`ObservationEncoder.encode_batch`); both go through the same array code,
so a row of the batch and the single observation of the same position give the
same vector.

Seats are relative to the observer: block index ``r`` is the seat ``r`` places
to the observer's left (``r = 0`` is the observer). Dollars are in millions
(``$1,360,000`` = 1.36). The layout, in order (T card types, nA assets, P seats,
D = ``stack_depth``):

================  ===========  ==========================================================
block             size         content
================  ===========  ==========================================================
phase             2 (3, 4)     one-hot: turn, challenge (and, with draft piles, the draft offer §7;
                               with draft piles and Move cards, the draft move choice, §7 with §6)
hand              T            the observer's cards of each type
unseen            T            cards the observer has not seen (§10 "unseen cards")
hand_sizes        P            cards in each hand
totals            P            running totals, $M
draw              2            cards left in the draw pile; cards in the discard pile
discard_counts    T            discard pile, cards of each type (every discard is public)
discard_top       T            one-hot of the top discard (all zero when empty, R-EMPTY-DISCARD)
round             1            round number (1-based)
dealer            P            one-hot, relative seat
current_player    P            one-hot, relative seat (whose turn it is)
challenge         2+2P+nA+3T   active, cards shown, challenger and defender one-hot, asset
                               one-hot, cards shown by the challenger and by the defender
                               per type, last card shown one-hot
gave_up           P*T          public record of given-up challenges (§10)
stacks            P*(4+T)      per seat: sets, $M seen / low / high, known cards per type
top_sets          P*D*(6+nA+T) per seat, its D top sets (top first): present, asset one-hot,
                               size, hidden cards, $M seen / low / high, known cards per type
draft             K*(T+1)      per draft pile (K piles; 0 without a draft, R-2P-DRAFT,
                               R-3P-DRAFT): its face-up top one-hot (zero when empty or not
                               turned up yet), its number of cards
================  ===========  ==========================================================

The classic presets have no draft block and a 2-wide phase block, so their vectors are
unchanged by the drafts.

Sets deeper than ``stack_depth`` in a stack are counted in the ``stacks``
block only (their order and composition are in the structured observation).
With ``stack_depth = None`` every set of the table fits (D = N // 2).
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from cya_sim.engine.classic.reference.observation import Observation
from cya_sim.env import bounds
from cya_sim.env.games import DEFAULT_STACK_DEPTH
from cya_sim.game.jsontext import show
from cya_sim.game.rules import RuleSet


class ObservationEncoder:
    """Encode observations of one rule set and table size into ``(D_obs,) float32`` vectors.

    Args:
        rules: the rule set. n_players: P.
        stack_depth: sets per stack encoded one by one (top first); None: all that can exist (N // 2).

    Attributes:
        size: D_obs, the length of a vector. blocks: dict name -> (start, stop) in the vector.
        low, high: ``(D_obs,) float32`` finite bounds of every vector (:meth:`_bounds`), the bounds of
            the environments' observation ``Box`` (:meth:`space`).

    Raises:
        ValueError: ``stack_depth`` < 1; RulesError: ``n_players`` not allowed by ``rules``.
    """

    def __init__(self, rules: RuleSet, n_players: int, stack_depth: int | None = DEFAULT_STACK_DEPTH) -> None:
        rules.check_players(n_players)
        self.rules, self.n_players = rules, n_players
        deck = rules.deck
        self.t, self.na = deck.n_types, deck.n_assets
        self.n_cards = int(rules.deck_counts(n_players).sum())
        full = self.n_cards // 2
        if stack_depth is not None and (not isinstance(stack_depth, int | np.integer) or isinstance(stack_depth, bool)
                                        or stack_depth < 1):
            raise ValueError(f"stack_depth: {show(stack_depth, python_str=True)} ({type(stack_depth).__name__}); "
                             "allowed: an int >= 1 or None (every set)")
        self.depth = full if stack_depth is None else min(int(stack_depth), full)
        p, t, na, d = n_players, self.t, self.na, self.depth
        self.piles = rules.draft_piles if rules.draft != "none" else 0
        self.n_phases = 2 + (self.piles > 0) + (self.piles > 0 and rules.advanced_ids.move >= 0)
        sizes = {
            "phase": self.n_phases, "hand": t, "unseen": t, "hand_sizes": p, "totals": p, "draw": 2, "discard_counts": t,
            "discard_top": t, "round": 1, "dealer": p, "current_player": p,
            "challenge": 2 + 2 * p + na + 3 * t, "gave_up": p * t, "stacks": p * (4 + t),
            "top_sets": p * d * (6 + na + t),
            "draft": self.piles * (t + 1),
        }
        self.blocks: dict[str, tuple[int, int]] = {}
        s = 0
        for k, n in sizes.items():
            self.blocks[k] = (s, s + n)
            s += n
        self.size = s
        self._values = deck.values.astype(np.int64)
        self.low, self.high = self._bounds()

    def _bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """``(low, high)``, each ``(D_obs,) float32``: every vector this encoder can produce lies between them.

        Low is 0 everywhere (counts, one-hots and dollars are never negative, R-DECK-CUSTOM). High, block
        by block: 1 for a one-hot or a flag; copies in play of the type (``rules.deck_counts``) for a
        count of one card type; N (cards in play) for a count of cards; ``N // 2`` for the sets of one
        stack; the draft pile size for a pile; :func:`~cya_sim.env.bounds.max_rounds` for the round;
        :func:`~cya_sim.env.bounds.max_total` in $M for a total; and ``N`` times the highest card value,
        in $M, for the dollars of a stack or set (its hidden cards counted at up to the highest value).
        """
        p, t, na, d = self.n_players, self.t, self.na, self.depth
        counts = self.rules.deck_counts(p).astype(np.float64)
        n = float(self.n_cards)
        money = n * float(self._values.max(initial=0)) * 1e-6
        one_p, one_t, one_a = np.ones(p), np.ones(t), np.ones(na)
        high = {
            "phase": np.ones(self.n_phases), "hand": counts, "unseen": counts, "hand_sizes": np.full(p, n),
            "totals": np.full(p, bounds.max_total(self.rules, p) * 1e-6), "draw": np.full(2, n),
            "discard_counts": counts, "discard_top": one_t, "round": [bounds.max_rounds(self.rules, p)],
            "dealer": one_p, "current_player": one_p,
            "challenge": np.concatenate([[1.0, n], one_p, one_p, one_a, counts, counts, one_t]),
            "gave_up": np.ones(p * t),
            "stacks": np.tile(np.concatenate([[n // 2, money, money, money], counts]), p),
            "top_sets": np.tile(np.concatenate([[1.0], one_a, [n, n, money, money, money], counts]), p * d),
            "draft": np.tile(np.concatenate([one_t, [self.rules.draft_pile_size]]), self.piles),
        }
        out = np.concatenate([np.asarray(high[k], np.float64).ravel() for k in self.blocks])
        assert out.shape == (self.size,)  # one bound per entry, in the block order
        return np.zeros(self.size, np.float32), out.astype(np.float32)

    def space(self):
        """The ``gymnasium.spaces.Box(low, high, (D_obs,), float32)`` of these vectors (finite bounds, :meth:`_bounds`)."""
        from gymnasium import spaces

        return spaces.Box(self.low, self.high, (self.size,), np.float32)

    # -- the one piece of array code -------------------------------------------------------------
    def encode_batch(self, ob) -> np.ndarray:
        """``(B, D_obs) float32`` vectors of a batch of observations.

        Args:
            ob: an :class:`~cya_sim.engine.classic.batch_observation.ObservationBatch` (or the same fields for B rows):
                seat (B,), phase (B,) 0 turn / 1 challenge / -1 none, hand, unseen (B, T),
                hand_sizes, totals, stack_len (B, P), set_asset, set_size, set_n_hidden,
                set_value_seen/low/high (B, P, S) oldest set first, set_known (B, P, S, T),
                discard_pile (B, N) bottom first, discard_len, draw_size, round, dealer,
                current_player (B,), ch_challenger, ch_defender, ch_asset, ch_len (B,),
                ch_cards, ch_players (B, CAP), gave_up (B, P, T).
        Rows with ``seat = -1`` (no game in progress) encode as zeros.
        """
        b_n = ob.seat.shape[0]
        p, t, na, d = self.n_players, self.t, self.na, self.depth
        out = np.zeros((b_n, self.size), np.float32)
        live = ob.seat >= 0
        seat = np.where(live, ob.seat, 0).astype(np.int64)
        rows = np.arange(b_n)
        rel = (seat[:, None] + np.arange(p)[None, :]) % p  # (B, P) absolute seat of relative seat r
        M = 1e-6

        def put(name: str, value) -> None:
            a, z = self.blocks[name]
            out[:, a:z] = np.asarray(value, np.float32).reshape(b_n, z - a)

        def onehot(idx, n: int) -> np.ndarray:
            idx = np.asarray(idx, np.int64)
            o = np.zeros((b_n, n), np.float32)
            ok = idx >= 0
            o[rows[ok], idx[ok]] = 1.0
            return o

        def to_rel(s) -> np.ndarray:
            s = np.asarray(s, np.int64)
            return np.where(s >= 0, (s - seat) % p, -1)

        put("phase", onehot(np.where(live, ob.phase, -1), self.n_phases))
        put("hand", ob.hand)
        put("unseen", ob.unseen)
        put("hand_sizes", np.asarray(ob.hand_sizes)[rows[:, None], rel])
        put("totals", np.asarray(ob.totals, np.float64)[rows[:, None], rel] * M)
        dlen = np.asarray(ob.discard_len, np.int64)
        put("draw", np.stack([ob.draw_size, dlen], 1))
        pile = np.asarray(ob.discard_pile, np.int64)
        in_pile = np.arange(pile.shape[1])[None, :] < dlen[:, None]
        counts = np.zeros((b_n, t), np.float32)
        np.add.at(counts, (np.broadcast_to(rows[:, None], pile.shape)[in_pile], pile[in_pile]), 1.0)
        put("discard_counts", counts)
        top = np.where(dlen > 0, pile[rows, np.maximum(dlen - 1, 0)], -1)
        put("discard_top", onehot(top, t))
        put("round", ob.round)
        put("dealer", onehot(to_rel(ob.dealer), p))
        put("current_player", onehot(to_rel(ob.current_player), p))
        # challenge
        active = np.asarray(ob.ch_challenger, np.int64) >= 0
        clen = np.where(active, np.asarray(ob.ch_len, np.int64), 0)
        cards = np.asarray(ob.ch_cards, np.int64)
        players = np.asarray(ob.ch_players, np.int64)
        shown = np.arange(cards.shape[1])[None, :] < clen[:, None]
        by_chal = shown & (players == np.asarray(ob.ch_challenger, np.int64)[:, None])
        by_def = shown & ~by_chal
        cc = np.zeros((b_n, t), np.float32)
        cd = np.zeros((b_n, t), np.float32)
        rr = np.broadcast_to(rows[:, None], cards.shape)
        np.add.at(cc, (rr[by_chal], cards[by_chal]), 1.0)
        np.add.at(cd, (rr[by_def], cards[by_def]), 1.0)
        last = np.where(clen > 0, cards[rows, np.maximum(clen - 1, 0)], -1)
        put("challenge", np.concatenate([
            active[:, None], clen[:, None],
            onehot(np.where(active, to_rel(ob.ch_challenger), -1), p),
            onehot(np.where(active, to_rel(ob.ch_defender), -1), p),
            onehot(np.where(active, ob.ch_asset, -1), na), cc, cd, onehot(last, t)], 1))
        put("gave_up", np.asarray(ob.gave_up)[rows[:, None], rel])
        # stacks, relative seats (set slots past a stack's length are zero in both sources)
        bi = rows[:, None]
        slen = np.asarray(ob.stack_len, np.int64)[bi, rel]  # (B, P)

        s_used = max(1, int(slen.max()))  # set slots past every stack's length are all zero

        def seat_sum(a) -> np.ndarray:
            return np.asarray(a)[:, :, :s_used].sum(2)[bi, rel]

        put("stacks", np.concatenate([slen[..., None], seat_sum(ob.set_value_seen)[..., None] * M,
                                      seat_sum(ob.set_value_low)[..., None] * M,
                                      seat_sum(ob.set_value_high)[..., None] * M, seat_sum(ob.set_known)], 2))
        # the top D sets, top first: slot j of relative seat r is set index slen - 1 - j
        idx = slen[:, :, None] - 1 - np.arange(d)[None, None, :]  # (B, P, D)
        present = idx >= 0
        ix = np.maximum(idx, 0)
        s_all = np.asarray(ob.set_asset).shape[2]
        flat = ((rows[:, None, None] * p + rel[:, :, None]) * s_all + ix).ravel()  # one index into (B*P*S)

        def gather(a) -> np.ndarray:
            a = np.asarray(a)
            g = np.take(a.reshape(b_n * p * s_all, *a.shape[3:]), flat, axis=0).reshape(b_n, p, d, *a.shape[3:])
            return g * present.reshape(b_n, p, d, *([1] * (g.ndim - 3)))

        asset = np.where(present, gather(ob.set_asset), -1)
        a1 = np.zeros((b_n, p, d, na), np.float32)
        bb, pp, dd = np.nonzero(present)
        a1[bb, pp, dd, asset[present]] = 1.0
        slots = np.concatenate([present[..., None], a1, gather(ob.set_size)[..., None],
                                gather(ob.set_n_hidden)[..., None], gather(ob.set_value_seen)[..., None] * M,
                                gather(ob.set_value_low)[..., None] * M, gather(ob.set_value_high)[..., None] * M,
                                gather(ob.set_known)], 3)
        put("top_sets", slots)
        if self.piles:  # §7, §10: the face-up tops and the pile sizes
            tops = np.asarray(ob.draft_tops, np.int64)
            put("draft", np.concatenate([np.concatenate([onehot(tops[:, j], t), np.asarray(ob.draft_sizes)[:, j:j + 1]],
                                                        1) for j in range(self.piles)], 1))
        out[~live] = 0.0
        return out

    # -- one reference observation -----------------------------------------------------------------
    def arrays_of(self, obs: Observation) -> SimpleNamespace:
        """The fields :meth:`encode_batch` reads, as a batch of one row, from a reference observation."""
        p, t = self.n_players, self.t
        s = max(1, max(len(st) for st in obs.stacks))
        z = np.zeros
        set_asset = np.full((1, p, s), -1, np.int64)
        set_size, set_hidden = z((1, p, s), np.int64), z((1, p, s), np.int64)
        vs, vl, vh = z((1, p, s), np.int64), z((1, p, s), np.int64), z((1, p, s), np.int64)
        set_known = z((1, p, s, t), np.int64)
        for owner, stack in enumerate(obs.stacks):
            for i, v in enumerate(stack):
                set_asset[0, owner, i], set_size[0, owner, i], set_hidden[0, owner, i] = v.asset, v.size, v.n_hidden
                vs[0, owner, i], vl[0, owner, i], vh[0, owner, i] = v.value_seen, v.value_low, v.value_high
                set_known[0, owner, i] = v.known
        ch = obs.challenge
        cap = max(1, len(ch.cards) if ch else 0)
        pile = np.array(obs.discard_pile or (-1,), np.int64)[None, :]
        return SimpleNamespace(
            seat=np.array([obs.seat]), phase=np.array([{"challenge": 1, "draft_offer": 2, "draft_move": 3}.get(obs.phase, 0)]),
            draft_tops=np.array([obs.draft_tops], np.int64).reshape(1, -1),
            draft_sizes=np.array([obs.draft_sizes], np.int64).reshape(1, -1),
            hand=obs.hand[None, :], unseen=obs.unseen[None, :], hand_sizes=obs.hand_sizes[None, :],
            totals=obs.totals[None, :], stack_len=np.array([[len(st) for st in obs.stacks]]),
            set_asset=set_asset, set_size=set_size, set_n_hidden=set_hidden, set_value_seen=vs,
            set_value_low=vl, set_value_high=vh, set_known=set_known, discard_pile=pile,
            discard_len=np.array([len(obs.discard_pile)]), draw_size=np.array([obs.draw_size]),
            round=np.array([obs.round]), dealer=np.array([obs.dealer]),
            current_player=np.array([obs.current_player]),
            ch_challenger=np.array([ch.challenger if ch else -1]), ch_defender=np.array([ch.defender if ch else -1]),
            ch_asset=np.array([ch.asset if ch else -1]), ch_len=np.array([len(ch.cards) if ch else 0]),
            ch_cards=np.array([list(ch.cards) if ch and ch.cards else [-1] * cap]),
            ch_players=np.array([list(ch.players) if ch and ch.players else [-1] * cap]),
            gave_up=obs.gave_up[None, :, :],
        )

    def encode(self, obs: Observation) -> np.ndarray:
        """``(D_obs,) float32`` vector of one reference observation (same code as :meth:`encode_batch`)."""
        return self.encode_batch(self.arrays_of(obs))[0]
