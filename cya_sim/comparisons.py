"""Head-to-head comparisons, "A beats B" tests and seat advantage.

Pairwise comparisons come from finishing orders: in a game, the agent in seat
i *finishes ahead* of the agent in seat j when its final total is higher
(equal totals are a tie). Every pair of seats held by two different agents
gives one comparison. Comparisons from the same game are not independent, so
p-values here are a guide, best read together with duplicate deals and large
samples.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
from scipy.stats import binomtest, chisquare

from cya_sim.engine.table import GameTable
from cya_sim.stats import wilson_interval

PAIRWISE_COLUMNS = (
    "agent", "opponent", "comparisons", "ahead", "behind", "ties",
    "ahead_share", "ahead_share_ci_low", "ahead_share_ci_high", "p_value",
)
SEAT_COLUMNS = ("seat", "games", "wins", "win_rate", "win_rate_ci_low", "win_rate_ci_high")


def ahead_counts(table: GameTable, n_agents: int) -> tuple[np.ndarray, np.ndarray]:
    """Counts of finishing ahead, from every pair of seats of every game.

    Args:
        table: games; ``seat_agent`` (G, P) indexes the agents.
        n_agents: K.

    Returns:
        (ahead, ties): (K, K) int64. ``ahead[a, b]`` = comparisons in which
        agent a finished ahead of agent b (higher final total); ``ties[a, b]``
        = equal totals (symmetric). Pairs of seats held by one agent are skipped.
    """
    seat_agent = np.asarray(table.seat_agent, dtype=np.int64)
    totals = np.asarray(table.totals)
    k = n_agents
    ahead = np.zeros(k * k, np.int64)
    ties = np.zeros(k * k, np.int64)
    p = seat_agent.shape[1]
    for i in range(p):
        for j in range(i + 1, p):
            a, b = seat_agent[:, i], seat_agent[:, j]
            diff = a != b
            ti, tj = totals[:, i], totals[:, j]
            np.add.at(ahead, (a * k + b)[diff & (ti > tj)], 1)
            np.add.at(ahead, (b * k + a)[diff & (tj > ti)], 1)
            tie = diff & (ti == tj)
            np.add.at(ties, (a * k + b)[tie], 1)
            np.add.at(ties, (b * k + a)[tie], 1)
    return ahead.reshape(k, k), ties.reshape(k, k)


def pairwise_table(table: GameTable, agents: Sequence[str], confidence: float = 0.95) -> pd.DataFrame:
    """Head-to-head matrix as rows (``pairwise.csv``): one row per ordered pair of agents.

    Columns (:data:`PAIRWISE_COLUMNS`): ``comparisons`` (pairs of seats held
    by the two agents), ``ahead``/``behind``/``ties`` counts, ``ahead_share``
    = (ahead + ties/2) / comparisons with a Wilson interval (Wilson 1927), and
    ``p_value`` of the two-sided exact binomial test (``scipy.stats.binomtest``)
    that the agent finishes ahead of the opponent in half of the decisive
    comparisons ("A beats B" when ahead_share > 0.5 and p_value is small).
    Pairs that never met get 0 comparisons and NaN statistics.
    """
    k = len(agents)
    ahead, ties = ahead_counts(table, k)
    rows = []
    for a in range(k):
        for b in range(k):
            if a == b:
                continue
            n = int(ahead[a, b] + ahead[b, a] + ties[a, b])
            if n:
                share_wins = ahead[a, b] + ties[a, b] / 2
                lo, hi = wilson_interval(share_wins, n, confidence)
                decisive = int(ahead[a, b] + ahead[b, a])
                p = binomtest(int(ahead[a, b]), decisive, 0.5).pvalue if decisive else 1.0
                rows.append((agents[a], agents[b], n, int(ahead[a, b]), int(ahead[b, a]), int(ties[a, b]),
                             share_wins / n, float(lo), float(hi), float(p)))
            else:
                nan = float("nan")
                rows.append((agents[a], agents[b], 0, 0, 0, 0, nan, nan, nan, nan))
    return pd.DataFrame(rows, columns=list(PAIRWISE_COLUMNS))


def seat_table(table: GameTable, confidence: float = 0.95) -> tuple[pd.DataFrame, float, float]:
    """Win rate by seat (``seats.csv``) and a test for seat advantage.

    Seat s is the s-th seat clockwise from seat 0 (R-SETUP; the first dealer
    is random, so "seat" is a fixed chair, not a turn position; for turn
    order pass :func:`cya_sim.analysis.turn_order_shares` to
    :func:`position_table`).

    Returns:
        as :func:`position_table` of ``table.win_share``.
    """
    return position_table(table.win_share, confidence)


def position_table(win_share, confidence: float = 0.95) -> tuple[pd.DataFrame, float, float]:
    """Win rate by position (seat or turn order) and Pearson's chi-square test of equal shares.

    Args:
        win_share: (G, P) float win shares (R-TIE), column = position.
        confidence: level of the Wilson intervals.

    Returns:
        (table, chi2, p_value): per position ``seat`` (0..P-1), ``games`` (G),
        ``wins`` (sum of win shares), ``win_rate`` with a Wilson interval
        (Wilson 1927, statsmodels); and the goodness-of-fit test of the
        per-position wins against equal shares (``scipy.stats.chisquare``,
        P - 1 degrees of freedom). A small p-value means some position wins
        more often. chi2 and p are NaN when there are no wins.

    Raises:
        ValueError: ``win_share`` is not 2-D or has no games.
    """
    share = np.asarray(win_share, dtype=np.float64)
    if share.ndim != 2 or share.shape[0] < 1:
        raise ValueError(f"win_share must be (G, P) with G >= 1; got shape {share.shape}")
    g, p = share.shape
    wins = share.sum(axis=0)
    lo, hi = wilson_interval(wins, np.full(p, g), confidence)
    df = pd.DataFrame({
        "seat": np.arange(p), "games": np.full(p, g), "wins": wins,
        "win_rate": wins / g, "win_rate_ci_low": lo, "win_rate_ci_high": hi,
    })
    if wins.sum() <= 0:
        return df, float("nan"), float("nan")
    res = chisquare(wins)
    return df, float(res.statistic), float(res.pvalue)
