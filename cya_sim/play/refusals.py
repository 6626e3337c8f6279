"""Refusing what a compiled policy did in the batched engine's compiled loop, for both games.

The compiled play loop (:mod:`cya_sim.play.loop`) stops at the first decision
that is not legal in its row and leave ``[code, row, action]`` in the queue's error slot. A compiled plug-in
that raised shows there as :data:`agents.view_abi.PLUGIN_RAISED` (its generated C entry caught the exception:
numba's C entries cannot raise, and would have returned 0). :func:`refuse_compiled_action` turns that into one
line naming the agent, the seat, the game and what happened; the games of the batch are never returned.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from agents.view_abi import PLUGIN_RAISED, describe_action
from cya_sim.engine.agent_calls import AgentError


def refuse_compiled_action(state: Any, row: int, action: int, raise_illegal: Callable[[Any, int, int], None]) -> None:
    """Raise the refusal of ``action`` (int), chosen by the compiled policy of the seat to act in ``row``.

    Args:
        state: a batched state of either game (``to_act``, ``queue_pos``, ``q_seat_agent``, ``agent_names``,
            ``game_index``). row: the row that stopped. raise_illegal: the engine's refusal of an illegal id
            (``cya_sim.engine.batched.api.raise_illegal`` or the theft engine's).

    Raises:
        AgentError: the policy raised (:data:`agents.view_abi.PLUGIN_RAISED`); names agent, seat and game.
        IllegalActionError: (through ``raise_illegal``) an id outside the action space or not legal there.
    """
    if action == PLUGIN_RAISED:
        seat = int(state.to_act[row])
        q = int(state.queue_pos[row])
        agent = state.agent_names[int(state.q_seat_agent[q, seat])] if q >= 0 and seat >= 0 else "?"
        raise AgentError(f"agent {agent!r} at seat {seat} in game {int(state.game_index[row])} "
                         f"{describe_action(action)}; no game of this batch is kept")
    raise_illegal(state, row, action)
