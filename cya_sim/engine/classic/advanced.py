"""The advanced rules of seed 000 on one game row (RULES.md §6): the compiled twin of
:mod:`cya_sim.engine.classic.reference.advanced`.

:mod:`.rules` calls these only when ``K.cfg[C_ADV_ON]`` (or a narrower ``C_ADV_*``
option) is set, so rows of the classic presets never run this code. The
functions change the row and leave the end of the turn to :mod:`.rules`
(``action_done``, ``end_turn``), which is why nothing here imports it:

* R-ADV-TWO — :func:`pre_legal`/:func:`extend_legal` (``end_turn``, the
  challenge limit), :func:`reset_turn`; the turn itself is ``rules.action_done``.
* R-ADV-IMPROVE, R-ADV-SWAP, R-ADV-MOVE — :func:`turn_action`.
* R-ADV-DISCARD-ACTION, R-ADV-SETUP — :func:`remove_card`, :func:`setup_discard`.
* R-ADV-PENNY, R-ADV-DEEP — :func:`pay_two_legal`, :func:`set_owed`,
  :func:`turn_action` (the deep opening and two-card plays), :func:`contested_slot`.

The readings of the rules that RULES.md leaves open are listed in
:mod:`cya_sim.engine.classic.reference.advanced`; both engines follow the same ones.
"""

from __future__ import annotations

from numba import njit

from cya_sim.engine.classic.challenge import show_challenge_card
from cya_sim.engine.classic.layout import (
    B_ADV_REMOVED,
    B_DECK,
    B_HANDS,
    B_HCOUNT,
    B_PLAYED,
    B_SASSET,
    B_SBELOW,
    B_SCARD0,
    B_SCOUNTS,
    B_SKNOWN0,
    B_SLEN,
    B_SSIZE,
    B_STOP,
    B_SVAL,
    B_SVALUE,
    C_ADV_DC,
    C_ADV_DEEP_COST,
    C_ADV_END,
    C_ADV_ET,
    C_ADV_FIRST_ACT,
    C_ADV_IM,
    C_ADV_MOVE,
    C_ADV_MV,
    C_ADV_PENNY,
    C_ADV_R2,
    C_ADV_SW,
    C_ADV_SWAP,
    C_ADV_TWO,
    C_CH,
    C_DI,
    C_GU,
    C_M,
    C_NA,
    C_P,
    C_PD,
    C_RE,
    C_T,
    G_ADV_DEF0,
    G_ADV_DEF1,
    G_ADV_DEPTH,
    G_ADV_LEFT,
    G_ADV_NDEF,
    G_ADV_NO_CH,
    G_ADV_OWED,
    G_CH_ACTIVE,
    G_CH_ASSET,
    G_CH_CHAL,
    G_CH_DEF,
    G_CH_LEN,
    G_CHALLENGES,
    G_CUR,
    G_TO_ACT,
)
from cya_sim.engine.classic.seen import reveal
from cya_sim.engine.jit import JIT

# what rules.apply_action does after turn_action
DONE, GOES_ON, END_TURN = 0, 1, 2


@njit(**JIT)
def _card_of(K, asset, k):
    """The card of partner index ``k`` (0: an ``asset``, else wild k-1)."""
    return asset if k == 0 else K.cfg[C_NA] + k - 1


@njit(**JIT)
def _holds_pair(K, G, h0, asset, k1, k2):
    """Whether the hand at ``h0`` holds the pay-two pair ``(k1, k2)`` for ``asset``."""
    c1 = _card_of(K, asset, k1)
    c2 = _card_of(K, asset, k2)
    if c1 == c2:
        return G[h0 + c1] >= 2
    return G[h0 + c1] >= 1 and G[h0 + c2] >= 1


@njit(**JIT)
def contested_slot(K, G, defender):
    """The set slot a challenge is over: the defender's top set, or the one below it (R-ADV-DEEP)."""
    L = K.lay
    st = G[L[B_STOP] + defender]
    if G[G_ADV_DEPTH]:
        st = G[L[B_SBELOW] + st]
    return st


# -- legality ---------------------------------------------------------------------------------------
@njit(**JIT)
def pre_legal(K, G, a):
    """Legality of ``a`` under the §6 rules: 0 illegal, 1 legal, 2 ask the classic check (``rules.is_legal``).

    The seat to act is ``G_TO_ACT`` (>= 0) and ``0 <= a < A``. Two cards owed
    (R-ADV-PENNY, R-ADV-DEEP): a Penny Jar alone, a pay-two pair, or giving up.
    Turn phase: the §6 blocks (R-ADV-TWO ``end_turn``, R-ADV-IMPROVE,
    R-ADV-SWAP, R-ADV-MOVE, R-ADV-DEEP); no challenge of the seat R-ADV-TWO
    forbids; action cards never pair with the discard pile.
    """
    cfg = K.cfg
    L = K.lay
    seat = G[G_TO_ACT]
    h0 = L[B_HANDS] + seat * cfg[C_T]
    p = cfg[C_P]
    if G[G_CH_ACTIVE]:
        if G[G_ADV_OWED] < 2:
            return 2 if a < cfg[C_ADV_ET] else 0
        if a == cfg[C_GU]:
            return 1
        pen = cfg[C_ADV_PENNY]
        if a >= cfg[C_RE] and a < cfg[C_GU]:
            return 1 if pen >= 0 and a == cfg[C_RE] + 1 + pen - cfg[C_NA] and G[h0 + pen] > 0 else 0
        if a >= cfg[C_ADV_R2] and a < cfg[C_ADV_END]:
            return 1 if _holds_pair(K, G, h0, G[G_CH_ASSET], K.act_hi[a], K.act_lo[a]) else 0
        return 0
    if a < cfg[C_PD] or a >= cfg[C_ADV_END]:  # R-PAIR-HAND; the draft blocks (§7) after the §6 ones
        return 2
    if a < cfg[C_CH]:  # R-PAIR-DISCARD: an action card never forms a set
        return 0 if a - cfg[C_PD] >= cfg[C_ADV_FIRST_ACT] else 2
    if a < cfg[C_DI]:  # R-ADV-TWO: no second challenge of the seat that beat the mover
        tg = (seat + K.act_hi[a]) % p
        return 0 if G[G_ADV_NO_CH] == tg + 1 else 2
    if a < cfg[C_ADV_ET]:
        return 2 if a < cfg[C_RE] else 0
    own = G[L[B_SLEN] + seat]
    if a < cfg[C_ADV_IM]:  # end_turn
        return 1 if G[G_ADV_LEFT] < cfg[C_ADV_TWO] else 0
    if a < cfg[C_ADV_SW]:  # improve
        return 1 if own >= 1 and G[h0 + G[L[B_SASSET] + G[L[B_STOP] + seat]]] > 0 else 0
    if a < cfg[C_ADV_MV]:  # swap
        off = K.act_hi[a]
        if off >= p or own < 1 or G[h0 + cfg[C_ADV_SWAP]] == 0:
            return 0
        return 1 if G[L[B_SLEN] + (seat + off) % p] >= 1 else 0
    if a < cfg[C_ADV_DC]:  # move
        off = K.act_hi[a]
        if off >= p or G[h0 + cfg[C_ADV_MOVE]] == 0:
            return 0
        return 1 if G[L[B_SLEN] + (seat + off) % p] >= 2 else 0
    if a < cfg[C_ADV_R2]:  # deep challenge
        off = K.act_hi[a]
        if off >= p or own < 1:
            return 0
        tg = (seat + off) % p
        if G[L[B_SLEN] + tg] < 3 or G[G_ADV_NO_CH] == tg + 1:
            return 0
        lo = K.act_lo[a]
        if lo < 0:
            pen = cfg[C_ADV_PENNY]
            return 1 if pen >= 0 and G[h0 + pen] > 0 else 0
        asset = G[L[B_SASSET] + G[L[B_SBELOW] + G[L[B_STOP] + tg]]]
        return 1 if _holds_pair(K, G, h0, asset, lo // 64, lo % 64) else 0
    return 0


@njit(**JIT)
def pay_two_legal(K, G, out):
    """The legal ids when two cards are owed (R-ADV-PENNY, R-ADV-DEEP), ascending, into ``out``; how many."""
    cfg = K.cfg
    seat = G[G_TO_ACT]
    h0 = K.lay[B_HANDS] + seat * cfg[C_T]
    n = 0
    pen = cfg[C_ADV_PENNY]
    if pen >= 0 and G[h0 + pen] > 0:
        out[n] = cfg[C_RE] + 1 + pen - cfg[C_NA]
        n += 1
    out[n] = cfg[C_GU]
    n += 1
    asset = G[G_CH_ASSET]
    for a in range(cfg[C_ADV_R2], cfg[C_ADV_END]):
        if _holds_pair(K, G, h0, asset, K.act_hi[a], K.act_lo[a]):
            out[n] = a
            n += 1
    return n


@njit(**JIT)
def extend_legal(K, G, out, n):
    """Turn phase: drop the challenges R-ADV-TWO forbids from the classic list ``out[:n]`` and append the legal
    ids of the §6 blocks (the same answers as :func:`pre_legal`, block by block); returns the new count (ids stay
    ascending)."""
    cfg = K.cfg
    L = K.lay
    p = cfg[C_P]
    seat = G[G_TO_ACT]
    no = G[G_ADV_NO_CH]
    if no:
        j = 0
        for i in range(n):
            a = out[i]
            if a >= cfg[C_CH] and a < cfg[C_DI] and (seat + K.act_hi[a]) % p == no - 1:
                continue
            out[j] = a
            j += 1
        n = j
    h0 = L[B_HANDS] + seat * cfg[C_T]
    own = G[L[B_SLEN] + seat]
    if cfg[C_ADV_IM] > cfg[C_ADV_ET] and G[G_ADV_LEFT] < cfg[C_ADV_TWO]:  # end_turn
        out[n] = cfg[C_ADV_ET]
        n += 1
    if cfg[C_ADV_SW] > cfg[C_ADV_IM] and own >= 1 and G[h0 + G[L[B_SASSET] + G[L[B_STOP] + seat]]] > 0:  # improve
        out[n] = cfg[C_ADV_IM]
        n += 1
    if cfg[C_ADV_MV] > cfg[C_ADV_SW] and own >= 1 and G[h0 + cfg[C_ADV_SWAP]] > 0:  # swap
        for off in range(1, p):
            if G[L[B_SLEN] + (seat + off) % p] >= 1:
                out[n] = cfg[C_ADV_SW] + off - 1
                n += 1
    if cfg[C_ADV_DC] > cfg[C_ADV_MV] and G[h0 + cfg[C_ADV_MOVE]] > 0:  # move
        for off in range(p):
            if G[L[B_SLEN] + (seat + off) % p] >= 2:
                out[n] = cfg[C_ADV_MV] + 2 * off
                out[n + 1] = cfg[C_ADV_MV] + 2 * off + 1
                n += 2
    if cfg[C_ADV_R2] > cfg[C_ADV_DC] and own >= 1:  # deep challenge
        per = (cfg[C_ADV_R2] - cfg[C_ADV_DC]) // (cfg[C_M] - 1)
        pen = cfg[C_ADV_PENNY]
        for off in range(1, p):
            tg = (seat + off) % p
            if G[L[B_SLEN] + tg] < 3 or no == tg + 1:
                continue
            asset = G[L[B_SASSET] + G[L[B_SBELOW] + G[L[B_STOP] + tg]]]
            row = cfg[C_ADV_DC] + (off - 1) * per
            for q in range(per - 1):
                lo = K.act_lo[row + q]
                if _holds_pair(K, G, h0, asset, lo // 64, lo % 64):
                    out[n] = row + q
                    n += 1
            if pen >= 0 and G[h0 + pen] > 0:
                out[n] = row + per - 1
                n += 1
    return n


# -- applying ---------------------------------------------------------------------------------------
@njit(**JIT)
def remove_card(K, G, card):
    """R-ADV-DISCARD-ACTION / R-ADV-SWAP / R-ADV-MOVE / R-ADV-SETUP: ``card`` leaves the game (``B_ADV_REMOVED``),
    face up: every seat sees it (:func:`~cya_sim.engine.classic.seen.reveal`, RULES.md §10)."""
    G[K.lay[B_ADV_REMOVED] + card] += 1
    reveal(K, G, card, (1 << K.cfg[C_P]) - 1)


@njit(**JIT)
def setup_discard(K, G, k):
    """R-ADV-SETUP: skip the action cards at deck position ``k`` (they leave the game); the turned-up card's
    position. Also starts the first turn (R-ADV-TWO). (``rules.start_round`` clears the removed cards of the
    last round before the draft piles are dealt, :func:`clear_removed`.)"""
    cfg = K.cfg
    L = K.lay
    d0 = L[B_DECK]
    while G[d0 + k] >= cfg[C_ADV_FIRST_ACT]:
        remove_card(K, G, G[d0 + k])
        k += 1
    reset_turn(K, G)
    return k


@njit(**JIT)
def clear_removed(K, G):
    """A new round: no card has left the game yet (``B_ADV_REMOVED``, R-NEW-ROUND)."""
    for c in range(K.cfg[C_T]):
        G[K.lay[B_ADV_REMOVED] + c] = 0


@njit(**JIT)
def reset_turn(K, G):
    """A new turn: ``actions_per_turn`` actions, no challenge limit, nobody challenged yet (R-ADV-TWO)."""
    G[G_ADV_LEFT] = K.cfg[C_ADV_TWO]
    G[G_ADV_NO_CH] = 0
    G[G_ADV_NDEF] = 0
    G[G_ADV_DEPTH] = 0
    G[G_ADV_OWED] = 0


@njit(**JIT)
def note_defender(K, G, defender):
    """Record a seat challenged this turn: it draws after the mover at the end of a two-action turn."""
    if K.cfg[C_ADV_TWO] > 1:
        if G[G_ADV_NDEF] == 0:
            G[G_ADV_DEF0] = defender
        else:
            G[G_ADV_DEF1] = defender
        G[G_ADV_NDEF] += 1


@njit(**JIT)
def set_owed(K, G, played, single_penny):
    """Cards owed by the side now to act after a play of ``played`` cards (R-ADV-PENNY, R-ADV-DEEP): as
    :func:`cya_sim.engine.classic.reference.advanced.owed_after`."""
    if G[G_ADV_DEPTH] == 0:
        G[G_ADV_OWED] = 2 if single_penny else 1
    elif K.cfg[C_ADV_DEEP_COST] == 0:  # two_for_one
        G[G_ADV_OWED] = 2 if G[G_TO_ACT] == G[G_CH_CHAL] else 1
    elif G[G_CH_LEN] == played:  # one_for_one, after the opening
        G[G_ADV_OWED] = 1
    else:
        G[G_ADV_OWED] = 2 if single_penny else 1


@njit(**JIT)
def _play(K, G, seat, c1, c2):
    """A challenge play of ``c1`` (and ``c2`` >= 0): shown, the other side to act, the cards it owes."""
    show_challenge_card(K, G, seat, c1)
    played = 1
    if c2 >= 0:
        show_challenge_card(K, G, seat, c2)
        played = 2
    G[K.lay[B_PLAYED] + seat] = 1
    G[G_TO_ACT] = G[G_CH_DEF] if seat == G[G_CH_CHAL] else G[G_CH_CHAL]
    set_owed(K, G, played, played == 1 and c1 == K.cfg[C_ADV_PENNY])


@njit(**JIT)
def _unlink_top(K, G, seat):
    """Take the top set off ``seat``'s stack; its slot."""
    L = K.lay
    st = G[L[B_STOP] + seat]
    G[L[B_STOP] + seat] = G[L[B_SBELOW] + st]
    G[L[B_SLEN] + seat] -= 1
    G[L[B_SVAL] + seat] -= G[L[B_SVALUE] + st]
    return st


@njit(**JIT)
def _push(K, G, seat, st):
    """Put set slot ``st`` on top of ``seat``'s stack."""
    L = K.lay
    G[L[B_SBELOW] + st] = G[L[B_STOP] + seat]
    G[L[B_STOP] + seat] = st
    G[L[B_SLEN] + seat] += 1
    G[L[B_SVAL] + seat] += G[L[B_SVALUE] + st]


@njit(**JIT)
def exchange_top_sets(K, G, a, b):
    """R-ADV-SWAP's effect: seats ``a`` and ``b`` (each with a set) exchange their top sets; each learns every card
    of the set it receives (R-HIDDEN-WILD; as :func:`cya_sim.engine.classic.reference.advanced.exchange_top_sets`)."""
    L = K.lay
    mine = _unlink_top(K, G, a)
    theirs = _unlink_top(K, G, b)
    if (G[L[B_SKNOWN0] + mine] >> b) & 1 == 0:  # a hidden card the receiver sees now (RULES.md §10)
        reveal(K, G, G[L[B_SCARD0] + mine], 1 << b)
    if (G[L[B_SKNOWN0] + theirs] >> a) & 1 == 0:
        reveal(K, G, G[L[B_SCARD0] + theirs], 1 << a)
    G[L[B_SKNOWN0] + mine] |= 1 << b
    G[L[B_SKNOWN0] + theirs] |= 1 << a
    _push(K, G, a, theirs)
    _push(K, G, b, mine)


@njit(**JIT)
def shift_stack(K, G, target, up):
    """R-ADV-MOVE's effect on ``target``'s stack (at least two sets): ``up`` = 0 puts its top set under the bottom
    set, 1 puts its bottom set on top (as :func:`cya_sim.engine.classic.reference.advanced.shift_stack`)."""
    L = K.lay
    top = G[L[B_STOP] + target]
    if up == 0:  # the top set goes under the bottom set
        bottom = top
        while G[L[B_SBELOW] + bottom] >= 0:
            bottom = G[L[B_SBELOW] + bottom]
        G[L[B_STOP] + target] = G[L[B_SBELOW] + top]
        G[L[B_SBELOW] + bottom] = top
        G[L[B_SBELOW] + top] = -1
    else:  # the bottom set goes on top
        above = top
        while G[L[B_SBELOW] + G[L[B_SBELOW] + above]] >= 0:
            above = G[L[B_SBELOW] + above]
        bottom = G[L[B_SBELOW] + above]
        G[L[B_SBELOW] + above] = -1
        G[L[B_SBELOW] + bottom] = top
        G[L[B_STOP] + target] = bottom


@njit(**JIT)
def turn_action(K, G, a, seat):
    """Apply the §6 action ``a`` (an id at or above ``C_ADV_ET``) for ``seat``; what the turn does next.

    Returns :data:`DONE` (the action is complete: ``rules.action_done``),
    :data:`GOES_ON` (a challenge goes on: the other side is to act) or
    :data:`END_TURN` (R-ADV-TWO: the mover stops after one action).
    """
    cfg = K.cfg
    L = K.lay
    p = cfg[C_P]
    t = cfg[C_T]
    h0 = L[B_HANDS] + seat * t
    if a >= cfg[C_ADV_R2]:  # a two-card play (R-ADV-PENNY, R-ADV-DEEP)
        asset = G[G_CH_ASSET]
        _play(K, G, seat, _card_of(K, asset, K.act_hi[a]), _card_of(K, asset, K.act_lo[a]))
        return GOES_ON
    if a < cfg[C_ADV_IM]:
        return END_TURN
    G[L[B_PLAYED] + seat] = 1
    if a < cfg[C_ADV_SW]:  # R-ADV-IMPROVE: a matching asset onto the own top set, public
        st = G[L[B_STOP] + seat]
        asset = G[L[B_SASSET] + st]
        G[h0 + asset] -= 1
        G[L[B_HCOUNT] + seat] -= 1
        G[L[B_SCOUNTS] + st * t + asset] += 1
        G[L[B_SSIZE] + st] += 1
        G[L[B_SVALUE] + st] += K.values[asset]
        G[L[B_SVAL] + seat] += K.values[asset]
        reveal(K, G, asset, (1 << p) - 1)  # laid face up (RULES.md §10)
        return DONE
    if a < cfg[C_ADV_MV]:  # R-ADV-SWAP: exchange the top sets; each side learns the set it receives
        other = (seat + K.act_hi[a]) % p
        card = cfg[C_ADV_SWAP]
        G[h0 + card] -= 1
        G[L[B_HCOUNT] + seat] -= 1
        remove_card(K, G, card)
        exchange_top_sets(K, G, seat, other)
        return DONE
    if a < cfg[C_ADV_DC]:  # R-ADV-MOVE: top set to the bottom, or bottom set to the top
        target = (seat + K.act_hi[a]) % p
        card = cfg[C_ADV_MOVE]
        G[h0 + card] -= 1
        G[L[B_HCOUNT] + seat] -= 1
        remove_card(K, G, card)
        shift_stack(K, G, target, K.act_lo[a])
        return DONE
    # R-ADV-DEEP: challenge the set second from the top, opening with two cards or a Penny Jar
    target = (seat + K.act_hi[a]) % p
    contested = G[L[B_SBELOW] + G[L[B_STOP] + target]]
    asset = G[L[B_SASSET] + contested]
    G[G_CH_ACTIVE] = 1
    G[G_CH_CHAL] = seat
    G[G_CH_DEF] = target
    G[G_CH_ASSET] = asset
    G[G_CH_LEN] = 0
    G[G_ADV_DEPTH] = 1
    G[G_CHALLENGES] += 1
    note_defender(K, G, target)
    lo = K.act_lo[a]
    if lo < 0:
        _play(K, G, seat, cfg[C_ADV_PENNY], -1)
    else:
        _play(K, G, seat, _card_of(K, asset, lo // 64), _card_of(K, asset, lo % 64))
    return GOES_ON


@njit(**JIT)
def after_challenge(K, G, winner):
    """R-ADV-TWO: a challenger that lost as its first action may not challenge the defender again this turn (only
    the mover's own challenges: not the immediate challenge of a drafted set, §7)."""
    if winner != G[G_CH_CHAL] and G[G_CH_CHAL] == G[G_CUR] and G[G_ADV_LEFT] == K.cfg[C_ADV_TWO]:
        G[G_ADV_NO_CH] = G[G_CH_DEF] + 1
    G[G_ADV_DEPTH] = 0
    G[G_ADV_OWED] = 0

