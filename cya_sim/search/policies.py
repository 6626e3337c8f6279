"""Strategy policies as rollout policies of the search: the agent view built from a flat game.

The strategy agents of ``agents/`` decide from an *agent view* (:mod:`agents.view`:
``hdr``, ``hand``, ``values``, ``unseen``, ``seats``, ``mask``, and for
``card_counter`` the public give-up record). :func:`view_flat` fills that view
for one seat of a flat game (:mod:`cya_sim.search.flat`) with exactly the
fields :func:`agents.compiled_strategy.view_row` fills from a batched-engine
row, reading only what that seat may see (RULES.md §10): its own hand, the
discard pile, the draw-pile size, every stack's public cards and the set
cards it knows (R-HIDDEN-WILD), hand sizes, the challenge in progress and the
public record of who gave up. The very same compiled decision function then
decides (:func:`agents.card_counter.card_counter_decide`), so a
``card_counter`` rollout seat plays as the real agent would in that
(determinized) position. ``tests/test_search_flat.py`` checks view and
decision against the batched engine's ``card_counter`` action by action.

Why the unseen cards are counted differently: the flat game keeps no per-set
card counts, so instead of "deck minus everything seen" (``view_row``) the
unseen cards of a seat are counted where they are — the other seats' hands,
the draw pile, and the first card of every set whose knower bitmask lacks the
seat (R-HIDDEN-WILD). Every card is in exactly one place (a hand, the draw
pile, the discard pile, a challenge or a set), so both counts are equal.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from agents.card_counter import N_CC_PARAMS, card_counter_decide
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
    N_HDR,
    N_SEATCOL,
    S_HAND_SIZE,
    S_STACK_LEN,
    S_TOP_ASSET,
    S_TOP_HIDDEN,
    S_TOP_KNOWN_VALUE,
    S_TOP_SIZE,
    S_TOP_VALUE_SEEN,
)
from cya_sim.engine.batched import kernels as kn
from cya_sim.search import flat as fl


@njit(cache=True, _nrt=False)
def unseen_flat(cfg, L, G, seat, unseen):
    """Cards of each type ``seat`` has not seen in flat game ``G``, into ``unseen`` ((T,) int64).

    Counted where they are (module docstring): the other seats' hands, the
    draw pile ``deck[draw_pos:]`` and the first card of each set whose
    knower bitmask lacks ``seat`` (R-HIDDEN-WILD).
    """
    p, t, n = cfg[kn.C_P], cfg[kn.C_T], cfg[kn.C_N]
    for c in range(t):
        unseen[c] = 0
    for s in range(p):
        if s == seat:
            continue
        h0 = L[fl.B_HANDS] + s * t
        for c in range(t):
            unseen[c] += G[h0 + c]
    d0 = L[fl.B_DECK]
    for i in range(G[fl.G_DRAW_POS], n):
        unseen[G[d0 + i]] += 1
    for st in range(G[fl.G_N_SETS]):
        if (G[L[fl.B_SKNOWN0] + st] >> seat) & 1 == 0:
            unseen[G[L[fl.B_SCARD0] + st]] += 1


@njit(cache=True, _nrt=False)
def view_flat(cfg, values, L, G, seat, hdr, hand, unseen, seats, gave_up, mask):
    """Fill the agent view (:mod:`agents.view`) of ``seat`` in flat game ``G``.

    Args:
        cfg, values: the batched engine's ``Consts.cfg`` and card values ($, (T,) int64).
        L, G: the flat layout and game (:mod:`cya_sim.search.flat`).
        seat: the seat whose view is built (int; the mask is that of the seat to act).
        hdr: (N_HDR,) int64; hand, unseen: (T,) int64; seats: (P, N_SEATCOL) int64;
        gave_up: (P, T) bool; mask: (A,) bool (:func:`legal_mask_flat`) — all written.

    The fields equal those of :func:`agents.compiled_strategy.view_row` on the
    batched row ``G`` was packed from (``tests/test_search_flat.py``).
    """
    na, nw, t, p, n = cfg[kn.C_NA], cfg[kn.C_NW], cfg[kn.C_T], cfg[kn.C_P], cfg[kn.C_N]
    hdr[H_SEAT] = seat
    hdr[H_P] = p
    hdr[H_NA] = na
    hdr[H_NW] = nw
    hdr[H_M] = cfg[kn.C_M]
    hdr[H_DRAW] = n - G[fl.G_DRAW_POS]
    n_disc = G[fl.G_DISC_LEN]
    hdr[H_TOP_DISCARD] = G[L[fl.B_DISC] + n_disc - 1] if n_disc > 0 else -1
    hdr[H_ROUND] = G[fl.G_ROUND]
    h0 = L[fl.B_HANDS] + seat * t
    for c in range(t):
        hand[c] = G[h0 + c]
    unseen_flat(cfg, L, G, seat, unseen)
    if G[fl.G_CH_ACTIVE]:
        hdr[H_CH_ACTIVE] = 1
        hdr[H_CH_ASSET] = G[fl.G_CH_ASSET]
        hdr[H_CH_CHALLENGER] = G[fl.G_CH_CHAL]
        hdr[H_CH_DEFENDER] = G[fl.G_CH_DEF]
        pot = 0
        for i in range(G[fl.G_CH_LEN]):
            pot += values[G[L[fl.B_CHCARDS] + i]]
        hdr[H_CH_POT_VALUE] = pot
        hdr[H_CH_LEN] = G[fl.G_CH_LEN]
    else:
        hdr[H_CH_ACTIVE] = 0
        hdr[H_CH_ASSET] = -1
        hdr[H_CH_CHALLENGER] = -1
        hdr[H_CH_DEFENDER] = -1
        hdr[H_CH_POT_VALUE] = 0
        hdr[H_CH_LEN] = 0
    for s in range(p):
        seats[s, S_HAND_SIZE] = G[L[fl.B_HCOUNT] + s]
        seats[s, S_STACK_LEN] = G[L[fl.B_SLEN] + s]
        gm = G[L[fl.B_GAVEUP] + s]
        for c in range(t):
            gave_up[s, c] = (gm >> c) & 1 == 1
        top = G[L[fl.B_STOP] + s]
        if top < 0:
            seats[s, S_TOP_ASSET] = -1
            seats[s, S_TOP_VALUE_SEEN] = 0
            seats[s, S_TOP_HIDDEN] = 0
            seats[s, S_TOP_SIZE] = 0
            seats[s, S_TOP_KNOWN_VALUE] = 0
            continue
        asset = G[L[fl.B_SASSET] + top]
        known = G[L[fl.B_SVALUE] + top]
        hidden = 0
        if (G[L[fl.B_SKNOWN0] + top] >> seat) & 1 == 0:
            hidden = 1
            known -= values[G[L[fl.B_SCARD0] + top]]
        seats[s, S_TOP_ASSET] = asset
        seats[s, S_TOP_HIDDEN] = hidden
        seats[s, S_TOP_SIZE] = G[L[fl.B_SSIZE] + top]
        seats[s, S_TOP_KNOWN_VALUE] = known
        seats[s, S_TOP_VALUE_SEEN] = known + hidden * values[asset]
    legal_mask_flat(cfg, L, G, mask)


@njit(cache=True, _nrt=False)
def legal_mask_flat(cfg, L, G, mask):
    """The legal action mask ((A,) bool, written) of the seat to act in ``G``, straight from its hand.

    The same set of actions as :func:`cya_sim.search.flat.legal_list` (R-PAIR-HAND,
    R-PAIR-DISCARD, R-CHALLENGE with R-CH-ALLOWED, R-DISCARD; in a challenge
    R-CH-EXCHANGE), without testing every id one by one.
    """
    for i in range(mask.shape[0]):
        mask[i] = False
    seat = G[fl.G_TO_ACT]
    if seat < 0:
        return
    na, nw, t, w = cfg[kn.C_NA], cfg[kn.C_NW], cfg[kn.C_T], cfg[kn.C_W]
    h0 = L[fl.B_HANDS] + seat * t
    if G[fl.G_CH_ACTIVE]:
        re = cfg[kn.C_RE]
        mask[re] = G[h0 + G[fl.G_CH_ASSET]] > 0
        for k in range(nw):
            mask[re + 1 + k] = G[h0 + na + k] > 0
        mask[cfg[kn.C_GU]] = True
        return
    n_wild = 0
    for k in range(nw):
        n_wild += G[h0 + na + k]
    for a in range(na):
        h = G[h0 + a]
        if h == 0:
            continue
        mask[a * w] = h >= 2
        if n_wild > 0:
            for k in range(nw):
                mask[a * w + 1 + k] = G[h0 + na + k] > 0
    n_disc = G[fl.G_DISC_LEN]
    if n_disc > 0:
        top = G[L[fl.B_DISC] + n_disc - 1]
        pd = cfg[kn.C_PD]
        if top < na:
            if G[h0 + top] > 0:
                mask[pd + top] = True
            for k in range(nw):
                mask[pd + na + k] = G[h0 + na + k] > 0
        else:
            for c in range(na):
                mask[pd + c] = G[h0 + c] > 0
    p = cfg[kn.C_P]
    if G[L[fl.B_SLEN] + seat] >= 1:
        for off in range(1, p):
            tg = (seat + off) % p
            if G[L[fl.B_SLEN] + tg] < 2:
                continue
            row = cfg[kn.C_CH] + (off - 1) * w
            mask[row] = G[h0 + G[L[fl.B_SASSET] + G[L[fl.B_STOP] + tg]]] > 0
            for k in range(nw):
                mask[row + 1 + k] = G[h0 + na + k] > 0
    di = cfg[kn.C_DI]
    for c in range(t):
        mask[di + c] = G[h0 + c] > 0


@njit(cache=True, _nrt=False)
def card_counter_act(cfg, values, L, G, view):
    """The ``card_counter`` action of the seat to act in ``G`` (:func:`agents.card_counter.card_counter_decide`).

    Args:
        view: tuple (hdr, hand, unseen, seats, gave_up, mask, params) of
            scratch arrays (:func:`new_view`); params: (N_CC_PARAMS,) float64,
            ``[min_gain]`` in dollars.

    Returns:
        an action id (legal for the seat to act), or -1 when no seat is to act.
    """
    seat = G[fl.G_TO_ACT]
    if seat < 0:
        return -1
    if G[fl.G_CH_ACTIVE]:  # no card to answer with: card_counter gives up (its k == 0 case), no view needed
        na, nw, t = cfg[kn.C_NA], cfg[kn.C_NW], cfg[kn.C_T]
        h0 = L[fl.B_HANDS] + seat * t
        k = G[h0 + G[fl.G_CH_ASSET]]
        for i in range(nw):
            k += G[h0 + na + i]
        if k == 0:
            return cfg[kn.C_GU]
    hdr, hand, unseen, seats, gave_up, mask, params = view
    view_flat(cfg, values, L, G, seat, hdr, hand, unseen, seats, gave_up, mask)
    return card_counter_decide(params, hdr, hand, values, unseen, seats, gave_up, mask)


def new_view(cfg: np.ndarray, min_gain: float = 0.0) -> tuple:
    """Scratch arrays of :func:`card_counter_act` for the batched engine's ``cfg``.

    Returns:
        (hdr (N_HDR,) int64, hand (T,) int64, unseen (T,) int64, seats (P, N_SEATCOL) int64,
        gave_up (P, T) bool, mask (A,) bool, params (N_CC_PARAMS,) float64 = ``[min_gain]``).
    """
    p, t, a = int(cfg[kn.C_P]), int(cfg[kn.C_T]), int(cfg[kn.C_A])
    params = np.zeros(N_CC_PARAMS, np.float64)
    params[0] = float(min_gain)
    return (np.zeros(N_HDR, np.int64), np.zeros(t, np.int64), np.zeros(t, np.int64),
            np.zeros((p, N_SEATCOL), np.int64), np.zeros((p, t), np.bool_), np.zeros(a, np.bool_), params)


@njit(cache=True, _nrt=False)
def card_counter_flat(cfg, values, L, G, view):
    """:func:`card_counter_act` on ``G`` (callable from Python; for tests)."""
    return card_counter_act(cfg, values, L, G, view)
