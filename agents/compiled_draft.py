"""Compiled draft decisions of the built-in policies (RULES.md §7: R-2P-DRAFT, R-3P-DRAFT).

Shared by :mod:`agents.compiled` and :mod:`agents.compiled_strategy`; each function equals the
single-game agent's choice (``agents/greedy.py`` and the other agents' docstrings), game by game.
Called only when ``K.cfg[C_DRAFT]`` is set, so the classic presets never run this code.
"""

from __future__ import annotations

from numba import njit

from cya_sim.engine.compiled.draft import take_mask
from cya_sim.engine.compiled.layout import (
    B_HANDS,
    B_SASSET,
    B_STOP,
    C_DRAFT_CH,
    C_DRAFT_DEC,
    C_DRAFT_TAKE,
    C_DRAFT_WILD,
    C_NA,
    C_NW,
    C_T,
    G_CUR,
)

_JIT = {"cache": True, "_nrt": False, "error_model": "numpy"}


@njit(**_JIT)
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


@njit(**_JIT)
def best_take(K, G, seat, ids, n, best, best_v):
    """The draft take of highest :func:`take_value` among the legal ids ``ids[:n]`` if it beats ``best_v``
    (strictly; ids ascend, so ties keep the lowest id): returns ``(best, best_v)``."""
    cfg = K.cfg
    for i in range(n):
        a = ids[i]
        if a < cfg[C_DRAFT_TAKE] or a >= cfg[C_DRAFT_CH]:
            continue
        v = take_value(K, G, seat, a)
        if v > best_v:
            best = a
            best_v = v
    return best, best_v


@njit(**_JIT)
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
