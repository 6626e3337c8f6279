"""Tournament statistics checked against published values, closed forms and another library."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import binomtest, norm
from scipy.stats import t as student_t

from cya_sim.engine.table import GameTable
from cya_sim.stats import SUMMARY_COLUMNS, mean_interval, summarize, wilson_interval


def wilson_by_hand(x: float, n: float, conf: float = 0.95) -> tuple[float, float]:
    """Wilson (1927) score interval in closed form."""
    z = norm.ppf(0.5 + conf / 2)
    p = x / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return centre - half, centre + half


# Newcombe (1998), "Two-sided confidence intervals for the single proportion",
# Statistics in Medicine 17:857-872, Table II, method 3 (Wilson score, no continuity correction).
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


@pytest.mark.parametrize("x, n, conf", [(2.5, 4, 0.95), (0.5, 3, 0.9), (1000 / 3, 1000, 0.99), (12.25, 40, 0.95)])
def test_wilson_fractional_wins_match_closed_form(x, n, conf):
    """Shared wins (R-TIE) make the success count fractional; the formula is applied as is."""
    lo, hi = wilson_interval(x, n, confidence=conf)
    want_lo, want_hi = wilson_by_hand(x, n, conf)
    assert float(lo) == pytest.approx(want_lo, abs=1e-12)
    assert float(hi) == pytest.approx(want_hi, abs=1e-12)


def test_wilson_vectorised_and_within_unit_interval():
    lo, hi = wilson_interval(np.array([0.0, 5.0, 10.0]), np.array([10, 10, 10]))
    assert lo.shape == hi.shape == (3,)
    assert lo[0] == 0.0 and hi[2] == 1.0
    assert np.all(lo <= np.array([0.0, 0.5, 1.0])) and np.all(hi >= np.array([0.0, 0.5, 1.0]))


@pytest.mark.parametrize("wins, games, conf", [(1, 0, 0.95), (3, 2, 0.95), (-1, 2, 0.95), (1, 2, 1.0), (1, 2, 0.0)])
def test_wilson_refuses_bad_input(wins, games, conf):
    with pytest.raises(ValueError):
        wilson_interval(wins, games, conf)


def test_mean_interval_matches_student_t_by_hand():
    x = [1.0, 2.0, 3.0, 4.0]
    mean, lo, hi = mean_interval(x)
    se = np.std(x, ddof=1) / math.sqrt(len(x))
    half = student_t.ppf(0.975, df=len(x) - 1) * se
    assert mean == 2.5
    assert lo == pytest.approx(2.5 - half) and hi == pytest.approx(2.5 + half)
    assert lo == pytest.approx(0.4457, abs=1e-4) and hi == pytest.approx(4.5543, abs=1e-4)


def test_mean_interval_small_samples():
    assert all(math.isnan(v) for v in mean_interval([]))
    mean, lo, hi = mean_interval([5.0])
    assert mean == 5.0 and math.isnan(lo) and math.isnan(hi)
    assert mean_interval([7.0, 7.0, 7.0]) == (7.0, 7.0, 7.0)


def small_table() -> GameTable:
    """4 two-player games between agents a (0) and b (1), seats rotated; game 3 is a tie (R-TIE)."""
    seat_agent = np.array([[0, 1], [1, 0], [0, 1], [1, 0]], np.int16)
    totals = np.array([[1_000_000, 500_000], [1_100_000, 900_000], [300_000, 1_200_000], [1_000_000, 1_000_000]],
                      np.int64)
    win_share = np.array([[1, 0], [1, 0], [0, 1], [0.5, 0.5]], np.float64)
    z = np.zeros(4, np.int64)
    return GameTable(np.arange(4, dtype=np.int64), seat_agent, np.zeros(4, np.int16), totals, win_share,
                     z + 2, z + 100, z + 10, z + 150, z + 50_000)


def test_summarize_small_table_by_hand():
    s = summarize(small_table(), ["a", "b"])
    assert tuple(s.columns) == SUMMARY_COLUMNS
    assert s["agent"].tolist() == ["a", "b"]
    assert s["games"].tolist() == [4, 4]
    # a wins game 0 (seat 0), loses 1 and 2, ties 3 (0.5): 1.5; b: 2.5 (R-TIE shares).
    assert s["wins"].tolist() == [1.5, 2.5]
    assert s["win_rate"].tolist() == [0.375, 0.625]
    for row, x in zip(s.itertuples(), [1.5, 2.5]):
        lo, hi = wilson_by_hand(x, 4)
        assert row.win_rate_ci_low == pytest.approx(lo) and row.win_rate_ci_high == pytest.approx(hi)
    # a's totals: 1,000,000, 900,000, 300,000, 1,000,000 -> mean 800,000.
    assert s.loc[0, "mean_total"] == 800_000
    assert s.loc[1, "mean_total"] == (500_000 + 1_100_000 + 1_200_000 + 1_000_000) / 4
    a_totals = [1_000_000, 900_000, 300_000, 1_000_000]
    half = student_t.ppf(0.975, 3) * np.std(a_totals, ddof=1) / 2
    assert s.loc[0, "mean_total_ci_low"] == pytest.approx(800_000 - half)
    assert s.loc[0, "mean_total_ci_high"] == pytest.approx(800_000 + half)


def test_summarize_agent_without_seat_and_bad_index():
    s = summarize(small_table(), ["a", "b", "c"])
    assert s.loc[2, "games"] == 0 and s.loc[2, "wins"] == 0 and math.isnan(s.loc[2, "win_rate"])
    with pytest.raises(ValueError, match="agent indices"):
        summarize(small_table(), ["a"])
