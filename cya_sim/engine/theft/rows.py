"""A theft game between its two forms: a reference :class:`~cya_sim.game.theft.state.TheftState` and a compiled row.

:func:`state_to_row` writes a reference state (a hand-built position, a game in progress) into a row
of :mod:`cya_sim.engine.theft.layout` with its engine stream, so that the compiled kernel can go on from it;
:func:`row_to_state` reads a row back into a state that compares equal (``==``) to the reference's
when both engines have played the same actions. Tests use both to hold the kernel to the reference
position by position (``tests/test_theft_kernel.py``); the batched engine's Python seats could use
:func:`row_to_state` for their observations.
"""

from __future__ import annotations

import numpy as np

from cya_sim.engine.theft.layout import (
    A_C0,
    A_C1,
    A_KNOWN0,
    A_VALUE,
    C_P,
    G_CANCELLED,
    G_CAPPED,
    G_CUR,
    G_DECISIONS,
    G_DISC_LEN,
    G_DONE,
    G_DRAW_END,
    G_DRAW_POS,
    G_FINAL_LEFT,
    G_FIRST,
    G_LARGEST_STEAL,
    G_PHASE,
    G_TH_CARD,
    G_TH_SLOT,
    G_TH_TARGET,
    G_TH_THIEF,
    G_THEFTS,
    G_THEFTS_TURN,
    G_TO_ACT,
    G_TRIGGER,
    G_TURNS,
    G_WINNERS,
    PH_DEFENCE,
    PH_OVER,
    PHASE_NAMES,
    Consts,
    field_view,
    make_consts,
    row_width,
)
from cya_sim.game.rng import MASK64
from cya_sim.game.theft.rules import TheftRuleSet
from cya_sim.game.theft.state import Asset, PendingTheft, TheftState


def rng_to_stream(rng: np.random.Generator) -> np.ndarray:
    """(4,) uint64 PCG64 stream ``[state_hi, state_lo, inc_hi, inc_lo]`` of a NumPy PCG64 generator.

    Raises:
        ValueError: the generator has a buffered 32-bit half (the compiled streams draw doubles only).
    """
    s = rng.bit_generator.state
    if s.get("has_uint32"):
        raise ValueError("the generator holds a buffered 32-bit value; the compiled stream cannot take it")
    st, inc = int(s["state"]["state"]), int(s["state"]["inc"])
    return np.array([st >> 64, st & MASK64, inc >> 64, inc & MASK64], np.uint64)


def stream_to_rng(stream: np.ndarray) -> np.random.Generator:
    """A NumPy PCG64 generator at the position of the (4,) uint64 stream ``stream``."""
    bg = np.random.PCG64()
    bg.state = {"bit_generator": "PCG64", "state": {"state": (int(stream[0]) << 64) | int(stream[1]),
                                                    "inc": (int(stream[2]) << 64) | int(stream[3])},
                "has_uint32": 0, "uinteger": 0}
    return np.random.Generator(bg)


def state_to_row(state: TheftState, k: Consts | None = None) -> tuple[Consts, np.ndarray, np.ndarray]:
    """``(K, row, stream)``: the constants, the (W,) int64 row and the (4,) uint64 engine stream of ``state``.

    The stream is the state's ``rng`` (zeros when it has none). Counters, the pending theft, R-T-END's
    last turns and the result fields are carried over.

    Raises:
        ValueError: a seat holds more assets than the layout's ``max_assets`` slots, or a pile longer than
            the deck (an impossible position).
    """
    r = state.rules
    p = state.n_players
    k = make_consts(r, p) if k is None else k
    g = np.zeros(row_width(k), np.int64)
    f = {name: field_view(k, g, name) for name in ("hand_count", "n_assets", "points", "hands", "deck", "discard",
                                                   "discard_counts", "assets")}
    for s in range(p):
        f["hands"][s] = state.hands[s]
        f["hand_count"][s] = sum(state.hands[s])
        if len(state.assets[s]) > r.max_assets:
            raise ValueError(f"seat {s} holds {len(state.assets[s])} assets; at most {r.max_assets} fit")
        f["n_assets"][s] = len(state.assets[s])
        for i, a in enumerate(state.assets[s]):
            f["assets"][s, i] = [a.cards[0], a.cards[1], a.known_by[0], a.value(r.values)]
    if len(state.draw_pile) > r.n_cards or len(state.discard_pile) > r.n_cards:
        raise ValueError("a pile holds more cards than the deck")
    f["deck"][: len(state.draw_pile)] = state.draw_pile
    f["discard"][: len(state.discard_pile)] = state.discard_pile
    for c in state.discard_pile:
        f["discard_counts"][c] += 1
    g[G_DRAW_POS], g[G_DRAW_END], g[G_DISC_LEN] = 0, len(state.draw_pile), len(state.discard_pile)
    g[G_PHASE] = PHASE_NAMES.index(state.phase)
    g[G_TO_ACT], g[G_CUR], g[G_FIRST] = state.to_act, state.current_player, state.first_player
    if state.theft is not None:
        th = state.theft
        g[G_TH_THIEF], g[G_TH_TARGET], g[G_TH_SLOT], g[G_TH_CARD] = th.thief, th.target, th.slot, th.card
    g[G_THEFTS_TURN] = state.thefts_this_turn
    g[G_FINAL_LEFT] = -1 if state.final_turns_left is None else state.final_turns_left
    g[G_TRIGGER] = state.trigger_seat
    g[G_WINNERS] = sum(1 << s for s in state.winners) if state.winners is not None else 0
    g[G_CAPPED] = int(state.capped)
    g[G_TURNS], g[G_THEFTS], g[G_CANCELLED] = state.turns, state.thefts, state.cancelled
    g[G_DECISIONS], g[G_LARGEST_STEAL] = state.decisions, state.largest_steal
    g[G_DONE] = int(state.phase == "over")
    if state.phase == "over":
        f["points"][:] = state.scores()
    stream = rng_to_stream(state.rng) if state.rng is not None else np.zeros(4, np.uint64)
    return k, g, stream


def row_to_state(rules: TheftRuleSet, k: Consts, g: np.ndarray, stream: np.ndarray | None = None) -> TheftState:
    """The reference :class:`TheftState` of row ``g`` ((W,) int64) under ``rules`` and its constants ``k``.

    ``stream`` ((4,) uint64, optional) becomes the state's ``rng``. The state compares equal to the
    reference engine's after the same actions from the same deal (``rng`` is not compared).
    """
    p = int(k.cfg[C_P])
    f = {name: field_view(k, g, name) for name in ("n_assets", "hands", "deck", "discard", "assets")}
    public = (1 << p) - 1
    assets = [[Asset([int(f["assets"][s, i, A_C0]), int(f["assets"][s, i, A_C1])],
                     [int(f["assets"][s, i, A_KNOWN0]), public]) for i in range(int(f["n_assets"][s]))]
              for s in range(p)]
    for s in range(p):
        for i, a in enumerate(assets[s]):
            assert a.value(rules.values) == int(f["assets"][s, i, A_VALUE]), "asset points out of step"
    phase = int(g[G_PHASE])
    theft = (PendingTheft(int(g[G_TH_THIEF]), int(g[G_TH_TARGET]), int(g[G_TH_SLOT]), int(g[G_TH_CARD]))
             if phase == PH_DEFENCE else None)
    winners = [s for s in range(p) if (int(g[G_WINNERS]) >> s) & 1] if phase == PH_OVER else None
    state = TheftState(
        rules=rules, n_players=p, hands=[[int(x) for x in f["hands"][s]] for s in range(p)],
        draw_pile=[int(c) for c in f["deck"][int(g[G_DRAW_POS]):int(g[G_DRAW_END])]],
        discard_pile=[int(c) for c in f["discard"][: int(g[G_DISC_LEN])]], assets=assets,
        phase=PHASE_NAMES[phase], current_player=int(g[G_CUR]), first_player=int(g[G_FIRST]), theft=theft,
        thefts_this_turn=int(g[G_THEFTS_TURN]),
        final_turns_left=None if int(g[G_FINAL_LEFT]) < 0 else int(g[G_FINAL_LEFT]),
        trigger_seat=int(g[G_TRIGGER]), winners=winners, capped=bool(g[G_CAPPED]), turns=int(g[G_TURNS]),
        thefts=int(g[G_THEFTS]), cancelled=int(g[G_CANCELLED]), decisions=int(g[G_DECISIONS]),
        largest_steal=int(g[G_LARGEST_STEAL]), rng=stream_to_rng(stream) if stream is not None else None)
    assert state.to_act == int(g[G_TO_ACT]), "to_act out of step"
    return state
