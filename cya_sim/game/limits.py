"""Upper bounds of the numbers a user gives: no input may overflow, exhaust memory or hang.

Rule-set bounds (``target_score``, ``max_rounds``, card values and copies) live
with the rules (:mod:`cya_sim.game.rules`); these are the run's own.
"""

from __future__ import annotations

#: Most games of one tournament or one table size of an experiment. A flags-only tournament
#: keeps one row per game in memory (about 100 bytes at 4 players), and a report reads every
#: stored game (about 130 MB per million), so 100 million games need about 13 GB.
MAX_GAMES = 100_000_000
def range_text(lo: int, hi: int) -> str:
    """Words for an allowed range of integers: ``"2 to 6"``, or ``"only 2"`` when ``lo == hi``.

    Used in refusals such as "rules 'two_player_draft' allow only 2 players" (never "allow 2 to 2").
    """
    return f"only {lo}" if lo == hi else f"{lo} to {hi}"


#: Largest seed: stored as a signed 64-bit integer (``games.parquet``'s ``seed`` column).
MAX_SEED = 2**63 - 1

#: Most local worker processes a run may ask for (``--workers``, ``run.workers``).
MAX_WORKERS = 1024
#: Largest per-game count of turns, challenges or thefts a position may give: ``games.parquet`` stores
#: ``rounds``, ``turns`` and ``challenges`` as int32.
MAX_COUNT = 2**31 - 1
#: Largest per-game count of decisions a position may give: ``games.parquet``'s int64 ``decisions``.
MAX_DECISIONS = 2**63 - 1
