"""Figures of a tip study: the forest plot of every tip x context row and the heat map of the mean effects."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

#: Colour of each verdict in the forest plot and the heat map's legend.
VERDICT_COLOURS = {"supported": "#1B7837", "refuted": "#B2182B", "no effect within ±m": "#2166AC",
                   "inconclusive": "#8C8C8C", "inert": "black"}


def _context_label(preset: str, fld: str, players: int) -> str:
    return f"{preset} · vs {fld} · {int(players)}p"


def _range_text(values, every: bool = False) -> str:
    """``1,078–8,924`` (the smallest and largest); with ``every``, ``2–6`` only when no value between is missing,
    else each value (``2, 4``)."""
    v = sorted({int(x) for x in values})
    if len(v) == 1:
        return f"{v[0]:,}"
    if every and v != list(range(v[0], v[-1] + 1)):
        return ", ".join(f"{x:,}" for x in v)
    return f"{v[0]:,}–{v[-1]:,}"


def forest_figure(verdicts: pd.DataFrame, margin_pp: float, columns: int = 4):
    """Forest plot of the win-rate effects: one panel per tip, one row per context, readable at 400+ rows.

    Each panel is one tip (or AA-CHECK / TIP-HIDE-WILD row family); its rows are the
    contexts (preset, field, table size), the same rows in the same order in every
    panel, named once at the left of each row of panels. A point is the paired
    treatment-minus-control difference in win rate, in percentage points, with its
    95% deal-clustered interval (``win_low``, ``win_high``) as whiskers, coloured by
    verdict (:data:`VERDICT_COLOURS`); an **inert** row (the switch changed no
    decision, so the difference is exactly 0 by construction) is a cross without
    whiskers. The shaded band is the equivalence margin ±``margin_pp`` (TOST,
    Schuirmann 1987). Each panel has its own x range, so a tip with effects of
    ±0.3 pp is as readable as one with ±10 pp. The title carries the presets, fields,
    table sizes and deals per context.

    Args:
        verdicts: ``verdicts.csv`` (tip, preset, field, players, win_diff, win_low, win_high, inert,
            verdict, deals); proportions in [0, 1].
        margin_pp: the equivalence margin in percentage points (> 0).
        columns: panels per row of the figure.

    Returns:
        a matplotlib ``Figure`` on an Agg canvas.

    Raises:
        ValueError: ``verdicts`` has no row.
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    v = verdicts.reset_index(drop=True)
    if not len(v):
        raise ValueError("the verdict table has no row to plot")
    tips = list(dict.fromkeys(v["tip"]))
    contexts = list(dict.fromkeys(zip(v["preset"], v["field"], v["players"].astype(int))))
    row_of = {c: i for i, c in enumerate(contexts)}
    n_ctx = len(contexts)
    ncols = max(1, min(columns, len(tips)))
    nrows = math.ceil(len(tips) / ncols)
    panel_h = 0.15 * n_ctx + 0.75
    left_in = 0.25 + 0.052 * max(len(_context_label(*ctx)) for ctx in contexts)  # the row labels at 6.5 pt
    fig = Figure(figsize=(left_in + 3.3 * ncols, panel_h * nrows + 1.5), dpi=110)
    FigureCanvasAgg(fig)
    grid = fig.add_gridspec(nrows, ncols, left=left_in / fig.get_figwidth(), right=0.99, bottom=0.35 / fig.get_figheight(),
                            top=1 - 1.35 / fig.get_figheight(), hspace=0.9 / panel_h, wspace=0.12)
    y_all = np.arange(n_ctx)[::-1]
    first_ax = None
    for k, tip in enumerate(tips):
        r, c = divmod(k, ncols)
        ax = fig.add_subplot(grid[r, c], sharey=first_ax)
        first_ax = first_ax or ax
        sub = v[v["tip"] == tip]
        y = y_all[[row_of[(a, b, int(p))] for a, b, p in zip(sub["preset"], sub["field"], sub["players"])]]
        ax.axvspan(-margin_pp, margin_pp, color="#2166AC", alpha=0.10, lw=0)
        ax.axvline(0, color="black", lw=0.6)
        inert = sub["inert"].astype(bool).to_numpy()
        diff = 100 * sub["win_diff"].to_numpy(float)
        lo = 100 * sub["win_low"].to_numpy(float)
        hi = 100 * sub["win_high"].to_numpy(float)
        for verd, colour in VERDICT_COLOURS.items():
            m = (sub["verdict"].to_numpy() == verd) & ~inert
            if m.any():
                ax.errorbar(diff[m], y[m], xerr=[np.clip(diff[m] - lo[m], 0, None), np.clip(hi[m] - diff[m], 0, None)],
                            fmt="o", ms=3.2, lw=1.1, capsize=0, color=colour)
        if inert.any():
            ax.plot(diff[inert], y[inert], "x", ms=4, color=VERDICT_COLOURS["inert"])
        span = np.concatenate([lo[~inert], hi[~inert], [-margin_pp, margin_pp]])
        span = span[np.isfinite(span)]
        pad = 0.08 * (span.max() - span.min())
        ax.set_xlim(span.min() - pad, span.max() + pad)
        for i in range(1, n_ctx):  # a light rule between presets
            if contexts[i][0] != contexts[i - 1][0]:
                ax.axhline(y_all[i] + 0.5, color="0.75", lw=0.6)
        ax.set_title(tip, fontsize=8.5)
        ax.tick_params(axis="x", labelsize=7)
        ax.grid(axis="x", color="0.92")
        if c == 0:
            ax.set_yticks(y_all, [_context_label(*ctx) for ctx in contexts], fontsize=6.5)
        else:
            ax.tick_params(axis="y", labelleft=False)
        if r == nrows - 1 or k + ncols >= len(tips):
            ax.set_xlabel("win rate effect (pp)", fontsize=7.5)
    first_ax.set_ylim(-0.7, n_ctx - 0.3)
    handles = [Line2D([], [], marker="o", ls="-", color=VERDICT_COLOURS[k], ms=4, label=k)
               for k in VERDICT_COLOURS if k != "inert"]
    handles += [Line2D([], [], marker="x", ls="none", color="black", ms=5,
                       label="inert: the switch changed no decision (no interval drawn)"),
                Patch(color="#2166AC", alpha=0.15, label=f"equivalence margin ±{margin_pp:g} pp")]
    fig.legend(handles=handles, loc="upper center", ncol=4, fontsize=8, frameon=False,
               bbox_to_anchor=(0.5, 1 - 0.6 / fig.get_figheight()))
    fig.suptitle("Tip study: win rate, treatment minus control (percentage points), 95% deal-clustered intervals\n"
                 f"presets {', '.join(dict.fromkeys(v['preset']))}; against P−1 {' or '.join(dict.fromkeys(v['field']))}; "
                 f"{_range_text(v['players'], every=True)} players; {_range_text(v['deals'])} duplicated deals per context",
                 fontsize=9.5, y=1 - 0.12 / fig.get_figheight(), va="top")
    return fig


def heatmap_figure(verdicts: pd.DataFrame):
    """Heat map of the win-rate effect (pp) by tip (rows) and table size (columns), averaged over presets and fields.

    Args:
        verdicts: ``verdicts.csv`` (tip, players, win_diff; proportions in [0, 1]).

    Returns:
        a matplotlib ``Figure`` on an Agg canvas.
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    m = verdicts.pivot_table(index="tip", columns="players", values="win_diff", aggfunc="mean", sort=False) * 100
    fig = Figure(figsize=(1.0 * m.shape[1] + 5.2, 0.4 * m.shape[0] + 1.7), dpi=110)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    lim = float(np.nanmax(np.abs(m.to_numpy()))) if m.size else 1.0
    im = ax.imshow(m.to_numpy(), cmap="RdBu", vmin=-max(lim, 0.5), vmax=max(lim, 0.5), aspect="auto")
    ax.set_xticks(range(m.shape[1]), [f"{c} players" for c in m.columns], fontsize=8)
    ax.set_yticks(range(m.shape[0]), m.index, fontsize=8)
    for i in range(m.shape[0]):
        for j in range(m.shape[1]):
            val = m.iat[i, j]
            if np.isfinite(val):
                ax.text(j, i, f"{val:+.1f}", ha="center", va="center", fontsize=7,
                        color="white" if abs(val) > 0.6 * max(lim, 0.5) else "black")
    fig.colorbar(im, ax=ax, label="win rate effect (pp)")
    ax.set_title(f"Mean win-rate effect (pp) over presets {', '.join(dict.fromkeys(verdicts['preset']))} and fields",
                 fontsize=9)
    fig.tight_layout()
    return fig
