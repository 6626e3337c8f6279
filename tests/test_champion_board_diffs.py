"""``experiments/champion_board_diffs.py`` (issue 31): the committed table is printed from any folder, and bad input
is one line with exit status 2."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[1] / "experiments" / "champion_board_diffs.py"


def _run(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), *args], cwd=cwd, capture_output=True, text=True, timeout=120,
                          check=False)


def test_table_is_printed_from_any_folder(tmp_path):
    proc = _run("--table", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "classic-4p" in proc.stdout and "advanced-6p" in proc.stdout


def test_a_folder_that_is_not_a_board_is_refused_in_one_line(tmp_path):
    proc = _run(str(tmp_path / "nope"), cwd=tmp_path)
    assert proc.returncode == 2 and proc.stdout == ""
    assert len(proc.stderr.strip().splitlines()) == 1 and "folders:" in proc.stderr and "nope" in proc.stderr
    proc = _run(cwd=tmp_path)
    assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1
