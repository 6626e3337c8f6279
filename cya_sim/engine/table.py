"""Results of many games as columns (the shared output of every engine): common columns and each game's own.

Every game family fills the **common columns** of :class:`GameTable` — the game (its deal), which agent sat in
each seat, the final totals in the family's score unit, the win shares, the decisions its agents took and
whether the cap stopped it — and adds **its own columns**, named in its own words and declared once in a
:class:`ResultColumns` (the classic family's in :mod:`cya_sim.engine.classic.results`, the theft game's in
:mod:`cya_sim.engine.theft.results`). Both engines' producers fill a family's columns from that declaration,
and the results folder's Parquet schema (:func:`cya_sim.results.folder.games_schema`) is built from it, so a
column is named, typed and explained in one place. A family reaches the layers above through its
:class:`~cya_sim.play.family.GameFamily` (``result_columns()``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import numpy as np


@dataclass(frozen=True)
class ResultColumn:
    """One per-game result column of a game family: one value per game.

    Attributes:
        name: the column's name, in the game's own words (``first_dealer``, ``thefts``); the same name in the
            :class:`GameTable`, in ``games.parquet`` and in the reports.
        dtype: its NumPy dtype name (``int16``, ``int64``), in memory and on disk.
        unit: what one unit of the value is (``seat``, ``rounds``, ``dollars``, ``points``...).
        meaning: one line: what the value is, with the rule it comes from.
    """

    name: str
    dtype: str
    unit: str
    meaning: str


@dataclass(frozen=True)
class ResultColumns:
    """A game family's own result columns, and how the reports read them (one declaration per family).

    Attributes:
        family: the family's name (``rules.family``: ``classic``, ``theft``).
        score_unit: the unit of the common ``totals`` (``dollars``, ``points``; the rules' ``score_unit``).
        columns: the family's own columns, in stored order.
        length: the column whose distribution the report tabulates and plots (``rounds``, ``turns``): the
            game length in the family's words, and the name of those files (``rounds.csv``, ``turns.png``).
        metrics: the columns the report's length table summarises (mean, interval, quantiles).
        first_to_move: ``first_to_move(columns, P)`` -> (G,) int64: the seat that moved first, turn order 0
            of the reports' turn-order test (from the family's own columns, by its setup rule).
        title: the heading of the report's section on the metrics, in the game's words.
    """

    family: str
    score_unit: str
    columns: tuple[ResultColumn, ...]
    length: str
    metrics: tuple[str, ...]
    first_to_move: Callable[[Mapping[str, np.ndarray], int], np.ndarray]
    title: str

    def __post_init__(self) -> None:
        names = self.names
        if len(set(names)) != len(names) or set(names) & set(COMMON_NAMES):
            raise ValueError(f"family {self.family!r}: columns {names} repeat a name or a common column")
        if self.length not in names or not set(self.metrics) <= set(names):
            raise ValueError(f"family {self.family!r}: length {self.length!r} and metrics {self.metrics} must be "
                             f"among its columns {names}")

    @property
    def names(self) -> tuple[str, ...]:
        """The columns' names, in order."""
        return tuple(c.name for c in self.columns)

    def column(self, name: str) -> ResultColumn:
        """The declaration of column ``name``.

        Raises:
            KeyError: the family has no such column (its columns named).
        """
        for c in self.columns:
            if c.name == name:
                return c
        raise KeyError(f"the {self.family} game has no result column {name!r}; its columns: {', '.join(self.names)}")


#: The common columns every family fills, per game (G games, P seats): ``game_index`` and ``decisions`` (G,),
#: ``capped`` (G,) bool, ``seat_agent``, ``totals`` and ``win_share`` (G, P). ``totals`` is in the family's
#: ``score_unit``.
COMMON_COLUMNS: tuple[ResultColumn, ...] = (
    ResultColumn("game_index", "int64", "game",
                 "the game's global index: it fixes the deal and every random stream (game.rng; the deal)"),
    ResultColumn("seat_agent", "int16", "agent", "per seat, the index of its agent in the line-up's agent list"),
    ResultColumn("totals", "int64", "score unit", "per seat, the final total in the family's score unit"),
    ResultColumn("win_share", "float64", "wins", "per seat, 1/k for each of the k winners, else 0 (R-TIE, R-T-END)"),
    ResultColumn("decisions", "int64", "decisions", "decisions the agents took (legal actions chosen) in the game"),
    ResultColumn("capped", "bool", "flag",
                 "the family's cap (max_rounds, max_turns: a safeguard, not a rule) stopped the game"),
)

#: The names of :data:`COMMON_COLUMNS`.
COMMON_NAMES = tuple(c.name for c in COMMON_COLUMNS)


@dataclass
class GameTable:
    """Outcomes of G games at one table size P, one row per game: the common columns and the family's own.

    game_index: (G,) int64 global game indices (they fix deals and streams).
    seat_agent: (G, P) int16 index into the agent list for each seat.
    totals: (G, P) int64 final totals in ``family.score_unit`` (dollars, points).
    win_share: (G, P) float64 1/k for each of the k winners, else 0 (R-TIE, R-T-END).
    decisions: (G,) int64 decisions the agents took.
    family: the :class:`ResultColumns` of the game family that played.
    columns: the family's own columns, name -> (G,) array of its declared dtype (``family.columns``); each is
        also an attribute (``table.first_dealer``, ``table.thefts``).
    capped: (G,) bool, the game was stopped by the family's cap (``max_rounds``, ``max_turns``), not by its
        end rule; default all False.

    Raises:
        ValueError: ``columns`` are not exactly the family's, or a column is not (G,).
    """

    game_index: np.ndarray
    seat_agent: np.ndarray
    totals: np.ndarray
    win_share: np.ndarray
    decisions: np.ndarray
    family: ResultColumns
    columns: dict[str, np.ndarray] = field(default_factory=dict)
    capped: np.ndarray | None = None

    def __post_init__(self) -> None:
        g = len(self.game_index)
        if self.capped is None:
            self.capped = np.zeros(g, bool)
        if set(self.columns) != set(self.family.names):
            raise ValueError(f"the {self.family.family} game's result columns are {', '.join(self.family.names)}; "
                             f"got {', '.join(self.columns) or 'none'}")
        cols = {}
        for c in self.family.columns:
            a = np.asarray(self.columns[c.name], dtype=c.dtype)
            if a.shape != (g,):
                raise ValueError(f"result column {c.name!r} has shape {a.shape}; expected ({g},)")
            cols[c.name] = a
        self.columns = cols

    def __getattr__(self, name: str) -> np.ndarray:
        # only reached for a name that is no field: the family's own columns (not during unpickling)
        cols = self.__dict__.get("columns")
        if cols is not None and name in cols:
            return cols[name]
        raise AttributeError(f"GameTable has no column {name!r}" + (
            f"; the {self.family.family} game's own columns: {', '.join(cols)}" if cols is not None else ""))

    def __len__(self) -> int:
        return int(self.game_index.shape[0])

    def first_to_move(self) -> np.ndarray:
        """(G,) int64 the seat that moved first in each game (turn order 0), by the family's setup rule."""
        return np.asarray(self.family.first_to_move(self.columns, self.seat_agent.shape[1]), np.int64)

    def take(self, rows) -> GameTable:
        """The games at ``rows`` (an index array or a (G,) bool mask), every column alike."""
        return GameTable(self.game_index[rows], self.seat_agent[rows], self.totals[rows], self.win_share[rows],
                         self.decisions[rows], self.family, {k: v[rows] for k, v in self.columns.items()},
                         self.capped[rows])

    @classmethod
    def concat(cls, tables: list[GameTable]) -> GameTable:
        """Rows of several tables of one family, in the given order.

        Raises:
            ValueError: no table, or tables of different families.
        """
        if not tables or any(t.family != tables[0].family for t in tables):
            raise ValueError("concat needs one or more tables of one game family")
        cat = lambda name: np.concatenate([getattr(t, name) for t in tables])
        return cls(cat("game_index"), cat("seat_agent"), cat("totals"), cat("win_share"), cat("decisions"),
                   tables[0].family, {k: cat(k) for k in tables[0].family.names}, cat("capped"))

    def sorted(self) -> GameTable:
        """Rows ordered by ``game_index``."""
        return self.take(np.argsort(self.game_index, kind="stable"))

    def equals(self, other: GameTable) -> bool:
        """Same family and every column equal."""
        return self.family == other.family and all(
            np.array_equal(getattr(self, k), getattr(other, k)) for k in (*COMMON_NAMES, *self.family.names))
