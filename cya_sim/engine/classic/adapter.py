"""The reference observation of a batched row: what lets single-game Python agents play in the batched engine.

:func:`reference_observation` builds the very
:class:`~cya_sim.engine.classic.reference.observation.Observation` the reference engine would give the
seat to act in a row (RULES.md §10); the play layer
(:func:`cya_sim.play.classic.batched.play_with_python_agents`) calls the agent with it.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
from numba import njit

from cya_sim.engine.batched.state import BatchState
from cya_sim.engine.classic.kernel import legal_mask
from cya_sim.engine.classic.layout import (
    B_GAVEUP,
    B_SASSET,
    B_SBELOW,
    B_SCARD0,
    B_SCOUNTS,
    B_SKNOWN0,
    B_SSIZE,
    B_STOP,
    C_ADV_ON,
    C_N,
    C_P,
    C_S,
    C_T,
    G_ADV_DEF0,
    G_ADV_DEPTH,
    G_ADV_LEFT,
    G_ADV_NDEF,
    G_ADV_NO_CH,
    G_ADV_OWED,
    G_DRAFT_MOVE,
    G_DRAFT_THEN0,
    G_DRAFT_THEN1,
)
from cya_sim.engine.classic.reference.legal import action_space
from cya_sim.engine.classic.reference.observation import ChallengeView, Observation, SetView
from cya_sim.engine.jit import JIT

#: Columns of :func:`_row_sets`' table before the T known counts: owner, asset, size, n_hidden, and the set's value
#: seen, lowest and highest (dollars).
_SET_COLS = 7


@njit(**JIT)
def _row_sets(K, G, seat, wlo, whi, sets, lens, seen, gave_up, mask, ids):
    """What ``seat`` sees of every set of row ``G`` (RULES.md §10, R-HIDDEN-WILD), its give-up record and its legal
    mask, in one compiled call: ``sets`` (P*S, 7 + T) int64 gets one line per set, owner by owner and bottom set first
    (:data:`_SET_COLS` columns, then the known counts of each type); ``lens`` (P,) int64 the sets of each stack;
    ``seen`` (T,) int64 the cards the seat knows in the sets; ``gave_up`` (P, T) bool; ``mask`` (A,) bool (``ids``: (A,) int64 scratch). Returns the number of sets.
    The same sums as the reference engine's observation: a set's value is the sum of its known cards' values plus
    each hidden card at the asset's value (seen), at ``min(asset, wlo)`` (low) and ``max(asset, whi)`` (high)."""
    L = K.lay
    p, t = K.cfg[C_P], K.cfg[C_T]
    values = K.values
    for c in range(t):
        seen[c] = 0
    n = 0
    for owner in range(p):
        first = n
        st = G[L[B_STOP] + owner]
        while st >= 0:  # top first: written backwards below
            sets[n, 0] = st
            n += 1
            st = G[L[B_SBELOW] + st]
        i, j = first, n - 1
        while i < j:
            sets[i, 0], sets[j, 0] = sets[j, 0], sets[i, 0]
            i += 1
            j -= 1
        for i in range(first, n):
            st = sets[i, 0]
            asset = G[L[B_SASSET] + st]
            hidden = 0 if (G[L[B_SKNOWN0] + st] >> seat) & 1 else 1
            base = 0
            for c in range(t):
                k = G[L[B_SCOUNTS] + st * t + c]
                sets[i, _SET_COLS + c] = k
            if hidden:
                sets[i, _SET_COLS + G[L[B_SCARD0] + st]] -= 1
            for c in range(t):
                k = sets[i, _SET_COLS + c]
                base += k * values[c]
                seen[c] += k
            av = values[asset]
            sets[i, 0] = owner
            sets[i, 1] = asset
            sets[i, 2] = G[L[B_SSIZE] + st]
            sets[i, 3] = hidden
            sets[i, 4] = base + hidden * av
            sets[i, 5] = base + hidden * min(av, wlo)
            sets[i, 6] = base + hidden * max(av, whi)
        lens[owner] = n - first
    for s in range(p):
        gm = G[L[B_GAVEUP] + s]
        for c in range(t):
            gave_up[s, c] = (gm >> c) & 1 == 1
    legal_mask(K, G, mask, ids)
    return n


def reference_observation(state: BatchState, row: int):
    """The reference :class:`~cya_sim.engine.classic.reference.observation.Observation` of the seat to act in ``row``.

    The row's sets, give-up record and legal mask are read in one compiled call (:func:`_row_sets`); a set seen
    before just as it is now is given as the same read-only
    :class:`~cya_sim.engine.classic.reference.observation.SetView` (:func:`_stack_views`).

    Raises:
        ValueError: the row has no game in progress.
    """
    b = int(row)
    seat = int(state.to_act[b])
    if seat < 0:
        raise ValueError(f"row {b} has no game in progress (to_act = -1)")
    rules = state.rules
    fixed = _fixed(state)
    t, p = fixed.t, fixed.p
    table = np.empty((p * fixed.slots, _SET_COLS + t), np.int64)
    lens = np.empty(p, np.int64)
    seen = np.empty(t, np.int64)
    gave_up = np.empty((p, t), bool)
    mask = np.empty(fixed.actions, bool)
    row = state.rows[b]
    n = _row_sets(state.consts, row, seat, fixed.wlo, fixed.whi, table, lens, seen, gave_up, mask,
                  np.empty(fixed.actions, np.int64))
    stacks = _stack_views(table, n, lens.tolist())
    discard = tuple(state.discard[b, : int(state.discard_len[b])].tolist())
    for c in discard:
        seen[c] += 1
    removed: tuple[int, ...] = ()
    adv = fixed.advanced
    if adv:  # the advanced rules' public state (RULES.md §6); removed cards in type order
        counts = state.adv_removed[b]
        removed = tuple(c for c, m in enumerate(counts.tolist()) for _ in range(m))
        seen += counts
    ch = None
    if state.ch_active[b]:
        n = int(state.ch_len[b])
        cards = tuple(state.ch_cards[b, :n].tolist())
        for c in cards:
            seen[c] += 1
        ch = ChallengeView(int(state.ch_challenger[b]), int(state.ch_defender[b]), int(state.ch_asset[b]), cards,
                           tuple(state.ch_players[b, :n].tolist()), seat,
                           int(row[G_ADV_DEPTH]), max(1, int(row[G_ADV_OWED])))
    tops: tuple[int, ...] = ()
    sizes: tuple[int, ...] = ()
    reach: tuple[int, ...] = ()
    if rules.draft != "none":  # §7, §10: the face-up tops and the pile sizes
        size = rules.draft_pile_size
        sizes = tuple(int(n) for n in state.draft_len[b])
        down = int(state.draft_down[b])
        tops = tuple(int(state.deck_order[b, j * size + n - 1]) if n > 0 and not (down >> j) & 1 else -1
                     for j, n in enumerate(sizes))
        for c in tops:
            if c >= 0:
                seen[c] += 1
        reach = tuple(range(len(sizes))) if rules.draft == "shared" else (seat, (seat - 1) % p)
    hand = state.hands[b, seat].astype(np.int16)
    mask.flags.writeable = False  # as the reference engine's observation: a write into it raises
    return Observation(
        seat=seat, n_players=p, rules=rules, action_space=fixed.space, hand=hand,
        stacks=stacks, discard_pile=discard, draw_size=fixed.cards - int(state.draw_pos[b]),
        hand_sizes=state.hand_count[b].astype(np.int16), totals=state.totals[b].astype(np.int64),
        round=int(state.round[b]), dealer=int(state.dealer[b]), current_player=int(state.current_player[b]),
        phase="challenge" if state.ch_active[b] else ("draft_move" if int(row[G_DRAFT_MOVE]) else
                                                      ("draft_offer" if int(state.draft_offer[b]) else "turn")),
        challenge=ch, unseen=(fixed.deck_counts - hand - seen).astype(np.int16), gave_up=gave_up,
        legal_action_mask=mask, draft_tops=tops, draft_sizes=sizes, draft_reach=reach,
        draft_offer=tuple(int(x) - 1 for x in (state.draft_offer[b], state.draft_offer2[b]) if x),
        removed=removed,
        actions_left=int(row[G_ADV_LEFT]) if adv else rules.actions_per_turn,
        no_challenge=int(row[G_ADV_NO_CH]) - 1,
        turn_defenders=tuple(int(row[G_ADV_DEF0 + i]) for i in range(int(row[G_ADV_NDEF]))),
        played_this_turn=tuple(bool(x) for x in state.played[b]),
        draft_move=(seat, int(row[G_DRAFT_MOVE]) - 1) if int(row[G_DRAFT_MOVE]) else (),
        draft_then=tuple(int(row[g]) - 1 for g in (G_DRAFT_THEN0, G_DRAFT_THEN1) if int(row[g])),
    )


class _Fixed(NamedTuple):
    """What every observation of one rule set and table size shares (read once from the constants record, whose
    fields are slow to read from Python)."""

    t: int
    p: int
    slots: int
    actions: int
    wlo: int
    whi: int
    cards: int
    advanced: bool
    deck_counts: np.ndarray
    space: Any


_FIXED: dict[tuple[Any, int], _Fixed] = {}


def _fixed(state: BatchState) -> _Fixed:
    """The :class:`_Fixed` of ``state``'s rules and table size (kept for the life of the process)."""
    key = (state.rules, state.n_players)
    got = _FIXED.get(key)
    if got is None:
        k, deck = state.consts, state.rules.deck
        t = int(k.cfg[C_T])
        wv = deck.values[deck.n_assets:deck.n_assets + deck.n_wilds]  # wilds only (action cards, §6, are no set card)
        got = _FIXED[key] = _Fixed(
            t=t, p=state.n_players, slots=int(k.cfg[C_S]), actions=state.action_space.size,
            wlo=int(wv.min()) if len(wv) else 1 << 62, whi=int(wv.max()) if len(wv) else -(1 << 62),
            cards=int(k.cfg[C_N]), advanced=bool(k.cfg[C_ADV_ON]), deck_counts=np.array(k.deck_counts[:t], np.int64),
            space=action_space(state.rules))
    return got


#: Sets already given, by their line of :func:`_row_sets` (owner included): the SetView to give again.
_SETS: dict[bytes, SetView] = {}
#: Entries of :data:`_SETS` kept at most (then it starts afresh).
_SETS_MAX = 200_000


def _stack_views(table: np.ndarray, n: int, lens: list[int]) -> tuple[tuple[SetView, ...], ...]:
    """Every stack as a tuple of :class:`SetView` (bottom set first) from the first ``n`` lines of :func:`_row_sets`'
    ``table`` and the sets per stack ``lens``. A set whose line was seen before is given the same SetView (its
    ``known``, a (T,) int16 array, is read-only: one SetView may be shared by many observations)."""
    raw = table[:n].tobytes()
    width = table.shape[1] * 8
    sets = []
    for i in range(n):
        key = raw[i * width:(i + 1) * width]
        view = _SETS.get(key)
        if view is None:
            line = table[i]
            known = line[_SET_COLS:].astype(np.int16)
            known.flags.writeable = False
            owner, asset, size, hidden, v_seen, v_low, v_high = line[:_SET_COLS].tolist()
            view = SetView(owner, asset, size, known, hidden, v_seen, v_low, v_high)
            if len(_SETS) >= _SETS_MAX:
                _SETS.clear()
            _SETS[key] = view
        sets.append(view)
    out = []
    start = 0
    for m in lens:
        out.append(tuple(sets[start:start + m]))
        start += m
    return tuple(out)
