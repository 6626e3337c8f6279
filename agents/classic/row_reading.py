"""What the row forms of the strategy agents read from the game row (classic rules without §6 and §7).

``card_counter`` and ``heuristic`` decide from the seat's agent view (:mod:`agents.classic.view`) in every
setting; under the classic rules without the advanced cards (§6) and draft piles (§7) the compiled loops call
their **row forms** instead (:mod:`agents.classic.card_counter_row`, :mod:`agents.classic.heuristic_row`), which
read the game row (:mod:`cya_sim.engine.classic.layout`) as ``greedy_act`` does and make the very same choices
(``tests/test_agents_compiled_row.py``). These helpers are what both read: only what the seat may see (RULES.md
§10), each the view form's number computed the same way.

The hand is read as bitmasks (asset types held, held twice; wilds held), so that only the card types held are
visited, in the ascending id order of :func:`cya_sim.engine.classic.kernel.legal_list`: the view forms read every
id of the legal action mask, and those unpredictable branches were most of their time.
"""

from __future__ import annotations

from numba import njit

from agents.classic.heuristic import P_COUNT, set_allowed
from agents.classic.probability import p_holds_none
from cya_sim.engine.classic.layout import (
    B_DISC,
    B_HCOUNT,
    B_SCARD0,
    B_SKNOWN0,
    B_SLEN,
    B_SVALUE,
    C_DI,
    C_NA,
    C_NW,
    C_P,
    C_PD,
    C_T,
    C_W,
    G_DISC_LEN,
)
from cya_sim.engine.classic.seen import unseen_one
from cya_sim.engine.intrinsics import cttz
from cya_sim.engine.jit import JIT


@njit(inline="always", **JIT)
def hand_masks(K, G, h0):
    """(held, held2, wilds) of the hand at ``h0``: bit ``c`` of ``held`` / ``held2`` when asset type ``c`` is held at
    least once / twice, bit ``k`` of ``wilds`` when wild ``k`` (type ``na + k``) is held."""
    na, nw = K.cfg[C_NA], K.cfg[C_NW]
    held, held2, wilds = 0, 0, 0
    for c in range(na):
        hc = G[h0 + c]
        held |= (1 if hc > 0 else 0) << c
        held2 |= (1 if hc > 1 else 0) << c
    for k in range(nw):
        wilds |= (1 if G[h0 + na + k] > 0 else 0) << k
    return held, held2, wilds


@njit(inline="always", **JIT)
def cheapest_wild(K, G, h0):
    """Type id of the cheapest wild in the hand at ``h0`` (ties: lowest id; ``K.wild_order``), -1 if none. Without
    §6 only (under §6 ``K.wild_order`` lists the action cards too:
    :func:`agents.classic.compiled_advanced._cheapest_wild`)."""
    for i in range(K.cfg[C_NW]):
        wd = K.wild_order[i]
        if G[h0 + wd] > 0:
            return wd
    return -1


@njit(inline="always", **JIT)
def cheapest_discard(K, G, h0):
    """R-DISCARD id of the cheapest asset in hand, else of the cheapest wild (``K.discard_order``)."""
    for i in range(K.cfg[C_T]):
        c = K.discard_order[i]
        if G[h0 + c] > 0:
            return K.cfg[C_DI] + c
    return -1


@njit(inline="always", **JIT)
def unseen_totals(K, G, bases):
    """(unseen cards, unseen wilds) of the seat of ``bases`` (:func:`cya_sim.engine.classic.seen.unseen_bases`)."""
    na, nw = K.cfg[C_NA], K.cfg[C_NW]
    n = 0
    for c in range(na + nw):
        n += unseen_one(K, G, bases, c)
    wilds = 0
    for k in range(nw):
        wilds += unseen_one(K, G, bases, na + k)
    return n, wilds


@njit(**JIT)
def p_safe(K, G, seat, m, n_unseen):
    """TIP-COUNT: the chance no opponent able to challenge holds one of the ``m`` unseen cards that would answer a
    set (its asset or a wild): :func:`agents.classic.heuristic._p_safe`, the same products in the same order."""
    L = K.lay
    prob = 1.0
    last_h, last_p = -1, 1.0
    for o in range(K.cfg[C_P]):
        if o != seat and G[L[B_SLEN] + o] >= 1:
            h = G[L[B_HCOUNT] + o]
            if h != last_h:
                last_h, last_p = h, p_holds_none(n_unseen, m, h)
            prob *= last_p
    return prob


@njit(inline="always", **JIT)
def target_value(K, G, top_set, seat, asset, bases, naive):
    """V of a challenge target (float dollars): its top set as ``seat`` sees it, a hidden card at its expected value
    (R-HIDDEN-WILD) unless ``naive``: the view form's ``S_TOP_KNOWN_VALUE + S_TOP_HIDDEN * hidden_v``, with
    ``hidden_v`` the sums of :func:`agents.classic.probability.expected_hidden_value` in its order."""
    L = K.lay
    values = K.values
    na, nw = K.cfg[C_NA], K.cfg[C_NW]
    known = G[L[B_SVALUE] + top_set]
    if (G[L[B_SKNOWN0] + top_set] >> seat) & 1 != 0:
        return float(known)
    known -= values[G[L[B_SCARD0] + top_set]]
    if naive:
        return float(known + values[asset])
    u = unseen_one(K, G, bases, asset)
    num = u * values[asset]
    den = u
    for k in range(nw):
        uw = unseen_one(K, G, bases, na + k)
        num += uw * values[na + k]
        den += uw
    hidden_v = float(values[asset]) if den == 0 else num / den
    return known + hidden_v


@njit(**JIT)
def _set_score(K, G, seat, params, bases, v, asset, uses_wild, only_hand_wild_pairs, wild_budget, draw, own_sets,
               n_unseen, unseen_wilds, best_score, safe_asset, safe_p):
    """(score, safe_asset, safe_p) of a legal set worth ``v`` dollars over ``asset`` under the ``heuristic`` switches
    of ``params`` (:func:`agents.classic.heuristic._pair_score`); score -1.0 when the switches rule it out or when it
    cannot beat ``best_score`` (a score is at most ``v``: its TIP-COUNT odds are then not computed)."""
    if not set_allowed(params, v, uses_wild, only_hand_wild_pairs, wild_budget, own_sets, draw):
        return -1.0, safe_asset, safe_p
    if v <= best_score:
        return -1.0, safe_asset, safe_p
    score = float(v)
    if params[P_COUNT] > 0 and own_sets >= 1:
        if asset != safe_asset:
            safe_asset, safe_p = asset, p_safe(K, G, seat, unseen_one(K, G, bases, asset) + unseen_wilds, n_unseen)
        score = v * safe_p  # TIP-COUNT
    return score, safe_asset, safe_p


@njit(**JIT)
def best_set(K, G, seat, params, bases, masks, only_hand_wild_pairs, wild_budget, draw, own_sets, n_unseen,
             unseen_wilds):
    """(action id, score) of the best set to lay under the ``heuristic`` switches ``params``; (-1, -1.0) if none.

    The row form of :func:`agents.classic.heuristic._best_pair` (R-PAIR-HAND, then R-PAIR-DISCARD with
    R-NO-WILD-PAIR; ascending ids, a strictly greater score wins). ``masks``: :func:`hand_masks`;
    ``wild_budget``: the wilds in hand less the one TIP-SAVE-WILD keeps (a set with a wild needs it above 0);
    ``draw``: cards in the draw pile; ``n_unseen`` / ``unseen_wilds``: :func:`unseen_totals` (read only under
    TIP-COUNT with a set of one's own).
    """
    values = K.values
    na, w = K.cfg[C_NA], K.cfg[C_W]
    held, held2, wilds = masks
    best, best_score = -1, -1.0
    safe_asset, safe_p = -1, 1.0
    todo = held
    while todo != 0:
        a = cttz(todo)
        todo &= todo - 1
        partners = (wilds << 1) | ((held2 >> a) & 1)  # bit j: j = 0 a second asset, j = 1 + k wild k
        while partners != 0:
            j = cttz(partners)
            partners &= partners - 1
            v = values[a] + values[a if j == 0 else na + j - 1]
            score, safe_asset, safe_p = _set_score(K, G, seat, params, bases, v, a, j > 0, only_hand_wild_pairs,
                                                   wild_budget, draw, own_sets, n_unseen, unseen_wilds, best_score,
                                                   safe_asset, safe_p)
            if score > best_score:
                best, best_score = a * w + j, score
    n_disc = G[G_DISC_LEN]
    if n_disc > 0 and not only_hand_wild_pairs:  # TIP-WILD-FIRST: pairs from the hand only
        top = G[K.lay[B_DISC] + n_disc - 1]
        if top >= na:
            partners = held  # R-NO-WILD-PAIR: a wild on top pairs with assets only
        else:
            partners = (wilds << na) | (((held >> top) & 1) << top)  # the same asset, or a wild
        while partners != 0:
            c = cttz(partners)
            partners &= partners - 1
            v = values[top] + values[c]
            score, safe_asset, safe_p = _set_score(K, G, seat, params, bases, v, top if top < na else c, c >= na,
                                                   False, wild_budget, draw, own_sets, n_unseen, unseen_wilds,
                                                   best_score, safe_asset, safe_p)
            if score > best_score:
                best, best_score = K.cfg[C_PD] + c, score
    return best, best_score
