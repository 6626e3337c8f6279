"""Results of many games as columns (the shared output of every engine)."""

from __future__ import annotations

from dataclasses import dataclass, fields

import numpy as np


@dataclass
class GameTable:
    """Outcomes of G games at one table size P, one row per game.

    game_index: (G,) int64 global game indices (they fix deals and streams).
    seat_agent: (G, P) int16 index into the agent list for each seat.
    first_dealer: (G,) int16 seat that dealt round 1.
    totals: (G, P) int64 final totals in dollars.
    win_share: (G, P) float64 1/k for each of the k winners, else 0 (R-TIE).
    rounds, turns, challenges, decisions: (G,) int64 counts per game.
    largest_steal: (G,) int64 dollars, the largest set won by a challenger.
    capped: (G,) bool, the game was stopped by the ``max_rounds`` cap (RuleSet), not by R-GAME-END;
        default all False.
    """

    game_index: np.ndarray
    seat_agent: np.ndarray
    first_dealer: np.ndarray
    totals: np.ndarray
    win_share: np.ndarray
    rounds: np.ndarray
    turns: np.ndarray
    challenges: np.ndarray
    decisions: np.ndarray
    largest_steal: np.ndarray
    capped: np.ndarray | None = None

    def __post_init__(self) -> None:
        if self.capped is None:
            self.capped = np.zeros(len(self.game_index), bool)

    def __len__(self) -> int:
        return int(self.game_index.shape[0])

    @classmethod
    def concat(cls, tables: list[GameTable]) -> GameTable:
        """Rows of several tables, in the given order."""
        return cls(**{f.name: np.concatenate([getattr(t, f.name) for t in tables]) for f in fields(cls)})

    def sorted(self) -> GameTable:
        """Rows ordered by ``game_index``."""
        order = np.argsort(self.game_index, kind="stable")
        return GameTable(**{f.name: getattr(self, f.name)[order] for f in fields(self)})

    def equals(self, other: GameTable) -> bool:
        """Every column equal."""
        return all(np.array_equal(getattr(self, f.name), getattr(other, f.name)) for f in fields(self))
