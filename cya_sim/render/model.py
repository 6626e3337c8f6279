"""What a picture of one state shows: the :class:`Table` model that each game's reading of a state fills, and the
card colours and words the games share.

Each game reads its own states into a :class:`Table` (``cya_sim/render/<family>/table.py``, found by
:func:`cya_sim.render.table.table_of` through :func:`cya_sim.game.registry.game_part`); the layout and the text of
:mod:`cya_sim.render.table` read only the model, never a game's state.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

#: Fill colours of the card chips: assets cycle through these; wilds (a gold card), actions and theft cards get
#: their own.
ASSET_FILLS = ("#cfe3f7", "#d7f0d2", "#fbe0c4", "#e6d7f3", "#f9d2d9", "#d2f1ee", "#f3efc4", "#e0e0e0",
               "#c9d8f0", "#e9f5c9")
WILD_FILL, ACTION_FILL, THEFT_FILL = "#f2c94c", "#bdbdbd", "#eb8f8f"


@dataclass(frozen=True)
class CardFace:
    """How one card type is drawn: ``label`` (short, on the chip), ``name`` and ``value`` text (legend), colours."""

    label: str
    name: str
    value: str
    fill: str
    ink: str = "#111111"


@dataclass(frozen=True)
class Card:
    """A card on the table: ``card`` its type id, or -1 for a card the viewer may not see (drawn ``?``);
    ``marked``: in the full view, a card not every seat knows (drawn with a dashed outline)."""

    card: int
    marked: bool = False


@dataclass(frozen=True)
class SetBox:
    """A set (classic) or an asset (theft): ``title``, its ``cards``, its ``value`` as the viewer knows it."""

    title: str
    cards: tuple[Card, ...]
    value: str
    top: bool = False


@dataclass
class SeatRow:
    """One seat: its ``name`` line, ``total`` line, ``hand`` (cards, or None when only ``hand_count`` is seen),
    its sets or assets (oldest first), ``note`` (e.g. a first asset still unseen), ``to_act``."""

    name: str
    total: str
    hand: tuple[Card, ...] | None
    hand_count: int
    sets: list[SetBox]
    note: str = ""
    to_act: bool = False


@dataclass
class Table:
    """A drawable model of one state as one viewer sees it.

    title: the game line. view: ``full view`` or ``seat s's view``. status: who acts, or the result.
    piles: (label, cards shown, count text) per pile. event: the challenge or theft in progress, as
    (text, cards) lines. seats: one :class:`SeatRow` per seat. faces: card type id -> :class:`CardFace`.
    no_sets: what a seat row without sets says (``no sets``; the theft game's ``no assets``).
    """

    title: str
    view: str
    status: str
    piles: list[tuple[str, tuple[Card, ...], str]]
    event: list[tuple[str, tuple[Card, ...]]]
    seats: list[SeatRow]
    faces: dict[int, CardFace] = field(default_factory=dict)
    no_sets: str = "no sets"


def count_text(n: int) -> str:
    """``1 card``, ``5 cards``."""
    return f"{n} card" if n == 1 else f"{n} cards"


def short_label(name: str, n: int = 4) -> str:
    """A chip label of at most ``n`` characters: the initials of a name of several words (``Home`` ->
    ``Home``, ``Coin Collection`` -> ``CC``), else its first ``n`` characters."""
    words = name.replace("-", " ").split()
    if len(words) > 1:
        return "".join(w[0].upper() for w in words)[:n] if len(name) > n else name
    return name[:n]


def hand_cards(counts) -> tuple[Card, ...]:
    """The cards of a hand from its (T,) counts per card type, in type order."""
    return tuple(Card(c) for c, n in enumerate(counts) for _ in range(int(n)))


def seat_label(seat: int, names) -> str:
    """``seat 2``, or ``seat 2 · greedy`` with the P seat ``names``."""
    return f"seat {seat}" + (f" · {names[seat]}" if names is not None else "")


def view_label(seat: int | None) -> str:
    """``full view`` (``seat=None``) or ``seat s's view``."""
    return "full view" if seat is None else f"seat {seat}'s view"


def over_status(winners, cap: str) -> str:
    """``game over: seat 1 wins`` (or ``... share the win``), ``cap`` (`` (stopped by ...)``, or empty) after
    ``game over``."""
    return "game over" + cap + ": " + ", ".join(f"seat {w}" for w in winners) + (
        " wins" if len(winners) == 1 else " share the win")


def draw_and_discard(st: Any, seat: int | None) -> list[tuple[str, tuple[Card, ...], str]]:
    """The draw pile (its next card only in the full view, marked) and the discard pile (its top) of a state
    with ``draw_pile`` and ``discard_pile`` card lists, as :attr:`Table.piles` entries."""
    return [
        ("draw pile", (Card(st.draw_pile[0], marked=True),) if seat is None and st.draw_pile else (),
         count_text(len(st.draw_pile))),
        ("discard pile", (Card(st.discard_pile[-1]),) if st.discard_pile else (), count_text(len(st.discard_pile)))]
