"""Replaying a command with the same results leaves every result file byte for byte as it was: only the run log
(``runs.json``: command lines, dates, wall times) changes.

A committed results folder is replayed by the README's commands (``cya-sim tournament experiments/X.toml``,
``cya-sim report``, ``cya-sim leaderboard``...), and a folder committed without its games (``results/baseline*``)
plays them again from the seed. Each test runs a small study twice into one folder and compares every file's
bytes; the second run appends to the run log, which is the only file allowed to differ.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from cya_sim.cli.main import main

ROOT = Path(__file__).resolve().parents[1]
#: Files a replay may change: the run logs (at any depth) and the chunk index with its games, which a folder
#: committed without its games does not keep.
RUN_LOGS = {"runs.json"}


def snapshot(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` but the run logs, games and the lock: relative path -> bytes."""
    out = {}
    for p in sorted(folder.rglob("*")):
        rel = p.relative_to(folder)
        if (p.is_dir() or p.name in RUN_LOGS or p.name == ".cya-sim.lock" or "games.parquet" in rel.parts
                or p.name == "chunks.json"):
            continue
        out[rel.as_posix()] = p.read_bytes()
    return out


def assert_same(before: dict[str, bytes], after: dict[str, bytes]) -> None:
    assert sorted(before) == sorted(after)
    changed = [k for k in before if before[k] != after[k]]
    assert not changed, f"a replay with the same results rewrote {changed}"


def runs_of(path: Path) -> list[dict]:
    return json.loads(path.read_text(encoding="utf-8"))


EXPERIMENT = """name = "replay"
seed = 11
games = 120
players = [3, 4]
agents = ["greedy", "random", "card_counter"]

[design]
kind = "round_robin"
repeats = true

[run]
engine = "batched"
workers = 1
"""


def test_a_tournament_replayed_with_its_games_gone_rewrites_nothing_but_its_run_log(tmp_path, capsys):
    """The README's replay of a committed folder: once with its games (a resume that plays nothing), once without
    them (a folder committed without its games: every game is played again from the seed), and `cya-sim report`."""
    exp = tmp_path / "replay.toml"
    exp.write_text(EXPERIMENT, encoding="utf-8")
    out = tmp_path / "r"
    argv = ["tournament", str(exp), "--out", str(out), "--quiet"]
    assert main(argv) == 0
    first = snapshot(out)
    assert {"REPORT.md", "summary.csv", "win_rates.png", "pairwise.png", "totals.png", "seats.png",
            "rounds.png", "manifest.json"} <= set(first)
    assert main(argv) == 0  # resumes: nothing to play
    assert_same(first, snapshot(out))
    shutil.rmtree(out / "games.parquet")
    (out / "chunks.json").unlink()
    assert main(argv) == 0  # replays every game
    assert_same(first, snapshot(out))
    assert main(["report", str(out)]) == 0
    assert_same(first, snapshot(out))
    runs = runs_of(out / "runs.json")
    assert len(runs) == 3 and [r["games_played"] for r in runs] == [240, 0, 240]
    report = (out / "REPORT.md").read_text(encoding="utf-8")
    assert "runs.json" in report and "elapsed" not in report and "finished_utc" not in report
    assert runs[0]["command"] in report  # the first run's command line reproduces the folder
    capsys.readouterr()


def test_a_replayed_leaderboard_rewrites_nothing_but_its_run_logs(tmp_path, capsys):
    board = ROOT / "experiments" / "leaderboard.toml"
    out = tmp_path / "lb"
    argv = ["leaderboard", str(board), "--quick", "--out", str(out), "--quiet"]
    assert main(argv) == 0
    first = snapshot(out)
    assert {"REPORT.md", "ratings.csv", "leaderboard.png", "result.json"} <= set(first)
    for cell in (out / "cells").iterdir():  # the cells keep no games in the repository: all are played again
        shutil.rmtree(cell / "games.parquet")
        (cell / "chunks.json").unlink()
    assert main(argv + ["--workers", "1"]) == 0  # another command line, the same results
    assert_same(first, snapshot(out))
    runs = runs_of(out / "runs.json")
    assert len(runs) == 2 and runs[1]["command"].endswith("--workers 1") and set(runs[1]["cells"]) == {
        "classic-2p", "classic-3p"}
    assert "wall" not in json.loads((out / "result.json").read_text()) and "--workers 1" not in (
        out / "REPORT.md").read_text()
    capsys.readouterr()


def replay_without_games(argv: list[str], out: Path, games: Path, files: set[str]) -> None:
    """Run ``argv``, drop the games under ``games`` (a folder committed without them), run it again: every file but
    the run log is the same, and the run log has the two runs."""
    assert main(argv) == 0
    first = snapshot(out)
    assert files <= set(first)
    shutil.rmtree(games / "games.parquet")
    (games / "chunks.json").unlink()
    assert main(argv) == 0
    assert_same(first, snapshot(out))
    assert len(runs_of(out / "runs.json")) == 2


def test_a_replayed_metagame_rewrites_nothing_but_its_run_logs(tmp_path, capsys):
    out = tmp_path / "m"
    replay_without_games(["metagame", "--pool", "random,greedy,card_counter", "--players", "2", "--deals", "20",
                          "--bootstrap", "10", "--seed", "3", "--out", str(out), "--quiet"], out, out / "games",
                         {"REPORT.md", "mix.csv", "result.json", "response_graph.png", "replicator.png"})
    capsys.readouterr()


def test_a_replayed_tune_rewrites_nothing_but_its_run_logs(tmp_path, capsys):
    out = tmp_path / "t"
    replay_without_games(["tune", "--agent", "heuristic", "--field", "greedy", "--players", "2", "--trials", "3",
                          "--trial-deals", "20", "--heldout-deals", "30", "--space", "cover_min=0:100000:5000",
                          "--seed", "2", "--out", str(out), "--quiet"], out, out / "heldout",
                         {"REPORT.md", "history.png", "trials.csv", "result.json", "study.db"})
    capsys.readouterr()
