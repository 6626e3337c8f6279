"""The full state of one theft game (hidden information included), as plain data (RULES.md §9).

Engines read and change it; agents never see it (they get a
:class:`~cya_sim.engine.theft.observation.TheftObservation`). Card types are ids of
:class:`~cya_sim.game.theft.rules.TheftRuleSet`; seats are ``0..P-1`` in turn order.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from cya_sim.game.theft.rules import TheftRuleSet

SETUP = "setup"      # R-T-SETUP: seats lay their first asset
PLAY = "play"        # R-T-TURN: the mover builds, steals or ends the turn
DEFENCE = "defence"  # R-T-TURN: the target of a theft cancels it or lets it pass
DISCARD = "discard"  # R-T-TURN: end of turn, discarding down to hand_limit
OVER = "over"
PHASES = (SETUP, PLAY, DEFENCE, DISCARD, OVER)


@dataclass
class Asset:
    """An asset: two cards in front of a player (R-T-SETUP, R-T-TURN).

    cards: card type ids as laid (the first asset: face-down card first).
    known_by: per card, a bitmask of the seats that know it; ``(1 << P) - 1`` is public.
        Only a first asset's face-down card is ever hidden (RULES.md §10).
    """

    cards: list[int]
    known_by: list[int]

    def value(self, values: np.ndarray) -> int:
        """Points of the asset: the sum of its cards' values (R-T-END; gold counts ``gold_value``)."""
        return int(sum(int(values[c]) for c in self.cards))


@dataclass
class PendingTheft:
    """A theft card on an asset, waiting for the target's answer (R-T-TURN).

    thief, target: seats. slot: index of the asset in the target's assets.
    card: the theft card's type (plain or gold theft).
    """

    thief: int
    target: int
    slot: int
    card: int


@dataclass
class TheftState:
    """One theft game, everything included.

    Attributes:
        rules, n_players: the rule set and table size P.
        hands: P lists of T counts. draw_pile: card ids, top first.
        discard_pile: card ids, top last (all face-up, public).
        assets: per seat, assets oldest first.
        phase: one of :data:`PHASES`.
        current_player: seat whose turn it is (in setup: the seat laying its first asset).
        first_player: the seat chosen at random to move first (R-T-SETUP).
        theft: the theft waiting for an answer, or None.
        thefts_this_turn: theft cards played by the mover this turn.
        final_turns_left: None until R-T-END triggers; then turns still to play.
        trigger_seat: the seat whose assets triggered R-T-END, or -1.
        winners: seats sharing the win once the game is over, else None.
        capped: the game stopped at ``rules.max_turns`` (a safeguard, not a rule).
        turns, thefts, cancelled, decisions: counters over the game.
        largest_steal: points of the largest asset a thief won.
        rng: the engine's random stream (first player, shuffles).
    """

    rules: TheftRuleSet
    n_players: int
    hands: list[list[int]]
    draw_pile: list[int]
    discard_pile: list[int]
    assets: list[list[Asset]]
    phase: str
    current_player: int
    first_player: int
    theft: PendingTheft | None = None
    thefts_this_turn: int = 0
    final_turns_left: int | None = None
    trigger_seat: int = -1
    winners: list[int] | None = None
    capped: bool = False
    turns: int = 0
    thefts: int = 0
    cancelled: int = 0
    decisions: int = 0
    largest_steal: int = 0
    rng: np.random.Generator | None = field(default=None, repr=False, compare=False)

    @property
    def public_mask(self) -> int:
        """Bitmask of every seat."""
        return (1 << self.n_players) - 1

    @property
    def to_act(self) -> int:
        """Seat that must choose the next action; -1 when the game is over."""
        if self.phase == OVER:
            return -1
        if self.phase == DEFENCE:
            return self.theft.target
        return self.current_player

    def hand_count(self, seat: int) -> int:
        """Cards in ``seat``'s hand."""
        return sum(self.hands[seat])

    def scores(self) -> list[int]:
        """Points of each seat's assets (R-T-END)."""
        v = self.rules.values
        return [sum(a.value(v) for a in assets) for assets in self.assets]

    def card_counts(self) -> np.ndarray:
        """(T,) int64 count of every card type wherever it is (card conservation, R-T-DECK)."""
        c = np.zeros(self.rules.n_types, dtype=np.int64)
        for h in self.hands:
            c += np.asarray(h, dtype=np.int64)
        for card in self.draw_pile + self.discard_pile:
            c[card] += 1
        for assets in self.assets:
            for a in assets:
                for card in a.cards:
                    c[card] += 1
        if self.theft is not None:
            c[self.theft.card] += 1
        return c
