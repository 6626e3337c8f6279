"""The theft game (RULES.md §9) as states of the OpenSpiel game ``python_cover_your_assets`` (``rules="theft"``).

``pyspiel.load_game("python_cover_your_assets", {"rules": "theft", "players": P, "options": "..."})``
gives a game whose states are :class:`TheftSpielState` (:mod:`cya_sim.env.openspiel` chooses them through
:class:`~cya_sim.env.theft.interface.TheftGame`). Sequential, imperfect information, explicit chance,
constant-sum win shares (R-T-END: ties share the win), terminal rewards.

Chance nodes are every random draw of the theft reference engine (:mod:`cya_sim.engine.theft.reference`):

- the first player (R-T-SETUP): ``P`` outcomes, uniform;
- the first shuffle (R-T-DECK): the deck order card by card from the top of the draw pile (outcome =
  card type, probability = copies of it left / cards left), so every order has the probability of a
  uniform shuffle;
- every reshuffle of the discard pile into a new draw pile (R-T-TURN), card by card in the same way,
  right after the player action whose draw needed it (the action is applied once chance has chosen
  the new draw pile).

The chosen orders are fed to the reference engine itself (its ``new_game(rng=...)`` and its
Fisher–Yates shuffle, through the uniforms that make it produce them), so dealing, play and scoring are
the reference engine's. A player action that would reshuffle is found by playing it on a copy first.

Observation (string and tensor): the seat's :class:`~cya_sim.engine.theft.observation.TheftObservation`
(the tensor is :class:`~cya_sim.env.theft.encoding.TheftObservationEncoder`'s vector, the string
:func:`theft_observation_text`). Information state (string only): perfect recall, as for the classic
family (:func:`cya_sim.env.openspiel.information_state_text`): the current observation, the player's
own actions and a digest of its observation at each of its decisions with the action it took.
:meth:`TheftSpielState.resample_from_infostate` samples the hidden cards (the other hands, the draw pile
order, every asset card the player does not know: a face-down first card, and during set-up the other
seats' first assets) uniformly among the placements consistent with the player's observation
(:func:`sample_hidden`), so OpenSpiel's ``ISMCTSBot`` runs on the game.
"""

from __future__ import annotations

import copy

import numpy as np

from cya_sim.env.errors import missing_extra

try:
    import pyspiel
except ModuleNotFoundError as _e:  # one line naming the extra to install
    raise missing_extra(_e) from None

from cya_sim.engine.theft.legal import legal_action_mask
from cya_sim.engine.theft.observation import TheftObservation, observe
from cya_sim.engine.theft.reference import apply_action, new_game
from cya_sim.env.errors import IllegalActionError
from cya_sim.env.openspiel import SpielParts, SpielState
from cya_sim.game.rng import shuffle_uniforms


class _NeedShuffle(Exception):
    """The engine asked for a shuffle of ``pile`` (its cards in their order before the shuffle)."""

    def __init__(self, pile: list[int]) -> None:
        super().__init__("a shuffle")
        self.pile = pile


class _Feed:
    """Stands in for the engine's random stream: returns queued uniforms; with none queued, the engine is
    asking for a reshuffle of the discard pile ``pile_ref`` (the list object being shuffled): raise
    :class:`_NeedShuffle` with its cards so chance can choose the new order."""

    def __init__(self, queue: list[float] | None = None, pile_ref: list[int] | None = None) -> None:
        self.queue = list(queue or [])
        self.pile_ref = pile_ref

    def __deepcopy__(self, memo) -> _Feed:
        return _Feed(self.queue)

    def random(self, size=None):
        n = 1 if size is None else int(size)
        if len(self.queue) < n:
            if self.pile_ref is not None and len(self.pile_ref) == n + 1:
                raise _NeedShuffle(list(self.pile_ref))
            raise RuntimeError(f"the theft engine drew {n} uniforms where chance had chosen none")
        out, self.queue = np.array(self.queue[:n]), self.queue[n:]
        return float(out[0]) if size is None else out


class _TheftBox:
    """Holds the reference :class:`~cya_sim.game.theft.state.TheftState`; a deep copy shares its frozen rules."""

    def __init__(self, ts) -> None:
        self.ts = ts

    def __deepcopy__(self, memo) -> _TheftBox:
        if self.ts is None:
            return _TheftBox(None)
        memo[id(self.ts.rules)] = self.ts.rules
        return _TheftBox(copy.deepcopy(self.ts, memo))


def theft_observation_text(obs: TheftObservation) -> str:
    """A canonical one-line text of a theft observation (equal texts = equal observations)."""
    assets = ";".join("|".join(f"{','.join(map(str, v.cards))}:{v.n_hidden}" for v in seat) for seat in obs.assets)
    th = "-" if obs.theft is None else f"{obs.theft.thief}>{obs.theft.target}#{obs.theft.slot}:{obs.theft.card}"
    return (f"p{obs.seat} {obs.phase} c{obs.current_player} a{obs.to_act} hand{obs.hand.tolist()} "
            f"sizes{obs.hand_sizes.tolist()} draw{obs.draw_size} discard{list(obs.discard_pile)} assets[{assets}] "
            f"theft[{th}] tt{obs.thefts_this_turn} final{obs.final_turns_left}")


class TheftSpielState(SpielState):
    """A theft game state (:class:`~cya_sim.env.openspiel.SpielState`): chance nodes for the first player, the deal
    and each reshuffle, then the reference engine's game (module docstring)."""

    FIRST_WHAT = "first player: seats"
    CARDS_WHAT = "card types with copies left to place"
    CHANCE_NOTE = " reshuffling"

    def __init__(self, game) -> None:
        super().__init__(game)
        self._box = _TheftBox(None)
        self.first = -1
        self.order: list[int] = []  # the cards chance has placed so far (top of the new draw pile first)
        self.pile: list[int] | None = None  # a reshuffle: the discard pile in its order before the shuffle
        self.pending: int | None = None  # the player action waiting for the reshuffle it needs

    @property
    def ts(self):
        """The reference :class:`~cya_sim.game.theft.state.TheftState` (None before the deal)."""
        return self._box.ts

    ref = ts

    def _shuffling(self) -> bool:
        return self._chance()

    def _first_pending(self) -> bool:
        return self.first < 0

    def _apply_action(self, action: int) -> None:
        g = self._g
        rules = g.rules
        if self.ts is None and self.first < 0:  # R-T-SETUP: the first player
            self._check_outcome(action)
            self.first = action
            self.left = rules.counts.astype(np.int64)
            return
        if self._shuffling():
            self._check_outcome(action)
            self.order.append(action)
            self.left[action] -= 1
            if not self.left.any():
                self._finish_shuffle()
            return
        ts = self.ts
        mask = legal_action_mask(ts)
        if not (0 <= action < mask.size and mask[action]):
            shown = g.space.name(action) if 0 <= action < mask.size else "outside the action space"
            raise IllegalActionError(f"seat {ts.to_act} chose illegal action {action} ({shown}); legal: "
                                     + ", ".join(map(str, np.flatnonzero(mask))))
        seat = ts.to_act
        remembered = self.recall[seat].after((theft_observation_text(observe(ts, seat)),), action)
        self.recall = self.recall[:seat] + (remembered,) + self.recall[seat + 1:]
        probe = copy.deepcopy(self._box)
        probe.ts.rng = _Feed(pile_ref=probe.ts.discard_pile)
        try:
            apply_action(probe.ts, action, legal_mask=mask)
        except _NeedShuffle as e:  # R-T-TURN: the draw pile ran out; chance orders the discard pile
            self.pending, self.pile, self.order = action, e.pile, []
            self.left = np.bincount(np.asarray(e.pile, np.int64), minlength=rules.n_types).astype(np.int64)
            return
        self._box = probe

    def _finish_shuffle(self) -> None:
        g = self._g
        rules = g.rules
        if self.ts is None:  # R-T-DECK, R-T-SETUP: the deck in type-id order, shuffled into chance's order
            deck = [t for t, n in enumerate(rules.counts) for _ in range(int(n))]
            feed = _Feed([(self.first + 0.5) / g.n_players, *shuffle_uniforms(deck, self.order)])
            self._box = _TheftBox(new_game(rules, g.n_players, 0, 0, rng=feed))
        else:
            self.ts.rng = _Feed(shuffle_uniforms(self.pile, self.order))
            apply_action(self.ts, self.pending)
            self.pending, self.pile = None, None
        self.left = None

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            if self.first < 0:
                return f"first player: seat {action}"
            return f"{'deal' if self.ts is None else 'reshuffle'} {self._g.rules.card_names[action]}"
        return self._g.space.name(action)

    def __str__(self) -> str:
        """The whole state, one line per seat and its assets (:func:`cya_sim.render.state_text`, the full view:
        every hand, a face-down card marked ``*``); ``dealing`` before the deal, and a line about the
        reshuffle while chance shuffles the discard pile into a new draw pile."""
        if self.ts is None:
            return "dealing"
        from cya_sim.render import state_text

        return state_text(self.ts) + ("\nreshuffling: the discard pile becomes the new draw pile"
                                      if self._shuffling() else "")


def sample_hidden(ts, player: int, rng: np.random.Generator) -> None:
    """Replace, in place, every card of ``ts`` that ``player`` cannot see by a uniform consistent placement.

    The cards ``player`` has not seen (the observation's ``unseen``, as physical copies) are placed
    uniformly: the asset cards it does not know (only numbers and gold can lie in an asset, R-T-DECK)
    take a uniform ordered draw of the unseen number and gold cards, then the rest are shuffled into the
    other hands (sizes kept) and the draw pile (its size kept). Every placement consistent with the
    observation is equally likely.
    """
    obs = observe(ts, player)
    rules = ts.rules
    unseen = [c for c in range(rules.n_types) for _ in range(int(obs.unseen[c]))]
    rng.shuffle(unseen)
    bit = 1 << player
    slots = []
    for owner, assets in enumerate(ts.assets):
        hidden_seat = ts.phase == "setup" and owner != player  # R-T-SETUP: first assets unseen while laid
        for a in assets:
            slots.extend((a, i) for i, k in enumerate(a.known_by) if hidden_seat or not k & bit)
    assets_pool = [c for c in unseen if c < rules.n_asset_types]
    rest = [c for c in unseen if c >= rules.n_asset_types]
    for a, i in slots:
        a.cards[i] = assets_pool.pop()
    rest = assets_pool + rest
    rng.shuffle(rest)
    k = 0
    for s in range(ts.n_players):
        if s == player:
            continue
        n = ts.hand_count(s)
        hand = [0] * rules.n_types
        for c in rest[k:k + n]:
            hand[c] += 1
        ts.hands[s] = hand
        k += n
    ts.draw_pile = rest[k:]


#: The theft family's functions its OpenSpiel states use.
TheftSpielState.parts = SpielParts(legal_action_mask, observe, theft_observation_text, sample_hidden)
