"""Kill-and-resume soak (issue 14): >= 30 SIGKILLs at random moments, flags and experiment modes; nothing lost or duplicated.

Each mode is killed at least 15 times — sometimes the whole process group,
sometimes only the main process (as the out-of-memory killer does) — then
the same command is run to the end. The stored games must equal an
uninterrupted run's (other chunking, in one process), every game once; no
temporary file is left; every killed run left its ``runs.json`` entry.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time

import pandas as pd
import pytest

from cya_sim.results.folder import GAMES_DIR, load_games, read_runs
from cya_sim.runs.experiment import apply_overrides, parse_experiment
from cya_sim.runs.runner import run_experiment
from cya_sim.studies.tournament import TournamentConfig, game_table, run_tournament

KILLS_PER_MODE = 16
DOC = {"name": "soak", "seed": 11, "games": 240, "players": [3, 4], "agents": ["random", "greedy", "wild_hoarder"],
       "design": {"kind": "round_robin", "repeats": True, "duplicate": True},
       "run": {"engine": "reference", "workers": 2, "chunk_size": 6}}


def _soak(cmd: list[str], out, seed: int) -> int:
    rng = random.Random(seed)
    kills = 0
    while kills < KILLS_PER_MODE:
        proc = subprocess.Popen(cmd, start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(rng.uniform(0.3, 4.0))  # start-up, mid-chunk, mid-write, between chunks: any time
        if proc.poll() is not None:
            break  # it finished first
        if rng.random() < 0.5:
            os.killpg(proc.pid, signal.SIGKILL)
        else:
            proc.send_signal(signal.SIGKILL)  # only the main process: its workers must end by themselves
        proc.wait(timeout=60)
        kills += 1
    final = subprocess.run(cmd, capture_output=True, text=True, timeout=900, check=False)
    assert final.returncode == 0, final.stderr
    assert not list(out.rglob(".tmp-*"))
    status = [r["status"] for r in read_runs(out)]
    assert status[-1] == "finished" and status.count("killed") + status.count("running") <= kills
    return kills


@pytest.mark.slow
@pytest.mark.skipif(not hasattr(os, "killpg"), reason="needs POSIX process groups")
def test_kill_and_resume_soak_loses_and_duplicates_nothing(tmp_path):
    # experiment mode
    ref = tmp_path / "uninterrupted"
    run_experiment(parse_experiment(apply_overrides(DOC, {"out": str(ref), "run.chunk_size": 240,
                                                          "run.workers": 1})), progress=False)
    expected = load_games(ref)
    out = tmp_path / "killed"
    toml = tmp_path / "soak.toml"
    toml.write_text(parse_experiment(apply_overrides(DOC, {"out": str(out)})).to_toml())
    kills = _soak([sys.executable, "-m", "cya_sim.cli", "tournament", str(toml), "--quiet", "--no-report"], out, 1)
    got = load_games(out)
    assert got["game"].is_unique and len(got) == 480
    pd.testing.assert_frame_equal(got, expected)

    # flags mode
    flags = tmp_path / "flags"
    cmd = [sys.executable, "-m", "cya_sim.cli", "tournament", "--agents", "greedy,random,card_counter",
           "--players", "4", "--games", "200", "--seed", "4", "--engine", "reference", "--workers", "2",
           "--chunk-size", "5", "--out", str(flags), "--quiet"]
    kills += _soak(cmd, flags, 2)
    whole = run_tournament(TournamentConfig("classic", ["greedy", "random", "card_counter"], n_players=4, games=200,
                                            seed=4, engine="reference", workers=1, chunk_size=200), progress=False)
    got = load_games(flags)
    assert got["game"].tolist() == list(range(200))
    assert game_table(got, whole.agent_names).equals(whole.table)
    assert (flags / "REPORT.md").exists() and not list((flags / GAMES_DIR).glob(".tmp-*"))
    assert kills >= 30
