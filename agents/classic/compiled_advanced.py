"""``greedy`` under the advanced rules (RULES.md §6), compiled on the game row without the agent view.

Under §6, ``greedy`` is ``heuristic`` with its default switches inside the §6 layer of
:mod:`agents.classic.advanced` (:class:`agents.classic.greedy.GreedyAgent`): :func:`~agents.classic.advanced.advanced_first`,
then :func:`~agents.classic.heuristic.heuristic_decide`, then :func:`~agents.classic.advanced.advanced_last`, all over
the agent view (:mod:`agents.classic.view`). Building that view (hand, unseen cards, every seat's columns, a
179-entry legal mask) costs several times the decision, so :func:`greedy_advanced_act` takes the
same decision reading only the row entries it needs, as the classic ``greedy_act`` does
(:mod:`agents.classic.compiled`). It is a second, faster form of that one policy, not a second policy: its
choices equal the view path's at every decision (``tests/test_agents_compiled_advanced.py`` compares
both at every decision of random and greedy games; ``tests/test_batched_differential.py`` compares
it with the reference engine's Python ``greedy``).

Each step below names the view-path function it equals; the legality of an id is read from the row
exactly as :func:`cya_sim.engine.classic.kernel.legal_list` and
:func:`cya_sim.engine.classic.advanced.extend_legal` decide it.

It covers every rule set with some §6 block on (``C_ADV_ON``) and no draft piles (``C_DRAFT == 0``):
:func:`covers` says so, and ``agents.classic.compiled.greedy_act`` falls back to the view path otherwise (a
draft combined with the §6 rules).
"""

from __future__ import annotations

from numba import njit

from agents.classic.advanced import DEEP_MIN, MOVE_PROTECT, SWAP_GAIN, _pair_cost
from cya_sim.engine.classic.kernel import value_seen
from cya_sim.engine.classic.layout import (
    B_DISC,
    B_HANDS,
    B_SASSET,
    B_SBELOW,
    B_SLEN,
    B_STOP,
    C_ADV_DC,
    C_ADV_END,
    C_ADV_ET,
    C_ADV_IM,
    C_ADV_MOVE,
    C_ADV_MV,
    C_ADV_ON,
    C_ADV_PENNY,
    C_ADV_Q,
    C_ADV_R2,
    C_ADV_SW,
    C_ADV_SWAP,
    C_ADV_TWO,
    C_CH,
    C_DI,
    C_DRAFT,
    C_GU,
    C_NA,
    C_NW,
    C_P,
    C_PD,
    C_RE,
    C_T,
    C_W,
    G_ADV_LEFT,
    G_ADV_NO_CH,
    G_ADV_OWED,
    G_CH_ACTIVE,
    G_CH_ASSET,
    G_DISC_LEN,
)
from cya_sim.engine.intrinsics import cttz
from cya_sim.engine.jit import JIT
from cya_sim.engine.seats import seat_add

_BIG = 1 << 62


@njit(**JIT)
def covers(K):
    """Whether :func:`greedy_advanced_act` decides for these rule constants: some §6 block on, no draft piles."""
    return K.cfg[C_ADV_ON] != 0 and K.cfg[C_DRAFT] == 0


@njit(inline="always", **JIT)
def best_pair(K, G, h0):
    """``greedy``'s set to lay: the legal R-PAIR-HAND / R-PAIR-DISCARD id of highest face value (ties to the
    lowest id), its value and the index k of the most valuable wild held (-1: none); ``(-1, -1, k)`` if no
    set can be laid. Shared by the classic ``greedy_act`` and :func:`greedy_advanced_act` (under §6 it is
    ``heuristic``'s ``_best_pair`` with the default switches: the same ranking over the same legal ids, action
    cards never forming a set).

    How (speed, same choices): the hand becomes two bitmasks over the asset types (held, held twice) and
    only the asset types held are visited, lowest id first. An asset's best wild partner is the most valuable
    wild held (lowest id among equals), the one a strict ``>`` scan over wild ids keeps; on a wild discard
    top, the best partner is the most valuable asset held (lowest id among equals).
    """
    cfg = K.cfg
    values = K.values
    na = cfg[C_NA]
    nw = cfg[C_NW]
    w = cfg[C_W]
    held = 0  # bit c: at least one card of asset type c
    held2 = 0  # bit c: at least two
    for c in range(na):
        h = G[h0 + c]
        held |= (1 if h > 0 else 0) << c
        held2 |= (1 if h > 1 else 0) << c
    wild_v = -1  # the most valuable wild held ($), and its index k (lowest among equals)
    wild_k = -1
    for k in range(nw):
        if G[h0 + na + k] > 0 and values[na + k] > wild_v:
            wild_v = values[na + k]
            wild_k = k
    best = -1
    best_v = -1
    asset_v = -1  # the most valuable asset held ($), and its type (lowest among equals)
    asset_c = -1
    todo = held
    while todo != 0:  # asset types held, ascending
        a = cttz(todo)
        todo &= todo - 1
        va = values[a]
        if va > asset_v:
            asset_v = va
            asset_c = a
        if (held2 >> a) & 1 and 2 * va > best_v:
            best = a * w
            best_v = 2 * va
        if wild_k >= 0 and va + wild_v > best_v:
            best = a * w + 1 + wild_k
            best_v = va + wild_v
    n_disc = G[G_DISC_LEN]
    if n_disc > 0:
        top = G[K.lay[B_DISC] + n_disc - 1]
        vt = values[top]
        if top < na:  # partners: the same asset (lower id), then the wilds
            if (held >> top) & 1 and 2 * vt > best_v:
                best = cfg[C_PD] + top
                best_v = 2 * vt
            if wild_k >= 0 and vt + wild_v > best_v:
                best = cfg[C_PD] + na + wild_k
                best_v = vt + wild_v
        elif asset_c >= 0 and vt + asset_v > best_v:  # a wild on top: any asset
            best = cfg[C_PD] + asset_c
            best_v = vt + asset_v
    return best, best_v, wild_k


@njit(**JIT)
def _holds(G, h0, asset, na, k1, k2):
    """Whether the hand at ``h0`` holds the pay-two pair ``(k1, k2)`` (0: an ``asset``, else wild k-1)."""
    c1 = asset if k1 == 0 else na + k1 - 1
    c2 = asset if k2 == 0 else na + k2 - 1
    if c1 == c2:
        return G[h0 + c1] >= 2
    return G[h0 + c1] >= 1 and G[h0 + c2] >= 1


@njit(**JIT)
def _cheapest_wild(K, G, h0):
    """The cheapest wild type held (value, then id; the Penny Jar is a wild), -1 if none.

    Not ``K.wild_order``: that order lists every type from the first wild on, the §6 action cards included.
    """
    na = K.cfg[C_NA]
    best = -1
    best_v = 0
    for wd in range(na, na + K.cfg[C_NW]):
        if G[h0 + wd] > 0 and (best < 0 or K.values[wd] < best_v):
            best = wd
            best_v = K.values[wd]
    return best


@njit(**JIT)
def _challenge_target(K, G, h0, seat, no):
    """(dollars as seen, offset) of the most valuable top set ``seat`` may challenge (R-CHALLENGE, R-CH-ALLOWED,
    not the seat ``no - 1`` that R-ADV-TWO forbids), the nearest seat on the left among equals; (-1, 0) if none."""
    cfg = K.cfg
    L = K.lay
    p = cfg[C_P]
    na = cfg[C_NA]
    best_top = -1
    best_off = 0
    if G[L[B_SLEN] + seat] < 1:
        return best_top, best_off
    any_wild = False
    for k in range(cfg[C_NW]):
        if G[h0 + na + k] > 0:
            any_wild = True
    for off in range(1, p):
        tg = seat_add(seat, off, p)
        if G[L[B_SLEN] + tg] < 2 or no == tg + 1:
            continue
        st = G[L[B_STOP] + tg]
        if G[h0 + G[L[B_SASSET] + st]] == 0 and not any_wild:
            continue
        v = value_seen(K, G, st, seat)
        if v > best_top:
            best_top = v
            best_off = off
    return best_top, best_off


@njit(**JIT)
def _deep_choice(K, G, h0, seat, no, floor):
    """``advanced_first``'s R-ADV-DEEP choice for ``seat`` with its threshold ``floor`` (dollars; a set second from
    the top must be worth more, or as much with a cheaper opening): the legal deep id of the most valuable such set,
    the cheapest opening among equals (a Penny Jar at its value, a pair at its cards' values); -1 if none."""
    cfg = K.cfg
    L = K.lay
    p = cfg[C_P]
    na = cfg[C_NA]
    pen = cfg[C_ADV_PENNY]
    # Cards of the contested asset an opening needs besides the wilds held: none with a Penny Jar (it opens
    # alone) or two wild cards (a pair of them); else one (with the one wild) or two. Sets that cannot be
    # opened are skipped before their value is read (speed; they have no legal opening, so the same choice).
    n_wild = 0
    for k in range(cfg[C_NW]):
        n_wild += G[h0 + na + k]
    need = 0 if (pen >= 0 and G[h0 + pen] > 0) or n_wild >= 2 else 2 - n_wild
    best = -1
    best_v = floor
    best_c = _BIG
    for off in range(1, p):
        tg = seat_add(seat, off, p)
        if G[L[B_SLEN] + tg] < 3 or no == tg + 1:
            continue
        second = G[L[B_SBELOW] + G[L[B_STOP] + tg]]
        if G[h0 + G[L[B_SASSET] + second]] < need:
            continue
        v = value_seen(K, G, second, seat)
        if v < best_v:
            continue  # no opening of this set can be chosen (the common case: nothing more is read)
        values = K.values
        per = cfg[C_ADV_Q] + 1  # deep ids per seat: the Q pay-two pairs, then a Penny Jar alone
        asset = G[L[B_SASSET] + second]
        row = cfg[C_ADV_DC] + (off - 1) * per
        for q in range(per):
            if q == per - 1:
                if pen < 0 or G[h0 + pen] == 0:
                    continue
                c = values[pen]
            else:  # pay-two pair q, (k1, k2) = divmod(act_lo, 64): its cost is advanced._pair_cost(.., q)
                lo = K.act_lo[row + q]
                c1 = asset if lo < 64 else na + (lo >> 6) - 1
                c2 = asset if lo & 63 == 0 else na + (lo & 63) - 1
                if G[h0 + c1] < (2 if c1 == c2 else 1) or G[h0 + c2] < 1:
                    continue
                c = values[c1] + values[c2]
            if v > best_v or (v == best_v and c < best_c):
                best = row + q
                best_v = v
                best_c = c
    return best


@njit(**JIT)
def greedy_advanced_act(K, G, seat):
    """``greedy``'s action id for ``seat`` under the §6 rules (:func:`covers`), read from row ``G``.

    K: the rule constants; G: the game row ((W,) int64); seat: the seat to act. Returns an action id
    legal for ``seat`` (int). The steps, each equal to the view path's (module docstring):

    * In a challenge owing two cards (R-ADV-PENNY, R-ADV-DEEP): the cheapest payment, a Penny Jar alone or
      a pay-two pair, ties to the lowest id; else give up (``advanced_first``).
    * In a challenge owing one card (R-CH-EXCHANGE): a matching asset, else the cheapest wild, else give up
      (``heuristic_decide``).
    * Turn: a Swap when an opponent's top set is worth :data:`~agents.classic.advanced.SWAP_GAIN` more than the own
      (R-ADV-SWAP); a Move of an own top set worth :data:`~agents.classic.advanced.MOVE_PROTECT` to the bottom
      (R-ADV-MOVE); a deep challenge of a set worth :data:`~agents.classic.advanced.DEEP_MIN` and more than every
      challengeable top set (R-ADV-DEEP; ``advanced_first``); the best set (``best_pair``); improve
      (R-ADV-IMPROVE); the challenge of the most valuable reachable top set (R-CHALLENGE, not the seat
      R-ADV-TWO forbids); else ``end_turn`` as a second action (R-ADV-TWO), or the cheapest asset, else the
      cheapest wild, else (only action cards) the action card of lowest id (``advanced_last``).
    """
    cfg = K.cfg
    L = K.lay
    values = K.values
    na = cfg[C_NA]
    t = cfg[C_T]
    h0 = L[B_HANDS] + seat * t
    if G[G_CH_ACTIVE]:
        asset = G[G_CH_ASSET]
        if G[G_ADV_OWED] >= 2:  # advanced_first: the cheapest legal two-card payment
            best = -1
            best_c = _BIG
            pen = cfg[C_ADV_PENNY]
            if pen >= 0 and G[h0 + pen] > 0:
                best = cfg[C_RE] + 1 + pen - na
                best_c = values[pen]
            r2 = cfg[C_ADV_R2]
            for a in range(r2, cfg[C_ADV_END]):
                if _holds(G, h0, asset, na, K.act_hi[a], K.act_lo[a]):
                    c = _pair_cost(values, asset, na, cfg[C_W], a - r2)
                    if c < best_c:
                        best = a
                        best_c = c
            return best if best >= 0 else cfg[C_GU]
        if G[h0 + asset] > 0:
            return cfg[C_RE]
        wd = _cheapest_wild(K, G, h0)
        return cfg[C_RE] + 1 + wd - na if wd >= 0 else cfg[C_GU]

    p = cfg[C_P]
    own_len = G[L[B_SLEN] + seat]
    own_st = G[L[B_STOP] + seat]
    if cfg[C_ADV_SW] < cfg[C_ADV_MV] and own_len >= 1 and G[h0 + cfg[C_ADV_SWAP]] > 0:  # R-ADV-SWAP
        best = -1
        best_v = value_seen(K, G, own_st, seat) + SWAP_GAIN - 1
        for off in range(1, p):
            tg = seat_add(seat, off, p)
            if G[L[B_SLEN] + tg] >= 1:
                v = value_seen(K, G, G[L[B_STOP] + tg], seat)
                if v > best_v:
                    best = cfg[C_ADV_SW] + off - 1
                    best_v = v
        if best >= 0:
            return best
    if cfg[C_ADV_MV] < cfg[C_ADV_DC] and own_len >= 2 and G[h0 + cfg[C_ADV_MOVE]] > 0:  # R-ADV-MOVE: own top down
        own_top = value_seen(K, G, own_st, seat)
        if own_top >= MOVE_PROTECT:
            bottom = own_st
            while G[L[B_SBELOW] + bottom] >= 0:
                bottom = G[L[B_SBELOW] + bottom]
            if own_top > value_seen(K, G, bottom, seat):
                return cfg[C_ADV_MV]
    no = G[G_ADV_NO_CH]
    if cfg[C_ADV_DC] < cfg[C_ADV_R2] and own_len >= 1:  # R-ADV-DEEP, when it reaches the most valuable set
        # The threshold is max(DEEP_MIN, best_top + 1) - 1 >= DEEP_MIN - 1, so a deep challenge is only possible
        # when one exists at DEEP_MIN - 1: the challengeable top sets are scanned only then (speed, same choice).
        deep = _deep_choice(K, G, h0, seat, no, DEEP_MIN - 1)
        if deep >= 0:
            best_top, _off = _challenge_target(K, G, h0, seat, no)
            if best_top + 1 > DEEP_MIN:
                deep = _deep_choice(K, G, h0, seat, no, best_top)
            if deep >= 0:
                return deep

    pair, _v, _k = best_pair(K, G, h0)
    if pair >= 0:
        return pair
    if cfg[C_ADV_IM] < cfg[C_ADV_SW] and own_len >= 1 and G[h0 + G[L[B_SASSET] + own_st]] > 0:  # R-ADV-IMPROVE
        return cfg[C_ADV_IM]
    _top, best_off = _challenge_target(K, G, h0, seat, no)
    if best_off > 0:  # R-CHALLENGE: a matching asset, else the cheapest wild
        base = cfg[C_CH] + (best_off - 1) * cfg[C_W]
        if G[h0 + G[L[B_SASSET] + G[L[B_STOP] + seat_add(seat, best_off, p)]]] > 0:
            return base
        return base + 1 + _cheapest_wild(K, G, h0) - na
    if cfg[C_ADV_ET] < cfg[C_ADV_IM] and G[G_ADV_LEFT] < cfg[C_ADV_TWO]:
        return cfg[C_ADV_ET]  # R-ADV-TWO: a second action would be a discard; keep the cards
    nw = cfg[C_NW]
    best_c = -1  # R-DISCARD: the cheapest asset, else the cheapest wild (heuristic's _cheapest_discard)
    best_v = 0
    best_wild = 2
    for c in range(na + nw):
        if G[h0 + c] > 0:
            is_wild = 1 if c >= na else 0
            if best_c < 0 or is_wild < best_wild or (is_wild == best_wild and values[c] < best_v):
                best_c = c
                best_wild = is_wild
                best_v = values[c]
    if best_c >= 0:
        return cfg[C_DI] + best_c
    best_v = _BIG  # only action cards: the cheapest (advanced_last)
    for c in range(na + nw, t):
        if G[h0 + c] > 0 and values[c] < best_v:
            best_c = c
            best_v = values[c]
    return cfg[C_DI] + best_c
