"""Figures of a tip study: the forest plot of every tip x context row and the heat map of the mean effects."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from cya_sim.reports.numbers import decimals_apart, fixed

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


#: Marker of each table size in the forest plot (with its vertical place inside a tip's row).
SIZE_MARKERS = {2: "o", 3: "s", 4: "^", 5: "D", 6: "v", 7: "P", 8: "X"}


def effect_axis(ax, lim: float, linear_pp: float = 1.0) -> None:
    """A win-rate effect axis, ``-lim`` to ``+lim`` percentage points, linear within ±``linear_pp`` and logarithmic
    beyond (matplotlib's ``symlog``): one scale for every panel of a figure, on which an effect of −35 pp is far
    from 0 and one of ±0.5 pp is still seen (but small: never drawn as large as −35)."""
    from matplotlib.ticker import FixedLocator, FuncFormatter, NullLocator

    ax.set_xscale("symlog", linthresh=linear_pp, linscale=0.8)
    ax.set_xlim(-lim, lim)
    ticks = [t for t in (1, 3, 10, 30, 100) if t <= lim]
    ax.xaxis.set_major_locator(FixedLocator(sorted([-t for t in ticks] + [0] + ticks)))
    ax.xaxis.set_minor_locator(NullLocator())
    ax.xaxis.set_major_formatter(FuncFormatter(lambda x, _p: f"{x:+g}" if x else "0"))


def forest_figure(verdicts: pd.DataFrame, margin_pp: float, columns: int = 3):
    """Forest plot of the win-rate effects on one scale: one panel per preset and field, one row per tip.

    Each panel is one (preset, field) of the study; its rows are the tips (the same rows in the same order in
    every panel, named at the left of each row of panels), and inside a tip's row each table size has its place
    and its marker (2 players at the top, :data:`SIZE_MARKERS`). A point is the paired treatment-minus-control
    difference in win rate, in percentage points, with its 95% deal-clustered interval (``win_low``,
    ``win_high``) as whiskers, coloured by verdict (:data:`VERDICT_COLOURS`); an **inert** row (the switch
    changed no decision, so the difference is exactly 0 by construction) is a black cross without whiskers. The
    shaded band is the equivalence margin ±``margin_pp`` (TOST, Schuirmann 1987). Every panel shares one x axis,
    linear within ±1 pp and logarithmic beyond (:func:`effect_axis`), so an effect of −35 pp and one of ±0.5 pp
    are both read and never drawn the same size. The title carries the presets, fields, table sizes and deals
    per context.

    Args:
        verdicts: ``verdicts.csv`` (tip, preset, field, players, win_diff, win_low, win_high, inert,
            verdict, deals); proportions in [0, 1].
        margin_pp: the equivalence margin in percentage points (> 0).
        columns: most panels per row of the figure (the presets, if fewer).

    Returns:
        a matplotlib ``Figure`` on an Agg canvas.

    Raises:
        ValueError: ``verdicts`` has no row.
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    from cya_sim.reports.plots import DPI, MIN_FONT

    v = verdicts.reset_index(drop=True)
    if not len(v):
        raise ValueError("the verdict table has no row to plot")
    tips = list(dict.fromkeys(v["tip"]))
    presets = list(dict.fromkeys(v["preset"]))
    fields = list(dict.fromkeys(v["field"]))
    panels = [(pr, f) for f in fields for pr in presets if ((v["preset"] == pr) & (v["field"] == f)).any()]
    sizes = sorted({int(p) for p in v["players"]})
    offset = {p: (0.0 if len(sizes) == 1 else 0.34 - 0.68 * i / (len(sizes) - 1)) for i, p in enumerate(sizes)}
    ncols = max(1, min(columns, len(presets), len(panels)))
    nrows = math.ceil(len(panels) / ncols)
    ends = np.concatenate([100 * v.loc[~v["inert"].astype(bool), c].to_numpy(float) for c in ("win_low", "win_high")])
    ends = ends[np.isfinite(ends)]
    lim = max(2.0 * margin_pp, 1.15 * float(np.abs(ends).max()) if len(ends) else 1.0)
    row_h = 0.36 if len(sizes) > 1 else 0.24
    fig = Figure(figsize=(2.3 + 3.5 * ncols, (row_h * len(tips) + 0.9) * nrows + 1.5), dpi=DPI, layout="constrained")
    FigureCanvasAgg(fig)
    axes = fig.subplots(nrows, ncols, squeeze=False, sharex=True, sharey=True)
    y_tip = {t: len(tips) - 1 - i for i, t in enumerate(tips)}
    for ax, (pr, f) in zip(axes.ravel(), panels):
        sub = v[(v["preset"] == pr) & (v["field"] == f)]
        ax.axvspan(-margin_pp, margin_pp, color="#2166AC", alpha=0.12, lw=0)
        ax.axvline(0, color="black", lw=0.6)
        for i in range(1, len(tips)):
            ax.axhline(i - 0.5, color="0.88", lw=0.6)
        for x in sub.itertuples():
            y = y_tip[x.tip] + offset[int(x.players)]
            d, lo, hi = 100 * x.win_diff, 100 * x.win_low, 100 * x.win_high
            if bool(x.inert):
                ax.plot([d], [y], marker="x", ms=4, color=VERDICT_COLOURS["inert"], ls="none")
                continue
            colour = VERDICT_COLOURS.get(x.verdict, "0.5")
            ax.plot([max(lo, -lim), min(hi, lim)], [y, y], color=colour, lw=1.1, solid_capstyle="butt")
            ax.plot([d], [y], marker=SIZE_MARKERS.get(int(x.players), "o"), ms=4.2, color=colour, ls="none")
        effect_axis(ax, lim)
        ax.grid(axis="x", color="0.93")
        ax.set_title(f"{pr} · against P−1 {f}", fontsize=9)
        ax.tick_params(labelsize=MIN_FONT)
    for ax in axes.ravel()[len(panels):]:
        ax.remove()
    for row in axes:
        row[0].set_yticks(range(len(tips)), tips[::-1], fontsize=MIN_FONT + 0.5)
        row[0].set_ylim(-0.6, len(tips) - 0.4)
    for ax in axes[-1]:
        if ax.axes is not None:
            ax.set_xlabel("win-rate effect (pp; linear within ±1, log beyond)", fontsize=MIN_FONT + 0.5)
    handles = [Line2D([], [], marker="o", ls="-", color=VERDICT_COLOURS[k], ms=4, label=k)
               for k in VERDICT_COLOURS if k != "inert"]
    handles += [Line2D([], [], marker="x", ls="none", color="black", ms=5,
                       label="inert: the switch changed no decision (no interval)"),
                Patch(color="#2166AC", alpha=0.15, label=f"equivalence margin ±{margin_pp:g} pp")]
    handles += [Line2D([], [], marker=SIZE_MARKERS.get(p, "o"), ls="none", color="0.3", ms=4,
                       label=f"{p} players") for p in sizes]
    fig.legend(handles=handles, loc="outside lower center", ncol=min(len(handles), 6), fontsize=MIN_FONT,
               frameon=False, title="verdict (colour) · table size (marker; in a tip's row from the top)",
               title_fontsize=MIN_FONT)
    fig.suptitle("Tip study: win rate, treatment minus control (percentage points), 95% deal-clustered intervals\n"
                 f"presets {', '.join(presets)}; against P−1 {' or '.join(fields)}; "
                 f"{_range_text(v['players'], every=True)} players; {_range_text(v['deals'])} duplicated deals per context",
                 fontsize=10)
    return fig


def heatmap_figure(verdicts: pd.DataFrame):
    """Heat map of the win-rate effect (pp) by tip (rows) and table size (columns), averaged over presets and fields.

    Columns in ascending table size, each naming the presets behind it when they differ between columns; a cell
    with no context is marked ``n/a``; the printed effect has one decimal, more when it would read 0 and is not.

    Args:
        verdicts: ``verdicts.csv`` (tip, players, win_diff; proportions in [0, 1]).

    Returns:
        a matplotlib ``Figure`` on an Agg canvas.
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    from cya_sim.reports.plots import DPI, MIN_FONT

    m = verdicts.pivot_table(index="tip", columns="players", values="win_diff", aggfunc="mean", sort=False) * 100
    m = m[sorted(m.columns)]
    n = verdicts.pivot_table(index="tip", columns="players", values="win_diff", aggfunc="count", sort=False)
    at = {p: list(dict.fromkeys(verdicts.loc[verdicts["players"] == p, "preset"])) for p in m.columns}
    same = len({tuple(x) for x in at.values()}) == 1  # else each column names the presets behind it
    fig = Figure(figsize=(1.0 * m.shape[1] + 5.2, 0.4 * m.shape[0] + 1.9), dpi=DPI, layout="constrained")
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    lim = float(np.nanmax(np.abs(m.to_numpy()))) if m.size else 1.0
    im = ax.imshow(m.to_numpy(), cmap="RdBu", vmin=-max(lim, 0.5), vmax=max(lim, 0.5), aspect="auto")
    ax.set_facecolor("0.88")
    ax.set_xticks(range(m.shape[1]), [f"{c} players" + ("" if same else "\n" + "\n".join(at[c])) for c in m.columns],
                  fontsize=MIN_FONT + 0.5)
    ax.set_yticks(range(m.shape[0]), m.index, fontsize=MIN_FONT + 0.5)
    for i in range(m.shape[0]):
        for j in range(m.shape[1]):
            val = m.iat[i, j]
            if np.isfinite(val):
                ax.text(j, i, fixed(val, decimals_apart([val, 0.0], 1), signed=True), ha="center", va="center",
                        fontsize=MIN_FONT, color="white" if abs(val) > 0.6 * max(lim, 0.5) else "black")
            else:
                ax.text(j, i, "n/a", ha="center", va="center", fontsize=MIN_FONT, color="0.3")
    bar = fig.colorbar(im, ax=ax)
    bar.set_label("win rate effect (pp)", fontsize=MIN_FONT + 0.5)
    bar.ax.tick_params(labelsize=MIN_FONT)
    counts = sorted({int(c) for c in n.to_numpy().ravel() if np.isfinite(c) and c > 0})
    ax.set_title(f"Mean win-rate effect (pp) over presets {', '.join(dict.fromkeys(verdicts['preset']))} and fields "
                 f"{', '.join(dict.fromkeys(verdicts['field']))}\n(mean of {_range_text(counts)} contexts a cell; "
                 "n/a: no context at that table size)", fontsize=9)
    return fig
