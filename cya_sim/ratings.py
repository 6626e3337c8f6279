"""Bradley–Terry ratings of agents from finishing orders.

Each pair of seats in a game held by two different agents is one paired
comparison (who finished with the higher total; ties count half to each).
The Bradley–Terry model (Bradley & Terry 1952, Biometrika 39:324–345) gives
``P(a ahead of b) = 1 / (1 + exp(-(r_a - r_b)))``; it is fitted as a binomial
GLM on the aggregated comparison counts with ``statsmodels``, the first agent
fixed at 0. Ratings are reported on the Elo scale (``400 / ln 10`` per logit)
with standard errors from the GLM; comparisons within one game are not
independent, so the errors are optimistic when tables are large.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence

import numpy as np
import pandas as pd
import statsmodels.api as sm
from scipy.stats import norm

from cya_sim.comparisons import ahead_counts
from cya_sim.engine.table import GameTable

ELO_PER_LOGIT = 400.0 / np.log(10.0)
RATING_COLUMNS = ("agent", "rating", "rating_se", "rating_ci_low", "rating_ci_high")


def bradley_terry(table: GameTable, agents: Sequence[str], confidence: float = 0.95) -> pd.DataFrame:
    """Bradley–Terry ratings (Elo scale, first agent = 0) with standard errors.

    Args:
        table: games; ``seat_agent`` indexes ``agents``.
        agents: (K,) names, K >= 2.
        confidence: level of the normal-approximation interval.

    Returns:
        DataFrame with :data:`RATING_COLUMNS`, one row per agent.

    Raises:
        ValueError: fewer than two agents, or agents that never met one
            another (the comparison graph is not connected).
        RatingUndefinedError: the maximum-likelihood ratings are not finite
            because some group of agents never finished behind the others
            (the directed "finished ahead" graph is not strongly connected;
            Zermelo 1929, Ford 1957).
    """
    k = len(agents)
    if k < 2:
        raise ValueError(f"a rating needs at least two agents; got {k}")
    ahead, ties = ahead_counts(table, k)
    wins = ahead + ties / 2.0
    rows, succ, trials = [], [], []
    for a in range(k):
        for b in range(a + 1, k):
            n = wins[a, b] + wins[b, a]
            if n > 0:
                x = np.zeros(k)
                x[a], x[b] = 1.0, -1.0
                rows.append(x[1:])
                succ.append(wins[a, b])
                trials.append(n)
    _check_connected(k, ahead + ahead.T + ties, agents)
    _check_strongly_connected(wins, agents)
    x = np.array(rows)
    y = np.column_stack([succ, np.array(trials) - np.array(succ)])
    with warnings.catch_warnings():  # a saturated model (two agents) has no residual df
        warnings.simplefilter("ignore", RuntimeWarning)
        fit = sm.GLM(y, x, family=sm.families.Binomial()).fit()
    beta = np.concatenate([[0.0], fit.params])
    se = np.concatenate([[0.0], fit.bse])
    z = norm.ppf(0.5 + confidence / 2)
    r, s = beta * ELO_PER_LOGIT, se * ELO_PER_LOGIT
    return pd.DataFrame({"agent": list(agents), "rating": r, "rating_se": s,
                         "rating_ci_low": r - z * s, "rating_ci_high": r + z * s})


class RatingUndefinedError(ValueError):
    """Bradley–Terry ratings have no finite maximum-likelihood estimate for these comparisons."""


def _check_strongly_connected(wins: np.ndarray, agents: Sequence[str]) -> None:
    """Raise RatingUndefinedError unless every agent both finished ahead of and behind the others, transitively.

    The Bradley–Terry MLE exists and is finite exactly when the graph with an
    edge a -> b whenever a finished ahead of b at least once (a tie counts
    half each way) is strongly connected (Ford 1957, Amer. Math. Monthly
    64:28–33); ``scipy.sparse.csgraph.connected_components`` checks it.
    """
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import connected_components

    n, labels = connected_components(csr_matrix(wins > 0), directed=True, connection="strong")
    if n > 1:
        groups = [", ".join(agents[i] for i in np.flatnonzero(labels == c)) for c in range(n)]
        raise RatingUndefinedError(
            "no finite Bradley–Terry rating: the groups {" + "} {".join(groups)
            + "} never all finished both ahead of and behind one another (one always wins)")


def _check_connected(k: int, met: np.ndarray, agents: Sequence[str]) -> None:
    """Raise ValueError unless every agent is linked to agent 0 by comparisons."""
    reached, frontier = {0}, [0]
    while frontier:
        a = frontier.pop()
        for b in range(k):
            if b not in reached and met[a, b] > 0:
                reached.add(b)
                frontier.append(b)
    if len(reached) < k:
        missing = [agents[i] for i in range(k) if i not in reached]
        raise ValueError(f"agents {', '.join(missing)} never met the others; no common rating scale")
