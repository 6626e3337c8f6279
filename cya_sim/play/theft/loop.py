"""The compiled theft play loop: the batched theft engine's rows played by compiled policies (RULES.md §9).

:func:`advance` joins the batched theft engine (:mod:`cya_sim.engine.theft.batched`, the rules kernel
:mod:`cya_sim.engine.theft.kernel`) and the compiled theft policies of ``agents/``
(:func:`agents.theft.compiled.policy_act`). It is compiled once and cached: compiled theft plug-ins
are called by their C address (:mod:`agents.theft.view`), so no policy recompiles it.
"""

from __future__ import annotations

from numba import njit

from agents.theft.compiled import policy_act
from cya_sim.engine.theft.batched import ERR_ILLEGAL, ERR_LOG_FULL, finish_and_refill, log_action
from cya_sim.engine.theft.kernel import apply_action, is_legal
from cya_sim.engine.theft.layout import G_DONE, G_QUEUE_POS, G_TO_ACT


@njit(cache=True, _nrt=False, error_model="numpy")
def advance(K, R, ER, AR, Q, pcode, paddr, params, sc):
    """Play every row with its compiled policies until a Python agent must act or the queue is empty.

    Args:
        K, R, ER, AR, Q: the batched theft engine's constants, rows, engine and agent streams and queue
            (:class:`~cya_sim.engine.theft.batched.TheftBatchState`).
        pcode: (K_agents,) int64 — for each agent of the state's ``agent_names``, its compiled policy code
            (``agents.theft.compiled.POLICY_*``), -1 for a Python agent.
        paddr: (K_agents,) int64 — each view policy's C address (:mod:`agents.theft.view`), else 0.
        params: (K_agents, N_AGENT_PARAMS) float64 — each agent's parameters.
        sc: the policies' :class:`agents.theft.compiled.TheftScratch`.

    The policy of the seat to act is called, its action checked with
    :func:`~cya_sim.engine.theft.kernel.is_legal`, logged and applied; a finished game is recorded and the row
    takes the next queued game.

    Returns:
        the number of rows waiting for a Python agent (int >= 0), or -1 after an error:
        ``Q.err = [code, row, action]`` (ERR_ILLEGAL, ERR_LOG_FULL); the row with the error is left
        unchanged, other rows are consistent.
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
            a = policy_act(code, paddr[ai], K, G, seat, params[ai], AR[b, seat], sc)
            if not is_legal(K, G, a):
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


def callee_plan(rules, n_players: int) -> list:
    """The separately compiled functions :func:`advance` reaches, with the argument types of its calls.

    ``(dispatcher, argument types)`` pairs, roughly in the reverse of the order in which compiling :func:`advance`
    reaches them: the warm-up's second process compiles them into numba's disk cache
    (``dispatcher.compile(types)``) while the first compiles :func:`advance`, which then loads each one it has not
    reached yet (:func:`cya_sim.runs.warmup.warm_up`; as :func:`cya_sim.play.classic.loop.callee_plan` for the classic
    family). A pair whose types differ from the loop's call only costs its own compile.
    """
    import numpy as np
    from numba import typeof, types

    from agents.theft import compiled as tc
    from agents.theft import view as tv
    from cya_sim.engine.theft import batched
    from cya_sim.engine.theft import kernel as kn

    st = batched.init(rules, n_players, 1, 1, np.zeros(1, np.int64), np.zeros((1, n_players), np.int16), ["random"])
    sc = tc.new_theft_scratch(st.consts)
    k, g, r, s, i = typeof(st.consts), typeof(st.rows[0]), typeof(st.engine_rng[0]), typeof(sc), types.int64
    f = typeof(np.zeros(16))
    view = (k, g, i, typeof(sc.hdr), typeof(sc.hand), typeof(sc.unseen), typeof(sc.assets), typeof(sc.mask),
            typeof(sc.ids))
    return [
        (kn.apply_action, (k, g, r, i)), (kn.is_legal, (k, g, i)), (tv.build_view_row, view),
        (tc.defender_act, (k, g, i, s)), (tc.greedy_act, (k, g, i, s)), (tc.random_act, (k, g, i, r, s)),
        (tc.policy_act, (i, i, k, g, i, f, r, s)), (kn.new_game, (k, g, r)),
    ]
