"""The theft game's states as a :class:`~cya_sim.render.model.Table` (RULES.md §9, §10).

What a seat sees: its own hand, the other hands as counts, a first asset's face-down card as ``?`` unless it laid
or stole it, and while first assets are being laid the other seats' as unseen (R-T-SETUP), as
:func:`cya_sim.engine.theft.observation.observe` decides; once the game is over every face-down card is turned up
for the score (R-T-END), as the terminal's closing lines show it. Values are points.
"""

from __future__ import annotations

from typing import Any

from cya_sim.game.theft.state import OVER, SETUP, TheftState
from cya_sim.render.model import (
    ASSET_FILLS,
    THEFT_FILL,
    WILD_FILL,
    Card,
    CardFace,
    SeatRow,
    SetBox,
    Table,
    draw_and_discard,
    hand_cards,
    over_status,
    seat_label,
    view_label,
)

#: The state type this module reads.
STATE = TheftState


def claims_position(d: dict) -> bool:
    """A position dict names the theft game: its rules' preset is ``theft`` or its format tag starts with
    ``cya-sim-theft`` (:data:`cya_sim.game.theft.position.FORMAT`; a misspelt tag then gets the theft loader's
    error)."""
    rules = d.get("rules") if isinstance(d.get("rules"), dict) else {}
    return rules.get("preset") == "theft" or str(d.get("format", "")).startswith("cya-sim-theft")


def state_from_position(d: dict) -> TheftState:
    """The state of a theft position dict (:func:`cya_sim.game.theft.position.state_from_dict`).

    Raises:
        TheftPositionError: a malformed position (the JSON path of the field named).
    """
    from cya_sim.game.theft.position import state_from_dict

    return state_from_dict(d)


def faces(rules: Any) -> dict[int, CardFace]:
    """card type id -> :class:`~cya_sim.render.model.CardFace` of a theft rule set: numbers (``n pt``), the gold
    card (``Gold``), the theft cards (``T``, the gold theft card ``GT``)."""
    out = {}
    for c, name in enumerate(rules.card_names):
        value = int(rules.values[c])
        if c < rules.numbers:
            out[c] = CardFace(name, name, f"{value} pt", ASSET_FILLS[c % len(ASSET_FILLS)])
        elif c == rules.numbers:
            out[c] = CardFace("Gold", name, f"{value} pt", WILD_FILL)
        else:
            out[c] = CardFace("T" if "gold" not in name.lower() else "GT", name, "card (steals an asset)", THEFT_FILL)
    return out


def table(st: TheftState, seat: int | None, names) -> Table:
    """The :class:`~cya_sim.render.model.Table` of a theft state as ``seat`` sees it (None: the full view);
    ``names``: None or P seat names. ``seat`` is checked by the caller (:func:`cya_sim.render.table.table_of`)."""
    r, p, pub = st.rules, st.n_players, st.public_mask
    values = r.values
    lo1 = min(1, r.gold_value) if r.gold_cards else 1  # a hidden card is a number or gold (theft observe)
    hi1 = max(r.numbers, r.gold_value) if r.gold_cards else r.numbers
    if st.winners is not None:
        status = over_status(st.winners, " (stopped by the max_turns cap)" if st.capped else "")
    else:
        status = f"seat {st.to_act} to act ({st.phase})"
    title = f"{r.name} · {p} players · turn {st.turns} · {st.phase}"
    piles = draw_and_discard(st, seat)
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
            name=seat_label(s, names) + (" · moved first" if s == st.first_player else ""), total=points,
            hand=hand_cards(st.hands[s]) if shows_hand else None, hand_count=st.hand_count(s), sets=sets,
            note="first asset unseen until every seat has laid one" if unseen and st.assets[s] else "",
            to_act=s == st.to_act))
    return Table(title, view_label(seat), status, piles, event, rows, faces(r), no_sets="no assets")
