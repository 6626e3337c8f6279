"""notebooks/tournament_analysis.ipynb runs on a small results folder and agrees with its summary.csv."""

from __future__ import annotations

from pathlib import Path

import nbclient
import nbformat

from cya_sim.reports.report import build_report
from cya_sim.runs.experiment import apply_overrides, parse_experiment
from cya_sim.runs.runner import run_experiment

NOTEBOOK = Path(__file__).resolve().parents[1] / "notebooks" / "tournament_analysis.ipynb"


def test_notebook_reproduces_the_main_plots(tmp_path, monkeypatch):
    out = tmp_path / "res"
    doc = {"name": "nb", "seed": 2, "games": 12, "players": [3, 4], "agents": ["random", "greedy"],
           "out": str(out), "design": {"kind": "round_robin", "repeats": True, "duplicate": True},
           "run": {"engine": "reference", "workers": 1, "chunk_size": 6}}
    run_experiment(parse_experiment(apply_overrides(doc, {})), progress=False)
    build_report(out)
    monkeypatch.setenv("CYA_RESULTS", str(out))
    monkeypatch.delenv("MPLBACKEND", raising=False)  # the kernel must use its inline backend to show PNGs
    nb = nbformat.read(NOTEBOOK, as_version=4)
    nbclient.NotebookClient(nb, timeout=300, kernel_name="python3",
                            resources={"metadata": {"path": str(NOTEBOOK.parent)}}).execute()
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])]
    assert not [o for o in outputs if o.get("output_type") == "error"]
    images = [o for o in outputs if "image/png" in o.get("data", {})]
    assert len(images) >= 5  # win rates, pairwise, totals, seats, rounds
