"""The batched theft engine: B theft games as the rows of one int64 array, fed from a queue (RULES.md §9).

The same shape as the classic family's batched engine (:mod:`cya_sim.engine.batched`): a
:class:`TheftBatchState` holds the rows (:mod:`cya_sim.engine.theft.layout`), each row's engine and agent
PCG64 streams and a :class:`TheftQueue` of games; when a row's game ends its result goes to the
queue's ``r_*`` arrays and the row starts the next queued game (auto-reset). :func:`init`,
:func:`step` and :func:`results` are the public API; the compiled row loops below run the rules
kernel (:mod:`cya_sim.engine.theft.kernel`) over rows. No agent is called here: the theft play loop
(:mod:`cya_sim.play.theft.loop`) chooses the actions.

Seeding as in :mod:`cya_sim.game.rng`: queued game ``g`` uses stream 0 of ``(key, g)`` for the engine
(first player, shuffles) and stream ``1 + s`` for the agent at seat ``s``, so a game depends only on
(rules, line-up, key, g), never on the batch size.
"""

from __future__ import annotations

from collections import namedtuple
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numba import njit

from cya_sim.engine.pcg import seed_stream
from cya_sim.engine.table import GameTable
from cya_sim.engine.theft import layout as lo
from cya_sim.engine.theft.kernel import apply_action, is_legal, new_game
from cya_sim.engine.theft.layout import (
    B_POINTS,
    C_P,
    G_CANCELLED,
    G_CAPPED,
    G_DECISIONS,
    G_DONE,
    G_FIRST,
    G_GAME_INDEX,
    G_LARGEST_STEAL,
    G_QUEUE_POS,
    G_THEFTS,
    G_TO_ACT,
    G_TURNS,
    G_WINNERS,
)
from cya_sim.engine.theft.reference import TheftIllegalActionError
from cya_sim.game.theft.actions import TheftActionSpace
from cya_sim.game.theft.rules import TheftRuleSet

#: Error codes of ``TheftQueue.err`` (err[0] code, err[1] row, err[2] action).
ERR_NONE, ERR_ILLEGAL, ERR_LOG_FULL = 0, 1, 2

#: Rows per batch unless told otherwise.
DEFAULT_BATCH_SIZE = 256

QUEUE_FIELDS = ("q_game_index", "q_seat_agent", "q_next", "key", "r_done", "r_first_player", "r_points",
                "r_winners", "r_turns", "r_thefts", "r_cancelled", "r_decisions", "r_largest_steal", "r_capped",
                "log_actions", "log_len", "err")
TheftQueue = namedtuple("TheftQueue", QUEUE_FIELDS)
TheftQueue.__doc__ = """The queue of theft games a batch plays, their results, action logs and the error slot.

q_game_index: (G,) int64 — global indices of the queued games.
q_seat_agent: (G, P) int16 — index into the state's ``agent_names`` for each game and seat.
q_next: (1,) int64 — next queue position to start. key: (1,) uint64 — the 64-bit root key.
r_done: (G,) bool — the queued game has finished.
r_first_player: (G,) int16 — the seat chosen at random to move first (R-T-SETUP).
r_points: (G, P) int64 — points of each seat's assets (R-T-END). r_winners: (G,) int32 — bitmask of the winners.
r_turns, r_thefts, r_cancelled, r_decisions: (G,) int64 — turns, theft cards played, thefts cancelled, decisions.
r_largest_steal: (G,) int64 — points of the largest asset a thief won.
r_capped: (G,) bool — the game stopped at ``max_turns`` (a safeguard, not a rule).
log_actions: (G, L) int32 — every action of each game when logging is on, else shape (0, 0).
log_len: (G,) int32 — actions logged per game, else shape (0,).
err: (3,) int64 — [error code, row, action] set by a compiled loop (``ERR_*``).
"""


class TheftIllegalBatchActionError(TheftIllegalActionError):
    """An action outside the legal action mask was chosen in the batched theft engine (a
    :class:`~cya_sim.engine.theft.reference.TheftIllegalActionError`, as on the reference engine).

    Attributes: game_index, seat, agent (name), action (id), row (batch row).
    """

    def __init__(self, message: str, game_index: int = -1, seat: int = -1, agent: str = "", action: int = -1,
                 row: int = -1):
        super().__init__(message)
        self.game_index, self.seat, self.agent, self.action, self.row = game_index, seat, agent, action, row


@dataclass(frozen=True)
class TheftBatchState:
    """State of B theft games of one rule set at one table size P, one int64 row per game.

    rules: the :class:`TheftRuleSet`. n_players: P. action_space: the action ids.
    agent_names: tuple of agent labels that ``q_seat_agent`` indexes (for messages and results).
    consts: the constants record (:func:`cya_sim.engine.theft.layout.make_consts`).
    rows: (B, W) int64 — one game per row. engine_rng: (B, 4) uint64 — each row's engine PCG64 stream.
    agent_rng: (B, P, 4) uint64 — the agent streams (stream 1 + seat). queue: the :class:`TheftQueue`.

    Every scalar and block of the layout reads as a NumPy view by name (``state.to_act`` (B,),
    ``state.hands`` (B, P, T), ``state.assets`` (B, P, S, 4), ... all int64; writes go through), and so
    does every :class:`TheftQueue` field.
    """

    rules: TheftRuleSet
    n_players: int
    action_space: TheftActionSpace
    agent_names: tuple
    consts: lo.Consts
    rows: np.ndarray
    engine_rng: np.ndarray
    agent_rng: np.ndarray
    queue: TheftQueue

    def __getattr__(self, name: str):
        d = self.__dict__
        if "rows" in d and (name in lo.SCALARS or name in lo.BLOCKS):
            view = lo.field_view(d["consts"], d["rows"], name)
        elif "queue" in d and name in QUEUE_FIELDS:
            view = getattr(d["queue"], name)
        else:
            raise AttributeError(f"TheftBatchState has no field {name!r}")
        d[name] = view  # the arrays are never rebound (updated in place)
        return view

    @property
    def batch_size(self) -> int:
        """B, the number of rows."""
        return int(self.rows.shape[0])


def allocate(rules: TheftRuleSet, n_players: int, batch_size: int, key: int, game_indices, seat_agent,
             agent_names, log_cap: int = 0) -> TheftBatchState:
    """A :class:`TheftBatchState` with idle rows and its queue filled (no game started yet).

    Args:
        game_indices: (G,) int global game indices. seat_agent: (G, P) int indices into ``agent_names``.
        agent_names: labels of the agents. log_cap: L, actions logged per game (0: no log).

    Raises:
        ValueError: batch_size < 1, shapes that do not match, seat_agent values outside the agents.
        RulesError: ``n_players`` not allowed by ``rules``.
    """
    if not isinstance(batch_size, (int, np.integer)) or batch_size < 1:
        raise ValueError(f"batch_size is {batch_size!r}; it must be an integer >= 1")
    game_indices = np.ascontiguousarray(game_indices, dtype=np.int64)
    seat_agent = np.ascontiguousarray(seat_agent, dtype=np.int16)
    if game_indices.ndim != 1:
        raise ValueError(f"game_indices must be (G,); got shape {game_indices.shape}")
    if seat_agent.shape != (game_indices.shape[0], n_players):
        raise ValueError(f"seat_agent must be (G, P) = ({game_indices.shape[0]}, {n_players}); got {seat_agent.shape}")
    if seat_agent.size and (seat_agent.min() < 0 or seat_agent.max() >= len(agent_names)):
        raise ValueError(f"seat_agent values must be in 0..{len(agent_names) - 1} (indices into agents)")
    k = lo.make_consts(rules, n_players)
    b, p, g = int(batch_size), n_players, game_indices.shape[0]
    rows = np.zeros((b, lo.row_width(k)), np.int64)
    rows[:, lo.G_DONE] = 1
    rows[:, lo.G_TO_ACT] = -1
    rows[:, lo.G_QUEUE_POS] = -1
    z = np.zeros
    queue = TheftQueue(
        q_game_index=game_indices, q_seat_agent=seat_agent, q_next=z(1, np.int64),
        key=np.array([key], dtype=np.uint64), r_done=z(g, bool), r_first_player=z(g, np.int16),
        r_points=z((g, p), np.int64), r_winners=z(g, np.int32), r_turns=z(g, np.int64), r_thefts=z(g, np.int64),
        r_cancelled=z(g, np.int64), r_decisions=z(g, np.int64), r_largest_steal=z(g, np.int64),
        r_capped=z(g, bool), log_actions=z((g, log_cap) if log_cap else (0, 0), np.int32),
        log_len=z(g if log_cap else 0, np.int32), err=z(3, np.int64))
    return TheftBatchState(rules=rules, n_players=p, action_space=TheftActionSpace.for_rules(rules),
                           agent_names=tuple(agent_names), consts=k, rows=rows, engine_rng=z((b, 4), np.uint64),
                           agent_rng=z((b, p, 4), np.uint64), queue=queue)


# -- compiled row loops ------------------------------------------------------------------------------------
_JIT = {"cache": True, "_nrt": False, "error_model": "numpy"}


@njit(**_JIT)
def reset_row(K, R, ER, AR, Q, b, q):
    """Start queue game ``q`` in row ``b``: seed its streams (0 = engine, 1 + s = seat s) and set it up (R-T-SETUP)."""
    G = R[b]
    g = Q.q_game_index[q]
    key = Q.key[0]
    G[G_QUEUE_POS] = q
    G[G_GAME_INDEX] = g
    seed_stream(ER[b], key, g, 0)
    for s in range(K.cfg[C_P]):
        seed_stream(AR[b, s], key, g, 1 + s)
    if Q.log_len.shape[0] > 0:
        Q.log_len[q] = 0
    new_game(K, G, ER[b])


@njit(**_JIT)
def finish_and_refill(K, R, ER, AR, Q, b):
    """Auto-reset: record the finished game of row ``b`` in the results, then start the next queued game.

    The row becomes idle (``queue_pos = -1``, ``to_act = -1``, ``done = 1``) when the queue is empty.
    """
    G = R[b]
    q = G[G_QUEUE_POS]
    if q >= 0:
        Q.r_done[q] = True
        Q.r_first_player[q] = G[G_FIRST]
        p0 = K.lay[B_POINTS]
        for s in range(K.cfg[C_P]):
            Q.r_points[q, s] = G[p0 + s]
        Q.r_winners[q] = G[G_WINNERS]
        Q.r_turns[q] = G[G_TURNS]
        Q.r_thefts[q] = G[G_THEFTS]
        Q.r_cancelled[q] = G[G_CANCELLED]
        Q.r_decisions[q] = G[G_DECISIONS]
        Q.r_largest_steal[q] = G[G_LARGEST_STEAL]
        Q.r_capped[q] = G[G_CAPPED] != 0
    nq = Q.q_next[0]
    if nq < Q.q_game_index.shape[0]:
        Q.q_next[0] = nq + 1
        reset_row(K, R, ER, AR, Q, b, nq)
    else:
        G[G_QUEUE_POS] = -1
        G[G_DONE] = 1
        G[G_TO_ACT] = -1


@njit(**_JIT)
def fill_rows(K, R, ER, AR, Q):
    """Start a queued game in every idle row (auto-reset); finished games are recorded first."""
    for b in range(R.shape[0]):
        if R[b, G_DONE]:
            finish_and_refill(K, R, ER, AR, Q, b)


@njit(**_JIT)
def log_action(Q, G, a):
    """Append action ``a`` to the action log of row ``G``'s game when logging is on; False if the log is full."""
    if Q.log_len.shape[0] == 0:
        return True
    q = G[G_QUEUE_POS]
    n = Q.log_len[q]
    if n >= Q.log_actions.shape[1]:
        return False
    Q.log_actions[q, n] = a
    Q.log_len[q] = n + 1
    return True


@njit(**_JIT)
def check_actions(K, R, actions, rows):
    """First row ``b`` with ``rows[b]`` whose action is illegal for its seat to act, or -1 (idle rows ignored)."""
    for b in range(R.shape[0]):
        if R[b, G_DONE] or not rows[b]:
            continue
        if not is_legal(K, R[b], actions[b]):
            return b
    return -1


@njit(**_JIT)
def apply_actions(K, R, ER, AR, Q, actions, rows):
    """Apply ``actions[b]`` in every row ``b`` with ``rows[b]`` true and a game in progress, then auto-reset.

    The actions must have passed :func:`check_actions`. Returns ERR_NONE or ERR_LOG_FULL.
    """
    for b in range(R.shape[0]):
        if not rows[b] or R[b, G_DONE]:
            continue
        G = R[b]
        if not log_action(Q, G, actions[b]):
            Q.err[0] = ERR_LOG_FULL
            Q.err[1] = b
            Q.err[2] = actions[b]
            return ERR_LOG_FULL
        apply_action(K, G, ER[b], actions[b])
        if G[G_DONE]:
            finish_and_refill(K, R, ER, AR, Q, b)
    return ERR_NONE


# -- the public API ----------------------------------------------------------------------------------------
def init(rules: TheftRuleSet, n_players: int, batch_size: int, key: int, game_indices=None, seat_agent=None,
         agents: Sequence[str] = ("random",), log_cap: int = 0) -> TheftBatchState:
    """B theft games at ``n_players`` seats, each at its first decision (R-T-SETUP).

    Args:
        rules: the theft rule set. n_players: P. batch_size: B rows, >= 1. key: 64-bit root key.
        game_indices: (G,) int global game indices to play, in order (default ``arange(B)``); rows take the
            next one when their game ends. seat_agent: (G, P) int indices into ``agents`` (default zeros).
        agents: agent labels (messages and results; the play layer resolves them).
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
    state = allocate(rules, n_players, batch_size, key, game_indices, seat_agent, tuple(agents), log_cap)
    fill_rows(state.consts, state.rows, state.engine_rng, state.agent_rng, state.queue)
    return state


def raise_illegal(state: TheftBatchState, row: int, action: int) -> None:
    """Raise :class:`TheftIllegalBatchActionError` naming the agent, the seat, the game and the action of ``row``."""
    seat = int(state.to_act[row])
    q = int(state.queue_pos[row])
    agent = state.agent_names[int(state.q_seat_agent[q, seat])] if q >= 0 and seat >= 0 else "?"
    sp = state.action_space
    shown = sp.name(action) if 0 <= action < sp.size else "outside the action space"
    g = int(state.game_index[row])
    raise TheftIllegalBatchActionError(
        f"agent {agent!r} at seat {seat} in game {g} returned illegal action {action} ({shown}); "
        f"allowed: the ids where legal_action_mask is true (0..{sp.size - 1})",
        game_index=g, seat=seat, agent=agent, action=action, row=row)


def step(state: TheftBatchState, actions, rows=None) -> TheftBatchState:
    """Apply one action in every row with a game in progress (R-T-TURN), then auto-reset finished rows.

    Args:
        state: the batch; updated in place and returned.
        actions: (B,) int action ids for the seat to act in each row (ignored for idle rows).
        rows: optional (B,) bool; only these rows act (default: every row).

    Raises:
        TheftIllegalBatchActionError: some row's action is not legal (names game, seat, agent, action); no row changes.
        ValueError: ``actions`` is not (B,) or not of an integer dtype.
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


def results(state: TheftBatchState) -> GameTable:
    """The :class:`GameTable` of the queued games in queue order, with the columns of the theft reference play
    (:func:`cya_sim.play.theft.reference.play_theft_games`): ``first_dealer`` = the seat before the first player,
    ``totals`` = points (R-T-END), ``win_share`` = 1/k per tied winner, ``rounds`` = 1, ``turns``,
    ``challenges`` = theft cards played, ``decisions``, ``largest_steal`` (points), ``capped``.
    Thefts cancelled are ``state.r_cancelled`` (the shared table has no column for them)."""
    p = state.n_players
    q = state.queue
    bits = (q.r_winners[:, None] >> np.arange(p)[None, :]) & 1
    k = bits.sum(axis=1, keepdims=True)
    share = np.where(bits == 1, 1.0 / np.maximum(k, 1), 0.0)
    g = q.q_game_index.shape[0]
    return GameTable(
        game_index=q.q_game_index.copy(), seat_agent=q.q_seat_agent.copy(),
        first_dealer=((q.r_first_player.astype(np.int64) - 1) % p).astype(np.int16), totals=q.r_points.copy(),
        win_share=share, rounds=np.ones(g, np.int64), turns=q.r_turns.copy(), challenges=q.r_thefts.copy(),
        decisions=q.r_decisions.copy(), largest_steal=q.r_largest_steal.copy(), capped=q.r_capped.copy())
