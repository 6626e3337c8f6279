"""What the built-in policies do with the advanced rules (RULES.md §6), over the agent view.

One compiled layer around each policy's classic decision (``greedy``,
``heuristic``, ``card_counter``, ``oracle``; ``random`` is uniform over the
legal actions anyway), used by the single-game classes and the compiled
policies alike, so both decide identically:

:func:`advanced_first` — decisions taken before the classic one:

1. **Two cards owed** in a challenge (R-ADV-PENNY after a Penny Jar, R-ADV-DEEP):
   pay the cheapest legal way (a Penny Jar alone or a pay-two pair, lowest face
   value, ties to the lowest id); give up when nothing pays.
2. **Swap** (R-ADV-SWAP): when an opponent's top set is worth more (as seen,
   hidden cards at the asset's value) than the own top set by at least
   :data:`SWAP_GAIN` dollars, swap with the most valuable one.
3. **Move** (R-ADV-MOVE), defensively: when the own top set is worth at least
   :data:`MOVE_PROTECT` dollars and more than the own bottom set, move it to the
   bottom, where it can never be stolen (R-CH-ALLOWED).
4. **Deep challenge** (R-ADV-DEEP): when a set second from the top worth at
   least :data:`DEEP_MIN` dollars, and more than every top set that can be
   challenged, can be reached, challenge the most valuable one with the
   cheapest opening (before laying a set: it is worth more than most pairs).
5. **Improve** (R-ADV-IMPROVE): when no set can be laid, add the matching asset
   to the own top set.

Before all of these, the **choice for a Move turned up on a draft pile** (R-2P-DRAFT,
R-3P-DRAFT with §6; the stack that moves is always another player's): keep that
player's valuable sets within reach — ``bottom_to_top`` (its protected bottom set
comes on top and its top set stays reachable, second from the top) unless its set
second from the top is worth more than its top and bottom sets together, then
``top_to_bottom`` (:func:`draft_move_choice`).

Otherwise the classic decision runs (a Penny Jar is a wild there: ``greedy``
opens challenges with its cheapest wild, which is the Penny Jar at $1,000, so
the defender owes two cards). :func:`advanced_last` then replaces a discard
chosen as the second action of a turn by ``end_turn`` (R-ADV-TWO: keep the
cards), and an illegal classic choice (the R-ADV-TWO challenge limit, a hand of
only action cards) by ``end_turn`` or the cheapest discard (an action card
first: it is worth $0).
"""

from __future__ import annotations

from numba import njit

from agents.classic.view import (
    H_ADV,
    H_APT,
    H_CH_ACTIVE,
    H_CH_ASSET,
    H_DC,
    H_DRAFT_MOVE_TARGET,
    H_DRAFT_MV,
    H_END,
    H_ET,
    H_IM,
    H_LEFT,
    H_M,
    H_MV,
    H_NA,
    H_NW,
    H_OWED,
    H_P,
    H_PENNY,
    H_R2,
    H_SEAT,
    H_SW,
    S_BOTTOM_VALUE_SEEN,
    S_SECOND_ASSET,
    S_SECOND_VALUE_SEEN,
    S_STACK_LEN,
    S_TOP_VALUE_SEEN,
    action_starts,
)

#: Dollars an opponent's top set must be worth above the own top set for a Swap.
SWAP_GAIN = 10_000
#: Dollars of the own top set from which a Move puts it at the bottom.
MOVE_PROTECT = 30_000
#: Dollars a set second from the top must be worth (at least, and more than every top set that can be
#: challenged) for a deep challenge.
DEEP_MIN = 40_000
_BIG = 1 << 62


@njit(cache=True, _nrt=False)
def _pair_cost(values, asset, na, w, q):
    """Dollars of pay-two pair ``q`` (pairs (k1, k2), k1 <= k2, over a matching asset and the wilds)."""
    i = 0
    for k1 in range(w):
        for k2 in range(k1, w):
            if i == q:
                c1 = asset if k1 == 0 else na + k1 - 1
                c2 = asset if k2 == 0 else na + k2 - 1
                return values[c1] + values[c2]
            i += 1
    return _BIG


@njit(cache=True, _nrt=False)
def _cheapest_pay_two(hdr, values, mask, asset):
    """The cheapest legal two-card payment: a Penny Jar ``respond`` or a ``respond_two`` id; -1 if none."""
    na, w = hdr[H_NA], 1 + hdr[H_NW]
    _ph, _pd, _ch, _di, re, _gu, _w = action_starts(hdr)
    best, best_c = -1, _BIG
    pen = hdr[H_PENNY]
    if pen >= 0 and mask[re + 1 + pen - na]:
        best, best_c = re + 1 + pen - na, values[pen]
    for a in range(hdr[H_R2], hdr[H_END]):
        if mask[a]:
            c = _pair_cost(values, asset, na, w, a - hdr[H_R2])
            if c < best_c:
                best, best_c = a, c
    return best


@njit(cache=True, _nrt=False)
def draft_move_choice(hdr, seats):
    """The choice for a Move turned up on a draft pile (module docstring): a ``draft_move`` id.

    The target (``hdr[H_DRAFT_MOVE_TARGET]``) is another player: ``bottom_to_top`` exposes its bottom set
    (which can never be stolen) and keeps its top set reachable; ``top_to_bottom`` would put that top set
    out of reach, so it is chosen only when the set second from the top (then on top) is worth more than
    the top and bottom sets together (values as the seat sees them).
    """
    tg = hdr[H_DRAFT_MOVE_TARGET]
    keep = seats[tg, S_TOP_VALUE_SEEN] + seats[tg, S_BOTTOM_VALUE_SEEN]
    return hdr[H_DRAFT_MV] if seats[tg, S_SECOND_VALUE_SEEN] > keep else hdr[H_DRAFT_MV] + 1


@njit(cache=True, _nrt=False)
def advanced_first(hdr, hand, values, seats, mask):
    """The §6 decision that comes before the policy's classic one (module docstring), or -1 for none.

    hdr, hand, values, seats, mask: the agent view (:mod:`agents.classic.view`). -1 at once without §6 rules.
    """
    if hdr[H_ADV] == 0:
        return -1
    if hdr[H_DRAFT_MOVE_TARGET] >= 0:  # §7 with §6: the choice for a Move turned up on a draft pile
        return draft_move_choice(hdr, seats)
    _ph, _pd, ch, _di, _re, gu, _w = action_starts(hdr)
    if hdr[H_CH_ACTIVE]:
        if hdr[H_OWED] < 2:
            return -1
        a = _cheapest_pay_two(hdr, values, mask, hdr[H_CH_ASSET])
        return a if a >= 0 else gu
    seat, p = hdr[H_SEAT], hdr[H_P]
    own_top = seats[seat, S_TOP_VALUE_SEEN]
    if hdr[H_SW] < hdr[H_MV]:  # R-ADV-SWAP
        best, best_v = -1, own_top + SWAP_GAIN - 1
        for off in range(1, p):
            a = hdr[H_SW] + off - 1
            if mask[a]:
                v = seats[(seat + off) % p, S_TOP_VALUE_SEEN]
                if v > best_v:
                    best, best_v = a, v
        if best >= 0:
            return best
    if hdr[H_MV] < hdr[H_DC]:  # R-ADV-MOVE: own top set to the bottom
        a = hdr[H_MV]
        if mask[a] and own_top >= MOVE_PROTECT and own_top > seats[seat, S_BOTTOM_VALUE_SEEN]:
            return a
    w_ch = 1 + hdr[H_NW]
    best_top = -1  # the most valuable top set that can be challenged ($ as seen)
    for off in range(1, p):
        for k in range(w_ch):
            if mask[ch + (off - 1) * w_ch + k]:
                best_top = max(best_top, seats[(seat + off) % p, S_TOP_VALUE_SEEN])
                break
    if hdr[H_DC] < hdr[H_R2]:  # R-ADV-DEEP, when it reaches the most valuable set
        per = (hdr[H_R2] - hdr[H_DC]) // (hdr[H_M] - 1)
        best, best_v, best_c = -1, max(DEEP_MIN, best_top + 1) - 1, _BIG
        na, w = hdr[H_NA], 1 + hdr[H_NW]
        for off in range(1, p):
            tg = (seat + off) % p
            if seats[tg, S_STACK_LEN] < 3:
                continue
            asset = seats[tg, S_SECOND_ASSET]
            v = seats[tg, S_SECOND_VALUE_SEEN]
            row = hdr[H_DC] + (off - 1) * per
            for q in range(per):
                if not mask[row + q]:
                    continue
                c = values[hdr[H_PENNY]] if q == per - 1 else _pair_cost(values, asset, na, w, q)
                if v > best_v or (v == best_v and c < best_c):
                    best, best_v, best_c = row + q, v, c
        if best >= 0:
            return best
    for a in range(ch):
        if mask[a]:
            return -1  # a set can be laid: the classic decision lays it
    if hdr[H_IM] < hdr[H_SW] and mask[hdr[H_IM]]:  # R-ADV-IMPROVE
        return hdr[H_IM]
    return -1


@njit(cache=True, _nrt=False)
def advanced_last(hdr, hand, values, mask, a):
    """The policy's classic choice ``a`` under the §6 rules (module docstring): ``end_turn`` instead of a
    second-action discard; a legal replacement for an illegal choice. ``a`` itself without §6 rules."""
    if hdr[H_ADV] == 0:
        return a
    _ph, _pd, _ch, di, re, _gu, _w = action_starts(hdr)
    et = hdr[H_ET]
    can_end = et < hdr[H_IM] and mask[et]
    if 0 <= a < mask.shape[0] and mask[a]:
        if di <= a < re and can_end and hdr[H_LEFT] < hdr[H_APT]:
            return et
        return a
    if can_end:
        return et
    best, best_v = -1, _BIG
    for b in range(di, re):
        if mask[b] and values[b - di] < best_v:
            best, best_v = b, values[b - di]
    if best >= 0:
        return best
    for b in range(mask.shape[0]):
        if mask[b]:
            return b
    return a
