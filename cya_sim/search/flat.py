"""A flat, single-game copy of the batched engine's rules for the search's inner loop.

Why a copy: the batched engine's kernels take the batch state as a named tuple
of about sixty arrays; every time numba passes or binds that tuple it adds and
drops a reference on each array, about a microsecond, and a rollout does that
several times per action (measured: ~2,500 ISMCTS iterations per second). The
search instead keeps one game in **one int64 array** ``G`` (offsets in the
layout array ``L``), so copying a game is one ``memcpy`` and the kernels below
pass a handful of arrays (measured: over 25,000 iterations per second, and a
cold compile of about half a minute; forcing numba's ``inline="always"`` on
them was no faster and compiled ten times slower). The kernels run without
numba's reference counting (``_nrt=False``; they allocate nothing), which took
the speed from about 63,000 to about 88,000 iterations per second.

The rules are those of :mod:`cya_sim.engine.batched.kernels`, line for line
(R-PAIR-HAND, R-PAIR-DISCARD, R-DISCARD, R-CHALLENGE, R-CH-EXCHANGE,
R-HIDDEN-WILD knowledge of each set's first card, R-CH-ONE, R-REFILL, R-TURN,
R-ROUND-END, R-SCORE, R-GAME-END, R-TIE, R-NEW-ROUND with a shuffle from the
search's own stream), and :func:`greedy_act` / :func:`random_act` decide as
:func:`agents.compiled.greedy_act` / ``random_act``.
``tests/test_search_flat.py`` checks the equality action by action against the
batched engine. Set card counts are not kept (no rule or policy of a rollout
reads them; a seat's unseen cards are counted from where the cards are,
:func:`unseen_flat`); everything else is.

Layout of ``G`` (int64): scalars at the ``G_*`` offsets, then blocks whose
start is ``L[B_*]``: per seat (P each) hand count, stack top slot, stack
length, stack value ($), total ($), played flag, round wins; hands (P*T);
the round's deck order (N, draw pile = ``deck[draw_pos:]``); discard pile (N);
per set slot (S each) asset, value ($), first card, first card's knower
bitmask, slot below; challenge cards and players (CAP each); per seat (P)
the public give-up record as a bitmask over card types (bit ``c`` = the
seat gave up a challenge over asset type ``c`` and has drawn no card since,
RULES.md §10, the batched engine's ``gave_up``); per set slot (S) its number
of cards.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cya_sim.engine.batched import kernels as kn
from cya_sim.engine.batched.pcg import next_double

# scalars
G_TO_ACT, G_CUR, G_DEALER, G_ROUND, G_DRAW_POS, G_DISC_LEN, G_N_SETS, G_CH_ACTIVE = 0, 1, 2, 3, 4, 5, 6, 7
G_CH_CHAL, G_CH_DEF, G_CH_ASSET, G_CH_LEN, G_DONE, G_WINNERS, G_ELIGIBLE, G_EXTRA = 8, 9, 10, 11, 12, 13, 14, 15
N_SCALARS = 16
# block starts in L
(B_HCOUNT, B_STOP, B_SLEN, B_SVAL, B_TOTAL, B_PLAYED, B_RWINS, B_HANDS, B_DECK, B_DISC,
 B_SASSET, B_SVALUE, B_SCARD0, B_SKNOWN0, B_SBELOW, B_CHCARDS, B_CHPLAYERS, B_GAVEUP, B_SSIZE, B_SIZE) = range(20)
N_LAYOUT = 20


def layout(cfg: np.ndarray) -> np.ndarray:
    """(N_LAYOUT,) int64 block starts of ``G`` for the batched engine's ``cfg``; ``L[B_SIZE]`` = len(G)."""
    p, t, n, s, cap = (int(cfg[i]) for i in (kn.C_P, kn.C_T, kn.C_N, kn.C_S, kn.C_CAP))
    sizes = [p, p, p, p, p, p, p, p * t, n, n, s, s, s, s, s, cap, cap, p, s]
    out = np.zeros(N_LAYOUT, np.int64)
    pos = N_SCALARS
    for i, z in enumerate(sizes):
        out[i] = pos
        pos += z
    out[B_SIZE] = pos
    return out


@njit(cache=True, _nrt=False)
def pack_row(K, S, b, L, G):
    """Copy row ``b`` of the batched state into the flat game ``G`` ((L[B_SIZE],) int64)."""
    cfg = K.cfg
    p, t, n = cfg[kn.C_P], cfg[kn.C_T], cfg[kn.C_N]
    G[:] = 0
    G[G_TO_ACT] = S.to_act[b]
    G[G_CUR] = S.current_player[b]
    G[G_DEALER] = S.dealer[b]
    G[G_ROUND] = S.round[b]
    G[G_DRAW_POS] = S.draw_pos[b]
    G[G_DISC_LEN] = S.discard_len[b]
    G[G_N_SETS] = S.n_sets[b]
    G[G_CH_ACTIVE] = 1 if S.ch_active[b] else 0
    G[G_CH_CHAL] = S.ch_challenger[b]
    G[G_CH_DEF] = S.ch_defender[b]
    G[G_CH_ASSET] = S.ch_asset[b]
    G[G_CH_LEN] = S.ch_len[b]
    G[G_DONE] = 1 if S.done[b] else 0
    G[G_WINNERS] = S.winners[b]
    G[G_ELIGIBLE] = S.eligible[b]
    G[G_EXTRA] = S.extra_rounds[b]
    for s in range(p):
        G[L[B_HCOUNT] + s] = S.hand_count[b, s]
        G[L[B_STOP] + s] = S.stack_top[b, s]
        G[L[B_SLEN] + s] = S.stack_len[b, s]
        G[L[B_SVAL] + s] = S.stack_value[b, s]
        G[L[B_TOTAL] + s] = S.totals[b, s]
        G[L[B_PLAYED] + s] = 1 if S.played[b, s] else 0
        G[L[B_RWINS] + s] = S.round_wins[b, s]
        gmask = 0
        for c in range(t):
            G[L[B_HANDS] + s * t + c] = S.hands[b, s, c]
            if S.gave_up[b, s, c]:
                gmask |= 1 << c
        G[L[B_GAVEUP] + s] = gmask
    for i in range(n):
        G[L[B_DECK] + i] = S.deck_order[b, i]
        G[L[B_DISC] + i] = S.discard[b, i]
    for st in range(S.n_sets[b]):
        G[L[B_SASSET] + st] = S.set_asset[b, st]
        G[L[B_SVALUE] + st] = S.set_value[b, st]
        G[L[B_SCARD0] + st] = S.set_card0[b, st]
        G[L[B_SKNOWN0] + st] = S.set_known0[b, st]
        G[L[B_SBELOW] + st] = S.set_below[b, st]
        G[L[B_SSIZE] + st] = S.set_size[b, st]
    for i in range(S.ch_len[b]):
        G[L[B_CHCARDS] + i] = S.ch_cards[b, i]
        G[L[B_CHPLAYERS] + i] = S.ch_players[b, i]


@njit(cache=True, _nrt=False)
def value_seen(values, L, G, st, observer):
    """Dollars of set slot ``st`` as ``observer`` sees it (hidden first card at the asset's value)."""
    v = G[L[B_SVALUE] + st]
    if (G[L[B_SKNOWN0] + st] >> observer) & 1 == 0:
        v += values[G[L[B_SASSET] + st]] - values[G[L[B_SCARD0] + st]]
    return v


@njit(cache=True, _nrt=False)
def is_legal(cfg, L, G, a):
    """Whether action ``a`` is legal for the seat to act (as ``kernels.is_legal``)."""
    seat = G[G_TO_ACT]
    if seat < 0 or a < 0 or a >= cfg[kn.C_A]:
        return False
    na = cfg[kn.C_NA]
    w = cfg[kn.C_W]
    t = cfg[kn.C_T]
    h0 = L[B_HANDS] + seat * t
    if G[G_CH_ACTIVE]:
        if a == cfg[kn.C_GU]:
            return True
        if a >= cfg[kn.C_RE] and a < cfg[kn.C_GU]:
            k = a - cfg[kn.C_RE]
            card = G[G_CH_ASSET] if k == 0 else na + k - 1
            return G[h0 + card] > 0
        return False
    if a < cfg[kn.C_PD]:
        asset = a // w
        k = a % w
        if k == 0:
            return G[h0 + asset] >= 2
        return G[h0 + asset] >= 1 and G[h0 + na + k - 1] >= 1
    if a < cfg[kn.C_CH]:
        c = a - cfg[kn.C_PD]
        n = G[G_DISC_LEN]
        if n == 0 or G[h0 + c] == 0:
            return False
        top = G[L[B_DISC] + n - 1]
        top_wild = top >= na
        c_wild = c >= na
        if top_wild and c_wild:
            return False
        return top_wild or c_wild or c == top
    if a < cfg[kn.C_DI]:
        i = a - cfg[kn.C_CH]
        offset = i // w + 1
        k = i % w
        p = cfg[kn.C_P]
        if offset >= p:
            return False
        target = (seat + offset) % p
        if G[L[B_SLEN] + seat] < 1 or G[L[B_SLEN] + target] < 2:
            return False
        card = G[L[B_SASSET] + G[L[B_STOP] + target]] if k == 0 else na + k - 1
        return G[h0 + card] > 0
    if a < cfg[kn.C_RE]:
        return G[h0 + a - cfg[kn.C_DI]] > 0
    return False


@njit(cache=True, _nrt=False)
def legal_list(cfg, L, G, out):
    """Legal action ids of the seat to act, ascending, into ``out`` ((A,) int64); returns how many."""
    seat = G[G_TO_ACT]
    if seat < 0:
        return 0
    n = 0
    if G[G_CH_ACTIVE]:
        for a in range(cfg[kn.C_RE], cfg[kn.C_GU] + 1):
            if is_legal(cfg, L, G, a):
                out[n] = a
                n += 1
        return n
    w = cfg[kn.C_W]
    h0 = L[B_HANDS] + seat * cfg[kn.C_T]
    for asset in range(cfg[kn.C_NA]):
        if G[h0 + asset] > 0:
            for k in range(w):
                a = asset * w + k
                if is_legal(cfg, L, G, a):
                    out[n] = a
                    n += 1
    if G[G_DISC_LEN] > 0:
        for a in range(cfg[kn.C_PD], cfg[kn.C_CH]):
            if is_legal(cfg, L, G, a):
                out[n] = a
                n += 1
    if G[L[B_SLEN] + seat] >= 1:
        for a in range(cfg[kn.C_CH], cfg[kn.C_CH] + (cfg[kn.C_P] - 1) * w):
            if is_legal(cfg, L, G, a):
                out[n] = a
                n += 1
    for a in range(cfg[kn.C_DI], cfg[kn.C_RE]):
        if is_legal(cfg, L, G, a):
            out[n] = a
            n += 1
    return n


@njit(cache=True, _nrt=False)
def _push_set(L, G, seat, st):
    G[L[B_SBELOW] + st] = G[L[B_STOP] + seat]
    G[L[B_STOP] + seat] = st
    G[L[B_SLEN] + seat] += 1
    G[L[B_SVAL] + seat] += G[L[B_SVALUE] + st]


@njit(cache=True, _nrt=False)
def _new_set(values, L, G, seat, asset, card0, known0, card1):
    st = G[G_N_SETS]
    G[G_N_SETS] = st + 1
    G[L[B_SASSET] + st] = asset
    G[L[B_SVALUE] + st] = values[card0] + values[card1]
    G[L[B_SCARD0] + st] = card0
    G[L[B_SKNOWN0] + st] = known0
    G[L[B_SSIZE] + st] = 2
    _push_set(L, G, seat, st)


@njit(cache=True, _nrt=False)
def _play_challenge_card(cfg, L, G, seat, card):
    G[L[B_HANDS] + seat * cfg[kn.C_T] + card] -= 1
    G[L[B_HCOUNT] + seat] -= 1
    n = G[G_CH_LEN]
    G[L[B_CHCARDS] + n] = card
    G[L[B_CHPLAYERS] + n] = seat
    G[G_CH_LEN] = n + 1
    G[L[B_PLAYED] + seat] = 1
    G[G_TO_ACT] = G[G_CH_DEF] if seat == G[G_CH_CHAL] else G[G_CH_CHAL]


@njit(cache=True, _nrt=False)
def _refill(cfg, L, G, seat):
    hs = cfg[kn.C_HAND]
    n = cfg[kn.C_N]
    t = cfg[kn.C_T]
    pos = G[G_DRAW_POS]
    cnt = G[L[B_HCOUNT] + seat]
    h0 = L[B_HANDS] + seat * t
    d0 = L[B_DECK]
    if cnt < hs and pos < n:
        G[L[B_GAVEUP] + seat] = 0  # a new card: the record of giving up lapses (RULES.md §10)
    while cnt < hs and pos < n:
        G[h0 + G[d0 + pos]] += 1
        pos += 1
        cnt += 1
    G[G_DRAW_POS] = pos
    G[L[B_HCOUNT] + seat] = cnt


@njit(cache=True, _nrt=False)
def start_round(cfg, deck0, L, G, rng):
    """R-NEW-ROUND, R-SETUP with a shuffle from the search stream ``rng`` (as ``kernels.start_round``)."""
    p = cfg[kn.C_P]
    n = cfg[kn.C_N]
    t = cfg[kn.C_T]
    d0 = L[B_DECK]
    for i in range(n):
        G[d0 + i] = deck0[i]
    for i in range(n - 1, 0, -1):
        j = int(next_double(rng) * (i + 1))
        tmp = G[d0 + i]
        G[d0 + i] = G[d0 + j]
        G[d0 + j] = tmp
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
    G[G_N_SETS] = 0
    G[G_CH_ACTIVE] = 0
    G[G_CH_LEN] = 0
    k = 0
    dealer = G[G_DEALER]
    for _ in range(cfg[kn.C_HAND]):
        for i in range(p):
            seat = (dealer + 1 + i) % p
            G[L[B_HANDS] + seat * t + G[d0 + k]] += 1
            G[L[B_HCOUNT] + seat] += 1
            k += 1
    G[L[B_DISC]] = G[d0 + k]
    G[G_DISC_LEN] = 1
    G[G_DRAW_POS] = k + 1
    G[G_CUR] = (dealer + 1) % p
    G[G_TO_ACT] = G[G_CUR]


@njit(cache=True, _nrt=False)
def end_round(cfg, deck0, L, G, rng):
    """R-SCORE, R-GAME-END, R-TIE, else the next round (as ``kernels.end_round``)."""
    p = cfg[kn.C_P]
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
        kind = cfg[kn.C_END_KIND]
        if kind == kn.END_TARGET:
            mx = G[L[B_TOTAL]]
            for s in range(1, p):
                mx = max(mx, G[L[B_TOTAL] + s])
            if mx >= cfg[kn.C_TARGET]:
                cand = (1 << p) - 1
        elif kind == kn.END_ROUNDS:
            if G[G_ROUND] >= cfg[kn.C_END_PARAM]:
                cand = (1 << p) - 1
        else:
            for s in range(p):
                if G[L[B_RWINS] + s] >= cfg[kn.C_END_PARAM]:
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
        if nt == 1 or cfg[kn.C_TIE] == kn.TIE_SHARE or G[G_EXTRA] >= cfg[kn.C_MAX_EXTRA]:
            G[G_WINNERS] = tied
            G[G_DONE] = 1
            G[G_TO_ACT] = -1
            return
        G[G_ELIGIBLE] = tied
        G[G_EXTRA] += 1
    G[G_DEALER] = (G[G_DEALER] + 1) % p
    start_round(cfg, deck0, L, G, rng)


@njit(cache=True, _nrt=False)
def end_turn(cfg, deck0, L, G, rng, first, second):
    """R-REFILL for ``first`` then ``second`` (-1: none), R-TURN, R-ROUND-END (as ``kernels.end_turn``)."""
    p = cfg[kn.C_P]
    if G[L[B_PLAYED] + first]:
        _refill(cfg, L, G, first)
    if second >= 0 and G[L[B_PLAYED] + second]:
        _refill(cfg, L, G, second)
    for s in range(p):
        G[L[B_PLAYED] + s] = 0
    cur = G[G_CUR]
    for step in range(1, p + 1):
        nxt = (cur + step) % p
        if G[L[B_HCOUNT] + nxt] > 0:
            G[G_CUR] = nxt
            G[G_TO_ACT] = nxt
            return
    end_round(cfg, deck0, L, G, rng)


@njit(cache=True, _nrt=False)
def resolve_challenge(cfg, values, deck0, L, G, rng):
    """R-CH-EXCHANGE resolution, R-CH-ONE, R-REFILL (as ``kernels.resolve_challenge``)."""
    n = G[G_CH_LEN]
    winner = G[L[B_CHPLAYERS] + n - 1]
    chal = G[G_CH_CHAL]
    defe = G[G_CH_DEF]
    loser = defe if winner == chal else chal
    st = G[L[B_STOP] + defe]
    add = 0
    for i in range(n):
        add += values[G[L[B_CHCARDS] + i]]
    G[L[B_SVALUE] + st] += add
    G[L[B_SSIZE] + st] += n
    if winner == chal:
        G[L[B_STOP] + defe] = G[L[B_SBELOW] + st]
        G[L[B_SLEN] + defe] -= 1
        G[L[B_SVAL] + defe] -= G[L[B_SVALUE] + st] - add
        G[L[B_SKNOWN0] + st] |= 1 << winner
        _push_set(L, G, winner, st)
    else:
        G[L[B_SVAL] + defe] += add
    G[G_CH_ACTIVE] = 0
    G[G_CH_LEN] = 0
    if cfg[kn.C_ORDER] == kn.ORDER_LOSER_FIRST:
        end_turn(cfg, deck0, L, G, rng, loser, winner)
    else:
        end_turn(cfg, deck0, L, G, rng, chal, defe)


@njit(cache=True, _nrt=False)
def apply_action(cfg, values, deck0, L, G, rng, a):
    """Apply legal action ``a`` for the seat to act and advance (as ``kernels.apply_action``; not re-checked)."""
    seat = G[G_TO_ACT]
    na = cfg[kn.C_NA]
    w = cfg[kn.C_W]
    p = cfg[kn.C_P]
    t = cfg[kn.C_T]
    h0 = L[B_HANDS] + seat * t
    public = (1 << p) - 1
    hidden = (1 << seat) if cfg[kn.C_HIDDEN] else public
    if G[G_CH_ACTIVE]:
        if a == cfg[kn.C_GU]:
            G[L[B_GAVEUP] + seat] |= 1 << G[G_CH_ASSET]  # public record of who did not answer (RULES.md §10)
            resolve_challenge(cfg, values, deck0, L, G, rng)
        else:
            k = a - cfg[kn.C_RE]
            card = G[G_CH_ASSET] if k == 0 else na + k - 1
            _play_challenge_card(cfg, L, G, seat, card)
        return
    if a < cfg[kn.C_PD]:
        asset = a // w
        k = a % w
        partner = asset if k == 0 else na + k - 1
        G[h0 + asset] -= 1
        G[h0 + partner] -= 1
        G[L[B_HCOUNT] + seat] -= 2
        _new_set(values, L, G, seat, asset, partner, hidden, asset)
    elif a < cfg[kn.C_CH]:
        c = a - cfg[kn.C_PD]
        n = G[G_DISC_LEN] - 1
        top = G[L[B_DISC] + n]
        G[G_DISC_LEN] = n
        G[h0 + c] -= 1
        G[L[B_HCOUNT] + seat] -= 1
        if top < na:
            _new_set(values, L, G, seat, top, c, hidden, top)
        else:
            _new_set(values, L, G, seat, c, top, public, c)
    elif a < cfg[kn.C_DI]:
        i = a - cfg[kn.C_CH]
        offset = i // w + 1
        k = i % w
        target = (seat + offset) % p
        asset = G[L[B_SASSET] + G[L[B_STOP] + target]]
        G[G_CH_ACTIVE] = 1
        G[G_CH_CHAL] = seat
        G[G_CH_DEF] = target
        G[G_CH_ASSET] = asset
        G[G_CH_LEN] = 0
        _play_challenge_card(cfg, L, G, seat, asset if k == 0 else na + k - 1)
        return
    else:
        c = a - cfg[kn.C_DI]
        G[h0 + c] -= 1
        G[L[B_HCOUNT] + seat] -= 1
        G[L[B_DISC] + G[G_DISC_LEN]] = c
        G[G_DISC_LEN] += 1
    G[L[B_PLAYED] + seat] = 1
    end_turn(cfg, deck0, L, G, rng, seat, -1)


@njit(cache=True, _nrt=False)
def greedy_act(cfg, values, wild_order, discard_order, L, G):
    """``greedy`` for the seat to act (as :func:`agents.compiled.greedy_act`)."""
    seat = G[G_TO_ACT]
    na = cfg[kn.C_NA]
    nw = cfg[kn.C_NW]
    w = cfg[kn.C_W]
    t = cfg[kn.C_T]
    h0 = L[B_HANDS] + seat * t
    if G[G_CH_ACTIVE]:
        if G[h0 + G[G_CH_ASSET]] > 0:
            return cfg[kn.C_RE]
        for i in range(nw):
            wd = wild_order[i]
            if G[h0 + wd] > 0:
                return cfg[kn.C_RE] + 1 + wd - na
        return cfg[kn.C_GU]
    best = -1
    best_v = -1
    n_wild = 0
    for k in range(nw):
        n_wild += G[h0 + na + k]
    for a in range(na):
        h = G[h0 + a]
        if h == 0:
            continue
        if h >= 2:
            v = 2 * values[a]
            if v > best_v:
                best = a * w
                best_v = v
        if n_wild > 0:
            for k in range(nw):
                if G[h0 + na + k] > 0:
                    v = values[a] + values[na + k]
                    if v > best_v:
                        best = a * w + 1 + k
                        best_v = v
    n_disc = G[G_DISC_LEN]
    if n_disc > 0:
        top = G[L[B_DISC] + n_disc - 1]
        vt = values[top]
        if top < na:
            for c in range(t):
                if G[h0 + c] > 0 and (c == top or c >= na):
                    v = vt + values[c]
                    if v > best_v:
                        best = cfg[kn.C_PD] + c
                        best_v = v
        else:
            for c in range(na):
                if G[h0 + c] > 0:
                    v = vt + values[c]
                    if v > best_v:
                        best = cfg[kn.C_PD] + c
                        best_v = v
    if best >= 0:
        return best
    p = cfg[kn.C_P]
    if G[L[B_SLEN] + seat] >= 1:
        best_off = 0
        best_t = -1
        for off in range(1, p):
            tg = (seat + off) % p
            if G[L[B_SLEN] + tg] < 2:
                continue
            st = G[L[B_STOP] + tg]
            if G[h0 + G[L[B_SASSET] + st]] == 0 and n_wild == 0:
                continue
            v = value_seen(values, L, G, st, seat)
            if v > best_t:
                best_off = off
                best_t = v
        if best_off > 0:
            base = cfg[kn.C_CH] + (best_off - 1) * w
            tg = (seat + best_off) % p
            if G[h0 + G[L[B_SASSET] + G[L[B_STOP] + tg]]] > 0:
                return base
            for i in range(nw):
                wd = wild_order[i]
                if G[h0 + wd] > 0:
                    return base + 1 + wd - na
    for i in range(t):
        c = discard_order[i]
        if G[h0 + c] > 0:
            return cfg[kn.C_DI] + c
    return -1


@njit(cache=True, _nrt=False)
def random_act(cfg, L, G, rng, acts):
    """A uniform legal action of the seat to act, drawn from ``rng`` (acts: (A,) int64 scratch)."""
    n = legal_list(cfg, L, G, acts)
    if n == 0:
        return -1
    return acts[int(next_double(rng) * n)]


@njit(cache=True, _nrt=False)
def play_flat(cfg, values, deck0, wild_order, discard_order, L, G, rng, actions, n):
    """Apply ``actions[:n]`` to ``G`` (for tests); returns the index of the first illegal one, or -1."""
    for i in range(n):
        if not is_legal(cfg, L, G, actions[i]):
            return i
        apply_action(cfg, values, deck0, L, G, rng, actions[i])
    return -1


@njit(cache=True, _nrt=False)
def legal_flat(cfg, L, G, out):
    """:func:`legal_list` on ``G`` (callable from Python)."""
    return legal_list(cfg, L, G, out)


@njit(cache=True, _nrt=False)
def greedy_flat(cfg, values, wild_order, discard_order, L, G):
    """:func:`greedy_act` on ``G`` (for tests)."""
    return greedy_act(cfg, values, wild_order, discard_order, L, G)


__all__ = [
    "apply_action",
    "greedy_act",
    "is_legal",
    "layout",
    "legal_list",
    "np",
    "pack_row",
    "random_act",
    "value_seen",
]
