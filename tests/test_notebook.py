"""The analysis notebooks: committed executed, re-executed on their default (committed) folders, and run on a
fresh small results folder, where their numbers agree with its summary.csv."""

from __future__ import annotations

from pathlib import Path

import nbclient
import nbformat
import pytest

from cya_sim.reports.report import build_report
from cya_sim.runs.experiment import apply_overrides, parse_experiment
from cya_sim.runs.runner import run_experiment

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOK = ROOT / "notebooks" / "tournament_analysis.ipynb"
#: Each notebook and the number of figures it draws (tournament: win rates, pairwise, totals, seats, rounds).
FIGURES = {"tournament_analysis.ipynb": 5, "tips.ipynb": 2}


def _execute(nb, timeout: int = 300) -> list[dict]:
    nbclient.NotebookClient(nb, timeout=timeout, kernel_name="python3",
                            resources={"metadata": {"path": str(NOTEBOOK.parent)}}).execute()
    return [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])]


def _images(outputs: list[dict]) -> int:
    return len([o for o in outputs if "image/png" in o.get("data", {})])


@pytest.mark.parametrize("name", sorted(FIGURES))
def test_committed_notebook_shows_its_outputs(name):
    """What a reader sees on disk: every code cell executed, in order, with outputs, no error, every figure."""
    nb = nbformat.read(ROOT / "notebooks" / name, as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert [c.get("execution_count") for c in code] == list(range(1, len(code) + 1))
    assert all(c.get("outputs") for c in code)
    outputs = [o for c in code for o in c["outputs"]]
    assert not [o for o in outputs if o.get("output_type") == "error"]
    assert _images(outputs) == FIGURES[name]


@pytest.mark.parametrize("name", sorted(FIGURES))
def test_notebook_runs_on_its_default_committed_folder(name, monkeypatch):
    """From a fresh clone: results/example (tournament) and results/tips (tips) are committed, so no run is needed."""
    monkeypatch.delenv("CYA_RESULTS", raising=False)
    monkeypatch.delenv("CYA_TIPS", raising=False)
    monkeypatch.delenv("MPLBACKEND", raising=False)  # the kernel must use its inline backend to show PNGs
    nb = nbformat.read(ROOT / "notebooks" / name, as_version=4)
    outputs = _execute(nb)
    assert not [o for o in outputs if o.get("output_type") == "error"]
    assert _images(outputs) == FIGURES[name]
    text = "".join(o.get("text", "") for o in outputs if o.get("output_type") == "stream")
    assert ("4800 games; 4800 deals" in text) if name == "tournament_analysis.ipynb" else \
        ("../results/tips: 420 tip x context rows" in text)


def test_notebook_reproduces_the_main_plots(tmp_path, monkeypatch):
    out = tmp_path / "res"
    doc = {"name": "nb", "seed": 2, "games": 12, "players": [3, 4], "agents": ["random", "greedy"],
           "out": str(out), "design": {"kind": "round_robin", "repeats": True, "duplicate": True},
           "run": {"engine": "reference", "workers": 1, "chunk_size": 6}}
    run_experiment(parse_experiment(apply_overrides(doc, {})), progress=False)
    build_report(out)
    monkeypatch.setenv("CYA_RESULTS", str(out))
    monkeypatch.delenv("MPLBACKEND", raising=False)
    outputs = _execute(nbformat.read(NOTEBOOK, as_version=4))
    assert not [o for o in outputs if o.get("output_type") == "error"]
    assert _images(outputs) == 5
