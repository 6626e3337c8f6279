"""Compiled loops over a batch: fill rows, play compiled agents, check and apply actions."""

from __future__ import annotations

from numba import njit

from agents.compiled import agent_act
from cya_sim.engine.batched.kernels import (
    ERR_ILLEGAL,
    ERR_LOG_FULL,
    ERR_NONE,
    apply_action,
    finish_and_refill,
    is_legal,
    log_action,
)


@njit(cache=True, _nrt=False, error_model="numpy")
def fill_rows(K, S):
    """Start a queued game in every idle row (auto-reset); finished games are recorded first."""
    for b in range(S.to_act.shape[0]):
        if S.done[b]:
            finish_and_refill(K, S, b)


@njit(cache=True, _nrt=False, error_model="numpy")
def advance(K, S):
    """Play every row with its compiled agents until a Python agent must act or the queue is empty.

    Whole games run here when every seat is compiled: the agent of the seat
    to act is called (agents.compiled.agent_act), its action is checked with
    :func:`is_legal`, logged, and applied; a finished game is recorded and
    the row takes the next queued game (auto-reset).

    Returns:
        the number of rows waiting for a Python agent (int >= 0), or -1 after
        an error: ``S.err = [code, row, action]`` (ERR_ILLEGAL, ERR_LOG_FULL);
        the row with the error is left unchanged, other rows are consistent.
    """
    waiting = 0
    for b in range(S.to_act.shape[0]):
        while True:
            if S.done[b]:
                if S.queue_pos[b] < 0:
                    break
                finish_and_refill(K, S, b)
                continue
            seat = S.to_act[b]
            kind = S.agent_kind[b, seat]
            if kind < 0:
                waiting += 1
                break
            a = agent_act(K, S, b, seat, kind)
            if not is_legal(K, S, b, a):
                S.err[0] = ERR_ILLEGAL
                S.err[1] = b
                S.err[2] = a
                return -1
            if not log_action(S, b, a):
                S.err[0] = ERR_LOG_FULL
                S.err[1] = b
                S.err[2] = a
                return -1
            apply_action(K, S, b, a)
    return waiting


@njit(cache=True, _nrt=False, error_model="numpy")
def check_actions(K, S, actions, rows):
    """First row ``b`` with ``rows[b]`` whose action is illegal for its seat to act, or -1.

    actions: (B,) int64; rows: (B,) bool; idle rows and rows not in ``rows`` are ignored.
    """
    for b in range(S.to_act.shape[0]):
        if S.done[b] or not rows[b]:
            continue
        if not is_legal(K, S, b, actions[b]):
            return b
    return -1


@njit(cache=True, _nrt=False, error_model="numpy")
def apply_actions(K, S, actions, rows):
    """Apply ``actions[b]`` in every row ``b`` with ``rows[b]`` true and a game in progress, then auto-reset.

    The actions must have passed :func:`check_actions`. Returns ERR_NONE or ERR_LOG_FULL.
    """
    for b in range(S.to_act.shape[0]):
        if not rows[b] or S.done[b]:
            continue
        if not log_action(S, b, actions[b]):
            S.err[0] = ERR_LOG_FULL
            S.err[1] = b
            S.err[2] = actions[b]
            return ERR_LOG_FULL
        apply_action(K, S, b, actions[b])
        if S.done[b]:
            finish_and_refill(K, S, b)
    return ERR_NONE
