"""Tournament plots, drawn with matplotlib's Agg canvas (no display, no pyplot state).

:func:`win_rate_figure` draws the win rates of one table size. The report of a
results folder (:mod:`cya_sim.reports.report`) draws the figures of
:data:`PLOTS` from the tables of :class:`cya_sim.reports.analysis.Analysis`, one
panel per table size, so an experiment over several table sizes still has one
file per figure; :func:`save_all` writes them.

Every figure is drawn to be put in a paper as it is:

- rates are on percent axes, as in the tables (``summary.csv`` stores proportions
  in [0, 1]; the plots multiply by 100 only on the axis), padded so that a point at
  0% or 100% is whole inside the frame;
- each estimate is a point with its 95% interval as an error bar, and the
  estimate and interval are printed beside it with the decimals of
  :func:`cya_sim.reports.numbers.percent_interval` (an estimate never reads equal to
  a bound it is not equal to), so an interval narrower than the point (a million
  games) is still read;
- each panel's title carries the rules, the table size and the number of games;
- panels sit in a grid of at most :data:`MAX_COLUMNS` columns (never a strip of five
  side by side), with the same axis range in every panel where the quantity is
  the same (win rates 0–100%, the head-to-head colour scale, the totals' dollars);
- legends sit outside the data (below the panel, or one legend for the figure), and
  a head-to-head cell with no comparison is marked (``–`` for an agent against
  itself, ``n/a`` for two agents that never met);
- every text is at least :data:`MIN_FONT` points at the saved size;
- agent specs are shortened only by dropping ``=true`` (:func:`short_agent_name`) and
  written on one line; an agent keeps one colour in every panel of a figure.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter, MaxNLocator, MultipleLocator, PercentFormatter

from cya_sim.reports.numbers import decimals_apart, fixed, percent_interval
from cya_sim.reports.side_by_side import side_by_side

WIN_RATE_COLUMNS = ("agent", "game_win_rate", "game_win_rate_ci_low", "game_win_rate_ci_high", "game_win_rate_fair",
                    "seat_share", "seat_share_ci_low", "seat_share_ci_high", "seat_share_fair")

#: Colours of the two win rates (per-game, per-seat) and of fair values, used by every figure.
GAME_COLOUR, SEAT_COLOUR, FAIR_COLOUR = "#2F5597", "#2E8B57", "#C0392B"
#: The smallest text of any figure, in points at the saved size (tick labels, printed estimates, legends).
MIN_FONT = 8.0
#: Panels per row of a figure with one panel per table size.
MAX_COLUMNS = 2
#: Resolution of every saved figure (dots per inch).
DPI = 110
#: Margin of a percent axis beyond 0 and 100, in points of percent: a marker at 0% or 100% stays inside the frame.
PERCENT_PAD = 3.0
#: One colour per agent (Okabe & Ito 2008, colour-blind safe, then matplotlib's tab10).
AGENT_COLOURS = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#D55E00", "#56B4E9", "#000000", "#F0E442",
                 "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b")


def agent_colours(names: Sequence[str]) -> dict[str, str]:
    """One colour per agent, in the order given (the experiment's agents), the same in every panel of a figure."""
    return {n: AGENT_COLOURS[i % len(AGENT_COLOURS)] for i, n in enumerate(dict.fromkeys(names))}


def short_agent_name(spec: str) -> str:
    """An agent spec shortened for a plot label: ``heuristic(count=true, backup=true)`` -> ``heuristic(count, backup)``.

    Boolean switches set to true keep only their name; every other parameter is kept
    as written. The result is one line (no wrapping), so a label never breaks inside a
    parameter list.
    """
    return re.sub(r"\s*=\s*true\b", "", str(spec))


#: Longest agent label of a figure with a key (leaderboard, metagame, tune); a longer spec is named by its family and
#: a key letter, and the key gives the whole spec.
LABEL_MAX = 32


def agent_labels(names: Sequence[str]) -> tuple[dict[str, str], list[str]]:
    """The label of each agent in a figure with a key, and the key lines of the labels that stand for a longer spec.

    A spec of at most :data:`LABEL_MAX` characters (``=true`` switches written as their name,
    :func:`short_agent_name`) is its own label, so two specs of one family stay two labels; a longer one is its
    family (a plug-in: its module's last part and function) and a key letter, ``heuristic [a]``, with the key line
    ``[a] <whole spec>``.

    Args:
        names: (K,) agent specs, in the order of the figure.

    Returns:
        (spec -> label, key lines in letter order).
    """
    labels, key = {}, []
    for a in dict.fromkeys(names):
        short = short_agent_name(a)
        if len(short) <= LABEL_MAX:
            labels[a] = short
            continue
        letter = chr(ord("a") + len(key) % 26) + ("" if len(key) < 26 else str(len(key) // 26))
        head = a.split(".")[-1] if ":" in a else a.split("(")[0]
        labels[a] = f"{head} [{letter}]"
        key.append(f"[{letter}] {a}")
    return labels, key


def key_text(key: Sequence[str], width_in: float) -> tuple[str, float]:
    """The key lines of :func:`agent_labels` wrapped to a figure ``width_in`` inches wide (monospace, :data:`MIN_FONT`
    points), and the height in inches they take."""
    import textwrap

    chars = int(width_in * 72 / (0.62 * MIN_FONT))
    text = "\n".join(textwrap.fill(k, chars, subsequent_indent="    ") for k in key)
    return text, (0.16 * (text.count("\n") + 1) + 0.15 if key else 0.0)


def with_key(fig: Figure, key: Sequence[str], width_in: float, panels_h: float):
    """Split ``fig`` into the panels' part (returned) and, when ``key`` is not empty, a strip under it holding the key
    (:func:`key_text`); the figure's height becomes ``panels_h`` plus the key's."""
    text, key_h = key_text(key, width_in)
    fig.set_size_inches(width_in, panels_h + key_h)
    if not key:
        return fig
    top, bottom = fig.subfigures(2, 1, height_ratios=[panels_h, key_h])
    bottom.text(0.01, 0.5, text, fontsize=MIN_FONT, ha="left", va="center", family="monospace")
    return top


def _labels(names) -> list[str]:
    return [short_agent_name(n) for n in names]


def plot_title(what: str, rules: str, n_players: int, n_games: int | None, two_lines: bool = False) -> str:
    """A panel title: ``what — classic rules, 4 players, 1,000,000 games`` (parts left out when unknown).

    Args:
        what: the quantity drawn. rules: the rule preset's name (``""``: not said).
        n_players: table size P. n_games: games played at that table size (None: not said).
        two_lines: ``what`` on a line of its own (a narrow panel), instead of `` — ``.
    """
    parts = ([f"{rules} rules"] if rules else []) + [f"{n_players} players"]
    if n_games is not None:
        parts.append(f"{int(n_games):,} games")
    return f"{what}{chr(10) if two_lines else ' — '}{', '.join(parts)}"


def _interval_text(rate: float, low: float, high: float) -> str:
    """``76.7% [76.6%, 76.8%]``: a rate and its interval in percent, one decimal or as many more as keep an
    estimate apart from a bound it is not equal to (:func:`cya_sim.reports.numbers.percent_interval`)."""
    est, ci = percent_interval(rate, low, high)
    return f"{est} {ci}"


def _percent_axis(axis, decimals: int = 0) -> None:
    """A 0–100% axis padded by :data:`PERCENT_PAD` on both sides, ticks every 20 points."""
    axis.set_major_locator(MultipleLocator(20))
    axis.set_major_formatter(PercentFormatter(100, decimals=decimals))


def draw_win_rates(ax, summary: pd.DataFrame, n_players: int, title: str = "", legend: bool = True) -> None:
    """Per-game win rate and per-seat share of each agent as points with 95% intervals, on ``ax``.

    A dot plot with one row per agent (top to bottom in the order of ``summary``):
    the per-game win rate (share of games won by any copy of the agent, a circle)
    and the per-seat win share (wins per seat-game, a square), each with its
    game/deal-clustered 95% interval (:func:`cya_sim.reports.stats.summarize`) as an
    error bar, a vertical tick at its fair value ((seats held)/P and 1/P), and the
    estimate with its interval printed at the right of the frame. The x axis is in
    percent, 0 to 100, padded by :data:`PERCENT_PAD` so a point at 0% or 100% is whole.
    The legend sits under the axis, outside the data.

    Args:
        ax: a matplotlib Axes. summary: rows with :data:`WIN_RATE_COLUMNS` (rates in [0, 1]).
        n_players: P (used in the legend's fair values). title: the panel title (none when empty).
        legend: draw the legend under the axis.

    Raises:
        ValueError: a required column is missing.
    """
    need = set(WIN_RATE_COLUMNS)
    if not need <= set(summary.columns):
        raise ValueError(f"summary needs the columns {', '.join(sorted(need))}")
    n = len(summary)
    y = np.arange(n)[::-1].astype(float)
    series = [(0.17, "game_win_rate", GAME_COLOUR, "o", "per-game win rate (any copy wins)"),
              (-0.17, "seat_share", SEAT_COLOUR, "s", "per-seat win share")]
    same = all(np.allclose(summary[f"game_win_rate{x}"].to_numpy(float), summary[f"seat_share{x}"].to_numpy(float),
                           equal_nan=True) for x in ("", "_ci_low", "_ci_high", "_fair"))
    if same:  # every agent holds one seat per game: the two rates are one number
        series = [(0.0, "game_win_rate", GAME_COLOUR, "o", "win rate (one seat per game: per-game = per-seat)")]
    for off, key, colour, marker, label in series:
        rate = summary[key].to_numpy(float)
        low = summary[f"{key}_ci_low"].to_numpy(float)
        high = summary[f"{key}_ci_high"].to_numpy(float)
        err = np.clip(np.vstack([rate - low, high - rate]), 0.0, None) * 100
        ax.errorbar(100 * rate, y + off, xerr=err, fmt=marker, ms=5, color=colour, ecolor=colour, elinewidth=1.6,
                    capsize=3, label=label, zorder=3)
        fair = 100 * summary[f"{key}_fair"].to_numpy(float)
        ax.vlines(fair, y + off - (0.3 if same else 0.15), y + off + (0.3 if same else 0.15), colors=FAIR_COLOUR, lw=1.4, zorder=2,
                  label=(f"fair value 1/{n_players}" if same else f"fair value (seats held / {n_players}, "
                         f"1/{n_players})") if key == series[-1][1] else None)
        for yy, r, lo, hi in zip(y + off, rate, low, high):
            if np.isfinite(r):
                ax.annotate(_interval_text(r, lo, hi), xy=(1.01, yy), xycoords=("axes fraction", "data"),
                            va="center", ha="left", fontsize=MIN_FONT, color=colour)
    ax.annotate("estimate [95% CI]", xy=(1.01, 1.0), xycoords="axes fraction", va="bottom", ha="left",
                fontsize=MIN_FONT)
    ax.set_yticks(y, _labels(summary["agent"]), fontsize=9)
    ax.set_ylim(-0.6, n - 0.4)
    ax.set_xlim(-PERCENT_PAD, 100 + PERCENT_PAD)
    _percent_axis(ax.xaxis)
    ax.tick_params(axis="x", labelsize=9)
    ax.set_xlabel("win rate (95% interval, game/deal-clustered)", fontsize=9)
    ax.grid(axis="x", color="0.9", zorder=0)
    if legend:
        _legend_below(ax, ncol=len(series) + 1)
    if title:
        ax.set_title(title, fontsize=10, loc="left")


def _legend_below(ax, ncol: int = 1, below: float = 0.45) -> None:
    """The axes' legend under its x-axis label (``below`` inches under the frame), outside the data; constrained
    layout makes room for it."""
    from matplotlib.transforms import ScaledTranslation

    shift = ScaledTranslation(0, -below, ax.figure.dpi_scale_trans)
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, 0.0), bbox_transform=ax.transAxes + shift, ncol=ncol,
              fontsize=MIN_FONT, frameon=False, borderaxespad=0.0)


def _win_rate_size(n_agents: int, width: float = 9.0) -> tuple[float, float]:
    return width, 0.5 * n_agents + 1.9


def win_rate_figure(summary: pd.DataFrame, n_players: int, title: str = "") -> Figure:
    """Per-game win rate and per-seat share per agent with intervals and fair values (one table size).

    Args:
        summary: the table of :func:`cya_sim.reports.stats.summarize` (:data:`WIN_RATE_COLUMNS`; rates in [0, 1]).
        n_players: table size P, >= 1.
        title: figure title (e.g. from :func:`plot_title`).

    Returns:
        a matplotlib ``Figure`` attached to an Agg canvas.

    Raises:
        ValueError: ``n_players`` < 1 or a required column is missing.
    """
    if n_players < 1:
        raise ValueError(f"n_players is {n_players!r}; it must be >= 1")
    fig = Figure(figsize=_win_rate_size(len(summary)), dpi=DPI, layout="constrained")
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    draw_win_rates(ax, summary, n_players, title)
    return fig


def save_win_rates(summary: pd.DataFrame, n_players: int, path: str | Path, title: str = "") -> Path:
    """Write :func:`win_rate_figure` as a PNG to ``path`` (``win_rates.png``).

    Raises:
        ValueError: as :func:`win_rate_figure`. OSError: the file cannot be written.
    """
    path = Path(path)
    win_rate_figure(summary, n_players, title).savefig(path, format="png")
    return path


# -- the report's figures ----------------------------------------------------------
PLOTS = {
    "win_rates.png": "per agent: per-game win rate and per-seat win share (%) with 95% game/deal-clustered intervals "
                     "and their fair values",
    "pairwise.png": "head-to-head matrix: share of comparisons (%) the row agent finished ahead",
    "totals.png": "distribution of final totals per agent (share of its seat-games per bin of dollars)",
    "seats.png": "win rate (%) by seat and by turn order, with 95% deal-clustered intervals and the agent-adjusted "
                 "score test's p-value",
    "rounds.png": "share of games (%) by number of rounds",
}


def plots_of(length: str = "rounds") -> dict[str, str]:
    """:data:`PLOTS` of a game family whose length column is ``length`` (``rounds``, ``turns``): the game-length
    figure is ``<length>.png``, the share of games by number of ``length``."""
    return {(f"{length}.png" if k == "rounds.png" else k): (f"share of games (%) by number of {length}"
                                                            if k == "rounds.png" else v) for k, v in PLOTS.items()}


def _games_by_size(analysis) -> dict[int, int]:
    r = analysis.length_counts
    return {int(p): int(g) for p, g in r.groupby("players")["games"].sum().items()}


def _panels(n: int, width: float = 5.0, height: float = 4.0, rows: bool = False, sharex: bool = False,
            sharey: bool = False) -> tuple[Figure, list]:
    """A figure of ``n`` panels of ``width`` x ``height`` inches in a grid of at most :data:`MAX_COLUMNS` columns
    (``rows``: one column), laid out by matplotlib's constrained layout (no clipped label or legend)."""
    cols = 1 if rows else min(max(n, 1), MAX_COLUMNS)
    nrows = math.ceil(max(n, 1) / cols)
    fig = Figure(figsize=(width * cols, height * nrows), dpi=DPI, layout="constrained")
    FigureCanvasAgg(fig)
    grid = fig.subplots(nrows, cols, squeeze=False, sharex=sharex, sharey=sharey)
    axes = list(grid.ravel())
    for ax in axes[max(n, 1):]:
        ax.remove()
    return fig, axes[:max(n, 1)]


def win_rate_panels(summary: pd.DataFrame, rules: str = "", games: Mapping[int, int] | None = None) -> Figure:
    """:func:`draw_win_rates` for every table size, one panel each, one above the other (the same 0–100% axis).

    Args:
        summary: ``Analysis.summary`` (``players`` and :data:`WIN_RATE_COLUMNS`; rates in [0, 1]).
        rules: the rule preset's name for the titles. games: games played per table size, for the titles.
    """
    sizes = sorted(summary["players"].unique())
    k = summary.groupby("players")["agent"].nunique().max()
    w, h = _win_rate_size(int(k))
    fig, axes = _panels(len(sizes), width=w, height=h, rows=True)
    for ax, p in zip(axes, sizes):
        draw_win_rates(ax, summary[summary["players"] == p], int(p),
                       plot_title("Win rates", rules, int(p), (games or {}).get(int(p))))
    return fig


def _cell_text(v: float) -> str:
    """A head-to-head share in percent: one decimal, more when it would print as 0% or 100% without being it."""
    return fixed(100 * v, decimals_apart([100 * v, 0.0, 100.0], 1)) + "%"


def pairwise_figure(pairwise: pd.DataFrame, rules: str = "", games: Mapping[int, int] | None = None) -> Figure:
    """Heat map of ``ahead_share`` in percent (row agent ahead of column agent), annotated, one panel per size.

    Every panel has the same colour scale (0–100%, one colour bar under the panels). A cell of an agent against
    itself is grey with ``–``; a pair that never met at that table size is hatched with ``n/a``.

    Args:
        pairwise: ``Analysis.pairwise`` (players, agent, opponent, comparisons, ahead_share).
        rules: the rule preset's name for the titles. games: games played per table size, for the titles.
    """
    sizes = sorted(pairwise.loc[pairwise["comparisons"] > 0, "players"].unique())
    k = max(2, pairwise["agent"].nunique())
    longest = max([len(s) for s in _labels(pairwise["agent"].unique())] or [8])
    # wide enough for the cells, the row labels beside them, and the title over them (about 0.07 inch a character)
    side = max(4.6, 0.72 * k + 0.065 * longest + 1.3, 0.07 * (50 + longest) + 0.8)
    fig, axes = _panels(max(1, len(sizes)), width=side, height=side - 0.6)
    if not sizes:
        axes[0].text(0.5, 0.5, "no two different agents met", ha="center", va="center", transform=axes[0].transAxes)
        axes[0].set_axis_off()
        return fig
    im = None
    for ax, p in zip(axes, sizes):
        d = pairwise[pairwise["players"] == p]
        names = list(dict.fromkeys(d["agent"].tolist() + d["opponent"].tolist()))
        met = d.pivot(index="agent", columns="opponent", values="comparisons").reindex(index=names, columns=names)
        m = d.pivot(index="agent", columns="opponent", values="ahead_share").reindex(index=names, columns=names)
        values = 100 * m.to_numpy(float)
        values[~(met.to_numpy(float) > 0)] = np.nan
        im = ax.imshow(values, cmap="RdBu_r", vmin=0.0, vmax=100.0, aspect="auto")  # "equal" defeats the layout
        ax.set_facecolor("0.88")
        ax.set_xticks(range(len(names)), _labels(names), rotation=30, ha="right", fontsize=MIN_FONT + 0.5)
        ax.set_yticks(range(len(names)), _labels(names), fontsize=MIN_FONT + 0.5)
        never = False
        for i in range(len(names)):
            for j in range(len(names)):
                v = values[i, j]
                if i == j:
                    ax.text(j, i, "–", ha="center", va="center", fontsize=9, color="0.35")
                elif np.isfinite(v):
                    ax.text(j, i, _cell_text(v / 100), ha="center", va="center", fontsize=MIN_FONT + 0.5,
                            color="white" if abs(v - 50) > 30 else "black")
                else:
                    never = True
                    ax.add_patch(_hatched(j, i))
                    ax.text(j, i, "n/a", ha="center", va="center", fontsize=MIN_FONT, color="0.3")
        ax.set_xlabel("opponent" + ("   (n/a: never met at this table size)" if never else ""), fontsize=9)
        ax.set_ylabel("agent (row)", fontsize=9)
        ax.set_title(plot_title("Share of comparisons the row agent finished ahead", rules, int(p),
                                (games or {}).get(int(p)), two_lines=True), fontsize=9)
    bar = fig.colorbar(im, ax=axes, location="bottom", aspect=40, shrink=0.7 if len(sizes) > 1 else 0.9,
                       fraction=0.035 if len(sizes) > 2 else 0.05)
    bar.ax.xaxis.set_major_formatter(PercentFormatter(100, decimals=0))
    bar.ax.tick_params(labelsize=MIN_FONT + 0.5)
    bar.set_label("row agent finished ahead of column agent", fontsize=9)
    return fig


def _hatched(x: float, y: float):
    from matplotlib.patches import Rectangle

    return Rectangle((x - 0.5, y - 0.5), 1, 1, facecolor="none", edgecolor="0.6", hatch="//", lw=0)


def money(x: float, unit: str = "$") -> str:
    """A total for an axis: ``$0``, ``$250k``, ``$1.2M`` (``unit="points"``: ``250``, ``1.2k``)."""
    a = abs(x)
    if unit != "$":
        return f"{x / 1000:g}k" if a >= 1000 else f"{x:g}"
    if a >= 1e6:
        return f"${x / 1e6:.1f}M".replace(".0M", "M")
    if a >= 1e3:
        return f"${x / 1e3:g}k"
    return f"${x:g}"


def _nice_width(span: float, target_bins: int = 40) -> float:
    """A bin width of 1, 2, 2.5 or 5 times a power of ten giving about ``target_bins`` bins over ``span``."""
    if not np.isfinite(span) or span <= 0:
        return 1.0
    raw = span / target_bins
    e = 10 ** math.floor(math.log10(raw))
    return next(m * e for m in (1, 2, 2.5, 5, 10) if m * e >= raw)


def totals_figure(games: pd.DataFrame, rules: str = "", unit: str = "$", agents: Sequence[str] | None = None
                  ) -> Figure:
    """Distribution of final totals per agent over its seat-games, one panel per table size.

    Step histograms with bins of one round width for the whole figure (:func:`_nice_width`, e.g. $25,000) on one
    dollar axis shared by every panel; the y axis is the share (%) of the agent's seat-games in each bin, so agents
    that hold different numbers of seats compare directly. Each agent keeps its colour in every panel
    (:func:`agent_colours`), and one legend under the panels names them.

    Args:
        games: stored games (:func:`cya_sim.results.folder.games_schema`). rules: the preset's name for the titles.
        unit: ``"$"`` (dollars), or ``"points"`` for the theft game (RULES.md §9), whose totals are points.
        agents: the agents in the order of the legend (default: sorted names).
    """
    sizes = sorted(int(p) for p in games["players"].unique())
    seat_agents = {p: [games.loc[games["players"] == p, f"seat_{s}_agent"] for s in range(p)] for p in sizes}
    present = sorted(set().union(*(set(pd.unique(c).tolist()) for cs in seat_agents.values() for c in cs)))
    order = [a for a in (agents or []) if a in present] + [a for a in present if a not in (agents or [])]
    colours = agent_colours(order)
    every = [games.loc[games["players"] == p, f"seat_{s}_total"].to_numpy(np.float64) for p in sizes for s in range(p)]
    every = np.concatenate(every) if every else np.zeros(0)
    lo, hi = (float(every.min()), float(every.max())) if len(every) else (0.0, 1.0)
    w = _nice_width(hi - lo)
    bins = np.arange(math.floor(lo / w) * w, hi + w, w)
    if len(bins) < 2:
        bins = np.array([lo, lo + w])
    fig, axes = _panels(len(sizes), width=5.6, height=3.9, sharex=True)
    for ax, p in zip(axes, sizes):
        d = games[games["players"] == p]
        agent = np.concatenate([pd.Categorical(c, categories=order).codes for c in seat_agents[p]])
        total = np.concatenate([d[f"seat_{s}_total"].to_numpy(np.float64) for s in range(p)])
        for i, name in enumerate(order):
            mine = total[agent == i]
            if len(mine):
                counts, _ = np.histogram(mine, bins=bins)
                ax.stairs(100 * counts / len(mine), bins, lw=1.5, color=colours[name], label=short_agent_name(name))
        ax.xaxis.set_major_formatter(FuncFormatter(lambda x, _pos: money(x, unit)))
        ax.yaxis.set_major_locator(MaxNLocator(nbins=8, steps=[1, 2, 5, 10]))  # round ticks, printed as they are
        ax.yaxis.set_major_formatter(PercentFormatter(100, decimals=None))
        ax.tick_params(labelsize=MIN_FONT + 0.5)
        what = "dollars" if unit == "$" else "points"
        ax.set_xlabel(f"final total ({what}; bins of {money(w, unit)})", fontsize=9)
        ax.set_ylabel("share of the agent's seat-games", fontsize=9)
        ax.set_title(plot_title("Final totals", rules, p, len(d)), fontsize=9)
        ax.tick_params(axis="x", labelbottom=True)
    handles = {}
    for ax in axes:
        for hd, lb in zip(*ax.get_legend_handles_labels()):
            handles.setdefault(lb, hd)
    fig.legend(handles.values(), handles.keys(), loc="outside lower center", ncol=min(len(handles), 3),
               fontsize=MIN_FONT + 0.5, frameon=False)
    return fig


def seats_figure(seats: pd.DataFrame, rules: str = "", games: Mapping[int, int] | None = None) -> Figure:
    """Win rate (%) by seat and by turn order (all agents), points with intervals and the fair share, per size.

    Each panel's y axis is centred on its fair share 1/P and spans the same number of points in every panel (seat
    effects are a few points: the widest interval of the figure sets the span), with labelled percent ticks; the
    legend, with each test's p-values, sits under the panel.

    Args:
        seats: ``Analysis.seats`` (rows with agent ``(all)`` are drawn).
        rules: the rule preset's name for the titles. games: games played per table size, for the titles.
    """
    sizes = sorted(seats["players"].unique())
    fig, axes = _panels(len(sizes), width=5.6, height=4.4)
    every = seats[seats["agent"] == "(all)"]
    fair = 1.0 / every["players"].to_numpy(float)
    reach = np.nanmax(np.abs(np.concatenate([every["win_rate_ci_low"].to_numpy(float) - fair,
                                             every["win_rate_ci_high"].to_numpy(float) - fair])), initial=0.0)
    half = 100 * max(0.005, 1.1 * float(reach))  # points of percent above and below the fair share, every panel
    for ax, p in zip(axes, sizes):
        d = seats[(seats["players"] == p) & (seats["agent"] == "(all)")]
        for off, (position, colour, marker) in zip((-0.12, 0.12), (("seat", GAME_COLOUR, "o"),
                                                                   ("turn_order", SEAT_COLOUR, "s"))):
            s = d[d["position"] == position]
            rate = 100 * s["win_rate"].to_numpy(float)
            err = np.clip(np.vstack([rate - 100 * s["win_rate_ci_low"].to_numpy(float),
                                     100 * s["win_rate_ci_high"].to_numpy(float) - rate]), 0.0, None)
            pv = s["p_value"].iloc[0] if len(s) else np.nan
            ph = s["p_holm"].iloc[0] if len(s) else np.nan
            label = "seat (chair)" if position == "seat" else "turn order (0 = first to move)"
            ax.errorbar(s["seat"].to_numpy() + off, rate, yerr=err, fmt=marker, ms=5, color=colour, capsize=3,
                        elinewidth=1.6, label=f"{label}: score-test p = {pv:.3g}, Holm p = {ph:.3g}")
        ax.axhline(100.0 / p, color=FAIR_COLOUR, ls="--", lw=1.2, label=f"fair share 1/{p}")
        ax.set_xticks(range(p))
        ax.tick_params(labelsize=MIN_FONT + 0.5)
        ax.set_xlabel("seat / turn-order position", fontsize=9)
        ax.set_ylabel("win rate (95% interval, deal-clustered)", fontsize=9)
        # zoom on the fair share (seat effects are a few points at most), by the same number of points in every
        # panel, so an effect of 2 points looks as large at every table size
        ax.set_ylim(max(-PERCENT_PAD, 100.0 / p - half), min(100.0 + PERCENT_PAD, 100.0 / p + half))
        ax.yaxis.set_major_locator(MaxNLocator(nbins=7, steps=[1, 2, 5, 10]))  # round ticks, printed as they are
        ax.yaxis.set_major_formatter(PercentFormatter(100, decimals=None))
        ax.set_title(plot_title("Win rate by position", rules, int(p), (games or {}).get(int(p))), fontsize=9)
        _legend_below(ax)
    return fig


#: Most bars of the game-length figure that each get a label and a tick.
MAX_LABELLED_BARS = 15


def rounds_figure(rounds: pd.DataFrame, rules: str = "", length: str = "rounds") -> Figure:
    """Share of games (%) by number of rounds (FACT-ROUNDS), or of the family's other length column (turns of the
    theft game), one panel per table size.

    Every panel has the same x axis (the lengths of every table size) and, while each bar is labelled (at most
    :data:`MAX_LABELLED_BARS`), the same 0–100% y axis, so panels compare bar for bar; each bar then carries its
    share, and the mean is a marker on the axis (not a line through the labels).

    Args:
        rounds: ``Analysis.length_counts`` (players, ``length``, games, share). rules: the preset's name for the
            titles. length: the length column (``Analysis.family.length``).
    """
    sizes = sorted(rounds["players"].unique())
    first, last = (int(rounds[length].min()), int(rounds[length].max())) if len(rounds) else (1, 1)
    few = last - first + 1 <= MAX_LABELLED_BARS
    fig, axes = _panels(len(sizes), width=5.0, height=3.8, sharey=few)
    for ax, p in zip(axes, sizes):
        d = rounds[rounds["players"] == p]
        share = 100 * d["share"].to_numpy(float)
        ax.bar(d[length].to_numpy(), share, color="#6A5ACD", zorder=2)
        few = last - first + 1 <= MAX_LABELLED_BARS  # a label and a tick per bar while they fit (rounds); else an
        for x, s in zip(d[length].to_numpy(), share if few else ()):  # axis (turns)
            ax.annotate(f"{fixed(s, decimals_apart([s, 0.0, 100.0], 1))}%", (x, s), ha="center", va="bottom",
                        fontsize=MIN_FONT, xytext=(0, 2), textcoords="offset points")
        n = int(d["games"].sum())
        mean = float((d[length] * d["games"]).sum() / max(1, n))
        ax.plot([mean], [0], marker="^", ms=9, color="black", ls="none", clip_on=False, zorder=4,
                label=f"mean {mean:.2f} {length}")
        if few:
            ax.set_xticks(np.arange(first, last + 1))
        else:
            ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_xlim(first - 0.7, last + 0.7)
        ax.set_ylim(0, 112 if few else max(share.max(initial=0.0) * 1.15, 1.0))
        if few:
            ax.yaxis.set_major_locator(MultipleLocator(20))
        ax.yaxis.set_major_formatter(PercentFormatter(100, decimals=None if not few else 0))
        ax.tick_params(labelsize=MIN_FONT + 0.5, labelleft=True)
        ax.set_xlabel(f"{length} per game", fontsize=9)
        ax.set_ylabel("share of games", fontsize=9)
        ax.set_title(plot_title("Game length", rules, int(p), n), fontsize=9)
        ax.legend(fontsize=MIN_FONT, loc="upper right", frameon=False)
    return fig


def save_all(analysis, games: pd.DataFrame, folder: str | Path, write=None, rules: str = "",
             unit: str = "$", parallel: bool = False) -> list[Path]:
    """Write every figure of :func:`plots_of` the analysis' family as PNG into ``folder``.

    Args:
        analysis: a :class:`cya_sim.reports.analysis.Analysis`. games: the stored games.
        folder: destination. write: ``write(path, fn)`` used to write a file
            atomically (default: write directly).
        rules: the rule preset's name, written in every title. unit: ``"$"``, or ``"points"`` (theft game totals).
        parallel: draw two of the figures in a second process meanwhile (:func:`cya_sim.reports.side_by_side.side_by_side`;
            the same files either way).

    Raises:
        OSError: a file cannot be written.
    """
    folder = Path(folder)
    n = _games_by_size(analysis)
    agents = list(dict.fromkeys(analysis.summary["agent"]))
    figs = {
        "win_rates.png": lambda: win_rate_panels(analysis.summary, rules, n),
        "pairwise.png": lambda: pairwise_figure(analysis.pairwise, rules, n),
        "totals.png": lambda: totals_figure(games, rules, unit, agents),
        "seats.png": lambda: seats_figure(analysis.seats, rules, n),
        f"{analysis.family.length}.png": lambda: rounds_figure(analysis.length_counts, rules, analysis.family.length),
    }
    def draw(name: str, make) -> Path:
        fig = make()
        path = folder / name
        if write is None:
            fig.savefig(path, format="png")
        else:
            write(path, lambda p: fig.savefig(p, format="png"))
        return path

    # on a long run the game-level figures are drawn in a second process meanwhile (cya_sim.reports.side_by_side)
    names = list(figs)
    return side_by_side([lambda name=name: draw(name, figs[name]) for name in names],
                        child=[names.index("totals.png"), names.index("seats.png")], parallel=parallel)
