"""The compiled play loop: the batched engine's rows played by compiled policies until a Python seat must act.

:func:`advance` joins the engine (:mod:`cya_sim.engine.batched.loops`, the
rules kernel :mod:`cya_sim.engine.classic.kernel`) and the compiled policies of
``agents/`` (:func:`agents.classic.compiled.policy_act`). It is compiled once and cached:
view policies (``heuristic``, ``card_counter``, ``oracle``, compiled plug-ins) are
called by their C address (:mod:`agents.view_abi`), so no policy recompiles it.
"""

from __future__ import annotations

from numba import njit

from agents.classic.compiled import POLICY_GREEDY, greedy_act, policy_act
from cya_sim.engine.batched.loops import ERR_ILLEGAL, ERR_LOG_FULL, finish_and_refill, log_action
from cya_sim.engine.classic.kernel import apply_action, is_legal_inline
from cya_sim.engine.classic.layout import G_DONE, G_QUEUE_POS, G_TO_ACT


@njit(cache=True, _nrt=False, error_model="numpy")
def advance(K, R, ER, AR, Q, pcode, paddr, params, sc):
    """Play every row with its compiled policies until a Python agent must act or the queue is empty.

    Args:
        K, R, ER, AR, Q: the batched engine's constants, rows, engine and agent streams and queue
            (:class:`~cya_sim.engine.batched.state.BatchState`).
        pcode: (K_agents,) int64 — for each agent of the state's ``agent_names``, its compiled
            policy code (``agents.classic.compiled.POLICY_*``), -1 for a Python agent.
        paddr: (K_agents,) int64 — each view policy's C address (:mod:`agents.view_abi`), else 0.
        params: (K_agents, N_AGENT_PARAMS) float64 — each agent's parameters.
        sc: the policies' :class:`agents.classic.compiled.Scratch`.

    The policy of the seat to act is called, its action checked with
    :func:`~cya_sim.engine.classic.kernel.is_legal` (inlined), logged and applied; a
    finished game is recorded and the row takes the next queued game.

    Returns:
        the number of rows waiting for a Python agent (int >= 0), or -1 after
        an error: ``Q.err = [code, row, action]`` (ERR_ILLEGAL, ERR_LOG_FULL);
        the row with the error is left unchanged, other rows are consistent.
    """
    waiting = 0
    for b in range(R.shape[0]):
        G = R[b]
        while True:
            if G[G_DONE]:
                if G[G_QUEUE_POS] < 0:
                    break
                finish_and_refill(K, R, ER, AR, Q, b)
                continue
            seat = G[G_TO_ACT]
            ai = Q.q_seat_agent[G[G_QUEUE_POS], seat]
            code = pcode[ai]
            if code < 0:
                waiting += 1
                break
            if code == POLICY_GREEDY:  # the common policy inlined here (no call with the constants' arrays)
                a = greedy_act(K, G, seat, params[ai], AR[b, seat], sc)
            else:
                a = policy_act(code, paddr[ai], K, G, seat, params[ai], AR[b, seat], sc)
            if not is_legal_inline(K, G, a):
                Q.err[0] = ERR_ILLEGAL
                Q.err[1] = b
                Q.err[2] = a
                return -1
            if not log_action(Q, G, a):
                Q.err[0] = ERR_LOG_FULL
                Q.err[1] = b
                Q.err[2] = a
                return -1
            apply_action(K, G, ER[b], a)
    return waiting


def callee_plan(K, G, rng, sc) -> list:
    """The separately compiled functions :func:`advance` reaches, with the argument types of its calls.

    ``(dispatcher, argument types)`` pairs, roughly in the reverse of the order in which compiling
    :func:`advance` reaches them: a second process compiles them into numba's disk cache
    (``dispatcher.compile(types)``) while the first compiles :func:`advance`, which then loads each one
    it has not reached yet instead of compiling it (:func:`cya_sim.runs.warmup.warm_up`). The cache keeps a
    function's LLVM bitcode for linking, so the loop's machine code is the same either way; a pair whose
    types differ from the loop's call only costs its own compile (``tests/test_warmup.py`` checks them).

    Args: K the rule constants, G a (W,) int64 row, rng a (4,) uint64 stream, sc an :class:`agents.classic.compiled.Scratch`
    (values only give their types).
    """
    from numba import typeof, types

    from agents.classic.compiled_advanced import greedy_advanced_act
    from agents.classic.compiled_draft import best_take, open_if_able
    from agents.classic.compiled_strategy import gives_up_at_once, oracle_view, view_row
    from cya_sim.engine.classic import advanced as adv
    from cya_sim.engine.classic import draft, kernel

    k, g, r, s, i = typeof(K), typeof(G), typeof(rng), typeof(sc), types.int64
    # a constant argument at an (inlined) call site gets its own literal-typed compile: the plan lists those too
    yes, no, minus_one = types.literal(True), types.literal(False), types.literal(-1)
    return [
        (view_row, (k, g, i, s)), (kernel.resolve_challenge, (k, g, r)), (adv.turn_action, (k, g, i, i)),
        (draft.apply, (k, g, i)), (kernel.end_round, (k, g, r)), (kernel.second_action_or_end, (k, g, r, no)),
        (kernel.second_action_or_end, (k, g, r, yes)), (kernel.end_two_action_turn, (k, g, r)),
        (draft.finish, (k, g)), (kernel.piles_then_done, (k, g, r, i, i)), (kernel.piles_then_done, (k, g, r, i, minus_one)),
        (draft.is_legal, (k, g, i)), (adv.pre_legal, (k, g, i)), (oracle_view, (k, g, s)),
        (gives_up_at_once, (k, g, i)), (kernel.legal_list, (k, g, g)), (greedy_advanced_act, (k, g, i)),
        (best_take, (k, g, i, g, i, i)), (open_if_able, (k, g, i)),
    ]
