"""The batched state of any game: B games of one rule set and table size as the rows of one int64 array.

A game's batched engine describes itself to the driver with one :class:`BatchGame` value (its row layout, its
action space, its result columns, its illegal-action error); :func:`allocate` makes the rows and the queue of
games of a :class:`BatchState` from it. The rows use the game's own layout (``cya_sim/engine/<game>/layout.py``);
the compiled loops that run them are :mod:`cya_sim.engine.batched.loops`.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import ModuleType
from typing import Any

import numpy as np

#: The queue's fields every game has (the game adds its result columns, :attr:`BatchGame.results`).
COMMON_FIELDS = ("q_game_index", "q_seat_agent", "q_next", "key", "r_done", "log_actions", "log_len", "err")
COMMON_DOC = """q_game_index: (G,) int64 — global indices of the queued games.
q_seat_agent: (G, P) int16 — index into the state's ``agent_names`` for each game and seat.
q_next: (1,) int64 — next queue position to start. key: (1,) uint64 — the 64-bit root key
(:func:`cya_sim.game.rng.root_key`).
r_done: (G,) bool — the queued game has finished.
log_actions: (G, L) int — every action of each game when logging is on, else shape (0, 0).
log_len: (G,) int32 — actions logged per game, else shape (0,).
err: (3,) int64 — [error code, row, action] set by a compiled loop (``loops.ERR_*``).
"""


@dataclass(frozen=True)
class BatchGame:
    """What a game's batched engine gives the driver: one frozen value per game (``engine/<game>/batched.py``).

    name: the game family. layout: the game's layout module (``SCALARS``, ``BLOCKS``, ``field_view``,
    ``make_consts``, ``row_width``, and the offsets ``G_DONE``, ``G_TO_ACT``, ``G_QUEUE_POS``). action_space:
    ``rules ->`` the game's action space (``size``, ``name(id)``). results: the game's result columns of the queue,
    name -> (dtype, per seat): a (G,) array, or (G, P) when ``per seat``, written by the game's ``record_result``
    hook (:mod:`cya_sim.engine.hooks`). queue_type: the game's queue, a ``namedtuple`` of :data:`COMMON_FIELDS` and
    the result columns, defined at the top level of the game's module (numba's disk cache names its type).
    log_dtype: the dtype of the action log. illegal_error: the exception raised for an illegal action (takes
    ``message, game_index, seat, agent, action, row``).
    """

    name: str
    layout: ModuleType
    action_space: Any
    results: dict
    queue_type: type
    log_dtype: Any
    illegal_error: type


@dataclass(frozen=True)
class BatchState:
    """State of B games of one rule set at one table size P, one int64 row per game.

    The rows use the game's layout (``game.layout``). The dataclass is frozen (its fields are never rebound) but its
    arrays are updated in place. Rows are fed from a queue of G games; when a row's game ends its result goes to the
    queue's ``r_*`` arrays and the row starts the next queued game (auto-reset), so the batch stays full until the
    queue is empty.

    game: the :class:`BatchGame`. rules: the rule set. n_players: P. action_space: the action ids.
    agent_names: tuple of agent labels that ``q_seat_agent`` indexes (for messages and results).
    consts: the game's constants record (``game.layout.make_consts``).
    rows: (B, W) int64 — one game per row. engine_rng: (B, 4) uint64 — each row's engine PCG64 stream
    (stream 0: shuffles and the like). agent_rng: (B, P, 4) uint64 — the agent streams (stream 1 + seat).
    queue: the game's queue (:attr:`BatchGame.queue_type`).

    Every scalar and block of the layout reads as a NumPy view by name (``state.to_act`` (B,), ``state.hands``
    (B, P, T), ... all int64; writes go through), and so does every queue field; a layout's ``DERIVED`` fields
    (name -> ``(consts, rows) ->`` array) read as copies made from the rows (the classic ``gave_up``).
    """

    game: BatchGame
    rules: Any
    n_players: int
    action_space: Any
    agent_names: tuple
    consts: Any
    rows: np.ndarray
    engine_rng: np.ndarray
    agent_rng: np.ndarray
    queue: Any

    def __getattr__(self, name: str):
        d = self.__dict__
        lo = d["game"].layout if "game" in d else None
        derived = getattr(lo, "DERIVED", {})
        if "rows" in d and name in derived:  # a copy made from the rows: computed at each read, never kept
            return derived[name](d["consts"], d["rows"])
        if "rows" in d and (name in lo.SCALARS or name in lo.BLOCKS):
            view = lo.field_view(d["consts"], d["rows"], name)
        elif "queue" in d and name in d["queue"]._fields:
            view = getattr(d["queue"], name)
        else:
            raise AttributeError(f"BatchState has no field {name!r}")
        d[name] = view  # the arrays are never rebound (updated in place): the view is found directly next time
        return view

    @property
    def batch_size(self) -> int:
        """B, the number of rows."""
        return int(self.rows.shape[0])

    @property
    def all_done(self) -> bool:
        """Every queued game has finished."""
        return bool(self.queue.r_done.all())


def allocate(game: BatchGame, rules, n_players: int, batch_size: int, key: int, game_indices, seat_agent,
             agent_names, log_cap: int = 0) -> BatchState:
    """A :class:`BatchState` of ``game`` with idle rows and its queue filled (no game started yet).

    Args:
        game: the game's :class:`BatchGame`. rules: its rule set. n_players: P.
        game_indices: (G,) int global game indices. seat_agent: (G, P) int indices into ``agent_names``.
        agent_names: labels of the agents (for messages and results).
        log_cap: L, actions logged per game (0: no log).

    Raises:
        ValueError: batch_size < 1, shapes that do not match, seat_agent values outside the agents, a deck the
            compiled rules cannot take.
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
    lo = game.layout
    k = lo.make_consts(rules, n_players)
    b, p, g = int(batch_size), n_players, game_indices.shape[0]
    rows = np.zeros((b, lo.row_width(k)), np.int64)
    rows[:, lo.G_DONE] = 1
    rows[:, lo.G_TO_ACT] = -1
    rows[:, lo.G_QUEUE_POS] = -1
    z = np.zeros
    results = {name: z((g, p) if per_seat else g, dtype) for name, (dtype, per_seat) in game.results.items()}
    queue = game.queue_type(
        q_game_index=game_indices, q_seat_agent=seat_agent, q_next=z(1, np.int64),
        key=np.array([key], dtype=np.uint64), r_done=z(g, bool),
        log_actions=z((g, log_cap) if log_cap else (0, 0), game.log_dtype), log_len=z(g if log_cap else 0, np.int32),
        err=z(3, np.int64), **results)
    return BatchState(game=game, rules=rules, n_players=p, action_space=game.action_space(rules),
                      agent_names=tuple(agent_names), consts=k, rows=rows, engine_rng=z((b, 4), np.uint64),
                      agent_rng=z((b, p, 4), np.uint64), queue=queue)
