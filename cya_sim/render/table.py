"""What a picture of one state shows, and where: a :class:`Table` model, its layout into primitives, its text.

:func:`table_of` reads a state of either game and keeps only what the viewer may see (RULES.md §10):

* ``seat=None`` — the full view: every hand, every card; a card some seat does not know (a hidden set card,
  R-HIDDEN-WILD; a first asset's face-down card, R-T-SETUP; a face-down draft top, R-2P-DRAFT) is drawn
  with a dashed outline.
* ``seat=s`` — what seat ``s`` sees: its own hand, the other hands as counts, a set card it does not know
  as ``?`` and the set's value as the range it can be in, a face-down draft top as ``?``; in the theft
  game the other seats' first assets stay unseen until every seat has laid one (R-T-SETUP), as
  :func:`cya_sim.engine.theft.observation.observe` decides, and once the game is over every face-down card
  is turned up for the score (R-T-END), as the terminal's closing lines show it.

:func:`layout` places the model on a canvas of SVG user units (pixels at 100 dpi) as :class:`Box`,
:class:`Text` and :class:`Chip` primitives that the SVG and matplotlib back ends draw alike;
:func:`table_lines` writes the same model as text (the OpenSpiel states' ``str``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cya_sim.game.classic.state import GameState
from cya_sim.game.theft.state import OVER, SETUP, TheftState

#: Canvas width in SVG user units (pixels of a PNG at 100 dpi).
WIDTH = 1000
CHIP_W, CHIP_H = 38, 20
_LABEL_W = 318  # the seat column: name, total, hand (6 chips)
_SET_W, _SET_H = 82, 73
_ROW_H = 86
_TOP_H = 158  # title, status, piles, and three lines for the challenge or theft in progress

#: Fill colours of the card chips: assets cycle through these; wilds, actions and theft cards get their own.
_ASSET_FILLS = ("#cfe3f7", "#d7f0d2", "#fbe0c4", "#e6d7f3", "#f9d2d9", "#d2f1ee", "#f3efc4", "#e0e0e0",
                "#c9d8f0", "#e9f5c9")
_WILD_FILL, _ACTION_FILL, _THEFT_FILL, _HIDDEN_FILL = "#f2c94c", "#bdbdbd", "#eb8f8f", "#8a8a8a"


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
    """

    title: str
    view: str
    status: str
    piles: list[tuple[str, tuple[Card, ...], str]]
    event: list[tuple[str, tuple[Card, ...]]]
    seats: list[SeatRow]
    faces: dict[int, CardFace] = field(default_factory=dict)


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
def as_state(state_or_position: Any) -> GameState | TheftState:
    """A state from a state, a position dict, JSON text, or a path to a JSON position (either game).

    Raises:
        PositionError / TheftPositionError: a malformed position (the JSON path of the field named).
        TypeError: anything else.
    """
    if isinstance(state_or_position, GameState | TheftState):
        return state_or_position
    import json

    if isinstance(state_or_position, Path) or (isinstance(state_or_position, str)
                                               and not state_or_position.lstrip().startswith("{")):
        state_or_position = Path(state_or_position).read_text(encoding="utf-8")
    d = json.loads(state_or_position) if isinstance(state_or_position, str) else state_or_position
    if not isinstance(d, dict):
        raise TypeError(f"state_or_position: {type(d).__name__}; allowed: a GameState, a TheftState, a position "
                        "dict, JSON text or a path to a JSON position")
    rules = d.get("rules") if isinstance(d.get("rules"), dict) else {}
    if rules.get("preset") == "theft" or str(d.get("format", "")).startswith("cya-sim-theft"):
        from cya_sim.game.theft.position import state_from_dict as theft_from_dict

        return theft_from_dict(d)
    from cya_sim.game.classic.position import state_from_dict

    return state_from_dict(d)


def _check_seat(state: GameState | TheftState, seat: int | None) -> None:
    if seat is not None and (isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < state.n_players):
        raise ValueError(f"seat: {seat!r}; allowed: None (the full view) or a seat from 0 to {state.n_players - 1}")


def _k(v: int) -> str:
    """Dollars in thousands: ``$15k``, ``$1.25M`` from a million up."""
    if abs(v) >= 1_000_000:
        return f"${v / 1e6:,.2f}M".replace(".00M", "M")
    return f"${v / 1000:,.0f}k" if v % 1000 == 0 else f"${v:,}"


def _cards(n: int) -> str:
    return f"{n} card" if n == 1 else f"{n} cards"


def _short(name: str, n: int = 4) -> str:
    words = name.replace("-", " ").split()
    if len(words) > 1:
        return "".join(w[0].upper() for w in words)[:n] if len(name) > n else name
    return name[:n]


def _classic_faces(rules) -> dict[int, CardFace]:
    deck = rules.deck
    faces = {}
    labels: set[str] = set()
    for c, name in enumerate(deck.names):
        label = _short(name)
        while label in labels:  # one label per type
            label = label[:-1] + str(c % 10)
        labels.add(label)
        value = int(deck.values[c])
        if c < deck.n_assets:
            fill = _ASSET_FILLS[c % len(_ASSET_FILLS)]
        elif c < deck.n_assets + deck.n_wilds:
            fill = _WILD_FILL
        else:
            fill = _ACTION_FILL
        faces[c] = CardFace(label, name, _k(value) if value else "action", fill)
    return faces


def _theft_faces(rules) -> dict[int, CardFace]:
    faces = {}
    for c, name in enumerate(rules.card_names):
        value = int(rules.values[c])
        if c < rules.numbers:
            faces[c] = CardFace(name, name, f"{value} pt", _ASSET_FILLS[c % len(_ASSET_FILLS)])
        elif c == rules.numbers:
            faces[c] = CardFace("Gold", name, f"{value} pt", _WILD_FILL)
        else:
            faces[c] = CardFace("T" if "gold" not in name.lower() else "GT", name, "card (steals an asset)", _THEFT_FILL)
    return faces


def _hand_cards(counts) -> tuple[Card, ...]:
    return tuple(Card(c) for c, n in enumerate(counts) for _ in range(int(n)))


def _who(seat: int, names) -> str:
    return f"seat {seat}" + (f" · {names[seat]}" if names is not None else "")


def table_of(state_or_position: Any, seat: int | None = None, names=None) -> Table:
    """The :class:`Table` of a state (either game) as ``seat`` sees it, or the full view (``seat=None``).

    Args:
        state_or_position: a state or anything :func:`as_state` reads. seat: None or 0..P-1.
        names: optional P seat names (agent specs) shown after each seat.

    Raises:
        ValueError: ``seat`` not None or a seat of the table; a bad position (:func:`as_state`).
    """
    state = as_state(state_or_position)
    _check_seat(state, seat)
    if isinstance(state, TheftState):
        return _theft_table(state, seat, names)
    return _classic_table(state, seat, names)


def _classic_table(st: GameState, seat: int | None, names) -> Table:
    from cya_sim.engine.classic.reference import draft

    r, p = st.rules, st.n_players
    deck, pub = r.deck, st.public_mask
    values = deck.values
    wild_values = [int(v) for v in values[deck.n_assets:deck.n_assets + deck.n_wilds]]

    def card(c: int, kb: int) -> Card:
        if seat is None:
            return Card(c, marked=kb != pub)
        return Card(c) if kb >> seat & 1 else Card(-1)

    to_act = st.to_act
    phase = st.phase
    if st.winners is not None:
        cap = " (stopped by the max_rounds cap)" if st.capped else ""
        status = "game over" + cap + ": " + ", ".join(f"seat {w}" for w in st.winners) + (
            " wins" if len(st.winners) == 1 else " share the win")
    else:
        what = {"turn": "turn", "challenge": "answers the challenge", "draft_offer": "may challenge the drafted set",
                "draft_move": "chooses for the Move"}.get(phase, phase)
        status = f"seat {to_act} to act ({what})" + (f", {st.actions_left} actions left" if st.actions_left > 1
                                                    else "")
    title = f"{r.name} · {p} players · round {st.round} · turn {st.turns}"
    view = "full view" if seat is None else f"seat {seat}'s view"
    piles: list[tuple[str, tuple[Card, ...], str]] = [
        ("draw pile", (Card(st.draw_pile[0], marked=True),) if seat is None and st.draw_pile else (),
         _cards(len(st.draw_pile))),
        ("discard pile", (Card(st.discard_pile[-1]),) if st.discard_pile else (), _cards(len(st.discard_pile)))]
    if st.removed:
        piles.append(("removed", tuple(Card(c) for c in sorted(st.removed)[:3]), _cards(len(st.removed))))
    for j, pile in enumerate(st.draft_piles):
        if not pile:
            shown: tuple[Card, ...] = ()
        elif seat is None:
            shown = (Card(pile[-1], marked=bool(st.draft_down[j])),)
        else:
            top = draft.face_up_top(st, j)
            shown = (Card(top if top >= 0 else -1),)
        piles.append((f"draft pile {j}", shown, _cards(len(pile))))
    event: list[tuple[str, tuple[Card, ...]]] = []
    ch = st.challenge
    if ch is not None:
        which = "the set second from the top" if ch.depth else "the top set"
        event.append(((f"challenge: seat {ch.challenger} → seat {ch.defender}, {which} "
                      f"({deck.names[ch.asset]})"), ()))
        event.append(("cards shown, by seat " + ", ".join(str(pl) for pl in ch.players), tuple(Card(c) for c in ch.cards)))
        event.append((f"seat {ch.to_act} to answer" + (f" with {ch.owed} cards" if ch.owed > 1 else ""), ()))
    elif st.draft_offer:
        event.append((f"seat {st.draft_offer[0]} may challenge the set just drafted", ()))
    elif st.draft_move:
        event.append((f"seat {st.draft_move[0]} chooses for a Move on seat {st.draft_move[1]}'s stack", ()))
    rows = []
    for s in range(p):
        sets = []
        for i, cs in enumerate(st.stacks[s]):
            cards = tuple(card(c, kb) for c, kb in zip(cs.cards, cs.known_by))
            seen = sum(int(values[c.card]) for c in cards if c.card >= 0)
            hidden = sum(1 for c in cards if c.card < 0)
            options = [int(values[cs.asset])] + wild_values
            lo, hi = seen + hidden * min(options), seen + hidden * max(options)
            value = _k(lo) if lo == hi else f"{_k(lo)}–{_k(hi)[1:]}"
            sets.append(SetBox(deck.names[cs.asset], cards, value, top=i == len(st.stacks[s]) - 1))
        shows_hand = seat is None or seat == s
        marks = (" · dealer" if s == st.dealer else "")
        wins = f" · {st.round_wins[s]} round{'s' if st.round_wins[s] != 1 else ''} won" if st.round_wins[s] else ""
        rows.append(SeatRow(
            name=_who(s, names) + marks, total=f"total ${st.totals[s]:,}{wins}",
            hand=_hand_cards(st.hands[s]) if shows_hand else None, hand_count=st.hand_count(s), sets=sets,
            to_act=s == to_act))
    return Table(title, view, status, piles, event, rows, _classic_faces(r))


def _theft_table(st: TheftState, seat: int | None, names) -> Table:
    r, p, pub = st.rules, st.n_players, st.public_mask
    values = r.values
    lo1 = min(1, r.gold_value) if r.gold_cards else 1  # a hidden card is a number or gold (theft observe)
    hi1 = max(r.numbers, r.gold_value) if r.gold_cards else r.numbers
    if st.winners is not None:
        cap = " (stopped by the max_turns cap)" if st.capped else ""
        status = "game over" + cap + ": " + ", ".join(f"seat {w}" for w in st.winners) + (
            " wins" if len(st.winners) == 1 else " share the win")
    else:
        status = f"seat {st.to_act} to act ({st.phase})"
    title = f"{r.name} · {p} players · turn {st.turns} · {st.phase}"
    view = "full view" if seat is None else f"seat {seat}'s view"
    piles: list[tuple[str, tuple[Card, ...], str]] = [
        ("draw pile", (Card(st.draw_pile[0], marked=True),) if seat is None and st.draw_pile else (),
         _cards(len(st.draw_pile))),
        ("discard pile", (Card(st.discard_pile[-1]),) if st.discard_pile else (), _cards(len(st.discard_pile)))]
    event: list[tuple[str, tuple[Card, ...]]] = []
    if st.theft is not None:
        th = st.theft
        event.append(((f"theft: seat {th.thief} plays {r.card_names[th.card]} on seat {th.target}'s asset "
                      f"#{th.slot}"), (Card(th.card),)))
        event.append((f"seat {th.target} to answer: cancel it or let it pass", ()))
    if st.final_turns_left is not None:
        event.append((f"R-T-END: seat {st.trigger_seat} triggered the end; {st.final_turns_left} last turn(s)", ()))
    rows = []
    for s in range(p):
        unseen = seat is not None and st.phase == SETUP and s != seat
        sets, lo_sum, hi_sum = [], 0, 0
        if not unseen:
            for i, a in enumerate(st.assets[s]):
                if seat is None:
                    cards = tuple(Card(c, marked=kb != pub) for c, kb in zip(a.cards, a.known_by))
                elif st.phase == OVER:  # R-T-END: the face-down cards are turned up for the score
                    cards = tuple(Card(c) for c in a.cards)
                else:
                    cards = tuple(Card(c) if kb >> seat & 1 else Card(-1) for c, kb in zip(a.cards, a.known_by))
                seen = sum(int(values[c.card]) for c in cards if c.card >= 0)
                hidden = sum(1 for c in cards if c.card < 0)
                lo, hi = seen + hidden * lo1, seen + hidden * hi1
                lo_sum, hi_sum = lo_sum + lo, hi_sum + hi
                sets.append(SetBox(f"asset #{i}", cards, f"{lo} pt" if lo == hi else f"{lo}–{hi} pt"))
        points = "? points" if unseen else (f"{lo_sum} points" if lo_sum == hi_sum else f"{lo_sum}–{hi_sum} points")
        shows_hand = seat is None or seat == s
        rows.append(SeatRow(
            name=_who(s, names) + (" · moved first" if s == st.first_player else ""), total=points,
            hand=_hand_cards(st.hands[s]) if shows_hand else None, hand_count=st.hand_count(s), sets=sets,
            note="first asset unseen until every seat has laid one" if unseen and st.assets[s] else "",
            to_act=s == st.to_act))
    return Table(title, view, status, piles, event, rows, _theft_faces(r))


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
    theft = table.title.startswith("theft")
    outline: list = []
    for row in table.seats:
        items = []
        groups.append(items)
        items.append(Box(6, y, WIDTH - 12, _ROW_H - 6, "#fbfbfb", stroke="#bbbbbb"))
        name = row.name if len(row.name) <= 34 else row.name[:33] + "…"  # the seat column's width
        items.append(Text(16, y + 20, name, 14, bold=True))
        items.append(Text(16, y + 38, row.total, 13))
        if row.hand is None:
            items.append(Text(16, y + 62, f"hand: {_cards(row.hand_count)} (unseen)", 12, fill="#555555"))
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
            items.append(Text(sx, y + 44, "no assets" if theft else "no sets", 12, fill="#555555"))
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
        hand = _cards(row.hand_count) if row.hand is None else (cards(row.hand) or "empty")
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
