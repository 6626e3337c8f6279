"""The statistics layer: every estimate is a ratio over sampling units, with a cluster-robust standard error.

The sampling unit is the **game**, or the **deal** when deals are duplicated
(every game of one deal is one unit). Seats of one game are never treated as
independent: an agent that holds two seats of a game has mutually exclusive
win shares there, and the games of one duplicated deal share its luck.

Every quantity is a ratio estimator ``R = sum_c Y_c / sum_c N_c`` over units
``c`` (Cochran 1977, *Sampling Techniques*, 3rd ed., ch. 6): ``Y_c`` is the
unit's total of what is measured (an agent's win shares, dollars, comparisons
finished ahead) and ``N_c`` its number of observations (seat-games, games,
pairs of seats). Its standard error is the linearisation (sandwich) estimate
``SE^2 = C/(C-1) * sum_c (Y_c - R N_c)^2 / (sum_c N_c)^2`` with C units — the
Liang & Zeger (1986, Biometrika 73:13–22) cluster-robust variance of an
intercept-only regression, equal to ``statsmodels`` ``OLS(...).fit(cov_type="cluster")``
on the observations (the tests check it), computed here from per-unit sums
(``numpy.bincount``) so a million games take a fraction of a second. Intervals
and tests use ``C - 1`` degrees of freedom (Cameron & Miller 2015, J. Human
Resources 50:317–372, section VI).

- Proportions (win shares): the Wilson score interval on the *effective sample
  size* ``n_eff = R(1-R)/SE^2`` (Kish 1965, design effect; Korn & Graubard
  1998, Survey Methodology 24:193–201; Dean & Pagano 2015, J. Survey Stat.
  Methodol. 3:484–503), via ``statsmodels.stats.proportion.proportion_confint``,
  with Brown, Cai & DasGupta's (2001) Poisson limits within 3 successes or
  failures of the boundary. With one observation per unit and no ties it is
  the ordinary Wilson (1927) interval up to the factor C/(C-1). A per-seat
  share is the proportion of the most its seats could win, so its interval
  stays inside its possible range (:func:`seat_share_estimate`).
- Differences of shares on the same units: Newcombe's (1998) hybrid score
  interval with the estimates' correlation (:func:`share_difference`), inside
  the possible range.
- Means (dollars, rounds) and differences: Student-t interval with C - 1 df.
- Tests of a fixed null value (fair share, 50% finished ahead): a generalised
  score test whose variance uses the residuals under the null (Boos 1992, Amer.
  Statist. 46:327–333), so a sample with no wins still has a finite test.
- Joint tests (seat and turn-order effects): the cluster-robust score (LM)
  test of a linear model's coefficients (Wooldridge 2010; Boos 1992), referred
  to F(q, C - 1) (Cameron & Miller 2015); it held its size with few units
  where the cluster-robust Wald test did not (docs/statistics.md).
- A family of tests: Holm's (1979, Scand. J. Statist. 6:65–70) step-down
  adjustment, the arithmetic of ``statsmodels.stats.multitest.multipletests(method="holm")``
  (:func:`holm`), shown beside the raw p-values.
- Paired per-deal differences (the tip study's effects, tune's held-out gains):
  the paired t interval and test over deals, or an exact bound when fewer than
  10 deals differ or every deal gave the same difference, never a zero-width
  interval (:func:`paired_difference`); the TOST equivalence test (:func:`tost_p`).

Every interval and test here is checked on simulated nulls by
``tests/test_coverage.py`` and ``tests/test_paired_difference.py`` (the measured
figures are in ``docs/statistics.md``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats as sps
from statsmodels.stats.proportion import proportion_confint

from cya_sim.engine.table import GameTable

#: Name of the multiple-comparison adjustment used in every report.
ADJUSTMENT = "Holm (1979) step-down, within each family"

#: Columns of :func:`summarize`'s table, in order (``summary.csv``).
SUMMARY_COLUMNS = (
    "agent",
    "seat_games",
    "games",
    "units",
    "wins",
    "seat_share",
    "seat_share_ci_low",
    "seat_share_ci_high",
    "seat_share_fair",
    "game_win_rate",
    "game_win_rate_ci_low",
    "game_win_rate_ci_high",
    "game_win_rate_fair",
    "p_value",
    "p_holm",
    "mean_total",
    "mean_total_ci_low",
    "mean_total_ci_high",
)

#: One line per column of :data:`SUMMARY_COLUMNS` (README, REPORT.md "Files").
SUMMARY_DOC = {
    "seat_games": "seats the agent held, summed over games (an agent in two seats of a game counts 2)",
    "games": "games in which the agent held at least one seat",
    "units": "sampling units: games, or deals when deals are duplicated",
    "wins": "sum of the agent's win shares (1/k to each of k tied winners, R-TIE)",
    "seat_share": "per-seat win share = wins / seat_games; fair value seat_share_fair = 1/P",
    "game_win_rate": "per-game win rate = share of games won by any copy of the agent = wins / games; "
                     "fair value game_win_rate_fair = mean over its games of (seats held)/P",
    "p_value": "two-sided score test of seat_share = 1/P (game- or deal-clustered); p_holm: Holm-adjusted over "
               "the agents of the table size",
    "mean_total": "mean final total in dollars per seat-game",
    "_ci": "every *_ci_low/_ci_high: 95% interval, game- or deal-clustered (Wilson on the effective sample size "
           "for shares, Student t with units - 1 df for dollars)",
}


@dataclass(frozen=True)
class Estimate:
    """A ratio estimate over sampling units with its cluster-robust error.

    Attributes:
        value: R = sum Y_c / sum N_c (unit of the observations). se: its
            standard error (Cochran 1977 linearisation = Liang–Zeger sandwich).
        low, high: the interval at the requested confidence.
        units: C, the sampling units with at least one observation.
        n: sum N_c, the observations.
    """

    value: float
    se: float
    low: float
    high: float
    units: int
    n: float


NAN_ESTIMATE = Estimate(float("nan"), float("nan"), float("nan"), float("nan"), 0, 0.0)


def _check_confidence(confidence: float) -> None:
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence is {confidence!r}; it must be strictly between 0 and 1")


def unit_sums(values, counts, unit) -> tuple[np.ndarray, np.ndarray]:
    """Per-unit totals ``Y_c`` and ``N_c`` of observations grouped by sampling unit.

    Args:
        values: (N,) float, the measured value of each observation (e.g. a win share).
        counts: (N,) float, the weight of each observation in the denominator
            (1 per seat-game, per game or per pair), or a scalar.
        unit: (N,) int labels of the sampling unit (game or deal) of each observation.

    Returns:
        (Y, N): (C,) float64 each, one entry per distinct unit present.
    """
    y = np.asarray(values, np.float64).ravel()
    n = np.broadcast_to(np.asarray(counts, np.float64), y.shape).ravel()
    codes = unit_codes(unit)
    return np.bincount(codes, weights=y), np.bincount(codes, weights=n)


def unit_codes(unit) -> np.ndarray:
    """The code of each observation's sampling unit, numbered by first appearance: ``pandas.factorize(unit)[0]``.

    Stored games come in game order, and their units (the game, or the deal: one per cycle under duplicate deals)
    never decrease, so for non-decreasing integer labels the codes are a running count of label changes (one pass,
    no hash table: a million games in milliseconds); any other labels go through ``pandas.factorize``. Both give
    the same codes, so every per-unit sum (:func:`unit_sums`) is the same.

    Args:
        unit: (N,) labels (any shape is flattened).

    Returns:
        (N,) int64 codes from 0 to C - 1, C the number of distinct labels.
    """
    u = np.asarray(unit).ravel()
    if u.dtype.kind in "iu" and u.size and bool(np.all(u[1:] >= u[:-1])):
        codes = np.empty(u.size, np.int64)
        codes[0] = 0
        np.cumsum(u[1:] != u[:-1], out=codes[1:])
        return codes
    return pd.factorize(u)[0].astype(np.int64, copy=False)


def ratio_se(y_c: np.ndarray, n_c: np.ndarray, null: float | None = None) -> tuple[float, float]:
    """Ratio estimate and its cluster-robust standard error from per-unit totals.

    ``SE^2 = C/(C-1) * sum_c (Y_c - R N_c)^2 / (sum_c N_c)^2`` (Cochran 1977,
    eq. 6.13 without finite-population correction; Liang & Zeger 1986 with the
    small-sample factor C/(C-1) of statsmodels' ``cov_type="cluster"``). With
    ``null`` given, the residuals are taken at the null value instead of R and
    without the C/(C-1) factor (the variance of a generalised score test,
    Boos 1992).

    Args:
        y_c, n_c: (C,) float per-unit totals (:func:`unit_sums`).
        null: a value of R under a null hypothesis, or None.

    Returns:
        (R, SE); NaN when sum N_c is 0; SE NaN when C < 2.
    """
    y_c = np.ascontiguousarray(y_c, np.float64)
    n_c = np.ascontiguousarray(n_c, np.float64)
    keep = n_c > 0
    if not keep.all():  # units with no observation (none when the sums come from unit_sums): left out
        y_c, n_c = y_c[keep], n_c[keep]
    c = y_c.size
    total = n_c.sum()
    if total <= 0:
        return float("nan"), float("nan")
    r = float(y_c.sum() / total)
    if c < 2:
        return r, float("nan")
    if null is None:
        e = y_c - r * n_c
        return r, float(np.sqrt((e @ e) * c / (c - 1)) / total)
    e = y_c - null * n_c
    return r, float(np.sqrt(e @ e) / total)


def ratio_estimate(values, counts, unit, confidence: float = 0.95, proportion: bool = False) -> Estimate:
    """A ratio over sampling units with a cluster-robust interval.

    Args:
        values, counts, unit: as :func:`unit_sums` ((N,) arrays; ``counts`` may be a scalar).
        confidence: two-sided level in (0, 1).
        proportion: the ratio lies in [0, 1] (a win share): Wilson interval on
            the effective sample size (Korn & Graubard 1998; Dean & Pagano
            2015); else a Student-t interval with C - 1 df (Cameron & Miller 2015).

    Returns:
        an :class:`Estimate`; NaN fields when there is no observation; a
        NaN interval when there is a single unit.

    Raises:
        ValueError: ``confidence`` outside (0, 1).
    """
    _check_confidence(confidence)
    y_c, n_c = unit_sums(values, counts, unit)
    return estimate_from_sums(y_c, n_c, confidence, proportion)


def estimate_from_sums(y_c, n_c, confidence: float = 0.95, proportion: bool = False) -> Estimate:
    """:func:`ratio_estimate` from per-unit totals ``(C,)`` float (see there)."""
    _check_confidence(confidence)
    y_c = np.asarray(y_c, np.float64)
    n_c = np.asarray(n_c, np.float64)
    units = int((n_c > 0).sum())
    total = float(n_c.sum())
    r, se = ratio_se(y_c, n_c)
    if not np.isfinite(r):
        return NAN_ESTIMATE
    if not np.isfinite(se):
        return Estimate(r, se, float("nan"), float("nan"), units, total)
    if proportion:
        low, high = wilson_effective(r, se, units, confidence)
    else:
        half = float(sps.t.ppf(0.5 + confidence / 2, units - 1)) * se
        low, high = r - half, r + half
    return Estimate(r, se, low, high, units, total)


def _poisson_zone(n_eff: float) -> float:
    """x*: effective counts of successes (or failures) up to this get the one-sided Poisson bound instead of
    Wilson's (Brown, Cai & DasGupta 2001, section 4.1.1: 2 for n <= 50, 3 above)."""
    return 2.0 if n_eff <= 50 else 3.0


def wilson_effective(rate: float, se: float, units: int, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson score interval of a clustered proportion on its effective sample size, modified at the boundary.

    ``n_eff = rate (1 - rate) / se^2`` (Kish 1965 design effect; Korn &
    Graubard 1998; Dean & Pagano 2015). A rate of exactly 0 or 1 has no
    estimated spread; the interval then takes ``n_eff = units`` (one trial per
    sampling unit, the conservative choice). A rate strictly inside (0, 1)
    with ``se == 0`` (the duplicated deals cancelled every difference) gives
    the point itself. Computed by ``statsmodels`` ``proportion_confint(method="wilson")``.

    Near the boundary Wilson's coverage dips far below nominal (Brown, Cai &
    DasGupta 2001, Statist. Sci. 16:101–133: with a true rate of 0.9995 and
    400 games, 399 wins give an upper limit of 0.9985, and the interval
    covered 81% of the time). Their *modified Wilson* interval is
    used: when the effective count of successes ``x = rate n_eff`` is in
    ``(0, x*]`` the lower limit is the one-sided Poisson bound
    ``chi2_{alpha/2}(2x) / (2 n_eff)``, and likewise the upper limit from the
    failures ``n_eff - x`` (``x* = 2`` for ``n_eff <= 50``, else 3).

    Args:
        rate: in [0, 1]. se: its cluster-robust standard error, >= 0.
        units: C >= 1 sampling units. confidence: two-sided level.

    Returns:
        (low, high) within [0, 1], always holding ``rate``.
    """
    rate = float(min(max(rate, 0.0), 1.0))
    if rate in (0.0, 1.0):
        n_eff = float(units)
    elif se <= 0:
        return rate, rate
    else:
        n_eff = rate * (1.0 - rate) / se**2
    alpha = 1.0 - confidence
    x = rate * n_eff
    low, high = proportion_confint(x, n_eff, alpha=alpha, method="wilson")
    zone = _poisson_zone(n_eff)
    if 0.0 < x <= zone:
        low = float(sps.chi2.ppf(alpha / 2, 2 * x)) / (2 * n_eff)
    if 0.0 < n_eff - x <= zone:
        high = 1.0 - float(sps.chi2.ppf(alpha / 2, 2 * (n_eff - x))) / (2 * n_eff)
    return float(min(max(low, 0.0), rate)), float(max(min(high, 1.0), rate))


def seat_share_estimate(wins_c, seats_c, games_c, fair_c=None, confidence: float = 0.95) -> Estimate:
    """Per-seat win share of an agent (wins / seat-games) with an interval inside its possible range.

    An agent holding ``s`` seats of a game wins at most one game, so its
    per-seat share can reach only ``R_max = sum G_c / sum S_c`` (1/2 for two
    seats of four, whatever the line-up around it), and it sits *at* that
    bound when the agent wins every game, where the seat-level residuals
    vanish and a Wilson interval on the seat-games has zero width ("[50.0%,
    50.0%]", covering the truth in 24% of 300 tournaments). The
    interval is therefore that of the proportion ``q = R / R_max`` (the share
    of the most the agent could have won, in [0, 1]) with the cluster-robust
    error ``SE(R) / R_max`` (Cochran 1977 ratio estimator; Liang & Zeger
    1986), by :func:`wilson_effective` (modified Wilson, Brown, Cai &
    DasGupta 2001), scaled back by ``R_max``. With one seat per game
    ``R_max = 1`` and nothing changes. When the agent holds every seat of
    every game its share is 1/P by construction and the interval is that point.

    Args:
        wins_c: (C,) float win shares per unit. seats_c: (C,) seat-games. games_c: (C,) games with the agent.
        fair_c: (C,) float sum over the unit's games of seats held / P (:func:`agent_unit_sums`), or None.
        confidence: two-sided level in (0, 1).

    Returns:
        an :class:`Estimate` whose ``low``/``high`` lie in ``[0, R_max]``.

    Raises:
        ValueError: ``confidence`` outside (0, 1).
    """
    _check_confidence(confidence)
    wins_c, seats_c, games_c = (np.asarray(x, np.float64) for x in (wins_c, seats_c, games_c))
    units = int((seats_c > 0).sum())
    r, se = ratio_se(wins_c, seats_c)
    if not np.isfinite(r):
        return NAN_ESTIMATE
    total = float(seats_c.sum())
    if fair_c is not None and np.allclose(np.asarray(fair_c, np.float64), games_c):  # every seat of every game
        return Estimate(r, 0.0 if np.isfinite(se) else se, r, r, units, total)
    if not np.isfinite(se):
        return Estimate(r, se, float("nan"), float("nan"), units, total)
    top = float(games_c.sum()) / total
    low, high = wilson_effective(r / top, se / top, units, confidence)
    return Estimate(r, se, top * low, top * high, units, total)


def share_difference(y1_c, y2_c, n_c, top1: float = 1.0, top2: float = 1.0,
                     confidence: float = 0.95) -> tuple[float, float, float]:
    """Difference of two shares measured on the same units, with a bounded interval (Newcombe's hybrid score).

    ``R_k = sum y_k,c / sum n_c`` (k = 1, 2), each in ``[0, top_k]``; the
    difference ``D = R_1 - R_2``. A Wald/t interval of D leaves the possible
    range ("[+45.1%, +104.9%]"). Newcombe's hybrid score interval
    (Newcombe 1998, Statist. Med. 17:873–890, method 10; for paired data
    17:2635–2650) combines the two single-share score intervals, here each a
    :func:`wilson_effective` interval of ``R_k / top_k`` scaled by ``top_k``,
    with the correlation of the two estimates (the MOVER form of Zou & Donner
    2008, Statist. Med. 27:1693–1702)::

        L = D - sqrt((R1 - l1)^2 + (u2 - R2)^2 - 2 r (R1 - l1)(u2 - R2))
        U = D + sqrt((u1 - R1)^2 + (R2 - l2)^2 - 2 r (u1 - R1)(R2 - l2))

    where ``r`` is the cluster-robust correlation of R_1 and R_2 (per-unit
    residuals ``y_k,c - R_k n_c``). The interval lies in ``[l1 - u2, u1 - l2]``,
    so inside ``[-top2, top1]``.

    Args:
        y1_c, y2_c: (C,) float per-unit totals of the two shares. n_c: (C,) float per-unit observations.
        top1, top2: the largest value each share can take (1 for a win rate).
        confidence: two-sided level in (0, 1).

    Returns:
        (D, low, high); NaN when there is no observation, a NaN interval with fewer than 2 units.

    Raises:
        ValueError: ``confidence`` outside (0, 1).
    """
    _check_confidence(confidence)
    y1_c, y2_c, n_c = (np.asarray(x, np.float64) for x in (y1_c, y2_c, n_c))
    units = int((n_c > 0).sum())
    r1, se1 = ratio_se(y1_c, n_c)
    r2, se2 = ratio_se(y2_c, n_c)
    d = r1 - r2
    if not (np.isfinite(r1) and np.isfinite(r2)):
        return float("nan"), float("nan"), float("nan")
    if not (np.isfinite(se1) and np.isfinite(se2)):
        return float(d), float("nan"), float("nan")
    l1, u1 = (top1 * x for x in wilson_effective(r1 / top1, se1 / top1, units, confidence))
    l2, u2 = (top2 * x for x in wilson_effective(r2 / top2, se2 / top2, units, confidence))
    e1, e2 = y1_c - r1 * n_c, y2_c - r2 * n_c
    den = float(np.sqrt((e1 @ e1) * (e2 @ e2)))
    corr = float(e1 @ e2) / den if den > 0 else 0.0
    a, b = r1 - l1, u2 - r2
    low = d - np.sqrt(max(a * a + b * b - 2 * corr * a * b, 0.0))
    a, b = u1 - r1, r2 - l2
    high = d + np.sqrt(max(a * a + b * b - 2 * corr * a * b, 0.0))
    return float(d), float(max(low, l1 - u2)), float(min(high, u1 - l2))


def score_test(y_c, n_c, null: float) -> float:
    """Two-sided p-value of ``H0: R = null`` for a ratio over units (generalised score test, Boos 1992).

    ``t = (R - null) / SE0`` with ``SE0`` the cluster-robust error with
    residuals at the null (:func:`ratio_se`), referred to Student t with C - 1
    df (Cameron & Miller 2015). NaN with fewer than 2 units; 1.0 when every
    unit sits exactly at the null.
    """
    r, se0 = ratio_se(y_c, n_c, null=null)
    units = int((np.asarray(n_c) > 0).sum())
    if not np.isfinite(r) or units < 2:
        return float("nan")
    if se0 <= 0:
        return 1.0
    return float(2 * sps.t.sf(abs(r - null) / se0, units - 1))


def t_test(est: Estimate, null: float = 0.0) -> float:
    """Two-sided p-value of ``H0: value = null`` from a cluster-robust estimate (t with C - 1 df).

    A zero standard error gives 1.0 at the null and 0.0 away from it; NaN
    when the estimate has fewer than 2 units.
    """
    if not (np.isfinite(est.value) and np.isfinite(est.se)) or est.units < 2:
        return float("nan")
    if est.se <= 0:
        return 1.0 if est.value == null else 0.0
    return float(2 * sps.t.sf(abs(est.value - null) / est.se, est.units - 1))


def cluster_ols(y, x, unit) -> tuple[np.ndarray, np.ndarray, int]:
    """Least squares with the Liang–Zeger cluster-robust covariance.

    ``V = (X'X)^-1 [sum_c X_c'e_c e_c'X_c] (X'X)^-1 * C/(C-1) * (N-1)/(N-K)``,
    the small-sample correction of ``statsmodels`` ``OLS(y, x).fit(cov_type="cluster")``
    (Cameron & Miller 2015, eq. 11), which the tests check it against; the
    per-unit score sums use ``numpy.bincount`` column by column, so millions
    of rows stay cheap. A design with few distinct rows (cells of dummies) has :func:`cell_ols`.

    Args:
        y: (N,) float response. x: (N, K) float design (full column rank).
        unit: (N,) labels of the sampling unit of each row.

    Returns:
        (beta (K,) float64, cov (K, K) float64, C units).

    Raises:
        numpy.linalg.LinAlgError: ``x`` is rank-deficient.
    """
    y = np.asarray(y, np.float64)
    x = np.asarray(x, np.float64)
    n, k = x.shape
    codes = unit_codes(unit)
    c = int(codes.max()) + 1 if n else 0
    bread = np.linalg.inv(x.T @ x)
    beta = bread @ (x.T @ y)
    e = y - x @ beta
    scores = np.column_stack([np.bincount(codes, weights=x[:, j] * e, minlength=c) for j in range(k)])
    meat = scores.T @ scores
    factor = c / (c - 1) * (n - 1) / (n - k) if c > 1 and n > k else float("nan")
    return beta, bread @ meat @ bread * factor, c


def cell_ols(y, cell, rows, unit=None, *, codes: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, int]:
    """:func:`cluster_ols` of a design with few distinct rows, from the cells' sufficient statistics.

    Row i of the design is ``rows[cell[i]]`` (e.g. a cell of position and agent dummies). ``X'X = sum_v n_v r_v r_v'``
    and ``X'y = sum_v (sum_{i in v} y_i) r_v`` come from the cells' counts and sums (``numpy.bincount``), the
    coefficients from the normal equations (Cochran 1977; Greene 2012, ch. 3), and the Liang–Zeger covariance
    from the per-unit score sums ``sum_{i in c} r_{cell_i} e_i`` with the small-sample factor
    ``C/(C-1) (N-1)/(N-K)`` of ``statsmodels`` ``cov_type="cluster"`` (Cameron & Miller 2015). It equals
    :func:`cluster_ols` on the full design to rounding (about 1e-15 relative; the tests hold 1e-12), without the
    (N, K) design or a least-squares solve over its N rows.

    Args:
        y: (N,) float response. cell: (N,) int in ``0, ..., R - 1``. rows: (R, K) float, the design row of each cell
            (rows of cells with no observation are ignored). unit: (N,) sampling-unit labels, or None with ``codes``.
        codes: (N,) int64 ``unit_codes(unit)`` when the caller has them.

    Returns:
        (beta (K,) float64, cov (K, K) float64, C units).

    Raises:
        numpy.linalg.LinAlgError: the design is rank-deficient.
    """
    y = np.asarray(y, np.float64)
    cell = np.asarray(cell, np.intp)
    rows = np.asarray(rows, np.float64)
    n, k = y.size, rows.shape[1]
    codes = unit_codes(unit) if codes is None else codes
    c = int(codes.max()) + 1 if n else 0
    counts = np.bincount(cell, minlength=rows.shape[0]).astype(np.float64)
    sums = np.bincount(cell, weights=y, minlength=rows.shape[0])
    bread = np.linalg.inv(rows.T @ (rows * counts[:, None]))
    beta = bread @ (rows.T @ sums)
    e = y - (rows @ beta)[cell]
    scores = np.column_stack([np.bincount(codes, weights=rows[:, j][cell] * e, minlength=c) for j in range(k)])
    meat = scores.T @ scores
    factor = c / (c - 1) * (n - 1) / (n - k) if c > 1 and n > k else float("nan")
    return beta, bread @ meat @ bread * factor, c


def cell_score_test(y, cell, rows1, rows2, unit=None, *, codes: np.ndarray | None = None
                    ) -> tuple[float, float, int]:
    """:func:`cluster_score_test` of a design with few distinct rows, from the cells' sufficient statistics.

    Row i of the restricted design is ``rows1[cell[i]]`` and of the tested columns ``rows2[cell[i]]``. The
    restricted fit ``b1 = (X1'X1)^-1 X1'y`` and the partialling-out ``B2 = (X1'X1)^-1 X1'X2`` use the cells' counts
    and sums (normal equations), so ``X2~`` is one row per cell and ``e0_i = y_i - r1_{cell_i} b1``; the per-unit
    scores ``s_c = sum_{i in c} X2~_i e0_i``, ``LM = (sum_c s_c)' (sum_c s_c s_c')^-1 (sum_c s_c)`` on F(q, C - 1)
    are those of :func:`cluster_score_test` (Wooldridge 2010, section 12.6; Boos 1992; Cameron & Miller 2015), to
    rounding (the tests hold 1e-12).

    Args:
        y: (N,) float. cell: (N,) int in ``0, ..., R - 1``. rows1: (R, K1) float, the restricted design's row of each cell.
        rows2: (R, q) float, the tested columns' row of each cell. unit: (N,) sampling-unit labels, or None with
            ``codes``. codes: (N,) int64 ``unit_codes(unit)`` when the caller has them.

    Returns:
        (F = LM / q, p-value, C units); NaN when C < 2 or the score variance is singular.
    """
    y = np.asarray(y, np.float64)
    cell = np.asarray(cell, np.intp)
    rows1 = np.asarray(rows1, np.float64)
    rows2 = np.asarray(rows2, np.float64)
    codes = unit_codes(unit) if codes is None else codes
    c = int(codes.max()) + 1 if codes.size else 0
    q = rows2.shape[1]
    if c < 2:
        return float("nan"), float("nan"), c
    counts = np.bincount(cell, minlength=rows1.shape[0]).astype(np.float64)
    sums = np.bincount(cell, weights=y, minlength=rows1.shape[0])
    weighted = rows1 * counts[:, None]
    x1x1 = rows1.T @ weighted
    b1 = np.linalg.solve(x1x1, rows1.T @ sums)
    b2 = np.linalg.solve(x1x1, weighted.T @ rows2)
    e0 = y - (rows1 @ b1)[cell]
    x2t = rows2 - rows1 @ b2
    return _score_f(np.column_stack([np.bincount(codes, weights=x2t[:, j][cell] * e0, minlength=c)
                                     for j in range(q)]))


def wald_test(beta: np.ndarray, cov: np.ndarray, which: Sequence[int], units: int) -> tuple[float, float]:
    """Cluster-robust Wald test that the coefficients ``which`` are all zero.

    ``F = b' V^-1 b / q`` referred to ``F(q, C - 1)`` (Cameron & Miller 2015,
    section VI.D: with few clusters the chi-square reference over-rejects).

    Returns:
        (F, p-value); NaN when C < 2 or V is singular.
    """
    idx = list(which)
    b = beta[idx]
    v = cov[np.ix_(idx, idx)]
    q = len(idx)
    if units < 2 or not np.all(np.isfinite(v)):
        return float("nan"), float("nan")
    try:
        w = float(b @ np.linalg.solve(v, b))
    except np.linalg.LinAlgError:
        return float("nan"), float("nan")
    f = w / q
    return f, float(sps.f.sf(f, q, units - 1))


def cluster_score_test(y, x1, x2, unit) -> tuple[float, float, int]:
    """Cluster-robust score (Lagrange multiplier) test that the coefficients of ``x2`` are zero in ``y ~ x1 + x2``.

    The restricted model ``y ~ x1`` is fitted by least squares; with ``e0`` its
    residuals and ``X2~`` the columns of ``x2`` with ``x1`` partialled out, each
    unit's score is ``s_c = sum_{i in c} X2~_i e0_i`` and
    ``LM = (sum_c s_c)' (sum_c s_c s_c')^-1 (sum_c s_c)`` (the robust LM test,
    Wooldridge 2010, *Econometric Analysis of Cross Section and Panel Data*,
    2nd ed., section 12.6; a generalised score test, Boos 1992). Its variance
    is taken under the null, so it holds its size with fewer units than the
    Wald test (measured in docs/statistics.md). ``LM / q`` is referred to
    F(q, C - 1) (Cameron & Miller 2015). A design with few distinct rows (cells of dummies) has
    :func:`cell_score_test`.

    Args:
        y: (N,) float. x1: (N, K1) float, the restricted design (full rank).
        x2: (N, q) float, the tested columns. unit: (N,) sampling-unit labels.

    Returns:
        (F = LM / q, p-value, C units); NaN when C < 2 or the score variance is singular.
    """
    y = np.asarray(y, np.float64)
    x1 = np.asarray(x1, np.float64)
    x2 = np.asarray(x2, np.float64)
    codes = unit_codes(unit)
    c = int(codes.max()) + 1 if codes.size else 0
    q = x2.shape[1]
    if c < 2:
        return float("nan"), float("nan"), c
    e0 = y - x1 @ np.linalg.lstsq(x1, y, rcond=None)[0]
    x2t = x2 - x1 @ np.linalg.lstsq(x1, x2, rcond=None)[0]
    return _score_f(np.column_stack([np.bincount(codes, weights=x2t[:, j] * e0, minlength=c) for j in range(q)]))


def _score_f(s: np.ndarray) -> tuple[float, float, int]:
    """``(LM / q, p-value on F(q, C - 1), C)`` of the per-unit scores ``s`` ((C, q) float64):
    ``LM = (sum_c s_c)' (sum_c s_c s_c')^-1 (sum_c s_c)`` (:func:`cluster_score_test`); NaN when the score variance is
    singular."""
    c, q = s.shape
    total = s.sum(axis=0)
    try:
        lm = float(total @ np.linalg.solve(s.T @ s, total))
    except np.linalg.LinAlgError:
        return float("nan"), float("nan"), c
    return lm / q, float(sps.f.sf(lm / q, q, c - 1)), c


def independent_difference(a: Estimate, b: Estimate, confidence: float = 0.95) -> tuple[float, float, float, float]:
    """Difference ``a - b`` of two estimates from independent samples (different games), with interval and test.

    For two runs that share no game or deal (two rule presets, two seeds), the
    estimates are independent, so ``SE^2 = SE_a^2 + SE_b^2``; the interval and
    the two-sided test refer ``(a - b) / SE`` to Student t with
    Welch–Satterthwaite degrees of freedom on ``C_a - 1`` and ``C_b - 1``
    (Welch 1947, Biometrika 34:28–35; each SE is the cluster-robust one of
    :func:`ratio_se`). Its size on simulated nulls is checked in
    ``tests/test_stats.py`` (clustered win shares with ties, several seats of an
    agent per game).

    Args:
        a, b: :class:`Estimate` (value, se, units). confidence: two-sided level in (0, 1).

    Returns:
        (difference, low, high, p); NaN interval and p when a SE is not finite or both are 0.

    Raises:
        ValueError: ``confidence`` outside (0, 1).
    """
    _check_confidence(confidence)
    d = float(a.value - b.value)
    va, vb = float(a.se) ** 2, float(b.se) ** 2
    if not (np.isfinite(va) and np.isfinite(vb)) or va + vb <= 0 or min(a.units, b.units) < 2:
        return d, float("nan"), float("nan"), float("nan")
    se = float(np.sqrt(va + vb))
    df = (va + vb) ** 2 / (va**2 / (a.units - 1) + vb**2 / (b.units - 1))
    q = float(sps.t.ppf(0.5 + confidence / 2, df))
    return d, d - q * se, d + q * se, float(2 * sps.t.sf(abs(d) / se, df))


def holm(pvalues) -> np.ndarray:
    """Holm (1979) step-down adjusted p-values of one family (``multipletests(method="holm")``); NaN kept as NaN."""
    p = np.asarray(pvalues, np.float64)
    out = np.full(p.shape, np.nan)
    ok = np.isfinite(p)
    if ok.any():
        out[ok] = _holm_adjusted(p[ok])
    return out


def _holm_adjusted(p: np.ndarray) -> np.ndarray:
    """The Holm-adjusted p-values of ``multipletests(p, method="holm")[1]`` by the same arithmetic (sorted p times
    m, m - 1, ..., 1, running maximum, capped at 1), without the full garbage collection statsmodels 0.15 runs
    in that branch (0.15 s a call with a report's million games in memory); ``tests/test_stats.py`` holds the two
    equal."""
    order = np.argsort(p)
    adjusted = np.maximum.accumulate(np.take(p, order) * np.arange(p.size, 0, -1))
    adjusted[adjusted > 1] = 1
    out = np.empty_like(adjusted)
    out[order] = adjusted
    return out


# -- paired per-deal differences (the tip study, tune's held-out gains) ------------
#: Fewer deals than this with a non-zero difference: the exact sign-count bound of :func:`paired_difference`, not
#: Student t (issue 23: with one such deal the t interval's half-width equals the effect).
FEW_NONZERO_DEALS = 10

#: The rule behind a :class:`PairedDifference`'s interval and tests.
PAIRED_RULES = ("t", "few non-zero deals", "constant", "no deals")


@dataclass(frozen=True)
class PairedDifference:
    """The mean of per-deal paired differences with its interval and tests (:func:`paired_difference`).

    Attributes:
        value: mean over deals of the per-deal difference (the unit of the differences: a win-rate fraction).
        se: its standard error (deals as the units; 0 when every deal gave the same difference).
        low, high: the two-sided interval at the requested confidence; never of zero width.
        p: two-sided p-value of no difference. p_tost: TOST p-value of ``|mean| < margin`` (NaN without a margin).
        deals: D, the number of deals. rule: which interval and tests were used, one of :data:`PAIRED_RULES`.
    """

    value: float
    se: float
    low: float
    high: float
    p: float
    p_tost: float
    deals: int
    rule: str


def paired_difference(diffs, confidence: float = 0.95, margin: float | None = None,
                      bound: float = 1.0) -> PairedDifference:
    """Mean of per-deal differences, treatment minus control, with its interval, test of no difference and TOST.

    The deal is the sampling unit: each arm plays every deal (duplicate deals, every rotation), ``diffs`` holds per
    deal the difference of the two arms' means over its rotations, and the deals are independent. The estimate is
    the mean over deals; the interval and tests follow one of three rules (``rule``):

    - ``"t"`` (at least :data:`FEW_NONZERO_DEALS` deals differ from 0, not all alike): Student t on D - 1 df,
      the paired t interval and test (the deal-clustered interval of :func:`ratio_estimate`), and the TOST of
      :func:`tost_p` (Schuirmann 1987, J. Pharmacokinet. Biopharm. 15:657–680).
    - ``"few non-zero deals"`` (fewer than :data:`FEW_NONZERO_DEALS` deals differ from 0, **none included**): the
      t interval would rest on those few values (with one, its half-width equals the effect; with none it has
      zero width). Instead, with ``m+`` positive and ``m-`` negative deals of D, ``P(diff > 0)`` and
      ``P(diff < 0)`` get exact one-sided Clopper–Pearson upper bounds ``pi+`` and ``pi-`` (level alpha/2 each;
      Clopper & Pearson 1934) and, since ``|diff| <= bound``, the mean lies in ``[-bound pi-, bound pi+]`` with
      probability at least 1 - alpha. That interval holds 0 at every level, so ``p = 1`` (so few differing deals
      cannot show a direction); the TOST is exact: ``mean >= margin`` needs ``P(diff > 0) >= margin / bound``,
      so ``p_tost = max(B(m+; D, margin / bound), B(m-; D, margin / bound))`` with B the binomial distribution
      function.
    - ``"constant"`` (every deal gave the same non-zero difference ``d``, at least :data:`FEW_NONZERO_DEALS`
      deals): the share of deals whose difference is not ``d`` has the exact upper bound
      ``u = 1 - (alpha / 2) ** (1 / D)`` (Clopper–Pearson with no such deal, the "rule of three"), and each such
      deal moves the mean by at most ``2 bound``, so the mean lies in ``d ± 2 bound u`` (clipped to
      ``[-bound, bound]``); ``p`` and ``p_tost`` invert that bound (``p = min(1, 2 (1 - |d| / (2 bound)) ** D)``,
      ``p_tost = (1 - (margin - |d|) / (2 bound)) ** D`` when ``|d| < margin``, else 1).

    **No zero-width interval.** A per-deal difference identically zero is a real outcome (two agents that play
    alike on every deal, or a switch that never changes a winner), and the t interval would report it as
    ``[0, 0]``: certainty that D deals cannot give, since a deal not drawn could still differ. A researcher sees
    instead the effect 0, an interval that shrinks as 1/D (``±bound (1 - (alpha / 2) ** (1 / D))``, about
    ``±3.7 bound / D`` at 95%), ``p = 1`` and a TOST that shows equivalence once D is large enough; ``rule`` says
    which rule gave the interval. The tip study and ``cya-sim tune`` both use this function, and both adjust
    their families of p-values with :func:`holm`. Coverage and Holm's family-wise error rate on simulated
    paired nulls: ``tests/test_paired_difference.py``.

    Args:
        diffs: (D,) float per-deal differences, each in ``[-bound, bound]`` (win-rate fractions: ``bound = 1``).
        confidence: two-sided level in (0, 1). margin: the TOST equivalence margin, in the unit of ``diffs``
            (> 0), or None for no TOST. bound: the largest possible ``|diff|`` (> 0).

    Returns:
        a :class:`PairedDifference`; NaN fields (rule ``"no deals"``) when D is 0.

    Raises:
        ValueError: ``confidence`` outside (0, 1), ``bound`` or ``margin`` not > 0, or a difference outside
            ``[-bound, bound]``.
    """
    _check_confidence(confidence)
    if not bound > 0:
        raise ValueError(f"bound is {bound!r}; it must be > 0 (the largest possible |difference|)")
    if margin is not None and not margin > 0:
        raise ValueError(f"margin is {margin!r}; it must be > 0 (the TOST equivalence margin), or None")
    x = np.asarray(diffs, np.float64).ravel()
    n = int(x.size)
    if n and not (np.abs(x) <= bound).all():
        raise ValueError(f"a per-deal difference lies outside [-{bound:g}, {bound:g}] (or is NaN)")
    nan = float("nan")
    if n == 0:
        return PairedDifference(nan, nan, nan, nan, nan, nan, 0, "no deals")
    alpha = 1.0 - confidence
    e = estimate_from_sums(x, np.ones(n), confidence)
    tost = margin is not None
    m_pos, m_neg = int((x > 0).sum()), int((x < 0).sum())
    if m_pos + m_neg < FEW_NONZERO_DEALS:
        def upper(k: int) -> float:  # one-sided Clopper–Pearson upper bound of k successes in n at alpha / 2
            return 1.0 if k >= n else float(sps.beta.ppf(1.0 - alpha / 2, k + 1, n - k))

        q = min(1.0, margin / bound) if tost else nan
        p_tost = max(float(sps.binom.cdf(m_pos, n, q)), float(sps.binom.cdf(m_neg, n, q))) if tost else nan
        return PairedDifference(e.value, e.se, -bound * upper(m_neg), bound * upper(m_pos), 1.0, p_tost, n,
                                "few non-zero deals")
    if x.min() == x.max():  # every deal gave the same non-zero difference (the t interval would have zero width)
        d = float(x[0])
        u = 1.0 - (alpha / 2.0) ** (1.0 / n)
        p = min(1.0, 2.0 * (1.0 - abs(d) / (2.0 * bound)) ** n)
        p_tost = ((1.0 - (margin - abs(d)) / (2.0 * bound)) ** n if abs(d) < margin else 1.0) if tost else nan
        return PairedDifference(d, 0.0, max(-bound, d - 2 * bound * u), min(bound, d + 2 * bound * u), p, p_tost, n,
                                "constant")
    p = float(2 * sps.t.sf(abs(e.value) / e.se, n - 1))
    return PairedDifference(e.value, e.se, e.low, e.high, p, tost_p(e.value, e.se, n - 1, margin) if tost else nan,
                            n, "t")


def tost_p(effect: float, se: float, df: int, margin: float) -> float:
    """p-value of the TOST equivalence test of ``|effect| < margin`` (Schuirmann 1987).

    The larger of the two one-sided t-test p-values, ``H0: effect <= -margin``
    and ``H0: effect >= margin``, on ``df`` degrees of freedom. A zero standard
    error gives 0.0 when the effect lies strictly inside the margin, else 1.0.

    Args:
        effect, se, margin: in the same unit (win-rate fraction or dollars); df >= 1.

    Returns:
        float in [0, 1]; NaN when the effect or se is not finite or df < 1.
    """
    if not (np.isfinite(effect) and np.isfinite(se)) or df < 1:
        return float("nan")
    if se <= 0:
        return 0.0 if abs(effect) < margin else 1.0
    p_low = float(sps.t.sf((effect + margin) / se, df))
    p_high = float(sps.t.cdf((effect - margin) / se, df))
    return max(p_low, p_high)


# -- compatibility helpers (plain independent samples) -----------------------------
def wilson_interval(wins, games, confidence: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """Wilson score interval for independent trials (Wilson 1927, JASA 22:209–212).

    For a count over independent trials only (e.g. one seat per game and no
    duplicate deals); tournament tables use :func:`ratio_estimate`. Computed by
    ``statsmodels.stats.proportion.proportion_confint(method="wilson")``.

    Args:
        wins: scalar or (K,) float successes (fractional for shared wins, R-TIE).
        games: scalar or (K,) trials, each >= 1.
        confidence: two-sided level in (0, 1).

    Returns:
        (low, high): float64 arrays of the shape of ``wins``, within [0, 1].

    Raises:
        ValueError: ``confidence`` outside (0, 1), ``games`` < 1, or ``wins``
            outside ``0..games``.
    """
    _check_confidence(confidence)
    wins = np.asarray(wins, dtype=np.float64)
    games = np.asarray(games, dtype=np.float64)
    if np.any(games < 1):
        raise ValueError("games must be >= 1 for every entry (a win rate needs at least one game)")
    if np.any(wins < 0) or np.any(wins > games):
        raise ValueError("wins must lie between 0 and games for every entry")
    low, high = proportion_confint(wins, games, alpha=1.0 - confidence, method="wilson")
    rate = wins / games
    low = np.clip(np.minimum(np.asarray(low, np.float64), rate), 0.0, 1.0)
    high = np.clip(np.maximum(np.asarray(high, np.float64), rate), 0.0, 1.0)
    return low, high


def mean_interval(values, confidence: float = 0.95, unit=None) -> tuple[float, float, float]:
    """Mean with a Student-t interval; clustered by ``unit`` when given (else each value is its own unit).

    Args:
        values: (N,) numbers (dollars, rounds...). unit: (N,) labels or None.
        confidence: two-sided level in (0, 1).

    Returns:
        (mean, low, high); low and high NaN with fewer than 2 units, all NaN when N == 0.

    Raises:
        ValueError: ``confidence`` outside (0, 1).
    """
    _check_confidence(confidence)
    x = np.asarray(values, dtype=np.float64).ravel()
    if x.size == 0:
        return float("nan"), float("nan"), float("nan")
    u = np.arange(x.size) if unit is None else unit
    e = ratio_estimate(x, 1.0, u, confidence)
    if np.isfinite(e.se) and e.se == 0:
        return e.value, e.value, e.value
    return e.value, e.low, e.high


# -- the per-agent summary ---------------------------------------------------------
def agent_unit_sums(table: GameTable, agent: int) -> dict[str, np.ndarray]:
    """Per-unit totals of one agent: wins, seats held, games, dollars (units = ``table.game_index``, the deal).

    Returns:
        dict of (C,) float64 arrays over the units where the agent sat:
        ``wins`` (win shares), ``seats`` (seat-games), ``games`` (games with
        the agent), ``fair`` (sum over those games of seats held / P),
        ``total`` (dollars over its seat-games).
    """
    sa = np.asarray(table.seat_agent)
    g, p = sa.shape
    where = sa == agent
    totals = np.asarray(table.totals)
    # whole numbers (seats, int64 totals) summed seat by seat, exact; the win shares as the row sums they always were
    seats = np.zeros(g, np.int64)
    for s in range(p):
        seats += where[:, s]
    if totals.dtype.kind in "iu":
        total = np.zeros(g, np.int64)
        for s in range(p):
            total += np.where(where[:, s], totals[:, s], 0)
    else:
        total = np.where(where, totals, 0).sum(axis=1)
    rows = seats > 0
    unit = unit_codes(np.asarray(table.game_index)[rows])
    wins = np.where(where, table.win_share, 0.0).sum(axis=1)[rows]
    total = total[rows].astype(np.float64)
    s = seats[rows].astype(np.float64)
    bc = lambda w: np.bincount(unit, weights=w)
    return {"wins": bc(wins), "seats": bc(s), "games": bc(np.ones_like(s)), "fair": bc(s / p), "total": bc(total)}


def summarize(table: GameTable, agents: Sequence[str], confidence: float = 0.95) -> pd.DataFrame:
    """Per-agent summary of games (``summary.csv``), one row per agent, the game (deal) as the unit.

    Units are the values of ``table.game_index``: the game in a plain
    design, the deal when deals are duplicated (games of one deal share an
    index). Columns (:data:`SUMMARY_COLUMNS`, described in :data:`SUMMARY_DOC`):

    - ``seat_share`` = wins / seat-games, the per-seat win share; its fair
      value is 1/P whatever the line-up.
    - ``game_win_rate`` = wins / games, the share of games won by any copy of
      the agent ("greedy beats random" means this); its fair value is the mean
      of (seats held)/P over the agent's games (2/4 for two seats of four).
    - both with a Wilson interval on the effective sample size
      (:func:`wilson_effective`, modified at the boundary), cluster-robust by
      unit (Cochran 1977 ratio estimator; Liang & Zeger 1986); the per-seat
      share's interval stays inside its possible range, up to games/seat-games
      (:func:`seat_share_estimate`: 1/2 for an agent in two seats of four);
    - ``p_value``: two-sided generalised score test (Boos 1992) of seat_share =
      1/P; ``p_holm``: Holm (1979) over the agents present;
    - ``mean_total`` in dollars per seat-game with a clustered t interval.

    Args:
        table: the games (``seat_agent`` indexes ``agents``).
        agents: (K,) agent names; row k of the result is ``agents[k]``.
        confidence: two-sided level of every interval.

    Returns:
        a DataFrame with K rows; an agent that never sat gets 0 games and NaN statistics.

    Raises:
        ValueError: ``seat_agent`` holds an index outside ``0..K-1``, or a bad ``confidence``.
    """
    _check_confidence(confidence)
    seat_agent = np.asarray(table.seat_agent)
    k = len(agents)
    if seat_agent.size and (seat_agent.min() < 0 or seat_agent.max() >= k):
        raise ValueError(f"seat_agent holds agent indices outside 0..{k - 1} (agents: {', '.join(agents)})")
    p = seat_agent.shape[1]
    rows = []
    for a, name in enumerate(agents):
        u = agent_unit_sums(table, a)
        if not u["seats"].size:
            nan = float("nan")
            rows.append((name, 0, 0, 0, 0.0, nan, nan, nan, 1 / p, nan, nan, nan, nan, nan, nan, nan, nan, nan))
            continue
        seat = seat_share_estimate(u["wins"], u["seats"], u["games"], u["fair"], confidence)
        game = estimate_from_sums(u["wins"], u["games"], confidence, proportion=True)
        tot = estimate_from_sums(u["total"], u["seats"], confidence)
        if np.isfinite(tot.se) and tot.se == 0:
            tot = Estimate(tot.value, 0.0, tot.value, tot.value, tot.units, tot.n)
        fair_game = float(u["fair"].sum() / u["games"].sum())
        rows.append((name, int(u["seats"].sum()), int(u["games"].sum()), seat.units, float(u["wins"].sum()),
                     seat.value, seat.low, seat.high, 1 / p, game.value, game.low, game.high, fair_game,
                     score_test(u["wins"], u["seats"], 1 / p), np.nan, tot.value, tot.low, tot.high))
    df = pd.DataFrame(rows, columns=list(SUMMARY_COLUMNS))
    df["p_holm"] = holm(df["p_value"].to_numpy(float))
    return df
