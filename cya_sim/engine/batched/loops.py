"""Compiled loops of the batched engine over its rows: start queued games, check and apply actions.

They take ``K`` (:class:`~cya_sim.engine.classic.layout.Consts`), ``R`` the
rows ((B, W) int64), ``ER`` (B, 4) and ``AR`` (B, P, 4) uint64 the engine and
agent streams, and ``Q`` the :class:`~cya_sim.engine.batched.state.Queue`.
No agent is called here: the play loop (``cya_sim.play``) chooses actions.
"""

from __future__ import annotations

from numba import njit

from cya_sim.engine.classic.kernel import apply_action, is_legal, new_game
from cya_sim.engine.classic.layout import (
    B_TOTAL,
    C_P,
    G_CAPPED,
    G_CHALLENGES,
    G_DECISIONS,
    G_DONE,
    G_FIRST_DEALER,
    G_GAME_INDEX,
    G_LARGEST_STEAL,
    G_QUEUE_POS,
    G_ROUND,
    G_TO_ACT,
    G_TURNS,
    G_WINNERS,
)
from cya_sim.engine.pcg import seed_stream

#: Error codes of ``Queue.err`` (err[0] code, err[1] row, err[2] action).
ERR_NONE, ERR_ILLEGAL, ERR_LOG_FULL = 0, 1, 2

_JIT = {"cache": True, "_nrt": False, "error_model": "numpy"}


@njit(**_JIT)
def reset_row(K, R, ER, AR, Q, b, q):
    """Start queue game ``q`` in row ``b``: seed its streams, deal round 1 (R-SETUP).

    Streams (:mod:`cya_sim.game.rng`): 0 = engine, 1 + s = agent at seat s.
    """
    G = R[b]
    g = Q.q_game_index[q]
    key = Q.key[0]
    G[G_QUEUE_POS] = q
    G[G_GAME_INDEX] = g
    seed_stream(ER[b], key, g, 0)
    for s in range(K.cfg[C_P]):
        seed_stream(AR[b, s], key, g, 1 + s)
    if Q.log_len.shape[0] > 0:
        Q.log_len[q] = 0
    new_game(K, G, ER[b])


@njit(**_JIT)
def finish_and_refill(K, R, ER, AR, Q, b):
    """Auto-reset: record the finished game of row ``b`` in the results, then start the next queued game.

    The row becomes idle (``queue_pos = -1``, ``to_act = -1``, ``done = 1``) when the queue is empty.
    """
    G = R[b]
    q = G[G_QUEUE_POS]
    if q >= 0:
        Q.r_done[q] = True
        Q.r_first_dealer[q] = G[G_FIRST_DEALER]
        t0 = K.lay[B_TOTAL]
        for s in range(K.cfg[C_P]):
            Q.r_totals[q, s] = G[t0 + s]
        Q.r_winners[q] = G[G_WINNERS]
        Q.r_rounds[q] = G[G_ROUND]
        Q.r_turns[q] = G[G_TURNS]
        Q.r_challenges[q] = G[G_CHALLENGES]
        Q.r_decisions[q] = G[G_DECISIONS]
        Q.r_largest_steal[q] = G[G_LARGEST_STEAL]
        Q.r_capped[q] = G[G_CAPPED] != 0
    nq = Q.q_next[0]
    if nq < Q.q_game_index.shape[0]:
        Q.q_next[0] = nq + 1
        reset_row(K, R, ER, AR, Q, b, nq)
    else:
        G[G_QUEUE_POS] = -1
        G[G_DONE] = 1
        G[G_TO_ACT] = -1


@njit(**_JIT)
def fill_rows(K, R, ER, AR, Q):
    """Start a queued game in every idle row (auto-reset); finished games are recorded first."""
    for b in range(R.shape[0]):
        if R[b, G_DONE]:
            finish_and_refill(K, R, ER, AR, Q, b)


@njit(**_JIT)
def log_action(Q, G, a):
    """Append action ``a`` to the action log of row ``G``'s game when logging is on; False if the log is full."""
    if Q.log_len.shape[0] == 0:
        return True
    q = G[G_QUEUE_POS]
    n = Q.log_len[q]
    if n >= Q.log_actions.shape[1]:
        return False
    Q.log_actions[q, n] = a
    Q.log_len[q] = n + 1
    return True


@njit(**_JIT)
def check_actions(K, R, actions, rows):
    """First row ``b`` with ``rows[b]`` whose action is illegal for its seat to act, or -1.

    actions: (B,) int64; rows: (B,) bool; idle rows and rows not in ``rows`` are ignored.
    """
    for b in range(R.shape[0]):
        if R[b, G_DONE] or not rows[b]:
            continue
        if not is_legal(K, R[b], actions[b]):
            return b
    return -1


@njit(**_JIT)
def apply_actions(K, R, ER, AR, Q, actions, rows):
    """Apply ``actions[b]`` in every row ``b`` with ``rows[b]`` true and a game in progress, then auto-reset.

    The actions must have passed :func:`check_actions`. Returns ERR_NONE or ERR_LOG_FULL.
    """
    for b in range(R.shape[0]):
        if not rows[b] or R[b, G_DONE]:
            continue
        G = R[b]
        if not log_action(Q, G, actions[b]):
            Q.err[0] = ERR_LOG_FULL
            Q.err[1] = b
            Q.err[2] = actions[b]
            return ERR_LOG_FULL
        apply_action(K, G, ER[b], actions[b])
        if G[G_DONE]:
            finish_and_refill(K, R, ER, AR, Q, b)
    return ERR_NONE
