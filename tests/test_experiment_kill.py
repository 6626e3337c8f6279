"""Nothing lost: a run killed with SIGKILL at random moments and resumed equals an uninterrupted run."""

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

DOC = {"name": "killed", "seed": 9, "games": 160, "players": 4, "agents": ["random", "greedy"],
       "design": {"kind": "round_robin", "repeats": True, "duplicate": True},
       "run": {"engine": "reference", "workers": 1, "chunk_size": 4}}


def experiment(out, workers=1):
    return parse_experiment(apply_overrides(DOC, {"out": str(out), "run.workers": workers}))


def n_chunks(out) -> int:
    d = out / GAMES_DIR
    return len(list(d.glob("chunk-*.parquet"))) if d.is_dir() else 0


@pytest.mark.skipif(not hasattr(os, "killpg"), reason="needs POSIX process groups")
@pytest.mark.parametrize("workers", [1, pytest.param(2, marks=pytest.mark.slow)])
def test_sigkill_at_random_moments_then_resume_equals_an_uninterrupted_run(tmp_path, workers):
    """The uninterrupted run uses other chunks (16 games) and one process: chunking never changes a game."""
    reference = tmp_path / "uninterrupted"
    run_experiment(parse_experiment(apply_overrides(DOC, {"out": str(reference), "run.chunk_size": 16})),
                   progress=False)
    expected = load_games(reference)

    out = tmp_path / "killed"
    toml = tmp_path / "killed.toml"
    toml.write_text(experiment(out, workers).to_toml())
    cmd = [sys.executable, "-m", "cya_sim.cli.experiment", "tournament", str(toml), "--quiet", "--no-report"]
    rng = random.Random(int(os.environ.get("CYA_KILL_SEED", "20261129")))
    kills = 0
    for attempt in range(8):
        # a new process group, so the kill reaches the run and its worker processes at once
        proc = subprocess.Popen(cmd, start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        before = n_chunks(out)
        deadline = time.monotonic() + 60
        # kill once it has written at least one more chunk, plus a random delay: mid-chunk, mid-write, any time
        while n_chunks(out) <= before and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        time.sleep(rng.uniform(0.0, 0.4))
        if proc.poll() is not None:
            break
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
        kills += 1
        if kills >= 3:
            break
    assert kills >= 1, "the run finished before it could be killed"
    final = subprocess.run(cmd, capture_output=True, text=True, timeout=300, check=False)
    assert final.returncode == 0, final.stderr
    got = load_games(out)
    assert got["game"].is_unique and len(got) == 160
    pd.testing.assert_frame_equal(got, expected)
    assert not list((out / GAMES_DIR).glob(".tmp-*"))
    runs = read_runs(out)  # every killed run left its entry, marked killed by the next run (issue 14, kind 8)
    status = [r["status"] for r in runs]
    assert status.count("killed") == kills and status[-1] == "finished" and set(status) == {"killed", "finished"}
    assert all(r["resumed"] for r in runs[1:])
    assert runs[-1]["chunks_played"] + runs[-1]["chunks_skipped"] == 40
