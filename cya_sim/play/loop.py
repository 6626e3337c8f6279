"""The compiled play loop of every game: the batched engine's rows played by compiled policies until a Python seat
must act.

:func:`advance` joins the batch driver (:mod:`cya_sim.engine.batched.loops`), a game's rules kernel and its compiled
policies through the hooks of :mod:`cya_sim.engine.hooks` and :mod:`agents.hooks`. It is compiled once per game and
cached: view policies (``heuristic``, ``card_counter``, ``oracle``, compiled plug-ins of either game) are called by
their C address (:mod:`agents.view_abi`), so no policy recompiles it.
"""

from __future__ import annotations

from agents.hooks import act
from cya_sim.engine.batched.loops import ERR_ILLEGAL, ERR_LOG_FULL, finish_and_refill, log_action
from cya_sim.engine.hooks import apply_action, is_legal, per_game, row_slots


@per_game
def advance(K, R, ER, AR, Q, pcode, paddr, params, sc):
    """Play every row with its compiled policies until a Python agent must act or the queue is empty.

    Args:
        K, R, ER, AR, Q: the batched engine's constants, rows, engine and agent streams and queue
            (:class:`~cya_sim.engine.batched.state.BatchState`).
        pcode: (K_agents,) int64 — for each agent of the state's ``agent_names``, its compiled
            policy code (the game's ``POLICY_*``), -1 for a Python agent.
        paddr: (K_agents,) int64 — each view policy's C address (:mod:`agents.view_abi`), else 0.
        params: (K_agents, N_AGENT_PARAMS) float64 — each agent's parameters.
        sc: the game's policy scratch.

    The policy of the seat to act is called (:func:`agents.hooks.act`), its action checked with the game's
    ``is_legal``, logged and applied; a finished game is recorded and the row takes the next queued game.

    Returns:
        the number of rows waiting for a Python agent (int >= 0), or -1 after
        an error: ``Q.err = [code, row, action]`` (ERR_ILLEGAL, ERR_LOG_FULL);
        the row with the error is left unchanged, other rows are consistent.
    """
    done, to_act, _, queue_pos = row_slots(K)
    waiting = 0
    for b in range(R.shape[0]):
        G = R[b]
        while True:
            # the finished-game branch is written last so that compiling this loop reaches the set-up kernels last
            # (the warm-up's second process compiles them first: cya_sim.play.kernels.compile_callees)
            if not G[done]:
                seat = G[to_act]
                ai = Q.q_seat_agent[G[queue_pos], seat]
                code = pcode[ai]
                if code < 0:
                    waiting += 1
                    break
                a = act(code, paddr[ai], K, G, seat, params[ai], AR[b, seat], sc)
                if not is_legal(K, G, a):
                    Q.err[0] = ERR_ILLEGAL
                    Q.err[1] = b
                    Q.err[2] = a
                    return -1
                if not log_action(K, Q, G, a):
                    Q.err[0] = ERR_LOG_FULL
                    Q.err[1] = b
                    Q.err[2] = a
                    return -1
                apply_action(K, G, ER[b], a)
                continue
            if G[queue_pos] < 0:
                break
            finish_and_refill(K, R, ER, AR, Q, b)
    return waiting
