"""``cya-sim metagame`` at its edges (issue 29): α-Rank independent of the pool's order where fixation probabilities
underflow, a population too small for the table refused, aliases detected and merged, dominance only when its test
rejects, no ``nan`` or ``-0.000`` printed, the selection model named, the OpenSpiel export, every numeric flag
bounded before any game, and Ctrl-C."""

from __future__ import annotations

import json
import math
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from cya_sim.cli.metagame import metagame_main
from cya_sim.reports.egt import (
    ProfileGame,
    all_profiles,
    alpharank,
    from_matrix,
    log_alpharank,
    log_stationary,
    openspiel_hpt,
)
from cya_sim.studies.metagame import (
    COVERAGE_MATRIX,
    MetagameConfig,
    dominance_tests,
    find_aliases,
    merge_aliases,
    number_text,
    report_markdown,
    simulate_deal_sums,
    solve,
)


def _permuted(game: ProfileGame, perm: np.ndarray) -> ProfileGame:
    """The same game with strategy ``perm[j]`` as strategy j (the pool given in another order)."""
    return ProfileGame(game.counts[:, perm], game.payoffs[:, perm], tuple(game.labels[j] for j in perm))


def _random_game(k: int, p: int, seed: int) -> ProfileGame:
    rng = np.random.default_rng(seed)
    counts = all_profiles(k, p)
    pay = np.where(counts > 0, rng.uniform(size=counts.shape), np.nan)
    return ProfileGame(counts, pay, tuple("abcdefgh"[:k]))


@pytest.mark.parametrize("alpha", [100.0, 1e4, 1e6])
@pytest.mark.parametrize("k, p", [(4, 4), (5, 2)])
def test_alpharank_is_the_same_for_every_order_of_the_pool_with_huge_payoff_gaps(alpha, k, p):
    game = _random_game(k, p, seed=k * 10 + p)
    lpi, lrho = log_alpharank(game, m=50, alpha=alpha)
    assert np.isfinite(lrho[~np.eye(k, dtype=bool)]).all()
    # payoff gaps of up to 1 win share at alpha 1e4..1e6: most fixation probabilities are below 1e-300
    assert (lrho < math.log(1e-186)).sum() >= k
    pi = np.exp(lpi)
    for seed in range(3):
        perm = np.random.default_rng(seed).permutation(k)
        lpi2, lrho2 = log_alpharank(_permuted(game, perm), m=50, alpha=alpha)
        back = np.argsort(perm)
        assert np.exp(lpi2[back]) == pytest.approx(pi, abs=1e-12)
        assert lrho2[np.ix_(back, back)] == pytest.approx(lrho, rel=1e-12)
        pi2, _ = alpharank(_permuted(game, perm), m=50, alpha=alpha)
        assert pi2[back] == pytest.approx(pi, abs=1e-12)


def test_metagame_solution_is_the_same_for_every_order_of_the_pool(tmp_path):
    # a 4-agent 2-player game with payoff gaps up to 0.9 at alpha = 1e5: fixation probabilities far below 1e-186
    matrix = np.array([[0.5, 0.95, 0.05, 0.6], [0.05, 0.5, 0.9, 0.3], [0.95, 0.1, 0.5, 0.2], [0.4, 0.7, 0.8, 0.5]])
    counts, sums, seats = simulate_deal_sums(matrix, 80, np.random.default_rng(3))
    labels = ("a", "b", "c", "d")
    cfg = MetagameConfig(pool=labels, players=2, out=tmp_path, bootstrap=0, alpha=1e5, m=50)
    want = solve(cfg, counts, sums, seats, labels, starts=0).mix.set_index("agent")
    for perm in ([3, 2, 1, 0], [1, 3, 0, 2]):
        perm = np.array(perm)
        got = solve(cfg, counts[:, perm], sums[:, :, perm], seats[:, perm], tuple(labels[j] for j in perm),
                    starts=0).mix.set_index("agent").loc[list(labels)]
        assert got["alpharank"].to_numpy() == pytest.approx(want["alpharank"].to_numpy(), abs=1e-12)
        assert got["nash"].to_numpy() == pytest.approx(want["nash"].to_numpy(), abs=1e-6)
        assert (got["dominated_by"] == want["dominated_by"]).all()


def test_alpharank_of_a_bistable_game_keeps_detailed_balance_where_rho_is_1e_minus_186_and_below():
    # a coordination game: each strategy resists the other's mutant, both fixation probabilities underflow a
    # linear transition matrix (1 - 1e-186 == 1), whose eigenvector then follows the order of the strategies
    game = from_matrix(np.array([[1.0, 0.0], [0.0, 0.9]]), ("a", "b"))
    for alpha in (50.0, 100.0):
        lpi, lrho = log_alpharank(game, m=50, alpha=alpha)
        assert lrho[0, 1] < math.log(1e-186) and lrho[1, 0] < math.log(1e-186)
        # two states: pi_a rho[a, b] = pi_b rho[b, a]
        assert lpi[0] - lpi[1] == pytest.approx(lrho[1, 0] - lrho[0, 1], rel=1e-12)
        lpi2, _ = log_alpharank(_permuted(game, np.array([1, 0])), m=50, alpha=alpha)
        assert lpi2[::-1] == pytest.approx(lpi, rel=1e-12, abs=1e-12)


def test_alpharank_of_three_equal_coordination_strategies_is_uniform_in_every_order():
    # fixation probabilities ~ e^-1100 (0.0 in double precision): the symmetric answer, not the first strategy
    game = from_matrix(np.eye(3), ("x", "y", "z"))
    for perm in ([0, 1, 2], [2, 0, 1], [1, 2, 0]):
        pi, rho = alpharank(_permuted(game, np.array(perm)), m=50, alpha=100.0)
        assert pi == pytest.approx([1 / 3] * 3, abs=1e-12) and rho.max() == 0.0


def test_log_stationary_matches_the_eigenvector_of_a_well_conditioned_chain():
    rng = np.random.default_rng(5)
    rates = rng.uniform(0.1, 1.0, size=(5, 5))
    np.fill_diagonal(rates, 0.0)
    c = rates / 5.0
    c[np.diag_indices(5)] = 1.0 - c.sum(axis=1)
    w, v = np.linalg.eig(c.T)
    want = np.abs(np.real(v[:, np.argmin(np.abs(w - 1.0))]))
    with np.errstate(divide="ignore"):
        got = np.exp(log_stationary(np.log(rates)))
    assert got == pytest.approx(want / want.sum(), rel=1e-10)


@pytest.mark.parametrize("p, m", [(4, 2), (4, 3), (3, 2), (2, 1), (4, 10_001)])
def test_alpharank_refuses_a_population_outside_p_to_10000(p, m):
    with pytest.raises(ValueError, match=f"population {m}: must be an integer from {p} "):
        log_alpharank(_random_game(2, p, 0), m=m, alpha=10.0)


def test_alpharank_at_a_population_equal_to_the_table_is_not_the_silent_uniform_answer():
    # strategy 0 gets 1, strategy 1 gets 0 in every mixed table: 0 dominates; m = P = 4 is the smallest population
    counts = all_profiles(2, 4)
    pay = np.where(counts > 0, 0.25, np.nan)
    mixed = (counts > 0).all(axis=1)
    pay[mixed, 0], pay[mixed, 1] = 1.0 / counts[mixed, 0], 0.0
    pi, _ = alpharank(ProfileGame(counts, pay, ("strong", "weak")), m=4, alpha=10.0)
    assert pi[0] > 0.99


@pytest.mark.parametrize("alpha", [0.0, -1.0, float("nan"), float("inf"), 1e300, True])
def test_alpharank_refuses_alpha_outside_0_to_1e6(alpha):
    with pytest.raises(ValueError, match=r"alpha .*: must be a number > 0 and <= 1e\+06"):
        alpharank(from_matrix(COVERAGE_MATRIX), m=10, alpha=alpha)


def test_openspiel_alpharank_on_the_exported_heuristic_payoff_table_is_the_projects_alpharank():
    from open_spiel.python.egt import alpharank as os_alpharank
    from open_spiel.python.egt import heuristic_payoff_table as hpt

    matrix = np.array([[0.5, 0.7, 0.2], [0.3, 0.5, 0.9], [0.8, 0.1, 0.5]])
    game = from_matrix(matrix, ("a", "b", "c"))
    table = hpt.from_heuristic_payoff_table(openspiel_hpt(game))
    _rhos, _rm, pi_os, _n, _ = os_alpharank.compute([table], m=20, alpha=5.0, use_local_selection_model=False)
    pi, _ = alpharank(game, m=20, alpha=5.0)
    assert pi == pytest.approx(pi_os, rel=1e-9)
    assert openspiel_hpt(game).shape == (6, 6)


# -- aliases ---------------------------------------------------------------------------------------------------
def _two_player_games(outcome) -> pd.DataFrame:
    """Stored-game rows of a 2-player pool (a, b, c): every ordered pair of different agents on deals 0..2; the
    record of a game is ``outcome(deal, seat_0_agent, seat_1_agent)`` -> (total_0, total_1, win_0, turns)."""
    rows = []
    for deal in range(3):
        for s0 in "abc":
            for s1 in "abc":
                if s0 != s1:
                    t0, t1, w0, turns = outcome(deal, s0, s1)
                    rows.append({"deal": deal, "seat_0_agent": s0, "seat_1_agent": s1, "seat_0_total": t0,
                                 "seat_1_total": t1, "seat_0_win_share": w0, "seat_1_win_share": 1 - w0,
                                 "rounds": 1, "turns": turns, "challenges": 0, "decisions": turns,
                                 "largest_steal": 0, "capped": False})
    return pd.DataFrame(rows)


def _as_policy(name: str) -> str:
    return {"b": "a"}.get(name, name)  # b plays as a


def _outcome(deal, s0, s1):
    p0, p1 = _as_policy(s0), _as_policy(s1)
    if p0 == p1:
        return 100 + deal, 90, 1.0, 20 + deal
    strong = p0 == "a"
    return (200, 50 + deal, 1.0, 30) if strong else (40, 300 + deal, 0.0, 31)


def test_find_aliases_merges_agents_with_identical_records_on_every_shared_deal():
    games = _two_player_games(_outcome)
    found = find_aliases(games, ("a", "b", "c"), 2)
    # per deal: (b, c) vs (a, c), (c, b) vs (c, a), (a, b) vs (b, a)
    assert found == [(0, 1, 9)]
    counts = np.array([[1, 1, 0], [1, 0, 1], [0, 1, 1]])
    sums = np.arange(27, dtype=float).reshape(3, 3, 3)
    mc, ms, mseats, labels = merge_aliases(counts, sums, counts * 2, ("a", "b", "c"), found)
    assert labels == ("a", "c") and mc.tolist() == [[1, 1]] and ms[:, 0].tolist() == sums[:, 1][:, [0, 2]].tolist()
    assert mseats.tolist() == [[2, 2]]


def test_find_aliases_keeps_agents_apart_when_one_game_record_differs():
    def outcome(deal, s0, s1):
        t0, t1, w0, turns = _outcome(deal, s0, s1)
        return (t0, t1, w0, turns + 1) if (deal, s0, s1) == (2, "b", "c") else (t0, t1, w0, turns)

    assert find_aliases(_two_player_games(outcome), ("a", "b", "c"), 2) == []


# -- dominance ---------------------------------------------------------------------------------------------------
def test_dominance_is_not_claimed_for_two_payoff_equivalent_agents_with_a_margin_of_0():
    # c is b in all but name: the same games against a, an even split between them; b "wins" by floating-point
    # rounding (1e-15 per deal): the old "strictly dominated, margin 0.0 pts"
    matrix = np.array([[0.5, 0.3, 0.3], [0.7, 0.5, 0.5], [0.7, 0.5, 0.5]])
    counts, sums, seats = simulate_deal_sums(matrix, 200, np.random.default_rng(1))  # (a, b), (a, c), (b, c)
    sums[:, 1] = sums[:, 0][:, [0, 2, 1]]  # (a, c) plays as (a, b)
    sums[:, 2, 1], sums[:, 2, 2] = 1.0 + 1e-15, 1.0 - 1e-15
    sums[:, 0, 1] += 1e-15
    dom = dominance_tests(counts, sums, seats, ("a", "b", "c")).set_index(["agent", "by"])
    assert abs(dom.loc[("c", "b"), "margin"]) < 1e-14
    assert not dom.loc[("c", "b"), "dominated"] and not dom.loc[("b", "c"), "dominated"]
    # a is beaten by both (0.3 against 0.7): dominated, with a lower bound of the margin above 0
    for j in ("b", "c"):
        row = dom.loc[("a", j)]
        assert row["dominated"] and 0 < row["low"] < row["margin"] and row["p_holm"] < 0.05
    # Holm over the 6 ordered pairs
    assert (dom["p_holm"] >= dom["p"] - 1e-15).all() and len(dom) == 6


def test_dominated_always_means_the_margins_lower_bound_is_above_0():
    rng = np.random.default_rng(7)
    for _ in range(8):
        a = rng.uniform(-0.2, 0.2, size=(3, 3))
        matrix = np.clip(0.5 + (a - a.T) / 2, 0.01, 0.99)
        np.fill_diagonal(matrix, 0.5)
        counts, sums, seats = simulate_deal_sums(matrix, 40, rng)
        dom = dominance_tests(counts, sums, seats, ("a", "b", "c"))
        assert (dom.loc[dom["dominated"], "low"] > 0).all()
        assert (dom.loc[dom["dominated"], "p_holm"] < 0.05).all()


# -- what is printed -----------------------------------------------------------------------------------------------
def test_report_prints_no_nan_and_no_negative_zero_and_names_the_selection_model(tmp_path):
    counts, sums, seats = simulate_deal_sums(COVERAGE_MATRIX, 60, np.random.default_rng(2))
    cfg = MetagameConfig(pool=("a", "b", "c"), players=2, out=tmp_path, bootstrap=0, alpha=50.0, m=30)
    r = solve(cfg, counts, sums, seats, ("a", "b", "c"), starts=0)
    r.mix.loc[0, "fitness"] = -1e-12  # a rounding error below 0 prints as 0.0000
    text = report_markdown(cfg, r, "cya-sim metagame ...")
    assert not re.search(r"\bnan\b", text, re.IGNORECASE) and "-0.0" not in text
    assert text.count("no interval (--bootstrap 0)") == 6
    assert "Moran process with Fermi selection of intensity alpha = 50, mutation rate -> 0" in text
    assert "m = 30" in text and "Omidshafiei et al. 2019" in text and "Holm (1979) over the 6 ordered pairs" in text
    assert number_text(-0.0) == "0.000" and number_text(-4e-4) == "0.000" and number_text(float("nan")) == "n/a"


# -- the command ---------------------------------------------------------------------------------------------------
BIG = "1" + "0" * 4400  # more digits than Python's int() accepts by default


@pytest.mark.parametrize("argv, message", [
    (["--alpha", "1e300"], "--alpha 1e+300: must be a number > 0 and <= 1e+06"),
    (["--alpha", "0"], "--alpha 0.0: must be a number > 0"),
    (["--alpha", "nan"], "--alpha nan: must be a number > 0"),
    (["--alpha", BIG], "--alpha inf: must be a number > 0"),
    (["--alpha", "x"], "argument --alpha: invalid float value: 'x'"),
    (["--bootstrap", "100000000000000000000"], ("--bootstrap 100000000000000000000: must be an integer from 0 (none) "
                                               "to 100,000")),
    (["--bootstrap", BIG], "bootstrap must be an integer >= 0"),
    (["--population", "3"], "--population 3: must be an integer from 4 to 10,000 at 4 players"),
    (["--population", "2", "--players", "3"], "--population 2: must be an integer from 3 to 10,000 at 3 players"),
    (["--population", "10001", "--players", "2"], "--population 10001: must be an integer from 2 to 10,000"),
    (["--deals", "100000000000000000000"], "--deals 100000000000000000000: must be an integer from 1 to 8,333,333"),
    (["--workers", "1000000"], "--workers 1000000: must be an integer from 1 to 256"),
    (["--seed", str(2**63)], f"--seed {2**63}: must be an integer from 0 to"),
    (["--option", f"target_score={BIG}"], "--option target_score: an integer of more than 4,300 digits"),
    (["--players", "100000000000000000000"], "field 'players': 100000000000000000000; give an integer from 2 to 12"),
])
def test_metagame_refuses_each_number_out_of_range_in_one_line_before_any_game(tmp_path, capsys, argv, message):
    code = metagame_main(["--pool", "greedy,random", *argv, "--out", str(tmp_path / "o"), "--quiet"])
    err = capsys.readouterr().err.strip()
    assert code == 2 and message in err and "\n" not in err and "Traceback" not in err, err
    assert not (tmp_path / "o").exists()


@pytest.fixture(scope="module")
def alias_run(tmp_path_factory):
    """One small 2-player metagame whose pool holds an alias (``heuristic``'s defaults are ``greedy``,
    agents/classic/heuristic.py), with --bootstrap 0; returns (exit code, console, out folder)."""
    out = tmp_path_factory.mktemp("alias") / "m"
    proc = subprocess.run([sys.executable, "-m", "cya_sim.cli.main", "metagame", "--pool", "greedy,heuristic,random",
                           "--players", "2", "--deals", "12", "--bootstrap", "0", "--alpha", "20", "--population",
                           "10", "--out", str(out), "--quiet"], check=False, capture_output=True, text=True,
                          timeout=600)
    return proc.returncode, proc.stdout, proc.stderr, out


def test_metagame_reports_heuristic_as_an_alias_of_greedy_and_rates_them_as_one(alias_run):
    code, stdout, stderr, out = alias_run
    assert code == 0, stderr
    assert "alias: heuristic plays as greedy (identical records in 36 pairs of games" in stdout
    doc = json.loads((out / "result.json").read_text())
    assert doc["strategies"] == ["greedy", "random"] and doc["pool"] == ["greedy", "heuristic", "random"]
    assert doc["aliases"] == [{"agent": "heuristic", "alias_of": "greedy", "pairs_of_games_compared": 36}]
    mix = pd.read_csv(out / "mix.csv").set_index("agent")
    assert list(mix.index) == ["greedy", "random"] and mix.loc["greedy", "aliases"] == "heuristic"
    assert mix["nash"].sum() == pytest.approx(1.0)
    report = (out / "REPORT.md").read_text()
    assert "`heuristic` plays as `greedy` (36 pairs of games compared)" in report
    assert "| `greedy` (= `heuristic`) |" in report
    # payoffs.csv keeps every line-up played, the alias's too (3 line-ups x 2 agents)
    assert len(pd.read_csv(out / "payoffs.csv")) == 6


def test_metagame_console_and_report_name_the_model_and_print_no_nan(alias_run):
    _code, stdout, _stderr, out = alias_run
    report = (out / "REPORT.md").read_text()
    for text in (stdout, report):
        assert not re.search(r"\bnan\b", text, re.IGNORECASE) and "-0.000" not in text
        assert "no interval (--bootstrap 0)" in text
        assert "m = 10, Moran process with Fermi selection of intensity alpha = 20" in text
    assert "NaN" not in (out / "result.json").read_text()


def test_metagame_writes_a_payoff_table_openspiels_alpharank_reads(alias_run):
    from open_spiel.python.egt import alpharank as os_alpharank
    from open_spiel.python.egt import heuristic_payoff_table as hpt

    _code, _stdout, _stderr, out = alias_run
    table = hpt.from_heuristic_payoff_table(np.load(out / "openspiel_hpt.npy"))
    assert table.num_strategies == 2 and table.num_players == 2
    _rhos, _rm, pi_os, _n, _ = os_alpharank.compute([table], m=10, alpha=20.0, use_local_selection_model=False)
    mix = pd.read_csv(out / "mix.csv")
    assert mix["alpharank"].to_numpy() == pytest.approx(pi_os, rel=1e-9, abs=1e-15)


def test_metagame_refuses_a_pool_of_aliases_only_in_one_line(tmp_path, capsys):
    code = metagame_main(["--pool", "greedy,heuristic", "--players", "2", "--deals", "4", "--bootstrap", "0",
                          "--out", str(tmp_path / "o"), "--quiet"])
    err = capsys.readouterr().err.strip()
    assert code == 2 and "\n" not in err, err
    assert err.startswith("cya-sim metagame: error: --pool: every agent plays as 'greedy' (aliases: heuristic:"), err
    assert (tmp_path / "o" / "games" / "manifest.json").exists() and not (tmp_path / "o" / "REPORT.md").exists()


def test_metagame_keyboard_interrupt_ends_in_one_line_and_status_130(tmp_path, capsys, monkeypatch):
    import cya_sim.studies.metagame as study

    def interrupted(*_a, **_k):
        raise KeyboardInterrupt

    monkeypatch.setattr(study, "run_metagame", interrupted)
    code = metagame_main(["--pool", "greedy,random", "--out", str(tmp_path / "o"), "--quiet"])
    err = capsys.readouterr().err.strip()
    assert code == 130 and err == "interrupted; run the same command again to resume"


PROC = Path("/proc")


def _cpu_seconds(pid: int) -> float:
    try:
        stat = (PROC / str(pid) / "stat").read_text()
    except OSError:
        return 0.0
    fields = stat[stat.rindex(")") + 2:].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _interrupt_while_playing(cmd: list[str], out: Path, runs_before: int, chunks_at_least: int) -> tuple[int, str,
                                                                                                          float]:
    """Start ``cmd`` in its own session, wait until its run records itself running (and ``chunks_at_least``
    chunks are stored), send SIGINT to its group as a terminal's Ctrl-C does; (exit status, stderr, seconds)."""
    from cya_sim.results.folder import read_runs

    proc = subprocess.Popen(cmd, start_new_session=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.3)
            runs = read_runs(out / "games") if (out / "games" / "runs.json").exists() else []
            chunks = out / "games" / "chunks.json"
            done = len(json.loads(chunks.read_text())) if chunks.exists() and chunks.stat().st_size else 0
            if len(runs) > runs_before and runs[-1].get("status") == "running" and done >= chunks_at_least \
                    and _cpu_seconds(proc.pid) > 2.0:
                break
        assert proc.poll() is None, proc.communicate()[1]
        t0 = time.monotonic()
        os.killpg(proc.pid, signal.SIGINT)
        _, stderr = proc.communicate(timeout=10.0)
        return proc.returncode, stderr, time.monotonic() - t0
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=30)


@pytest.mark.slow
@pytest.mark.skipif(not PROC.is_dir() or not hasattr(os, "killpg"), reason="needs Linux /proc and process groups")
def test_sigint_during_metagame_games_ends_in_one_line_within_10_s_and_a_rerun_resumes(tmp_path):
    from cya_sim.results.folder import check_chunks, plan_of, read_manifest, read_runs

    out = tmp_path / "m"
    cmd = [sys.executable, "-m", "cya_sim.cli.main", "metagame", "--pool", "greedy,random", "--players", "2",
           "--deals", "5000000", "--bootstrap", "0", "--out", str(out)]
    code, stderr, seconds = _interrupt_while_playing(cmd, out, 0, 1)
    assert code == 130 and seconds < 10.0, stderr
    lines = [x for x in stderr.replace("\r", "\n").splitlines() if x.strip() and "game/s" not in x and "%|" not in x]
    assert lines[-1] == "interrupted; run the same command again to resume" and "Traceback" not in stderr, stderr
    check = check_chunks(out / "games", plan_of(read_manifest(out / "games")))
    assert check.good and not check.damaged and not check.foreign and not check.temporary
    first = read_runs(out / "games")
    assert [r["status"] for r in first] == ["interrupted"] and first[0]["chunks_played"] == len(check.good)

    # the same command again resumes: the finished chunks are skipped, not replayed
    code, stderr, seconds = _interrupt_while_playing(cmd, out, 1, 0)
    assert code == 130 and seconds < 10.0, stderr
    runs = read_runs(out / "games")
    assert runs[-1]["resumed"] is True and runs[-1]["chunks_skipped"] >= len(check.good), runs[-1]


@pytest.mark.slow
@pytest.mark.skipif(not PROC.is_dir() or not hasattr(os, "killpg"), reason="needs Linux /proc and process groups")
def test_sigint_during_the_metagame_bootstrap_ends_in_one_line_within_10_s(tmp_path):
    from cya_sim.results.folder import read_runs

    out = tmp_path / "b"
    cmd = [sys.executable, "-m", "cya_sim.cli.main", "metagame", "--pool", "greedy,random,card_counter", "--players",
           "2", "--deals", "50", "--bootstrap", "100000", "--out", str(out), "--quiet"]
    proc = subprocess.Popen(cmd, start_new_session=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.3)
            runs = read_runs(out / "games") if (out / "games" / "runs.json").exists() else []
            if runs and runs[-1].get("status") == "finished":
                break
        time.sleep(3.0)  # in the bootstrap (100,000 replications: minutes)
        assert proc.poll() is None, proc.communicate()[1]
        t0 = time.monotonic()
        os.killpg(proc.pid, signal.SIGINT)
        _, stderr = proc.communicate(timeout=10.0)
        seconds = time.monotonic() - t0
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=30)
    assert proc.returncode == 130 and seconds < 10.0, stderr
    assert stderr.strip() == "interrupted; run the same command again to resume", stderr
    assert not (out / "REPORT.md").exists()


@pytest.mark.slow
def test_dominance_test_false_positive_rate_on_simulated_nulls_is_at_most_its_level():
    """Two agents of equal strength (each wins a game of their line-up with probability 1/2; 40 deals of 2 games):
    "dominated" is claimed for either of them in at most 5% of 600 simulated nulls (binomial slack of 3 standard
    errors), and against an agent that wins a quarter of the games it is claimed in at least 90% of 200 runs.
    Measured on 2026-12-01: 4.5% and 99.5% (the rate is at most the level by Holm over the two ordered pairs)."""
    from cya_sim.studies.metagame import dominance_tests

    rng = np.random.default_rng(1)
    counts = np.array([[2, 0], [1, 1], [0, 2]])
    seats = counts * 2  # seat-games per deal: 2 games a deal, both seats of a line-up

    def claimed(deals: int, p0: float) -> bool:
        w0 = rng.binomial(2, p0, size=deals).astype(float)  # agent a's wins of the 2 mixed games of a deal
        sums = np.zeros((deals, 3, 2))
        sums[:, 0, 0] = sums[:, 2, 1] = 2.0  # a table of one agent: it wins every game
        sums[:, 1, 0], sums[:, 1, 1] = w0, 2.0 - w0
        return bool(dominance_tests(counts, sums, seats, ("a", "b"))["dominated"].any())

    n = 600
    rate = sum(claimed(40, 0.5) for _ in range(n)) / n
    assert rate <= 0.05 + 3 * (0.05 * 0.95 / n) ** 0.5, rate
    power = sum(claimed(40, 0.25) for _ in range(200)) / 200
    assert power >= 0.9, power
