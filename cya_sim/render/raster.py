"""The table of a state drawn by matplotlib's Agg canvas: an ``(H, W, 3) uint8`` array or a PNG file.

The same primitives as the SVG (:func:`cya_sim.render.table.layout`), one user unit = one pixel at
100 dpi, so the PNG and the SVG show the same table at the same size.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from cya_sim.render.table import CHIP_H, CHIP_W, Box, Chip, Picture, Placed, Text, layout, table_of

_DPI = 100
_PT = 72 / _DPI  # a user unit (pixel at 100 dpi) in points


def _figure(picture: Picture, scale: float = 1.0):
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.patches import FancyBboxPatch, Rectangle

    fig = Figure(figsize=(picture.width / _DPI * scale, picture.height / _DPI * scale), dpi=_DPI)
    FigureCanvasAgg(fig)
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_xlim(0, picture.width)
    ax.set_ylim(picture.height, 0)
    ax.axis("off")
    pt = _PT * scale
    family = ["DejaVu Sans"]
    todo = list(picture.items)
    while todo:
        it = todo.pop(0)
        if isinstance(it, Placed):  # moved into place: the set box's primitives in canvas coordinates
            todo[:0] = [replace(p, x=p.x + it.x, y=p.y + it.y) for p in it.items]
            continue
        if isinstance(it, Box):
            if it.stroke == "none":
                ax.add_patch(Rectangle((it.x, it.y), it.w, it.h, facecolor=it.fill, edgecolor="none"))
            else:
                ax.add_patch(FancyBboxPatch((it.x, it.y), it.w, it.h, boxstyle="round,pad=0,rounding_size=5",
                                            facecolor=it.fill, edgecolor=it.stroke, linewidth=it.width * pt,
                                            linestyle="--" if it.dash else "-"))
        elif isinstance(it, Text):
            ax.text(it.x, it.y, it.text, fontsize=it.size * pt, fontweight="bold" if it.bold else "normal",
                    ha={"start": "left", "middle": "center", "end": "right"}[it.anchor], va="baseline",
                    color=it.fill, family=family)
        elif isinstance(it, Chip):
            f = picture.faces.get(it.card)
            fill, ink, label = (f.fill, f.ink, f.label) if f is not None else ("#8a8a8a", "#ffffff", "?")
            ax.add_patch(FancyBboxPatch((it.x + 0.5, it.y + 0.5), CHIP_W - 1, CHIP_H - 1,
                                        boxstyle="round,pad=0,rounding_size=3", facecolor=fill, edgecolor="#444444",
                                        linewidth=pt))
            if it.marked:
                ax.add_patch(FancyBboxPatch((it.x + 1.5, it.y + 1.5), CHIP_W - 3, CHIP_H - 3,
                                            boxstyle="round,pad=0,rounding_size=3", facecolor="none",
                                            edgecolor="#cc0000", linewidth=1.6 * pt, linestyle=(0, (3, 2))))
            ax.text(it.x + CHIP_W / 2, it.y + 14.5, label, fontsize=10.5 * pt, fontweight="bold", ha="center",
                    va="baseline", color=ink, family=family)
    return fig


def rgb_array(state_or_position: Any, seat: int | None = None, names=None, scale: float = 1.0) -> np.ndarray:
    """The table of a state (either game) as ``seat`` sees it (None: full view), drawn to an array.

    Returns:
        (H, W, 3) uint8 RGB, W = 1000 * ``scale`` pixels (H grows with the table size), Gymnasium's
        ``rgb_array`` render format.

    Raises:
        ValueError: ``seat`` not None or a seat of the table; a bad position.
    """
    fig = _figure(layout(table_of(state_or_position, seat, names)), scale)
    fig.canvas.draw()
    return np.asarray(fig.canvas.buffer_rgba())[:, :, :3].copy()


def save_png(state_or_position: Any, path: str | Path, seat: int | None = None, names=None,
             scale: float = 1.0) -> Path:
    """Write the table of a state as a PNG (1000 * ``scale`` pixels wide) to ``path``; return the path.

    Raises:
        ValueError: as :func:`rgb_array`. OSError: the file cannot be written.
    """
    fig = _figure(layout(table_of(state_or_position, seat, names)), scale)
    path = Path(path)
    fig.savefig(path, format="png", dpi=_DPI)
    return path
