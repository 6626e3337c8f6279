"""Compiled draft decisions of the built-in policies (RULES.md §7: R-2P-DRAFT, R-3P-DRAFT).

Shared by :mod:`agents.classic.compiled` and :mod:`agents.classic.compiled_strategy`; each function equals the
single-game agent's choice (``agents/classic/greedy.py`` and the other agents' docstrings), game by game.
Called only when ``K.cfg[C_DRAFT]`` is set, so the classic presets never run this code.
"""

from __future__ import annotations

from numba import njit

from cya_sim.engine.classic.draft import reach_pile, take_mask, top
from cya_sim.engine.classic.layout import (
    B_HANDS,
    B_SASSET,
    B_STOP,
    C_DRAFT_CH,
    C_DRAFT_DEC,
    C_DRAFT_PILES,
    C_DRAFT_TAKE,
    C_DRAFT_WILD,
    C_NA,
    C_NW,
    C_T,
    G_CUR,
)
from cya_sim.engine.jit import JIT


@njit(**JIT)
def take_value(K, G, seat, a):
    """Dollars of the set formed by draft id ``a`` (legal for ``seat``): its hand card plus every card it takes."""
    cfg = K.cfg
    na = cfg[C_NA]
    asset = K.act_hi[a]
    k = K.act_lo[a]
    if a < cfg[C_DRAFT_WILD]:
        hand_card = asset
        piles = take_mask(K, G, seat, asset, k)
    else:
        hand_card = na + k - 1
        piles = take_mask(K, G, seat, asset, 0)
    v = K.values[hand_card]
    n = 0
    while piles != 0:
        n += piles & 1
        piles >>= 1
    if a < cfg[C_DRAFT_WILD] and k > 0:
        return v + K.values[na + k - 1]
    return v + n * K.values[asset]


@njit(**JIT)
def best_take(K, G, seat, cnt, best, best_v):
    """The legal draft take of highest value (:func:`take_value`) if it beats ``best_v`` strictly, visiting
    the draft ids in ascending order (ties keep the lowest id): returns ``(best, best_v)``.

    ``cnt`` ((T,) int64) is scratch: it gets the face-up tops of each type within ``seat``'s reach, so
    every take is valued from it without scanning the piles again (same choices as valuing each
    legal id, ``tests/test_batched_differential.py``). Only the entries of the types showing (the bits of
    ``up``) are written and read: nothing is cleared (speed).
    """
    cfg = K.cfg
    na = cfg[C_NA]
    nw = cfg[C_NW]
    t = cfg[C_T]
    w = 1 + nw
    values = K.values
    h0 = K.lay[B_HANDS] + seat * t
    up = 0  # bit c: a face-up top of type c within reach; cnt[c] how many
    for i in range(cfg[C_DRAFT_PILES]):
        j = reach_pile(K, G, seat, i)
        if j < 0:
            break
        c = top(K, G, j)
        if c >= 0:
            if (up >> c) & 1 == 0:
                up |= 1 << c
                cnt[c] = 0
            cnt[c] += 1
    if up == 0:
        return best, best_v
    for a in range(na):  # draft_take ids: asset a, then k
        if G[h0 + a] == 0:
            continue
        if (up >> a) & 1:
            v = values[a] * (1 + cnt[a])
            if v > best_v:
                best = cfg[C_DRAFT_TAKE] + a * w
                best_v = v
            continue
        for k in range(nw):
            if (up >> (na + k)) & 1:
                v = values[a] + values[na + k]
                if v > best_v:
                    best = cfg[C_DRAFT_TAKE] + a * w + 1 + k
                    best_v = v
    for k in range(nw):  # draft_wild ids: wild k, then the named asset
        if G[h0 + na + k] == 0:
            continue
        for a in range(na):
            if (up >> a) & 1:
                v = values[na + k] + cnt[a] * values[a]
                if v > best_v:
                    best = cfg[C_DRAFT_WILD] + k * na + a
                    best_v = v
    return best, best_v


@njit(**JIT)
def open_if_able(K, G, seat):
    """Open the immediate challenge of the drafted set with a matching asset, else the cheapest wild
    (``K.wild_order``), else decline (the greedy answer rule applied to the draft offer)."""
    cfg = K.cfg
    na = cfg[C_NA]
    h0 = K.lay[B_HANDS] + seat * cfg[C_T]
    asset = G[K.lay[B_SASSET] + G[K.lay[B_STOP] + G[G_CUR]]]
    if G[h0 + asset] > 0:
        return cfg[C_DRAFT_CH]
    for i in range(cfg[C_NW]):
        wd = K.wild_order[i]
        if G[h0 + wd] > 0:
            return cfg[C_DRAFT_CH] + 1 + wd - na
    return cfg[C_DRAFT_DEC]
