"""The small-table drafts (RULES.md §7: R-2P-DRAFT, R-3P-DRAFT) on one compiled game row.

The compiled copy of :mod:`cya_sim.engine.classic.reference.draft` (its docstring lists the readings
the simulator chooses where the rules are silent); both engines play identical games
(``tests/test_batched_differential.py``). Every function takes ``K`` (a
:class:`~cya_sim.engine.classic.layout.Consts`) and one row ``G`` ((W,) int64). The rules
kernel (:mod:`.rules`) calls them only when ``K.cfg[C_DRAFT]`` is set or a draft id is
applied, so the classic presets never run this code.

Pile j's cards are ``deck[j * size : j * size + len_j]`` (``B_DECK``, dealt first), its top the
last; ``G_DRAFT_DOWN`` marks the piles taken from whose next card is not turned up yet.

With the §6 cards (the readings are in the reference module): an action card turned up is carried
out by :func:`_act` and leaves the game (:func:`cya_sim.engine.classic.advanced.remove_card`); a Move
that needs a choice sets ``G_DRAFT_MOVE`` (1 + the seat whose stack moves) and ``G_TO_ACT`` (the seat
choosing), and :func:`finish` returns False; the rules kernel keeps the draw order in
``G_DRAFT_THEN0``/``G_DRAFT_THEN1`` and calls :func:`finish` again after the choice.
"""

from __future__ import annotations

from numba import njit

from cya_sim.engine.classic.advanced import exchange_top_sets, note_defender, remove_card, set_owed, shift_stack
from cya_sim.engine.classic.challenge import show_challenge_card
from cya_sim.engine.classic.layout import (
    B_DECK,
    B_DRAFT_LEN,
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
    C_ADV_FIRST_ACT,
    C_ADV_PAY2,
    C_ADV_PENNY,
    C_ADV_SWAP,
    C_DRAFT,
    C_DRAFT_CH,
    C_DRAFT_DEC,
    C_DRAFT_MV,
    C_DRAFT_PILES,
    C_DRAFT_SIZE,
    C_DRAFT_TAKE,
    C_DRAFT_WILD,
    C_HIDDEN,
    C_NA,
    C_NW,
    C_P,
    C_T,
    DRAFT_SHARED,
    G_CH_ACTIVE,
    G_CH_ASSET,
    G_CH_CHAL,
    G_CH_DEF,
    G_CH_LEN,
    G_CHALLENGES,
    G_CUR,
    G_DRAFT_DOWN,
    G_DRAFT_MOVE,
    G_DRAFT_OFFER,
    G_DRAFT_OFFER2,
    G_DRAFT_THEN0,
    G_DRAFT_THEN1,
    G_N_SETS,
    G_TO_ACT,
)
from cya_sim.engine.classic.seen import reveal
from cya_sim.engine.jit import JIT


@njit(**JIT)
def top(K, G, j):
    """The face-up top card type of draft pile ``j``, or -1 (empty, or not turned up yet)."""
    n = G[K.lay[B_DRAFT_LEN] + j]
    if n == 0 or (G[G_DRAFT_DOWN] >> j) & 1:
        return -1
    return G[K.lay[B_DECK] + j * K.cfg[C_DRAFT_SIZE] + n - 1]


@njit(**JIT)
def reach_pile(K, G, seat, i):
    """The ``i``-th pile in ``seat``'s reach order, or -1 past the end (shared: every pile;
    neighbours: pile ``seat`` on its left, then pile ``seat - 1`` on its right)."""
    cfg = K.cfg
    if cfg[C_DRAFT] == DRAFT_SHARED:
        return i if i < cfg[C_DRAFT_PILES] else -1
    if i == 0:
        return seat
    if i == 1:
        return seat - 1 if seat > 0 else cfg[C_P] - 1
    return -1


@njit(**JIT)
def take_mask(K, G, seat, asset, k):
    """Bitmask of the piles a take by ``seat`` of ``asset`` takes the top of (0: impossible).

    k=0 (``draft_take`` with a matching face-up top, or ``draft_wild``): every reachable face-up
    top of type ``asset``; k>0 (``draft_take`` with face-up wild k-1): the first reachable pile
    showing it, only when no reachable face-up top is of type ``asset`` (R-2P-DRAFT).
    """
    same = 0
    wild = -1
    w = K.cfg[C_NA] + k - 1
    for i in range(K.cfg[C_DRAFT_PILES]):
        j = reach_pile(K, G, seat, i)
        if j < 0:
            break
        c = top(K, G, j)
        if c == asset:
            same |= 1 << j
        elif k > 0 and c == w and wild < 0:
            wild = j
    if k == 0:
        return same
    if same != 0 or wild < 0:
        return 0
    return 1 << wild


@njit(**JIT)
def can_open(K, G, seat, asset):
    """Whether ``seat`` holds a card of ``asset`` or a wild (it can open a challenge, R-CH-EXCHANGE)."""
    h0 = K.lay[B_HANDS] + seat * K.cfg[C_T]
    if G[h0 + asset] > 0:
        return True
    na = K.cfg[C_NA]
    for w in range(K.cfg[C_NW]):
        if G[h0 + na + w] > 0:
            return True
    return False


@njit(**JIT)
def _mover_asset(K, G):
    return G[K.lay[B_SASSET] + G[K.lay[B_STOP] + G[G_CUR]]]


@njit(**JIT)
def is_legal(K, G, a):
    """Whether draft id ``a`` (or any id during a draft offer) is legal for the seat to act (bool).

    Same answer as the reference's legal mask (:mod:`cya_sim.engine.classic.reference.draft`).
    """
    cfg = K.cfg
    seat = G[G_TO_ACT]
    h0 = K.lay[B_HANDS] + seat * cfg[C_T]
    na = cfg[C_NA]
    if G[G_DRAFT_MOVE] != 0:  # the choice for a Move turned up (§7 with §6): both directions
        return a == cfg[C_DRAFT_MV] or a == cfg[C_DRAFT_MV] + 1
    if G[G_DRAFT_OFFER] != 0:
        if a == cfg[C_DRAFT_DEC]:
            return True
        if a < cfg[C_DRAFT_CH] or a > cfg[C_DRAFT_DEC]:
            return False
        k = K.act_lo[a]
        card = _mover_asset(K, G) if k == 0 else na + k - 1
        return G[h0 + card] > 0
    if a < cfg[C_DRAFT_TAKE] or a >= cfg[C_DRAFT_CH]:
        return False
    asset = K.act_hi[a]
    k = K.act_lo[a]
    if a < cfg[C_DRAFT_WILD]:
        return G[h0 + asset] > 0 and take_mask(K, G, seat, asset, k) != 0
    return G[h0 + na + k - 1] > 0 and take_mask(K, G, seat, asset, 0) != 0


@njit(**JIT)
def legal_move(K, G, out):
    """The legal ids of the seat choosing for a Move turned up on a draft pile (both directions) into ``out``; 2."""
    out[0] = K.cfg[C_DRAFT_MV]
    out[1] = K.cfg[C_DRAFT_MV] + 1
    return 2


@njit(**JIT)
def legal_offer(K, G, out):
    """The legal ids of the seat asked about the immediate challenge into ``out``; returns how many."""
    cfg = K.cfg
    seat = G[G_TO_ACT]
    h0 = K.lay[B_HANDS] + seat * cfg[C_T]
    na = cfg[C_NA]
    n = 0
    if G[h0 + _mover_asset(K, G)] > 0:
        out[n] = cfg[C_DRAFT_CH]
        n += 1
    for w in range(cfg[C_NW]):
        if G[h0 + na + w] > 0:
            out[n] = cfg[C_DRAFT_CH] + 1 + w
            n += 1
    out[n] = cfg[C_DRAFT_DEC]
    return n + 1


@njit(**JIT)
def legal_takes(K, G, out, n):
    """Append the legal ``draft_take`` and ``draft_wild`` ids (ascending) to ``out[n:]``; returns the new count."""
    cfg = K.cfg
    seat = G[G_TO_ACT]
    h0 = K.lay[B_HANDS] + seat * cfg[C_T]
    na = cfg[C_NA]
    nw = cfg[C_NW]
    w = 1 + nw
    for a in range(na):
        if G[h0 + a] == 0:
            continue
        for k in range(w):
            if take_mask(K, G, seat, a, k) != 0:
                out[n] = cfg[C_DRAFT_TAKE] + a * w + k
                n += 1
    for k in range(nw):
        if G[h0 + na + k] == 0:
            continue
        for a in range(na):
            if take_mask(K, G, seat, a, 0) != 0:
                out[n] = cfg[C_DRAFT_WILD] + k * na + a
                n += 1
    return n


@njit(**JIT)
def _next_offer(K, G):
    """Drop the seats at the head of the offer that cannot open a challenge; set ``G_TO_ACT``."""
    asset = _mover_asset(K, G)
    while G[G_DRAFT_OFFER] != 0 and not can_open(K, G, G[G_DRAFT_OFFER] - 1, asset):
        G[G_DRAFT_OFFER] = G[G_DRAFT_OFFER2]
        G[G_DRAFT_OFFER2] = 0
    if G[G_DRAFT_OFFER] != 0:
        G[G_TO_ACT] = G[G_DRAFT_OFFER] - 1


@njit(**JIT)
def other_neighbour(K, G, mover, j):
    """The other player beside pile ``j`` (shared: the opponent; neighbours: pile j lies between seats j and j+1)."""
    if K.cfg[C_DRAFT] == DRAFT_SHARED:
        return 1 - mover
    if j == mover:
        return j + 1 if j + 1 < K.cfg[C_P] else 0
    return j


@njit(**JIT)
def _act(K, G, j, card):
    """Carry out the action card ``card`` turned up on pile ``j`` (reference ``draft._act``); True when a Move
    waits for a choice (``G_DRAFT_MOVE``, ``G_TO_ACT`` set)."""
    L = K.lay
    mover = G[G_CUR]
    other = other_neighbour(K, G, mover, j)
    if card == K.cfg[C_ADV_SWAP]:
        if G[L[B_SLEN] + mover] >= 1 and G[L[B_SLEN] + other] >= 1:
            exchange_top_sets(K, G, mover, other)
        return False
    chooser = other
    target = mover
    if K.cfg[C_DRAFT] != DRAFT_SHARED:
        chooser = mover
        target = other
    if G[L[B_SLEN] + target] < 2:
        return False
    G[G_DRAFT_MOVE] = 1 + target
    G[G_TO_ACT] = chooser
    return True


@njit(**JIT)
def finish(K, G):
    """Turn up the next card of every pile taken from this turn (R-2P-DRAFT), clearing its ``G_DRAFT_DOWN`` bit.

    An action card turned up is carried out (:func:`_act`) and leaves the game; the next card is turned.
    Returns False when a Move waits for its choice (its pile and the later ones stay face-down; call
    again after the choice), True once every pile is turned up. Each card turned up is seen by every seat
    (:func:`~cya_sim.engine.classic.seen.reveal`, RULES.md §10).
    """
    cfg = K.cfg
    everyone = (1 << cfg[C_P]) - 1
    for j in range(cfg[C_DRAFT_PILES]):
        if (G[G_DRAFT_DOWN] >> j) & 1 == 0:
            continue
        ln = K.lay[B_DRAFT_LEN] + j
        base = K.lay[B_DECK] + j * cfg[C_DRAFT_SIZE] - 1
        while G[ln] > 0 and G[base + G[ln]] >= cfg[C_ADV_FIRST_ACT]:
            c = G[base + G[ln]]
            G[ln] -= 1
            remove_card(K, G, c)
            if _act(K, G, j, c):
                return False
        G[G_DRAFT_DOWN] &= ~(1 << j)
        if G[ln] > 0:
            reveal(K, G, G[base + G[ln]], everyone)
    return True


@njit(**JIT)
def apply(K, G, a):
    """Apply legal draft id ``a``; returns the mover whose action is complete now (the caller turns up the piles,
    :func:`finish`, and runs R-REFILL and the turn order), -1 when a decision of the draft offer or challenge
    follows, or -2 after the choice for a Move turned up (the caller resumes with the kept draw order)."""
    cfg = K.cfg
    L = K.lay
    seat = G[G_TO_ACT]
    na = cfg[C_NA]
    t = cfg[C_T]
    p = cfg[C_P]
    h0 = L[B_HANDS] + seat * t
    mover = G[G_CUR]
    if a >= cfg[C_DRAFT_MV]:  # the choice for a Move turned up on a draft pile (§7 with §6)
        target = G[G_DRAFT_MOVE] - 1
        G[G_DRAFT_MOVE] = 0
        shift_stack(K, G, target, a - cfg[C_DRAFT_MV])
        return -2
    if a >= cfg[C_DRAFT_CH]:
        if a == cfg[C_DRAFT_DEC]:
            G[G_DRAFT_OFFER] = G[G_DRAFT_OFFER2]
            G[G_DRAFT_OFFER2] = 0
            _next_offer(K, G)
            if G[G_DRAFT_OFFER] == 0:
                return mover
            return -1
        # draft_challenge: the R-CH-ALLOWED exception; R-CH-EXCHANGE then goes on as in §4
        k = K.act_lo[a]
        asset = _mover_asset(K, G)
        card = asset if k == 0 else na + k - 1
        G[G_DRAFT_OFFER] = 0
        G[G_DRAFT_OFFER2] = 0
        G[G_CH_ACTIVE] = 1
        G[G_CH_CHAL] = seat
        G[G_CH_DEF] = mover
        G[G_CH_ASSET] = asset
        G[G_CHALLENGES] += 1
        G[G_CH_LEN] = 0
        show_challenge_card(K, G, seat, card)  # shown face up (RULES.md §10)
        G[L[B_PLAYED] + seat] = 1
        G[G_TO_ACT] = mover
        note_defender(K, G, seat)  # R-ADV-TWO: it draws after the mover at the end of a two-action turn
        if cfg[C_ADV_PAY2]:  # a Penny Jar asks for two cards (R-ADV-PENNY)
            set_owed(K, G, 1, card == cfg[C_ADV_PENNY])
        return -1
    # draft_take / draft_wild by the mover
    asset = K.act_hi[a]
    k = K.act_lo[a]
    if a < cfg[C_DRAFT_WILD]:
        hand_card = asset
        piles = take_mask(K, G, seat, asset, k)
    else:
        hand_card = na + k - 1
        piles = take_mask(K, G, seat, asset, 0)
    G[h0 + hand_card] -= 1
    G[L[B_HCOUNT] + seat] -= 1
    public = (1 << p) - 1
    st = G[G_N_SETS]
    G[G_N_SETS] = st + 1
    c0 = L[B_SCOUNTS] + st * t
    size = 1
    value = K.values[hand_card]
    taken0 = -1
    for j in range(cfg[C_DRAFT_PILES]):
        if (piles >> j) & 1:
            ln = L[B_DRAFT_LEN] + j
            c = G[L[B_DECK] + j * cfg[C_DRAFT_SIZE] + G[ln] - 1]
            G[ln] -= 1
            G[c0 + c] += 1
            size += 1
            value += K.values[c]
            taken0 = c
    G[c0 + hand_card] += 1
    G[G_DRAFT_DOWN] |= piles
    G[L[B_SASSET] + st] = asset
    G[L[B_SSIZE] + st] = size
    G[L[B_SVALUE] + st] = value
    # the drafted cards were face up, so already seen by every seat; the hand card is revealed here
    if a < cfg[C_DRAFT_WILD] and k > 0:  # a face-up wild beneath, the hand asset on top
        G[L[B_SCARD0] + st] = taken0
        G[L[B_SKNOWN0] + st] = public
        reveal(K, G, hand_card, public)
    else:  # the hand card beneath the face-up drafted cards (R-HIDDEN-WILD)
        G[L[B_SCARD0] + st] = hand_card
        G[L[B_SKNOWN0] + st] = (1 << seat) if cfg[C_HIDDEN] else public
        reveal(K, G, hand_card, G[L[B_SKNOWN0] + st])
    G[L[B_SBELOW] + st] = G[L[B_STOP] + seat]
    G[L[B_STOP] + seat] = st
    G[L[B_SLEN] + seat] += 1
    G[L[B_SVAL] + seat] += value
    G[L[B_PLAYED] + seat] = 1
    # who may challenge: the other neighbour of each pile taken from, the left neighbour first
    if cfg[C_DRAFT] == DRAFT_SHARED:
        G[G_DRAFT_OFFER] = 1 + (1 - seat)
        G[G_DRAFT_OFFER2] = 0
    else:
        left = seat + 1 if seat + 1 < p else 0
        right = seat - 1 if seat > 0 else p - 1
        first = -1
        second = -1
        if (piles >> seat) & 1:
            first = left
        if (piles >> right) & 1:
            if first < 0:
                first = right
            else:
                second = right
        G[G_DRAFT_OFFER] = 1 + first
        G[G_DRAFT_OFFER2] = 1 + second if second >= 0 else 0
    _next_offer(K, G)
    if G[G_DRAFT_OFFER] == 0:
        return seat
    return -1


@njit(**JIT)
def deal(K, G):
    """R-2P-DRAFT / R-3P-DRAFT set-up: the piles hold ``deck[0 : piles * size]``; returns the cards used.

    Called by :func:`cya_sim.engine.classic.kernel.start_round` after the shuffle, before the hands.
    """
    cfg = K.cfg
    everyone = (1 << cfg[C_P]) - 1
    G[G_DRAFT_DOWN] = 0
    for j in range(cfg[C_DRAFT_PILES]):
        ln = K.lay[B_DRAFT_LEN] + j
        base = K.lay[B_DECK] + j * cfg[C_DRAFT_SIZE] - 1
        G[ln] = cfg[C_DRAFT_SIZE]
        while G[ln] > 0 and G[base + G[ln]] >= cfg[C_ADV_FIRST_ACT]:  # §6: acts on nothing, leaves the game
            remove_card(K, G, G[base + G[ln]])
            G[ln] -= 1
        if G[ln] > 0:  # each pile's top is dealt face up: every seat sees it (RULES.md §10)
            reveal(K, G, top(K, G, j), everyone)
    G[G_DRAFT_OFFER] = 0
    G[G_DRAFT_OFFER2] = 0
    G[G_DRAFT_MOVE] = 0
    G[G_DRAFT_THEN0] = 0
    G[G_DRAFT_THEN1] = 0
    return cfg[C_DRAFT_PILES] * cfg[C_DRAFT_SIZE]


@njit(**JIT)
def leftover_value(K, G):
    """Dollars of the cards left in the draft piles (they score nothing; R-SCORE invariant)."""
    v = 0
    for j in range(K.cfg[C_DRAFT_PILES]):
        b = K.lay[B_DECK] + j * K.cfg[C_DRAFT_SIZE]
        for i in range(G[K.lay[B_DRAFT_LEN] + j]):
            v += K.values[G[b + i]]
    return v
