"""Report statistics against values computed by hand or by another library on small fixed tables."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import optimize, stats

from cya_sim.engine.classic.results import CLASSIC_COLUMNS
from cya_sim.engine.table import GameTable
from cya_sim.reports.analysis import analyse, cluster_variance, table_of, turn_order_shares
from cya_sim.reports.comparisons import ahead_counts, pairwise_table, position_of, position_test
from cya_sim.reports.ratings import ELO_PER_LOGIT, RatingUndefinedError, bradley_terry
from cya_sim.reports.stats import holm, mean_interval, score_test, wilson_effective, wilson_interval

Z95 = stats.norm.ppf(0.975)


def table(seat_agent, totals, win_share=None, first_dealer=None, deal=None, rounds=None) -> GameTable:
    sa = np.asarray(seat_agent, np.int16)
    tot = np.asarray(totals, np.int64)
    g = sa.shape[0]
    if win_share is None:
        best = tot.max(axis=1, keepdims=True)
        win = tot == best
        win_share = win / win.sum(axis=1, keepdims=True)
    z = np.zeros(g, np.int64)
    cols = {"first_dealer": np.zeros(g, np.int16) if first_dealer is None else np.asarray(first_dealer, np.int16),
            "rounds": z + 3 if rounds is None else np.asarray(rounds), "turns": z + 100, "challenges": z + 10,
            "largest_steal": z + 50_000}
    return GameTable(np.arange(g) if deal is None else np.asarray(deal), sa, tot, np.asarray(win_share, float), z + 120,
                     CLASSIC_COLUMNS, cols)


def frame(t: GameTable, agents: list[str]) -> pd.DataFrame:
    """The stored form (cya_sim.results.folder.games_schema) of a GameTable."""
    g, p = t.seat_agent.shape
    d = {"game": np.arange(g), "deal": t.game_index, "players": np.full(g, p, np.int8), "cycle": t.game_index,
         "lineup": np.zeros(g, np.int32), "rotation": np.arange(g) % p, "first_dealer": t.first_dealer}
    for s in range(p):
        d[f"seat_{s}_agent"] = [agents[a] for a in t.seat_agent[:, s]]
        d[f"seat_{s}_total"] = t.totals[:, s]
        d[f"seat_{s}_win_share"] = t.win_share[:, s]
    d.update(winner_agents="", rounds=t.rounds, turns=t.turns, challenges=t.challenges, decisions=t.decisions,
             largest_steal=t.largest_steal)
    return pd.DataFrame(d)


def wilson_by_hand(k: float, n: int, z: float = Z95) -> tuple[float, float]:
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return centre - half, centre + half


@pytest.mark.parametrize(("k", "n"), [(7, 10), (0, 12), (12, 12), (2.5, 9), (333, 1000)])
def test_wilson_interval_matches_the_formula(k, n):
    lo, hi = wilson_interval(k, n)
    elo, ehi = wilson_by_hand(k, n)
    assert lo == pytest.approx(max(0.0, elo), abs=1e-12) and hi == pytest.approx(min(1.0, ehi), abs=1e-12)


def test_mean_interval_matches_scipy_t():
    x = np.array([1_000_000, 750_000, 1_250_000, 900_000, 1_100_000], float)
    mean, lo, hi = mean_interval(x)
    elo, ehi = stats.t.interval(0.95, df=4, loc=x.mean(), scale=stats.sem(x))
    assert (mean, lo, hi) == pytest.approx((1_000_000, elo, ehi))


# three games at 3 seats; agents 0 = A, 1 = B
SA = [[0, 1, 1], [1, 0, 1], [1, 1, 0]]
TOT = [[900, 500, 700], [600, 600, 800], [300, 400, 1000]]


def test_ahead_counts_by_hand():
    ahead, ties = ahead_counts(table(SA, TOT), 2)
    # game 0: A(900) beats both B; game 1: A(600) ties B(600), loses to B(800); game 2: A(1000) beats both
    assert ahead.tolist() == [[0, 4], [1, 0]]
    assert ties.tolist() == [[0, 1], [1, 0]]


def test_pairwise_table_by_hand():
    pw = pairwise_table(table(SA, TOT), ["A", "B"])
    a = pw[pw["agent"] == "A"].iloc[0]
    assert (a.games, a.units, a.comparisons, a.ahead, a.behind, a.ties) == (3, 3, 6, 4, 1, 1)
    assert a.ahead_share == pytest.approx(4.5 / 6)
    # per game (unit): A ahead 2, 0.5 (tie) + 0, 2 of 2 comparisons each
    y, n = np.array([2.0, 0.5, 2.0]), np.full(3, 2.0)
    r = y.sum() / n.sum()
    se = math.sqrt(((y - r * n) ** 2).sum() * 3 / 2) / n.sum()
    assert (a.ahead_share_ci_low, a.ahead_share_ci_high) == pytest.approx(wilson_effective(r, se, 3))
    assert a.p_value == pytest.approx(score_test(y, n, 0.5))
    # per-seat win-share difference per game: A won games 0 and 2 alone; game 1 seat 2 (B) won: 0 - 1/2
    d = np.array([1 - 0.0, 0 - 0.5, 1 - 0.0])
    assert a.seat_share_diff == pytest.approx(d.mean())
    # Newcombe's hybrid score interval (issue 23): A's per-seat shares x (one seat: at most 1), B's y (two seats:
    # at most 1/2), each a Wilson interval on its effective size, combined with their correlation
    x, y = np.array([1.0, 0.0, 1.0]), np.array([0.0, 0.5, 0.0])

    def part(v, top):
        se = math.sqrt(((v - v.mean()) ** 2).sum() * 3 / 2) / 3
        lo, hi = wilson_effective(v.mean() / top, se / top, 3)
        return v.mean(), top * lo, top * hi

    (r1, l1, u1), (r2, l2, u2) = part(x, 1.0), part(y, 0.5)
    rho = np.corrcoef(x, y)[0, 1]
    low = d.mean() - math.sqrt((r1 - l1) ** 2 + (u2 - r2) ** 2 - 2 * rho * (r1 - l1) * (u2 - r2))
    high = d.mean() + math.sqrt((u1 - r1) ** 2 + (r2 - l2) ** 2 - 2 * rho * (u1 - r1) * (r2 - l2))
    assert (a.seat_share_diff_ci_low, a.seat_share_diff_ci_high) == pytest.approx((low, high))
    assert -0.5 <= low < high <= 1.0  # the t interval was [-0.58, +1.58]: outside what can happen
    half = stats.t.ppf(0.975, 2) * d.std(ddof=1) / math.sqrt(3)
    assert d.mean() + half > 1.0
    b = pw[pw["agent"] == "B"].iloc[0]
    assert b.ahead_share == pytest.approx(1.5 / 6) and b.p_value == a.p_value and b.p_holm == a.p_holm
    assert b.seat_share_diff == pytest.approx(-a.seat_share_diff)


def test_pairwise_holm_over_unordered_pairs():
    rng = np.random.default_rng(4)
    sa = np.array([rng.permutation(3) for _ in range(60)])
    tot = ((np.array([0.0, 0.3, -0.2])[sa] + rng.gumbel(size=sa.shape)) * 1000).astype(np.int64)
    pw = pairwise_table(table(sa, tot), ["A", "B", "C"])
    first = pw.iloc[::2]
    assert len(first) == 3 and pw["p_holm"].tolist() == pytest.approx(np.repeat(holm(first["p_value"]), 2).tolist())


def test_position_test_effects_match_statsmodels_and_the_score_test_by_hand():
    """Win share on seat and agent dummies clustered by deal: effects as statsmodels OLS; robust LM test by hand."""
    import statsmodels.api as sm

    rng = np.random.default_rng(6)
    g, p = 120, 3
    sa = np.array([np.roll([0, 1, 1], i % 3) for i in range(g)])
    winner = rng.integers(0, p, g)
    ws = np.eye(p)[winner]
    deal = np.arange(g) // 3
    t = table(sa, ws * 1000, win_share=ws, deal=deal, first_dealer=rng.integers(0, p, g))
    for position in ("seat", "turn_order"):
        res = position_test(t, position)
        pos = position_of(t, position).ravel()
        x = np.column_stack([np.ones(g * p), pos == 1, pos == 2, sa.ravel() == 1]).astype(float)
        groups = np.repeat(deal, p)
        fit = sm.OLS(ws.ravel(), x).fit(cov_type="cluster", cov_kwds={"groups": groups}, use_t=True)
        assert res["effect"][1:] == pytest.approx(fit.params[1:3])
        assert res["se"][1:] == pytest.approx(fit.bse[1:3])
        # robust LM (Wooldridge 2010, 12.6): restricted fit on [1, agent], x2 partialled out, one score per deal
        x1, x2 = x[:, [0, 3]], x[:, 1:3]
        e0 = sm.OLS(ws.ravel(), x1).fit().resid
        x2t = x2 - x1 @ np.linalg.lstsq(x1, x2, rcond=None)[0]
        scores = np.array([(x2t[groups == d] * e0[groups == d, None]).sum(axis=0) for d in range(40)])
        lm = scores.sum(axis=0) @ np.linalg.inv(scores.T @ scores) @ scores.sum(axis=0)
        assert res["F"] == pytest.approx(lm / 2, rel=1e-9)
        assert res["p_value"] == pytest.approx(stats.f.sf(lm / 2, 2, 39), rel=1e-9)
        assert (res["df_num"], res["df_den"], res["units"]) == (2, 39, 40)


def test_position_of_turn_order_agrees_with_turn_order_shares():
    t = table([[0, 1, 1]] * 3, [[1, 2, 3]] * 3, first_dealer=[0, 1, 2])
    q = position_of(t, "turn_order")
    shares = turn_order_shares(t)
    for g in range(3):
        for s in range(3):
            assert shares[g, q[g, s]] == t.win_share[g, s]
    with pytest.raises(ValueError, match="seat or turn_order"):
        position_of(t, "chair")


def test_turn_order_shares():
    t = table([[0, 1, 1]] * 2, [[1, 2, 3], [1, 2, 3]], first_dealer=[0, 2])
    # dealer 0 -> seat 1 moves first; dealer 2 -> seat 0 moves first
    assert turn_order_shares(t).tolist() == [[0, 1, 0], [0, 0, 1]]


def test_bradley_terry_two_agents_closed_form():
    # A ahead of B 30 times, behind 10 times (P = 2, one comparison per game, each game its own unit)
    sa = [[0, 1]] * 40
    tot = [[2, 1]] * 30 + [[1, 2]] * 10
    r = bradley_terry(table(sa, tot), ["A", "B"])
    assert r["rating"].tolist() == pytest.approx([0.0, -math.log(3) * ELO_PER_LOGIT])
    # sandwich: bread 1/(n p q) = 1/7.5, meat sum (w - p)^2 = 30/16 + 10 * 9/16 = 7.5, times C/(C-1)
    se = math.sqrt(1 / 7.5 * 40 / 39) * ELO_PER_LOGIT
    assert r["rating_se"].iloc[1] == pytest.approx(se, rel=1e-6)
    assert r["rating_ci_low"].iloc[1] == pytest.approx(r["rating"].iloc[1] - Z95 * se, rel=1e-6)


def test_bradley_terry_cluster_covariance_matches_statsmodels_glm():
    """The sandwich clustered by game equals statsmodels GLM(cov_type="cluster") on the individual comparisons."""
    import statsmodels.api as sm

    rng = np.random.default_rng(9)
    sa = np.array([rng.choice(3, 4) for _ in range(150)])  # repeated agents in a game
    sa[:, 0], sa[:, 1] = 0, 1  # every game holds A and B
    tot = ((np.array([0.0, 0.5, -0.3])[sa] + rng.gumbel(size=sa.shape)) * 10).astype(np.int64)  # some ties
    t = table(sa, tot)
    r = bradley_terry(t, ["A", "B", "C"])
    x, y, grp = [], [], []
    for g in range(len(sa)):
        for i in range(4):
            for j in range(i + 1, 4):
                a, b = sa[g, i], sa[g, j]
                if a == b:
                    continue
                row = np.zeros(3)
                row[a], row[b] = 1, -1
                x.append(row[1:])
                y.append(1.0 if tot[g, i] > tot[g, j] else 0.5 if tot[g, i] == tot[g, j] else 0.0)
                grp.append(g)
    fit = sm.GLM(np.array(y), np.array(x), family=sm.families.Binomial()).fit(
        cov_type="cluster", cov_kwds={"groups": np.array(grp)})
    assert r["rating"].to_numpy()[1:] == pytest.approx(fit.params * ELO_PER_LOGIT, rel=1e-6)
    assert r["rating_se"].to_numpy()[1:] == pytest.approx(fit.bse * ELO_PER_LOGIT, rel=1e-6)


def test_bradley_terry_three_agents_matches_direct_maximum_likelihood():
    rng = np.random.default_rng(5)
    sa = np.array([rng.permutation(3) for _ in range(300)])
    strength = np.array([0.0, 0.7, -0.4])
    tot = (strength[sa] + rng.gumbel(size=sa.shape)) * 1000
    t = table(sa, tot.astype(np.int64))
    r = bradley_terry(t, ["A", "B", "C"])
    ahead, ties = ahead_counts(t, 3)
    w = ahead + ties / 2

    def nll(b):
        beta = np.concatenate([[0.0], b])
        d = beta[:, None] - beta[None, :]
        return -(w * -np.logaddexp(0, -d)).sum()

    fit = optimize.minimize(nll, np.zeros(2), method="BFGS", options={"gtol": 1e-10})
    assert r["rating"].to_numpy()[1:] == pytest.approx(fit.x * ELO_PER_LOGIT, abs=1e-3)
    assert r["rating"].iloc[1] > 0 > r["rating"].iloc[2]


def test_bradley_terry_refuses_one_sided_results():
    with pytest.raises(RatingUndefinedError, match="never all finished"):
        bradley_terry(table([[0, 1]] * 5, [[2, 1]] * 5), ["A", "B"])


def test_cluster_variance_matches_the_sandwich_formula():
    y = np.array([1.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.5, 0.5])
    g = np.array([0, 0, 1, 1, 2, 2, 3, 3])
    se_iid, se_cl = cluster_variance(y, g)
    n, k, groups = len(y), 1, 4
    assert se_iid == pytest.approx(y.std(ddof=1) / math.sqrt(n))
    e = y - y.mean()
    sums = np.bincount(g, weights=e)
    meat = (sums ** 2).sum() * groups / (groups - 1) * (n - 1) / (n - k)
    assert se_cl == pytest.approx(math.sqrt(meat) / n)
    # within-pair opposite luck cancels: every cluster sums to the mean, so the clustered SE is 0
    assert se_cl == pytest.approx(0.0, abs=1e-12)


def test_cluster_variance_matches_statsmodels():
    import statsmodels.api as sm

    rng = np.random.default_rng(3)
    g = rng.integers(0, 40, 500)
    y = rng.normal(size=40)[g] + rng.normal(size=500)
    se_iid, se_cl = cluster_variance(y, g)
    model = sm.OLS(y, np.ones((500, 1)))
    assert se_iid == pytest.approx(model.fit().bse[0])
    assert se_cl == pytest.approx(model.fit(cov_type="cluster", cov_kwds={"groups": g}).bse[0])


def test_analyse_fixed_table():
    t = table(SA, TOT, first_dealer=[0, 1, 2], rounds=[3, 4, 3])
    a = analyse(frame(t, ["A", "B"]), ["A", "B"])
    s = a.summary.set_index("agent")
    # shares: game 0 A wins; game 1 seat 2 (B) wins; game 2 A wins
    assert s.loc["A", "games"] == 3 and s.loc["A", "wins"] == 2 and s.loc["B", "wins"] == 1
    assert (s.loc["B", "seat_games"], s.loc["B", "games"]) == (6, 3)
    assert s.loc["A", "mean_total"] == pytest.approx((900 + 600 + 1000) / 3)
    assert s.loc["B", "seat_share"] == pytest.approx(1 / 6) and s.loc["B", "game_win_rate"] == pytest.approx(1 / 3)
    assert s.loc["B", "game_win_rate_fair"] == pytest.approx(2 / 3)
    ln = a.lengths.set_index("metric")
    assert ln.loc["rounds", "mean"] == pytest.approx(10 / 3) and ln.loc["rounds", "max"] == 4
    assert a.length_counts[["rounds", "games"]].values.tolist() == [[3, 2], [4, 1]]
    seats = a.seats[(a.seats["agent"] == "(all)") & (a.seats["position"] == "seat")]
    assert seats["wins"].tolist() == [1, 0, 2]
    turn = a.seats[(a.seats["agent"] == "(all)") & (a.seats["position"] == "turn_order")]
    # winners: game 0 seat 0 (dealer 0 -> order 2), game 1 seat 2 (dealer 1 -> order 0), game 2 seat 2 (dealer 2 -> 2)
    assert turn["wins"].tolist() == [1, 0, 2]
    bal = a.seats[(a.seats["agent"] == "A") & (a.seats["position"] == "seat")]
    assert bal["games"].tolist() == [1, 1, 1]
    assert a.games == {3: 3}


def test_duplicate_deals_remove_the_luck_of_the_deal():
    """Two agents of equal skill where the deal alone decides: rotations on one deal cancel it exactly."""
    rng = np.random.default_rng(1)
    deals = 50
    seat_luck = rng.normal(size=deals) * 1000
    luck = np.column_stack([seat_luck, -seat_luck])  # the deal favours one seat at the other's expense
    sa, tot, deal = [], [], []
    for d in range(deals):
        for r in range(2):
            sa.append([0, 1] if r == 0 else [1, 0])
            tot.append((10_000 + luck[d]).astype(np.int64))
            deal.append(d)
    t = table(sa, tot, deal=deal)
    v = analyse(frame(t, ["A", "B"]), ["A", "B"]).variance.set_index(["agent", "metric"])
    assert v.loc[("A", "win_share"), "variance_removed"] == pytest.approx(1.0)
    assert v.loc[("A", "total"), "variance_removed"] == pytest.approx(1.0)
    assert v.loc[("A", "total"), "se_by_game"] > 50  # every game alone is all luck (sd 1000, 100 games)
    # the same games, each on its own deal: nothing is removed
    plain = table(sa, tot, deal=np.arange(len(sa)))
    v = analyse(frame(plain, ["A", "B"]), ["A", "B"]).variance
    assert v["variance_removed"].to_numpy() == pytest.approx(np.zeros(4))


def test_table_of_refuses_mixed_sizes_and_foreign_agents():
    t = table(SA, TOT)
    df = frame(t, ["A", "B"])
    with pytest.raises(ValueError, match="outside"):
        table_of(df, ["A"])
    df2 = pd.concat([df, df.assign(players=np.int8(4))])
    with pytest.raises(ValueError, match="one table size"):
        table_of(df2, ["A", "B"])


def test_pairwise_counts_of_every_pair_at_once_are_those_pair_by_pair(monkeypatch):
    """pairwise_table's table of every ordered pair's counts (int8 per game) gives the very rows of counting one
    pair at a time (the fallback above PAIR_COUNTS_CELLS), with agents in two seats, ties and duplicate deals."""
    from cya_sim.reports import comparisons

    rng = np.random.default_rng(21)
    g, p, k = 900, 4, 4
    sa = rng.integers(0, k, (g, p))
    tot = rng.integers(0, 4, (g, p)) * 1000  # many ties
    t = table(sa, tot, deal=np.arange(g) // 3)
    names = ["A", "B", "C", "D"]
    at_once = pairwise_table(t, names)
    monkeypatch.setattr(comparisons, "PAIR_COUNTS_CELLS", 0)
    one_by_one = pairwise_table(t, names)
    pd.testing.assert_frame_equal(at_once, one_by_one, check_exact=True)
    assert at_once["ties"].sum() > 0 and (at_once["comparisons"] > at_once["games"]).any()
