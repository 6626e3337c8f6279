"""The compiled rules kernel: RULES.md §3–5 on one game row (the single compiled copy of the rules).

Every function takes ``K`` (a :class:`~cya_sim.engine.classic.layout.Consts`)
and one game row ``G`` ((W,) int64, :mod:`cya_sim.engine.classic.layout`);
the functions that may deal a new round also take ``rng``, the (4,) uint64
PCG64 stream that shuffles (:mod:`.pcg`). The batched engine calls them on the
rows of its ``(B, W)`` array, the search on its determinizations. They mirror
the reference engine (:mod:`cya_sim.engine.classic.reference`, the readable
specification) step for step, so that both engines play identical games from
identical seeds (``tests/test_batched_differential.py``).

Representation notes (why it is exact):

* A set's cards are kept as counts per card type plus its first card
  (``B_SCARD0``) and that card's knower bitmask (``B_SKNOWN0``). Under
  R-HIDDEN-WILD only a set's first card can ever be hidden (a pair from the
  hand hides the partner beneath, a pair with a discarded asset hides the
  hand card beneath; discarded wilds and challenge cards are public), so
  (counts, card0, known0) hold every seat's knowledge of the set.
* Stacks are linked lists through ``B_SBELOW``; the set pool is reset each
  round (R-NEW-ROUND); a set keeps its slot when it changes hands.

Nothing here knows about agents: a policy (``agents/``) reads a row and returns
an action id; the play loop (``cya_sim.play``) checks it with :func:`is_legal`
and applies it with :func:`apply_action`.
"""

from __future__ import annotations

from numba import njit

from cya_sim.engine import hooks
from cya_sim.engine.cache_guard import invalidate_stale_caches
from cya_sim.engine.classic import advanced as adv
from cya_sim.engine.classic import draft
from cya_sim.engine.classic.challenge import show_challenge_card
from cya_sim.engine.classic.layout import (
    B_CHCARDS,
    B_CHPLAYERS,
    B_DECK,
    B_DISC,
    B_GAVEUP,
    B_HANDS,
    B_HCOUNT,
    B_PLAYED,
    B_RWINS,
    B_SASSET,
    B_SBELOW,
    B_SCARD0,
    B_SCOUNTS,
    B_SEEN_PRIVATE,
    B_SEEN_PUBLIC,
    B_SIZE,
    B_SKNOWN0,
    B_SLEN,
    B_SSIZE,
    B_STOP,
    B_SVAL,
    B_SVALUE,
    B_TOTAL,
    C_A,
    C_ADV_FIRST_ACT,
    C_ADV_ON,
    C_ADV_PAY2,
    C_ADV_PENNY,
    C_ADV_TWO,
    C_CH,
    C_DI,
    C_DRAFT,
    C_DRAFT_TAKE,
    C_END_KIND,
    C_END_PARAM,
    C_GU,
    C_HAND,
    C_HIDDEN,
    C_MAX_EXTRA,
    C_MAX_ROUNDS,
    C_N,
    C_NA,
    C_NW,
    C_ORDER,
    C_P,
    C_PD,
    C_RE,
    C_T,
    C_TARGET,
    C_TIE,
    C_W,
    CONSTS_DTYPE,
    END_ROUNDS,
    END_TARGET,
    G_ADV_DEF0,
    G_ADV_DEF1,
    G_ADV_DEPTH,
    G_ADV_LEFT,
    G_ADV_NDEF,
    G_ADV_OWED,
    G_CAPPED,
    G_CH_ACTIVE,
    G_CH_ASSET,
    G_CH_CHAL,
    G_CH_DEF,
    G_CH_LEN,
    G_CHALLENGES,
    G_CUR,
    G_DEALER,
    G_DECISIONS,
    G_DISC_LEN,
    G_DONE,
    G_DRAFT_DOWN,
    G_DRAFT_MOVE,
    G_DRAFT_OFFER,
    G_DRAFT_THEN0,
    G_DRAFT_THEN1,
    G_DRAW_POS,
    G_ELIGIBLE,
    G_EXTRA,
    G_FIRST_DEALER,
    G_GAME_INDEX,
    G_LARGEST_STEAL,
    G_N_SETS,
    G_QUEUE_POS,
    G_ROUND,
    G_ROUND_AUDIT,
    G_TO_ACT,
    G_TURNS,
    G_WINNERS,
    ORDER_LOSER_FIRST,
    TIE_SHARE,
)
from cya_sim.engine.classic.seen import reveal
from cya_sim.engine.intrinsics import cttz
from cya_sim.engine.jit import JIT
from cya_sim.engine.legal import legal_mask as _shared_legal_mask
from cya_sim.engine.pcg import next_double, shuffle
from cya_sim.engine.seats import seat_add

invalidate_stale_caches("classic")  # numba's disk cache does not track the kernels linked across modules



# -- small queries --------------------------------------------------------------------------------
@njit(**JIT)
def value_seen(K, G, st, observer):
    """Dollars of set slot ``st`` as ``observer`` sees it: a hidden first card counted at the asset's value.

    R-HIDDEN-WILD: only the set's first card can be hidden from ``observer``
    (module notes); equals ``SetView.value_seen`` of the reference engine.
    """
    L = K.lay
    v = G[L[B_SVALUE] + st]
    if (G[L[B_SKNOWN0] + st] >> observer) & 1 == 0:
        v += K.values[G[L[B_SASSET] + st]] - K.values[G[L[B_SCARD0] + st]]
    return v


@njit(inline="always", **JIT)
def is_legal_inline(K, G, a):
    """:func:`is_legal`, inlined into its caller (the play loops check every decision; no call overhead)."""
    cfg = K.cfg
    L = K.lay
    seat = G[G_TO_ACT]
    if seat < 0 or a < 0 or a >= cfg[C_A]:
        return False
    if cfg[C_DRAFT] != 0 and G[G_CH_ACTIVE] == 0 and (G[G_DRAFT_OFFER] != 0 or G[G_DRAFT_MOVE] != 0):
        return draft.is_legal(K, G, a)  # §7: the immediate challenge offer, or the choice for a Move turned up
    if cfg[C_ADV_ON]:  # the advanced rules (RULES.md §6) decide their ids and limits
        r = adv.pre_legal(K, G, a)
        if r != 2:
            return r == 1
    na = cfg[C_NA]
    h0 = L[B_HANDS] + seat * cfg[C_T]
    if G[G_CH_ACTIVE]:
        if a == cfg[C_GU]:
            return True
        if a >= cfg[C_RE] and a < cfg[C_GU]:
            k = a - cfg[C_RE]
            card = G[G_CH_ASSET] if k == 0 else na + k - 1
            return G[h0 + card] > 0
        return False
    if cfg[C_DRAFT] != 0 and G[G_DRAFT_OFFER] != 0:  # §7: open the immediate challenge or decline
        return draft.is_legal(K, G, a)
    if a < cfg[C_PD]:  # R-PAIR-HAND
        asset = K.act_hi[a]
        k = K.act_lo[a]
        if k == 0:
            return G[h0 + asset] >= 2
        return G[h0 + asset] >= 1 and G[h0 + na + k - 1] >= 1
    if a < cfg[C_CH]:  # R-PAIR-DISCARD
        c = a - cfg[C_PD]
        n = G[G_DISC_LEN]
        if n == 0 or G[h0 + c] == 0:
            return False
        top = G[L[B_DISC] + n - 1]
        top_wild = top >= na
        c_wild = c >= na
        if top_wild and c_wild:
            return False  # R-NO-WILD-PAIR
        return top_wild or c_wild or c == top
    if a < cfg[C_DI]:  # R-CHALLENGE
        offset = K.act_hi[a]
        k = K.act_lo[a]
        p = cfg[C_P]
        if offset >= p:
            return False
        target = seat_add(seat, offset, p)
        if G[L[B_SLEN] + seat] < 1 or G[L[B_SLEN] + target] < 2:  # R-CH-ALLOWED
            return False
        card = G[L[B_SASSET] + G[L[B_STOP] + target]] if k == 0 else na + k - 1
        return G[h0 + card] > 0
    if a < cfg[C_RE]:  # R-DISCARD
        return G[h0 + a - cfg[C_DI]] > 0
    if cfg[C_DRAFT] != 0:  # R-2P-DRAFT, R-3P-DRAFT takes
        return draft.is_legal(K, G, a)
    return False


@njit(**JIT)
def is_legal(K, G, a):
    """Whether action id ``a`` is legal for the seat to act (bool).

    Same answer as ``legal_action_mask(state)[a]`` of the reference (R-TURN,
    R-NO-WILD-PAIR, R-CH-ALLOWED, R-CH-EXCHANGE); False when the game is
    over or ``a`` is outside ``0..A-1``. (The code is :func:`is_legal_inline`.)
    """
    return is_legal_inline(K, G, a)


@njit(**JIT)
def _push_bits(out, n, base, bits):
    """Append ``base + k`` for every set bit ``k`` of ``bits``, lowest first, to ``out`` from index ``n``; the new count."""
    while bits:
        out[n] = base + cttz(bits)
        bits &= bits - 1
        n += 1
    return n


@njit(**JIT)
def legal_list(K, G, out):
    """The legal action ids of the seat to act, ascending, into ``out`` ((A,) int64); returns how many.

    Walks the action blocks in id order (R-TURN: R-PAIR-HAND, R-PAIR-DISCARD with
    R-NO-WILD-PAIR, R-CHALLENGE with R-CH-ALLOWED, R-DISCARD; in a challenge
    R-CH-EXCHANGE: answer or give up). The same set as :func:`is_legal`
    (``tests/test_batched_api.py``). 0 when the game is over.

    How (speed, same ids in the same order): the card types held are a bitmask, and each block visits
    only the types held, lowest id first (``cttz``); the rule constants are read into locals once.
    """
    cfg = K.cfg
    L = K.lay
    seat = G[G_TO_ACT]
    if seat < 0:
        return 0
    na = cfg[C_NA]
    nw = cfg[C_NW]
    t = cfg[C_T]
    w = cfg[C_W]
    h0 = L[B_HANDS] + seat * t
    n = 0
    if G[G_CH_ACTIVE]:
        if cfg[C_ADV_ON] and G[G_ADV_OWED] == 2:  # two cards owed (R-ADV-PENNY, R-ADV-DEEP)
            return adv.pay_two_legal(K, G, out)
        re = cfg[C_RE]
        if G[h0 + G[G_CH_ASSET]] > 0:
            out[n] = re
            n += 1
        for k in range(nw):
            if G[h0 + na + k] > 0:
                out[n] = re + 1 + k
                n += 1
        out[n] = cfg[C_GU]
        return n + 1
    draft_on = cfg[C_DRAFT] != 0
    if draft_on and G[G_DRAFT_MOVE] != 0:  # §7 with §6: the choice for a Move turned up
        return draft.legal_move(K, G, out)
    if draft_on and G[G_DRAFT_OFFER] != 0:  # §7: open the immediate challenge or decline
        return draft.legal_offer(K, G, out)
    # Constants read once: the stores into ``out`` below could alias them for the compiler.
    pd = cfg[C_PD]
    ch = cfg[C_CH]
    di = cfg[C_DI]
    first_act = cfg[C_ADV_FIRST_ACT]
    p = cfg[C_P]
    b_slen = L[B_SLEN]
    wilds = 0  # bitmask of the wild types held (bit k: wild k)
    for k in range(nw):
        if G[h0 + na + k] > 0:
            wilds |= 1 << k
    held = 0  # bitmask of the card types held (T <= 62)
    for c in range(t):
        if G[h0 + c] > 0:
            held |= 1 << c
    m = held & ((1 << na) - 1)
    while m:  # R-PAIR-HAND, asset types held in id order; partners in id order
        a = cttz(m)
        m &= m - 1
        base = a * w
        if G[h0 + a] >= 2:
            out[n] = base
            n += 1
        n = _push_bits(out, n, base + 1, wilds)
    nd = G[G_DISC_LEN]
    if nd > 0:  # R-PAIR-DISCARD with R-NO-WILD-PAIR (action cards never pair, §6)
        top = G[L[B_DISC] + nd - 1]
        if top >= na:
            m = held & ((1 << na) - 1)  # a wild on top pairs with any asset
        else:
            m = (held & (((1 << first_act) - 1) ^ ((1 << na) - 1))) | (held & (1 << top))  # wilds, or the same asset
        n = _push_bits(out, n, pd, m)
    if G[b_slen + seat] >= 1:  # R-CHALLENGE with R-CH-ALLOWED
        b_stop = L[B_STOP]
        b_sasset = L[B_SASSET]
        for off in range(1, p):
            tg = seat_add(seat, off, p)
            if G[b_slen + tg] < 2:
                continue
            base = ch + (off - 1) * w
            if (held >> G[b_sasset + G[b_stop + tg]]) & 1:
                out[n] = base
                n += 1
            n = _push_bits(out, n, base + 1, wilds)
    n = _push_bits(out, n, di, held)  # R-DISCARD
    if cfg[C_ADV_ON]:
        n = adv.extend_legal(K, G, out, n)
    if draft_on:  # R-2P-DRAFT, R-3P-DRAFT takes (ids after every classic block)
        n = draft.legal_takes(K, G, out, n)
    return n


# -- setting up (R-SETUP, R-NEW-ROUND) --------------------------------------------------------------
@njit(**JIT)
def start_round(K, G, rng):
    """R-NEW-ROUND and R-SETUP: gather, shuffle, deal ``hand_size`` one at a time from left of the dealer.

    The cards in type-id order are shuffled with ``rng`` (as
    :func:`cya_sim.engine.classic.reference.setup.start_round`); the next card starts
    the discard pile; the player left of the dealer moves first.
    """
    cfg = K.cfg
    L = K.lay
    p = cfg[C_P]
    n = cfg[C_N]
    t = cfg[C_T]
    d0 = L[B_DECK]
    for i in range(n):
        G[d0 + i] = K.deck0[i]
    shuffle(G[d0:d0 + n], rng)
    G[G_ROUND] += 1
    for i in range(p * t):
        G[L[B_HANDS] + i] = 0
    for s in range(p):
        G[L[B_HCOUNT] + s] = 0
        G[L[B_STOP] + s] = -1
        G[L[B_SLEN] + s] = 0
        G[L[B_SVAL] + s] = 0
        G[L[B_PLAYED] + s] = 0
        G[L[B_GAVEUP] + s] = 0
    sc = L[B_SCOUNTS]
    for i in range(G[G_N_SETS] * t):  # the set slots of the last round; R-NEW-SET counts start at zero
        G[sc + i] = 0
    G[G_N_SETS] = 0
    G[G_CH_ACTIVE] = 0
    G[G_CH_LEN] = 0
    for c in range(t):  # nothing seen yet out of the hands (RULES.md §10); the first discard is revealed below
        G[L[B_SEEN_PUBLIC] + c] = 0
    for i in range(p * t):
        G[L[B_SEEN_PRIVATE] + i] = 0
    if cfg[C_ADV_ON]:  # R-NEW-ROUND: no card has left the game yet (before the piles, §7 with §6)
        adv.clear_removed(K, G)
    k = draft.deal(K, G) if cfg[C_DRAFT] != 0 else 0  # R-2P-DRAFT / R-3P-DRAFT: the piles are dealt first
    dealer = G[G_DEALER]
    for _ in range(cfg[C_HAND]):
        for i in range(p):
            seat = seat_add(dealer, 1 + i, p)
            G[L[B_HANDS] + seat * t + G[d0 + k]] += 1
            G[L[B_HCOUNT] + seat] += 1
            k += 1
    if cfg[C_ADV_ON]:  # R-ADV-SETUP; the first turn's R-ADV-TWO state
        k = adv.setup_discard(K, G, k)
    G[L[B_DISC]] = G[d0 + k]
    reveal(K, G, G[d0 + k], (1 << p) - 1)
    G[G_DISC_LEN] = 1
    G[G_DRAW_POS] = k + 1
    G[G_CUR] = seat_add(dealer, 1, p)
    G[G_TO_ACT] = G[G_CUR]


@njit(**JIT)
def new_game(K, G, rng):
    """Clear row ``G`` and start a game: the first dealer is ``floor(u * P)`` for ``rng``'s next draw (R-SETUP).

    ``rng`` is the game's engine stream (stream 0 of :mod:`cya_sim.game.rng`); round 1 is dealt with it.
    Row bookkeeping (``G_GAME_INDEX``, ``G_QUEUE_POS``) is the caller's.
    """
    gi = G[G_GAME_INDEX]  # the row's bookkeeping survives the clearing
    qp = G[G_QUEUE_POS]
    for i in range(K.lay[B_SIZE]):
        G[i] = 0
    G[G_GAME_INDEX] = gi
    G[G_QUEUE_POS] = qp
    for i in range(K.cfg[C_P]):
        G[K.lay[B_STOP] + i] = -1
    d = int(next_double(rng) * K.cfg[C_P])
    G[G_DEALER] = d
    G[G_FIRST_DEALER] = d
    start_round(K, G, rng)


# -- applying actions (R-TURN, §4, R-REFILL, R-ROUND-END) -------------------------------------------
@njit(**JIT)
def _push_set(K, G, seat, st):
    L = K.lay
    G[L[B_SBELOW] + st] = G[L[B_STOP] + seat]
    G[L[B_STOP] + seat] = st
    G[L[B_SLEN] + seat] += 1
    G[L[B_SVAL] + seat] += G[L[B_SVALUE] + st]


@njit(**JIT)
def _new_set(K, G, seat, asset, card0, known0, card1):
    """R-NEW-SET: a new set [card0, card1] with ``asset`` on top goes on top of ``seat``'s stack."""
    L = K.lay
    st = G[G_N_SETS]
    G[G_N_SETS] = st + 1
    G[L[B_SASSET] + st] = asset
    G[L[B_SSIZE] + st] = 2
    G[L[B_SVALUE] + st] = K.values[card0] + K.values[card1]
    G[L[B_SCARD0] + st] = card0
    G[L[B_SKNOWN0] + st] = known0
    c0 = L[B_SCOUNTS] + st * K.cfg[C_T]
    G[c0 + card0] += 1  # zero since start_round cleared the slot
    G[c0 + card1] += 1
    _push_set(K, G, seat, st)


@njit(**JIT)
def _play_challenge_card(K, G, seat, card):
    """R-CH-EXCHANGE: ``seat`` shows ``card``; the other side must answer."""
    show_challenge_card(K, G, seat, card)
    G[K.lay[B_PLAYED] + seat] = 1
    G[G_TO_ACT] = G[G_CH_DEF] if seat == G[G_CH_CHAL] else G[G_CH_CHAL]
    if K.cfg[C_ADV_PAY2]:  # a Penny Jar asks for two cards (R-ADV-PENNY); deep challenges (R-ADV-DEEP)
        adv.set_owed(K, G, 1, card == K.cfg[C_ADV_PENNY])


@njit(inline="always", **JIT)
def apply_action(K, G, rng, a):
    """Apply legal action ``a`` for the seat to act, then advance to the next decision.

    Implements R-PAIR-HAND, R-PAIR-DISCARD, R-DISCARD, R-CHALLENGE,
    R-CH-EXCHANGE, R-HIDDEN-WILD (knowledge of each set's hidden card),
    R-CH-ONE, then R-REFILL, R-TURN (empty hands skipped), R-ROUND-END,
    R-SCORE, R-GAME-END, R-TIE via :func:`end_turn`; a new round is shuffled
    with ``rng``. The caller must have checked :func:`is_legal`.
    """
    cfg = K.cfg
    L = K.lay
    seat = G[G_TO_ACT]
    na = cfg[C_NA]
    p = cfg[C_P]
    public = (1 << p) - 1
    hidden = (1 << seat) if cfg[C_HIDDEN] else public
    h0 = L[B_HANDS] + seat * cfg[C_T]
    G[G_DECISIONS] += 1
    if G[G_CH_ACTIVE]:
        if a == cfg[C_GU]:
            G[L[B_GAVEUP] + seat] |= 1 << G[G_CH_ASSET]  # public record of who did not answer (RULES.md §10)
            resolve_challenge(K, G, rng)
        elif a > cfg[C_GU]:  # a two-card play (R-ADV-PENNY, R-ADV-DEEP)
            adv.turn_action(K, G, a, seat)
        else:
            k = a - cfg[C_RE]
            card = G[G_CH_ASSET] if k == 0 else na + k - 1
            _play_challenge_card(K, G, seat, card)
        return
    if a >= cfg[C_DRAFT_TAKE]:  # R-2P-DRAFT, R-3P-DRAFT: a draft take, the offered immediate challenge, a Move choice
        mover = draft.apply(K, G, a)
        if mover == -2:  # after the choice for a Move turned up: go on turning up, with the kept draw order
            first = G[G_DRAFT_THEN0] - 1
            second = G[G_DRAFT_THEN1] - 1
            G[G_DRAFT_THEN0] = 0
            G[G_DRAFT_THEN1] = 0
            piles_then_done(K, G, rng, first, second)
        elif mover >= 0:
            piles_then_done(K, G, rng, mover, -1)
        return
    if a < cfg[C_PD]:  # R-PAIR-HAND: the asset on top, the partner hidden beneath it
        asset = K.act_hi[a]
        k = K.act_lo[a]
        partner = asset if k == 0 else na + k - 1
        G[h0 + asset] -= 1
        G[h0 + partner] -= 1
        G[L[B_HCOUNT] + seat] -= 2
        _new_set(K, G, seat, asset, partner, hidden, asset)
        reveal(K, G, asset, public)
        reveal(K, G, partner, hidden)
    elif a < cfg[C_CH]:  # R-PAIR-DISCARD
        c = a - cfg[C_PD]
        n = G[G_DISC_LEN] - 1
        top = G[L[B_DISC] + n]
        G[G_DISC_LEN] = n
        G[h0 + c] -= 1
        G[L[B_HCOUNT] + seat] -= 1
        if top < na:  # the face-up asset on top; the hand card beneath is hidden
            _new_set(K, G, seat, top, c, hidden, top)
            reveal(K, G, c, hidden)
        else:  # a wild from the discard pile is public; the hand asset goes on top
            _new_set(K, G, seat, c, top, public, c)
            reveal(K, G, c, public)
    elif a < cfg[C_DI]:  # R-CHALLENGE, opened with one card
        offset = K.act_hi[a]
        k = K.act_lo[a]
        target = seat_add(seat, offset, p)
        asset = G[L[B_SASSET] + G[L[B_STOP] + target]]
        G[G_CH_ACTIVE] = 1
        G[G_CH_CHAL] = seat
        G[G_CH_DEF] = target
        G[G_CH_ASSET] = asset
        G[G_CH_LEN] = 0
        G[G_CHALLENGES] += 1
        if cfg[C_ADV_TWO] > 1:
            adv.note_defender(K, G, target)
        _play_challenge_card(K, G, seat, asset if k == 0 else na + k - 1)
        return
    elif a < cfg[C_RE]:  # R-DISCARD
        c = a - cfg[C_DI]
        G[h0 + c] -= 1
        G[L[B_HCOUNT] + seat] -= 1
        G[L[B_PLAYED] + seat] = 1
        if c >= cfg[C_ADV_FIRST_ACT]:  # R-ADV-DISCARD-ACTION: a Swap or Move leaves the game (face up: seen)
            adv.remove_card(K, G, c)
        else:
            G[L[B_DISC] + G[G_DISC_LEN]] = c
            G[G_DISC_LEN] += 1
            reveal(K, G, c, public)
        action_done(K, G, rng, seat, -1, True)
        return
    else:  # the advanced actions (RULES.md §6)
        r = adv.turn_action(K, G, a, seat)
        if r == adv.END_TURN:
            end_two_action_turn(K, G, rng)
        elif r == adv.DONE:
            action_done(K, G, rng, seat, -1, False)
        return
    G[L[B_PLAYED] + seat] = 1
    action_done(K, G, rng, seat, -1, False)


@njit(**JIT)
def resolve_challenge(K, G, rng):
    """R-CH-EXCHANGE: whoever played the last card wins the set and every challenge card.

    A winning challenger takes the defender's top set plus the challenge
    cards as one set on top of its own stack and learns all of it
    (R-HIDDEN-WILD); a winning defender's top set grows by the challenge
    cards. Then R-CH-ONE: the turn ends; R-REFILL in ``challenge_draw_order``.
    """
    L = K.lay
    n = G[G_CH_LEN]
    winner = G[L[B_CHPLAYERS] + n - 1]
    chal = G[G_CH_CHAL]
    defe = G[G_CH_DEF]
    loser = defe if winner == chal else chal
    st = G[L[B_STOP] + defe]
    if G[G_ADV_DEPTH]:  # R-ADV-DEEP: the set second from the top
        st = G[L[B_SBELOW] + st]
    c0 = L[B_SCOUNTS] + st * K.cfg[C_T]
    add = 0
    for i in range(n):
        c = G[L[B_CHCARDS] + i]
        G[c0 + c] += 1
        add += K.values[c]
    G[L[B_SSIZE] + st] += n
    G[L[B_SVALUE] + st] += add
    if winner == chal:
        if G[G_ADV_DEPTH]:
            G[L[B_SBELOW] + G[L[B_STOP] + defe]] = G[L[B_SBELOW] + st]
        else:
            G[L[B_STOP] + defe] = G[L[B_SBELOW] + st]
        G[L[B_SLEN] + defe] -= 1
        G[L[B_SVAL] + defe] -= G[L[B_SVALUE] + st] - add
        known = G[L[B_SKNOWN0] + st]
        if (known >> winner) & 1 == 0:  # R-HIDDEN-WILD: the winner sees all of the set
            reveal(K, G, G[L[B_SCARD0] + st], 1 << winner)
        G[L[B_SKNOWN0] + st] = known | (1 << winner)
        _push_set(K, G, winner, st)
        G[G_LARGEST_STEAL] = max(G[G_LARGEST_STEAL], G[L[B_SVALUE] + st])
    else:
        G[L[B_SVAL] + defe] += add
    G[G_CH_ACTIVE] = 0
    G[G_CH_LEN] = 0
    if K.cfg[C_ADV_ON]:
        adv.after_challenge(K, G, winner)
    if K.cfg[C_ORDER] == ORDER_LOSER_FIRST:
        piles_then_done(K, G, rng, loser, winner)
    elif chal == G[G_CUR]:
        piles_then_done(K, G, rng, chal, defe)
    else:  # the immediate challenge of a drafted set (§7): the mover, the defender, draws first
        piles_then_done(K, G, rng, defe, chal)


@njit(**JIT)
def piles_then_done(K, G, rng, first, second):
    """§7: turn up the draft piles taken from (``draft.finish``; an action card turned up acts at once), then
    :func:`action_done`; when a Move turned up waits for its choice the draw order is kept in
    ``G_DRAFT_THEN0``/``G_DRAFT_THEN1`` and this runs again after the choice (as the reference's
    ``_piles_then_done``)."""
    if G[G_DRAFT_DOWN] != 0 and not draft.finish(K, G):
        G[G_DRAFT_THEN0] = first + 1
        G[G_DRAFT_THEN1] = second + 1
        return
    action_done(K, G, rng, first, second, False)


@njit(inline="always", **JIT)
def action_done(K, G, rng, first, second, discard):
    """One turn action is complete: :func:`end_turn` with R-REFILL for ``first``, ``second``, or, under
    R-ADV-TWO (two actions a turn), :func:`second_action_or_end` (``discard``: the action was a discard)."""
    if K.cfg[C_ADV_TWO] < 2:
        end_turn(K, G, rng, first, second)
    else:
        second_action_or_end(K, G, rng, discard)


@njit(**JIT)
def second_action_or_end(K, G, rng, discard):
    """R-ADV-TWO after an action: a first-action discard draws back up at once; the mover acts again while an
    action is left and it holds a card; else :func:`end_two_action_turn`."""
    L = K.lay
    mover = G[G_CUR]
    first = G[G_ADV_LEFT] == K.cfg[C_ADV_TWO]
    G[G_ADV_LEFT] -= 1
    if discard and first:
        _refill(K, G, mover)
    if G[G_ADV_LEFT] > 0 and G[L[B_HCOUNT] + mover] > 0:
        G[G_TO_ACT] = mover
        return
    end_two_action_turn(K, G, rng)


@njit(**JIT)
def end_two_action_turn(K, G, rng):
    """The end of a two-action turn (R-ADV-TWO): R-REFILL for the mover, then each seat it challenged, in order."""
    L = K.lay
    mover = G[G_CUR]
    if G[L[B_PLAYED] + mover]:
        _refill(K, G, mover)
    for i in range(G[G_ADV_NDEF]):
        d = G[G_ADV_DEF0] if i == 0 else G[G_ADV_DEF1]
        if G[L[B_PLAYED] + d]:
            _refill(K, G, d)
    end_turn(K, G, rng, mover, -1)


@njit(**JIT)
def _refill(K, G, seat):
    """R-REFILL for one seat: draw up to ``hand_size`` while the draw pile lasts.

    A seat that draws a card loses its public record of giving up (RULES.md §10, ``B_GAVEUP``).
    """
    L = K.lay
    hs = K.cfg[C_HAND]
    n = K.cfg[C_N]
    pos = G[G_DRAW_POS]
    cnt = G[L[B_HCOUNT] + seat]
    if cnt < hs and pos < n:
        G[L[B_GAVEUP] + seat] = 0
    h0 = L[B_HANDS] + seat * K.cfg[C_T]
    d0 = L[B_DECK]
    while cnt < hs and pos < n:
        G[h0 + G[d0 + pos]] += 1
        pos += 1
        cnt += 1
    G[G_DRAW_POS] = pos
    G[L[B_HCOUNT] + seat] = cnt


@njit(inline="always", **JIT)
def end_turn(K, G, rng, first, second):
    """End the turn: R-REFILL for ``first`` then ``second`` (-1: none) if they played a card.

    Then R-TURN: the next seat clockwise with a non-empty hand moves (the
    mover itself last); R-ROUND-END: if every hand is empty, :func:`end_round`.
    """
    L = K.lay
    p = K.cfg[C_P]
    if G[L[B_PLAYED] + first]:
        _refill(K, G, first)
    if second >= 0 and G[L[B_PLAYED] + second]:
        _refill(K, G, second)
    for s in range(p):
        G[L[B_PLAYED] + s] = 0
    if K.cfg[C_ADV_ON]:
        adv.reset_turn(K, G)
    G[G_TURNS] += 1
    cur = G[G_CUR]
    for step in range(1, p + 1):
        nxt = seat_add(cur, step, p)
        if G[L[B_HCOUNT] + nxt] > 0:
            G[G_CUR] = nxt
            G[G_TO_ACT] = nxt
            return
    end_round(K, G, rng)


@njit(**JIT)
def end_round(K, G, rng):
    """R-SCORE, then R-GAME-END and R-TIE; else the next round (R-NEW-ROUND, dealer moves left).

    Round wins (R-GAME-END ``round_wins``) go to every seat tied for the
    round's highest score. When the game ends, ``G_WINNERS`` holds the
    bitmask of the seats sharing the win, ``G_DONE`` is 1 and ``G_TO_ACT`` -1.
    A game still going after round ``max_rounds`` (``C_MAX_ROUNDS``, a simulator
    cap, not a printed rule) stops there with ``G_CAPPED`` = 1, as the reference
    engine: the highest total among the seats that could still win wins (ties share).
    ``G_ROUND_AUDIT`` gets the dollars in every stack and the discard pile
    (plus the cards left in draft piles, R-2P-DRAFT; R-SCORE invariant: ``rules.round_total(P)``).
    """
    cfg = K.cfg
    L = K.lay
    p = cfg[C_P]
    audit = 0
    for i in range(G[G_DISC_LEN]):
        audit += K.values[G[L[B_DISC] + i]]
    for s in range(p):
        audit += G[L[B_SVAL] + s]
    if cfg[C_DRAFT] != 0:  # leftover draft cards count with the discard pile (R-2P-DRAFT)
        audit += draft.leftover_value(K, G)
    G[G_ROUND_AUDIT] = audit
    best = -1
    for s in range(p):
        v = G[L[B_SVAL] + s]
        G[L[B_TOTAL] + s] += v
        best = max(best, v)
    for s in range(p):
        if G[L[B_SVAL] + s] == best:
            G[L[B_RWINS] + s] += 1
    cand = 0
    if G[G_ELIGIBLE] != 0:
        cand = G[G_ELIGIBLE]
    else:
        kind = cfg[C_END_KIND]
        if kind == END_TARGET:
            mx = G[L[B_TOTAL]]
            for s in range(1, p):
                mx = max(mx, G[L[B_TOTAL] + s])
            if mx >= cfg[C_TARGET]:
                cand = (1 << p) - 1
        elif kind == END_ROUNDS:
            if G[G_ROUND] >= cfg[C_END_PARAM]:
                cand = (1 << p) - 1
        else:
            for s in range(p):
                if G[L[B_RWINS] + s] >= cfg[C_END_PARAM]:
                    cand |= 1 << s
    if cand != 0:
        bt = -1
        for s in range(p):
            if (cand >> s) & 1 and G[L[B_TOTAL] + s] > bt:
                bt = G[L[B_TOTAL] + s]
        tied = 0
        nt = 0
        for s in range(p):
            if (cand >> s) & 1 and G[L[B_TOTAL] + s] == bt:
                tied |= 1 << s
                nt += 1
        if nt == 1 or cfg[C_TIE] == TIE_SHARE or G[G_EXTRA] >= cfg[C_MAX_EXTRA]:
            G[G_WINNERS] = tied
            G[G_DONE] = 1
            G[G_TO_ACT] = -1
            return
        G[G_ELIGIBLE] = tied
        G[G_EXTRA] += 1
    if G[G_ROUND] >= cfg[C_MAX_ROUNDS]:  # the simulator's round cap (RuleSet.max_rounds), as the reference
        cand = G[G_ELIGIBLE] if G[G_ELIGIBLE] != 0 else (1 << p) - 1
        bt = -1
        for s in range(p):
            if (cand >> s) & 1 and G[L[B_TOTAL] + s] > bt:
                bt = G[L[B_TOTAL] + s]
        tied = 0
        for s in range(p):
            if (cand >> s) & 1 and G[L[B_TOTAL] + s] == bt:
                tied |= 1 << s
        G[G_WINNERS] = tied
        G[G_CAPPED] = 1
        G[G_DONE] = 1
        G[G_TO_ACT] = -1
        return
    G[G_DEALER] = seat_add(G[G_DEALER], 1, p)
    start_round(K, G, rng)


@njit(**JIT)
def play_actions(K, G, rng, actions, n):
    """Apply ``actions[:n]`` in order, each checked with :func:`is_legal`; the index of the first illegal one, or -1."""
    for i in range(n):
        if not is_legal(K, G, actions[i]):
            return i
        apply_action(K, G, rng, actions[i])
    return -1


@njit(inline="always", **JIT)
def row_slots(K):
    """The offsets of the batch driver's scalars in a row: ``(G_DONE, G_TO_ACT, G_GAME_INDEX, G_QUEUE_POS)``."""
    return G_DONE, G_TO_ACT, G_GAME_INDEX, G_QUEUE_POS


# The classic family's implementation of the engine hooks (cya_sim.engine.hooks), chosen by its constants record.
hooks.implement_all(hooks, CONSTS_DTYPE.names, new_game=new_game, apply_action=apply_action, is_legal=is_legal_inline,
                    legal_list=legal_list, row_slots=row_slots)
#: The legal action mask of the seat to act: the shared :func:`cya_sim.engine.legal.legal_mask` for this game.
legal_mask = _shared_legal_mask.for_game(CONSTS_DTYPE.names)
