"""The table of a state as SVG text (pure string building), as pgx's ``save_svg``.

Each card type is one ``<g>`` in ``<defs>`` (:func:`defs`) and every chip a ``<use>`` of it, so a drawing stays
small and an HTML replay shares the symbols between all its steps (:mod:`cya_sim.render.replay`).
"""

from __future__ import annotations

from html import escape
from pathlib import Path
from typing import Any

from cya_sim.render.table import CHIP_H, CHIP_W, Box, Chip, Picture, Placed, Text, layout, table_of

_FONT = "font-family:DejaVu Sans,Arial,Helvetica,sans-serif"


def _n(v: float) -> str:
    return f"{v:.1f}".rstrip("0").rstrip(".")


def defs(faces: dict) -> str:
    """``<defs>`` with one chip ``<g id="cN">`` per card type (``cU``: a card the viewer may not see) and the
    dashed outline ``cM`` drawn over a card not every seat knows."""
    parts = []
    for c, f in list(faces.items()) + [(-1, None)]:
        fill, ink, label = (f.fill, f.ink, f.label) if f is not None else ("#8a8a8a", "#ffffff", "?")
        sid = f"c{c}" if c >= 0 else "cU"
        parts.append(f'<g id="{sid}"><rect x="0.5" y="0.5" width="{CHIP_W - 1}" height="{CHIP_H - 1}" rx="3" '
                     f'fill="{fill}" stroke="#444"/><text x="{CHIP_W / 2}" y="14.5" text-anchor="middle" '
                     f'font-size="10.5" font-weight="bold" fill="{ink}">{escape(label, quote=False)}</text></g>')
    parts.append(f'<g id="cM"><rect x="1.5" y="1.5" width="{CHIP_W - 3}" height="{CHIP_H - 3}" rx="3" fill="none" '
                 'stroke="#c00" stroke-width="1.6" stroke-dasharray="3 2"/></g>')
    return "<defs>" + "".join(parts) + "</defs>"


def group(items: list) -> str:
    """The SVG elements of a list of primitives."""
    out = []
    for it in items:
        if isinstance(it, Placed):
            out.append(f'<g transform="translate({_n(it.x)},{_n(it.y)})">{group(it.items)}</g>')
        elif isinstance(it, Chip):
            sid = f"c{it.card}" if it.card >= 0 else "cU"
            out.append(f'<use href="#{sid}" x="{_n(it.x)}" y="{_n(it.y)}"/>')
            if it.marked:
                out.append(f'<use href="#cM" x="{_n(it.x)}" y="{_n(it.y)}"/>')
        elif isinstance(it, Text):
            attrs = f' font-size="{_n(it.size)}"'
            if it.bold:
                attrs += ' font-weight="bold"'
            if it.anchor != "start":
                attrs += f' text-anchor="{it.anchor}"'
            if it.fill != "#111111":
                attrs += f' fill="{it.fill}"'
            out.append(f'<text x="{_n(it.x)}" y="{_n(it.y)}"{attrs}>{escape(it.text, quote=False)}</text>')
        elif isinstance(it, Box):
            stroke = "" if it.stroke == "none" else f' stroke="{it.stroke}"'
            if it.width != 1:
                stroke += f' stroke-width="{_n(it.width)}"'
            out.append(f'<rect x="{_n(it.x)}" y="{_n(it.y)}" width="{_n(it.w)}" height="{_n(it.h)}" rx="5" '
                       f'fill="{it.fill}"{stroke}/>')
    return "".join(out)


def body(picture: Picture) -> str:
    """The SVG elements of a :class:`Picture` (no ``<svg>`` wrapper, no ``<defs>``)."""
    return "".join(group(g) for g in picture.groups)


def wrap(picture: Picture, inner: str, with_defs: bool = True) -> str:
    """An ``<svg>`` element of the picture's size around ``inner`` (with the card ``<defs>`` unless shared)."""
    return (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {picture.width} {picture.height}" '
            f'width="{picture.width}" height="{picture.height}" style="{_FONT}" fill="#111111">'
            + (defs(picture.faces) if with_defs else "") + inner + "</svg>")


def svg_text(state_or_position: Any, seat: int | None = None, names=None) -> str:
    """A standalone SVG document of the table of a state (either game) as ``seat`` sees it (None: full view).

    Args:
        state_or_position: a state, a position dict, JSON text or a path (:func:`~cya_sim.render.table.as_state`).
        seat: None (every card; a card not every seat knows has a dashed red outline) or 0..P-1 (RULES.md §10).
        names: optional P seat names.

    Raises:
        ValueError: ``seat`` not None or a seat of the table; a bad position.
    """
    pic = layout(table_of(state_or_position, seat, names))
    return wrap(pic, body(pic))


def save_svg(state_or_position: Any, path: str | Path, seat: int | None = None, names=None) -> Path:
    """Write :func:`svg_text` to ``path`` (UTF-8, written whole); return the path.

    Raises:
        ValueError: as :func:`svg_text`. OSError: the file cannot be written.
    """
    text = svg_text(state_or_position, seat, names)
    path = Path(path)
    path.write_text(text, encoding="utf-8")
    return path
