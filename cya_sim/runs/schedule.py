"""The schedule of an experiment: which line-up, rotation and deal every game number plays, and how the games are
cut into chunks and spread over worker processes.

**Schedule.** Each table size P is played separately, ``games`` games each.
A *line-up* is P agents in seat order; a *block* is the P rotations of one
line-up (rotation r moves every agent r seats on: ``seat_agent[s] =
lineup[(s - r) % P]``, as :func:`cya_sim.studies.tournament.seat_assignment`), so in
every block each line-up position sits in each seat exactly once. Blocks
cycle through the line-ups; a *cycle* is one block of every line-up. Global
game number ``n`` fixes its table size, line-up, rotation and *deal* (the
engine's game index, which fixes the shuffles and every random stream,
:mod:`cya_sim.game.rng`). Without duplicate deals every game has its own deal;
with ``duplicate = true`` every game of one cycle plays the same deal, so
every agent gets every seat's cards against the same cards of the others —
the duplicate format of bridge and of computer poker's duplicate matches
(Billings et al., AAAI 2002 Workshop; the Annual Computer Poker Competition).

Chunks (:func:`plan_chunks`, :func:`auto_chunk_size`) and workers (:func:`worker_count`) never change a game: a
game's seats and deal depend only on its number.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass

import numpy as np

from cya_sim.results.folder import chunk_ranges
from cya_sim.runs.experiment import Experiment

#: Largest and smallest automatic chunk, in games, per engine (one chunk = one Parquet file = one unit of
#: progress); the batched engine needs big batches to be fast.
MAX_AUTO_CHUNK = {"reference": 200, "batched": 50_000}
MIN_AUTO_CHUNK = {"reference": 10, "batched": 2_000}
#: Aim for at least this many chunks, so a kill loses little and progress moves.
TARGET_CHUNKS = 32
#: Games whose schedule columns :meth:`Schedule.games_of` computes at a time (about 30 MB of temporaries).
SCHEDULE_PIECE = 1 << 20


@dataclass(frozen=True)
class Schedule:
    """Who plays which deal in which seat, for every global game number (vectorised).

    Game numbers ``[i * games, (i + 1) * games)`` are table size ``players[i]``.
    Within a table size, local number m: block ``m // P``, rotation ``m % P``,
    line-up ``block % L``, cycle ``block // L``; deal = ``deal_offset[i] + m``,
    or ``deal_offset[i] + cycle`` with duplicate deals. Deals of different
    table sizes never coincide.

    Attributes:
        players: (S,) table sizes. games: games per size. duplicate: bool.
        lineups: per size, (L, P) int16 line-ups.
    """

    players: tuple[int, ...]
    games: int
    duplicate: bool
    lineups: tuple[np.ndarray, ...]

    @classmethod
    def of(cls, exp: Experiment) -> Schedule:
        """The schedule of an experiment."""
        return cls(exp.players, exp.games, exp.design.duplicate, tuple(exp.lineups(p) for p in exp.players))

    @property
    def total_games(self) -> int:
        """Games over every table size."""
        return self.games * len(self.players)

    def size_index(self, n_players: int) -> int:
        """Position of a table size in :attr:`players`."""
        return self.players.index(n_players)

    def deal_offset(self, i: int) -> int:
        """First deal index of table size number i (deals are disjoint across sizes)."""
        return i * self.games

    def games_of(self, start: int, stop: int) -> dict[str, np.ndarray]:
        """Columns of global games ``start..stop-1``, all of one table size.

        Returns:
            dict of ``game`` (G,) int64, ``deal`` (G,) int64 (the engine's
            game index), ``lineup`` (G,) int32, ``rotation`` (G,) int16,
            ``cycle`` (G,) int64, ``seat_agent`` (G, P) int16, ``players`` int.

        Raises:
            ValueError: the range is empty, out of bounds or spans two table sizes.
        """
        if not 0 <= start < stop <= self.total_games:
            raise ValueError(f"game range [{start}, {stop}) outside 0..{self.total_games}")
        i = start // self.games
        if (stop - 1) // self.games != i:
            raise ValueError(f"game range [{start}, {stop}) spans two table sizes")
        p = self.players[i]
        lu = self.lineups[i]
        n_lineups = lu.shape[0]
        # every (line-up, rotation) row of seat agents, (L * P, P) int16: a game's row is one gather
        seats = np.arange(p)
        rows = lu[np.arange(n_lineups)[:, None, None], (seats[None, None, :] - seats[None, :, None]) % p]
        rows = rows.reshape(n_lineups * p, p).astype(np.int16)
        g = stop - start
        out = {"game": np.empty(g, np.int64), "deal": np.empty(g, np.int64), "lineup": np.empty(g, np.int32),
               "rotation": np.empty(g, np.int16), "cycle": np.empty(g, np.int64),
               "seat_agent": np.empty((g, p), np.int16)}
        # in pieces: a chunk of tens of millions of games keeps no (G, P) int64 temporaries, and Python sees
        # Ctrl-C between pieces (tests/test_interrupt.py)
        for a in range(0, g, SCHEDULE_PIECE):
            b = min(g, a + SCHEDULE_PIECE)
            n = np.arange(start + a, start + b, dtype=np.int64)
            m = n - i * self.games
            block, rot = np.divmod(m, p)
            lineup, cycle = block % n_lineups, block // n_lineups
            out["game"][a:b] = n
            out["deal"][a:b] = self.deal_offset(i) + (cycle if self.duplicate else m)
            out["lineup"][a:b] = lineup
            out["rotation"][a:b] = rot
            out["cycle"][a:b] = cycle
            np.take(rows, lineup * p + rot, axis=0, out=out["seat_agent"][a:b])
        out["players"] = p
        return out


def plan_chunks(schedule: Schedule, chunk_size: int) -> list[tuple[int, int]]:
    """Half-open global game ranges ``[start, stop)``, at most ``chunk_size`` long, never spanning table sizes.

    Chunk i of a given (schedule, chunk_size) is always the same range, so a
    chunk file's name fixes its games.
    """
    return chunk_ranges(len(schedule.players), schedule.games, chunk_size)


def auto_chunk_size(games: int, engine: str, search: bool = False) -> int:
    """Games per chunk: about :data:`TARGET_CHUNKS` chunks per table size, within
    :data:`MIN_AUTO_CHUNK` and :data:`MAX_AUTO_CHUNK` (never more than ``games``).

    With ``search`` (a seat searches on the batched engine, ``ismcts`` or ``pimc``: its games take 0.1-1 s, as the
    reference engine's take) the reference engine's bounds: a 720-game leaderboard cell with ``ismcts`` is then 32
    chunks that every worker (or a cluster) shares, not one chunk that one process plays while the others wait.

    Depends only on ``games``, the engine and the agents, never on the workers, so a run resumed with other
    workers (or on a cluster) keeps its chunks (a resumed run reads its chunk size from its manifest).
    """
    bounds = "reference" if search else engine
    size = max(MIN_AUTO_CHUNK[bounds], min(math.ceil(games / TARGET_CHUNKS), MAX_AUTO_CHUNK[bounds]))
    return max(1, min(size, games))


def default_workers() -> int:
    """Local worker processes when none are given: the CPU cores this process may use (at least 1).

    ``os.sched_getaffinity`` where it exists (a container or ``taskset`` limit counts), else ``os.cpu_count()``.
    """
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def worker_count(requested: int | None, n_tasks: int) -> int:
    """Worker processes a run uses: ``requested`` (None = :func:`default_workers`), never more than its chunks.

    Args:
        requested: workers asked for (``run.workers`` or ``--workers``), >= 1, or None.
        n_tasks: chunks to play.

    Returns:
        an int >= 1 (1 plays in the calling process).
    """
    return max(1, min(requested or default_workers(), n_tasks))
