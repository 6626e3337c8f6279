"""``cya-sim leaderboard`` on a real Dask scheduler and two worker processes on loopback: the cells and alias
probes play the same games as a local run, a board started locally resumes on the cluster, and a scheduler that
does not answer is refused in one line before anything is written."""

from __future__ import annotations

import shutil

import distributed
import pandas as pd
import pytest

from cya_sim.cli.leaderboard import leaderboard_main
from cya_sim.results.folder import load_games, read_runs
from cya_sim.studies.leaderboard import LeaderboardError, alias_probe, cell_experiment, parse_board, run_board

DOC = {"name": "clustered", "seed": 31, "agents": ["greedy", "random"], "presets": ["classic"], "players": [2],
       "cycles": 6, "alias_deals": 2, "workers": 1}
TOML = """name = "clustered"
seed = 31
agents = ["greedy", "random"]
presets = ["classic"]
players = [2]
cycles = 6
alias_deals = 2
workers = 1
"""
CELL = ("cells", "classic-2p")
PROBE = ("aliases", "classic-2p")


def test_scheduler_key_is_checked_and_stays_out_of_the_identity():
    local = parse_board(DOC)
    remote = parse_board({**DOC, "scheduler": "tcp://127.0.0.1:8786"})
    assert local.scheduler is None and remote.scheduler == "tcp://127.0.0.1:8786"
    for make in (cell_experiment, alias_probe):
        a, b = make(local, "classic", 2), make(remote, "classic", 2)
        assert b.run.scheduler == "tcp://127.0.0.1:8786" and a.run.scheduler is None
        assert a.identity() == b.identity()
    for bad in ("127.0.0.1:8786", "http://host:1", 8786, "tcp://a b:1"):
        with pytest.raises(LeaderboardError, match=r"^scheduler: give a Dask scheduler address like tcp://HOST:PORT"):
            parse_board({**DOC, "scheduler": bad})
    with pytest.raises(LeaderboardError, match=r"^scheduler: .*got 8786$"):  # the file's value, though a flag replaces it
        parse_board({**DOC, "scheduler": 8786}, overrides={"scheduler": "tcp://127.0.0.1:8786"})
    assert parse_board({**DOC, "quick": {"scheduler": "tcp://h:1"}}, quick=True).scheduler == "tcp://h:1"


def test_board_on_a_cluster_equals_the_local_run_and_a_local_board_resumes_there(tmp_path):
    local = tmp_path / "local"
    run_board(parse_board({**DOC, "out": str(local)}), progress=False)
    toml = tmp_path / "board.toml"
    toml.write_text(TOML)
    resumed = tmp_path / "resumed"
    shutil.copytree(local, resumed)
    for f in (resumed.joinpath(*CELL) / "games.parquet").glob("chunk-*.parquet"):
        f.unlink()
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                  dashboard_address=None) as cluster:
        address = cluster.scheduler_address
        remote = tmp_path / "remote"
        run_board(parse_board({**DOC, "out": str(remote), "scheduler": address}), progress=False)
        # the command line: the local board's cell, its games removed, is played again on the cluster
        assert leaderboard_main([str(toml), "--out", str(resumed), "--scheduler", address, "--quiet"]) == 0
    for where in (CELL, PROBE):
        pd.testing.assert_frame_equal(load_games(remote.joinpath(*where)), load_games(local.joinpath(*where)))
        assert read_runs(remote.joinpath(*where))[-1]["executor"] == f"dask {address}"
    assert len(load_games(local.joinpath(*CELL))) == 6 * 2 and len(load_games(local.joinpath(*PROBE))) == 2 * 2 * 2
    pd.testing.assert_frame_equal(pd.read_csv(remote / "ratings.csv"), pd.read_csv(local / "ratings.csv"))
    assert read_runs(remote)[-1]["scheduler"] == address and "scheduler" not in read_runs(local)[-1]
    cell = read_runs(resumed.joinpath(*CELL))[-1]
    assert cell["executor"] == f"dask {address}" and cell["chunks_played"] >= 1
    assert read_runs(resumed.joinpath(*PROBE))[-1]["executor"] == "nothing to play"
    pd.testing.assert_frame_equal(load_games(resumed.joinpath(*CELL)), load_games(local.joinpath(*CELL)))
    assert (resumed / "ratings.csv").read_bytes() == (local / "ratings.csv").read_bytes()


def test_unreachable_scheduler_is_refused_in_one_line_before_anything_is_written(tmp_path, monkeypatch, capsys):
    import cya_sim.runs.runner

    monkeypatch.setattr(cya_sim.runs.runner, "SCHEDULER_TIMEOUT_S", 0.5)
    toml = tmp_path / "board.toml"
    out = tmp_path / "res"
    for argv, text in (([str(toml), "--scheduler", "tcp://127.0.0.1:9"], TOML),  # the flag
                       ([str(toml)], TOML + 'scheduler = "tcp://127.0.0.1:9"\n')):  # the key
        toml.write_text(text + f"out = {str(out)!r}\n")
        assert leaderboard_main([*argv, "--quiet"]) == 2
        err = capsys.readouterr().err
        assert err.startswith("cya-sim leaderboard: error: scheduler: cannot reach the Dask scheduler at "
                              "'tcp://127.0.0.1:9'") and err.count("\n") == 1
        assert not out.exists()
