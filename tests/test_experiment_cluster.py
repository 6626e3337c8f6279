"""A real Dask scheduler and two worker processes on loopback play the same games as a local run."""

from __future__ import annotations

import distributed
import pandas as pd
import pytest

from cya_sim.cli.experiment import tournament_main
from cya_sim.results.folder import load_games, read_runs
from cya_sim.runs.experiment import ExperimentError, apply_overrides, parse_experiment
from cya_sim.runs.runner import run_experiment

DOC = {"name": "clustered", "seed": 13, "games": 30, "players": 3, "agents": ["random", "greedy"],
       "design": {"kind": "round_robin", "repeats": True},
       "run": {"engine": "reference", "workers": 1, "chunk_size": 4}}


def experiment(out, **changes):
    return parse_experiment(apply_overrides(DOC, {"out": str(out), **changes}))


def test_cluster_run_equals_local_run(tmp_path, capsys):
    local = tmp_path / "local"
    run_experiment(experiment(local), progress=False)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                  dashboard_address=None) as cluster:
        address = cluster.scheduler_address
        assert address.startswith("tcp://127.0.0.1:")
        remote = tmp_path / "remote"
        r = run_experiment(experiment(remote, **{"run.scheduler": address}), progress=False)
        assert r.executor == f"dask {address}" and r.games_played == 30
        pd.testing.assert_frame_equal(load_games(remote), load_games(local))
        # the command line, resuming a half-finished cluster run on the cluster
        cli = tmp_path / "cli"
        toml = tmp_path / "e.toml"
        toml.write_text(experiment(cli).to_toml())
        run_experiment(experiment(cli, games=30), progress=False, on_chunk=lambda i: None)
        for f in sorted((cli / "games.parquet").glob("chunk-*.parquet"))[::2]:
            f.unlink()
        assert tournament_main([str(toml), "--scheduler", address, "--no-report"]) == 0
        assert "dask" in read_runs(cli)[-1]["executor"] and read_runs(cli)[-1]["chunks_played"] == 4
    pd.testing.assert_frame_equal(load_games(cli), load_games(local))


def test_unreachable_scheduler_is_refused_before_anything_is_written(tmp_path, monkeypatch, capsys):
    import cya_sim.runs.runner

    monkeypatch.setattr(cya_sim.runs.runner, "SCHEDULER_TIMEOUT_S", 0.5)
    out = tmp_path / "res"
    with pytest.raises(ExperimentError) as e:
        run_experiment(experiment(out, **{"run.scheduler": "tcp://127.0.0.1:9"}), progress=False)
    assert e.value.field == "run.scheduler" and not out.exists()
    toml = tmp_path / "e.toml"
    toml.write_text(experiment(out).to_toml())
    assert tournament_main([str(toml), "--scheduler", "tcp://127.0.0.1:9"]) == 2
    assert "field 'run.scheduler' (--scheduler): cannot reach" in capsys.readouterr().err
    assert not out.exists()
