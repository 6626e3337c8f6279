"""``cya-sim metagame`` (issue 22): the solvers on games with known answers, α-Rank against OpenSpiel, the bootstrap's
coverage on a simulated game, and the command end to end (resume, errors)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from cya_sim.cli.metagame import metagame_main
from cya_sim.reports.egt import (
    ProfileGame,
    all_profiles,
    alpharank,
    dominated,
    expected_payoffs,
    from_matrix,
    regret,
    replicator,
    symmetric_nash,
)
from cya_sim.studies.metagame import COVERAGE_MATRIX, MetagameConfig, bootstrap_coverage, run_metagame


def test_weighted_rock_paper_scissors_has_its_known_interior_equilibrium():
    # A skew-symmetric: A x = 0 at x = (2, 3, 1) / 6
    x, eps = symmetric_nash(from_matrix(COVERAGE_MATRIX))
    assert x == pytest.approx([1 / 3, 1 / 2, 1 / 6], abs=1e-6) and eps < 1e-8


def test_hawk_dove_mix_is_v_over_c_and_a_dominant_strategy_is_pure():
    v, c = 2.0, 6.0
    x, _ = symmetric_nash(from_matrix(np.array([[(v - c) / 2, v], [0.0, v / 2]])))
    assert x[0] == pytest.approx(v / c, abs=1e-6)
    pd_game = from_matrix(np.array([[3.0, 0.0], [5.0, 1.0]]), ("cooperate", "defect"))
    x, eps = symmetric_nash(pd_game)
    assert x.tolist() == [0.0, 1.0] and eps == 0.0
    assert [(i, j) for i, j, _m in dominated(pd_game)] == [(0, 1)]
    assert dominated(pd_game)[0][2] == pytest.approx(1.0)  # min(5 - 3, 1 - 0)


def _volunteers(n: int, b: float, c: float) -> ProfileGame:
    counts = all_profiles(2, n)
    pay = np.full(counts.shape, np.nan)
    for i, row in enumerate(counts):
        if row[0]:
            pay[i, 0] = b - c
        if row[1]:
            pay[i, 1] = b if row[0] else 0.0
    return ProfileGame(counts, pay, ("volunteer", "ignore"))


def test_volunteers_dilemma_three_players():
    # the symmetric mixed equilibrium ignores with q = (c / b) ** (1 / (n - 1))
    for n, c in ((3, 0.25), (4, 0.125)):
        x, eps = symmetric_nash(_volunteers(n, 1.0, c))
        assert x[1] == pytest.approx((c / 1.0) ** (1 / (n - 1)), abs=1e-6) and eps < 1e-9


def test_expected_payoffs_match_brute_force_over_seatings():
    rng = np.random.default_rng(0)
    k, p = 3, 3
    counts = all_profiles(k, p)
    pay = np.where(counts > 0, rng.uniform(size=counts.shape), np.nan)
    g = ProfileGame(counts, pay, ("a", "b", "c"))
    x = np.array([0.2, 0.5, 0.3])
    want = np.zeros(k)
    for i in range(k):
        for j1 in range(k):
            for j2 in range(k):
                prof = np.bincount([i, j1, j2], minlength=k)
                want[i] += x[j1] * x[j2] * g.payoff(tuple(prof), i)
    assert expected_payoffs(g, x) == pytest.approx(want)
    assert regret(g, x) == pytest.approx(max(0.0, want.max() - x @ want))


def test_replicator_keeps_the_simplex_and_rps_orbits_do_not_settle():
    _t, xs = replicator(from_matrix(COVERAGE_MATRIX), np.array([0.6, 0.2, 0.2]), 500.0, 101)
    assert np.allclose(xs.sum(axis=1), 1.0) and (xs >= 0).all()
    # the weighted RPS orbit is closed around the equilibrium: x1^2 x2^3 x3 (the weights of A x = 0) is conserved
    h = 2 * np.log(xs[:, 0]) + 3 * np.log(xs[:, 1]) + np.log(xs[:, 2])
    assert np.ptp(h) < 1e-3


@pytest.mark.parametrize("matrix", [COVERAGE_MATRIX, np.array([[0.5, 0.7, 0.2], [0.1, 0.4, 0.9], [0.3, 0.6, 0.55]])])
def test_alpharank_equals_openspiel_for_two_players(matrix):
    from open_spiel.python.egt import alpharank as os_alpharank

    pi, rho = alpharank(from_matrix(matrix), m=20, alpha=5.0, use_openspiel=False)  # this module's own
    rhos, _rho_m, pi_os, _n, _ = os_alpharank.compute([matrix], m=20, alpha=5.0, use_local_selection_model=False)
    pi_via, _ = alpharank(from_matrix(matrix), m=20, alpha=5.0, use_openspiel=True)  # through OpenSpiel at P = 2
    assert pi_via == pytest.approx(pi_os, rel=1e-12)
    assert pi == pytest.approx(pi_os, rel=1e-9)
    assert rho == pytest.approx(np.asarray(rhos), rel=1e-9, abs=1e-15)


def test_bootstrap_interval_of_the_nash_weights_covers_a_known_equilibrium():
    c = bootstrap_coverage(reps=12, deals=200, bootstrap=40)
    assert (c["coverage"] >= 0.66).all() and (c["half_width"] > 0.03).all() and (c["half_width"] < 0.15).all(), c


@pytest.mark.slow
def test_bootstrap_interval_coverage_many_replications():
    """Measured on 2026-12-01 (100 replications, 100 bootstrap draws): 90%, 92%, 91% at nominal 95% — the
    percentile bootstrap undercovers a little here (docs/strategy.md)."""
    c = bootstrap_coverage(reps=200, deals=200, bootstrap=100)
    assert (c["coverage"] >= 0.87).all() and (c["coverage"] <= 0.99).all(), c


def test_metagame_two_players_end_to_end_and_resume(tmp_path):
    cfg = MetagameConfig(pool=("random", "greedy", "card_counter"), players=2, out=tmp_path / "m", deals=30,
                         bootstrap=20, seed=4)
    r = run_metagame(cfg, progress=False, command="test")
    pay = r.payoffs
    # constant sum: in a 2-player line-up of two agents the two payoffs add up to 1
    for _lu, grp in pay.groupby("lineup"):
        assert grp["payoff"].sum() == pytest.approx(1.0)
    mix = r.mix.set_index("agent")
    assert mix.loc["random", "nash"] == 0.0 and "greedy" in mix.loc["random", "dominated_by"]
    assert mix["nash"].sum() == pytest.approx(1.0) and r.regret < 1e-6
    assert (mix["nash_low"] <= mix["nash"] + 1e-9).all() and (mix["nash"] <= mix["nash_high"] + 1e-9).all()
    for f in ("REPORT.md", "payoffs.csv", "mix.csv", "result.json", "response_graph.png", "replicator.png"):
        assert (cfg.out / f).exists()
    assert json.loads((cfg.out / "result.json").read_text())["deals"] == 30
    # a run killed before a chunk was written replays only that chunk and gives the same answer
    chunks = sorted((cfg.out / "games" / "games.parquet").glob("*.parquet"))
    chunks[-1].unlink()
    r2 = run_metagame(cfg, progress=False)
    assert chunks[-1].exists()
    pd.testing.assert_frame_equal(r.mix, r2.mix)


@pytest.mark.parametrize("argv, message", [
    (["--pool", ""], "--pool is empty"),
    (["--pool", "greedy"], "pool of one"),
    (["--pool", "greedy,greedy"], "given twice"),
    (["--pool", "greedy,grredy"], "unknown agent 'grredy'"),
    (["--pool", "greedy,random", "--deals", "0"], "--deals 0: must be an integer from 1 to"),
])
def test_metagame_refuses_bad_input_in_one_line(tmp_path, capsys, argv, message):
    code = metagame_main([*argv, "--out", str(tmp_path / "o"), "--quiet"])
    err = capsys.readouterr().err.strip()
    assert code == 2 and message in err and "\n" not in err, err
    assert not (tmp_path / "o").exists()
