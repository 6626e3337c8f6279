"""What one seat may see (RULES.md §10, R-HIDDEN-WILD).

An :class:`Observation` is built from the full state by :func:`observe` and
holds copies only: nothing in it refers back to the hidden state.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from cya_sim.engine.classic.reference import draft
from cya_sim.engine.classic.reference.legal import action_space, legal_action_mask
from cya_sim.game.classic.actions import ActionSpace
from cya_sim.game.classic.state import GameState
from cya_sim.game.rules import RuleSet


@dataclass(frozen=True)
class SetView:
    """A set as one observer sees it.

    owner: seat holding the set. asset: its asset type id. size: number of cards.
    known: tuple of T ints, counts of the set's cards this observer knows.
    n_hidden: cards this observer does not know; each is an asset of the set's
        type or a wild (R-HIDDEN-WILD).
    value_seen: dollars, counting each hidden card at the asset's value.
    value_low, value_high: dollars, the range the set's value can be in.
    """

    owner: int
    asset: int
    size: int
    known: tuple[int, ...]
    n_hidden: int
    value_seen: int
    value_low: int
    value_high: int


@dataclass(frozen=True)
class ChallengeView:
    """A challenge in progress (all of it is public, R-CH-EXCHANGE).

    challenger, defender, to_act: seats. asset: contested asset type.
    cards: cards shown so far, in order. players: who showed each.
    depth: 0 the defender's top set is contested, 1 the set second from the top (R-ADV-DEEP).
    owed: cards ``to_act`` must play: 1, or 2 (two cards or a Penny Jar; R-ADV-PENNY, R-ADV-DEEP).
    """

    challenger: int
    defender: int
    asset: int
    cards: tuple[int, ...]
    players: tuple[int, ...]
    to_act: int
    depth: int = 0
    owed: int = 1


@dataclass(frozen=True)
class Observation:
    """Everything seat ``seat`` may know (RULES.md §10).

    Attributes:
        seat: the observer. n_players: P. rules: the rule set.
        action_space: ids and names of actions.
        hand: (T,) int16 card counts in the observer's hand.
        stacks: per seat, a tuple of :class:`SetView`, oldest first (top = last).
        discard_pile: card ids, top last (every discard is public).
        draw_size: cards left in the draw pile.
        hand_sizes: (P,) int16 cards in each hand.
        totals: (P,) int64 running totals in dollars.
        round, dealer, current_player: round number (1-based), dealer seat,
            seat whose turn it is.
        phase: ``turn``, ``challenge``, ``draft_offer`` (asked whether to open the immediate
            challenge of a freshly drafted set, §7) or ``draft_move`` (choosing for a Move turned up
            on a draft pile, §7 with §6).
        challenge: a :class:`ChallengeView` or None.
        unseen: (T,) int16 cards the observer has not seen: the cards in play
            minus its hand, the discard pile, the removed cards, the challenge
            cards and every stack card it knows (hidden set cards are among them).
        gave_up: (P, T) bool, public: the seat gave up a challenge over that
            asset type and has drawn no card since (§10's public history).
        legal_action_mask: (A,) bool.
        removed: card ids that left the game this round, in card-type order (public; §6).
        actions_left: actions the player to move may still take this turn (R-ADV-TWO).
        no_challenge: the seat the player to move may not challenge again this turn, else -1 (R-ADV-TWO).
        turn_defenders: seats challenged this turn, in order (public; they draw after the mover, R-ADV-TWO).
        played_this_turn: (P,) bool, public: the seats that played a card this turn (R-REFILL).
        draft_tops: per draft pile (R-2P-DRAFT, R-3P-DRAFT), the card id of its face-up top,
            -1 when the pile is empty or its next card is not turned up yet; () without a draft.
        draft_sizes: per draft pile, its cards (the face-down ones are hidden, §10); ().
        draft_reach: the piles the observer may draft from on its turn, in reach order; ().
        draft_offer: the seats still to be asked whether they open the immediate challenge of the set
            just drafted, the one asked now first (public); () outside that decision.
        draft_move: ``(chooser, target)`` while a Move turned up on a draft pile waits for ``chooser``'s
            choice on ``target``'s stack (public; phase ``draft_move``, §7 with §6); () otherwise.
        draft_then: while ``draft_move`` waits, the seats that draw (R-REFILL, in order) once the piles are
            turned up (public); () otherwise.
    """

    seat: int
    n_players: int
    rules: RuleSet
    action_space: ActionSpace
    hand: np.ndarray
    stacks: tuple[tuple[SetView, ...], ...]
    discard_pile: tuple[int, ...]
    draw_size: int
    hand_sizes: np.ndarray
    totals: np.ndarray
    round: int
    dealer: int
    current_player: int
    phase: str
    challenge: ChallengeView | None
    unseen: np.ndarray
    gave_up: np.ndarray
    legal_action_mask: np.ndarray
    removed: tuple[int, ...] = ()
    actions_left: int = 1
    no_challenge: int = -1
    turn_defenders: tuple[int, ...] = ()
    played_this_turn: tuple[bool, ...] = ()
    draft_tops: tuple[int, ...] = ()
    draft_sizes: tuple[int, ...] = ()
    draft_reach: tuple[int, ...] = ()
    draft_offer: tuple[int, ...] = ()
    draft_move: tuple[int, ...] = ()
    draft_then: tuple[int, ...] = ()

    @property
    def top_discard(self) -> int:
        """Card id on top of the discard pile, -1 when it is empty (R-EMPTY-DISCARD)."""
        return self.discard_pile[-1] if self.discard_pile else -1

    def seat_at(self, offset: int) -> int:
        """The seat ``offset`` places to the observer's left."""
        return (self.seat + offset) % self.n_players


@lru_cache(maxsize=64)
def _set_value_bounds(rules: RuleSet) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
    """Per card type: face value; per asset: lowest and highest value a hidden card can have."""
    deck = rules.deck
    values = tuple(int(v) for v in deck.values)
    wilds = values[deck.n_assets : deck.n_assets + deck.n_wilds]
    lo = tuple(min((v,) + wilds) for v in values[: deck.n_assets])
    hi = tuple(max((v,) + wilds) for v in values[: deck.n_assets])
    return values, lo, hi


def _gave_up_array(state: GameState) -> np.ndarray:
    """(P, T) bool of ``state.gave_up`` (all False for a state that predates the record)."""
    if not state.gave_up:
        return np.zeros((state.n_players, state.rules.deck.n_types), bool)
    return np.array(state.gave_up, dtype=bool)


def observe(state: GameState, seat: int) -> Observation:
    """The observation of ``seat`` (RULES.md §10); copies, no hidden information.

    Raises:
        ValueError: ``seat`` outside ``0..P-1``.
    """
    p = state.n_players
    if not 0 <= seat < p:
        raise ValueError(f"seat {seat!r} is outside 0..{p - 1}")
    t = state.rules.deck.n_types
    values, lo, hi = _set_value_bounds(state.rules)
    bit = 1 << seat
    seen = [0] * t
    stacks = []
    for owner in range(p):
        views = []
        for s in state.stacks[owner]:
            known = [0] * t
            base = 0
            n_known = 0
            for card, who in zip(s.cards, s.known_by):
                if who & bit:
                    known[card] += 1
                    seen[card] += 1
                    base += values[card]
                    n_known += 1
            n_hidden = len(s.cards) - n_known
            a = s.asset
            views.append(
                SetView(owner, a, len(s.cards), tuple(known), n_hidden,
                        base + n_hidden * values[a], base + n_hidden * lo[a], base + n_hidden * hi[a])
            )
        stacks.append(tuple(views))
    for c in state.discard_pile:
        seen[c] += 1
    for c in state.removed:
        seen[c] += 1
    ch = None
    if state.challenge is not None:
        c = state.challenge
        for card in c.cards:
            seen[card] += 1
        ch = ChallengeView(c.challenger, c.defender, c.asset, tuple(c.cards), tuple(c.players), c.to_act,
                           c.depth, c.owed)
    tops: tuple[int, ...] = ()
    if state.draft_piles:  # §10: the face-up tops and the pile sizes, not the face-down cards
        tops = tuple(draft.face_up_top(state, j) for j in range(len(state.draft_piles)))
        for c in tops:
            if c >= 0:
                seen[c] += 1
    hand = np.array(state.hands[seat], dtype=np.int16)
    unseen = (state.deck_counts - hand - np.array(seen, dtype=np.int64)).astype(np.int16)
    space = action_space(state.rules)
    mask = legal_action_mask(state) if state.to_act == seat else np.zeros(space.size, bool)
    mask.flags.writeable = False  # an agent that writes into it is refused (its write raises), never played
    return Observation(
        seat=seat,
        n_players=p,
        rules=state.rules,
        action_space=space,
        hand=hand,
        stacks=tuple(stacks),
        discard_pile=tuple(state.discard_pile),
        draw_size=len(state.draw_pile),
        hand_sizes=np.array([sum(h) for h in state.hands], dtype=np.int16),
        totals=np.array(state.totals, dtype=np.int64),
        round=state.round,
        dealer=state.dealer,
        current_player=state.current_player,
        phase=state.phase,
        challenge=ch,
        unseen=unseen,
        gave_up=_gave_up_array(state),
        legal_action_mask=mask,
        removed=tuple(sorted(state.removed)),
        actions_left=state.actions_left,
        no_challenge=state.no_challenge,
        turn_defenders=tuple(state.turn_defenders),
        played_this_turn=tuple(bool(x) for x in state.played_this_turn),
        draft_tops=tops,
        draft_sizes=tuple(len(pile) for pile in state.draft_piles),
        draft_reach=tuple(draft.reach(state, seat)) if state.draft_piles else (),
        draft_offer=tuple(state.draft_offer),
        draft_move=tuple(state.draft_move),
        draft_then=tuple(state.draft_then),
    )
