"""The reference observation of a batched row: what lets single-game Python agents play in the batched engine.

:func:`reference_observation` builds the very
:class:`~cya_sim.engine.classic.reference.observation.Observation` the reference engine would give the
seat to act in a row (RULES.md §10); the play layer
(:func:`cya_sim.play.classic.batched.play_with_python_agents`) calls the agent with it.
"""

from __future__ import annotations

import numpy as np

from cya_sim.engine.batched.state import BatchState
from cya_sim.engine.classic.kernel import legal_mask
from cya_sim.engine.classic.layout import (
    C_ADV_ON,
    C_N,
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


def reference_observation(state: BatchState, row: int):
    """The reference :class:`~cya_sim.engine.classic.reference.observation.Observation` of the seat to act in ``row``.

    Raises:
        ValueError: the row has no game in progress.
    """
    b = int(row)
    seat = int(state.to_act[b])
    if seat < 0:
        raise ValueError(f"row {b} has no game in progress (to_act = -1)")
    rules = state.rules
    k = state.consts
    deck = rules.deck
    values = deck.values
    t, p, na = deck.n_types, state.n_players, deck.n_assets
    wv = values[na:na + deck.n_wilds]  # wilds only (action cards, §6, are no set card)
    bit = 1 << seat
    seen = np.zeros(t, np.int64)
    stacks = []
    for owner in range(p):
        slots = []
        st = int(state.stack_top[b, owner])
        while st >= 0:
            slots.append(st)
            st = int(state.set_below[b, st])
        views = []
        for st in reversed(slots):
            known = state.set_counts[b, st].astype(np.int16)
            n_hidden = 0
            if not int(state.set_known0[b, st]) & bit:
                known[int(state.set_card0[b, st])] -= 1
                n_hidden = 1
            asset = int(state.set_asset[b, st])
            base = int((known.astype(np.int64) * values).sum())
            av = int(values[asset])
            lo = min(av, int(wv.min())) if len(wv) else av
            hi = max(av, int(wv.max())) if len(wv) else av
            views.append(SetView(owner, asset, int(state.set_size[b, st]), known, n_hidden,
                                 base + n_hidden * av, base + n_hidden * lo, base + n_hidden * hi))
            seen += known
        stacks.append(tuple(views))
    discard = tuple(int(c) for c in state.discard[b, : int(state.discard_len[b])])
    for c in discard:
        seen[c] += 1
    row = state.rows[b]
    removed: tuple[int, ...] = ()
    adv = bool(k.cfg[C_ADV_ON])
    if adv:  # the advanced rules' public state (RULES.md §6); removed cards in type order
        counts = state.adv_removed[b]
        removed = tuple(int(c) for c in range(t) for _ in range(int(counts[c])))
        seen += counts
    ch = None
    if state.ch_active[b]:
        n = int(state.ch_len[b])
        cards = tuple(int(c) for c in state.ch_cards[b, :n])
        for c in cards:
            seen[c] += 1
        ch = ChallengeView(int(state.ch_challenger[b]), int(state.ch_defender[b]), int(state.ch_asset[b]), cards,
                           tuple(int(x) for x in state.ch_players[b, :n]), seat,
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
    mask = np.zeros(state.action_space.size, bool)
    legal_mask(k, state.rows[b], mask, np.zeros(state.action_space.size, np.int64))
    mask.flags.writeable = False  # as the reference engine's observation: a write into it raises
    return Observation(
        seat=seat, n_players=p, rules=rules, action_space=action_space(rules), hand=hand,
        stacks=tuple(stacks), discard_pile=discard, draw_size=int(k.cfg[C_N] - state.draw_pos[b]),
        hand_sizes=state.hand_count[b].astype(np.int16), totals=state.totals[b].astype(np.int64),
        round=int(state.round[b]), dealer=int(state.dealer[b]), current_player=int(state.current_player[b]),
        phase="challenge" if state.ch_active[b] else ("draft_move" if int(row[G_DRAFT_MOVE]) else
                                                      ("draft_offer" if int(state.draft_offer[b]) else "turn")),
        challenge=ch, unseen=(k.deck_counts[:int(k.cfg[C_T])] - hand - seen).astype(np.int16), gave_up=state.gave_up[b],
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
