"""The win-based Bradley–Terry rating (order="win": each winner against every other seat, co-winners tie, two seats
that did not win not compared) against statsmodels on the individual comparisons, and its rules."""

from __future__ import annotations

import numpy as np
import pytest

from cya_sim.reports.comparisons import ahead_counts, seat_outcomes
from cya_sim.reports.ratings import ELO_PER_LOGIT, MIN_WINS_FOR_INTERVAL, bradley_terry
from tests.test_analysis import table


def test_win_order_compares_each_winner_with_every_other_seat_and_never_two_losers():
    # seat totals: seat 1 wins game 0; seats 0 and 2 share game 1's win
    t = table([[0, 1, 2], [0, 1, 2]], [[5, 9, 7], [8, 3, 8]])
    compared, w = seat_outcomes(t, 0, 2, "win")
    assert compared.tolist() == [False, True] and w[1] == 0.5  # losers 0 and 2 of game 0: not compared
    compared, w = seat_outcomes(t, 1, 2, "win")
    assert compared.tolist() == [True, True] and w.tolist() == [1.0, 0.0]
    compared, w = seat_outcomes(t, 0, 2, "total")
    assert compared.all() and w.tolist() == [0.0, 0.5]
    ahead, ties = ahead_counts(t, 3, "win")
    assert ahead.tolist() == [[0, 1, 0], [1, 0, 1], [0, 1, 0]]
    assert ties.tolist() == [[0, 0, 1], [0, 0, 0], [1, 0, 0]]
    with pytest.raises(ValueError, match="order: 'rank'; allowed: total, win"):
        seat_outcomes(t, 0, 1, "rank")


def test_win_based_rating_and_its_clustered_errors_match_statsmodels_glm_on_the_comparisons():
    import statsmodels.api as sm

    rng = np.random.default_rng(4)
    sa = np.array([rng.choice(3, 4) for _ in range(400)])
    sa[:, 0], sa[:, 1] = 0, 1
    tot = ((np.array([0.0, 0.6, -0.3])[sa] + rng.gumbel(size=sa.shape)) * 3).astype(np.int64)  # shared wins occur
    t = table(sa, tot)
    r = bradley_terry(t, ["A", "B", "C"], order="win")
    share = np.asarray(t.win_share)
    x, y, grp = [], [], []
    for g in range(len(sa)):
        for i in range(4):
            for j in range(i + 1, 4):
                a, b = sa[g, i], sa[g, j]
                if a == b or (share[g, i] == 0 and share[g, j] == 0):
                    continue
                row = np.zeros(3)
                row[a], row[b] = 1, -1
                x.append(row[1:])
                y.append(1.0 if share[g, i] > share[g, j] else 0.5 if share[g, i] == share[g, j] else 0.0)
                grp.append(g)
    assert 0.5 in y  # co-winners were compared as a tie
    fit = sm.GLM(np.array(y), np.array(x), family=sm.families.Binomial()).fit(
        cov_type="cluster", cov_kwds={"groups": np.array(grp)})
    assert r["rating"].to_numpy()[1:] == pytest.approx(fit.params * ELO_PER_LOGIT, rel=1e-6)
    assert r["rating_se"].to_numpy()[1:] == pytest.approx(fit.bse * ELO_PER_LOGIT, rel=1e-6)
    total = bradley_terry(t, ["A", "B", "C"])
    assert not np.allclose(total["rating"], r["rating"])  # another question, another answer


def test_an_agent_with_fewer_than_ten_wins_gets_its_win_based_rating_without_an_interval():
    # B wins 9 of 60 games against A, then 10 of 61
    sa = [[0, 1]] * 60
    tot = [[1, 2]] * 9 + [[2, 1]] * 51
    r = bradley_terry(table(sa, tot), ["A", "B"], order="win")
    assert MIN_WINS_FOR_INTERVAL == 10
    assert r["rating"].iloc[1] == pytest.approx(np.log(9 / 51) * ELO_PER_LOGIT)
    assert np.isnan(r["rating_se"].iloc[1]) and np.isnan(r["rating_ci_low"].iloc[1])
    r = bradley_terry(table(sa + [[0, 1]], tot + [[1, 2]]), ["A", "B"], order="win")
    assert np.isfinite(r["rating_ci_low"].iloc[1])


def test_the_interval_of_a_difference_is_the_rating_with_the_other_agent_as_anchor():
    from cya_sim.reports.ratings import bradley_terry_fit, rating_differences

    rng = np.random.default_rng(8)
    sa = np.array([rng.permutation(3) for _ in range(300)])
    tot = ((np.array([0.0, 0.5, -0.2])[sa] + rng.gumbel(size=sa.shape)) * 1000).astype(np.int64)
    t = table(sa, tot)
    for order in ("total", "win"):
        beta, cov = bradley_terry_fit(t, ["A", "B", "C"], order)
        d = rating_differences(beta, cov, ["A", "B", "C"], units=300).set_index(["agent", "versus"])
        relabel = np.array([1, 2, 0])[sa]  # C first: its rating is 0, B's is B - C
        r = bradley_terry(table(relabel, tot), ["C", "A", "B"], order=order).set_index("agent")
        assert d.loc[("B", "C"), "difference"] == pytest.approx(r.loc["B", "rating"], rel=1e-6)
        assert d.loc[("B", "C"), "se"] == pytest.approx(r.loc["B", "rating_se"], rel=1e-6)
        low_b = bradley_terry(t, ["A", "B", "C"], order=order).set_index("agent").loc["B", "rating_ci_low"]
        assert d.loc[("A", "B"), "high"] == pytest.approx(-low_b, rel=1e-6)  # A is the anchor: A - B = -B


def test_games_to_resolve_25_elo_give_about_80_percent_power_on_simulated_tournaments():
    """units_for_delta from a pilot tournament; tournaments of that many games then reject 'no difference'
    about 80% of the time when the truth is 25 Elo (400 simulated tournaments, 3.5 binomial standard errors)."""
    from cya_sim.reports.ratings import bradley_terry_fit, rating_differences

    rng = np.random.default_rng(3)
    p_ahead = 1 / (1 + 10 ** (-25 / 400))

    def tournament(n):
        a_ahead = rng.random(n) < p_ahead
        return table([[0, 1]] * n, np.where(a_ahead[:, None], [[2, 1]], [[1, 2]]))

    beta, cov = bradley_terry_fit(tournament(20_000), ["A", "B"])
    n = int(rating_differences(beta, cov, ["A", "B"], units=20_000)["units_for_delta"].iloc[0])
    # in theory n p (1 - p) = ((1.96 + 0.84) / (25 / 173.7))^2, n = 1,521 (one comparison a game)
    assert 1_400 < n < 1_650
    rejected = []
    for _ in range(400):
        r = bradley_terry(tournament(n), ["A", "B"])
        rejected.append(r["rating_ci_high"].iloc[1] < 0 or r["rating_ci_low"].iloc[1] > 0)
    half = 3.5 * np.sqrt(0.8 * 0.2 / 400)
    assert 0.8 - half <= np.mean(rejected) <= 0.8 + half
