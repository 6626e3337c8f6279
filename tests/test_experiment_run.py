"""Running experiments: chunk files, resume, independence from workers and chunking, refused folders, CLI."""

from __future__ import annotations

import json
import os

import numpy as np
import pandas as pd
import pytest

from cya_sim.cli.experiment import report_main, tournament_main
from cya_sim.reports.report import build_report
from cya_sim.results.folder import GAMES_DIR, MANIFEST, chunk_file, load_games, read_manifest, read_runs
from cya_sim.runs.experiment import ExperimentError, apply_overrides, parse_experiment
from cya_sim.runs.runner import run_experiment

DOC = {"name": "small", "seed": 5, "games": 24, "players": 4, "agents": ["random", "greedy"],
       "design": {"kind": "round_robin", "repeats": True},
       "run": {"engine": "reference", "workers": 1, "chunk_size": 5}}


def experiment(out, **changes):
    return parse_experiment(apply_overrides(DOC, {"out": str(out), **changes}))


def write_toml(path, out, **changes) -> None:
    exp = experiment(out, **changes)
    path.write_text(exp.to_toml())


def snapshot(folder) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def finished(tmp_path_factory):
    """One uninterrupted run of DOC, with its report."""
    out = tmp_path_factory.mktemp("finished") / "res"
    run_experiment(experiment(out), progress=False)
    build_report(out)
    return out


def test_run_writes_one_file_per_chunk_and_a_manifest(finished):
    files = sorted(p.name for p in (finished / GAMES_DIR).iterdir())
    assert files == [chunk_file(i) for i in range(5)]  # 24 games in chunks of 5
    m = read_manifest(finished)
    assert m["seed"] == 5 and m["cya_sim_version"] and m["experiment"]["name"] == "small"
    assert m["chunk_size"] == 5 and m["n_chunks"] == 5 and m["total_games"] == 24
    g = load_games(finished)
    assert g["game"].tolist() == list(range(24)) and g["deal"].tolist() == list(range(24))
    assert g[[f"seat_{s}_win_share" for s in range(4)]].sum(axis=1).to_numpy() == pytest.approx(np.ones(24))
    runs = read_runs(finished)
    assert len(runs) == 1 and runs[0]["chunks_played"] == 5 and runs[0]["games_played"] == 24
    for name in ("summary.csv", "pairwise.csv", "seats.csv", "win_rates.png", "pairwise.png", "totals.png",
                 "seats.png", "rounds.png", "REPORT.md", "experiment.toml"):
        assert (finished / name).stat().st_size > 0, name
    text = (finished / "REPORT.md").read_text()
    assert "seed: **5**" in text and "cya-sim report" in text and "![win rates](win_rates.png)" in text


def test_resume_plays_only_missing_chunks(finished, tmp_path):
    out = tmp_path / "res"
    run_experiment(experiment(out), progress=False)
    for i in (1, 3):
        (out / GAMES_DIR / chunk_file(i)).unlink()
    (out / GAMES_DIR / ".tmp-leftover").write_bytes(b"half a file")
    played = []
    r = run_experiment(experiment(out), progress=False, on_chunk=played.append)
    assert sorted(played) == [1, 3] and r.resumed and r.chunks_skipped == 3 and r.games_played == 10
    assert not (out / GAMES_DIR / ".tmp-leftover").exists()
    pd.testing.assert_frame_equal(load_games(out), load_games(finished))
    again = run_experiment(experiment(out), progress=False, on_chunk=played.append)
    assert again.games_played == 0 and sorted(played) == [1, 3]


def test_results_do_not_depend_on_workers_or_chunking(finished, tmp_path):
    out = tmp_path / "res"
    run_experiment(experiment(out, **{"run.workers": 2, "run.chunk_size": 7}), progress=False)
    pd.testing.assert_frame_equal(load_games(out), load_games(finished))


def test_refused_folders_are_left_untouched(finished, tmp_path):
    a_file = tmp_path / "file"
    a_file.write_text("x")
    with pytest.raises(ExperimentError, match="is a file") as e:
        run_experiment(experiment(a_file), progress=False)
    assert e.value.field == "out" and a_file.read_text() == "x"
    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.txt").write_text("mine")
    with pytest.raises(ExperimentError, match="not cya-sim results"):
        run_experiment(experiment(other), progress=False)
    assert snapshot(other) == {"notes.txt": b"mine"}
    before = snapshot(finished)
    for changes, words in (({"seed": 6}, "seed 5 there, 6 here"), ({"games": 28}, "games 24 there, 28 here"),
                           ({"agents": ["greedy", "random"]}, "another experiment")):
        with pytest.raises(ExperimentError, match=words):
            run_experiment(experiment(finished, **changes), progress=False)
    with pytest.raises(ExperimentError) as e:
        run_experiment(experiment(finished, **{"run.chunk_size": 6}), progress=False)
    assert e.value.field == "run.chunk_size"
    assert snapshot(finished) == before


def test_duplicate_deals_replay_the_same_cards(tmp_path):
    out = tmp_path / "dup"
    run_experiment(experiment(out, **{"design.duplicate": True}), progress=False)
    g = load_games(out)
    assert g["deal"].tolist() == [0] * 12 + [1] * 12
    assert g.groupby("deal")["first_dealer"].nunique().eq(1).all()
    v = build_report(out).analysis.variance
    assert set(v["metric"]) == {"win_share", "total"}


# -- command line --------------------------------------------------------------------
def test_cli_runs_resumes_and_reports(tmp_path, capsys):
    out = tmp_path / "res"
    toml = tmp_path / "e.toml"
    write_toml(toml, out)
    assert tournament_main([str(toml), "--quiet", "--games", "12", "--chunk-size", "4"]) == 0
    assert read_manifest(out)["experiment"]["games"] == 12
    assert read_runs(out)[0]["command"] == f"cya-sim tournament {toml} --quiet --games 12 --chunk-size 4"
    summary = (out / "summary.csv").read_bytes()
    (out / "summary.csv").unlink()
    (out / "REPORT.md").unlink()
    assert report_main([str(out), "--quiet"]) == 0
    assert (out / "summary.csv").read_bytes() == summary and (out / "REPORT.md").exists()
    assert tournament_main([str(toml), "--games", "12", "--chunk-size", "4"]) == 0  # resume: nothing to play
    text = capsys.readouterr().out
    assert "resuming" in text and "played 0 games" in text
    assert len(read_runs(out)) == 2


@pytest.mark.parametrize(("flags", "words"), [
    (["--games", "0"], "field 'games' (--games): 0; it must be an integer from 1 to 100,000,000"),
    (["--games", "many"], "field 'games' (--games): 'many'"),
    (["--seed", "-3"], "field 'seed' (--seed)"),
    (["--players", "1"], "field 'players' (--players): 1; give an integer from 2 to 12"),
    (["--agents", "random,nobody"], "field 'agents[1]': unknown agent 'nobody'"),
    (["--rules", "clasic"], "field 'rules.preset' (--rules)"),
    (["--design", "swiss"], "field 'design.kind' (--design)"),
    (["--engine", "gpu"], "field 'run.engine' (--engine)"),
    (["--workers", "0"], "field 'run.workers' (--workers)"),
    (["--chunk-size", "x"], "field 'run.chunk_size' (--chunk-size)"),
    (["--scheduler", "nowhere"], "field 'run.scheduler' (--scheduler)"),
    (["--set", "design.kind=swiss"], "field 'design.kind'"),
    (["--set", "novalue"], "--set: 'novalue' is not FIELD=VALUE"),
    (["--set", "colour=1"], "field 'colour': unknown field"),
])
def test_cli_refuses_bad_input_with_one_line_and_exit_2(tmp_path, capsys, flags, words):
    out = tmp_path / "res"
    toml = tmp_path / "e.toml"
    write_toml(toml, out)
    assert tournament_main([str(toml), *flags]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and words in err, err
    assert not out.exists()


def test_cli_refuses_missing_file_and_another_experiments_folder(tmp_path, finished, capsys):
    assert tournament_main([str(tmp_path / "none.toml")]) == 2
    assert "field 'file': cannot read" in capsys.readouterr().err
    toml = tmp_path / "e.toml"
    write_toml(toml, finished, seed=99)
    before = snapshot(finished)
    assert tournament_main([str(toml)]) == 2
    assert "holds the results of another experiment" in capsys.readouterr().err
    assert snapshot(finished) == before


def test_report_refuses_a_folder_without_results(tmp_path, capsys):
    assert report_main([str(tmp_path)]) == 2
    assert "not a cya-sim results folder" in capsys.readouterr().err
    (tmp_path / MANIFEST).write_text(json.dumps({"kind": "something else"}))
    assert report_main([str(tmp_path)]) == 2
    capsys.readouterr()
    # a missing folder and a file are named as what they are (a new user's finding: "holds no manifest.json" and
    # "'x.txt/manifest.json' cannot be read ... Not a directory")
    missing, a_file = tmp_path / "missing", tmp_path / "x.txt"
    a_file.write_text("x")
    assert report_main([str(missing)]) == 2 and report_main([str(a_file)]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err == [(f"cya-sim report: error: {str(missing)!r} does not exist; give a cya-sim results folder (one a run "
                   "wrote with --out)"),
                   (f"cya-sim report: error: {str(a_file)!r} is a file, not a folder; give a cya-sim results folder (one "
                   "a run wrote with --out)")]
    assert not missing.exists() and a_file.read_text() == "x"


def test_incomplete_folder_reports_what_it_has(finished, tmp_path):
    out = tmp_path / "part"
    run_experiment(experiment(out), progress=False)
    for i in (2, 3, 4):
        os.remove(out / GAMES_DIR / chunk_file(i))
    rep = build_report(out)
    assert not rep.complete and rep.games_stored == 10 and rep.games_total == 24
    assert "incomplete" in (out / "REPORT.md").read_text()
    assert np.array_equal(load_games(out)["game"], np.arange(10))


def test_a_table_of_one_agent_is_reported_without_pairs_or_ratings(tmp_path):
    out = tmp_path / "solo"
    run_experiment(experiment(out, games=6, players=None,
                              design={"kind": "explicit", "tables": [["greedy", "greedy", "greedy"]]}),
                   progress=False)
    rep = build_report(out)
    s = rep.analysis.summary
    assert s["agent"].tolist() == ["greedy"] and s["seat_share"].iloc[0] == pytest.approx(1 / 3)
    assert s["game_win_rate"].iloc[0] == pytest.approx(1.0) and s["game_win_rate_fair"].iloc[0] == 1.0
    text = (out / "REPORT.md").read_text()
    assert "No two different agents met" in text and "a rating needs at least two agents" in text


def test_cya_sim_delegates_experiment_files_and_report(tmp_path, capsys):
    from cya_sim.cli.main import main

    out = tmp_path / "res"
    toml = tmp_path / "e.toml"
    write_toml(toml, out)
    assert main(["tournament", "--quiet", str(toml), "--games", "8"]) == 0
    assert read_manifest(out)["experiment"]["games"] == 8 and (out / "REPORT.md").exists()
    (out / "REPORT.md").unlink()
    assert main(["report", str(out), "--quiet"]) == 0 and (out / "REPORT.md").exists()
    assert main(["tournament", str(toml), "--games", "-1"]) == 2
    assert "field 'games' (--games)" in capsys.readouterr().err


def test_experiment_argument_skips_the_values_of_flags():
    from cya_sim.cli.main import experiment_argument

    assert experiment_argument(["experiments/x.toml", "--games", "5"]) == 0
    assert experiment_argument(["--quiet", "x.toml"]) == 1
    assert experiment_argument(["--deck", "my_deck.toml", "--games", "5"]) is None
    assert experiment_argument(["--games", "5", "--out", "results/x"]) is None
    assert experiment_argument([]) is None
    # the experiment-file form's own flags may come before the file too (a new user's finding, 2026-12-02: the
    # address, the FIELD=VALUE and the design kind were taken for the file)
    assert experiment_argument(["--scheduler", "tcp://127.0.0.1:9", "x.toml", "--out", "y"]) == 2
    assert experiment_argument(["--set", "run.workers=1", "--set", "seed=3", "x.toml"]) == 4
    assert experiment_argument(["--design", "round_robin", "--no-report", "x.toml"]) == 3


@pytest.mark.parametrize("flag", [["--scheduler", "tcp://127.0.0.1:9"], ["--scheduler=tcp://127.0.0.1:9"],
                                  ["--set", "seed=3"], ["--design", "explicit"], ["--no-report"], ["--duplicate"]])
def test_a_flag_of_the_experiment_file_form_is_refused_without_a_file(tmp_path, capsys, flag):
    """One line naming the flag, exit 2, nothing written; before, argparse said "expected one argument" or
    "unrecognized arguments" under the wrong program name."""
    from cya_sim.cli.main import main

    out = tmp_path / "x"
    assert main(["tournament", "--games", "8", "--out", str(out), *flag]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    name = flag[0].split("=")[0]
    assert err == [(f"cya-sim tournament: error: {name} works with an experiment file only (cya-sim tournament "
                   f"experiments/<name>.toml {name} ...); see `cya-sim tournament --help`")]
    assert not out.exists()


def test_load_games_equals_pandas_read_parquet_over_several_table_sizes(tmp_path):
    out = tmp_path / "sizes"
    run_experiment(experiment(out, games=6, players=[3, 4]), progress=False)
    mine = load_games(out)
    theirs = pd.read_parquet(out / GAMES_DIR).sort_values("game").reset_index(drop=True)
    assert list(mine.columns) == list(theirs.columns) and len(mine) == 12
    for c in mine.columns:
        a, b = mine[c], theirs[c]
        if isinstance(a.dtype, pd.CategoricalDtype) or isinstance(b.dtype, pd.CategoricalDtype):
            a, b = a.astype(object), b.astype(object)
        pd.testing.assert_series_equal(a, b, check_dtype=False, check_names=False, obj=c)
    assert mine["seat_3_agent"].isna().tolist() == [True] * 6 + [False] * 6
    assert load_games(out, columns=["players"]).columns.tolist() == ["game", "players"]


def test_a_run_killed_while_writing_its_manifest_can_start_again(tmp_path):
    out = tmp_path / "res"
    out.mkdir()
    (out / ".tmp-abc123").write_text('{"half": ')
    r = run_experiment(experiment(out, games=4), progress=False)
    assert not r.resumed and r.games_played == 4
    assert sorted(p.name for p in out.iterdir()) == [".cya-sim.lock", "chunks.json", GAMES_DIR, MANIFEST, "runs.json"]


@pytest.mark.slow
def test_batched_and_reference_engines_store_identical_games(tmp_path):
    pytest.importorskip("cya_sim.engine.batched")
    ref, bat = tmp_path / "ref", tmp_path / "bat"
    run_experiment(experiment(ref, games=48, **{"design.duplicate": True}), progress=False)
    run_experiment(experiment(bat, games=48, **{"design.duplicate": True, "run.engine": "batched"}), progress=False)
    pd.testing.assert_frame_equal(load_games(bat), load_games(ref))


def test_a_small_run_of_built_in_compiled_agents_plays_in_this_process_unless_workers_are_asked(tmp_path):
    """run_workers: starting a worker costs about a second, so a run of at most SMALL_RUN_GAMES games of built-in
    compiled policies on the batched engine plays in the calling process when run.workers is not set; asked workers,
    a bigger run, a search agent or a Python agent keep worker_count's answer."""
    from cya_sim.runs.runner import SMALL_RUN_GAMES, ChunkTask, run_workers
    from cya_sim.runs.schedule import Schedule, plan_chunks, worker_count

    def workers(games, agents, engine="batched", **run):
        doc = {**DOC, "out": str(tmp_path / "w"), "games": games, "agents": agents,
               "run": {"engine": engine, "chunk_size": 2000, **run}}  # run.workers not set unless given
        exp = parse_experiment(doc)
        sched = Schedule.of(exp)
        tasks = [ChunkTask(i, a, b, engine, exp.rules, exp.agents, sched, 1, 4)
                 for i, (a, b) in enumerate(plan_chunks(sched, 2000))]
        return run_workers(exp, engine, tasks), worker_count(exp.run.workers, len(tasks))

    if worker_count(None, 2) < 2:
        pytest.skip("one core: every run plays in this process")
    assert workers(4000, ["greedy", "random"]) == (1, 2)
    assert workers(4000, ["card_counter", "heuristic(count=true)"]) == (1, 2)
    assert workers(4000, ["greedy", "random"], workers=2) == (2, 2)
    assert workers(SMALL_RUN_GAMES + 2000, ["greedy", "random"])[0] == worker_count(None, 11)
    assert workers(4000, ["greedy", "ismcts(iterations=5)"]) == (2, 2)
    assert workers(4000, ["greedy", "agents.classic.random_agent:RandomAgent"]) == (2, 2)
    assert workers(4000, ["greedy", "random"], engine="reference") == (2, 2)


def test_a_report_stopped_half_way_leaves_no_report_md(finished, tmp_path, monkeypatch):
    """REPORT.md is written last and an older one is removed first, so a folder that has one holds a whole report;
    before, Ctrl-C in the report left the CSVs of one report beside the REPORT.md of another (a new user's
    finding), and runs.json says 'finished' once the games are stored."""
    import shutil

    from cya_sim.reports import report

    out = tmp_path / "copy"
    shutil.copytree(finished, out)
    before = (out / "REPORT.md").read_text()

    def stop(*a, **k):
        raise KeyboardInterrupt

    monkeypatch.setattr(report, "save_all", stop)
    with pytest.raises(KeyboardInterrupt):
        build_report(out)
    assert not (out / "REPORT.md").exists() and (out / "summary.csv").exists()
    monkeypatch.undo()
    build_report(out)
    assert (out / "REPORT.md").read_text() == before.replace(str(finished), str(out))


def test_report_layer_imported_while_the_games_play():
    """issue 33 item 4: the tournament's on_chunk hook imports the report layer in one daemon thread, started at
    the first stored chunk and never again, so its imports overlap the games instead of following the last one."""
    import sys
    import threading

    from cya_sim.cli.experiment import report_layer_importer

    name = "cya-sim report imports"
    hook = report_layer_importer()
    before = sum(t.name == name for t in threading.enumerate())
    hook(0)
    hook(1)
    hook(2)
    started = [t for t in threading.enumerate() if t.name == name]
    assert len(started) - before <= 1  # one thread at most (it may already have ended)
    for t in started:
        assert t.daemon
        t.join(timeout=120)
    assert "cya_sim.reports.report" in sys.modules
    from cya_sim.reports.report import DEFERRED_IMPORTS

    assert all(m in sys.modules for m in DEFERRED_IMPORTS)  # the rating's GLM too, imported inside a function


def test_report_of_a_folder_without_games_names_the_folder(tmp_path, capsys):
    """A results folder whose chunks are gone: one line naming the folder, exit status 2."""
    out = tmp_path / "res"
    toml = tmp_path / "e.toml"
    write_toml(toml, out)
    assert tournament_main([str(toml), "--quiet", "--games", "12", "--chunk-size", "4", "--no-report"]) == 0
    for f in (out / GAMES_DIR).iterdir():
        f.unlink()
    capsys.readouterr()
    assert report_main([str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [(f"cya-sim report: error: {str(out)!r} holds no stored game yet; run its tournament first (the same "
                   "command resumes it)")]
