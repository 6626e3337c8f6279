"""The batched state: B games of one rule set and table size as the rows of one int64 array."""

from __future__ import annotations

from collections import namedtuple
from dataclasses import dataclass

import numpy as np

from cya_sim.engine.classic import layout as lo
from cya_sim.game.classic.actions import ActionSpace
from cya_sim.game.rules import RuleSet

QUEUE_FIELDS = ("q_game_index", "q_seat_agent", "q_next", "key", "r_done", "r_first_dealer", "r_totals",
                "r_winners", "r_rounds", "r_turns", "r_challenges", "r_decisions", "r_largest_steal",
                "log_actions", "log_len", "err", "r_capped")
Queue = namedtuple("Queue", QUEUE_FIELDS)
Queue.__doc__ = """The queue of games a batch plays, their results, action logs and the error slot.

q_game_index: (G,) int64 — global indices of the queued games.
q_seat_agent: (G, P) int16 — index into the state's ``agent_names`` for each game and seat.
q_next: (1,) int64 — next queue position to start.
key: (1,) uint64 — the 64-bit root key (:func:`cya_sim.game.rng.root_key`).
r_done: (G,) bool — the queued game has finished.
r_first_dealer: (G,) int16; r_totals: (G, P) int64 dollars; r_winners: (G,) int32 bitmask;
r_rounds, r_turns, r_challenges, r_decisions, r_largest_steal: (G,) int64 — results per queued game.
log_actions: (G, L) int16 — every action of each game when logging is on, else shape (0, 0).
log_len: (G,) int32 — actions logged per game, else shape (0,).
err: (3,) int64 — [error code, row, action] set by a compiled loop (``loops.ERR_*``).
r_capped: (G,) bool — the game was stopped by the round cap (``RuleSet.max_rounds``), not by R-GAME-END.
"""


@dataclass(frozen=True)
class BatchState:
    """State of B games of one rule set at one table size P, one int64 row per game (RULES.md §3–5).

    The rows use the layout of :mod:`cya_sim.engine.classic.layout`, the one
    compiled game representation (the search uses single rows of it). The
    dataclass is frozen (its fields are never rebound) but its arrays are
    updated in place. Rows are fed from a queue of G games (:class:`Queue`);
    when a row's game ends its result goes to the ``r_*`` arrays and the row
    starts the next queued game (auto-reset), so the batch stays full until
    the queue is empty.

    rules: the :class:`RuleSet`. n_players: P. action_space: the action ids.
    agent_names: tuple of agent labels that ``q_seat_agent`` indexes (for messages and results).
    consts: :class:`~cya_sim.engine.classic.layout.Consts`.
    rows: (B, W) int64 — one game per row. engine_rng: (B, 4) uint64 — each row's engine PCG64
    stream (stream 0: first dealer, shuffles). agent_rng: (B, P, 4) uint64 — the agent streams
    (stream 1 + seat). queue: the :class:`Queue`.

    Every scalar and block of the layout reads as a NumPy view by name
    (``state.to_act`` (B,), ``state.hands`` (B, P, T), ``state.set_counts`` (B, S, T), ... all
    int64; writes go through), and so does every :class:`Queue` field. ``gave_up`` is a (B, P, T)
    bool copy of the public give-up record (RULES.md §10).
    """

    rules: RuleSet
    n_players: int
    action_space: ActionSpace
    agent_names: tuple
    consts: lo.Consts
    rows: np.ndarray
    engine_rng: np.ndarray
    agent_rng: np.ndarray
    queue: Queue

    def __getattr__(self, name: str):
        d = self.__dict__
        if "rows" in d and (name in lo.SCALARS or name in lo.BLOCKS):
            view = lo.field_view(d["consts"], d["rows"], name)
        elif "queue" in d and name in QUEUE_FIELDS:
            view = getattr(d["queue"], name)
        else:
            raise AttributeError(f"BatchState has no field {name!r}")
        d[name] = view  # the arrays are never rebound (updated in place): the view is found directly next time
        return view

    @property
    def gave_up(self) -> np.ndarray:
        """(B, P, T) bool copy of the public give-up record (bit c of ``gave_up_mask``)."""
        t = int(self.consts.cfg[lo.C_T])
        return ((self.gave_up_mask[..., None] >> np.arange(t)) & 1).astype(bool)

    @property
    def batch_size(self) -> int:
        """B, the number of rows."""
        return int(self.rows.shape[0])

    @property
    def all_done(self) -> bool:
        """Every queued game has finished."""
        return bool(self.queue.r_done.all())


def allocate(rules: RuleSet, n_players: int, batch_size: int, key: int, game_indices, seat_agent,
             agent_names, log_cap: int = 0) -> BatchState:
    """A :class:`BatchState` with idle rows and its queue filled (no game started yet).

    Args:
        game_indices: (G,) int global game indices. seat_agent: (G, P) int indices into ``agent_names``.
        agent_names: labels of the agents (for messages and results).
        log_cap: L, actions logged per game (0: no log).

    Raises:
        ValueError: batch_size < 1, shapes that do not match, a deck the compiled rules cannot take.
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
    queue = Queue(
        q_game_index=game_indices, q_seat_agent=seat_agent, q_next=z(1, np.int64),
        key=np.array([key], dtype=np.uint64), r_done=z(g, bool), r_first_dealer=z(g, np.int16),
        r_totals=z((g, p), np.int64), r_winners=z(g, np.int32), r_rounds=z(g, np.int64), r_turns=z(g, np.int64),
        r_challenges=z(g, np.int64), r_decisions=z(g, np.int64), r_largest_steal=z(g, np.int64),
        log_actions=z((g, log_cap) if log_cap else (0, 0), np.int16), log_len=z(g if log_cap else 0, np.int32),
        err=z(3, np.int64), r_capped=z(g, bool))
    return BatchState(rules=rules, n_players=p, action_space=ActionSpace.for_rules(rules),
                      agent_names=tuple(agent_names), consts=k, rows=rows, engine_rng=z((b, 4), np.uint64),
                      agent_rng=z((b, p, 4), np.uint64), queue=queue)
