"""The table of a state drawn to pixels: an ``(H, W, 3) uint8`` array (Gymnasium's ``rgb_array``) or a PNG file.

The same primitives as the SVG (:func:`cya_sim.render.table.layout`), one user unit = one pixel (at
``scale`` 1), drawn with Pillow (a dependency of matplotlib, so already installed) in matplotlib's own
DejaVu Sans font: a few milliseconds a picture, where matplotlib's Agg canvas took about 0.3 s for
the ~250 text lines of a 4-player table.
"""

from __future__ import annotations

from dataclasses import replace
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from cya_sim.render.table import CHIP_H, CHIP_W, Box, Chip, Picture, Placed, Text, layout, table_of

_ANCHOR = {"start": "ls", "middle": "ms", "end": "rs"}  # Pillow anchors: left/middle/right, baseline


@lru_cache(maxsize=64)
def _font(size: float, bold: bool):
    """DejaVu Sans (matplotlib's bundled font) at ``size`` pixels."""
    from matplotlib import font_manager
    from PIL import ImageFont

    path = font_manager.findfont(font_manager.FontProperties(family="DejaVu Sans",
                                                             weight="bold" if bold else "normal"))
    return ImageFont.truetype(path, max(1, round(size)))


def _rgb(colour: str) -> tuple[int, int, int]:
    c = colour.lstrip("#")
    return int(c[0:2], 16), int(c[2:4], 16), int(c[4:6], 16)


def _dashed(draw, x0: float, y0: float, x1: float, y1: float, colour, width: int, dash: float = 3,
            gap: float = 2) -> None:
    """A dashed rectangle outline (Pillow draws solid lines only)."""
    for (ax, ay, bx, by) in ((x0, y0, x1, y0), (x1, y0, x1, y1), (x1, y1, x0, y1), (x0, y1, x0, y0)):
        length = max(abs(bx - ax), abs(by - ay))
        t = 0.0
        while t < length:
            e = min(t + dash, length)
            fx, fy = (bx - ax) / length if length else 0, (by - ay) / length if length else 0
            draw.line((ax + fx * t, ay + fy * t, ax + fx * e, ay + fy * e), fill=colour, width=width)
            t = e + gap


def _draw(picture: Picture, scale: float = 1.0):
    """A Pillow RGB image of ``picture``, ``scale`` pixels per user unit."""
    from PIL import Image, ImageDraw

    k = scale
    img = Image.new("RGB", (max(1, round(picture.width * k)), max(1, round(picture.height * k))), "white")
    draw = ImageDraw.Draw(img)
    todo = list(picture.items)
    while todo:
        it = todo.pop(0)
        if isinstance(it, Placed):  # a set box: its primitives moved into canvas coordinates
            todo[:0] = [replace(p, x=p.x + it.x, y=p.y + it.y) for p in it.items]
        elif isinstance(it, Box):
            xy = (it.x * k, it.y * k, (it.x + it.w) * k, (it.y + it.h) * k)
            fill = None if it.fill == "none" else _rgb(it.fill)
            outline = None if it.stroke == "none" else _rgb(it.stroke)
            draw.rounded_rectangle(xy, radius=5 * k, fill=fill, outline=outline,
                                   width=max(1, round(it.width * k)) if outline else 0)
        elif isinstance(it, Text):
            draw.text((it.x * k, it.y * k), it.text, fill=_rgb(it.fill), font=_font(it.size * k, it.bold),
                      anchor=_ANCHOR[it.anchor])
        elif isinstance(it, Chip):
            f = picture.faces.get(it.card)
            fill, ink, label = (f.fill, f.ink, f.label) if f is not None else ("#8a8a8a", "#ffffff", "?")
            x, y = it.x * k, it.y * k
            draw.rounded_rectangle((x + 0.5 * k, y + 0.5 * k, x + (CHIP_W - 0.5) * k, y + (CHIP_H - 0.5) * k),
                                   radius=3 * k, fill=_rgb(fill), outline=(68, 68, 68), width=max(1, round(k)))
            draw.text((x + CHIP_W / 2 * k, y + 14.5 * k), label, fill=_rgb(ink), font=_font(10.5 * k, True),
                      anchor="ms")
            if it.marked:
                _dashed(draw, x + 1.5 * k, y + 1.5 * k, x + (CHIP_W - 1.5) * k, y + (CHIP_H - 1.5) * k,
                        (204, 0, 0), max(1, round(1.6 * k)), 3 * k, 2 * k)
    return img


def rgb_array(state_or_position: Any, seat: int | None = None, names=None, scale: float = 1.0) -> np.ndarray:
    """The table of a state (either game) as ``seat`` sees it (None: full view), drawn to an array.

    Returns:
        (H, W, 3) uint8 RGB, W = 1000 * ``scale`` pixels (H grows with the table size), Gymnasium's
        ``rgb_array`` render format.

    Raises:
        ValueError: ``seat`` not None or a seat of the table; a bad position.
    """
    return np.asarray(_draw(layout(table_of(state_or_position, seat, names)), scale), dtype=np.uint8).copy()


def save_png(state_or_position: Any, path: str | Path, seat: int | None = None, names=None,
             scale: float = 1.0) -> Path:
    """Write the table of a state as a PNG (1000 * ``scale`` pixels wide) to ``path``; return the path.

    Raises:
        ValueError: as :func:`rgb_array`. OSError: the file cannot be written.
    """
    path = Path(path)
    _draw(layout(table_of(state_or_position, seat, names)), scale).save(path, format="PNG")
    return path
