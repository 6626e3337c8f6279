"""The statistics layer checked against published values, closed forms and statsmodels."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm
from scipy.stats import binomtest, norm
from scipy.stats import t as student_t
from statsmodels.stats.multitest import multipletests

from cya_sim.engine.classic.results import CLASSIC_COLUMNS
from cya_sim.engine.table import GameTable
from cya_sim.reports.stats import (
    SUMMARY_COLUMNS,
    cluster_ols,
    cluster_score_test,
    estimate_from_sums,
    holm,
    mean_interval,
    ratio_estimate,
    ratio_se,
    score_test,
    summarize,
    unit_codes,
    unit_sums,
    wald_test,
    wilson_effective,
    wilson_interval,
)


def wilson_by_hand(x: float, n: float, conf: float = 0.95) -> tuple[float, float]:
    """Wilson (1927) score interval in closed form."""
    z = norm.ppf(0.5 + conf / 2)
    p = x / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return centre - half, centre + half


# Newcombe (1998), Statistics in Medicine 17:857-872, Table II, method 3 (Wilson score, no continuity correction).
@pytest.mark.parametrize("x, n, low, high", [
    (81, 263, 0.2553, 0.3662),
    (15, 148, 0.0624, 0.1605),
    (0, 20, 0.0000, 0.1611),
    (1, 29, 0.0061, 0.1718),
])
def test_wilson_matches_newcombe_1998_table(x, n, low, high):
    lo, hi = wilson_interval(x, n)
    assert round(float(lo), 4) == low
    assert round(float(hi), 4) == high


@pytest.mark.parametrize("x, n", [(0, 1), (1, 1), (3, 10), (50, 100), (999, 1000), (7, 12)])
def test_wilson_matches_scipy_binomtest(x, n):
    ci = binomtest(x, n).proportion_ci(confidence_level=0.95, method="wilson")
    lo, hi = wilson_interval(x, n)
    assert float(lo) == pytest.approx(ci.low, abs=1e-12)
    assert float(hi) == pytest.approx(ci.high, abs=1e-12)


@pytest.mark.parametrize("wins, games, conf", [(1, 0, 0.95), (3, 2, 0.95), (-1, 2, 0.95), (1, 2, 1.0), (1, 2, 0.0)])
def test_wilson_refuses_bad_input(wins, games, conf):
    with pytest.raises(ValueError):
        wilson_interval(wins, games, conf)


@pytest.mark.parametrize("x, n", [(30, 100), (3, 40), (250, 1000)])
def test_wilson_on_the_effective_size_is_wilson_when_the_design_effect_is_one(x, n):
    """se^2 = p(1-p)/n (independent trials) gives n_eff = n and the ordinary Wilson interval (Kish 1965)."""
    p = x / n
    lo, hi = wilson_effective(p, math.sqrt(p * (1 - p) / n), units=n)
    assert (lo, hi) == pytest.approx(wilson_by_hand(x, n), abs=1e-12)


def test_wilson_on_the_effective_size_edges():
    assert wilson_effective(0.0, 0.0, 20) == pytest.approx((0.0, wilson_by_hand(0, 20)[1]))  # n_eff = units
    assert wilson_effective(1.0, 0.0, 20) == pytest.approx((wilson_by_hand(20, 20)[0], 1.0))
    assert wilson_effective(0.25, 0.0, 20) == (0.25, 0.25)  # duplicate deals cancelled every difference
    # a design effect of 4 widens the interval as a quarter of the sample would
    p, n = 0.3, 400
    lo, hi = wilson_effective(p, math.sqrt(4 * p * (1 - p) / n), units=n)
    assert (lo, hi) == pytest.approx(wilson_by_hand(p * n / 4, n / 4), abs=1e-12)


def test_ratio_se_is_the_statsmodels_cluster_se_of_a_mean():
    """Cochran's ratio-estimator variance = Liang–Zeger CR1 of an intercept-only OLS on the observations."""
    rng = np.random.default_rng(3)
    unit = rng.integers(0, 60, 700)
    y = rng.normal(size=60)[unit] + rng.normal(size=700)
    fit = sm.OLS(y, np.ones((700, 1))).fit(cov_type="cluster", cov_kwds={"groups": unit})
    r, se = ratio_se(*unit_sums(y, 1.0, unit))
    assert r == pytest.approx(fit.params[0]) and se == pytest.approx(fit.bse[0], rel=1e-10)
    e = ratio_estimate(y, 1.0, unit)
    half = student_t.ppf(0.975, 59) * se
    assert (e.low, e.high, e.units, e.n) == pytest.approx((r - half, r + half, 60, 700))


def test_ratio_se_by_hand():
    # units: (Y, N) = (2, 2), (0, 1), (1, 3): R = 3/6; residuals 1, -0.5, -0.5
    r, se = ratio_se(np.array([2.0, 0.0, 1.0]), np.array([2.0, 1.0, 3.0]))
    assert r == 0.5 and se == pytest.approx(math.sqrt(1.5 * 3 / 2) / 6)
    r0, se0 = ratio_se(np.array([2.0, 0.0, 1.0]), np.array([2.0, 1.0, 3.0]), null=0.25)
    assert r0 == 0.5 and se0 == pytest.approx(math.sqrt(1.5**2 + 0.25**2 + 0.25**2) / 6)


def test_score_test_by_hand():
    y, n = np.array([2.0, 0.0, 1.0, 1.0]), np.array([2.0, 1.0, 3.0, 2.0])
    r = 4 / 8
    se0 = math.sqrt(((y - 0.25 * n) ** 2).sum()) / 8
    assert score_test(y, n, 0.25) == pytest.approx(2 * student_t.sf((r - 0.25) / se0, 3))
    assert score_test(np.zeros(5), np.ones(5), 0.0) == 1.0  # every unit exactly at the null
    assert math.isnan(score_test(np.ones(1), np.ones(1), 0.5))


def test_cluster_ols_and_wald_match_statsmodels():
    rng = np.random.default_rng(8)
    unit = np.repeat(np.arange(80), 4)
    x = np.column_stack([np.ones(320), rng.integers(0, 2, 320), rng.normal(size=320), rng.integers(0, 3, 320) == 1])
    y = x @ np.array([0.2, 0.1, 0.0, -0.3]) + rng.normal(size=80)[unit] + rng.normal(size=320)
    beta, cov, c = cluster_ols(y, x, unit)
    fit = sm.OLS(y, x).fit(cov_type="cluster", cov_kwds={"groups": unit}, use_t=True)
    assert c == 80
    assert beta == pytest.approx(fit.params) and cov == pytest.approx(fit.cov_params(), rel=1e-10)
    f, p = wald_test(beta, cov, [1, 2, 3], c)
    want = fit.f_test(np.eye(4)[1:])
    assert f == pytest.approx(float(np.squeeze(want.fvalue)), rel=1e-10)
    assert p == pytest.approx(float(want.pvalue), rel=1e-8)
    assert want.df_denom == c - 1  # statsmodels refers the clustered F to (q, C - 1) too


def test_holm_matches_multipletests_and_by_hand():
    p = np.array([0.01, 0.04, 0.03, np.nan])
    adj = holm(p)
    assert adj[:3] == pytest.approx([0.03, 0.06, 0.06]) and math.isnan(adj[3])
    assert adj[:3] == pytest.approx(multipletests(p[:3], method="holm")[1])


def test_holm_equals_multipletests_bit_for_bit():
    """holm does statsmodels' arithmetic itself (without its gc.collect): the same floats, ties and 1s included."""
    rng = np.random.default_rng(7)
    for m in (1, 2, 3, 7, 40):
        for p in (rng.random(m), rng.random(m) ** 8, np.round(rng.random(m), 1), np.full(m, 0.3)):
            assert np.array_equal(holm(p), multipletests(p, method="holm")[1])


def test_unit_codes_equal_pandas_factorize():
    """The running count of non-decreasing labels gives pandas.factorize's codes; other labels go through it."""
    rng = np.random.default_rng(3)
    cases = [np.sort(rng.integers(0, 50, 500)), np.repeat(np.arange(10, 70, 3), 4), rng.integers(0, 50, 500),
             np.array([5]), np.array([], np.int64), np.array([3, 3, 3], np.int16), np.array([2.0, 1.0, 2.0]),
             np.broadcast_to(np.arange(6)[:, None], (6, 4))]
    for u in cases:
        got = unit_codes(u)
        assert got.dtype == np.int64 and np.array_equal(got, pd.factorize(np.asarray(u).ravel())[0])


def test_mean_interval_matches_student_t_by_hand():
    x = [1.0, 2.0, 3.0, 4.0]
    mean, lo, hi = mean_interval(x)
    # one unit per value: CR1 factor C/(C-1) makes the SE the usual s/sqrt(n)
    half = student_t.ppf(0.975, df=3) * np.std(x, ddof=1) / 2
    assert (mean, lo, hi) == pytest.approx((2.5, 2.5 - half, 2.5 + half))
    assert all(math.isnan(v) for v in mean_interval([]))
    mean, lo, hi = mean_interval([5.0])
    assert mean == 5.0 and math.isnan(lo) and math.isnan(hi)
    assert mean_interval([7.0, 7.0, 7.0]) == (7.0, 7.0, 7.0)


def test_mean_interval_clustered_by_unit():
    """Two identical copies of every value (a duplicated deal) add no information."""
    x = np.array([1.0, 2.0, 3.0, 4.0])
    _, lo, hi = mean_interval(np.repeat(x, 2), unit=np.repeat(np.arange(4), 2))
    assert (lo, hi) == pytest.approx(mean_interval(x)[1:])


def table(seat_agent, win_share, totals=None, deal=None) -> GameTable:
    sa = np.asarray(seat_agent, np.int16)
    g = sa.shape[0]
    z = np.zeros(g, np.int64)
    tot = np.asarray(totals if totals is not None else np.asarray(win_share) * 1_000_000, np.int64)
    cols = {"first_dealer": np.zeros(g, np.int16), "rounds": z + 2, "turns": z + 100, "challenges": z + 10,
            "largest_steal": z + 50_000}
    return GameTable(np.arange(g) if deal is None else np.asarray(deal), sa, tot, np.asarray(win_share, np.float64),
                     z + 150, CLASSIC_COLUMNS, cols)


def test_summarize_repeated_agents_by_hand():
    """greedy (0) holds two seats of four; its per-game rate is its games won by either copy."""
    sa = [[0, 1, 0, 1], [1, 0, 1, 0], [0, 1, 0, 1], [1, 0, 1, 0]]
    ws = [[1, 0, 0, 0], [0, 0, 0, 1], [0, 1, 0, 0], [0.5, 0, 0, 0.5]]  # game 3: greedy and random tie (R-TIE)
    s = summarize(table(sa, ws), ["greedy", "random"]).set_index("agent")
    assert tuple(s.reset_index().columns) == SUMMARY_COLUMNS
    g = s.loc["greedy"]
    assert (g.seat_games, g.games, g.units, g.wins) == (8, 4, 4, 2.5)
    assert g.seat_share == 2.5 / 8 and g.game_win_rate == 2.5 / 4
    assert g.seat_share_fair == 0.25 and g.game_win_rate_fair == 0.5
    # per-game rate: units won 1, 1, 0, 0.5 of 1 game each -> the CR1 SE of a mean of four values
    y = np.array([1.0, 1.0, 0.0, 0.5])
    se = math.sqrt(((y - y.mean()) ** 2).sum() * 4 / 3) / 4
    lo, hi = wilson_effective(y.mean(), se, 4)
    assert (g.game_win_rate_ci_low, g.game_win_rate_ci_high) == pytest.approx((lo, hi))
    # per-seat share: (Y, N) per game = (y, 2); two seats win at most 1/2, so the interval is that of the share of
    # the most it could win, (2.5 / 8) / (1 / 2), scaled back (issue 23: it stays inside [0, 1/2])
    se_seat = math.sqrt(((y - 2 * 2.5 / 8) ** 2).sum() * 4 / 3) / 8
    lo, hi = wilson_effective((2.5 / 8) / 0.5, se_seat / 0.5, 4)
    assert (g.seat_share_ci_low, g.seat_share_ci_high) == pytest.approx((0.5 * lo, 0.5 * hi))
    assert 0 <= g.seat_share_ci_low < g.seat_share_ci_high <= 0.5
    assert g.p_value == pytest.approx(score_test(y, np.full(4, 2.0), 0.25))
    assert s["p_holm"].tolist() == pytest.approx(holm(s["p_value"].to_numpy()).tolist())
    # mean total per seat-game, clustered by game
    tot = np.asarray(table(sa, ws).totals, float)
    per_game = np.where(np.asarray(sa) == 0, tot, 0).sum(axis=1)
    e = estimate_from_sums(per_game, np.full(4, 2.0))
    assert (g.mean_total, g.mean_total_ci_low, g.mean_total_ci_high) == pytest.approx((e.value, e.low, e.high))


def test_summarize_one_seat_each_is_wilson_up_to_the_cluster_factor():
    """One seat per game and no duplicate deals: n_eff = n (C-1)/C, i.e. the Wilson interval of nearly n trials."""
    rng = np.random.default_rng(2)
    g = 400
    w = (rng.random(g) < 0.3).astype(float)
    s = summarize(table(np.tile([0, 1], (g, 1)), np.column_stack([w, 1 - w])), ["a", "b"])
    x = w.sum()
    n_eff = g * (g - 1) / g
    want = wilson_by_hand(x / g * n_eff, n_eff)
    assert (s.loc[0, "seat_share_ci_low"], s.loc[0, "seat_share_ci_high"]) == pytest.approx(want)
    assert s.loc[0, "game_win_rate"] == s.loc[0, "seat_share"]


def test_summarize_duplicate_deals_cluster_by_deal():
    """Two games of one deal with identical results count as one unit."""
    sa = [[0, 1], [1, 0]] * 3
    ws = [[1, 0], [1, 0], [0, 1], [0, 1], [1, 0], [1, 0]]
    deal = [0, 0, 1, 1, 2, 2]
    s = summarize(table(sa, ws, deal=deal), ["a", "b"])
    assert s["units"].tolist() == [3, 3] and s["games"].tolist() == [6, 6]
    # a wins 1 of 2 games in every deal: no spread at all between units
    assert s.loc[0, "seat_share"] == 0.5 and s.loc[0, "seat_share_ci_low"] == s.loc[0, "seat_share_ci_high"] == 0.5


def test_summarize_agent_without_seat_and_bad_index():
    sa = [[0, 1], [1, 0]]
    s = summarize(table(sa, [[1, 0], [1, 0]]), ["a", "b", "c"])
    assert s.loc[2, "games"] == 0 and s.loc[2, "wins"] == 0 and math.isnan(s.loc[2, "seat_share"])
    with pytest.raises(ValueError, match="agent indices"):
        summarize(table(sa, [[1, 0], [1, 0]]), ["a"])
    with pytest.raises(ValueError, match="confidence"):
        summarize(table(sa, [[1, 0], [1, 0]]), ["a", "b"], confidence=1.5)


def test_summary_frame_types():
    s = summarize(table([[0, 1]] * 3, [[1, 0], [0, 1], [1, 0]]), ["a", "b"])
    assert isinstance(s, pd.DataFrame) and len(s) == 2


def _null_run(rng: np.random.Generator, games: int, p: int) -> tuple[np.ndarray, np.ndarray]:
    """Per-game (wins, games) of an agent holding 1 or 2 of p seats; win shares with ties (R-TIE), no agent skill."""
    seats = rng.choice([1, 2], size=games, p=[0.7, 0.3])
    tie = rng.random(games) < 0.1
    winners = np.where(tie, 2, 1)
    # each winner seat is one of the p seats at random: the agent's share is (its winner seats) / winners
    held = np.array([rng.hypergeometric(s, p - s, w) for s, w in zip(seats, winners)])
    return held / winners, np.ones(games)


def test_independent_difference_holds_its_size_on_simulated_nulls():
    """Two independent runs with equal per-game win rates: the difference test rejects about 5% of the time."""
    from cya_sim.reports.stats import Estimate, estimate_from_sums, independent_difference

    rng = np.random.default_rng(11)
    reps, rejects, covered = 1000, 0, 0
    for _ in range(reps):
        a = estimate_from_sums(*_null_run(rng, 200, 4), proportion=True)
        b = estimate_from_sums(*_null_run(rng, 300, 4), proportion=True)
        d, lo, hi, p = independent_difference(a, b)
        rejects += p < 0.05
        covered += lo <= 0.0 <= hi
    # binomial 99.9% band around 5% for 1000 reps: about 2.8% to 7.5%
    assert 0.028 <= rejects / reps <= 0.075, rejects
    assert covered == reps - rejects
    # by hand: SE adds in quadrature, Welch df
    x, y = Estimate(0.3, 0.01, 0, 0, 101, 101), Estimate(0.25, 0.02, 0, 0, 51, 51)
    d, lo, hi, p = independent_difference(x, y)
    se = math.sqrt(0.01**2 + 0.02**2)
    df = (0.01**2 + 0.02**2) ** 2 / (0.01**4 / 100 + 0.02**4 / 50)
    assert d == pytest.approx(0.05) and p == pytest.approx(2 * student_t.sf(0.05 / se, df))
    assert hi - d == pytest.approx(student_t.ppf(0.975, df) * se)
    assert math.isnan(independent_difference(x, Estimate(0.2, float("nan"), 0, 0, 1, 1))[3])


# -- issue 23: intervals at the boundary ------------------------------------------------------------------
def _exact_coverage(n: int, p: float) -> float:
    """Exact coverage of wilson_effective for n independent games of win probability p (one unit per game)."""
    from scipy.stats import binom

    cover = 0.0
    for x in range(n + 1):
        rate = x / n
        se = math.sqrt(rate * (1 - rate) / (n - 1)) if 0 < x < n else 0.0  # CR1 error of n single-game units
        lo, hi = wilson_effective(rate, se, n)
        cover += binom.pmf(x, n, p) * (lo <= p <= hi)
    return cover


@pytest.mark.parametrize(("n", "dip"), [(50, 0.0035), (100, 0.0017), (400, 0.0012)])
def test_wilson_effective_keeps_coverage_next_to_the_boundary(n, dip):
    """Brown, Cai & DasGupta (2001): plain Wilson's coverage dips near 0 and 1 (84% at n = 50 or 100, 91% at
    n = 400, where one win lifts its lower limit above the true rate); with their Poisson limits the exact
    coverage over rates near the boundary, both sides, stays at or above 91.5% (measured 91.9%, 92.9%, 93.8%)."""
    from scipy.stats import binom, chi2
    from statsmodels.stats.proportion import proportion_confint

    ps = np.append(np.linspace(0.001, 0.03, 25), dip)
    worst = min(min(_exact_coverage(n, p), _exact_coverage(n, 1 - p)) for p in ps)
    assert worst >= 0.915
    limits = [proportion_confint(x, n, method="wilson") for x in range(n + 1)]
    plain = sum(binom.pmf(x, n, dip) * (lo <= dip <= hi) for x, (lo, hi) in enumerate(limits))
    assert plain < 0.92 and _exact_coverage(n, dip) > 0.98  # what it replaces, at its dip (84%, 84%, 91.6%)
    lo, _ = wilson_effective(1 / n, math.sqrt(1 / n * (1 - 1 / n) / (n - 1)), n)  # one win: the Poisson limit
    assert lo == pytest.approx(chi2.ppf(0.025, 2 * (n - 1) / n) / (2 * (n - 1)))  # x = 1 win of n_eff = n - 1


def test_seat_share_of_an_agent_winning_every_game_keeps_width_and_range():
    """Issue 23: two seats of four, every game won: the share is 1/2 with zero seat-level spread; its interval was
    "[50.0%, 50.0%]". Now [1/2 x (Wilson lower limit of n of n), 1/2]; never above 1/2 when it loses some."""
    from cya_sim.reports.stats import seat_share_estimate

    n = 400
    wins, seats, games = np.ones(n), np.full(n, 2.0), np.ones(n)
    e = seat_share_estimate(wins, seats, games, fair_c=games / 2)
    assert e.value == 0.5 and e.high == 0.5 and e.low == pytest.approx(0.5 * n / (n + norm.ppf(0.975) ** 2))
    wins[:3] = 0.0  # three losses: the interval reaches toward 1/2 but not past it
    e = seat_share_estimate(wins, seats, games, fair_c=games / 2)
    assert 0.48 < e.low < e.value < e.high <= 0.5
    # one seat per game: unchanged from the effective Wilson interval of the win rate
    w = (np.random.default_rng(3).random(200) < 0.3).astype(float)
    one = seat_share_estimate(w, np.ones(200), np.ones(200))
    ref = estimate_from_sums(w, np.ones(200), proportion=True)
    assert (one.low, one.high) == pytest.approx((ref.low, ref.high))
    # an agent in every seat of every game: exactly 1/P, the point
    allseats = seat_share_estimate(np.ones(50), np.full(50, 4.0), np.ones(50), fair_c=np.ones(50))
    assert (allseats.low, allseats.high) == (0.25, 0.25)


def test_share_difference_is_newcombes_hybrid_score_interval_inside_the_range():
    """Issue 23: a two-player difference of win shares (+1 or -1 per game) had the Wald interval [+45.1%, +104.9%];
    Newcombe's method 10 with the correlation stays inside [-1, 1] and equals the formula by hand."""
    from cya_sim.reports.stats import share_difference

    x = np.array([1.0] * 14 + [0.0] * 2)  # A wins 14 of 16 games, B the other 2
    y = 1.0 - x
    n = np.ones(16)
    d, lo, hi = share_difference(x, y, n)
    half = student_t.ppf(0.975, 15) * (x - y).std(ddof=1) / 4
    assert d == pytest.approx(0.75) and d + half > 1.0  # the t interval leaves the range
    assert -1.0 <= lo < d < hi <= 1.0
    se = math.sqrt(((x - x.mean()) ** 2).sum() * 16 / 15) / 16
    l1, u1 = wilson_effective(x.mean(), se, 16)
    l2, u2 = wilson_effective(y.mean(), se, 16)
    # x and y are perfectly anti-correlated (r = -1): the limits add the two one-sided distances
    assert lo == pytest.approx(d - ((x.mean() - l1) + (u2 - y.mean())))
    assert hi == pytest.approx(d + ((u1 - x.mean()) + (y.mean() - l2)))
    # independent-looking shares (r = 0): the square root of the sum of squares (Newcombe 1998, method 10)
    rng = np.random.default_rng(1)
    a, b = (rng.random(300) < 0.6).astype(float), (rng.random(300) < 0.4).astype(float)
    d, lo, hi = share_difference(a, b, np.ones(300))
    sa_, sb_ = (math.sqrt(((v - v.mean()) ** 2).sum() * 300 / 299) / 300 for v in (a, b))
    la, _ua = wilson_effective(a.mean(), sa_, 300)
    _lb, ub = wilson_effective(b.mean(), sb_, 300)
    r = np.corrcoef(a, b)[0, 1]
    want = d - math.sqrt((a.mean() - la) ** 2 + (ub - b.mean()) ** 2 - 2 * r * (a.mean() - la) * (ub - b.mean()))
    assert lo == pytest.approx(want)


def _score_test_by_matrix_product(y, x1, x2, unit):
    """The clustered score test with the fitted columns as one matrix product (the formula of its docstring)."""
    codes = pd.factorize(unit)[0]
    e0 = y - x1 @ np.linalg.lstsq(x1, y, rcond=None)[0]
    x2t = x2 - x1 @ np.linalg.lstsq(x1, x2, rcond=None)[0]
    s = np.column_stack([np.bincount(codes, weights=x2t[:, j] * e0) for j in range(x2.shape[1])])
    total = s.sum(axis=0)
    return float(total @ np.linalg.solve(s.T @ s, total)) / x2.shape[1]


def test_cluster_score_test_is_its_docstrings_formula():
    """The clustered score test is LM / q of its docstring (the fitted columns as one matrix product), on a 0/1
    design of seats and agents and on a design that is not 0/1."""
    rng = np.random.default_rng(11)
    g, p, k = 3000, 4, 5
    seat = np.tile(np.arange(p), g)
    agent = rng.integers(0, k, g * p)
    x1 = np.column_stack([np.ones(g * p)] + [(agent == a).astype(float) for a in range(1, k)])
    x2 = np.column_stack([(seat == q).astype(float) for q in range(1, p)])
    unit = np.repeat(np.arange(g), p)
    y = rng.integers(0, 3, g * p) / 2.0
    f, pv, c = cluster_score_test(y, x1, x2, unit)
    assert c == g and 0.0 <= pv <= 1.0
    assert f == pytest.approx(_score_test_by_matrix_product(y, x1, x2, unit), rel=1e-12)
    x1w = x1 * rng.uniform(0.5, 1.5, x1.shape)
    assert cluster_score_test(y, x1w, x2, unit)[0] == pytest.approx(_score_test_by_matrix_product(y, x1w, x2, unit),
                                                                     rel=1e-12)


def test_cell_ols_and_cell_score_test_agree_with_the_full_design():
    """The sufficient-statistic fit and score test (one row per cell, the cells' counts and sums) agree with
    cluster_ols and cluster_score_test on the full (N, K) design to rounding (1e-12 absolute on the coefficients, 1e-10
    relative on the covariance and the test), on random data with duplicate deals."""
    from cya_sim.reports.stats import cell_ols, cell_score_test

    rng = np.random.default_rng(13)
    g, p, k = 3000, 4, 5
    pos = np.concatenate([rng.permutation(p) for _ in range(g)])
    agent = rng.integers(0, k, g * p)
    cell = pos * k + agent
    q_of, a_of = np.divmod(np.arange(p * k), k)
    rows = np.column_stack([np.ones(p * k)] + [(q_of == q).astype(float) for q in range(1, p)]
                           + [(a_of == a).astype(float) for a in range(1, k)])
    x = rows[cell]
    unit = np.repeat(np.arange(g) // 4, p)
    y = rng.integers(0, 4, g * p) / 3.0 + 0.05 * (pos == 1)
    beta, cov, c = cluster_ols(y, x, unit)
    beta2, cov2, c2 = cell_ols(y, cell, rows, unit)
    assert c == c2
    # win-share coefficients (differences of shares near 0.25) to 1e-12 absolute; the covariance to 1e-10 relative
    np.testing.assert_allclose(beta2, beta, rtol=0, atol=1e-12)
    np.testing.assert_allclose(cov2, cov, rtol=1e-10, atol=0)
    rows1, rows2 = np.delete(rows, np.s_[1:p], axis=1), rows[:, 1:p]
    f, pv, c = cluster_score_test(y, rows1[cell], rows2[cell], unit)
    f2, pv2, c2 = cell_score_test(y, cell, rows1, rows2, unit)
    assert c == c2 and f2 == pytest.approx(f, rel=1e-10) and pv2 == pytest.approx(pv, rel=1e-10, abs=1e-300)
