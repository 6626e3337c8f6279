"""The labelled console table and the report's plots: percent axes, visible intervals, titles, legends, long names."""

from __future__ import annotations

import numpy as np
import pandas as pd

from cya_sim.engine.classic.results import CLASSIC_COLUMNS
from cya_sim.engine.table import GameTable
from cya_sim.reports.plots import money, plot_title, short_agent_name, win_rate_figure
from cya_sim.reports.report import SUMMARY_LEGEND, console_summary
from cya_sim.reports.stats import summarize

LONG = ["heuristic(count=true, backup=true)", "greedy", "ismcts(iterations=1000, rollout=\"card_counter\")", "random"]


def games(n_agents: int, g: int = 40) -> GameTable:
    rng = np.random.default_rng(0)
    sa = np.array([np.roll(np.arange(4) % n_agents, i % 4) for i in range(g)], np.int16)
    winner = rng.integers(0, 4, g)
    ws = np.eye(4)[winner]
    z = np.zeros(g, np.int64)
    cols = {"first_dealer": np.zeros(g, np.int16), "rounds": z + 2, "turns": z + 100, "challenges": z + 10,
            "largest_steal": z + 50_000}
    return GameTable(np.arange(g), sa, (ws * 1_000_000).astype(np.int64), ws, z + 150, CLASSIC_COLUMNS, cols)


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


def _inside(ax, artist) -> bool:
    a, b = ax.get_window_extent(), artist.get_window_extent()
    return a.x0 - 1 <= b.x0 and b.x1 <= a.x1 + 1 and a.y0 - 1 <= b.y0 and b.y1 <= a.y1 + 1


def test_win_rate_plot_is_a_percent_dot_plot_with_readable_labels():
    """Agents on one line each (no wrapping), a 0-100% axis, intervals as error bars, the legend inside the frame."""
    s = summarize(games(4), LONG)
    fig = win_rate_figure(s, 4, plot_title("Win rates", "classic", 4, 40))
    fig.canvas.draw()
    ax = fig.axes[0]
    labels = ax.get_yticklabels()
    top_to_bottom = [t.get_text() for t in sorted(labels, key=lambda t: -t.get_position()[1])]
    assert top_to_bottom == ["heuristic(count, backup)", "greedy", 'ismcts(iterations=1000, rollout="card_counter")',
                             "random"]
    assert not any("\n" in t.get_text() for t in labels)
    boxes = [t.get_window_extent() for t in labels]
    assert not any(boxes[i].overlaps(boxes[j]) for i in range(4) for j in range(i + 1, 4))
    assert ax.get_xlim() == (0.0, 100.0) and ax.xaxis.get_major_formatter()(50, 0) == "50%"
    assert ax.get_title(loc="left") == "Win rates — classic rules, 4 players, 40 games"
    legend = ax.get_legend()
    assert _inside(ax, legend)
    texts = [t.get_text() for t in legend.get_texts()]
    assert any("per-game" in t for t in texts) and any("per-seat" in t for t in texts)
    assert any(t.startswith("fair value") for t in texts)
    # the points are the table's numbers in percent, and each carries its interval printed beside it
    pts = sorted(float(x) for line in ax.lines for x in line.get_xdata() if line.get_marker() == "o")
    assert np.allclose(pts, sorted(100 * s["game_win_rate"].to_numpy()))
    printed = [t.get_text() for t in ax.texts]
    r = s.iloc[1]
    assert (f"{100 * r.game_win_rate:.1f}% [{100 * r.game_win_rate_ci_low:.1f}, "
            f"{100 * r.game_win_rate_ci_high:.1f}]") in printed


def test_short_agent_names_and_money_units():
    assert short_agent_name("heuristic(count=true, backup=true, save_wild=false)") == \
        "heuristic(count, backup, save_wild=false)"
    assert [money(x) for x in (0, 250_000, 1_000_000, 1_250_000)] == ["$0", "$250k", "$1M", "$1.2M"]
    assert money(1500, "points") == "1.5k"


def test_totals_plot_is_in_dollars_with_shares_per_bin():
    from cya_sim.reports.plots import totals_figure

    t = games(2)
    df = pd.DataFrame({"players": 4, **{f"seat_{s}_agent": np.array(["greedy", "random"])[t.seat_agent[:, s]]
                                         for s in range(4)},
                       **{f"seat_{s}_total": t.totals[:, s] for s in range(4)}})
    fig = totals_figure(df, "classic")
    fig.canvas.draw()
    ax = fig.axes[0]
    assert ax.xaxis.get_major_formatter()(1_000_000, 0) == "$1M"
    assert "bins of $" in ax.get_xlabel() and ax.get_ylabel() == "share of the agent's seat-games"
    assert ax.get_title() == "Final totals — classic rules, 4 players, 40 games"
    for step in ax.patches:  # each agent's shares over the bins add up to 100%
        assert np.isclose(step.get_data().values.sum(), 100.0)
    assert _inside(ax, ax.get_legend())
