"""Tournament plots, drawn with matplotlib's Agg canvas (no display, no pyplot state)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure


def win_rate_figure(summary: pd.DataFrame, n_players: int, title: str = "") -> Figure:
    """Bar chart of win rate per agent with its confidence interval and the fair share.

    Args:
        summary: the table of :func:`cya_sim.stats.summarize` (columns
            ``agent``, ``win_rate``, ``win_rate_ci_low``, ``win_rate_ci_high``;
            rates in [0, 1]).
        n_players: table size P; a dashed line marks the fair share 1/P.
        title: figure title.

    Returns:
        a matplotlib ``Figure`` attached to an Agg canvas.

    Raises:
        ValueError: ``n_players`` < 1 or a required column is missing.
    """
    need = {"agent", "win_rate", "win_rate_ci_low", "win_rate_ci_high"}
    if not need <= set(summary.columns):
        raise ValueError(f"summary needs the columns {', '.join(sorted(need))}")
    if n_players < 1:
        raise ValueError(f"n_players is {n_players!r}; it must be >= 1")
    fig = Figure(figsize=(max(4.0, 1.2 * len(summary) + 2.0), 4.0), dpi=120)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    x = np.arange(len(summary))
    rate = summary["win_rate"].to_numpy(float)
    err = np.vstack([rate - summary["win_rate_ci_low"].to_numpy(float),
                     summary["win_rate_ci_high"].to_numpy(float) - rate])
    ax.bar(x, rate, color="#4C72B0", width=0.6)
    ax.errorbar(x, rate, yerr=err, fmt="none", ecolor="black", capsize=6, lw=1.2, label="95% Wilson interval")
    ax.axhline(1.0 / n_players, color="#C44E52", ls="--", lw=1.2, label=f"fair share 1/{n_players}")
    ax.set_xticks(x, summary["agent"].astype(str).tolist())
    ax.set_ylabel("win rate (win shares per seat-game)")
    top = float(np.nanmax(summary["win_rate_ci_high"].to_numpy(float), initial=0.0))
    ax.set_ylim(0.0, min(1.0, max(top, 1.0 / n_players) * 1.25 + 0.02))
    ax.legend(loc="upper right", fontsize=8)
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
