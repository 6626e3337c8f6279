"""The agent view built from a game row, and the compiled view policies ``heuristic``, ``wild_hoarder``,
``card_counter`` and ``oracle``.

:func:`view_row` fills a seat's agent view (:mod:`agents.classic.view`) from the game row — only what the
seat may see (RULES.md §10): its hand, the discard pile, the draw-pile size, every stack's public
cards and the set cards it knows (R-HIDDEN-WILD), hand sizes, the challenge in progress and the
public give-up record; :func:`view_parts` fills only the parts a policy reads (its code says which:
:func:`agents.classic.compiled.view_code`). The compiled loops build it and call the policy by its C address
(:mod:`agents.view_abi`; :func:`agents.classic.compiled.policy_act`): :func:`strategy_address` compiles a
policy's C entry the first time a line-up uses it, on its own and cached, so the loops never
recompile for a policy. Each entry calls the very same decision function as the single-game form,
so the reference engine, the batched engine and the search's rollouts decide identically.
``oracle`` alone also reads every hand and every hidden set card (it CHEATS, by design;
:func:`oracle_view`).
"""

from __future__ import annotations

from numba import njit

from agents.classic.advanced import advanced_first, advanced_last
from agents.classic.card_counter import card_counter_decide
from agents.classic.heuristic import heuristic_decide
from agents.classic.oracle import oracle_decide
from agents.classic.view import (
    H_ADV,
    H_APT,
    H_CH_ACTIVE,
    H_CH_ASSET,
    H_CH_CHALLENGER,
    H_CH_DEFENDER,
    H_CH_LEN,
    H_CH_POT_VALUE,
    H_DC,
    H_DRAFT,
    H_DRAFT_MOVE_TARGET,
    H_DRAFT_MOVER,
    H_DRAFT_MV,
    H_DRAFT_OFFER,
    H_DRAFT_TOPS,
    H_DRAW,
    H_END,
    H_ET,
    H_IM,
    H_LEFT,
    H_M,
    H_MOVE,
    H_MV,
    H_NA,
    H_NACT,
    H_NW,
    H_OWED,
    H_P,
    H_PENNY,
    H_Q,
    H_R2,
    H_ROUND,
    H_SEAT,
    H_SW,
    H_SWAP,
    H_TOP_DISCARD,
    S_BOTTOM_VALUE_SEEN,
    S_HAND_SIZE,
    S_SECOND_ASSET,
    S_SECOND_VALUE_SEEN,
    S_STACK_LEN,
    S_TOP_ASSET,
    S_TOP_HIDDEN,
    S_TOP_KNOWN_VALUE,
    S_TOP_SIZE,
    S_TOP_VALUE_SEEN,
    VIEW_GAVE_UP,
    VIEW_HAND,
    VIEW_LEGAL,
    VIEW_MASK,
    VIEW_SEATS,
    VIEW_UNSEEN,
)
from agents.view_abi import compile_entry, view_arrays
from cya_sim.engine.classic.draft import reach_pile
from cya_sim.engine.classic.draft import top as draft_top
from cya_sim.engine.classic.kernel import legal_list, legal_mask, value_seen
from cya_sim.engine.classic.layout import (
    B_CHCARDS,
    B_DISC,
    B_GAVEUP,
    B_HANDS,
    B_HCOUNT,
    B_SASSET,
    B_SBELOW,
    B_SCARD0,
    B_SKNOWN0,
    B_SLEN,
    B_SSIZE,
    B_STOP,
    B_SVALUE,
    C_ADV_DC,
    C_ADV_END,
    C_ADV_ET,
    C_ADV_FIRST_ACT,
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
    C_DRAFT,
    C_DRAFT_MV,
    C_DRAFT_PILES,
    C_M,
    C_N,
    C_NA,
    C_NW,
    C_P,
    C_T,
    G_ADV_LEFT,
    G_ADV_OWED,
    G_CH_ACTIVE,
    G_CH_ASSET,
    G_CH_CHAL,
    G_CH_DEF,
    G_CH_LEN,
    G_CUR,
    G_DISC_LEN,
    G_DRAFT_MOVE,
    G_DRAFT_OFFER,
    G_DRAW_POS,
    G_ROUND,
)
from cya_sim.engine.classic.seen import unseen_of
from cya_sim.engine.jit import JIT


@njit(**JIT)
def view_row(K, G, seat, sc):
    """Fill the whole agent view of ``seat`` (``sc.hdr``, ``hand``, ``unseen``, ``seats``, ``gave_up``, ``mask``):
    :func:`view_parts` with every part built."""
    view_parts(K, G, seat, sc, 0)


@njit(**JIT)
def view_parts(K, G, seat, sc, skip):
    """Fill the agent view of ``seat`` but the parts named in ``skip`` (bits ``VIEW_*`` of :mod:`agents.classic.view`).

    ``sc.hdr`` is always filled; ``hand``, ``unseen``, ``seats``, ``gave_up``, ``mask`` and the legal ids
    (``sc.ids``) unless their bit is set in ``skip`` (int), a part that the policy to be called never reads (a part
    left out keeps what an earlier decision wrote). Returns the number of legal ids written to ``sc.ids`` (int; 0 when
    neither the mask nor the legal ids were built). The unseen cards of ``seat`` (``Observation.unseen``, RULES.md
    §10) come from the seen-card counts the rules kernel keeps at every event (:func:`cya_sim.engine.classic.seen.unseen_of`,
    :func:`~cya_sim.engine.classic.seen.reveal`) instead of a recount each decision. The mask is that of the seat
    to act (``sc.ids`` holds its legal ids after the call).
    """
    cfg = K.cfg
    L = K.lay
    values = K.values
    hdr = sc.hdr
    na, nw, t, p, n = cfg[C_NA], cfg[C_NW], cfg[C_T], cfg[C_P], cfg[C_N]
    adv_on = cfg[C_ADV_ON] != 0
    m_players = cfg[C_M]
    draft_on = cfg[C_DRAFT] != 0
    draft_mv = cfg[C_DRAFT_MV]
    h0 = L[B_HANDS] + seat * t
    b_disc, b_chcards = L[B_DISC], L[B_CHCARDS]
    n_disc = G[G_DISC_LEN]
    ch_active = G[G_CH_ACTIVE]
    hdr[H_SEAT] = seat
    hdr[H_P] = p
    hdr[H_NA] = na
    hdr[H_NW] = nw
    hdr[H_M] = m_players
    hdr[H_DRAW] = n - G[G_DRAW_POS]
    hdr[H_TOP_DISCARD] = G[b_disc + n_disc - 1] if n_disc > 0 else -1
    hdr[H_ROUND] = G[G_ROUND]
    if ch_active:
        ch_len = G[G_CH_LEN]
        hdr[H_CH_ACTIVE] = 1
        hdr[H_CH_ASSET] = G[G_CH_ASSET]
        hdr[H_CH_CHALLENGER] = G[G_CH_CHAL]
        hdr[H_CH_DEFENDER] = G[G_CH_DEF]
        pot = 0
        for i in range(ch_len):
            pot += values[G[b_chcards + i]]
        hdr[H_CH_POT_VALUE] = pot
        hdr[H_CH_LEN] = ch_len
    else:
        hdr[H_CH_ACTIVE] = 0
        hdr[H_CH_ASSET] = -1
        hdr[H_CH_CHALLENGER] = -1
        hdr[H_CH_DEFENDER] = -1
        hdr[H_CH_POT_VALUE] = 0
        hdr[H_CH_LEN] = 0
    if adv_on:
        hdr[H_NACT] = t - cfg[C_ADV_FIRST_ACT]
        hdr[H_ADV] = 1
        hdr[H_OWED] = G[G_ADV_OWED] if ch_active else 0
        hdr[H_LEFT] = G[G_ADV_LEFT]
        hdr[H_APT] = cfg[C_ADV_TWO]
        hdr[H_SWAP] = cfg[C_ADV_SWAP]
        hdr[H_MOVE] = cfg[C_ADV_MOVE]
        hdr[H_PENNY] = cfg[C_ADV_PENNY]
        hdr[H_ET] = cfg[C_ADV_ET]
        hdr[H_IM] = cfg[C_ADV_IM]
        hdr[H_SW] = cfg[C_ADV_SW]
        hdr[H_MV] = cfg[C_ADV_MV]
        hdr[H_DC] = cfg[C_ADV_DC]
        hdr[H_R2] = cfg[C_ADV_R2]
        hdr[H_END] = cfg[C_ADV_END]
        hdr[H_Q] = cfg[C_ADV_Q]
    hdr[H_DRAFT_OFFER] = 0
    hdr[H_DRAFT_MOVER] = -1
    hdr[H_DRAFT_MOVE_TARGET] = G[G_DRAFT_MOVE] - 1  # §7 with §6: a Move turned up waits for this seat's choice
    hdr[H_DRAFT_MV] = draft_mv
    if draft_on:  # §7: the face-up tops within reach (the face-down draft cards are unseen in the kept counts)
        draft_view(K, G, seat, hdr)
    if skip & VIEW_HAND == 0:
        hand = sc.hand
        for c in range(t):
            hand[c] = G[h0 + c]
    if skip & VIEW_UNSEEN == 0:
        unseen_of(K, G, seat, sc.unseen)
    if skip & VIEW_SEATS == 0:  # the seat table (columns S_*; R-HIDDEN-WILD; under §6 the second and bottom sets)
        seats = sc.seats
        b_hcount, b_slen, b_stop = L[B_HCOUNT], L[B_SLEN], L[B_STOP]
        b_sasset, b_svalue, b_sknown0, b_scard0 = L[B_SASSET], L[B_SVALUE], L[B_SKNOWN0], L[B_SCARD0]
        b_ssize, b_sbelow = L[B_SSIZE], L[B_SBELOW]
        for s in range(p):
            seats[s, S_HAND_SIZE] = G[b_hcount + s]
            seats[s, S_STACK_LEN] = G[b_slen + s]
            top = G[b_stop + s]
            if top < 0:
                seats[s, S_TOP_ASSET] = -1
                seats[s, S_TOP_VALUE_SEEN] = 0
                seats[s, S_TOP_HIDDEN] = 0
                seats[s, S_TOP_SIZE] = 0
                seats[s, S_TOP_KNOWN_VALUE] = 0
                if adv_on:
                    seats[s, S_SECOND_ASSET] = -1
                    seats[s, S_SECOND_VALUE_SEEN] = 0
                    seats[s, S_BOTTOM_VALUE_SEEN] = 0
                continue
            asset = G[b_sasset + top]
            known = G[b_svalue + top]
            hidden = 0
            if (G[b_sknown0 + top] >> seat) & 1 == 0:
                hidden = 1
                known -= values[G[b_scard0 + top]]
            seats[s, S_TOP_ASSET] = asset
            seats[s, S_TOP_HIDDEN] = hidden
            seats[s, S_TOP_SIZE] = G[b_ssize + top]
            seats[s, S_TOP_KNOWN_VALUE] = known
            seats[s, S_TOP_VALUE_SEEN] = known + hidden * values[asset]
            if adv_on:  # the set second from the top and the bottom set (RULES.md §6)
                below = G[b_sbelow + top]
                seats[s, S_SECOND_ASSET] = G[b_sasset + below] if below >= 0 else -1
                seats[s, S_SECOND_VALUE_SEEN] = value_seen(K, G, below, seat) if below >= 0 else 0
                bottom = top
                while G[b_sbelow + bottom] >= 0:
                    bottom = G[b_sbelow + bottom]
                seats[s, S_BOTTOM_VALUE_SEEN] = value_seen(K, G, bottom, seat)
    if skip & VIEW_GAVE_UP == 0:
        gave_up = sc.gave_up
        b_gaveup = L[B_GAVEUP]
        for s in range(p):
            gm = G[b_gaveup + s]
            for c in range(t):
                gave_up[s, c] = (gm >> c) & 1 == 1
    if skip & VIEW_MASK == 0:
        return legal_mask(K, G, sc.mask, sc.ids)
    if skip & VIEW_LEGAL == 0:
        return legal_list(K, G, sc.ids)
    return 0


#: Which view policy :func:`decide_view` runs (the same numbers as ``agents.classic.compiled.POLICY_*``; 2 is a
#: plug-in's, ``POLICY_VIEW``).
STRATEGY_CARD_COUNTER, STRATEGY_ORACLE, STRATEGY_HEURISTIC = 3, 4, 5


@njit(**JIT)
def gives_up_at_once(K, G, seat):
    """``card_counter`` in a challenge holding no card to answer gives up (its own ``k == 0`` case), view or not."""
    if G[G_CH_ACTIVE] == 0:
        return False
    na, nw, t = K.cfg[C_NA], K.cfg[C_NW], K.cfg[C_T]
    h0 = K.lay[B_HANDS] + seat * t
    k = G[h0 + G[G_CH_ASSET]]
    for i in range(nw):
        k += G[h0 + na + i]
    return k == 0


@njit(**JIT)
def oracle_view(K, G, sc):
    """What ``oracle`` reads beyond the view (it CHEATS): true top-set values and every hand."""
    L = K.lay
    t = K.cfg[C_T]
    for s in range(K.cfg[C_P]):
        top = G[L[B_STOP] + s]
        if top >= 0:
            sc.seats[s, S_TOP_VALUE_SEEN] = G[L[B_SVALUE] + top]
        for c in range(t):
            sc.hands_all[s, c] = G[L[B_HANDS] + s * t + c]


@njit(**JIT)
def decide_view(kind, params, hdr, hand, values, unseen, seats, gave_up, mask, hands_all):
    """The action of view-based policy ``kind`` (``STRATEGY_*``) on one seat's agent view (:mod:`agents.classic.view`).

    Under the advanced rules (RULES.md §6) :mod:`agents.classic.advanced` wraps the policy's own decision
    (``advanced_first`` before it, ``advanced_last`` after it), as in the single-game classes; -1 for an
    unknown kind. ``hands_all`` is read by ``oracle`` only (it CHEATS).
    """
    adv = hdr[H_ADV] != 0
    a = -1
    if adv:  # the advanced rules (RULES.md §6): agents/classic/advanced.py around the policy's own decision
        a = advanced_first(hdr, hand, values, seats, mask)
    if a < 0:
        if kind == STRATEGY_CARD_COUNTER:
            a = card_counter_decide(params, hdr, hand, values, unseen, seats, gave_up, mask)
        elif kind == STRATEGY_HEURISTIC:
            a = heuristic_decide(params, hdr, hand, values, unseen, seats, mask)
        elif kind == STRATEGY_ORACLE:
            a = oracle_decide(hdr, hand, values, seats, hands_all, mask)
        else:
            return -1
    if adv:
        a = advanced_last(hdr, hand, values, mask, a)
    return a


# The C entries of the three view policies (agents.view_abi), compiled the first time a line-up uses one.
def heuristic_entry(params, hdr, hand, values, unseen, seats, gave_up, mask, rng, hands_all, legal, t, p, a,
                    n_legal):
    """C entry of ``heuristic`` / ``wild_hoarder`` (:data:`agents.view_abi.VIEW_SIG`)."""
    pa, hd, hn, va, un, se, gu, ma, _rg, ha, _lg = view_arrays(params, hdr, hand, values, unseen, seats, gave_up,
                                                               mask, rng, hands_all, legal, t, p, a, n_legal)
    return decide_view(STRATEGY_HEURISTIC, pa, hd, hn, va, un, se, gu, ma, ha)


def card_counter_entry(params, hdr, hand, values, unseen, seats, gave_up, mask, rng, hands_all, legal, t, p, a,
                       n_legal):
    """C entry of ``card_counter`` (:data:`agents.view_abi.VIEW_SIG`)."""
    pa, hd, hn, va, un, se, gu, ma, _rg, ha, _lg = view_arrays(params, hdr, hand, values, unseen, seats, gave_up,
                                                               mask, rng, hands_all, legal, t, p, a, n_legal)
    return decide_view(STRATEGY_CARD_COUNTER, pa, hd, hn, va, un, se, gu, ma, ha)


def oracle_entry(params, hdr, hand, values, unseen, seats, gave_up, mask, rng, hands_all, legal, t, p, a,
                 n_legal):
    """C entry of ``oracle(cheats=true)`` (:data:`agents.view_abi.VIEW_SIG`)."""
    pa, hd, hn, va, un, se, gu, ma, _rg, ha, _lg = view_arrays(params, hdr, hand, values, unseen, seats, gave_up,
                                                               mask, rng, hands_all, legal, t, p, a, n_legal)
    return decide_view(STRATEGY_ORACLE, pa, hd, hn, va, un, se, gu, ma, ha)


_ENTRY_OF = {STRATEGY_HEURISTIC: heuristic_entry, STRATEGY_CARD_COUNTER: card_counter_entry,
             STRATEGY_ORACLE: oracle_entry}


def strategy_entry(kind: int):
    """The C entry function (plain Python, compiled by :func:`strategy_address`) of view policy ``kind``.

    Raises:
        KeyError: an unknown kind.
    """
    return _ENTRY_OF[kind]


def strategy_address(kind: int) -> int:
    """C address of view policy ``kind`` (``STRATEGY_*``), compiled on first use (or loaded from numba's cache).

    Raises:
        KeyError: an unknown kind.
    """
    return compile_entry(_ENTRY_OF[kind])


@njit(**JIT)
def draft_view(K, G, seat, hdr):
    """The draft fields of the agent view (``H_DRAFT*``, :mod:`agents.classic.view`; R-2P-DRAFT, R-3P-DRAFT).

    The face-down draft cards are unseen (RULES.md §10) through the rules kernel's kept counts
    (:func:`cya_sim.engine.classic.seen.unseen_of`: a draft card is revealed when turned face up).
    """
    cfg = K.cfg
    hdr[H_DRAFT] = 1
    if G[G_DRAFT_OFFER] != 0:
        hdr[H_DRAFT_OFFER] = 1
        hdr[H_DRAFT_MOVER] = G[G_CUR]
    for c in range(cfg[C_T]):
        hdr[H_DRAFT_TOPS + c] = 0
    for i in range(cfg[C_DRAFT_PILES]):
        j = reach_pile(K, G, seat, i)
        if j < 0:
            break
        c = draft_top(K, G, j)
        if c >= 0:
            hdr[H_DRAFT_TOPS + c] += 1
