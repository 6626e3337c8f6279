"""The full state of one game (hidden information included), as plain data.

Engines read and change it; agents never see it (they get an
:class:`~cya_sim.engine.classic.reference.observation.Observation`). Card types are ids into
``rules.deck``; seats are ``0..P-1`` in clockwise order.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from cya_sim.game.rules import RuleSet

PHASE_TURN = "turn"
PHASE_CHALLENGE = "challenge"
PHASE_OVER = "over"
PHASE_DRAFT_OFFER = "draft_offer"  # a neighbour may open the immediate challenge of a drafted set (§7)
PHASE_DRAFT_MOVE = "draft_move"  # a Move turned up on a draft pile waits for its choice (§7 with §6)


@dataclass
class CardSet:
    """A set in a stack (RULES.md §2).

    asset: asset type id of the set (its top card's type).
    cards: card type ids in the set, in the order they were laid.
    known_by: per card, a bitmask of the seats that know it (R-HIDDEN-WILD);
        ``(1 << P) - 1`` means public.
    """

    asset: int
    cards: list[int]
    known_by: list[int]

    def value(self, values: np.ndarray) -> int:
        """Face value of the set in dollars."""
        return int(sum(int(values[c]) for c in self.cards))


@dataclass
class Challenge:
    """A challenge in progress (R-CH-EXCHANGE).

    challenger, defender: seats. asset: the contested top set's asset type.
    cards: cards played so far, in order (all public). players: who played each.
    to_act: the seat that must answer or give up now.
    depth: which set of the defender's stack is contested: 0 the top set,
        1 the set second from the top (R-ADV-DEEP).
    owed: cards ``to_act`` must play to answer: 1, or 2 (a Penny Jar alone
        also pays 2) after a Penny Jar (R-ADV-PENNY) or in a deep challenge
        (R-ADV-DEEP).
    """

    challenger: int
    defender: int
    asset: int
    cards: list[int]
    players: list[int]
    to_act: int
    depth: int = 0
    owed: int = 1


@dataclass
class GameState:
    """One game of the classic family, everything included.

    Attributes:
        rules, n_players, hand_size: the game's rules and table.
        deck_counts: (T,) int64 cards of each type in play (R-DECK-MULTI).
        totals: running totals in dollars, one per seat (R-SCORE).
        round_scores: list of per-round score lists (dollars), one per finished round.
        round_wins: rounds in which each seat had the highest score (R-GAME-END).
        round: number of the round in progress (1-based). dealer: seat.
        hands: P lists of T counts (R-SETUP).
        draw_pile: card ids, top first. discard_pile: card ids, top last.
        stacks: per seat, sets oldest first (top set = last).
        current_player: seat whose turn it is.
        challenge: a :class:`Challenge` or None.
        played_this_turn: per seat, whether it played a card this turn (R-REFILL).
        gave_up: P lists of T bools, public: the seat gave up a challenge over
            that asset type and has drawn no card since (RULES.md §10, "the
            public history of who did not answer a challenge").
        eligible: seats that can still win during R-TIE extra rounds, else None.
        extra_rounds: R-TIE extra rounds played so far.
        winners: seats sharing the win once the game is over, else None.
        capped: the game was stopped by the ``max_rounds`` cap (RuleSet), not by R-GAME-END.
        first_dealer: the dealer of round 1.
        removed: card ids that left the game this round, in order (Swap and
            Move played, discarded or turned up at set-up: R-ADV-SWAP,
            R-ADV-MOVE, R-ADV-DISCARD-ACTION, R-ADV-SETUP); public.
        actions_left: actions the player to move may still take this turn
            (R-ADV-TWO; always 1 with ``actions_per_turn`` = 1).
        no_challenge: the seat the player to move may not challenge again this
            turn (R-ADV-TWO: it lost a challenge against it as its first
            action), else -1.
        turn_defenders: seats challenged this turn, in order: they draw after
            the mover at the end of a two-action turn (R-REFILL, R-ADV-TWO).
        turns, challenges, decisions: counters over the whole game.
        largest_steal: value in dollars of the largest set a challenger won.
        rng: the engine's random stream (first dealer, shuffles).
        draft_piles: per draft pile (R-2P-DRAFT, R-3P-DRAFT) its cards, bottom first (top = last);
            empty without a draft. Under ``neighbours`` pile i lies between seats i and i+1.
        draft_down: per draft pile, whether its top card is still face-down (a pile taken from
            this turn is turned up once the immediate challenge is settled, :mod:`cya_sim.engine.classic.reference.draft`).
        draft_offer: seats still to be asked whether they open the immediate challenge of the set
            just drafted, the one asked now first; empty outside that decision.
        draft_move: ``[chooser, target]`` while a Move turned up on a draft pile waits for ``chooser`` to
            choose whether ``target``'s top set goes to the bottom or its bottom set to the top (R-2P-DRAFT,
            R-3P-DRAFT with §6); empty otherwise.
        draft_then: while ``draft_move`` waits, the draw order (R-REFILL) of the action that turned the pile
            up, used once the piles are all turned up; empty otherwise.
    """

    rules: RuleSet
    n_players: int
    hand_size: int
    deck_counts: np.ndarray = field(compare=False)  # derived from rules and n_players; arrays break ==
    totals: list[int]
    round_wins: list[int]
    round: int
    dealer: int
    first_dealer: int
    hands: list[list[int]]
    draw_pile: list[int]
    discard_pile: list[int]
    stacks: list[list[CardSet]]
    current_player: int
    challenge: Challenge | None = None
    played_this_turn: list[bool] = field(default_factory=list)
    gave_up: list[list[bool]] = field(default_factory=list)
    eligible: list[int] | None = None
    extra_rounds: int = 0
    winners: list[int] | None = None
    capped: bool = False
    round_scores: list[list[int]] = field(default_factory=list)
    turns: int = 0
    challenges: int = 0
    decisions: int = 0
    largest_steal: int = 0
    removed: list[int] = field(default_factory=list)
    actions_left: int = 1
    no_challenge: int = -1
    turn_defenders: list[int] = field(default_factory=list)
    rng: np.random.Generator | None = field(default=None, repr=False, compare=False)
    draft_piles: list[list[int]] = field(default_factory=list)
    draft_down: list[bool] = field(default_factory=list)
    draft_offer: list[int] = field(default_factory=list)
    draft_move: list[int] = field(default_factory=list)
    draft_then: list[int] = field(default_factory=list)

    @property
    def public_mask(self) -> int:
        """Bitmask of every seat."""
        return (1 << self.n_players) - 1

    @property
    def phase(self) -> str:
        """``turn``, ``challenge``, ``draft_offer``, ``draft_move`` or ``over``."""
        if self.winners is not None:
            return PHASE_OVER
        if self.challenge is not None:
            return PHASE_CHALLENGE
        if self.draft_move:
            return PHASE_DRAFT_MOVE
        return PHASE_DRAFT_OFFER if self.draft_offer else PHASE_TURN

    @property
    def to_act(self) -> int:
        """Seat that must choose the next action; -1 when the game is over."""
        if self.winners is not None:
            return -1
        if self.challenge is not None:
            return self.challenge.to_act
        if self.draft_move:
            return self.draft_move[0]
        return self.draft_offer[0] if self.draft_offer else self.current_player

    def hand_count(self, seat: int) -> int:
        """Cards in ``seat``'s hand."""
        return sum(self.hands[seat])

    def card_counts(self) -> np.ndarray:
        """(T,) int64 count of every card type wherever it is (card conservation)."""
        t = self.rules.deck.n_types
        c = np.zeros(t, dtype=np.int64)
        for h in self.hands:
            c += np.asarray(h, dtype=np.int64)
        for card in self.draw_pile + self.discard_pile + self.removed:
            c[card] += 1
        for pile in self.draft_piles:
            for card in pile:
                c[card] += 1
        for stack in self.stacks:
            for s in stack:
                for card in s.cards:
                    c[card] += 1
        if self.challenge is not None:
            for card in self.challenge.cards:
                c[card] += 1
        return c

    def stack_values(self) -> list[int]:
        """Dollar value of each seat's stack."""
        v = self.rules.deck.values
        return [sum(s.value(v) for s in stack) for stack in self.stacks]
