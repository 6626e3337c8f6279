"""Tournament plots, drawn with matplotlib's Agg canvas (no display, no pyplot state).

:func:`win_rate_figure` draws the win rates of one table size. The report of a
results folder (:mod:`cya_sim.reports.report`) draws the figures of
:data:`PLOTS` from the tables of :class:`cya_sim.reports.analysis.Analysis`, one
panel per table size, so an experiment over several table sizes still has one
file per figure; :func:`save_all` writes them.

Every figure is drawn to be put in a paper as it is:

- rates are on percent axes, as in the tables (``summary.csv`` stores proportions
  in [0, 1]; the plots multiply by 100 only on the axis);
- each estimate is a point with its 95% interval as an error bar, and the
  estimate and interval are printed beside it, so an interval narrower than the
  point (a million games) is still read;
- each panel's title carries the rules, the table size and the number of games;
- legends sit inside the axes frame;
- agent specs are shortened (:func:`short_agent_name`) and written on one line.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter, MaxNLocator, PercentFormatter

WIN_RATE_COLUMNS = ("agent", "game_win_rate", "game_win_rate_ci_low", "game_win_rate_ci_high", "game_win_rate_fair",
                    "seat_share", "seat_share_ci_low", "seat_share_ci_high", "seat_share_fair")

#: Colours of the two win rates (per-game, per-seat) and of fair values, used by every figure.
GAME_COLOUR, SEAT_COLOUR, FAIR_COLOUR = "#2F5597", "#2E8B57", "#C0392B"


def short_agent_name(spec: str) -> str:
    """An agent spec shortened for a plot label: ``heuristic(count=true, backup=true)`` -> ``heuristic(count, backup)``.

    Boolean switches set to true keep only their name; every other parameter is kept
    as written. The result is one line (no wrapping), so a label never breaks inside a
    parameter list.
    """
    return re.sub(r"\s*=\s*true\b", "", str(spec))


def _labels(names) -> list[str]:
    return [short_agent_name(n) for n in names]


def plot_title(what: str, rules: str, n_players: int, n_games: int | None) -> str:
    """A panel title: ``what — classic rules, 4 players, 1,000,000 games`` (parts left out when unknown).

    Args:
        what: the quantity drawn. rules: the rule preset's name (``""``: not said).
        n_players: table size P. n_games: games played at that table size (None: not said).
    """
    parts = ([f"{rules} rules"] if rules else []) + [f"{n_players} players"]
    if n_games is not None:
        parts.append(f"{int(n_games):,} games")
    return f"{what} — {', '.join(parts)}"


def _interval_text(rate: float, low: float, high: float) -> str:
    """``76.7% [76.6, 76.8]``: a rate and its interval in percent, one decimal (two below 1%)."""
    d = 2 if max(abs(rate), abs(high)) < 0.01 else 1
    return f"{100 * rate:.{d}f}% [{100 * low:.{d}f}, {100 * high:.{d}f}]"


def draw_win_rates(ax, summary: pd.DataFrame, n_players: int, title: str = "") -> None:
    """Per-game win rate and per-seat share of each agent as points with 95% intervals, on ``ax``.

    A dot plot with one row per agent (top to bottom in the order of ``summary``):
    the per-game win rate (share of games won by any copy of the agent, a circle)
    and the per-seat win share (wins per seat-game, a square), each with its
    game/deal-clustered 95% interval (:func:`cya_sim.reports.stats.summarize`) as an
    error bar, a vertical tick at its fair value ((seats held)/P and 1/P), and the
    estimate with its interval printed at the right of the frame. The x axis is in
    percent, 0 to 100.

    Args:
        ax: a matplotlib Axes. summary: rows with :data:`WIN_RATE_COLUMNS` (rates in [0, 1]).
        n_players: P (used in the legend's fair values). title: the panel title (none when empty).

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
                            va="center", ha="left", fontsize=7.5, color=colour)
    ax.annotate("estimate [95% CI]", xy=(1.01, 1.0), xycoords="axes fraction", va="bottom", ha="left", fontsize=7.5)
    ax.set_yticks(y, _labels(summary["agent"]), fontsize=9)
    ax.set_ylim(-0.7, n - 0.3)
    ax.set_xlim(0, 100)
    ax.xaxis.set_major_formatter(PercentFormatter(100, decimals=0))
    ax.set_xlabel("win rate (95% interval, game/deal-clustered)")
    ax.grid(axis="x", color="0.9", zorder=0)
    ax.legend(loc="lower right", fontsize=7.5, framealpha=0.95)
    if title:
        ax.set_title(title, fontsize=10, loc="left")


def _win_rate_size(n_agents: int, width: float = 9.0) -> tuple[float, float]:
    return width, 0.62 * n_agents + 1.5


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
    fig = Figure(figsize=_win_rate_size(len(summary)), dpi=120)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    draw_win_rates(ax, summary, n_players, title)
    fig.tight_layout()
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


def _panels(n: int, width: float = 5.0, height: float = 4.0, rows: bool = False) -> tuple[Figure, list]:
    """A figure of ``n`` panels side by side (``rows``: one above the other)."""
    fig = Figure(figsize=(width, height * n) if rows else (width * n, height), dpi=110)
    FigureCanvasAgg(fig)
    axes = [fig.add_subplot(n, 1, i + 1) if rows else fig.add_subplot(1, n, i + 1) for i in range(n)]
    return fig, axes


def win_rate_panels(summary: pd.DataFrame, rules: str = "", games: Mapping[int, int] | None = None) -> Figure:
    """:func:`draw_win_rates` for every table size, one panel each, one above the other.

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
    fig.tight_layout()
    return fig


def pairwise_figure(pairwise: pd.DataFrame, rules: str = "", games: Mapping[int, int] | None = None) -> Figure:
    """Heat map of ``ahead_share`` in percent (row agent ahead of column agent), annotated, one panel per size.

    Args:
        pairwise: ``Analysis.pairwise`` (players, agent, opponent, comparisons, ahead_share).
        rules: the rule preset's name for the titles. games: games played per table size, for the titles.
    """
    sizes = sorted(pairwise.loc[pairwise["comparisons"] > 0, "players"].unique())
    k = max(2, pairwise["agent"].nunique())
    longest = max([len(s) for s in _labels(pairwise["agent"].unique())] or [8])
    side = max(4.5, 0.85 * k + 0.07 * longest + 2.2)
    fig, axes = _panels(max(1, len(sizes)), width=side + 1.0, height=side)
    fig.set_layout_engine("constrained")  # tight_layout clips the y label beside a colour bar
    if not sizes:
        axes[0].text(0.5, 0.5, "no two different agents met", ha="center", va="center", transform=axes[0].transAxes)
        axes[0].set_axis_off()
    for ax, p in zip(axes, sizes):
        d = pairwise[pairwise["players"] == p]
        names = list(dict.fromkeys(d["agent"].tolist() + d["opponent"].tolist()))
        m = d.pivot(index="agent", columns="opponent", values="ahead_share").reindex(index=names, columns=names)
        im = ax.imshow(100 * m.to_numpy(float), cmap="RdBu_r", vmin=0.0, vmax=100.0)
        ax.set_xticks(range(len(names)), _labels(names), rotation=30, ha="right", fontsize=8)
        ax.set_yticks(range(len(names)), _labels(names), fontsize=8)
        for i in range(len(names)):
            for j in range(len(names)):
                v = m.iat[i, j]
                if np.isfinite(v):
                    ax.text(j, i, f"{100 * v:.1f}%", ha="center", va="center", fontsize=8,
                            color="white" if abs(v - 0.5) > 0.3 else "black")
        ax.set_xlabel("opponent")
        ax.set_ylabel("agent")
        ax.set_title(plot_title("Share of comparisons finished ahead", rules, int(p), (games or {}).get(int(p))),
                     fontsize=9)
        bar = fig.colorbar(im, ax=ax, fraction=0.046, pad=0.04)
        bar.ax.yaxis.set_major_formatter(PercentFormatter(100, decimals=0))
    return fig


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


def totals_figure(games: pd.DataFrame, rules: str = "", unit: str = "$") -> Figure:
    """Distribution of final totals per agent over its seat-games, one panel per table size.

    Step histograms with bins of a round width (:func:`_nice_width`, e.g. $25,000); the y
    axis is the share (%) of the agent's seat-games in each bin, so agents that hold
    different numbers of seats compare directly; the x axis is in dollars ($250k, $1M).

    Args:
        games: stored games (:func:`cya_sim.results.folder.games_schema`). rules: the preset's name for the titles.
        unit: ``"$"`` (dollars), or ``"points"`` for the theft game (RULES.md §9), whose totals are points.
    """
    sizes = sorted(int(p) for p in games["players"].unique())
    fig, axes = _panels(len(sizes), width=6.0, height=4.2)
    for ax, p in zip(axes, sizes):
        d = games[games["players"] == p]
        names = sorted(set().union(*(set(pd.unique(d[f"seat_{s}_agent"]).tolist()) for s in range(p))))
        agent = np.concatenate([pd.Categorical(d[f"seat_{s}_agent"], categories=names).codes for s in range(p)])
        total = np.concatenate([d[f"seat_{s}_total"].to_numpy(np.float64) for s in range(p)])
        lo, hi = (float(total.min()), float(total.max())) if len(total) else (0.0, 1.0)
        w = _nice_width(hi - lo)
        bins = np.arange(math.floor(lo / w) * w, hi + w, w)
        if len(bins) < 2:
            bins = np.array([lo, lo + w])
        for i, name in enumerate(names):
            mine = total[agent == i]
            counts, _ = np.histogram(mine, bins=bins)
            ax.stairs(100 * counts / max(1, len(mine)), bins, lw=1.5, label=short_agent_name(name))
        ax.xaxis.set_major_formatter(FuncFormatter(lambda x, _pos: money(x, unit)))
        ax.yaxis.set_major_formatter(PercentFormatter(100, decimals=1 if ax.get_ylim()[1] < 5 else 0))
        what = "dollars" if unit == "$" else "points"
        ax.set_xlabel(f"final total ({what}; bins of {money(w, unit)})")
        ax.set_ylabel("share of the agent's seat-games")
        ax.set_title(plot_title("Final totals", rules, p, len(d)), fontsize=9)
        ax.legend(fontsize=7.5, loc="best", framealpha=0.95)
    fig.tight_layout()
    return fig


def seats_figure(seats: pd.DataFrame, rules: str = "", games: Mapping[int, int] | None = None) -> Figure:
    """Win rate (%) by seat and by turn order (all agents), points with intervals and the fair share, per size.

    Args:
        seats: ``Analysis.seats`` (rows with agent ``(all)`` are drawn).
        rules: the rule preset's name for the titles. games: games played per table size, for the titles.
    """
    sizes = sorted(seats["players"].unique())
    fig, axes = _panels(len(sizes), width=6.0, height=4.2)
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
        ax.set_xlabel("seat / turn-order position")
        ax.set_ylabel("win rate (95% interval, deal-clustered)")
        # zoom on the fair share: seat effects are a few points at most, so the axis does not start at 0
        lo = 100 * float(np.nanmin(d["win_rate_ci_low"].to_numpy(float), initial=1.0 / p))
        hi = 100 * float(np.nanmax(d["win_rate_ci_high"].to_numpy(float), initial=1.0 / p))
        pad = max(0.5, 0.5 * (hi - lo))
        ax.set_ylim(max(0.0, min(lo, 100.0 / p) - pad), min(100.0, max(hi, 100.0 / p) + 3 * pad))
        ax.yaxis.set_major_formatter(PercentFormatter(100, decimals=1))
        ax.set_title(plot_title("Win rate by position", rules, int(p), (games or {}).get(int(p))), fontsize=9)
        ax.legend(fontsize=7, loc="upper right", framealpha=0.95)
    fig.tight_layout()
    return fig


#: Most bars of the game-length figure that each get a label and a tick.
MAX_LABELLED_BARS = 15


def rounds_figure(rounds: pd.DataFrame, rules: str = "", length: str = "rounds") -> Figure:
    """Share of games (%) by number of rounds (FACT-ROUNDS), or of the family's other length column (turns of the
    theft game), one panel per table size.

    Args:
        rounds: ``Analysis.length_counts`` (players, ``length``, games, share). rules: the preset's name for the
            titles. length: the length column (``Analysis.family.length``).
    """
    sizes = sorted(rounds["players"].unique())
    fig, axes = _panels(len(sizes), width=5.0, height=4.0)
    for ax, p in zip(axes, sizes):
        d = rounds[rounds["players"] == p]
        share = 100 * d["share"].to_numpy(float)
        ax.bar(d[length].to_numpy(), share, color="#6A5ACD")
        few = len(d) <= MAX_LABELLED_BARS  # a label and a tick per bar while they fit (rounds); else an axis (turns)
        for x, s in zip(d[length].to_numpy(), share if few else ()):
            ax.annotate(f"{s:.1f}%" if s >= 0.05 else "<0.1%", (x, s), ha="center", va="bottom", fontsize=7,
                        xytext=(0, 2), textcoords="offset points")
        n = int(d["games"].sum())
        mean = float((d[length] * d["games"]).sum() / max(1, n))
        ax.axvline(mean, color="black", ls=":", label=f"mean {mean:.2f} {length}")
        if few:
            ax.set_xticks(d[length].to_numpy())
        else:
            ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_ylim(0, max(share.max(initial=0.0) * 1.15, 1.0))
        ax.yaxis.set_major_formatter(PercentFormatter(100, decimals=0))
        ax.set_xlabel(f"{length} per game")
        ax.set_ylabel("share of games")
        ax.set_title(plot_title("Game length", rules, int(p), n), fontsize=9)
        ax.legend(fontsize=8, loc="upper right", framealpha=0.95)
    fig.tight_layout()
    return fig


def save_all(analysis, games: pd.DataFrame, folder: str | Path, write=None, rules: str = "",
             unit: str = "$") -> list[Path]:
    """Write every figure of :func:`plots_of` the analysis' family as PNG into ``folder``.

    Args:
        analysis: a :class:`cya_sim.reports.analysis.Analysis`. games: the stored games.
        folder: destination. write: ``write(path, fn)`` used to write a file
            atomically (default: write directly).
        rules: the rule preset's name, written in every title. unit: ``"$"``, or ``"points"`` (theft game totals).

    Raises:
        OSError: a file cannot be written.
    """
    folder = Path(folder)
    n = _games_by_size(analysis)
    figs = {
        "win_rates.png": lambda: win_rate_panels(analysis.summary, rules, n),
        "pairwise.png": lambda: pairwise_figure(analysis.pairwise, rules, n),
        "totals.png": lambda: totals_figure(games, rules, unit),
        "seats.png": lambda: seats_figure(analysis.seats, rules, n),
        f"{analysis.family.length}.png": lambda: rounds_figure(analysis.length_counts, rules, analysis.family.length),
    }
    paths = []
    for name, make in figs.items():
        fig = make()
        path = folder / name
        if write is None:
            fig.savefig(path, format="png")
        else:
            write(path, lambda p, fig=fig: fig.savefig(p, format="png"))
        paths.append(path)
    return paths
