"""The labelled console table and the win-rate plot (issue 10 labels; issue 14: long names, overlapping labels)."""

from __future__ import annotations

import numpy as np

from cya_sim.engine.table import GameTable
from cya_sim.reports.plots import win_rate_figure
from cya_sim.reports.report import SUMMARY_LEGEND, console_summary
from cya_sim.reports.stats import summarize

LONG = ["heuristic(count=true, backup=true)", "greedy", "ismcts(iterations=1000, rollout=\"card_counter\")", "random"]


def games(n_agents: int, g: int = 40) -> GameTable:
    rng = np.random.default_rng(0)
    sa = np.array([np.roll(np.arange(4) % n_agents, i % 4) for i in range(g)], np.int16)
    winner = rng.integers(0, 4, g)
    ws = np.eye(4)[winner]
    z = np.zeros(g, np.int64)
    return GameTable(np.arange(g), sa, np.zeros(g, np.int16), (ws * 1_000_000).astype(np.int64), ws, z + 2,
                     z + 100, z + 10, z + 150, z + 50_000)


def test_console_table_labels_both_rates_and_their_fair_values():
    text = console_summary(summarize(games(2), ["greedy", "random"]))
    header = text.splitlines()[0]
    for label in ("per-game win rate", "per-seat share", "fair", "95% CI", "mean total", "p vs fair (Holm)"):
        assert label in header
    row = text.splitlines()[1]
    assert "50.0%" in row and "25.0%" in row  # fair values of two seats of four: 2/4 per game, 1/4 per seat
    assert "any copy of the agent" in SUMMARY_LEGEND and "1/P" in SUMMARY_LEGEND


def test_console_table_stays_aligned_with_long_agent_names():
    lines = console_summary(summarize(games(4), LONG)).splitlines()
    assert len({len(line) for line in lines}) == 1  # every row as wide as the header
    header = lines[0]
    for col in ("games", "per-game win rate", "mean total"):
        end = header.index(col) + len(col)
        for line in lines[1:]:
            assert line[end - 1] != " " and (end == len(line) or line[end] == " ")  # right-aligned under the header


def test_win_rate_plot_labels_do_not_overlap():
    fig = win_rate_figure(summarize(games(4), LONG), 4)
    fig.canvas.draw()
    ax = fig.axes[0]
    boxes = [t.get_window_extent() for t in ax.get_xticklabels()]
    assert len(boxes) == 4
    for i in range(len(boxes)):
        for j in range(i + 1, len(boxes)):
            assert not boxes[i].overlaps(boxes[j]), (i, j)
    texts = [t.get_text() for t in ax.get_legend().get_texts()]
    assert any("per-game" in t for t in texts) and any("per-seat" in t for t in texts) and "fair value" in texts
