"""The theft game's compiled rules kernel: RULES.md §9 on one game row (the single compiled copy of its rules).

Every function takes ``K`` (the constants record of :func:`cya_sim.engine.theft.layout.make_consts`) and one
game row ``G`` ((W,) int64, :mod:`cya_sim.engine.theft.layout`); those that may draw cards also take
``rng``, the (4,) uint64 PCG64 engine stream (:mod:`cya_sim.engine.pcg`, bit for bit as
:mod:`cya_sim.game.rng`). They mirror the reference engine (:mod:`cya_sim.engine.theft.reference` and
:mod:`cya_sim.engine.theft.legal`, the readable specification) step for step, so that both play identical
games from identical seeds (``tests/test_theft_differential.py``):

* :func:`new_game` — R-T-DECK and R-T-SETUP (first player, shuffle, deal, who lays a first asset);
* :func:`apply_action` with :func:`_start_turn`, :func:`_draw`, :func:`_finish_turn` and
  :func:`_answer_theft` — R-T-TURN with every defence option, the turn cap;
* :func:`_end_game` — R-T-END;
* the legal actions — one predicate per rule (:func:`pair_ok`, :func:`theft_target_ok`,
  :func:`cancel_pair_ok`, :func:`give_up_ok`, :func:`cancel_gold_ok`), used both by
  :func:`legal_list` (ids ascending, the ids of :class:`~cya_sim.game.theft.actions.TheftActionSpace`)
  and by :func:`is_legal`.

Nothing here knows about agents: a policy (``agents/theft/compiled.py``) reads a row and returns an
action id; the play loop (:mod:`cya_sim.play.loop`) checks it with :func:`is_legal` and applies it.
"""

from __future__ import annotations

from numba import njit

from cya_sim.engine import hooks
from cya_sim.engine.cache_guard import invalidate_stale_caches
from cya_sim.engine.jit import JIT
from cya_sim.engine.legal import legal_mask as _shared_legal_mask
from cya_sim.engine.pcg import next_double, shuffle
from cya_sim.engine.seats import seat_add
from cya_sim.engine.theft.layout import (
    A_C0,
    A_C1,
    A_KNOWN0,
    A_VALUE,
    A_WORDS,
    B_ASSETS,
    B_DCOUNT,
    B_DECK,
    B_DISC,
    B_HANDS,
    B_HCOUNT,
    B_NASSETS,
    B_POINTS,
    C_A,
    C_A_BUILD,
    C_A_CANCEL,
    C_A_DISC,
    C_A_END,
    C_A_GIVE,
    C_A_GOLD,
    C_A_PASS,
    C_A_THEFT,
    C_COMPULSORY,
    C_DEF_ASSET,
    C_DEF_TARGETED,
    C_DRAW,
    C_EOT,
    C_GG_PAIR,
    C_GOLD,
    C_GTHEFT,
    C_HAND,
    C_LIMIT,
    C_MAX_THEFTS,
    C_MAX_TURNS,
    C_N,
    C_NC,
    C_P,
    C_PAIR_ONLY,
    C_PAIRS,
    C_PER_CARD,
    C_PROTECT,
    C_S,
    C_SINGLE_GOLD,
    C_T,
    C_TARGET_VALUE,
    C_THEFT,
    C_TO_END,
    CONSTS_DTYPE,
    EOT_DRAW_UP,
    EOT_KEEP,
    G_CANCELLED,
    G_CAPPED,
    G_CUR,
    G_DECISIONS,
    G_DISC_LEN,
    G_DONE,
    G_DRAW_END,
    G_DRAW_POS,
    G_FINAL_LEFT,
    G_FIRST,
    G_GAME_INDEX,
    G_LARGEST_STEAL,
    G_PHASE,
    G_QUEUE_POS,
    G_TH_CARD,
    G_TH_SLOT,
    G_TH_TARGET,
    G_TH_THIEF,
    G_THEFTS,
    G_THEFTS_TURN,
    G_TO_ACT,
    G_TRIGGER,
    G_TURNS,
    G_WINNERS,
    N_SCALARS,
    PH_DEFENCE,
    PH_DISCARD,
    PH_OVER,
    PH_PLAY,
    PH_SETUP,
)

invalidate_stale_caches("theft")  # numba's disk cache does not track the kernels linked across modules



@njit(**JIT)
def asset_at(K, seat, slot):
    """Offset in a row of the first word of ``seat``'s asset ``slot`` (``B_ASSETS``, four words per asset)."""
    return K.lay[B_ASSETS] + (seat * K.cfg[C_S] + slot) * A_WORDS


@njit(**JIT)
def pair_cards(K, i):
    """The two card types of pair index ``i`` (``build`` and ``cancel_pair``): ``2n`` is number n+1 twice,
    ``2n + 1`` number n+1 with a gold card, ``2N`` two gold cards (:class:`~cya_sim.game.theft.actions.TheftActionSpace`)."""
    gold = K.cfg[C_GOLD]
    if i == 2 * K.cfg[C_N]:
        return gold, gold
    c = i >> 1
    if i & 1:
        return c, gold
    return c, c


@njit(**JIT)
def holds(K, G, seat, a, b):
    """Whether ``seat``'s hand holds cards ``a`` and ``b`` (two copies when ``a == b``)."""
    h0 = K.lay[B_HANDS] + seat * K.cfg[C_T]
    if a == b:
        return G[h0 + a] >= 2
    return G[h0 + a] >= 1 and G[h0 + b] >= 1


@njit(**JIT)
def pair_ok(K, G, seat, i):
    """R-T-TURN: pair ``i`` is a pair (two gold cards only under ``gold_gold_pair``) and ``seat`` holds it."""
    a, b = pair_cards(K, i)
    if a == b and a == K.cfg[C_GOLD] and not K.cfg[C_GG_PAIR]:
        return False
    return holds(K, G, seat, a, b)


@njit(**JIT)
def is_pair_asset(K, c0, c1):
    """R-T-TURN ``give_up_pair_only``: an asset of cards ``c0``, ``c1`` is itself a pair (equal numbers, or a
    number with a gold card; two gold cards only under ``gold_gold_pair``)."""
    g = K.cfg[C_GOLD]
    a = min(c0, c1)
    b = max(c0, c1)
    return (a == b and a < g) or (a < g and b == g) or (a == b and a == g and K.cfg[C_GG_PAIR] != 0)


@njit(**JIT)
def may_steal(K, G):
    """R-T-TURN ``max_thefts_per_turn``: the mover may play another theft card this turn."""
    m = K.cfg[C_MAX_THEFTS]
    return m == 0 or G[G_THEFTS_TURN] < m


@njit(**JIT)
def theft_target_ok(K, G, seat, off, slot):
    """R-T-TURN: ``seat`` may put a theft card on asset ``slot`` of the seat ``off`` places on (1..P-1): any
    asset of another player; under ``protect_last_asset`` not a player's only asset."""
    p = K.cfg[C_P]
    if off < 1 or off >= p:
        return False
    n = G[K.lay[B_NASSETS] + seat_add(seat, off, p)]
    if slot >= n:
        return False
    return not (K.cfg[C_PROTECT] and n == 1)


@njit(**JIT)
def cancel_pair_ok(K, G, i):
    """R-T-TURN defence: pair ``i`` from the target's hand cancels the pending theft.

    The target holds it (:func:`pair_ok`); against a gold theft it includes a gold card
    (``gold_theft_cancel = pair_with_gold``; under ``single_gold`` no pair cancels it); under
    ``cancel_pair_value = target_value`` its points equal the targeted asset's.
    """
    cfg = K.cfg
    target = G[G_TH_TARGET]
    if not pair_ok(K, G, target, i):
        return False
    gold = cfg[C_GOLD]
    gold_theft = G[G_TH_CARD] == cfg[C_GTHEFT]
    if gold_theft and cfg[C_SINGLE_GOLD]:
        return False
    a, b = pair_cards(K, i)
    if gold_theft and a != gold and b != gold:
        return False
    if not cfg[C_TARGET_VALUE]:
        return True
    return K.values[a] + K.values[b] == G[asset_at(K, target, G[G_TH_SLOT]) + A_VALUE]


@njit(**JIT)
def give_up_ok(K, G, slot):
    """R-T-TURN defence: the target may cancel the pending theft by giving up its own asset ``slot``.

    Under ``defend_with_asset`` only; the targeted asset only under ``defend_with_targeted_asset``;
    against a gold theft only an asset holding a gold card; under ``give_up_pair_only`` only an asset
    that is itself a pair (:func:`is_pair_asset`).
    """
    cfg = K.cfg
    if not cfg[C_DEF_ASSET]:
        return False
    target = G[G_TH_TARGET]
    if slot < 0 or slot >= G[K.lay[B_NASSETS] + target]:
        return False
    if slot == G[G_TH_SLOT] and not cfg[C_DEF_TARGETED]:
        return False
    o = asset_at(K, target, slot)
    c0 = G[o + A_C0]
    c1 = G[o + A_C1]
    gold = cfg[C_GOLD]
    if G[G_TH_CARD] == cfg[C_GTHEFT] and c0 != gold and c1 != gold:
        return False
    return not cfg[C_PAIR_ONLY] or is_pair_asset(K, c0, c1)


@njit(**JIT)
def cancel_gold_ok(K, G):
    """R-T-TURN defence, ``gold_theft_cancel = single_gold``: one gold card from the target's hand cancels the
    gold theft (action ``cancel_gold``)."""
    cfg = K.cfg
    if not cfg[C_SINGLE_GOLD] or G[G_TH_CARD] != cfg[C_GTHEFT]:
        return False
    return G[K.lay[B_HANDS] + G[G_TH_TARGET] * cfg[C_T] + cfg[C_GOLD]] > 0


@njit(**JIT)
def can_cancel(K, G):
    """Whether the target of the pending theft has any legal cancel (R-T-TURN ``compulsory_defence``)."""
    for i in range(K.cfg[C_PAIRS]):
        if cancel_pair_ok(K, G, i):
            return True
    for slot in range(G[K.lay[B_NASSETS] + G[G_TH_TARGET]]):
        if give_up_ok(K, G, slot):
            return True
    return cancel_gold_ok(K, G)


@njit(**JIT)
def _theft_of(K, i):
    """(gold theft: 0/1, offset 1..M-1, slot) of index ``i`` in the ``theft`` block."""
    per = K.cfg[C_PER_CARD]
    gold = 0
    if i >= per:
        gold = 1
        i -= per
    s = K.cfg[C_S]
    return gold, i // s + 1, i % s


@njit(**JIT)
def is_legal(K, G, a):
    """Whether action id ``a`` is legal for the seat to act (bool): ``legal_action_mask(state)[a]`` of the reference
    (R-T-SETUP, R-T-TURN); False when the game is over or ``a`` is outside ``0..A-1``."""
    cfg = K.cfg
    seat = G[G_TO_ACT]
    if seat < 0 or a < 0 or a >= cfg[C_A]:
        return False
    ph = G[G_PHASE]
    if ph == PH_SETUP:  # R-T-SETUP: any two asset cards of the hand, one face-down, one face-up
        if a >= cfg[C_A_BUILD]:
            return False
        w = cfg[C_N] + 1
        return holds(K, G, seat, a // w, a % w)
    if ph == PH_PLAY:
        if a >= cfg[C_A_BUILD] and a < cfg[C_A_THEFT]:
            return pair_ok(K, G, seat, a - cfg[C_A_BUILD])
        if a >= cfg[C_A_THEFT] and a < cfg[C_A_END]:
            if not may_steal(K, G):
                return False
            gold, off, slot = _theft_of(K, a - cfg[C_A_THEFT])
            card = cfg[C_GTHEFT] if gold else cfg[C_THEFT]
            if G[K.lay[B_HANDS] + seat * cfg[C_T] + card] <= 0:
                return False
            return theft_target_ok(K, G, seat, off, slot)
        return a == cfg[C_A_END]
    if ph == PH_DISCARD:
        if a < cfg[C_A_DISC] or a >= cfg[C_A_CANCEL]:
            return False
        return G[K.lay[B_HANDS] + seat * cfg[C_T] + a - cfg[C_A_DISC]] > 0
    if ph == PH_DEFENCE:
        if a >= cfg[C_A_CANCEL] and a < cfg[C_A_GIVE]:
            return cancel_pair_ok(K, G, a - cfg[C_A_CANCEL])
        if a >= cfg[C_A_GIVE] and a < cfg[C_A_PASS]:
            return give_up_ok(K, G, a - cfg[C_A_GIVE])
        if a == cfg[C_A_PASS]:
            return not (cfg[C_COMPULSORY] and can_cancel(K, G))
        if a == cfg[C_A_GOLD]:
            return cancel_gold_ok(K, G)
    return False


@njit(**JIT)
def legal_list(K, G, out):
    """The legal action ids of the seat to act, ascending, into ``out`` ((A,) int64); returns how many.

    The same set as :func:`is_legal` and as the reference's ``legal_action_mask`` (R-T-SETUP, R-T-TURN);
    0 when the game is over.
    """
    cfg = K.cfg
    seat = G[G_TO_ACT]
    if seat < 0:
        return 0
    n = 0
    ph = G[G_PHASE]
    h0 = K.lay[B_HANDS] + seat * cfg[C_T]
    if ph == PH_SETUP:
        w = cfg[C_N] + 1
        for d in range(w):
            if G[h0 + d] == 0:
                continue
            for u in range(w):
                if holds(K, G, seat, d, u):
                    out[n] = d * w + u
                    n += 1
        return n
    if ph == PH_PLAY:
        b0 = cfg[C_A_BUILD]
        for i in range(cfg[C_PAIRS]):
            if pair_ok(K, G, seat, i):
                out[n] = b0 + i
                n += 1
        if may_steal(K, G):
            p = cfg[C_P]
            s = cfg[C_S]
            nb = K.lay[B_NASSETS]
            for gold in range(2):
                card = cfg[C_GTHEFT] if gold else cfg[C_THEFT]
                if G[h0 + card] <= 0:
                    continue
                base = cfg[C_A_THEFT] + gold * cfg[C_PER_CARD]
                for off in range(1, p):
                    m = G[nb + seat_add(seat, off, p)]
                    if cfg[C_PROTECT] and m == 1:
                        continue
                    for slot in range(m):
                        out[n] = base + (off - 1) * s + slot
                        n += 1
        out[n] = cfg[C_A_END]
        return n + 1
    if ph == PH_DISCARD:
        for c in range(cfg[C_T]):
            if G[h0 + c] > 0:
                out[n] = cfg[C_A_DISC] + c
                n += 1
        return n
    if ph == PH_DEFENCE:
        for i in range(cfg[C_PAIRS]):
            if cancel_pair_ok(K, G, i):
                out[n] = cfg[C_A_CANCEL] + i
                n += 1
        for slot in range(G[K.lay[B_NASSETS] + G[G_TH_TARGET]]):
            if give_up_ok(K, G, slot):
                out[n] = cfg[C_A_GIVE] + slot
                n += 1
        gold_ok = cancel_gold_ok(K, G)
        if not (cfg[C_COMPULSORY] and (n > 0 or gold_ok)):
            out[n] = cfg[C_A_PASS]
            n += 1
        if gold_ok:
            out[n] = cfg[C_A_GOLD]
            n += 1
    return n


# -- R-T-DECK, R-T-SETUP -------------------------------------------------------------------------------
@njit(**JIT)
def new_game(K, G, rng):
    """Clear row ``G`` and set up a game (R-T-DECK, R-T-SETUP), as :func:`cya_sim.engine.theft.reference.new_game`.

    ``rng`` is the game's engine stream (stream 0 of :mod:`cya_sim.game.rng`): the first player is
    ``floor(u * P)`` of its first draw, then the deck (card types in id order) is shuffled and dealt one
    card at a time starting with the first player. The row is left at the first decision: the first
    seat (from the first player on) that can lay a first asset. Row bookkeeping (``G_GAME_INDEX``,
    ``G_QUEUE_POS``) is the caller's.
    """
    cfg = K.cfg
    L = K.lay
    p = cfg[C_P]
    t = cfg[C_T]
    gi = G[G_GAME_INDEX]  # the row's bookkeeping survives the clearing
    qp = G[G_QUEUE_POS]
    for i in range(N_SCALARS):
        G[i] = 0
    for i in range(p):
        G[L[B_HCOUNT] + i] = 0
        G[L[B_NASSETS] + i] = 0
        G[L[B_POINTS] + i] = 0
    for i in range(p * t):
        G[L[B_HANDS] + i] = 0
    for c in range(t):
        G[L[B_DCOUNT] + c] = 0
    G[G_GAME_INDEX] = gi
    G[G_QUEUE_POS] = qp
    G[G_FINAL_LEFT] = -1
    G[G_TRIGGER] = -1
    first = int(next_double(rng) * p)
    d0 = L[B_DECK]
    nc = cfg[C_NC]
    k = 0
    for c in range(t):
        for _ in range(K.counts[c]):
            G[d0 + k] = c
            k += 1
    shuffle(G[d0:d0 + nc], rng)
    pos = 0
    for _ in range(cfg[C_HAND]):
        for i in range(p):
            s = seat_add(first, i, p)
            G[L[B_HANDS] + s * t + G[d0 + pos]] += 1
            G[L[B_HCOUNT] + s] += 1
            pos += 1
    G[G_DRAW_POS] = pos
    G[G_DRAW_END] = nc
    G[G_FIRST] = first
    G[G_PHASE] = PH_SETUP
    _next_setup_seat(K, G, rng, first)


@njit(**JIT)
def _asset_cards_in_hand(K, G, seat):
    cfg = K.cfg
    h0 = K.lay[B_HANDS] + seat * cfg[C_T]
    return G[K.lay[B_HCOUNT] + seat] - G[h0 + cfg[C_THEFT]] - G[h0 + cfg[C_GTHEFT]]


@njit(**JIT)
def _next_setup_seat(K, G, rng, seat):
    """R-T-SETUP: the setup moves to ``seat`` or the next seat after it holding two asset cards; back at the
    first player, play starts (a seat dealt fewer than two asset cards lays no first asset)."""
    p = K.cfg[C_P]
    first = G[G_FIRST]
    while True:
        if _asset_cards_in_hand(K, G, seat) >= 2:
            G[G_CUR] = seat
            G[G_TO_ACT] = seat
            return
        seat = seat_add(seat, 1, p)
        if seat == first:
            _start_turn(K, G, rng, first)
            return


# -- R-T-TURN -----------------------------------------------------------------------------------------
@njit(**JIT)
def _discard(K, G, card):
    """Put ``card`` on the discard pile (public: its count by type too)."""
    L = K.lay
    G[L[B_DISC] + G[G_DISC_LEN]] = card
    G[G_DISC_LEN] += 1
    G[L[B_DCOUNT] + card] += 1


@njit(**JIT)
def _draw(K, G, rng, seat, k):
    """R-T-TURN: ``seat`` draws up to ``k`` cards; an empty draw pile is replaced by the discard pile, shuffled
    with ``rng`` (fewer cards when both piles run out)."""
    cfg = K.cfg
    L = K.lay
    d0 = L[B_DECK]
    h0 = L[B_HANDS] + seat * cfg[C_T]
    for _ in range(k):
        if G[G_DRAW_POS] >= G[G_DRAW_END]:
            n = G[G_DISC_LEN]
            if n == 0:
                break
            for i in range(n):
                G[d0 + i] = G[L[B_DISC] + i]
            for c in range(cfg[C_T]):
                G[L[B_DCOUNT] + c] = 0
            G[G_DISC_LEN] = 0
            shuffle(G[d0:d0 + n], rng)
            G[G_DRAW_POS] = 0
            G[G_DRAW_END] = n
        card = G[d0 + G[G_DRAW_POS]]
        G[G_DRAW_POS] += 1
        G[h0 + card] += 1
        G[L[B_HCOUNT] + seat] += 1


@njit(**JIT)
def _start_turn(K, G, rng, seat):
    """R-T-TURN: ``seat`` draws ``draw_per_turn`` cards and plays; past ``max_turns`` the game stops (capped)."""
    cfg = K.cfg
    if G[G_TURNS] >= cfg[C_MAX_TURNS]:
        G[G_CAPPED] = 1
        _end_game(K, G)
        return
    G[G_TURNS] += 1
    G[G_PHASE] = PH_PLAY
    G[G_CUR] = seat
    G[G_TO_ACT] = seat
    G[G_THEFTS_TURN] = 0
    _draw(K, G, rng, seat, cfg[C_DRAW])


@njit(**JIT)
def _finish_turn(K, G, rng):
    """End of a turn: draw up under ``discard_and_draw_up``, then R-T-END, then the next seat's turn."""
    cfg = K.cfg
    L = K.lay
    seat = G[G_CUR]
    p = cfg[C_P]
    if cfg[C_EOT] == EOT_DRAW_UP and G[L[B_HCOUNT] + seat] < cfg[C_LIMIT]:
        _draw(K, G, rng, seat, cfg[C_LIMIT] - G[L[B_HCOUNT] + seat])
    if G[G_FINAL_LEFT] < 0:
        for k in range(p):
            s = seat_add(seat, k, p)
            if G[L[B_NASSETS] + s] >= cfg[C_TO_END]:
                G[G_TRIGGER] = s
                G[G_FINAL_LEFT] = p - 1
                break
    else:
        G[G_FINAL_LEFT] -= 1
    if G[G_FINAL_LEFT] == 0:
        _end_game(K, G)
        return
    _start_turn(K, G, rng, seat_add(seat, 1, p))


@njit(**JIT)
def _end_game(K, G):
    """R-T-END: each seat scores the points of its assets; the highest total wins, ties share (``G_WINNERS``)."""
    L = K.lay
    p = K.cfg[C_P]
    best = -(1 << 62)
    for s in range(p):
        v = 0
        for slot in range(G[L[B_NASSETS] + s]):
            v += G[asset_at(K, s, slot) + A_VALUE]
        G[L[B_POINTS] + s] = v
        best = max(best, v)
    w = 0
    for s in range(p):
        if G[L[B_POINTS] + s] == best:
            w |= 1 << s
    G[G_WINNERS] = w
    G[G_PHASE] = PH_OVER
    G[G_TO_ACT] = -1
    G[G_DONE] = 1


@njit(**JIT)
def _push_asset(K, G, seat, c0, c1, known0):
    """A new asset [c0, c1] (``known0``: knowers of c0; c1 is public) at the end of ``seat``'s assets."""
    L = K.lay
    n = G[L[B_NASSETS] + seat]
    o = asset_at(K, seat, n)
    G[o + A_C0] = c0
    G[o + A_C1] = c1
    G[o + A_KNOWN0] = known0
    G[o + A_VALUE] = K.values[c0] + K.values[c1]
    G[L[B_NASSETS] + seat] = n + 1


@njit(**JIT)
def _pop_asset(K, G, seat, slot):
    """Remove ``seat``'s asset ``slot``; later assets move down one slot (the reference's ``list.pop``)."""
    L = K.lay
    n = G[L[B_NASSETS] + seat]
    o = asset_at(K, seat, slot)
    for i in range((n - 1 - slot) * A_WORDS):
        G[o + i] = G[o + A_WORDS + i]
    G[L[B_NASSETS] + seat] = n - 1


@njit(**JIT)
def _answer_theft(K, G, a):
    """R-T-TURN defence with action ``a``: cancel with a pair from hand, one gold card (``single_gold``) or an own
    asset given up, or let the asset pass to the thief (who then knows its hidden card).

    The theft card and the cancelling cards go to the discard pile, in the reference's order.
    """
    cfg = K.cfg
    L = K.lay
    target = G[G_TH_TARGET]
    thief = G[G_TH_THIEF]
    card = G[G_TH_CARD]
    h0 = L[B_HANDS] + target * cfg[C_T]
    if a >= cfg[C_A_CANCEL] and a < cfg[C_A_GIVE]:
        x, y = pair_cards(K, a - cfg[C_A_CANCEL])
        G[h0 + x] -= 1
        G[h0 + y] -= 1
        G[L[B_HCOUNT] + target] -= 2
        _discard(K, G, card)
        _discard(K, G, x)
        _discard(K, G, y)
        G[G_CANCELLED] += 1
    elif a == cfg[C_A_GOLD] and a < cfg[C_A]:
        g = cfg[C_GOLD]
        G[h0 + g] -= 1
        G[L[B_HCOUNT] + target] -= 1
        _discard(K, G, card)
        _discard(K, G, g)
        G[G_CANCELLED] += 1
    elif a >= cfg[C_A_GIVE] and a < cfg[C_A_PASS]:
        slot = a - cfg[C_A_GIVE]
        o = asset_at(K, target, slot)
        c0 = G[o + A_C0]
        c1 = G[o + A_C1]
        _pop_asset(K, G, target, slot)
        _discard(K, G, card)
        _discard(K, G, c0)
        _discard(K, G, c1)
        G[G_CANCELLED] += 1
    else:  # let_pass
        o = asset_at(K, target, G[G_TH_SLOT])
        c0 = G[o + A_C0]
        c1 = G[o + A_C1]
        known0 = G[o + A_KNOWN0] | (1 << thief)
        value = G[o + A_VALUE]
        _pop_asset(K, G, target, G[G_TH_SLOT])
        _push_asset(K, G, thief, c0, c1, known0)
        _discard(K, G, card)
        G[G_LARGEST_STEAL] = max(G[G_LARGEST_STEAL], value)
    G[G_PHASE] = PH_PLAY
    G[G_TO_ACT] = G[G_CUR]


@njit(**JIT)
def apply_action(K, G, rng, a):
    """Apply legal action ``a`` for the seat to act (R-T-SETUP, R-T-TURN, R-T-END), then go on to the next decision.

    As :func:`cya_sim.engine.theft.reference.apply_action` (which checks legality; here the caller does, with
    :func:`is_legal`). ``rng`` is the row's engine stream (reshuffles).
    """
    cfg = K.cfg
    L = K.lay
    p = cfg[C_P]
    t = cfg[C_T]
    seat = G[G_TO_ACT]
    h0 = L[B_HANDS] + seat * t
    G[G_DECISIONS] += 1
    if a < cfg[C_A_BUILD]:  # R-T-SETUP: a first asset, one card face-down (known to its owner), one face-up
        w = cfg[C_N] + 1
        down = a // w
        up = a - down * w
        G[h0 + down] -= 1
        G[h0 + up] -= 1
        G[L[B_HCOUNT] + seat] -= 2
        _push_asset(K, G, seat, down, up, 1 << seat)
        nxt = seat_add(seat, 1, p)
        if nxt == G[G_FIRST]:
            _start_turn(K, G, rng, nxt)
        else:
            _next_setup_seat(K, G, rng, nxt)
    elif a < cfg[C_A_THEFT]:  # R-T-TURN: build a pair into a public asset
        x, y = pair_cards(K, a - cfg[C_A_BUILD])
        G[h0 + x] -= 1
        G[h0 + y] -= 1
        G[L[B_HCOUNT] + seat] -= 2
        _push_asset(K, G, seat, x, y, (1 << p) - 1)
    elif a < cfg[C_A_END]:  # R-T-TURN: a theft card on another player's asset; the target answers
        gold, off, slot = _theft_of(K, a - cfg[C_A_THEFT])
        card = cfg[C_GTHEFT] if gold else cfg[C_THEFT]
        G[h0 + card] -= 1
        G[L[B_HCOUNT] + seat] -= 1
        target = seat_add(seat, off, p)
        G[G_TH_THIEF] = seat
        G[G_TH_TARGET] = target
        G[G_TH_SLOT] = slot
        G[G_TH_CARD] = card
        G[G_THEFTS_TURN] += 1
        G[G_THEFTS] += 1
        G[G_PHASE] = PH_DEFENCE
        G[G_TO_ACT] = target
    elif a == cfg[C_A_END]:  # end of the turn: discard down to hand_limit unless end_of_turn = keep
        if cfg[C_EOT] != EOT_KEEP and G[L[B_HCOUNT] + seat] > cfg[C_LIMIT]:
            G[G_PHASE] = PH_DISCARD
        else:
            _finish_turn(K, G, rng)
    elif a < cfg[C_A_CANCEL]:  # R-T-TURN end of turn: discard one card
        c = a - cfg[C_A_DISC]
        G[h0 + c] -= 1
        G[L[B_HCOUNT] + seat] -= 1
        _discard(K, G, c)
        if G[L[B_HCOUNT] + seat] <= cfg[C_LIMIT]:
            _finish_turn(K, G, rng)
    else:
        _answer_theft(K, G, a)


@njit(**JIT)
def play_actions(K, G, rng, actions, n):
    """Apply the first ``n`` of ``actions`` ((L,) int) in order; the number applied before one was illegal.

    For tests and tools: a logged game replayed on a row.
    """
    for i in range(n):
        if not is_legal(K, G, actions[i]):
            return i
        apply_action(K, G, rng, actions[i])
    return n



@njit(inline="always", **JIT)
def row_slots(K):
    """The offsets of the batch driver's scalars in a row: ``(G_DONE, G_TO_ACT, G_GAME_INDEX, G_QUEUE_POS)``."""
    return G_DONE, G_TO_ACT, G_GAME_INDEX, G_QUEUE_POS


# The theft game's implementation of the engine hooks (cya_sim.engine.hooks), chosen by its constants record.
hooks.implement_all(hooks, CONSTS_DTYPE.names, new_game=new_game, apply_action=apply_action, is_legal=is_legal,
                    legal_list=legal_list, row_slots=row_slots)
#: The legal action mask of the seat to act: the shared :func:`cya_sim.engine.legal.legal_mask` for this game.
legal_mask = _shared_legal_mask.for_game(CONSTS_DTYPE.names)

__all__ = ["apply_action", "is_legal", "legal_list", "legal_mask", "new_game", "play_actions", "row_slots"]
