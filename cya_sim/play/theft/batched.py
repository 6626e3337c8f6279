"""Playing theft games on the batched theft engine: compiled policies in the compiled loop (RULES.md §9).

Seats of agents with a compiled form (``random``, ``greedy``, ``defender`` and compiled theft plug-ins,
:mod:`agents.theft.view`) play inside compiled code (:func:`cya_sim.play.theft.loop.advance`, compiled once
and cached); a ``module:Class`` theft agent goes step by step: for each of its decisions the row is
read back into a reference state (:func:`cya_sim.engine.theft.rows.row_to_state`), the seat's
:class:`~cya_sim.engine.theft.observation.TheftObservation` is built and ``agent.act(obs, rng)`` is called
with the seat's NumPy stream, as the reference play does. Results equal
:func:`cya_sim.play.theft.reference.play_theft_games`'s game by game (``tests/test_theft_differential.py``) and do
not depend on ``batch_size``.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence

import numpy as np

from agents.theft.compiled import new_theft_scratch, theft_policy_of
from agents.theft.registry import make_theft_agent
from cya_sim.engine.agent_calls import action_id, call_agent
from cya_sim.engine.theft.batched import (
    DEFAULT_BATCH_SIZE,
    ERR_LOG_FULL,
    TheftBatchState,
    TheftIllegalBatchActionError,
    init,
    raise_illegal,
    results,
    step,
)
from cya_sim.engine.theft.observation import observe
from cya_sim.engine.theft.rows import row_to_state
from cya_sim.game.rng import stream_generator
from cya_sim.game.theft.rules import TheftRuleSet
from cya_sim.play.refusals import refuse_compiled_action
from cya_sim.play.theft.loop import advance
from cya_sim.play.theft.reference import TheftTurnCapWarning

#: Rows side by side when a Python agent plays (its decisions are Python calls whichever the batch).
PYTHON_BATCH_SIZE = 16


class TheftLineup:
    """How each theft agent of a batch is played: compiled policy code, C address and parameters.

    Attributes:
        codes: (K,) int64 policy code per agent (-1: a Python agent; :func:`agents.theft.compiled.theft_policy_of`).
        addrs: (K,) int64 each plug-in's C address (0 for the others). params: (K, N_AGENT_PARAMS) float64.

    Raises:
        ValueError: an unknown theft agent, parameters it does not take, a plug-in not importable.
    """

    def __init__(self, agents: Sequence[str]) -> None:
        slots = [theft_policy_of(a) for a in agents]
        self.codes = np.array([c for c, _, _ in slots], np.int64)
        self.addrs = np.array([a for _, a, _ in slots], np.int64)
        self.params = np.array([p for _, _, p in slots], np.float64).reshape(len(agents), -1)


def run_compiled(state: TheftBatchState, lineup: TheftLineup) -> int:
    """Play the compiled seats of every row until a Python seat must act or the queue is empty.

    Returns:
        the number of rows waiting for a Python agent.

    Raises:
        TheftIllegalBatchActionError: a compiled policy chose an illegal action (names agent, seat, game, action).
        RuntimeError: the action log (``log_cap``) is full.
    """
    waiting = advance(state.consts, state.rows, state.engine_rng, state.agent_rng, state.queue, lineup.codes,
                      lineup.addrs, lineup.params, new_theft_scratch(state.consts))
    if waiting < 0:
        row, action = int(state.err[1]), int(state.err[2])
        if state.err[0] == ERR_LOG_FULL:
            raise RuntimeError(f"action log full in game {int(state.game_index[row])}; raise log_cap")
        refuse_compiled_action(state, row, action, raise_illegal)
    return int(waiting)


def _play_with_python_agents(state: TheftBatchState, lineup: TheftLineup,
                             progress: Callable[[int], None] | None) -> None:
    """Play every queued game to the end, the Python seats step by step (module docstring)."""
    key = int(state.key[0])
    rules = state.rules
    current: dict[int, tuple[int, list, list]] = {}
    while True:
        before = int(state.r_done.sum())
        run_compiled(state, lineup)
        actions = np.zeros(state.batch_size, np.int64)
        rows = np.zeros(state.batch_size, bool)
        for b in np.flatnonzero(state.done == 0).tolist():
            seat = int(state.to_act[b])
            q = int(state.queue_pos[b])
            g = int(state.q_game_index[q])
            if b not in current or current[b][0] != q:
                names = [state.agent_names[int(j)] for j in state.q_seat_agent[q]]
                current[b] = (q, [make_theft_agent(nm) for nm in names],
                              [stream_generator(key, g, 1 + s) for s in range(state.n_players)])
            _, seat_agents, rngs = current[b]
            name = state.agent_names[int(state.q_seat_agent[q, seat])]
            obs = observe(row_to_state(rules, state.consts, state.rows[b]), seat)
            # the classic family's checks (cya_sim.engine.agent_calls): an exception names agent, seat and game;
            # anything but an integer id inside the action space (1.7, "3", True, None, 10**30) is refused
            action = call_agent(seat_agents[seat], name, seat, g, obs, rngs[seat])
            try:
                action = action_id(action, name, seat, g, obs.legal_action_mask.shape[0], ValueError)
            except ValueError as e:
                raise TheftIllegalBatchActionError(str(e), game_index=g, seat=seat, agent=name, action=-1,
                                                   row=b) from None
            actions[b] = action
            rows[b] = True
        if rows.any():
            step(state, actions, rows)
        if progress:
            progress(int(state.r_done.sum()) - before)
        if not rows.any() and bool(state.done.all()):
            break


def play_theft_games_batched(rules: TheftRuleSet, agents: Sequence[str], seat_agent, key: int, game_indices,
                             progress: Callable[[int], None] | None = None, batch_size: int = DEFAULT_BATCH_SIZE,
                             log_cap: int = 0, return_state: bool = False):
    """Play many theft games on the batched theft engine; same arguments and results as
    :func:`cya_sim.play.theft.reference.play_theft_games` (the reference play), game by game.

    Args:
        rules: the theft rule set. agents: theft agent specs (:func:`agents.theft.registry.make_theft_agent`).
        seat_agent: (G, P) int, for each game and seat an index into ``agents``.
        key: 64-bit root key. game_indices: (G,) int64 global game indices.
        progress: optional callable receiving the number of games just finished.
        batch_size: rows played side by side (>= 1). log_cap: keep each game's action ids (up to this many)
            in the state (0: off). return_state: also return the final :class:`TheftBatchState`.

    Returns:
        a :class:`~cya_sim.engine.table.GameTable` in the order of ``game_indices`` (and the state if asked):
        ``first_dealer`` = the seat before the first player, ``totals`` = points, ``win_share``, ``rounds`` = 1,
        ``turns``, ``challenges`` = theft cards played, ``decisions``, ``largest_steal`` (points), ``capped``.

    Raises:
        ValueError: unknown agent spec; shapes that do not match.
        RulesError: table size not allowed by the rules.
        TheftIllegalBatchActionError: an agent returned an illegal action or a non-integer.

    Warns:
        TheftTurnCapWarning: when games stopped at ``rules.max_turns`` (how many, which).
    """
    seat_agent = np.asarray(seat_agent, dtype=np.int16)
    game_indices = np.asarray(game_indices, dtype=np.int64)
    if seat_agent.ndim != 2 or seat_agent.shape[0] != game_indices.shape[0]:
        raise ValueError(f"seat_agent must be (G, P) with G = len(game_indices); got {seat_agent.shape}")
    p = seat_agent.shape[1]
    rules.check_players(p)
    lineup = TheftLineup(agents)
    if (lineup.codes < 0).any():
        batch_size = min(int(batch_size), PYTHON_BATCH_SIZE)
    state = init(rules, p, max(1, min(int(batch_size), max(1, len(game_indices)))), key, game_indices, seat_agent,
                 agents, log_cap)
    if (lineup.codes >= 0).all():
        run_compiled(state, lineup)
        if progress:
            progress(len(game_indices))
    else:
        _play_with_python_agents(state, lineup, progress)
    table = results(state)
    if table.capped.any():
        capped = table.game_index[table.capped].tolist()
        warnings.warn(f"{len(capped)} of {len(table)} theft games stopped at the turn cap max_turns={rules.max_turns} "
                      f"(game indices {capped[:10]}{' ...' if len(capped) > 10 else ''})",
                      TheftTurnCapWarning, stacklevel=2)
    return (table, state) if return_state else table
