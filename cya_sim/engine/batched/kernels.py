"""numba kernels of the batched engine: the rules of RULES.md §3–5 on one row of a batch.

Every kernel takes ``K`` (a :class:`Consts` of rule-derived constant arrays),
``S`` (an :class:`Arrays`, the batch state as a named tuple of arrays, batch
dimension first; see :class:`cya_sim.engine.batched.state.BatchState` for the
meaning, shape and dtype of every field) and a row index ``b``. They mirror
the reference engine (:mod:`cya_sim.engine.reference`) step for step, so that
both engines play identical games from identical seeds.

Representation notes (why it is exact):

* A set's cards are kept as counts per card type plus its first card
  ``set_card0`` and that card's ``set_known0`` seat bitmask. Under
  R-HIDDEN-WILD only a set's first card can ever be hidden (a pair from the
  hand hides the partner beneath, a pair with a discarded asset hides the
  hand card beneath; discarded wilds and challenge cards are public), so the
  pair (counts, card0, known0) holds every seat's knowledge of the set.
* Stacks are linked lists through ``set_below``; the set pool is reset each
  round (R-NEW-ROUND); a set keeps its slot when it changes hands.
"""

from __future__ import annotations

from collections import namedtuple

from numba import njit

from cya_sim.engine.batched.cache_guard import invalidate_stale_caches
from cya_sim.engine.batched.pcg import next_double, seed_stream, shuffle

invalidate_stale_caches()  # numba's disk cache does not track the kernels inlined across modules

# -- indices into Consts.cfg --------------------------------------------------------------------
C_NA, C_NW, C_T, C_M, C_P, C_HAND, C_ORDER, C_HIDDEN = 0, 1, 2, 3, 4, 5, 6, 7
C_END_KIND, C_END_PARAM, C_TARGET, C_TIE, C_MAX_EXTRA, C_N, C_S, C_CAP = 8, 9, 10, 11, 12, 13, 14, 15
C_A, C_W, C_PD, C_CH, C_DI, C_RE, C_GU, C_LOG = 16, 17, 18, 19, 20, 21, 22, 23
C_MAX_ROUNDS = 24  # RuleSet.max_rounds: a game still going after this round stops (flagged ``capped``)
N_CFG = 25

END_TARGET, END_ROUNDS, END_ROUND_WINS = 0, 1, 2
TIE_SHARE, TIE_EXTRA = 0, 1
ORDER_LOSER_FIRST, ORDER_MOVER_FIRST = 0, 1

#: Agent kinds of ``Arrays.agent_kind``: compiled built-ins, or -1 for a Python agent.
KIND_PYTHON, KIND_RANDOM, KIND_GREEDY = -1, 0, 1
#: Compiled strategy agents (agents/compiled_strategy.py); their parameters are ``Arrays.agent_params``.
KIND_HEURISTIC, KIND_CARD_COUNTER, KIND_ORACLE = 2, 3, 4
#: Width of ``Arrays.agent_params`` rows (``agents.registry.compiled_params``).
N_AGENT_PARAMS = 16

#: Error codes of ``Arrays.err`` (err[0] code, err[1] row, err[2] action).
ERR_NONE, ERR_ILLEGAL, ERR_LOG_FULL = 0, 1, 2

Consts = namedtuple("Consts", ["cfg", "values", "deck0", "deck_counts", "wild_order", "discard_order",
                               "act_hi", "act_lo"])
Consts.__doc__ = """Rule-derived constants shared by every row.

cfg: (N_CFG,) int64 — sizes and options, indexed by the ``C_*`` constants.
values: (T,) int64 — face value of each card type in dollars (R-DECK-2011).
deck0: (N,) int8 — every card in play in type-id order (R-DECK-MULTI), before shuffling.
deck_counts: (T,) int64 — copies of each type in play.
wild_order: (nW,) int64 — wild type ids by (value, id), the greedy agent's order.
discard_order: (T,) int64 — type ids by (is wild, value, id), the greedy agent's discard order.
act_hi, act_lo: (A,) int64 — action decoding without integer division: for ``pair_hand`` ids the
    asset and the partner index k (0 = a second asset, else wild k-1); for ``challenge`` ids the
    offset (1..M-1) and k; 0 for other ids.
"""


@njit(cache=True, _nrt=False, error_model="numpy", inline="always")
def seat_add(seat, d, p):
    """``(seat + d) % p`` for ``0 <= seat < p`` and ``0 <= d <= p`` (no integer division)."""
    x = seat + d
    return x - p if x >= p else x

ARRAY_FIELDS = (
    "game_index", "queue_pos", "done", "to_act", "engine_rng", "agent_rng", "agent_kind",
    "hands", "hand_count", "deck_order", "draw_pos", "discard", "discard_len",
    "n_sets", "set_asset", "set_size", "set_value", "set_card0", "set_known0", "set_below", "set_counts",
    "stack_top", "stack_len", "stack_value",
    "ch_active", "ch_challenger", "ch_defender", "ch_asset", "ch_cards", "ch_players", "ch_len",
    "played", "gave_up", "current_player", "dealer", "first_dealer", "round",
    "totals", "round_wins", "eligible", "extra_rounds", "winners", "round_audit",
    "turns", "challenges", "decisions", "largest_steal",
    "q_game_index", "q_seat_agent", "q_agent_kind", "q_next", "key",
    "r_done", "r_first_dealer", "r_totals", "r_winners", "r_rounds", "r_turns", "r_challenges",
    "r_decisions", "r_largest_steal", "log_actions", "log_len", "err",
    "agent_params", "v_hdr", "v_hand", "v_unseen", "v_seats", "v_mask", "v_hands_all",
    "capped", "r_capped",
)
Arrays = namedtuple("Arrays", ARRAY_FIELDS)
Arrays.__doc__ = "The batch state as a named tuple of arrays (see BatchState for every field)."


# -- small queries --------------------------------------------------------------------------------
@njit(cache=True, _nrt=False, error_model="numpy", inline="always")
def value_seen(K, S, b, st, observer):
    """Dollars of set ``st`` as ``observer`` sees it: hidden card counted at the asset's value.

    R-HIDDEN-WILD: only the set's first card can be hidden from ``observer``
    (see module notes); this equals ``SetView.value_seen`` of the reference.
    """
    v = S.set_value[b, st]
    if (S.set_known0[b, st] >> observer) & 1 == 0:
        v += K.values[S.set_asset[b, st]] - K.values[S.set_card0[b, st]]
    return v


@njit(cache=True, _nrt=False, error_model="numpy", inline="always")
def challenge_target_ok(S, b, seat, target):
    """R-CH-ALLOWED, stack part: the challenger has a set, the target at least two."""
    return seat != target and S.stack_len[b, seat] >= 1 and S.stack_len[b, target] >= 2


@njit(cache=True, _nrt=False, error_model="numpy")
def is_legal(K, S, b, a):
    """Whether action id ``a`` is legal for the seat to act in row ``b`` (bool).

    Same answer as ``legal_action_mask(state)[a]`` of the reference (R-TURN,
    R-NO-WILD-PAIR, R-CH-ALLOWED, R-CH-EXCHANGE); False when the game is
    over or ``a`` is outside ``0..A-1``.
    """
    cfg = K.cfg
    seat = S.to_act[b]
    if seat < 0 or a < 0 or a >= cfg[C_A]:
        return False
    na = cfg[C_NA]
    hand = S.hands[b, seat]
    if S.ch_active[b]:
        if a == cfg[C_GU]:
            return True
        if a >= cfg[C_RE] and a < cfg[C_GU]:
            k = a - cfg[C_RE]
            card = S.ch_asset[b] if k == 0 else na + k - 1
            return hand[card] > 0
        return False
    if a < cfg[C_PD]:  # R-PAIR-HAND
        asset = K.act_hi[a]
        k = K.act_lo[a]
        if k == 0:
            return hand[asset] >= 2
        return hand[asset] >= 1 and hand[na + k - 1] >= 1
    if a < cfg[C_CH]:  # R-PAIR-DISCARD
        c = a - cfg[C_PD]
        n = S.discard_len[b]
        if n == 0 or hand[c] == 0:
            return False
        top = S.discard[b, n - 1]
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
        if not challenge_target_ok(S, b, seat, target):
            return False
        card = S.set_asset[b, S.stack_top[b, target]] if k == 0 else na + k - 1
        return hand[card] > 0
    if a < cfg[C_RE]:  # R-DISCARD
        return hand[a - cfg[C_DI]] > 0
    return False


@njit(cache=True, _nrt=False, error_model="numpy", inline="always")
def legal_pick(K, S, b, pick):
    """Walk the legal action ids of row ``b`` in ascending order, block by block.

    Returns the number of legal ids when ``pick < 0``, else the legal id number
    ``pick`` (0-based), or -1 past the end. Same set as :func:`is_legal` (the
    ``random`` agent's enumeration; R-TURN, R-NO-WILD-PAIR, R-CH-ALLOWED, R-CH-EXCHANGE).
    """
    cfg = K.cfg
    seat = S.to_act[b]
    if seat < 0:
        return 0 if pick < 0 else -1
    na = cfg[C_NA]
    nw = cfg[C_NW]
    t = cfg[C_T]
    w = cfg[C_W]
    n = 0
    if S.ch_active[b]:
        if S.hands[b, seat, S.ch_asset[b]] > 0:
            if n == pick:
                return cfg[C_RE]
            n += 1
        for k in range(nw):
            if S.hands[b, seat, na + k] > 0:
                if n == pick:
                    return cfg[C_RE] + 1 + k
                n += 1
        if n == pick:
            return cfg[C_GU]
        n += 1
        return n if pick < 0 else -1
    n_wild = 0
    for k in range(nw):
        if S.hands[b, seat, na + k] > 0:
            n_wild += 1
    for a in range(na):
        h = S.hands[b, seat, a]
        if h == 0:
            continue
        if h >= 2:
            if n == pick:
                return a * w
            n += 1
        if n_wild > 0:
            for k in range(nw):
                if S.hands[b, seat, na + k] > 0:
                    if n == pick:
                        return a * w + 1 + k
                    n += 1
    nd = S.discard_len[b]
    if nd > 0:
        top = S.discard[b, nd - 1]
        for c in range(t):
            if S.hands[b, seat, c] == 0:
                continue
            if (top >= na and c >= na) or not (top >= na or c >= na or c == top):
                continue
            if n == pick:
                return cfg[C_PD] + c
            n += 1
    p = cfg[C_P]
    if S.stack_len[b, seat] >= 1:
        for off in range(1, p):
            tg = seat_add(seat, off, p)
            if S.stack_len[b, tg] < 2:
                continue
            base = cfg[C_CH] + (off - 1) * w
            if S.hands[b, seat, S.set_asset[b, S.stack_top[b, tg]]] > 0:
                if n == pick:
                    return base
                n += 1
            for k in range(nw):
                if S.hands[b, seat, na + k] > 0:
                    if n == pick:
                        return base + 1 + k
                    n += 1
    for c in range(t):
        if S.hands[b, seat, c] > 0:
            if n == pick:
                return cfg[C_DI] + c
            n += 1
    return n if pick < 0 else -1


@njit(cache=True, _nrt=False, error_model="numpy")
def legal_mask_row(K, S, b, out):
    """Fill ``out`` ((A,) bool) with the legal action mask of row ``b``; return the number of legal ids."""
    n = 0
    for a in range(K.cfg[C_A]):
        ok = is_legal(K, S, b, a)
        out[a] = ok
        if ok:
            n += 1
    return n


# -- setting up (R-SETUP, R-NEW-ROUND) -------------------------------------------------------------------
@njit(cache=True, _nrt=False, error_model="numpy")
def start_round(K, S, b):
    """R-NEW-ROUND and R-SETUP: gather, shuffle, deal ``hand_size`` one at a time from left of the dealer.

    The cards in type-id order are shuffled with the engine stream (as
    :func:`cya_sim.engine.reference.setup.start_round`); the next card starts
    the discard pile; the player left of the dealer moves first.
    """
    cfg = K.cfg
    p = cfg[C_P]
    n = cfg[C_N]
    order = S.deck_order[b]
    for i in range(n):
        order[i] = K.deck0[i]
    shuffle(order, S.engine_rng[b])
    S.round[b] += 1
    t = cfg[C_T]
    for s in range(p):
        for c in range(t):
            S.hands[b, s, c] = 0
            S.gave_up[b, s, c] = False
        S.hand_count[b, s] = 0
        S.stack_top[b, s] = -1
        S.stack_len[b, s] = 0
        S.stack_value[b, s] = 0
        S.played[b, s] = False
    for st in range(S.n_sets[b]):  # the set slots of the last round; R-NEW-SET counts start at zero
        for c in range(t):
            S.set_counts[b, st, c] = 0
    S.n_sets[b] = 0
    S.ch_active[b] = False
    S.ch_len[b] = 0
    k = 0
    dealer = S.dealer[b]
    for _ in range(cfg[C_HAND]):
        for i in range(p):
            seat = seat_add(dealer, 1 + i, p)
            S.hands[b, seat, order[k]] += 1
            S.hand_count[b, seat] += 1
            k += 1
    S.discard[b, 0] = order[k]
    S.discard_len[b] = 1
    S.draw_pos[b] = k + 1
    S.current_player[b] = seat_add(dealer, 1, p)
    S.to_act[b] = S.current_player[b]


@njit(cache=True, _nrt=False, error_model="numpy")
def reset_row(K, S, b, q):
    """Start queue game ``q`` in row ``b``: seed its streams, pick the first dealer, deal round 1.

    Streams (:mod:`cya_sim.rng`): 0 = engine, 1 + s = agent at seat s. The
    first dealer is ``floor(u * P)`` for the engine stream's first draw (R-SETUP).
    """
    p = K.cfg[C_P]
    g = S.q_game_index[q]
    key = S.key[0]
    S.queue_pos[b] = q
    S.game_index[b] = g
    S.done[b] = False
    seed_stream(S.engine_rng[b], key, g, 0)
    for s in range(p):
        seed_stream(S.agent_rng[b, s], key, g, 1 + s)
        S.agent_kind[b, s] = S.q_agent_kind[q, s]
        S.totals[b, s] = 0
        S.round_wins[b, s] = 0
    S.eligible[b] = 0
    S.extra_rounds[b] = 0
    S.winners[b] = 0
    S.capped[b] = False
    S.turns[b] = 0
    S.challenges[b] = 0
    S.decisions[b] = 0
    S.largest_steal[b] = 0
    S.round[b] = 0
    d = int(next_double(S.engine_rng[b]) * p)
    S.dealer[b] = d
    S.first_dealer[b] = d
    if S.log_len.shape[0] > 0:
        S.log_len[q] = 0
    start_round(K, S, b)


@njit(cache=True, _nrt=False, error_model="numpy")
def finish_and_refill(K, S, b):
    """Auto-reset: record the finished game of row ``b`` in the results, then start the next queued game.

    The row becomes inactive (``queue_pos = -1``, ``to_act = -1``) when the queue is empty.
    """
    q = S.queue_pos[b]
    p = K.cfg[C_P]
    if q >= 0:
        S.r_done[q] = True
        S.r_first_dealer[q] = S.first_dealer[b]
        for s in range(p):
            S.r_totals[q, s] = S.totals[b, s]
        S.r_winners[q] = S.winners[b]
        S.r_rounds[q] = S.round[b]
        S.r_turns[q] = S.turns[b]
        S.r_challenges[q] = S.challenges[b]
        S.r_decisions[q] = S.decisions[b]
        S.r_largest_steal[q] = S.largest_steal[b]
        S.r_capped[q] = S.capped[b]
    nq = S.q_next[0]
    if nq < S.q_game_index.shape[0]:
        S.q_next[0] = nq + 1
        reset_row(K, S, b, nq)
    else:
        S.queue_pos[b] = -1
        S.done[b] = True
        S.to_act[b] = -1


# -- applying actions (R-TURN, §4, R-REFILL, R-ROUND-END) -----------------------------------------------------
@njit(cache=True, _nrt=False, error_model="numpy", inline="always")
def _push_set(K, S, b, seat, st):
    S.set_below[b, st] = S.stack_top[b, seat]
    S.stack_top[b, seat] = st
    S.stack_len[b, seat] += 1
    S.stack_value[b, seat] += S.set_value[b, st]


@njit(cache=True, _nrt=False, error_model="numpy", inline="always")
def _new_set(K, S, b, seat, asset, card0, known0, card1):
    """R-NEW-SET: a new set [card0, card1] with ``asset`` on top goes on top of ``seat``'s stack."""
    st = S.n_sets[b]
    S.n_sets[b] = st + 1
    S.set_asset[b, st] = asset
    S.set_size[b, st] = 2
    S.set_value[b, st] = K.values[card0] + K.values[card1]
    S.set_card0[b, st] = card0
    S.set_known0[b, st] = known0
    S.set_counts[b, st, card0] += 1  # zero since start_round cleared the slot
    S.set_counts[b, st, card1] += 1
    _push_set(K, S, b, seat, st)


@njit(cache=True, _nrt=False, error_model="numpy", inline="always")
def _play_challenge_card(S, b, seat, card):
    """R-CH-EXCHANGE: ``seat`` shows ``card``; the other side must answer."""
    S.hands[b, seat, card] -= 1
    S.hand_count[b, seat] -= 1
    n = S.ch_len[b]
    S.ch_cards[b, n] = card
    S.ch_players[b, n] = seat
    S.ch_len[b] = n + 1
    S.played[b, seat] = True
    S.to_act[b] = S.ch_defender[b] if seat == S.ch_challenger[b] else S.ch_challenger[b]


@njit(cache=True, _nrt=False, error_model="numpy", inline="always")
def apply_action(K, S, b, a):
    """Apply legal action ``a`` for the seat to act in row ``b``, then advance to the next decision.

    Implements R-PAIR-HAND, R-PAIR-DISCARD, R-DISCARD, R-CHALLENGE,
    R-CH-EXCHANGE, R-HIDDEN-WILD (knowledge of each set's hidden card),
    R-CH-ONE, then R-REFILL, R-TURN (empty hands skipped), R-ROUND-END,
    R-SCORE, R-GAME-END, R-TIE via :func:`end_turn`. The caller must have
    checked :func:`is_legal`; the action is not checked again here.
    """
    cfg = K.cfg
    seat = S.to_act[b]
    na = cfg[C_NA]
    p = cfg[C_P]
    public = (1 << p) - 1
    hidden = (1 << seat) if cfg[C_HIDDEN] else public
    S.decisions[b] += 1
    if S.ch_active[b]:
        if a == cfg[C_GU]:
            S.gave_up[b, seat, S.ch_asset[b]] = True  # public record of who did not answer (RULES.md §10)
            resolve_challenge(K, S, b)
        else:
            k = a - cfg[C_RE]
            card = S.ch_asset[b] if k == 0 else na + k - 1
            _play_challenge_card(S, b, seat, card)
        return
    if a < cfg[C_PD]:  # R-PAIR-HAND: the asset on top, the partner hidden beneath it
        asset = K.act_hi[a]
        k = K.act_lo[a]
        partner = asset if k == 0 else na + k - 1
        S.hands[b, seat, asset] -= 1
        S.hands[b, seat, partner] -= 1
        S.hand_count[b, seat] -= 2
        _new_set(K, S, b, seat, asset, partner, hidden, asset)
    elif a < cfg[C_CH]:  # R-PAIR-DISCARD
        c = a - cfg[C_PD]
        n = S.discard_len[b] - 1
        top = S.discard[b, n]
        S.discard_len[b] = n
        S.hands[b, seat, c] -= 1
        S.hand_count[b, seat] -= 1
        if top < na:  # the face-up asset on top; the hand card beneath is hidden
            _new_set(K, S, b, seat, top, c, hidden, top)
        else:  # a wild from the discard pile is public; the hand asset goes on top
            _new_set(K, S, b, seat, c, top, public, c)
    elif a < cfg[C_DI]:  # R-CHALLENGE, opened with one card
        offset = K.act_hi[a]
        k = K.act_lo[a]
        target = seat_add(seat, offset, p)
        asset = S.set_asset[b, S.stack_top[b, target]]
        S.ch_active[b] = True
        S.ch_challenger[b] = seat
        S.ch_defender[b] = target
        S.ch_asset[b] = asset
        S.ch_len[b] = 0
        S.challenges[b] += 1
        _play_challenge_card(S, b, seat, asset if k == 0 else na + k - 1)
        return
    else:  # R-DISCARD
        c = a - cfg[C_DI]
        S.hands[b, seat, c] -= 1
        S.hand_count[b, seat] -= 1
        S.discard[b, S.discard_len[b]] = c
        S.discard_len[b] += 1
    S.played[b, seat] = True
    end_turn(K, S, b, seat, -1)


@njit(cache=True, _nrt=False, error_model="numpy", inline="always")
def resolve_challenge(K, S, b):
    """R-CH-EXCHANGE: whoever played the last card wins the set and every challenge card.

    A winning challenger takes the defender's top set plus the challenge
    cards as one set on top of its own stack and learns all of it
    (R-HIDDEN-WILD); a winning defender's top set grows by the challenge
    cards. Then R-CH-ONE: the turn ends; R-REFILL in ``challenge_draw_order``.
    """
    n = S.ch_len[b]
    winner = S.ch_players[b, n - 1]
    chal = S.ch_challenger[b]
    defe = S.ch_defender[b]
    loser = defe if winner == chal else chal
    st = S.stack_top[b, defe]
    add = 0
    for i in range(n):
        c = S.ch_cards[b, i]
        S.set_counts[b, st, c] += 1
        add += K.values[c]
    S.set_size[b, st] += n
    S.set_value[b, st] += add
    if winner == chal:
        S.stack_top[b, defe] = S.set_below[b, st]
        S.stack_len[b, defe] -= 1
        S.stack_value[b, defe] -= S.set_value[b, st] - add
        S.set_known0[b, st] |= 1 << winner
        _push_set(K, S, b, winner, st)
        S.largest_steal[b] = max(S.largest_steal[b], S.set_value[b, st])
    else:
        S.stack_value[b, defe] += add
    S.ch_active[b] = False
    S.ch_len[b] = 0
    if K.cfg[C_ORDER] == ORDER_LOSER_FIRST:
        end_turn(K, S, b, loser, winner)
    else:
        end_turn(K, S, b, chal, defe)


@njit(cache=True, _nrt=False, error_model="numpy", inline="always")
def _refill(K, S, b, seat):
    """R-REFILL for one seat: draw up to ``hand_size`` while the draw pile lasts.

    A seat that draws a card loses its public record of giving up (RULES.md §10, ``gave_up``).
    """
    hs = K.cfg[C_HAND]
    n = K.cfg[C_N]
    pos = S.draw_pos[b]
    cnt = S.hand_count[b, seat]
    if cnt < hs and pos < n:
        for c in range(K.cfg[C_T]):
            S.gave_up[b, seat, c] = False
    while cnt < hs and pos < n:
        S.hands[b, seat, S.deck_order[b, pos]] += 1
        pos += 1
        cnt += 1
    S.draw_pos[b] = pos
    S.hand_count[b, seat] = cnt


@njit(cache=True, _nrt=False, error_model="numpy", inline="always")
def end_turn(K, S, b, first, second):
    """End the turn: R-REFILL for ``first`` then ``second`` (-1: none) if they played a card.

    Then R-TURN: the next seat clockwise with a non-empty hand moves (the
    mover itself last); R-ROUND-END: if every hand is empty, :func:`end_round`.
    """
    p = K.cfg[C_P]
    if S.played[b, first]:
        _refill(K, S, b, first)
    if second >= 0 and S.played[b, second]:
        _refill(K, S, b, second)
    for s in range(p):
        S.played[b, s] = False
    S.turns[b] += 1
    cur = S.current_player[b]
    for step in range(1, p + 1):
        nxt = seat_add(cur, step, p)
        if S.hand_count[b, nxt] > 0:
            S.current_player[b] = nxt
            S.to_act[b] = nxt
            return
    end_round(K, S, b)


@njit(cache=True, _nrt=False, error_model="numpy")
def end_round(K, S, b):
    """R-SCORE, then R-GAME-END and R-TIE; else the next round (R-NEW-ROUND, dealer moves left).

    Round wins (R-GAME-END ``round_wins``) go to every seat tied for the
    round's highest score. When the game ends, ``winners`` holds the bitmask
    of the seats sharing the win and ``done`` is set. A game still going after
    round ``max_rounds`` stops there with ``capped`` set (as the reference engine).
    """
    cfg = K.cfg
    p = cfg[C_P]
    audit = 0
    for i in range(S.discard_len[b]):
        audit += K.values[S.discard[b, i]]
    for s in range(p):
        audit += S.stack_value[b, s]
    S.round_audit[b] = audit
    best = -1
    for s in range(p):
        v = S.stack_value[b, s]
        S.totals[b, s] += v
        best = max(best, v)
    for s in range(p):
        if S.stack_value[b, s] == best:
            S.round_wins[b, s] += 1
    cand = 0
    if S.eligible[b] != 0:
        cand = S.eligible[b]
    else:
        kind = cfg[C_END_KIND]
        if kind == END_TARGET:
            mx = S.totals[b, 0]
            for s in range(1, p):
                mx = max(mx, S.totals[b, s])
            if mx >= cfg[C_TARGET]:
                cand = (1 << p) - 1
        elif kind == END_ROUNDS:
            if S.round[b] >= cfg[C_END_PARAM]:
                cand = (1 << p) - 1
        else:
            for s in range(p):
                if S.round_wins[b, s] >= cfg[C_END_PARAM]:
                    cand |= 1 << s
    if cand != 0:
        bt = -1
        for s in range(p):
            if (cand >> s) & 1 and S.totals[b, s] > bt:
                bt = S.totals[b, s]
        tied = 0
        nt = 0
        for s in range(p):
            if (cand >> s) & 1 and S.totals[b, s] == bt:
                tied |= 1 << s
                nt += 1
        if nt == 1 or cfg[C_TIE] == TIE_SHARE or S.extra_rounds[b] >= cfg[C_MAX_EXTRA]:
            S.winners[b] = tied
            S.done[b] = True
            S.to_act[b] = -1
            return
        S.eligible[b] = tied
        S.extra_rounds[b] += 1
    if S.round[b] >= cfg[C_MAX_ROUNDS]:  # the simulator's round cap (RuleSet.max_rounds), as the reference
        cand = S.eligible[b] if S.eligible[b] != 0 else (1 << p) - 1
        bt = -1
        for s in range(p):
            if (cand >> s) & 1 and S.totals[b, s] > bt:
                bt = S.totals[b, s]
        tied = 0
        for s in range(p):
            if (cand >> s) & 1 and S.totals[b, s] == bt:
                tied |= 1 << s
        S.winners[b] = tied
        S.capped[b] = True
        S.done[b] = True
        S.to_act[b] = -1
        return
    S.dealer[b] = seat_add(S.dealer[b], 1, p)
    start_round(K, S, b)


@njit(cache=True, _nrt=False, error_model="numpy", inline="always")
def log_action(S, b, a):
    """Append action ``a`` to the action log of row ``b``'s game, when logging is on (R-TURN record)."""
    if S.log_len.shape[0] == 0:
        return True
    q = S.queue_pos[b]
    n = S.log_len[q]
    if n >= S.log_actions.shape[1]:
        return False
    S.log_actions[q, n] = a
    S.log_len[q] = n + 1
    return True
