"""``cya-sim tune`` (issue 22): search spaces, candidate specs, the held-out statistics, resume, and errors."""

from __future__ import annotations

import json
import sys
import textwrap

import numpy as np
import optuna
import pandas as pd
import pytest

from cya_sim.cli.tune import tune_main
from cya_sim.game.rng import root_key
from cya_sim.game.rules import get_rules
from cya_sim.studies.tune import (
    FAMILY_SPACES,
    STUDY_FILE,
    STUDY_NAME,
    Dimension,
    TuneConfig,
    TuneError,
    candidate_spec,
    heldout_coverage,
    open_study,
    paired_gains,
    parse_dimension,
    play_candidate,
    resolve_space,
    run_tune,
)


def test_parse_dimension_forms_and_refusals():
    assert parse_dimension("backup=bool") == Dimension("backup", "bool")
    assert parse_dimension("min_gain=-5000:5000:500") == Dimension("min_gain", "int", -5000, 5000, 500)
    assert parse_dimension("a=0:1.5") == Dimension("a", "float", 0.0, 1.5, None)
    assert parse_dimension("a=0:10").kind == "int"
    for bad in ("backup", "a=1:0", "a=0:x", "a=0:1:0", "a=0:1:2:3"):
        with pytest.raises(TuneError):
            parse_dimension(bad)


def test_resolve_space_families_fix_and_unknown():
    h = resolve_space("heuristic")
    assert [d.name for d in h] == [d.name for d in FAMILY_SPACES["heuristic"]] and len(h) == 14
    assert sum(d.kind == "bool" for d in h) == 11
    h2 = resolve_space("heuristic", [parse_dimension("cover_min=0:50000:10000")], ["backup", "count"])
    assert len(h2) == 12 and next(d for d in h2 if d.name == "cover_min").high == 50000
    assert [d.name for d in resolve_space("card_counter")] == ["min_gain", "infer_hidden"]
    with pytest.raises(TuneError, match="unknown parameter of heuristic"):
        resolve_space("heuristic", [parse_dimension("agression=0:3")])
    with pytest.raises(TuneError, match="a switch"):
        resolve_space("heuristic", [parse_dimension("backup=0:3")])
    with pytest.raises(TuneError, match="greedy has none"):
        resolve_space("greedy")
    with pytest.raises(TuneError, match="unknown agent"):
        resolve_space("heurstic")


def test_candidate_spec_is_pasteable_and_drops_defaults():
    assert candidate_spec("heuristic", {"backup": True, "count": False, "cover_min": 40_000}) == "heuristic(backup=true)"
    assert candidate_spec("heuristic(count=true)", {"backup": False}) == "heuristic(count=true)"
    assert candidate_spec("card_counter", {"min_gain": 2500, "infer_hidden": True}) == "card_counter(min_gain=2500)"
    assert candidate_spec("heuristic", {}) == "heuristic"


def test_paired_gains_are_the_mean_paired_difference():
    rng = np.random.default_rng(3)
    wins = rng.uniform(size=(3, 50))
    arms, gains = paired_gains(wins, ["a", "b", "c"])
    d = wins[0] - wins[1]
    assert gains["gain"].iloc[0] == pytest.approx(d.mean())
    half = 2.009575 * d.std(ddof=1) / np.sqrt(50)  # t(0.975, 49)
    assert gains["high"].iloc[0] - gains["gain"].iloc[0] == pytest.approx(half, rel=1e-4)
    assert arms["win_rate"].tolist() == pytest.approx(wins.mean(axis=1).tolist())
    assert (gains["p_holm"] >= gains["p"]).all()


def _cfg(tmp_path, **kw) -> TuneConfig:
    base = {"agent": "heuristic", "field": ("card_counter",), "players": 2, "out": tmp_path / "t",
            "space": resolve_space("heuristic", (), ["cover_min", "let_go_max", "first_set_min"]), "trials": 4,
            "trial_deals": 40, "heldout_deals": 60, "compare": ("greedy",), "seed": 5}
    base.update(kw)
    return TuneConfig(**base)


def test_tune_runs_resumes_and_its_heldout_equals_direct_play(tmp_path):
    cfg = _cfg(tmp_path)
    r = run_tune(cfg, progress=False, command="test")
    assert len(r.trials) == 4 and r.trials["spec"].iloc[0] == "heuristic"  # the baseline is trial 0
    assert r.best_value == pytest.approx(r.trials["value"].max())
    # the held-out games (the run layer, duplicate deals 0..59) equal direct play of the same deals
    direct = play_candidate("heuristic", cfg, get_rules("classic"), np.arange(60), root_key(5))
    row = r.arms[r.arms["arm"] == "heuristic"]
    assert float(row["win_rate"].iloc[0]) == pytest.approx(direct.mean())
    assert list(r.heldout["versus"]) == (["heuristic", "greedy"] if r.best != "heuristic" else ["greedy"])
    for f in ("REPORT.md", "history.png", "trials.csv", "result.json", STUDY_FILE):
        assert (cfg.out / f).exists()
    doc = json.loads((cfg.out / "result.json").read_text())
    assert doc["best"] == r.best and doc["trials"] == 4
    # a trial left RUNNING by a killed process is failed and its parameters played again
    study = optuna.load_study(study_name=STUDY_NAME, storage=f"sqlite:///{cfg.out / STUDY_FILE}")
    orphan = study.ask()
    for d in cfg.space:
        orphan.suggest_categorical(d.name, [False, True])
    r2 = run_tune(_cfg(tmp_path, trials=6), progress=False)
    states = [t.state.name for t in study.get_trials()]
    assert states.count("FAIL") == 1 and states.count("COMPLETE") == 6 and len(r2.trials) == 6
    with pytest.raises(TuneError, match="another configuration"):
        open_study(_cfg(tmp_path, players=3))


def test_tune_resumes_after_sigkill(tmp_path):
    """A real SIGKILL during the trials: the rerun keeps every finished trial and completes the budget.

    Up to 300 s for three trials: the child may wait for the machine-wide compile lock while another test compiles.
    """
    import os
    import signal
    import sqlite3
    import subprocess
    import time
    from contextlib import closing

    out = tmp_path / "k"
    argv = [sys.executable, "-m", "cya_sim.cli.main", "tune", "--agent", "card_counter", "--field", "greedy",
            "--players", "2", "--trials", "400", "--trial-deals", "100", "--heldout-deals", "0", "--quiet",
            "--out", str(out)]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    storage = f"sqlite:///{out / STUDY_FILE}"
    done, t0 = 0, time.time()
    while done < 3 and time.time() - t0 < 300 and proc.poll() is None:
        time.sleep(0.5)
        if (out / STUDY_FILE).exists():
            # read-only, with sqlite3: optuna's own storage would create the schema too, racing the child's
            try:
                with closing(sqlite3.connect(f"file:{out / STUDY_FILE}?mode=ro", uri=True, timeout=1)) as db:
                    done = db.execute("SELECT count(*) FROM trials WHERE state = 'COMPLETE'").fetchone()[0]
            except sqlite3.Error:  # the schema is not written yet, or the child holds a write lock
                continue
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert done >= 3
    before = sum(t.state.name == "COMPLETE" for t in optuna.load_study(study_name=STUDY_NAME,
                                                                       storage=storage).get_trials())
    cfg = TuneConfig(agent="card_counter", field=("greedy",), players=2, out=out, space=resolve_space("card_counter"),
                     trials=before + 2, trial_deals=100, heldout_deals=0)
    r = run_tune(cfg, progress=False)
    assert len(r.trials) == before + 2 and r.trials["spec"].iloc[0] == "card_counter"


def test_heldout_interval_covers_on_real_games():
    """200 replications of 30 deals (24,000 games): 95% coverage within binomial noise (sd 1.5 points)."""
    c = heldout_coverage(reps=200, deals=30, players=2)
    assert 0.91 <= c["coverage"] <= 0.99, c
    assert c["rejections"] <= 0.09, c
    assert 0 < c["half_width"] < 0.2 and abs(c["truth"]) < 0.1


@pytest.mark.slow
def test_heldout_interval_covers_on_real_games_many_replications():
    for treatment, control, field in (("heuristic(count=true)", "heuristic", "greedy"),
                                      ("card_counter(min_gain=5000)", "card_counter", "greedy")):
        c = heldout_coverage(reps=1000, deals=30, players=2, treatment=treatment, control=control, field=field)
        assert 0.935 <= c["coverage"] <= 0.965, (treatment, c)


def test_tune_a_compiled_plugin_keeps_its_parameter_order(tmp_path, monkeypatch):
    (tmp_path / "tune_plug.py").write_text(textwrap.dedent('''
        from numba import njit
        from agents.classic.view import uniform

        @njit(cache=True)
        def decide(params, hdr, hand, values, unseen, seats, gave_up, mask, rng):
            n = 0
            for a in range(mask.shape[0]):
                n += mask[a]
            if uniform(rng) < params[1]:  # the first legal action, else a uniform legal one
                for a in range(mask.shape[0]):
                    if mask[a]:
                        return a
            k = int(uniform(rng) * n)
            for a in range(mask.shape[0]):
                k -= mask[a]
                if mask[a] and k < 0:
                    return a
            return 0
        '''))
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("CYA_SIM_CACHE_DIR", str(tmp_path / "cache"))
    agent = "tune_plug:decide(a=3, p=0.5)"
    with pytest.raises(TuneError, match="give --space"):
        resolve_space(agent)
    with pytest.raises(TuneError, match="not given that parameter"):
        resolve_space(agent, [parse_dimension("q=0:1")])
    space = resolve_space(agent, [parse_dimension("p=0:1")])
    assert candidate_spec(agent, {"p": 0.25}) == "tune_plug:decide(a=3, p=0.25)"
    r = run_tune(_cfg(tmp_path, agent=agent, field=("random",), space=space, trials=3, heldout_deals=0,
                      compare=()), progress=False)
    assert space[0].kind == "float" and r.trials["spec"].iloc[0] == agent  # the baseline first
    assert all(s.startswith("tune_plug:decide(a=3, p=") for s in r.trials["spec"])
    assert isinstance(r.heldout, pd.DataFrame) and not len(r.heldout)
    sys.modules.pop("tune_plug", None)


@pytest.mark.parametrize("argv, message", [
    (["--agent", "heurstic", "--field", "card_counter"], "unknown agent 'heurstic'"),
    (["--agent", "heuristic", "--field", "card_counter", "--space", "agression=0:3"], "unknown parameter"),
    (["--agent", "heuristic", "--field", ""], "--field is empty"),
    (["--agent", "heuristic", "--field", "card_counter", "--trials", "0"], "at least 1 trial"),
    (["--agent", "heuristic", "--field", "card_counter", "--trial-deals", "0"], "at least 1 deal"),
    (["--agent", "heuristic", "--field", "card_counter", "--sampler", "cmaes"], "numbers only"),
    (["--agent", "heuristic", "--field", "card_countr"], "unknown agent 'card_countr'"),
    (["--agent", "greedy", "--field", "card_counter"], "no parameter to search"),
])
def test_tune_refuses_bad_input_in_one_line(tmp_path, capsys, argv, message):
    code = tune_main([*argv, "--out", str(tmp_path / "o"), "--quiet"])
    err = capsys.readouterr().err.strip()
    assert code == 2 and message in err and "\n" not in err, err
    assert not (tmp_path / "o" / STUDY_FILE).exists()


def test_cli_refuses_more_field_specs_than_other_seats_in_one_line(tmp_path, capsys):
    out = tmp_path / "t"
    code = tune_main(["--agent", "card_counter", "--field", "greedy,random,heuristic", "--players", "3",
                      "--trials", "1", "--trial-deals", "1", "--heldout-deals", "0", "--out", str(out), "--quiet"])
    err = capsys.readouterr().err.strip()
    assert code == 2 and "\n" not in err
    assert err == ("cya-sim tune: error: --field: 3 specs given (greedy, random, heuristic) but a 3-player table has "
                   "2 other seats; give at most 2 (they are cycled over the other seats)")
    assert not out.exists()


def test_gym_env_refuses_more_opponents_than_other_seats_and_cuts_only_the_default():
    from cya_sim.env.gym import CoverYourAssetsGym, opponent_specs
    from cya_sim.env.vector import CoverYourAssetsVectorEnv

    with pytest.raises(ValueError, match=r"^opponents: 2 specs given \(greedy, random\) but the table has 1 other "
                                         r"seat; give at most 1"):
        CoverYourAssetsGym(n_players=2, opponents="greedy,random")
    with pytest.raises(ValueError, match="opponents: 3 specs given"):
        CoverYourAssetsVectorEnv(num_envs=2, n_players=3, opponents="greedy,random,card_counter")
    for bad in (5, b"greedy", {"a": 1}):
        with pytest.raises(ValueError, match=r"^opponents: .*allowed: None \(the default\), agent specs"):
            CoverYourAssetsGym(n_players=3, opponents=bad)
    assert opponent_specs(None, 1) == ["greedy"]  # the default list is cut to the table
    assert opponent_specs("greedy,random", 3) == ["greedy", "random", "greedy"]


def _cc_cfg(out, **kw) -> TuneConfig:
    base = {"agent": "card_counter", "field": ("greedy",), "players": 2, "out": out,
            "space": resolve_space("card_counter"), "trials": 8, "trial_deals": 4, "heldout_deals": 0, "seed": 11}
    base.update(kw)
    return TuneConfig(**base)


def test_interrupted_and_resumed_tune_equals_an_uninterrupted_one_and_never_replays_a_spec(tmp_path, monkeypatch):
    from cya_sim.studies import tune

    whole = run_tune(_cc_cfg(tmp_path / "whole"), progress=False)
    played: list[str] = []
    real = tune.play_candidate

    def counting(spec, *a, **k):
        played.append(spec)
        if len(played) == 4:
            raise KeyboardInterrupt  # Ctrl-C inside the fourth trial
        return real(spec, *a, **k)

    monkeypatch.setattr(tune, "play_candidate", counting)
    with pytest.raises(KeyboardInterrupt):
        run_tune(_cc_cfg(tmp_path / "cut"), progress=False)
    # a trial left RUNNING by a SIGKILL as well: failed on resume, never counted
    study = optuna.load_study(study_name=STUDY_NAME, storage=f"sqlite:///{tmp_path / 'cut' / STUDY_FILE}")
    orphan = study.ask()
    orphan.suggest_int("min_gain", -50_000, 50_000, step=2_500)
    resumed = run_tune(_cc_cfg(tmp_path / "cut"), progress=False)
    states = [t.state.name for t in study.get_trials()]
    assert states.count("FAIL") == 2 and states.count("COMPLETE") == 8
    assert resumed.best == whole.best and resumed.best_value == whole.best_value
    assert list(resumed.trials["spec"]) == list(whole.trials["spec"])
    assert list(resumed.trials["value"]) == list(whole.trials["value"])
    # every spec was played once over both invocations, but the one cut by Ctrl-C (drawn and played again);
    # a repeated suggestion reuses the value of the trial it repeats
    repeats = resumed.trials["repeat_of"].notna()
    assert played.count(played[3]) == 2 and len(set(played)) == len(played) - 1
    assert len(played) == 1 + (~repeats).sum()
    assert resumed.trials.loc[~repeats, "spec"].is_unique
    n_rep = int(repeats.sum())
    report = (tmp_path / "cut" / "REPORT.md").read_text()
    assert (f"{n_rep} of them drew a spec already evaluated" in report) == (n_rep > 0)
    for _, row in resumed.trials[repeats].iterrows():
        first = resumed.trials[resumed.trials["number"] == row["repeat_of"]].iloc[0]
        assert first["spec"] == row["spec"] and first["value"] == row["value"]


def test_sampler_seed_depends_on_the_seed_and_the_count_of_finished_trials_only():
    from cya_sim.studies.tune import sampler_seed

    assert sampler_seed(1, 3) == sampler_seed(1, 3)
    assert len({sampler_seed(1, k) for k in range(50)} | {sampler_seed(2, 0)}) == 51
    assert 0 <= sampler_seed(2**63 - 1, 10**6) < 2**32


@pytest.mark.slow
def test_tune_killed_by_sigkill_and_resumed_ends_as_an_uninterrupted_run(tmp_path):
    """The issue's case: with a seed, SIGKILL during the trials, the same command again: before, the resumed study
    re-evaluated candidates (29 distinct of 30) and differed from an uninterrupted one."""
    import os
    import signal
    import sqlite3
    import subprocess
    import time
    from contextlib import closing

    def cfg(out):
        return TuneConfig(agent="heuristic", field=("greedy",), players=2, out=out, space=resolve_space("heuristic"),
                          trials=30, trial_deals=200, heldout_deals=0, seed=3)

    out = tmp_path / "k"
    argv = [sys.executable, "-m", "cya_sim.cli.main", "tune", "--agent", "heuristic", "--field", "greedy",
            "--players", "2", "--trials", "30", "--trial-deals", "200", "--heldout-deals", "0", "--seed", "3",
            "--quiet", "--out", str(out)]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    t0 = time.time()
    while time.time() - t0 < 300 and proc.poll() is None and not (out / STUDY_FILE).exists():
        time.sleep(0.2)
    done = 0
    while time.time() - t0 < 300 and proc.poll() is None and done < 4:
        time.sleep(0.2)
        try:  # read-only: optuna's own storage would create the schema too, racing the child
            with closing(sqlite3.connect(f"file:{out / STUDY_FILE}?mode=ro", uri=True, timeout=1)) as db:
                done = db.execute("SELECT count(*) FROM trials WHERE state = 'COMPLETE'").fetchone()[0]
        except sqlite3.Error:
            continue
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert 4 <= done < 30
    resumed = run_tune(cfg(out), progress=False)
    whole = run_tune(cfg(tmp_path / "whole"), progress=False)
    assert resumed.best == whole.best and list(resumed.trials["spec"]) == list(whole.trials["spec"])
    assert len(resumed.trials) == 30 and resumed.trials.loc[resumed.trials["repeat_of"].isna(), "spec"].is_unique


BIG = "9" * 4400  # beyond Python's 4,300-digit limit of int(str)


@pytest.mark.parametrize("extra, message", [
    (["--option", f"max_rounds={BIG}"], "--option max_rounds: an integer of more than 4,300 digits"),
    (["--space", f"min_gain=0:{BIG}"], "needs finite LO < HI"),
    (["--trial-deals", "100000000000000000000"], "--trial-deals 100,000,000,000,000,000,000: a trial plays deals x P"),
    (["--heldout-deals", "100000000"], "--heldout-deals 100,000,000: the held-out run plays deals x arms x P"),
    (["--trials", "10000000"], "--trials 10,000,000: give at most 1,000,000 trials"),
    (["--workers", "100000000"], "--workers 100,000,000: give 1 to 1,024 processes"),
    (["--compare", ", ,"], "--compare ', ,': no agent spec in it"),
])
def test_tune_refuses_out_of_range_numbers_in_one_short_line(tmp_path, capsys, extra, message):
    code = tune_main(["--agent", "card_counter", "--field", "greedy", "--players", "2", "--trials", "1",
                      "--trial-deals", "2", "--heldout-deals", "0", *extra, "--out", str(tmp_path / "o"), "--quiet"])
    err = capsys.readouterr().err.strip()
    assert code == 2 and message in err and "\n" not in err and len(err) < 400, err
    assert not (tmp_path / "o" / STUDY_FILE).exists()
