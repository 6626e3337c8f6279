"""Tournament plots, drawn with matplotlib's Agg canvas (no display, no pyplot state).

:func:`win_rate_figure` is the flags-only tournament's ``win_rates.png``. The
report of an experiment (:mod:`cya_sim.reports.report`) draws the figures of
:data:`PLOTS` from the tables of :class:`cya_sim.reports.analysis.Analysis`, one panel
per table size, so an experiment over several table sizes still has one file
per figure; :func:`save_all` writes them.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

WIN_RATE_COLUMNS = ("agent", "game_win_rate", "game_win_rate_ci_low", "game_win_rate_ci_high", "game_win_rate_fair",
                    "seat_share", "seat_share_ci_low", "seat_share_ci_high", "seat_share_fair")


def _agent_labels(names) -> list[str]:
    """Agent names wrapped at about 16 characters (long specs such as ``heuristic(count=true, ...)``)."""
    return [textwrap.fill(str(n), 16, break_long_words=True) for n in names]


def draw_win_rates(ax, summary: pd.DataFrame, n_players: int) -> None:
    """Per-game win rate and per-seat share of each agent, with 95% intervals and fair values, on ``ax``.

    Two bars per agent: the per-game win rate (share of games won by any copy
    of the agent) and the per-seat win share, each with its game/deal-clustered
    95% interval (:func:`cya_sim.reports.stats.summarize`) and a black tick at its
    fair value ((seats held)/P and 1/P). Labels are wrapped and rotated so
    long agent specs do not overlap.

    Args:
        ax: a matplotlib Axes. summary: rows with :data:`WIN_RATE_COLUMNS` (rates in [0, 1]).
        n_players: P.

    Raises:
        ValueError: a required column is missing.
    """
    need = set(WIN_RATE_COLUMNS)
    if not need <= set(summary.columns):
        raise ValueError(f"summary needs the columns {', '.join(sorted(need))}")
    x = np.arange(len(summary))
    for off, key, color, label in ((-0.2, "game_win_rate", "#4C72B0", "per-game win rate (any copy wins)"),
                                   (0.2, "seat_share", "#55A868", "per-seat win share")):
        rate = summary[key].to_numpy(float)
        err = np.clip(np.vstack([rate - summary[f"{key}_ci_low"].to_numpy(float),
                                 summary[f"{key}_ci_high"].to_numpy(float) - rate]), 0.0, None)
        ax.bar(x + off, rate, width=0.38, color=color, label=label)
        ax.errorbar(x + off, rate, yerr=err, fmt="none", ecolor="black", capsize=4, lw=1.0)
        ax.hlines(summary[f"{key}_fair"].to_numpy(float), x + off - 0.19, x + off + 0.19, colors="#C44E52",
                  linestyles="--", lw=1.4, label="fair value" if key == "seat_share" else None)
    ax.set_xticks(x, _agent_labels(summary["agent"]), rotation=30, ha="right", fontsize=8)
    ax.set_ylabel("win rate (95% interval, game/deal-clustered)")
    ax.set_ylim(0.0, 1.08)
    ax.legend(loc="upper left", fontsize=7, ncol=3)


def win_rate_figure(summary: pd.DataFrame, n_players: int, title: str = "") -> Figure:
    """Per-game win rate and per-seat share per agent with intervals and fair values (``win_rates.png``).

    Args:
        summary: the table of :func:`cya_sim.reports.stats.summarize` (:data:`WIN_RATE_COLUMNS`; rates in [0, 1]).
        n_players: table size P, >= 1.
        title: figure title.

    Returns:
        a matplotlib ``Figure`` attached to an Agg canvas.

    Raises:
        ValueError: ``n_players`` < 1 or a required column is missing.
    """
    if n_players < 1:
        raise ValueError(f"n_players is {n_players!r}; it must be >= 1")
    fig = Figure(figsize=(max(5.0, 1.4 * len(summary) + 2.5), 4.6), dpi=120)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    draw_win_rates(ax, summary, n_players)
    if title:
        ax.set_title(title, fontsize=9)
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
    "win_rates.png": "per agent: per-game win rate and per-seat win share with 95% game/deal-clustered intervals "
                     "and their fair values",
    "pairwise.png": "head-to-head matrix: share of comparisons the row agent finished ahead",
    "totals.png": "distribution of final totals per agent",
    "seats.png": "win rate by seat and by turn order, with 95% deal-clustered intervals and the agent-adjusted "
                 "score test's p-value",
    "rounds.png": "rounds per game",
}


def _panels(n: int, width: float = 5.0, height: float = 4.0) -> tuple[Figure, list]:
    fig = Figure(figsize=(width * n, height), dpi=110)
    FigureCanvasAgg(fig)
    axes = [fig.add_subplot(1, n, i + 1) for i in range(n)]
    return fig, axes


def win_rate_panels(summary: pd.DataFrame) -> Figure:
    """:func:`draw_win_rates` for every table size, one panel each.

    Args:
        summary: ``Analysis.summary`` (``players`` and :data:`WIN_RATE_COLUMNS`; rates in [0, 1]).
    """
    sizes = sorted(summary["players"].unique())
    fig, axes = _panels(len(sizes), width=max(5.0, 1.4 * summary["agent"].nunique() + 2.5), height=4.8)
    for ax, p in zip(axes, sizes):
        draw_win_rates(ax, summary[summary["players"] == p], int(p))
        ax.set_title(f"{p} players", fontsize=10)
    fig.tight_layout()
    return fig


def pairwise_figure(pairwise: pd.DataFrame) -> Figure:
    """Heatmap of ``ahead_share`` (row agent ahead of column agent), annotated, one panel per table size.

    Args:
        pairwise: ``Analysis.pairwise`` (players, agent, opponent, ahead_share, p_value).
    """
    sizes = sorted(pairwise.loc[pairwise["comparisons"] > 0, "players"].unique())
    k = max(2, pairwise["agent"].nunique())
    fig, axes = _panels(max(1, len(sizes)), width=max(4.5, 0.9 * k + 2.5), height=max(3.5, 0.7 * k + 1.8))
    if not sizes:
        axes[0].text(0.5, 0.5, "no two different agents met", ha="center", va="center", transform=axes[0].transAxes)
        axes[0].set_axis_off()
    for ax, p in zip(axes, sizes):
        d = pairwise[pairwise["players"] == p]
        names = list(dict.fromkeys(d["agent"].tolist() + d["opponent"].tolist()))
        m = d.pivot(index="agent", columns="opponent", values="ahead_share").reindex(index=names, columns=names)
        im = ax.imshow(m.to_numpy(float), cmap="RdBu_r", vmin=0.0, vmax=1.0)
        ax.set_xticks(range(len(names)), _agent_labels(names), rotation=30, ha="right", fontsize=8)
        ax.set_yticks(range(len(names)), _agent_labels(names), fontsize=8)
        for i in range(len(names)):
            for j in range(len(names)):
                v = m.iat[i, j]
                if np.isfinite(v):
                    ax.text(j, i, f"{v:.3f}", ha="center", va="center", fontsize=8,
                            color="white" if abs(v - 0.5) > 0.3 else "black")
        ax.set_xlabel("opponent")
        ax.set_ylabel("agent")
        ax.set_title(f"{p} players: share finished ahead", fontsize=10)
        fig.colorbar(im, ax=ax, fraction=0.046, pad=0.04)
    fig.tight_layout()
    return fig


def totals_figure(games: pd.DataFrame) -> Figure:
    """Histogram (step) of final totals in dollars per agent over its seat-games, one panel per table size.

    Args:
        games: stored games (:func:`cya_sim.runs.runner.games_schema`).
    """
    sizes = sorted(int(p) for p in games["players"].unique())
    fig, axes = _panels(len(sizes))
    for ax, p in zip(axes, sizes):
        d = games[games["players"] == p]
        names = sorted(set().union(*(set(pd.unique(d[f"seat_{s}_agent"]).tolist()) for s in range(p))))
        agent = np.concatenate([pd.Categorical(d[f"seat_{s}_agent"], categories=names).codes for s in range(p)])
        total = np.concatenate([d[f"seat_{s}_total"].to_numpy(np.float64) for s in range(p)]) / 1000.0
        bins = np.histogram_bin_edges(total, bins=40)
        for i, name in enumerate(names):
            counts, _ = np.histogram(total[agent == i], bins=bins, density=True)
            ax.stairs(counts, bins, lw=1.5, label=str(name))
        ax.set_xlabel("final total (thousand dollars)")
        ax.set_ylabel("density")
        ax.set_title(f"{p} players", fontsize=10)
        ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


def seats_figure(seats: pd.DataFrame) -> Figure:
    """Win rate by seat and by turn order (all agents), with intervals and the fair share, one panel per size.

    Args:
        seats: ``Analysis.seats`` (rows with agent ``(all)`` are drawn).
    """
    sizes = sorted(seats["players"].unique())
    fig, axes = _panels(len(sizes))
    for ax, p in zip(axes, sizes):
        d = seats[(seats["players"] == p) & (seats["agent"] == "(all)")]
        for off, (position, color) in zip((-0.2, 0.2), (("seat", "#4C72B0"), ("turn_order", "#55A868"))):
            s = d[d["position"] == position]
            rate = s["win_rate"].to_numpy(float)
            err = np.clip(np.vstack([rate - s["win_rate_ci_low"].to_numpy(float),
                                     s["win_rate_ci_high"].to_numpy(float) - rate]), 0.0, None)
            pv = s["p_value"].iloc[0] if len(s) else np.nan
            ph = s["p_holm"].iloc[0] if len(s) else np.nan
            label = "seat (chair)" if position == "seat" else "turn order (0 = first to move)"
            ax.bar(s["seat"].to_numpy() + off, rate, width=0.4, color=color,
                   label=f"{label}: score-test p={pv:.3g}, Holm p={ph:.3g}")
            ax.errorbar(s["seat"].to_numpy() + off, rate, yerr=err, fmt="none", ecolor="black", capsize=4)
        ax.axhline(1.0 / p, color="#C44E52", ls="--", lw=1.2, label=f"fair share 1/{p}")
        ax.set_xticks(range(p))
        ax.set_xlabel("seat / turn-order position")
        ax.set_ylabel("win rate")
        # zoom on the fair share: seat effects are a few points at most, so the axis does not start at 0
        lo = float(np.nanmin(d["win_rate_ci_low"].to_numpy(float), initial=1.0 / p))
        hi = float(np.nanmax(d["win_rate_ci_high"].to_numpy(float), initial=1.0 / p))
        pad = max(0.01, 0.5 * (hi - lo))
        ax.set_ylim(max(0.0, min(lo, 1.0 / p) - pad), min(1.0, max(hi, 1.0 / p) + 2 * pad))
        ax.set_title(f"{p} players", fontsize=10)
        ax.legend(fontsize=7, loc="upper right")
    fig.tight_layout()
    return fig


def rounds_figure(rounds: pd.DataFrame) -> Figure:
    """Share of games by number of rounds (FACT-ROUNDS), one panel per table size.

    Args:
        rounds: ``Analysis.rounds`` (players, rounds, games, share).
    """
    sizes = sorted(rounds["players"].unique())
    fig, axes = _panels(len(sizes))
    for ax, p in zip(axes, sizes):
        d = rounds[rounds["players"] == p]
        ax.bar(d["rounds"].to_numpy(), d["share"].to_numpy(float), color="#8172B2")
        mean = float((d["rounds"] * d["games"]).sum() / d["games"].sum())
        ax.axvline(mean, color="black", ls=":", label=f"mean {mean:.2f}")
        ax.set_xticks(d["rounds"].to_numpy())
        ax.set_xlabel("rounds per game")
        ax.set_ylabel("share of games")
        ax.set_title(f"{p} players", fontsize=10)
        ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


def save_all(analysis, games: pd.DataFrame, folder: str | Path, write=None) -> list[Path]:
    """Write every figure of :data:`PLOTS` as PNG into ``folder``.

    Args:
        analysis: a :class:`cya_sim.reports.analysis.Analysis`. games: the stored games.
        folder: destination. write: ``write(path, fn)`` used to write a file
            atomically (default: write directly).

    Raises:
        OSError: a file cannot be written.
    """
    folder = Path(folder)
    figs = {
        "win_rates.png": lambda: win_rate_panels(analysis.summary),
        "pairwise.png": lambda: pairwise_figure(analysis.pairwise),
        "totals.png": lambda: totals_figure(games),
        "seats.png": lambda: seats_figure(analysis.seats),
        "rounds.png": lambda: rounds_figure(analysis.rounds),
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
