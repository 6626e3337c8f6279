"""What one seat of a theft game may see (RULES.md §10 applied to §9).

Hidden: hands, the draw pile's order, and a first asset's face-down card
(known to its owner, and to a thief who takes the asset). While the seats lay
their first assets (R-T-SETUP, done at once at a real table) a seat sees no
other seat's first asset. Everything else is public: every built asset, every
theft and its answer, the discard pile. An observation holds copies only.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from cya_sim.engine.theft.legal import action_space, legal_action_mask
from cya_sim.game.theft.actions import TheftActionSpace
from cya_sim.game.theft.rules import TheftRuleSet
from cya_sim.game.theft.state import SETUP, TheftState


@dataclass(frozen=True)
class AssetView:
    """An asset as one observer sees it.

    owner: seat holding it. slot: its index among the owner's assets.
    cards: the card type ids the observer knows, as laid.
    n_hidden: cards it does not know (0 or 1: a face-down card, a number or gold).
    value_seen: points of the known cards. value_low, value_high: the points the
        asset can be worth (a hidden card is worth ``gold_value`` to ``numbers``).
    """

    owner: int
    slot: int
    cards: tuple[int, ...]
    n_hidden: int
    value_seen: int
    value_low: int
    value_high: int


@dataclass(frozen=True)
class TheftView:
    """A theft waiting for its answer (public). thief, target, slot: seats and asset index. card: theft type."""

    thief: int
    target: int
    slot: int
    card: int


@dataclass(frozen=True)
class TheftObservation:
    """Everything seat ``seat`` may know.

    Attributes:
        seat, n_players, rules, action_space: the observer, P, the rule set, the actions.
        phase: ``setup``, ``play``, ``defence``, ``discard`` or ``over``.
        current_player: the seat whose turn it is. to_act: the seat to choose now.
        hand: (T,) int16 the observer's cards by type.
        assets: per seat, a tuple of :class:`AssetView`, oldest first.
        discard_pile: card ids, top last. draw_size: cards in the draw pile.
        hand_sizes: (P,) int16 cards in each hand.
        theft: a :class:`TheftView` or None. thefts_this_turn: theft cards the mover played this turn.
        final_turns_left: None, or turns still to play after R-T-END triggered.
        unseen: (T,) int16 cards the observer has not seen: the deck minus its hand,
            the discard pile, the pending theft card and every asset card it knows.
        legal_action_mask: (A,) bool (all False unless the observer is to act).
    """

    seat: int
    n_players: int
    rules: TheftRuleSet
    action_space: TheftActionSpace
    phase: str
    current_player: int
    to_act: int
    hand: np.ndarray
    assets: tuple[tuple[AssetView, ...], ...]
    discard_pile: tuple[int, ...]
    draw_size: int
    hand_sizes: np.ndarray
    theft: TheftView | None
    thefts_this_turn: int
    final_turns_left: int | None
    unseen: np.ndarray
    legal_action_mask: np.ndarray

    def seat_at(self, offset: int) -> int:
        """The seat ``offset`` places on from the observer."""
        return (self.seat + offset) % self.n_players


def observe(state: TheftState, seat: int) -> TheftObservation:
    """The observation of ``seat`` (RULES.md §10 for §9); copies, no hidden information.

    Raises:
        ValueError: ``seat`` outside ``0..P-1``.
    """
    p = state.n_players
    if not 0 <= seat < p:
        raise ValueError(f"seat {seat!r} is outside 0..{p - 1}")
    r = state.rules
    values = r.values
    lo = min(1, r.gold_value) if r.gold_cards else 1  # a hidden card is a number or a gold card
    hi = max(r.numbers, r.gold_value) if r.gold_cards else r.numbers
    bit = 1 << seat
    seen = np.zeros(r.n_types, dtype=np.int64)
    views = []
    for owner in range(p):
        row = []
        if state.phase != SETUP or owner == seat:
            for slot, a in enumerate(state.assets[owner]):
                known = tuple(c for c, k in zip(a.cards, a.known_by) if k & bit)
                for c in known:
                    seen[c] += 1
                n_hidden = len(a.cards) - len(known)
                v = int(sum(int(values[c]) for c in known))
                row.append(AssetView(owner, slot, known, n_hidden, v, v + n_hidden * lo, v + n_hidden * hi))
        views.append(tuple(row))
    for c in state.discard_pile:
        seen[c] += 1
    th = None
    if state.theft is not None:
        t = state.theft
        seen[t.card] += 1
        th = TheftView(t.thief, t.target, t.slot, t.card)
    hand = np.array(state.hands[seat], dtype=np.int16)
    space = action_space(r)
    mask = legal_action_mask(state) if state.to_act == seat else np.zeros(space.size, bool)
    mask.flags.writeable = False  # an agent that writes into it is refused (its write raises), never played
    return TheftObservation(
        seat=seat, n_players=p, rules=r, action_space=space, phase=state.phase,
        current_player=state.current_player, to_act=state.to_act, hand=hand, assets=tuple(views),
        discard_pile=tuple(state.discard_pile), draw_size=len(state.draw_pile),
        hand_sizes=np.array([sum(h) for h in state.hands], dtype=np.int16), theft=th,
        thefts_this_turn=state.thefts_this_turn, final_turns_left=state.final_turns_left,
        unseen=(r.counts - hand - seen).astype(np.int16), legal_action_mask=mask,
    )
