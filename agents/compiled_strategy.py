"""In-engine (numba) forms of ``heuristic``, ``wild_hoarder``, ``card_counter`` and ``oracle``.

The batched engine calls these inside compiled code for the seat to act in one
row. Each builds that seat's agent view (:mod:`agents.view`) from the batch
state — only what the seat may see (RULES.md §10): its hand, the discard
pile, the draw-pile size, every stack's public cards and the set cards it
knows (R-HIDDEN-WILD), hand sizes, the challenge in progress and the public
give-up record — and calls the very same compiled decision function as the
single-game form, so both engines decide identically. ``oracle`` alone also
reads every hand and every hidden set card (it CHEATS, by design).
"""

from __future__ import annotations

from numba import njit

from agents.card_counter import card_counter_decide
from agents.heuristic import heuristic_decide
from agents.oracle import oracle_decide
from agents.view import (
    H_CH_ACTIVE,
    H_CH_ASSET,
    H_CH_CHALLENGER,
    H_CH_DEFENDER,
    H_CH_LEN,
    H_CH_POT_VALUE,
    H_DRAW,
    H_M,
    H_NA,
    H_NW,
    H_P,
    H_ROUND,
    H_SEAT,
    H_TOP_DISCARD,
    S_HAND_SIZE,
    S_STACK_LEN,
    S_TOP_ASSET,
    S_TOP_HIDDEN,
    S_TOP_KNOWN_VALUE,
    S_TOP_SIZE,
    S_TOP_VALUE_SEEN,
)
from cya_sim.engine.batched.kernels import C_M, C_N, C_NA, C_NW, C_P, C_T, legal_mask_row


@njit(cache=True)
def view_row(K, S, b, seat, hdr, hand, unseen, seats):
    """Fill the agent view of ``seat`` in row ``b`` (hdr, hand, unseen, seats; see agents.view).

    Unseen cards = cards in play − hand − discard pile − challenge cards − every
    stack card the seat knows (a set's first card only when its ``set_known0``
    bit is set; every other set card is public).
    """
    cfg = K.cfg
    na, nw, t, p = cfg[C_NA], cfg[C_NW], cfg[C_T], cfg[C_P]
    values = K.values
    hdr[H_SEAT] = seat
    hdr[H_P] = p
    hdr[H_NA] = na
    hdr[H_NW] = nw
    hdr[H_M] = cfg[C_M]
    hdr[H_DRAW] = cfg[C_N] - S.draw_pos[b]
    n_disc = S.discard_len[b]
    hdr[H_TOP_DISCARD] = S.discard[b, n_disc - 1] if n_disc > 0 else -1
    hdr[H_ROUND] = S.round[b]
    for c in range(t):
        hand[c] = S.hands[b, seat, c]
        unseen[c] = K.deck_counts[c] - hand[c]
    for i in range(n_disc):
        unseen[S.discard[b, i]] -= 1
    if S.ch_active[b]:
        hdr[H_CH_ACTIVE] = 1
        hdr[H_CH_ASSET] = S.ch_asset[b]
        hdr[H_CH_CHALLENGER] = S.ch_challenger[b]
        hdr[H_CH_DEFENDER] = S.ch_defender[b]
        pot = 0
        for i in range(S.ch_len[b]):
            pot += values[S.ch_cards[b, i]]
            unseen[S.ch_cards[b, i]] -= 1
        hdr[H_CH_POT_VALUE] = pot
        hdr[H_CH_LEN] = S.ch_len[b]
    else:
        hdr[H_CH_ACTIVE] = 0
        hdr[H_CH_ASSET] = -1
        hdr[H_CH_CHALLENGER] = -1
        hdr[H_CH_DEFENDER] = -1
        hdr[H_CH_POT_VALUE] = 0
        hdr[H_CH_LEN] = 0
    for st in range(S.n_sets[b]):
        for c in range(t):
            unseen[c] -= S.set_counts[b, st, c]
        if (S.set_known0[b, st] >> seat) & 1 == 0:
            unseen[S.set_card0[b, st]] += 1
    for s in range(p):
        seats[s, S_HAND_SIZE] = S.hand_count[b, s]
        seats[s, S_STACK_LEN] = S.stack_len[b, s]
        top = S.stack_top[b, s]
        if top < 0:
            seats[s, S_TOP_ASSET] = -1
            seats[s, S_TOP_VALUE_SEEN] = 0
            seats[s, S_TOP_HIDDEN] = 0
            seats[s, S_TOP_SIZE] = 0
            seats[s, S_TOP_KNOWN_VALUE] = 0
            continue
        asset = S.set_asset[b, top]
        known = S.set_value[b, top]
        hidden = 0
        if (S.set_known0[b, top] >> seat) & 1 == 0:
            hidden = 1
            known -= values[S.set_card0[b, top]]
        seats[s, S_TOP_ASSET] = asset
        seats[s, S_TOP_HIDDEN] = hidden
        seats[s, S_TOP_SIZE] = S.set_size[b, top]
        seats[s, S_TOP_KNOWN_VALUE] = known
        seats[s, S_TOP_VALUE_SEEN] = known + hidden * values[asset]


@njit(cache=True)
def heuristic_act(K, S, b, seat, params):
    """``heuristic`` (and ``wild_hoarder``) for ``seat`` in row ``b``; params from HeuristicConfig.to_array.

    The view lives in the row's scratch arrays ``S.v_*`` (no allocation).
    """
    hdr, hand, unseen, seats, mask = S.v_hdr[b], S.v_hand[b], S.v_unseen[b], S.v_seats[b], S.v_mask[b]
    view_row(K, S, b, seat, hdr, hand, unseen, seats)
    legal_mask_row(K, S, b, mask)
    return heuristic_decide(params, hdr, hand, K.values, unseen, seats, mask)


@njit(cache=True)
def card_counter_act(K, S, b, seat, params):
    """``card_counter`` for ``seat`` in row ``b``; reads the public give-up record ``S.gave_up``."""
    hdr, hand, unseen, seats, mask = S.v_hdr[b], S.v_hand[b], S.v_unseen[b], S.v_seats[b], S.v_mask[b]
    view_row(K, S, b, seat, hdr, hand, unseen, seats)
    legal_mask_row(K, S, b, mask)
    return card_counter_decide(params, hdr, hand, K.values, unseen, seats, S.gave_up[b], mask)


@njit(cache=True)
def oracle_act(K, S, b, seat):
    """``oracle`` (CHEATS) for ``seat`` in row ``b``: true top-set values and every hand."""
    hdr, hand, unseen, seats, mask = S.v_hdr[b], S.v_hand[b], S.v_unseen[b], S.v_seats[b], S.v_mask[b]
    view_row(K, S, b, seat, hdr, hand, unseen, seats)
    for s in range(K.cfg[C_P]):
        top = S.stack_top[b, s]
        if top >= 0:
            seats[s, S_TOP_VALUE_SEEN] = S.set_value[b, top]
    legal_mask_row(K, S, b, mask)
    hands_all = S.v_hands_all[b]
    for s in range(K.cfg[C_P]):
        for c in range(K.cfg[C_T]):
            hands_all[s, c] = S.hands[b, s, c]
    return oracle_decide(hdr, hand, K.values, seats, hands_all, mask)
