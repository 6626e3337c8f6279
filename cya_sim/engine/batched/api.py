"""The public API of the batch driver, for every game: ``init``, ``step`` (a game's results and observations: its
``engine/<game>/batched.py``).

The engine plays the actions it is given; which policy chose them is the play layer's business
(:mod:`cya_sim.play`, which also holds ``play_games``).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from cya_sim.engine.batched.loops import ERR_NONE, apply_actions, check_actions, fill_rows
from cya_sim.engine.batched.state import BatchGame, BatchState, allocate
from cya_sim.errors import UserInputError

#: Rows per batch in ``play_games`` unless told otherwise.
DEFAULT_BATCH_SIZE = 256


class IllegalActionError(ValueError, UserInputError):
    """An action outside the legal action mask was chosen in the batched engine.

    Attributes: game_index, seat, agent (name), action (id), row (batch row).
    """

    def __init__(self, message: str, game_index: int = -1, seat: int = -1, agent: str = "", action: int = -1,
                 row: int = -1):
        super().__init__(message)
        self.game_index, self.seat, self.agent, self.action, self.row = game_index, seat, agent, action, row


def init(game: BatchGame, rules, n_players: int, batch_size: int, key: int, game_indices=None, seat_agent=None,
         agents: Sequence[str] = ("random",), log_cap: int = 0) -> BatchState:
    """B games of ``game`` under ``rules`` at ``n_players`` seats, each at its first decision (the game's setup).

    Args:
        game: the game's :class:`~cya_sim.engine.batched.state.BatchGame`. rules: its rule set.
        n_players: P (must be allowed by ``rules``). batch_size: B rows, >= 1.
        key: 64-bit root key (:func:`cya_sim.game.rng.root_key` of a seed).
        game_indices: (G,) int global game indices to play, in order; rows take
            the next one when their game ends (auto-reset). Default ``arange(B)``.
        seat_agent: (G, P) int indices into ``agents``; default all zeros.
        agents: agent labels (used in messages and results; the engine does not
            resolve them — the play layer does, :mod:`cya_sim.play`).
        log_cap: keep up to this many action ids per game in ``log_actions`` (0: off).

    Raises:
        RulesError: ``n_players`` not allowed. ValueError: bad shapes or batch size.
    """
    rules.check_players(n_players)
    if game_indices is None:
        game_indices = np.arange(batch_size, dtype=np.int64)
    game_indices = np.asarray(game_indices, dtype=np.int64)
    if seat_agent is None:
        seat_agent = np.zeros((game_indices.shape[0], n_players), np.int16)
    state = allocate(game, rules, n_players, batch_size, key, game_indices, seat_agent, tuple(agents), log_cap)
    fill_rows(state.consts, state.rows, state.engine_rng, state.agent_rng, state.queue)
    return state


def raise_illegal(state: BatchState, row: int, action: int) -> None:
    """Raise the game's illegal-action error (``state.game.illegal_error``) naming the agent, the seat, the game and
    the action of ``row``."""
    seat = int(state.to_act[row])
    q = int(state.queue_pos[row])
    agent = state.agent_names[int(state.q_seat_agent[q, seat])] if q >= 0 and seat >= 0 else "?"
    sp = state.action_space
    shown = sp.name(action) if 0 <= action < sp.size else "outside the action space"
    g = int(state.game_index[row])
    raise state.game.illegal_error(
        f"agent {agent!r} at seat {seat} in game {g} returned illegal action {action} ({shown}); "
        f"allowed: the ids where legal_action_mask is true (0..{sp.size - 1})",
        game_index=g, seat=seat, agent=agent, action=action, row=row)


def step(state: BatchState, actions, rows=None) -> BatchState:
    """Apply one action in every row with a game in progress (the game's turn rules), then auto-reset finished rows.

    Args:
        state: the batch; updated in place and returned.
        actions: (B,) int action ids for the seat to act in each row (ignored for idle rows).
        rows: optional (B,) bool; only these rows act (default: every row).

    Raises:
        IllegalActionError: (the game's, ``state.game.illegal_error``) some row's action is not legal; the message
            names the game index, the seat, the agent and the action. No row is changed.
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
    bad = check_actions(state.consts, state.rows, actions, rows)
    if bad >= 0:
        raise_illegal(state, bad, int(actions[bad]))
    if apply_actions(state.consts, state.rows, state.engine_rng, state.agent_rng, state.queue, actions,
                     rows) != ERR_NONE:
        raise RuntimeError(f"action log full in game {int(state.game_index[int(state.err[1])])}; raise log_cap")
    return state
