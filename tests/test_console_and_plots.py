"""The labelled console table and the report's plots: percent axes, visible intervals, titles, legends, long names."""

from __future__ import annotations

import numpy as np
import pandas as pd

from cya_sim.engine.classic.results import CLASSIC_COLUMNS
from cya_sim.engine.table import GameTable
from cya_sim.reports.numbers import decimals_apart, estimate_interval, percent_interval
from cya_sim.reports.plots import (
    MIN_FONT,
    PERCENT_PAD,
    money,
    pairwise_figure,
    plot_title,
    rounds_figure,
    seats_figure,
    short_agent_name,
    win_rate_figure,
    win_rate_panels,
)
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


def _below(ax, artist) -> bool:
    return artist.get_window_extent().y1 <= ax.get_window_extent().y0


def _inside_figure(fig, artist) -> bool:
    f, b = fig.bbox, artist.get_window_extent()
    return f.x0 - 1 <= b.x0 and b.x1 <= f.x1 + 1 and f.y0 - 1 <= b.y0 and b.y1 <= f.y1 + 1


def check_figure(fig) -> None:
    """Every text of a figure is at least MIN_FONT points and whole inside the saved image (no clipped label, tick
    label, legend or printed estimate), and every marker of a percent axis is inside its frame."""
    from matplotlib.text import Text

    fig.canvas.draw()
    hidden = set()  # tick labels of ticks outside the axis' view are kept by matplotlib but never drawn
    for ax in fig.axes:
        if not ax.get_visible():
            hidden |= {id(t) for t in ax.findobj(Text)}
            continue
        for axis, i in ((ax.xaxis, 0), (ax.yaxis, 1)):
            lo, hi = sorted(axis.get_view_interval())
            hidden |= {id(t) for t in axis.get_ticklabels() + axis.get_ticklabels(minor=True)
                       if not lo - 1e-9 <= t.get_position()[i] <= hi + 1e-9}
    texts = [t for t in fig.findobj(Text) if t.get_visible() and t.get_text().strip() and id(t) not in hidden
             and (t.axes is None or t.axes.get_visible())]
    assert texts
    small = [(t.get_text(), t.get_fontsize()) for t in texts if t.get_fontsize() < MIN_FONT - 1e-9]
    assert not small, small
    out = [t.get_text() for t in texts if not _inside_figure(fig, t)]
    assert not out, f"clipped: {out}"
    for ax in fig.axes:  # a percent tick label reads its tick's value (2.5% never printed "2%")
        for axis, i in ((ax.xaxis, 0), (ax.yaxis, 1)):
            lo, hi = sorted(axis.get_view_interval())
            for t in axis.get_ticklabels():
                text = t.get_text().replace("−", "-")
                if text.endswith("%") and lo <= t.get_position()[i] <= hi:
                    assert abs(float(text[:-1]) - t.get_position()[i]) < 0.5 * 10 ** -len(
                        (text[:-1].split(".") + [""])[1]) - 1e-9, (text, t.get_position()[i])


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
    # a 0-100% axis padded so that a point at 0% or 100% is whole inside the frame
    assert ax.get_xlim() == (-PERCENT_PAD, 100.0 + PERCENT_PAD) and ax.xaxis.get_major_formatter()(50, 0) == "50%"
    assert ax.get_title(loc="left") == "Win rates — classic rules, 4 players, 40 games"
    legend = ax.get_legend()
    assert _below(ax, legend) and _inside_figure(fig, legend)  # under the axis: never over a point
    texts = [t.get_text() for t in legend.get_texts()]
    assert any("per-game" in t for t in texts) and any("per-seat" in t for t in texts)
    assert any(t.startswith("fair value") for t in texts)
    # the points are the table's numbers in percent, and each carries its interval printed beside it
    pts = sorted(float(x) for line in ax.lines for x in line.get_xdata() if line.get_marker() == "o")
    assert np.allclose(pts, sorted(100 * s["game_win_rate"].to_numpy()))
    printed = [t.get_text() for t in ax.texts]
    r = s.iloc[1]
    assert " ".join(percent_interval(r.game_win_rate, r.game_win_rate_ci_low, r.game_win_rate_ci_high)) in printed
    check_figure(fig)


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
    legend = fig.legends[0]  # one legend for the figure, under the panels
    assert _below(ax, legend) and [t.get_text() for t in legend.get_texts()] == ["greedy", "random"]
    check_figure(fig)


# -- an estimate never prints equal to a bound it is not equal to -------------------------------------------------
def test_the_readme_row_that_printed_an_estimate_on_its_bound_now_prints_them_apart():
    """README's default table printed greedy's per-game win rate as "99.9% [99.7%, 99.9%]"."""
    est, ci = percent_interval(0.99875, 0.99672, 0.99944)
    assert (est, ci) == ("99.88%", "[99.67%, 99.94%]")
    assert percent_interval(0.364, 0.339, 0.389) == ("36.4%", "[33.9%, 38.9%]")  # one decimal when it suffices


def test_equal_values_print_equal_and_distinct_values_print_distinct():
    rng = np.random.default_rng(7)
    for _ in range(2000):
        lo, est, hi = np.sort(rng.choice([0.0, 1.0, rng.uniform(), rng.uniform(0.999, 1), rng.uniform(0, 0.001)], 3))
        e, ci = percent_interval(est, lo, hi)
        lo_t, hi_t = ci[1:-1].split(", ")
        for value, text in ((lo, lo_t), (hi, hi_t)):
            assert (text == e) == (round(100 * value, 6) == round(100 * est, 6)), (est, lo, hi, e, ci)
    assert percent_interval(0.0, 0.0, 0.0027) == ("0.0%", "[0.0%, 0.3%]")  # a rate of 0 is its lower bound
    assert estimate_interval(0.0, 0.0, 0.0, decimals=0) == ("0", "[0, 0]")  # the anchor of a rating
    assert percent_interval(-0.02, -0.05, 0.0001, signed=True) == ("-2.0%", "[-5.0%, +0.0%]")
    assert estimate_interval(1_150_214.4, 1_150_214.1, 1_155_469, prefix="$", thousands=True) == (
        "$1,150,214.4", "[$1,150,214.1, $1,155,469.0]")
    assert estimate_interval(float("nan"), float("nan"), float("nan")) == ("–", "–")
    assert decimals_apart([0.5, 0.5 + 1e-12]) == 1  # floating-point noise is not a difference


def test_the_console_table_never_prints_an_estimate_on_a_bound_it_is_not_on():
    s = summarize(games(2), ["greedy", "random"])
    s.loc[0, ["game_win_rate", "game_win_rate_ci_low", "game_win_rate_ci_high"]] = [0.99875, 0.99672, 0.99944]
    s.loc[0, ["seat_share", "seat_share_ci_low", "seat_share_ci_high"]] = [0.4994, 0.4990, 0.4998]
    row = console_summary(s).splitlines()[1]
    assert "99.88%  [99.67%, 99.94%]" in row and "49.94%  [49.90%, 49.98%]" in row
    assert "50.0%" in row and "25.0%" in row  # fair values keep one decimal


# -- every figure of a report: readable, nothing clipped, shared scales, n/a marked --------------------------------
def test_totals_ticks_read_their_values():
    """A share axis up to about 20% was ticked every 2.5 points and printed 2%, 5%, 8%: round ticks now."""
    from cya_sim.reports.plots import totals_figure

    rng = np.random.default_rng(3)
    n = 600
    df = pd.DataFrame({"players": 3, **{f"seat_{s}_agent": ["greedy", "random", "defender"][s] for s in range(3)},
                       **{f"seat_{s}_total": rng.normal(30 + 5 * s, 7, n).clip(0).round() for s in range(3)}})
    df.loc[: int(0.196 * n) - 1, "seat_2_total"] = 0  # a spike of 19.6% at 0 points, as the defender's
    fig = totals_figure(df, "theft", unit="points")
    check_figure(fig)


def test_win_rate_panels_have_readable_whole_text_and_one_scale():
    s = summarize(games(4), LONG)
    both = pd.concat([s.assign(players=3), s.assign(players=4)], ignore_index=True)
    fig = win_rate_panels(both, "classic", {3: 40, 4: 40})
    check_figure(fig)
    assert {ax.get_xlim() for ax in fig.axes} == {(-PERCENT_PAD, 100 + PERCENT_PAD)}  # one scale for every panel


def test_head_to_head_marks_self_and_never_met_cells_and_shares_one_colour_scale():
    pw = pd.DataFrame({
        "players": [3] * 6 + [4] * 2,
        "agent": ["a", "b", "a", "c", "b", "c", "a", "b"], "opponent": ["b", "a", "c", "a", "c", "b", "b", "a"],
        "comparisons": [10, 10, 10, 10, 0, 0, 5, 5], "ahead_share": [0.9999, 0.0001, 0.5, 0.5, np.nan, np.nan, 1.0, 0.0],
    })
    fig = pairwise_figure(pw, "classic", {3: 10, 4: 5})
    check_figure(fig)
    first = fig.axes[0]
    cells = [t.get_text() for t in first.texts]
    assert cells.count("–") == 3 and cells.count("n/a") == 2  # itself; b and c never met at 3 players
    assert "99.99%" in cells and "0.01%" in cells  # never printed as 100.0% or 0.0%
    long = pw.replace({"a": "ismcts(iterations=2000)", "b": "pimc(iterations=2000)", "c": "greedy"})  # the title
    # over three cells beside labels of 23 characters was cut at the right
    check_figure(pairwise_figure(long[long["players"] == 3], "theft", {3: 10}))
    images = [im for ax in fig.axes for im in ax.images]
    assert len(images) == 2 and {im.get_clim() for im in images} == {(0.0, 100.0)}
    assert len([ax for ax in fig.axes if ax.get_label() == "<colorbar>"]) == 1  # one colour bar for the figure


def test_seat_panels_span_the_same_points_and_round_panels_share_their_axes():
    seats = pd.DataFrame([{"players": p, "position": pos, "agent": "(all)", "seat": s, "win_rate": 1 / p + d,
                           "win_rate_ci_low": 1 / p + d - w, "win_rate_ci_high": 1 / p + d + w, "p_value": 0.5,
                           "p_holm": 0.9}
                          for p, w in ((3, 0.02), (4, 0.005)) for pos in ("seat", "turn_order")
                          for s, d in zip(range(p), (0.01, -0.01, 0.0, 0.0))])
    fig = seats_figure(seats, "classic", {3: 100, 4: 100})
    check_figure(fig)
    spans = [ax.get_ylim()[1] - ax.get_ylim()[0] for ax in fig.axes]
    assert np.allclose(spans, spans[0])  # a 2-point effect looks as large at 3 and at 4 players
    rounds = pd.DataFrame({"players": [3, 3, 4], "rounds": [1, 2, 3], "games": [1, 99, 100],
                           "share": [0.01, 0.99, 1.0]})
    fig = rounds_figure(rounds, "classic")
    check_figure(fig)
    assert np.allclose([ax.get_xlim() for ax in fig.axes], (0.3, 3.7)) and len({ax.get_ylim() for ax in fig.axes}) == 1
    assert "100.0%" in [t.get_text() for t in fig.axes[1].texts]


def test_a_report_of_five_table_sizes_is_a_grid_not_a_strip():
    seats = pd.DataFrame([{"players": p, "position": pos, "agent": "(all)", "seat": k, "win_rate": 1 / p,
                           "win_rate_ci_low": 1 / p - 0.01, "win_rate_ci_high": 1 / p + 0.01, "p_value": 0.5,
                           "p_holm": 0.9} for p in range(2, 7) for pos in ("seat", "turn_order") for k in range(p)])
    fig = seats_figure(seats, "classic", dict.fromkeys(range(2, 7), 10))
    w, h = fig.get_size_inches()
    assert w <= 12 and h > w  # at most two panels a row (baseline-basic was one strip of 5,225 x 528 px)
    check_figure(fig)


def test_agent_labels_keep_two_specs_of_a_family_apart_and_key_the_long_ones():
    from cya_sim.reports.plots import agent_colours, agent_labels

    tuned = ("heuristic(cover_min=70000, pair_first=false, count=true, save_wild=true, wild_first=true, "
             "let_go_max=80000, wild_for_sets=false, wild_for_defence=false)")
    names = ["card_counter", "card_counter(min_gain=5000)", "card_counter(infer_hidden=false)", tuned,
             "agents.learned_models.classic_2p:decide", "heuristic(count=true)"]
    labels, key = agent_labels(names)
    assert len(set(labels.values())) == len(names)  # two specs of one family never share a label
    assert labels["card_counter(infer_hidden=false)"] == "card_counter(infer_hidden=false)"
    assert labels[tuned] == "heuristic [a]" and key[0] == f"[a] {tuned}"
    assert labels["agents.learned_models.classic_2p:decide"] == "classic_2p:decide [b]"
    assert labels["heuristic(count=true)"] == "heuristic(count)"
    assert len(set(agent_colours(names).values())) == len(names)
