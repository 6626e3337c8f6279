"""What a picture of one state shows, and where: a :class:`Table` model, its layout into primitives, its text.

:func:`table_of` reads a state of any game and keeps only what the viewer may see (RULES.md §10); each game reads
its own states (``cya_sim/render/<family>/table.py``: :mod:`cya_sim.render.classic.table`,
:mod:`cya_sim.render.theft.table`), found by the family's name (:func:`cya_sim.game.registry.game_part`), into
the model of :mod:`cya_sim.render.model` (:class:`Table`, :class:`SeatRow`, :class:`SetBox`, :class:`Card`,
:class:`CardFace`, named here too):

* ``seat=None`` — the full view: every hand, every card; a card some seat does not know (a hidden set card,
  R-HIDDEN-WILD; a first asset's face-down card, R-T-SETUP; a face-down draft top, R-2P-DRAFT) is drawn
  with a dashed outline.
* ``seat=s`` — what seat ``s`` sees: its own hand, the other hands as counts, a card it does not know
  as ``?`` and a set's or asset's value as the range it can be in; each game's module says what else.

:func:`layout` places the model on a canvas of SVG user units (pixels at 100 dpi) as :class:`Box`,
:class:`Text` and :class:`Chip` primitives that the SVG and matplotlib back ends draw alike;
:func:`table_lines` writes the same model as text (the OpenSpiel states' ``str``). Neither knows the games.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from cya_sim.game.registry import GAMES, game_part
from cya_sim.render.model import Card, CardFace, SeatRow, SetBox, Table, count_text

__all__ = ["CHIP_H", "CHIP_W", "WIDTH", "Box", "Card", "CardFace", "Chip", "Picture", "Placed", "SeatRow", "SetBox",
           "Table", "Text", "as_state", "layout", "state_text", "table_lines", "table_of"]

#: Canvas width in SVG user units (pixels of a PNG at 100 dpi).
WIDTH = 1000
CHIP_W, CHIP_H = 38, 20
_LABEL_W = 318  # the seat column: name, total, hand (6 chips)
_SET_W, _SET_H = 82, 73
_ROW_H = 86
_TOP_H = 158  # title, status, piles, and three lines for the challenge or theft in progress


# -- primitives ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Box:
    """A rectangle: top-left ``x, y``, size ``w, h`` (user units), ``fill``, ``stroke``, ``width``, ``dash``."""

    x: float
    y: float
    w: float
    h: float
    fill: str
    stroke: str = "#555555"
    width: float = 1.0
    dash: bool = False


@dataclass(frozen=True)
class Text:
    """A line of text: baseline-left ``x, y`` (or centred with ``anchor="middle"``), ``size`` in user units."""

    x: float
    y: float
    text: str
    size: float = 12.0
    bold: bool = False
    anchor: str = "start"
    fill: str = "#111111"


@dataclass(frozen=True)
class Chip:
    """A card chip of :data:`CHIP_W` x :data:`CHIP_H` at top-left ``x, y``: ``card`` a type id, or -1 (``?``)."""

    x: float
    y: float
    card: int
    marked: bool = False


@dataclass(frozen=True)
class Placed:
    """Primitives in local coordinates moved to ``x, y`` (a set box: the same set draws the same wherever it is)."""

    x: float
    y: float
    items: tuple


@dataclass
class Picture:
    """A laid-out table: ``width`` x ``height`` user units, the card faces, and the primitives in drawing order
    in ``groups`` (the top band, one per seat row, the legend, the to-act outline): a replay stores each
    distinct group once (:mod:`cya_sim.render.replay`)."""

    width: int
    height: int
    groups: list[list]
    faces: dict[int, CardFace]

    @property
    def items(self) -> list:
        """Every primitive, in drawing order."""
        return [it for g in self.groups for it in g]


# -- reading a state ------------------------------------------------------------------------------------------
def _game(family: str) -> ModuleType:
    """The render floor's part of a game: ``cya_sim/render/<family>/table.py`` (``STATE``, ``claims_position``,
    ``state_from_position``, ``faces``, ``table``)."""
    return game_part("render.table", family)


def as_state(state_or_position: Any) -> Any:
    """A state from a state, a position dict, JSON text, or a path to a JSON position (any game of
    :data:`cya_sim.game.registry.GAMES`).

    A position is read by the first game after the classic family (``GAMES[0]``) whose ``claims_position``
    claims it, else by the classic family, whose loader names what is wrong.

    Raises:
        PositionError / TheftPositionError: a malformed position (the JSON path of the field named).
        TypeError: anything else.
    """
    if isinstance(state_or_position, tuple(_game(name).STATE for name in GAMES)):
        return state_or_position
    if isinstance(state_or_position, Path) or (isinstance(state_or_position, str)
                                               and not state_or_position.lstrip().startswith("{")):
        state_or_position = Path(state_or_position).read_text(encoding="utf-8")
    d = json.loads(state_or_position) if isinstance(state_or_position, str) else state_or_position
    if not isinstance(d, dict):
        raise TypeError(f"state_or_position: {type(d).__name__}; allowed: a GameState, a TheftState, a position "
                        "dict, JSON text or a path to a JSON position")
    name = next((n for n in (*GAMES[1:], GAMES[0]) if _game(n).claims_position(d)), GAMES[0])
    return _game(name).state_from_position(d)


def _check_seat(state: Any, seat: int | None) -> None:
    if seat is not None and (isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < state.n_players):
        raise ValueError(f"seat: {seat!r}; allowed: None (the full view) or a seat from 0 to {state.n_players - 1}")


def table_of(state_or_position: Any, seat: int | None = None, names=None) -> Table:
    """The :class:`Table` of a state (any game) as ``seat`` sees it, or the full view (``seat=None``): read by
    the game of the state's rules (``table`` of ``cya_sim/render/<family>/table.py``).

    Args:
        state_or_position: a state or anything :func:`as_state` reads. seat: None or 0..P-1.
        names: optional P seat names (agent specs) shown after each seat.

    Raises:
        ValueError: ``seat`` not None or a seat of the table; a bad position (:func:`as_state`).
    """
    state = as_state(state_or_position)
    _check_seat(state, seat)
    return _game(state.rules.family).table(state, seat, names)


# -- layout -------------------------------------------------------------------------------------------------
def _chips(items: list, cards, x: float, y: float, room: int, faces) -> None:
    """Up to ``room`` chips from ``x`` rightwards, then ``+n``."""
    for i, c in enumerate(cards):
        if i == room:
            items.append(Text(x + i * (CHIP_W + 3) + 2, y + 15, f"+{len(cards) - room}", 12))
            return
        items.append(Chip(x + i * (CHIP_W + 3), y, c.card, c.marked))


def _set_items(b: SetBox) -> tuple:
    """A set box in local coordinates (its row's top-left at 0, 0)."""
    items = [Box(0, 5, _SET_W, _SET_H, "#ffffff", stroke="#222222" if b.top else "#999999", width=2.2 if b.top else 1)]
    fit = 11 if b.top else 12  # characters that fit the box (bold is wider)
    title = b.title if len(b.title) <= fit else b.title[:fit - 1] + "…"
    items.append(Text(_SET_W / 2, 18, title, 10.5, bold=b.top, anchor="middle"))
    shown = b.cards if len(b.cards) <= 4 else b.cards[:3]  # more than 4 cards: 3 chips and "+n"
    for i, c in enumerate(shown):
        items.append(Chip(2 + (i % 2) * (CHIP_W + 2), 22 + (i // 2) * (CHIP_H + 2), c.card, c.marked))
    if len(b.cards) > 4:
        items.append(Text(2 + CHIP_W + 2 + CHIP_W / 2, 22 + CHIP_H + 2 + 15, f"+{len(b.cards) - 3}", 12, bold=True,
                          anchor="middle"))
    items.append(Text(_SET_W / 2, _SET_H + 2, b.value, 10.5, anchor="middle"))
    return tuple(items)


def layout(table: Table) -> Picture:
    """Place a :class:`Table` on a canvas :data:`WIDTH` wide: the title band, the piles and the challenge or
    theft in progress, one row per seat (name, total, hand; sets oldest first, the top set outlined), a
    legend of the card chips (label, name, value), and an orange outline around the seat to act.
    Returns a :class:`Picture`."""
    top: list = [Box(0, 0, WIDTH, 0, "#ffffff", stroke="none")]  # height set below
    items = top
    items.append(Text(12, 24, table.title, 17, bold=True))
    items.append(Text(WIDTH - 12, 24, table.view, 15, bold=True, anchor="end", fill="#1f4e9a"))
    items.append(Text(12, 46, table.status, 14, fill="#7a2b00"))
    x = 12
    for label, cards, count in table.piles:
        w = max(CHIP_W * max(len(cards), 1) + 3 * max(len(cards) - 1, 0), 7.2 * max(len(label), len(count))) + 16
        if cards:
            w = max(w, len(cards) * (CHIP_W + 3) + 7.2 * len(count) + 14)
        items.append(Box(x, 56, w, 44, "#f7f7f7", stroke="#999999"))
        items.append(Text(x + 8, 70, label, 12, bold=True))
        if cards:
            _chips(items, cards, x + 8, 75, 3, table.faces)
            items.append(Text(x + 8 + len(cards) * (CHIP_W + 3) + 2, 90, count, 12))
        else:
            items.append(Text(x + 8, 90, count, 12))
        x += w + 8
    for i, (text, cards) in enumerate(table.event[:3]):  # below the piles, the whole width
        items.append(Text(14, 118 + i * 17, text, 13, bold=i == 0, fill="#7a2b00"))
        if cards:
            _chips(items, cards, 14 + 7.6 * len(text) + 8, 104 + i * 17, 12, table.faces)
    groups = [top]
    y = _TOP_H
    room = int((WIDTH - _LABEL_W - 64) // (_SET_W + 6))  # the last 64 units: the "to act" tag
    outline: list = []
    for row in table.seats:
        items = []
        groups.append(items)
        items.append(Box(6, y, WIDTH - 12, _ROW_H - 6, "#fbfbfb", stroke="#bbbbbb"))
        name = row.name if len(row.name) <= 34 else row.name[:33] + "…"  # the seat column's width
        items.append(Text(16, y + 20, name, 14, bold=True))
        items.append(Text(16, y + 38, row.total, 13))
        if row.hand is None:
            items.append(Text(16, y + 62, f"hand: {count_text(row.hand_count)} (unseen)", 12, fill="#555555"))
        else:
            items.append(Text(16, y + 62, "hand", 12, fill="#555555"))
            if row.hand:
                _chips(items, row.hand, 52, y + 47, 6, table.faces)
            else:
                items.append(Text(52, y + 62, "empty", 12, fill="#555555"))
        sx = _LABEL_W
        sets = row.sets
        if row.note:
            items.append(Text(sx, y + 44, row.note, 12, fill="#555555"))
        elif not sets:
            items.append(Text(sx, y + 44, table.no_sets, 12, fill="#555555"))
        if len(sets) > room:
            items.append(Text(sx + 4, y + 36, f"+{len(sets) - room + 1}", 13, bold=True, fill="#555555"))
            items.append(Text(sx + 4, y + 52, "older", 12, fill="#555555"))
            sets = sets[len(sets) - room + 1:]
            sx += _SET_W + 6
        for b in sets:
            items.append(Placed(sx, y, _set_items(b)))
            sx += _SET_W + 6
        if row.to_act:
            outline = [Box(5, y - 1, WIDTH - 10, _ROW_H - 4, "none", stroke="#e08a00", width=3.5),
                       Text(WIDTH - 16, y + 20, "to act", 12, bold=True, anchor="end", fill="#b86e00")]
        y += _ROW_H
    # legend: every card type (label, name, value); ? = a card the viewer may not see; dashed = not public
    legend: list = []
    groups.append(legend)
    lx, ly = 12, y + 8
    entries = [(c, f.value if f.name == f.label else f"{f.name} {f.value}") for c, f in table.faces.items()]
    entries.append((-2, "red dashes: a card not every seat knows") if table.view == "full view"
                   else (-1, "a card this seat may not see"))
    for c, text in entries:
        w = CHIP_W + 8 + 6.4 * len(text) + 14
        if lx + w > WIDTH:
            lx, ly = 12, ly + CHIP_H + 6
        if c == -2:
            legend.append(Chip(lx, ly, -1, marked=True))
        else:
            legend.append(Chip(lx, ly, c))
        legend.append(Text(lx + CHIP_W + 5, ly + 15, text, 11))
        lx += w
    groups.append(outline)
    height = int(ly + CHIP_H + 12)
    top[0] = Box(0, 0, WIDTH, height, "#ffffff", stroke="none")
    return Picture(WIDTH, height, groups, table.faces)


def table_lines(table: Table) -> list[str]:
    """The :class:`Table` as readable text lines: title, status, piles, the event in progress, one line per
    seat (hand, total) and its sets (``[Home Gold?]`` with ``*`` after a card not every seat knows)."""
    faces = table.faces

    def cards(cs) -> str:
        return " ".join("?" if c.card < 0 else faces[c.card].name + ("*" if c.marked else "") for c in cs)

    lines = [f"{table.title} ({table.view})", table.status]
    lines.append("; ".join(f"{label}: {count}" + (f", top {cards(cs[-1:])}" if cs else "")
                           for label, cs, count in table.piles))
    for text, cs in table.event:
        lines.append(text + (f": {cards(cs)}" if cs else ""))
    for row in table.seats:
        hand = count_text(row.hand_count) if row.hand is None else (cards(row.hand) or "empty")
        lines.append(f"{'>' if row.to_act else ' '} {row.name}: {row.total}; hand {hand}")
        if row.note:
            lines.append(f"    {row.note}")
        elif row.sets:
            lines.append("    " + " ".join(f"[{b.title}: {cards(b.cards)} = {b.value}]" for b in row.sets))
    return lines


def state_text(state_or_position: Any, seat: int | None = None, names=None) -> str:
    """The whole state (``seat=None``) or one seat's view as multi-line text (:func:`table_lines`).

    Raises:
        ValueError: ``seat`` not None or a seat; a bad position.
    """
    return "\n".join(table_lines(table_of(state_or_position, seat, names)))
