"""The classic family's states as a :class:`~cya_sim.render.model.Table` (every preset; RULES.md §1-8, §10).

What a seat sees (RULES.md §10): its own hand, the other hands as counts, a hidden set card (R-HIDDEN-WILD) as
``?`` and the set's value as the range it can be in (the asset's value or a wild's), a face-down draft top
(R-2P-DRAFT) as ``?``. The full view marks a card not every seat knows. Values are dollars (``$15k``, ``$1.25M``).
"""

from __future__ import annotations

from typing import Any

from cya_sim.game.classic.state import GameState
from cya_sim.render.model import (
    ACTION_FILL,
    ASSET_FILLS,
    WILD_FILL,
    Card,
    CardFace,
    SeatRow,
    SetBox,
    Table,
    count_text,
    draw_and_discard,
    hand_cards,
    over_status,
    seat_label,
    short_label,
    view_label,
)

#: The state type this module reads.
STATE = GameState


def claims_position(d: dict) -> bool:
    """True: the classic family reads every position no other game claims (its loader names what is wrong)."""
    return True


def state_from_position(d: dict) -> GameState:
    """The state of a classic position dict (:func:`cya_sim.game.classic.position.state_from_dict`).

    Raises:
        PositionError: a malformed position (the JSON path of the field named).
    """
    from cya_sim.game.classic.position import state_from_dict

    return state_from_dict(d)


def _k(v: int) -> str:
    """Dollars in thousands: ``$15k``, ``$1.25M`` from a million up."""
    if abs(v) >= 1_000_000:
        return f"${v / 1e6:,.2f}M".replace(".00M", "M")
    return f"${v / 1000:,.0f}k" if v % 1000 == 0 else f"${v:,}"


def faces(rules: Any) -> dict[int, CardFace]:
    """card type id -> :class:`~cya_sim.render.model.CardFace` of a classic rule set's deck: one short label per
    type, assets coloured in turn, wilds and action cards (value ``action``) in their own colours."""
    deck = rules.deck
    out = {}
    labels: set[str] = set()
    for c, name in enumerate(deck.names):
        label = short_label(name)
        while label in labels:  # one label per type
            label = label[:-1] + str(c % 10)
        labels.add(label)
        value = int(deck.values[c])
        if c < deck.n_assets:
            fill = ASSET_FILLS[c % len(ASSET_FILLS)]
        elif c < deck.n_assets + deck.n_wilds:
            fill = WILD_FILL
        else:
            fill = ACTION_FILL
        out[c] = CardFace(label, name, _k(value) if value else "action", fill)
    return out


def table(st: GameState, seat: int | None, names) -> Table:
    """The :class:`~cya_sim.render.model.Table` of a classic state as ``seat`` sees it (None: the full view);
    ``names``: None or P seat names. ``seat`` is checked by the caller (:func:`cya_sim.render.table.table_of`)."""
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
        status = over_status(st.winners, " (stopped by the max_rounds cap)" if st.capped else "")
    else:
        what = {"turn": "turn", "challenge": "answers the challenge", "draft_offer": "may challenge the drafted set",
                "draft_move": "chooses for the Move"}.get(phase, phase)
        status = f"seat {to_act} to act ({what})" + (f", {st.actions_left} actions left" if st.actions_left > 1
                                                    else "")
    title = f"{r.name} · {p} players · round {st.round} · turn {st.turns}"
    piles = draw_and_discard(st, seat)
    if st.removed:
        piles.append(("removed", tuple(Card(c) for c in sorted(st.removed)[:3]), count_text(len(st.removed))))
    for j, pile in enumerate(st.draft_piles):
        if not pile:
            shown: tuple[Card, ...] = ()
        elif seat is None:
            shown = (Card(pile[-1], marked=bool(st.draft_down[j])),)
        else:
            top = draft.face_up_top(st, j)
            shown = (Card(top if top >= 0 else -1),)
        piles.append((f"draft pile {j}", shown, count_text(len(pile))))
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
            name=seat_label(s, names) + marks, total=f"total ${st.totals[s]:,}{wins}",
            hand=hand_cards(st.hands[s]) if shows_hand else None, hand_count=st.hand_count(s), sets=sets,
            to_act=s == to_act))
    return Table(title, view_label(seat), status, piles, event, rows, faces(r))
