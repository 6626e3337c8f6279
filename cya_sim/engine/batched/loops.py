"""Compiled loops of the batch driver over its rows, for every game: start queued games, check and apply actions.

They take ``K`` (the game's constants record), ``R`` the rows ((B, W) int64), ``ER`` (B, 4) and ``AR`` (B, P, 4)
uint64 the engine and agent streams, and ``Q`` the game's queue (:mod:`cya_sim.engine.batched.state`). The game's
rules are reached through the hooks of :mod:`cya_sim.engine.hooks` (compiled once per game, cached). No agent is
called here: the play loop (:mod:`cya_sim.play.loop`) chooses actions.

Seeding as in :mod:`cya_sim.game.rng`: queued game ``g`` uses stream 0 of ``(key, g)`` for the engine (shuffles and
the like) and stream ``1 + s`` for the agent at seat ``s``, so a game depends only on (rules, line-up, key, g), never
on the batch size.
"""

from __future__ import annotations

from cya_sim.engine.hooks import apply_action, is_legal, new_game, per_game, record_result, row_slots
from cya_sim.engine.pcg import seed_stream

#: Error codes of the queue's ``err`` (err[0] code, err[1] row, err[2] action).
ERR_NONE, ERR_ILLEGAL, ERR_LOG_FULL = 0, 1, 2


@per_game
def reset_row(K, R, ER, AR, Q, b, q):
    """Start queue game ``q`` in row ``b``: seed its streams (0 = engine, 1 + s = agent at seat s) and deal it."""
    G = R[b]
    _, _, game_index, queue_pos = row_slots(K)
    g = Q.q_game_index[q]
    key = Q.key[0]
    G[queue_pos] = q
    G[game_index] = g
    seed_stream(ER[b], key, g, 0)
    for s in range(AR.shape[1]):
        seed_stream(AR[b, s], key, g, 1 + s)
    if Q.log_len.shape[0] > 0:
        Q.log_len[q] = 0
    new_game(K, G, ER[b])


@per_game
def finish_and_refill(K, R, ER, AR, Q, b):
    """Auto-reset: record the finished game of row ``b`` in the results, then start the next queued game.

    The row becomes idle (``queue_pos = -1``, ``to_act = -1``, ``done = 1``) when the queue is empty.
    """
    G = R[b]
    done, to_act, _, queue_pos = row_slots(K)
    q = G[queue_pos]
    if q >= 0:
        Q.r_done[q] = True
        record_result(K, G, Q, q)
    nq = Q.q_next[0]
    if nq < Q.q_game_index.shape[0]:
        Q.q_next[0] = nq + 1
        reset_row(K, R, ER, AR, Q, b, nq)
    else:
        G[queue_pos] = -1
        G[done] = 1
        G[to_act] = -1


@per_game
def fill_rows(K, R, ER, AR, Q):
    """Start a queued game in every idle row (auto-reset); finished games are recorded first."""
    done = row_slots(K)[0]
    for b in range(R.shape[0]):
        if R[b, done]:
            finish_and_refill(K, R, ER, AR, Q, b)


@per_game
def log_action(K, Q, G, a):
    """Append action ``a`` to the action log of row ``G``'s game when logging is on; False if the log is full."""
    if Q.log_len.shape[0] == 0:
        return True
    q = G[row_slots(K)[3]]
    n = Q.log_len[q]
    if n >= Q.log_actions.shape[1]:
        return False
    Q.log_actions[q, n] = a
    Q.log_len[q] = n + 1
    return True


@per_game
def check_actions(K, R, actions, rows):
    """First row ``b`` with ``rows[b]`` whose action is illegal for its seat to act, or -1.

    actions: (B,) int64; rows: (B,) bool; idle rows and rows not in ``rows`` are ignored.
    """
    done = row_slots(K)[0]
    for b in range(R.shape[0]):
        if R[b, done] or not rows[b]:
            continue
        if not is_legal(K, R[b], actions[b]):
            return b
    return -1


@per_game
def apply_actions(K, R, ER, AR, Q, actions, rows):
    """Apply ``actions[b]`` in every row ``b`` with ``rows[b]`` true and a game in progress, then auto-reset.

    The actions must have passed :func:`check_actions`. Returns ERR_NONE or ERR_LOG_FULL.
    """
    done = row_slots(K)[0]
    for b in range(R.shape[0]):
        if not rows[b] or R[b, done]:
            continue
        G = R[b]
        if not log_action(K, Q, G, actions[b]):
            Q.err[0] = ERR_LOG_FULL
            Q.err[1] = b
            Q.err[2] = actions[b]
            return ERR_LOG_FULL
        apply_action(K, G, ER[b], actions[b])
        if G[done]:
            finish_and_refill(K, R, ER, AR, Q, b)
    return ERR_NONE
