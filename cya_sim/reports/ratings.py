"""Bradley–Terry ratings of agents from finishing orders, with game- (or deal-) clustered errors.

Each pair of seats in a game held by two different agents is one paired
comparison (who finished with the higher total; ties count half to each).
The Bradley–Terry model (Bradley & Terry 1952, Biometrika 39:324–345) gives
``P(a ahead of b) = 1 / (1 + exp(-(r_a - r_b)))``; it is fitted as a binomial
GLM on the aggregated comparison counts with ``statsmodels``, the first agent
fixed at 0, and reported on the Elo scale (``400 / ln 10`` per logit).

Why Bradley–Terry on every pair of a game rather than Plackett–Luce on the
whole finishing order: breaking each game's order into all its pairs (full
rank-breaking) gives a consistent estimate of Plackett–Luce strengths
(Azari Soufiani, Chen, Parkes & Xia 2014, ICML), ties are a half comparison
with no extra parameter, repeated agents in one game need no special case
(pairs within one agent are skipped), and the ratings agree with
``pairwise.csv``. The pairs of one game are not independent, so the GLM's
own errors are wrong (too small with repeated agents); the covariance is the
sandwich of this composite likelihood with every game — every deal, under
duplicate deals — as a cluster (Liang & Zeger 1986; Varin, Reid & Firth 2011,
Statistica Sinica 21:5–42): bread = the GLM's inverse information, meat = the
sum over units of the outer products of their score sums, times the
small-sample factor C/(C-1) (N-1)/(N-K) of statsmodels' ``cov_type="cluster"``
(the tests check it against ``statsmodels`` GLM on the comparisons).
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence

import numpy as np
import pandas as pd
from scipy.stats import norm

from cya_sim.engine.table import GameTable
from cya_sim.reports.comparisons import ahead_counts, seat_outcomes
from cya_sim.reports.stats import unit_codes

ELO_PER_LOGIT = 400.0 / np.log(10.0)
#: Fewest games an agent must have won (a share > 0) for its win-based rating to get an interval: with fewer, the
#: normal interval of the logit does not keep its level (``cya_sim.studies.validation``: 87.7% coverage over 300
#: simulated tournaments in which the agent won about one game of 1,920).
MIN_WINS_FOR_INTERVAL = 10
RATING_COLUMNS = ("agent", "rating", "rating_se", "rating_ci_low", "rating_ci_high")


def bradley_terry(table: GameTable, agents: Sequence[str], confidence: float = 0.95,
                  order: str = "total") -> pd.DataFrame:
    """Bradley–Terry ratings (Elo scale, first agent = 0) with cluster-robust standard errors.

    Args:
        table: games; ``seat_agent`` indexes ``agents`` (-1: a seat of an agent set aside, whose comparisons are
            skipped); ``game_index`` is the sampling unit (the game, or the deal under duplicate deals).
        agents: (K,) names, K >= 2.
        confidence: level of the normal-approximation interval.
        order: ``"total"`` — who finished ahead by final total (every pair of seats: the finishing-order
            rating); ``"win"`` — who won (each winner against every other seat, co-winners a tie, two seats
            that did not win not compared: the win-based rating; an agent other than the first that won fewer
            than :data:`MIN_WINS_FOR_INTERVAL` games gets its rating with NaN error and interval).
            :data:`cya_sim.reports.comparisons.ORDERS`.

    Returns:
        DataFrame with :data:`RATING_COLUMNS`, one row per agent; ``rating_se``
        is the game/deal-clustered sandwich error (the first agent's is 0).

    Raises:
        ValueError: fewer than two agents, or agents that never met one
            another (the comparison graph is not connected).
        RatingUndefinedError: the maximum-likelihood ratings are not finite
            because some group of agents never finished behind the others
            (the directed "finished ahead" graph is not strongly connected;
            Zermelo 1929, Ford 1957).
    """
    k = len(agents)
    beta, cov = bradley_terry_fit(table, agents, order)
    se = np.sqrt(np.clip(np.diag(cov), 0, None))
    z = norm.ppf(0.5 + confidence / 2)
    r, s = beta * ELO_PER_LOGIT, se * ELO_PER_LOGIT
    if order == "win":  # too few wins for a normal interval (MIN_WINS_FOR_INTERVAL): the rating without one
        s = np.where((wins_per_agent(table, k) < MIN_WINS_FOR_INTERVAL) & (np.arange(k) > 0), np.nan, s)
    return pd.DataFrame({"agent": list(agents), "rating": r, "rating_se": s,
                         "rating_ci_low": r - z * s, "rating_ci_high": r + z * s})


def wins_per_agent(table: GameTable, k: int) -> np.ndarray:
    """(K,) int64 seat-games each agent won (a win share > 0, R-TIE)."""
    sa = np.asarray(table.seat_agent, np.int64)
    won = (np.asarray(table.win_share) > 0) & (sa >= 0)
    return np.bincount(sa[won], minlength=k)


def bradley_terry_fit(table: GameTable, agents: Sequence[str], order: str = "total") -> tuple[np.ndarray, np.ndarray]:
    """The Bradley–Terry logits and their clustered covariance (:func:`bradley_terry`'s fit).

    Returns:
        (beta (K,) float64 logits, beta[0] = 0; cov (K, K) float64 sandwich covariance, row and column 0 zero).

    Raises:
        ValueError, RatingUndefinedError: as :func:`bradley_terry`.
    """
    k = len(agents)
    if k < 2:
        raise ValueError(f"a rating needs at least two agents; got {k}")
    ahead, ties = ahead_counts(table, k, order)
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
    # the GLM's own modules rather than statsmodels.api, which imports all of statsmodels (0.2 s more)
    from statsmodels.genmod.families import Binomial
    from statsmodels.genmod.generalized_linear_model import GLM
    from statsmodels.tools.sm_exceptions import PerfectSeparationWarning

    with warnings.catch_warnings():  # a saturated model (two agents) has no residual df
        warnings.simplefilter("ignore", RuntimeWarning)
        # statsmodels' heuristic flags fitted probabilities near 0 or 1; a finite maximum is already assured by the
        # strong-connection check above (Ford 1957), so on a small board it only leaked onto stderr
        warnings.simplefilter("ignore", PerfectSeparationWarning)
        fit = GLM(y, x, family=Binomial()).fit()
    beta = np.concatenate([[0.0], fit.params])
    cov = np.zeros((k, k))
    cov[1:, 1:] = cluster_covariance(table, beta, np.asarray(fit.cov_params()), order)
    return beta, cov


def rating_differences(beta: np.ndarray, cov: np.ndarray, agents: Sequence[str], units: int,
                       confidence: float = 0.95, delta: float = 25.0, power: float = 0.8) -> pd.DataFrame:
    """Every pair's rating difference with its interval, and the units (games, or deals) that would resolve
    ``delta`` Elo.

    The difference r_a - r_b and its standard error ``sqrt(V_aa + V_bb - 2 V_ab)`` come from the fitted logits
    and their clustered covariance (:func:`bradley_terry_fit`): the interval of the difference, not two
    overlapping intervals. Its error shrinks as 1 / sqrt(units) with more of the same design, so a difference
    of ``delta`` Elo is told apart (two-sided test at 1 - ``confidence``, with probability ``power``) from
    ``units * (se * (z_{1-alpha/2} + z_power) / delta)^2`` units (the normal approximation of the Wald test).

    Args:
        beta, cov: (K,), (K, K) of :func:`bradley_terry_fit`. agents: (K,) names. units: the clusters the
            covariance was estimated from (games, or deals under duplicate deals).

    Returns:
        one row per unordered pair (a before b): ``agent``, ``versus``, ``difference``, ``se``, ``low``, ``high``
        (Elo), ``p`` (two-sided Wald), ``units_for_delta`` (rounded up).
    """
    k = len(agents)
    z = norm.ppf(0.5 + confidence / 2)
    need = (norm.ppf(0.5 + confidence / 2) + norm.ppf(power)) / delta
    rows = []
    for a in range(k):
        for b in range(a + 1, k):
            d = (beta[a] - beta[b]) * ELO_PER_LOGIT
            se = float(np.sqrt(max(cov[a, a] + cov[b, b] - 2 * cov[a, b], 0.0))) * ELO_PER_LOGIT
            p = float(2 * norm.sf(abs(d) / se)) if se > 0 else float("nan")
            rows.append({"agent": agents[a], "versus": agents[b], "difference": d, "se": se, "low": d - z * se,
                         "high": d + z * se, "p": p, "units_for_delta": int(np.ceil(units * (se * need) ** 2))})
    return pd.DataFrame(rows)


def cluster_covariance(table: GameTable, beta: np.ndarray, bread: np.ndarray, order: str = "total") -> np.ndarray:
    """Sandwich covariance of the Bradley–Terry logits (all but the first agent), clustered by ``game_index``.

    Every comparison (seat i of agent a, seat j of agent b != a, compared under ``order``:
    :func:`cya_sim.reports.comparisons.seat_outcomes`) with
    outcome w (1 ahead, 1/2 tie, 0 behind) adds ``x (w - p_ab)`` to its unit's
    score, x = e_a - e_b without the first agent's column. ``V = B M B *
    C/(C-1) (N-1)/(N-K)`` with B = ``bread`` (K-1, K-1), the GLM's inverse
    information, M = sum over units of score outer products, N comparisons
    (Liang & Zeger 1986; statsmodels' CRV1 correction).

    Args:
        table: the games. beta: (K,) logits, beta[0] = 0. bread: (K-1, K-1). order: as :func:`bradley_terry`.

    Returns:
        (K-1, K-1) float64 covariance of beta[1:].
    """
    k = beta.shape[0]
    sa = np.asarray(table.seat_agent, np.int64)
    unit = unit_codes(table.game_index)
    c = int(unit.max()) + 1
    score = np.zeros(c * k)
    n = 0
    p = sa.shape[1]
    # every game its own unit: a pair of seats gives each (unit, agent) at most one comparison, so adding the
    # residuals in place gives the very floats of adding that pair's bincount (one term a bin), without a (C K,)
    # array per pair of seats
    one_per_unit = unit.size == c
    for i in range(p):
        for j in range(i + 1, p):
            a, b = sa[:, i], sa[:, j]
            compared, w = seat_outcomes(table, i, j, order)
            m = (a != b) & compared & (a >= 0) & (b >= 0)
            resid = (w - 1.0 / (1.0 + np.exp(-(beta[a] - beta[b]))))[m]
            if one_per_unit:
                score[unit[m] * k + a[m]] += resid + 0.0  # + 0.0: a bincount's sum of -0.0 alone is 0.0
                score[unit[m] * k + b[m]] -= resid + 0.0
            else:
                score += np.bincount(unit[m] * k + a[m], weights=resid, minlength=c * k)
                score -= np.bincount(unit[m] * k + b[m], weights=resid, minlength=c * k)
            n += int(m.sum())
    s = score.reshape(c, k)[:, 1:]
    meat = s.T @ s
    factor = c / (c - 1) * (n - 1) / (n - (k - 1)) if c > 1 and n > k - 1 else float("nan")
    return bread @ meat @ bread * factor


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
