"""The studies' output folders (cya-sim tune, metagame, leaderboard) are refused when they hold anything but that
study's own files (a tournament's results, another study's, a user's file), and when they are a file; nothing
there is changed, and the refusal is one line with exit status 2."""

from __future__ import annotations

from pathlib import Path

import pytest

from cya_sim.cli.main import main

BOARD = Path(__file__).resolve().parents[1] / "experiments" / "leaderboard.toml"
COMMANDS = {
    "tune": ["tune", "--agent", "heuristic", "--field", "card_counter", "--trials", "2", "--trial-deals", "10"],
    "metagame": ["metagame", "--pool", "greedy,random", "--players", "2", "--deals", "5"],
    "leaderboard": ["leaderboard", str(BOARD), "--quick"],
}


def snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.mark.parametrize("study", sorted(COMMANDS))
def test_a_folder_of_other_files_is_refused_and_left_alone(tmp_path, capsys, study):
    out = tmp_path / "mine"
    out.mkdir()
    (out / "notes.txt").write_text("my notes")
    (out / "REPORT.md").write_text("a tournament's report")
    before = snapshot(out)
    assert main(COMMANDS[study] + ["--out", str(out), "--quiet"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "notes.txt" in err[0] and f"not cya-sim {study} results" in err[0], err
    assert snapshot(out) == before


@pytest.mark.parametrize("study", sorted(COMMANDS))
def test_a_file_is_refused(tmp_path, capsys, study):
    f = tmp_path / "a-file"
    f.write_text("x")
    assert main(COMMANDS[study] + ["--out", str(f), "--quiet"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "is a file" in err[0], err
    assert f.read_text() == "x"
