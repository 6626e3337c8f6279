"""Playing games on the batched engine: compiled policies in the compiled loop, Python agents through the adapter.

Seats of agents with a compiled form (the built-ins ``random``, ``greedy``,
``heuristic``, ``wild_hoarder``, ``card_counter``, ``oracle`` and compiled
plug-ins, :mod:`agents.plugin`) play inside compiled code (:mod:`cya_sim.play.classic.loop`);
a game with any other (Python) agent goes step by step: for each such decision
:func:`~cya_sim.engine.classic.adapter.reference_observation` builds the
reference :class:`~cya_sim.engine.classic.reference.observation.Observation` for that seat and
``agent.act(obs, rng)`` is called with the seat's NumPy stream (slower).
Results do not depend on ``batch_size``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from agents.classic.compiled import new_scratch
from agents.classic.registry import make_agent, policy_of
from cya_sim.engine.agent_calls import action_id, call_agent
from cya_sim.engine.batched.api import DEFAULT_BATCH_SIZE, IllegalActionError, init, raise_illegal, step
from cya_sim.engine.batched.loops import ERR_LOG_FULL
from cya_sim.engine.batched.state import BatchState
from cya_sim.engine.classic.adapter import reference_observation
from cya_sim.engine.classic.batched import results
from cya_sim.engine.table import GameTable
from cya_sim.game.rng import stream_generator
from cya_sim.game.rules import RuleSet
from cya_sim.play.classic import loop
from cya_sim.play.refusals import refuse_compiled_action

#: Games one call of the compiled loop plays at most: between calls Python handles Ctrl-C and reports progress
#: (about 0.1 s of greedy games, 0.4 s of card_counter's). Results do not depend on it.
COMPILED_SLICE = 4096

#: Rows played side by side when a Python agent plays: its decisions are Python calls whichever the batch,
#: and few rows let the first games finish (and a progress bar move) within seconds.
PYTHON_BATCH_SIZE = 16


class Lineup:
    """How each agent of a batch is played under its rules: compiled policy code, C address and parameters.

    Args:
        agents: agent specs. rules: the rule set (``greedy`` under §6 with draft piles is a view policy).

    Attributes:
        codes: (K,) int64 — policy code per agent (-1: a Python agent; :func:`agents.classic.registry.policy_of`).
        addrs: (K,) int64 — each view policy's C address (0 for the others); compiled on first use.
        params: (K, N_AGENT_PARAMS) float64.
        advance: the compiled loop, :func:`cya_sim.play.classic.loop.advance` (the same for every line-up).

    Raises:
        ValueError: an unknown agent name, parameters an agent does not take, or a plug-in that is
            not importable as ``module:function``.
    """

    def __init__(self, agents: Sequence[str], rules: RuleSet) -> None:
        slots = [policy_of(a, rules) for a in agents]
        self.codes = np.array([c for c, _, _ in slots], np.int64)
        self.addrs = np.array([a for _, a, _ in slots], np.int64)
        self.params = np.array([p for _, _, p in slots], np.float64).reshape(len(agents), -1)
        self.advance = loop.advance


def run_compiled(state: BatchState, progress: Callable[[int], None] | None = None,
                 lineup: Lineup | None = None) -> int:
    """Play the compiled seats of every row until a Python seat must act or the queue is empty.

    Returns:
        the number of rows waiting for a Python agent.

    Raises:
        IllegalActionError: a compiled policy chose an illegal action (names agent, seat, game, action).
        RuntimeError: the action log (``log_cap``) is full.
    """
    lineup = lineup or Lineup(state.agent_names, state.rules)
    before = int(state.r_done.sum()) if progress else 0
    waiting = lineup.advance(state.consts, state.rows, state.engine_rng, state.agent_rng, state.queue,
                             lineup.codes, lineup.addrs, lineup.params, new_scratch(state.consts.cfg))
    if waiting < 0:
        row, action = int(state.err[1]), int(state.err[2])
        if state.err[0] == ERR_LOG_FULL:
            raise RuntimeError(f"action log full in game {int(state.game_index[row])}; raise log_cap")
        refuse_compiled_action(state, row, action, raise_illegal)
    if progress:
        progress(int(state.r_done.sum()) - before)
    return int(waiting)


def play_with_python_agents(state: BatchState, lineup: Lineup,
                            progress: Callable[[int], None] | None = None) -> None:
    """Play every queued game of ``state`` to the end, Python seats step by step (module docstring).

    Raises:
        IllegalActionError: an agent returned an illegal action, or a value that is not an integer
            (a Python or NumPy integer, not a bool; nothing is coerced); the message names the game
            index, the seat, the agent and the value (:func:`cya_sim.engine.agent_calls.action_id`).
        AgentError: an agent's ``act`` raised (:func:`cya_sim.engine.agent_calls.call_agent`).
    """
    key = int(state.key[0])
    b_n = state.batch_size
    current: dict[int, tuple[int, list, list]] = {}
    while True:
        before = int(state.r_done.sum())
        run_compiled(state, lineup=lineup)
        actions = np.zeros(b_n, np.int64)
        rows = np.zeros(b_n, bool)
        for b in np.flatnonzero(state.done == 0):
            b = int(b)
            seat = int(state.to_act[b])
            q = int(state.queue_pos[b])
            if lineup.codes[int(state.q_seat_agent[q, seat])] >= 0:
                continue
            if b not in current or current[b][0] != q:
                g = int(state.q_game_index[q])
                names = [state.agent_names[int(j)] for j in state.q_seat_agent[q]]
                current[b] = (q, [make_agent(nm) for nm in names],
                              [stream_generator(key, g, 1 + s) for s in range(state.n_players)])
            _, seat_agents, rngs = current[b]
            name = state.agent_names[int(state.q_seat_agent[q, seat])]
            g = int(state.game_index[b])
            action = call_agent(seat_agents[seat], name, seat, g, reference_observation(state, b), rngs[seat])
            try:
                actions[b] = action_id(action, name, seat, g, state.action_space.size, ValueError)
            except ValueError as e:
                raise IllegalActionError(str(e), game_index=g, seat=seat, agent=name, action=-1, row=b) from None
            rows[b] = True
        if rows.any():
            step(state, actions, rows)
        if progress:
            progress(int(state.r_done.sum()) - before)
        if not rows.any() and bool(state.done.all()):
            break


def play_games(rules: RuleSet, agents: Sequence[str], seat_agent, key: int, game_indices,
               progress: Callable[[int], None] | None = None, batch_size: int = DEFAULT_BATCH_SIZE,
               log_cap: int = 0, return_state: bool = False):
    """Play many games on the batched engine; same arguments and results as the reference ``play_games``.

    Args:
        rules: the rule set. agents: agent specs (registered, see ``agents.classic.registry.make_agent``).
        seat_agent: (G, P) int, for each game and seat an index into ``agents``.
        key: 64-bit root key. game_indices: (G,) int64 global game indices.
        progress: optional callable receiving the number of games just finished.
        batch_size: rows played side by side (>= 1).
        log_cap: keep each game's action ids (up to this many) in the state (0: off).
        return_state: also return the final :class:`BatchState` (for action logs).

    Returns:
        a :class:`~cya_sim.engine.table.GameTable` in the order of ``game_indices`` (and the state if asked).

    Raises:
        ValueError: unknown agent name; shapes that do not match; an agent that reads the hidden
            state (``sees_hidden``, e.g. a cheating baseline), which only the reference engine serves.
        RulesError: table size not allowed by the rules.
        IllegalActionError: an agent returned an illegal action or a non-integer (names game, seat, agent, value).
        AgentError: a Python agent's ``act`` raised (names agent, seat and game).
    """
    seat_agent = np.asarray(seat_agent, dtype=np.int16)
    game_indices = np.asarray(game_indices, dtype=np.int64)
    if seat_agent.ndim != 2 or seat_agent.shape[0] != game_indices.shape[0]:
        raise ValueError(f"seat_agent must be (G, P) with G = len(game_indices); got {seat_agent.shape}")
    p = seat_agent.shape[1]
    rules.check_players(p)
    for name in agents:
        make_agent(name)  # refuse unknown names and bad parameters before playing
    lineup = Lineup(agents, rules)
    for name, code in zip(agents, lineup.codes):
        if code < 0 and getattr(make_agent(name), "sees_hidden", False):
            raise ValueError(f"agent {name!r} reads the hidden game state, which the batched engine does not "
                             "build; play it on the reference engine (engine='reference')")
    compiled = bool((lineup.codes >= 0).all())
    if not compiled:  # Python agents: fewer rows side by side, so games (and progress) finish early
        batch_size = min(int(batch_size), PYTHON_BATCH_SIZE)
    n = len(game_indices)
    step = n if (return_state or not compiled) else COMPILED_SLICE
    tables = []
    for a in range(0, max(n, 1), max(step, 1)):  # slices: Python sees Ctrl-C and reports progress between them
        b = min(n, a + step)
        state = init(rules, p, max(1, min(int(batch_size), max(1, b - a))), key, game_indices[a:b],
                     seat_agent[a:b], agents, log_cap)
        if compiled:
            run_compiled(state, progress, lineup)
        else:
            play_with_python_agents(state, lineup, progress)
        tables.append(results(state))
    table = tables[0] if len(tables) == 1 else GameTable.concat(tables)
    return (table, state) if return_state else table
