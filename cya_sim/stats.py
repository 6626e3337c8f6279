"""Tournament statistics: win rates with Wilson intervals, mean totals with t intervals.

Everything here is a thin, documented layer over statsmodels and pandas; nothing
is hand-rolled where a library has it.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
from statsmodels.stats.proportion import proportion_confint
from statsmodels.stats.weightstats import DescrStatsW

from cya_sim.engine.table import GameTable

#: Columns of :func:`summarize`'s table, in order (``summary.csv``).
SUMMARY_COLUMNS = (
    "agent",
    "games",
    "wins",
    "win_rate",
    "win_rate_ci_low",
    "win_rate_ci_high",
    "mean_total",
    "mean_total_ci_low",
    "mean_total_ci_high",
)


def wilson_interval(wins, games, confidence: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """Wilson score interval for a win rate (Wilson 1927, JASA 22:209–212).

    Computed by ``statsmodels.stats.proportion.proportion_confint(method="wilson")``.

    Args:
        wins: scalar or (K,) float, number of wins. Shared wins (R-TIE
            ``share``) make this fractional; the interval then treats the
            sum of win shares as the success count, a standard approximation.
        games: scalar or (K,) int, number of trials (seat-games), each >= 1.
        confidence: two-sided confidence level in (0, 1), 0.95 by default.

    Returns:
        (low, high): float64 arrays of the shape of ``wins``, within [0, 1].

    Raises:
        ValueError: ``confidence`` outside (0, 1), ``games`` < 1, or ``wins``
            outside ``0..games``.
    """
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence is {confidence!r}; it must be strictly between 0 and 1")
    wins = np.asarray(wins, dtype=np.float64)
    games = np.asarray(games, dtype=np.float64)
    if np.any(games < 1):
        raise ValueError("games must be >= 1 for every entry (a win rate needs at least one game)")
    if np.any(wins < 0) or np.any(wins > games):
        raise ValueError("wins must lie between 0 and games for every entry")
    low, high = proportion_confint(wins, games, alpha=1.0 - confidence, method="wilson")
    # The Wilson interval always holds the observed rate; clamp away floating-point
    # rounding (10/10 gives an upper bound of 0.9999999999999999).
    rate = wins / games
    low = np.clip(np.minimum(np.asarray(low, np.float64), rate), 0.0, 1.0)
    high = np.clip(np.maximum(np.asarray(high, np.float64), rate), 0.0, 1.0)
    return low, high


def mean_interval(values, confidence: float = 0.95) -> tuple[float, float, float]:
    """Mean with a Student-t confidence interval (``statsmodels`` ``DescrStatsW.tconfint_mean``).

    Args:
        values: (N,) numbers, e.g. final totals in dollars.
        confidence: two-sided confidence level in (0, 1).

    Returns:
        (mean, low, high) in the unit of ``values``; low and high are NaN when
        N < 2 (no spread to estimate); all three are NaN when N == 0.

    Raises:
        ValueError: ``confidence`` outside (0, 1).
    """
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence is {confidence!r}; it must be strictly between 0 and 1")
    x = np.asarray(values, dtype=np.float64).ravel()
    if x.size == 0:
        return float("nan"), float("nan"), float("nan")
    mean = float(x.mean())
    if x.size < 2:
        return mean, float("nan"), float("nan")
    if np.all(x == x[0]):
        return mean, mean, mean
    low, high = DescrStatsW(x).tconfint_mean(alpha=1.0 - confidence)
    return mean, float(low), float(high)


def summarize(table: GameTable, agents: Sequence[str], confidence: float = 0.95) -> pd.DataFrame:
    """Per-agent summary of a tournament (``summary.csv``), one row per agent.

    A *seat-game* is one agent in one seat of one game; an agent that holds
    two seats of a game counts two seat-games there. Columns
    (:data:`SUMMARY_COLUMNS`):

    - ``agent`` (str), ``games`` (int, seat-games),
    - ``wins`` (float): sum of win shares; k players tied for the win get
      1/k each (R-TIE ``share``),
    - ``win_rate`` = wins / games, with ``win_rate_ci_low`` / ``_high`` the
      Wilson score interval (Wilson 1927) at ``confidence``. A fair share at
      a P-player table is 1/P.
    - ``mean_total`` (dollars): mean final total per seat-game, with a
      Student-t interval ``mean_total_ci_low`` / ``_high``. Seat-games of one
      agent in the same game are not independent; with repeated agents the
      interval is optimistic.

    Args:
        table: the games (``seat_agent`` indexes ``agents``).
        agents: (K,) agent names; row k of the result is ``agents[k]``.
        confidence: two-sided level of both intervals.

    Returns:
        a DataFrame with K rows; an agent that never sat gets games 0 and NaN
        rates.

    Raises:
        ValueError: ``seat_agent`` holds an index outside ``0..K-1``, or a bad
            ``confidence``.
    """
    seat_agent = np.asarray(table.seat_agent)
    k = len(agents)
    if seat_agent.size and (seat_agent.min() < 0 or seat_agent.max() >= k):
        raise ValueError(f"seat_agent holds agent indices outside 0..{k - 1} (agents: {', '.join(agents)})")
    rows = []
    for a, name in enumerate(agents):
        where = seat_agent == a
        n = int(where.sum())
        wins = float(np.asarray(table.win_share)[where].sum())
        totals = np.asarray(table.totals)[where]
        mean, mlo, mhi = mean_interval(totals, confidence)
        if n:
            lo, hi = wilson_interval(wins, n, confidence)
            rate, lo, hi = wins / n, float(lo), float(hi)
        else:
            rate = lo = hi = float("nan")
        rows.append((name, n, wins, rate, lo, hi, mean, mlo, mhi))
    return pd.DataFrame(rows, columns=list(SUMMARY_COLUMNS))
