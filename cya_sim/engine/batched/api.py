"""The public API of the batched engine: ``init``, ``step``, ``observe``, ``play_games``."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from cya_sim.engine.batched import kernels as kn
from cya_sim.engine.batched.runner import advance, apply_actions, check_actions, fill_rows
from cya_sim.engine.batched.state import BatchState, allocate
from cya_sim.engine.table import GameTable
from cya_sim.rules import RuleSet

#: Rows per batch in :func:`play_games` unless told otherwise.
DEFAULT_BATCH_SIZE = 256


class IllegalActionError(ValueError):
    """An action outside the legal action mask was chosen in the batched engine.

    Attributes: game_index, seat, agent (name), action (id), row (batch row).
    """

    def __init__(self, message: str, game_index: int = -1, seat: int = -1, agent: str = "", action: int = -1,
                 row: int = -1):
        super().__init__(message)
        self.game_index, self.seat, self.agent, self.action, self.row = game_index, seat, agent, action, row


def _agent_kinds(agents: Sequence[str]) -> list[int]:
    from agents.registry import compiled_kind

    return [kn.KIND_PYTHON if compiled_kind(a) is None else compiled_kind(a) for a in agents]


def init(rules: RuleSet, n_players: int, batch_size: int, key: int, game_indices=None, seat_agent=None,
         agents: Sequence[str] = ("random",), log_cap: int = 0) -> BatchState:
    """B games of ``rules`` at ``n_players`` seats, each at its first decision (R-SETUP).

    Args:
        rules: the rule set. n_players: P (must be allowed by ``rules``).
        batch_size: B rows, >= 1.
        key: 64-bit root key (:func:`cya_sim.rng.root_key` of a seed).
        game_indices: (G,) int global game indices to play, in order; rows take
            the next one when their game ends (auto-reset). Default ``arange(B)``.
        seat_agent: (G, P) int indices into ``agents``; default all zeros.
        agents: agent names (registered names). Seats of built-in compiled
            agents (``random``, ``greedy``) are played inside compiled code by
            :func:`play_games`; other names mark Python seats.
        log_cap: keep up to this many action ids per game in ``log_actions`` (0: off).

    Raises:
        RulesError: ``n_players`` not allowed. ValueError: bad shapes, batch size or agent name.
    """
    from agents.registry import make_agent

    rules.check_players(n_players)
    for name in agents:
        make_agent(name)
    if game_indices is None:
        game_indices = np.arange(batch_size, dtype=np.int64)
    game_indices = np.asarray(game_indices, dtype=np.int64)
    if seat_agent is None:
        seat_agent = np.zeros((game_indices.shape[0], n_players), np.int16)
    from agents.registry import compiled_params

    params = np.array([compiled_params(a) for a in agents], dtype=np.float64).reshape(len(agents), -1)
    state = allocate(rules, n_players, batch_size, key, game_indices, seat_agent, tuple(agents),
                     _agent_kinds(agents), log_cap, params)
    fill_rows(state.consts, state.arrays)
    return state


def _raise_illegal(state: BatchState, row: int, action: int) -> None:
    seat = int(state.to_act[row])
    q = int(state.queue_pos[row])
    agent = state.agent_names[int(state.q_seat_agent[q, seat])] if q >= 0 and seat >= 0 else "?"
    sp = state.action_space
    shown = sp.name(action) if 0 <= action < sp.size else "outside the action space"
    g = int(state.game_index[row])
    raise IllegalActionError(
        f"agent {agent!r} at seat {seat} in game {g} returned illegal action {action} ({shown}); "
        f"allowed: the ids where legal_action_mask is true (0..{sp.size - 1})",
        game_index=g, seat=seat, agent=agent, action=action, row=row)


def step(state: BatchState, actions, rows=None) -> BatchState:
    """Apply one action in every row with a game in progress (R-TURN, §4), then auto-reset finished rows.

    Args:
        state: the batch; updated in place and returned.
        actions: (B,) int action ids for the seat to act in each row (ignored for idle rows).
        rows: optional (B,) bool; only these rows act (default: every row).

    Raises:
        IllegalActionError: some row's action is not legal; the message names
            the game index, the seat, the agent and the action. No row is changed.
        ValueError: ``actions`` is not (B,) or not of an integer dtype (floats and bools are refused).
        RuntimeError: the per-game action log (``log_cap``) is full.
    """
    actions = np.asarray(actions)
    b = state.batch_size
    if actions.shape != (b,):
        raise ValueError(f"actions must have shape (B,) = ({b},); got {actions.shape}")
    if actions.dtype == np.bool_ or not np.issubdtype(actions.dtype, np.integer):
        raise ValueError(f"actions must be integer action ids; got dtype {actions.dtype} (nothing is coerced)")
    actions = actions.astype(np.int64)
    rows = np.ones(b, bool) if rows is None else np.asarray(rows, bool)
    bad = check_actions(state.consts, state.arrays, actions, rows)
    if bad >= 0:
        _raise_illegal(state, bad, int(actions[bad]))
    if apply_actions(state.consts, state.arrays, actions, rows) != kn.ERR_NONE:
        raise RuntimeError(f"action log full in game {int(state.game_index[int(state.err[1])])}; raise log_cap")
    return state


def results(state: BatchState) -> GameTable:
    """The :class:`GameTable` of the queued games, in queue order (finished games only are meaningful)."""
    p = state.n_players
    bits = (state.r_winners[:, None] >> np.arange(p)[None, :]) & 1
    k = bits.sum(axis=1, keepdims=True)
    share = np.where(bits == 1, 1.0 / np.maximum(k, 1), 0.0)
    return GameTable(
        game_index=state.q_game_index.copy(), seat_agent=state.q_seat_agent.copy(),
        first_dealer=state.r_first_dealer.copy(), totals=state.r_totals.copy(), win_share=share,
        rounds=state.r_rounds.copy(), turns=state.r_turns.copy(), challenges=state.r_challenges.copy(),
        decisions=state.r_decisions.copy(), largest_steal=state.r_largest_steal.copy(),
        capped=state.r_capped.copy())


def run_compiled(state: BatchState, progress: Callable[[int], None] | None = None) -> int:
    """Play the compiled seats of every row until a Python seat must act or the queue is empty.

    Returns:
        the number of rows waiting for a Python agent.

    Raises:
        IllegalActionError: a compiled agent chose an illegal action (a bug).
    """
    before = int(state.r_done.sum()) if progress else 0
    waiting = advance(state.consts, state.arrays)
    if waiting < 0:
        row, action = int(state.err[1]), int(state.err[2])
        if state.err[0] == kn.ERR_LOG_FULL:
            raise RuntimeError(f"action log full in game {int(state.game_index[row])}; raise log_cap")
        _raise_illegal(state, row, action)
    if progress:
        progress(int(state.r_done.sum()) - before)
    return int(waiting)


def play_games(rules: RuleSet, agents: Sequence[str], seat_agent, key: int, game_indices,
               progress: Callable[[int], None] | None = None, batch_size: int = DEFAULT_BATCH_SIZE,
               log_cap: int = 0, return_state: bool = False):
    """Play many games on the batched engine; same arguments and results as the reference ``play_games``.

    Seats of compiled agents (``random``, ``greedy``) play inside compiled
    code; a game with any other (Python) agent goes through the adapter of
    :mod:`cya_sim.engine.batched.adapter`: each such decision builds the
    reference :class:`~cya_sim.observation.Observation` for that seat and
    calls ``agent.act(obs, rng)`` with the seat's NumPy stream (slower).
    Results do not depend on ``batch_size``.

    Args:
        rules: the rule set. agents: agent names (registered, see ``agents.make_agent``).
        seat_agent: (G, P) int, for each game and seat an index into ``agents``.
        key: 64-bit root key. game_indices: (G,) int64 global game indices.
        progress: optional callable receiving the number of games just finished.
        batch_size: rows played side by side (>= 1).
        log_cap: keep each game's action ids (up to this many) in the state (0: off).
        return_state: also return the final :class:`BatchState` (for action logs).

    Returns:
        a :class:`GameTable` in the order of ``game_indices`` (and the state if asked).

    Raises:
        ValueError: unknown agent name; shapes that do not match; an agent that reads the hidden
            state (``sees_hidden``, e.g. a cheating baseline), which only the reference engine serves.
        RulesError: table size not allowed by the rules.
        IllegalActionError: an agent returned an illegal action (names game, seat, agent, action).
    """
    seat_agent = np.asarray(seat_agent, dtype=np.int16)
    game_indices = np.asarray(game_indices, dtype=np.int64)
    if seat_agent.ndim != 2 or seat_agent.shape[0] != game_indices.shape[0]:
        raise ValueError(f"seat_agent must be (G, P) with G = len(game_indices); got {seat_agent.shape}")
    p = seat_agent.shape[1]
    rules.check_players(p)
    state = init(rules, p, max(1, min(int(batch_size), max(1, len(game_indices)))), key, game_indices,
                 seat_agent, agents, log_cap)
    kinds = _agent_kinds(agents)
    from agents.registry import make_agent

    for name, kind in zip(agents, kinds):
        if kind == kn.KIND_PYTHON and getattr(make_agent(name), "sees_hidden", False):
            raise ValueError(f"agent {name!r} reads the hidden game state, which the batched engine does not "
                             "build; play it on the reference engine (engine='reference')")
    if all(k != kn.KIND_PYTHON for k in kinds):
        run_compiled(state, progress)
    else:
        from cya_sim.engine.batched.adapter import play_with_python_agents

        play_with_python_agents(state, progress)
    table = results(state)
    return (table, state) if return_state else table
