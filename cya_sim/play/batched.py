"""Playing games on a game's batched engine: compiled policies in the compiled loop, Python agents step by step.

Seats of agents with a compiled form (each game's built-ins and compiled plug-ins) play inside compiled code
(:func:`cya_sim.play.loop.advance`, compiled once per game and cached); a game with any other (Python) agent goes
step by step: for each such decision the reference observation of the seat to act is built from the row
(:attr:`BatchPlay.observe`) and ``agent.act(obs, rng)`` is called with the seat's NumPy stream (slower). Results do
not depend on ``batch_size``, and equal the reference play's game by game (each game's differential tests).

A game gives this module one :class:`BatchPlay` value (``cya_sim/play/<game>/batched.py``); :func:`play_games`,
:func:`run_compiled` and :func:`play_with_python_agents` are the same for every game.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import numpy as np

from cya_sim.engine.agent_calls import action_id, call_agent
from cya_sim.engine.batched.api import raise_illegal, step
from cya_sim.engine.batched.loops import ERR_LOG_FULL
from cya_sim.engine.batched.state import BatchState
from cya_sim.engine.table import GameTable
from cya_sim.game.rng import stream_generator
from cya_sim.play import loop
from cya_sim.play.refusals import refuse_compiled_action

#: Games one call of the compiled loop plays at most: between calls Python handles Ctrl-C and reports progress
#: (about 0.1 s of classic greedy games, 0.4 s of card_counter's). Results do not depend on it.
COMPILED_SLICE = 4096

#: Rows played side by side when a Python agent plays: its decisions are Python calls whichever the batch,
#: and few rows let the first games finish (and a progress bar move) within seconds.
PYTHON_BATCH_SIZE = 16


@dataclass(frozen=True)
class BatchPlay:
    """What a game gives the shared batch play (one frozen value per game, ``cya_sim/play/<game>/batched.py``).

    engine: the game's batched engine module (``init``, ``results``; :mod:`cya_sim.engine.classic.batched`).
    make_agent: ``spec ->`` a Python agent of the game (refuses an unknown spec with ``ValueError``).
    policy_of: ``(spec, rules) -> (code, C address, (N_AGENT_PARAMS,) float64 params)``: how the compiled loop plays
    the spec (code -1: a Python agent). new_scratch: ``consts ->`` the game's policy scratch. observe:
    ``(state, row) ->`` the reference observation of the seat to act in ``row``. check_lineup: ``(agents, lineup)``
    refuses what the batched engine cannot play (``ValueError``), or None. finish: ``(table, rules)`` called on the
    finished :class:`~cya_sim.engine.table.GameTable` (a warning of capped games), or None.
    """

    engine: ModuleType
    make_agent: Callable[[str], Any]
    policy_of: Callable[[str, Any], tuple]
    new_scratch: Callable[[Any], Any]
    observe: Callable[[BatchState, int], Any]
    check_lineup: Callable[[Sequence[str], Any], None] | None = None
    finish: Callable[[GameTable, Any], None] | None = None


class Lineup:
    """How each agent of a batch is played under its rules: compiled policy code, C address and parameters.

    Args:
        play: the game's :class:`BatchPlay`. agents: agent specs. rules: the rule set (a spec may play as another
            policy under some rules: the classic ``greedy`` under §6 with draft piles is a view policy).

    Attributes:
        codes: (K,) int64 — policy code per agent (-1: a Python agent).
        addrs: (K,) int64 — each view policy's C address (0 for the others); compiled on first use.
        params: (K, N_AGENT_PARAMS) float64.
        advance: the compiled loop, :func:`cya_sim.play.loop.advance` (the same for every line-up and game).

    Raises:
        ValueError: an unknown agent name, parameters an agent does not take, or a plug-in that is
            not importable as ``module:function``.
    """

    def __init__(self, play: BatchPlay, agents: Sequence[str], rules) -> None:
        self.play = play
        slots = [play.policy_of(a, rules) for a in agents]
        self.codes = np.array([c for c, _, _ in slots], np.int64)
        self.addrs = np.array([a for _, a, _ in slots], np.int64)
        self.params = np.array([p for _, _, p in slots], np.float64).reshape(len(agents), -1)
        self.advance = loop.advance


def run_compiled(state: BatchState, lineup: Lineup, progress: Callable[[int], None] | None = None) -> int:
    """Play the compiled seats of every row until a Python seat must act or the queue is empty.

    Returns:
        the number of rows waiting for a Python agent.

    Raises:
        IllegalActionError: (the game's) a compiled policy chose an illegal action (names agent, seat, game, action).
        AgentError: a compiled plug-in raised (:func:`cya_sim.play.refusals.refuse_compiled_action`).
        RuntimeError: the action log (``log_cap``) is full.
    """
    before = int(state.r_done.sum()) if progress else 0
    waiting = lineup.advance(state.consts, state.rows, state.engine_rng, state.agent_rng, state.queue,
                             lineup.codes, lineup.addrs, lineup.params, lineup.play.new_scratch(state.consts))
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
        IllegalActionError: (the game's) an agent returned an illegal action, or a value that is not an integer
            (a Python or NumPy integer, not a bool; nothing is coerced); the message names the game
            index, the seat, the agent and the value (:func:`cya_sim.engine.agent_calls.action_id`).
        AgentError: an agent's ``act`` raised (:func:`cya_sim.engine.agent_calls.call_agent`).
    """
    key = int(state.key[0])
    b_n = state.batch_size
    play = lineup.play
    current: dict[int, tuple[int, list, list]] = {}
    while True:
        before = int(state.r_done.sum())
        run_compiled(state, lineup)
        actions = np.zeros(b_n, np.int64)
        rows = np.zeros(b_n, bool)
        for b in np.flatnonzero(state.done == 0).tolist():
            seat = int(state.to_act[b])
            q = int(state.queue_pos[b])
            if lineup.codes[int(state.q_seat_agent[q, seat])] >= 0:
                continue
            if b not in current or current[b][0] != q:
                g = int(state.q_game_index[q])
                names = [state.agent_names[int(j)] for j in state.q_seat_agent[q]]
                current[b] = (q, [play.make_agent(nm) for nm in names],
                              [stream_generator(key, g, 1 + s) for s in range(state.n_players)])
            _, seat_agents, rngs = current[b]
            name = state.agent_names[int(state.q_seat_agent[q, seat])]
            g = int(state.game_index[b])
            action = call_agent(seat_agents[seat], name, seat, g, play.observe(state, b), rngs[seat])
            try:
                actions[b] = action_id(action, name, seat, g, state.action_space.size, ValueError)
            except ValueError as e:
                raise state.game.illegal_error(str(e), game_index=g, seat=seat, agent=name, action=-1,
                                               row=b) from None
            rows[b] = True
        if rows.any():
            step(state, actions, rows)
        if progress:
            progress(int(state.r_done.sum()) - before)
        if not rows.any() and bool(state.done.all()):
            break


def play_games(play: BatchPlay, rules, agents: Sequence[str], seat_agent, key: int, game_indices,
               progress: Callable[[int], None] | None = None, batch_size: int = 256, log_cap: int = 0,
               return_state: bool = False):
    """Play many games of ``play``'s game on its batched engine; same arguments and results as the game's reference
    ``play_games``, game by game.

    Args:
        play: the game's :class:`BatchPlay`. rules: its rule set. agents: agent specs (``play.make_agent``).
        seat_agent: (G, P) int, for each game and seat an index into ``agents``.
        key: 64-bit root key. game_indices: (G,) int64 global game indices.
        progress: optional callable receiving the number of games just finished.
        batch_size: rows played side by side (>= 1).
        log_cap: keep each game's action ids (up to this many) in the state (0: off).
        return_state: also return the final :class:`~cya_sim.engine.batched.state.BatchState` (for action logs).

    Returns:
        a :class:`~cya_sim.engine.table.GameTable` in the order of ``game_indices`` (and the state if asked).

    Raises:
        ValueError: unknown agent spec; shapes that do not match; a line-up the game's batched engine refuses
            (``play.check_lineup``).
        RulesError: table size not allowed by the rules.
        IllegalActionError: (the game's) an agent returned an illegal action or a non-integer (names game, seat,
            agent, value).
        AgentError: an agent's ``act`` raised (names agent, seat and game).
    """
    seat_agent = np.asarray(seat_agent, dtype=np.int16)
    game_indices = np.asarray(game_indices, dtype=np.int64)
    if seat_agent.ndim != 2 or seat_agent.shape[0] != game_indices.shape[0]:
        raise ValueError(f"seat_agent must be (G, P) with G = len(game_indices); got {seat_agent.shape}")
    p = seat_agent.shape[1]
    rules.check_players(p)
    for name in agents:
        play.make_agent(name)  # refuse unknown names and bad parameters before playing
    lineup = Lineup(play, agents, rules)
    if play.check_lineup is not None:
        play.check_lineup(agents, lineup)
    compiled = bool((lineup.codes >= 0).all())
    if not compiled:  # Python agents: fewer rows side by side, so games (and progress) finish early
        batch_size = min(int(batch_size), PYTHON_BATCH_SIZE)
    n = len(game_indices)
    size = n if (return_state or not compiled) else COMPILED_SLICE
    tables = []
    for a in range(0, max(n, 1), max(size, 1)):  # slices: Python sees Ctrl-C and reports progress between them
        b = min(n, a + size)
        state = play.engine.init(rules, p, max(1, min(int(batch_size), max(1, b - a))), key, game_indices[a:b],
                                 seat_agent[a:b], agents, log_cap)
        if compiled:
            run_compiled(state, lineup, progress)
        else:
            play_with_python_agents(state, lineup, progress)
        tables.append(play.engine.results(state))
    table = tables[0] if len(tables) == 1 else GameTable.concat(tables)
    if play.finish is not None:
        play.finish(table, rules)
    return (table, state) if return_state else table
