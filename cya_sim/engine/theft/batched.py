"""The batched theft engine: B theft games as the rows of one int64 array, fed from a queue (RULES.md §9).

The game-independent batch driver (:mod:`cya_sim.engine.batched`: a :class:`~cya_sim.engine.batched.state.BatchState`
holds the rows, each row's engine and agent PCG64 streams and a queue of games; when a row's game ends its result
goes to the queue's ``r_*`` arrays and the row starts the next queued game) plays the theft game as :data:`GAME`
describes it: the rows of :mod:`cya_sim.engine.theft.layout`, the rules kernel :mod:`cya_sim.engine.theft.kernel`,
the result columns of a :class:`TheftQueue` written by :func:`record_result`. :func:`init`, :func:`step` and
:func:`results` are the public API. No agent is called here: the play loop (:mod:`cya_sim.play.loop`) chooses the
actions.

Seeding as in :mod:`cya_sim.game.rng`: queued game ``g`` uses stream 0 of ``(key, g)`` for the engine (first player,
shuffles) and stream ``1 + s`` for the agent at seat ``s``, so a game depends only on (rules, line-up, key, g), never
on the batch size.
"""

from __future__ import annotations

from collections import namedtuple
from collections.abc import Sequence

import numpy as np
from numba import njit

from cya_sim.engine import hooks
from cya_sim.engine.batched import api
from cya_sim.engine.batched.api import DEFAULT_BATCH_SIZE, IllegalActionError, raise_illegal, step
from cya_sim.engine.batched.state import COMMON_DOC, COMMON_FIELDS, BatchGame, BatchState
from cya_sim.engine.jit import JIT
from cya_sim.engine.table import GameTable
from cya_sim.engine.theft import layout as lo
from cya_sim.engine.theft.layout import (
    B_POINTS,
    C_P,
    CONSTS_DTYPE,
    G_CANCELLED,
    G_CAPPED,
    G_DECISIONS,
    G_FIRST,
    G_LARGEST_STEAL,
    G_THEFTS,
    G_TURNS,
    G_WINNERS,
)
from cya_sim.engine.theft.reference import TheftIllegalActionError
from cya_sim.engine.theft.results import THEFT_COLUMNS
from cya_sim.game.theft.actions import TheftActionSpace

__all__ = ["DEFAULT_BATCH_SIZE", "GAME", "BatchState", "TheftIllegalBatchActionError", "TheftQueue", "init",
           "raise_illegal", "results", "step"]

#: The theft game's result columns of the queue: name -> (dtype, one per seat).
RESULTS = {"r_first_player": (np.int16, False), "r_points": (np.int64, True), "r_winners": (np.int32, False),
           "r_turns": (np.int64, False), "r_thefts": (np.int64, False), "r_cancelled": (np.int64, False),
           "r_decisions": (np.int64, False), "r_largest_steal": (np.int64, False), "r_capped": (np.bool_, False)}
TheftQueue = namedtuple("TheftQueue", COMMON_FIELDS + tuple(RESULTS))
TheftQueue.__doc__ = "The queue of theft games a batch plays, their results, action logs and the error slot.\n\n" + \
    COMMON_DOC + """r_first_player: (G,) int16 — the seat chosen at random to move first (R-T-SETUP).
r_points: (G, P) int64 — points of each seat's assets (R-T-END). r_winners: (G,) int32 — bitmask of the winners.
r_turns, r_thefts, r_cancelled, r_decisions: (G,) int64 — turns, theft cards played, thefts cancelled, decisions.
r_largest_steal: (G,) int64 — points of the largest asset a thief won.
r_capped: (G,) bool — the game stopped at ``max_turns`` (a safeguard, not a rule).
"""


class TheftIllegalBatchActionError(IllegalActionError, TheftIllegalActionError):
    """An action outside the legal action mask was chosen in the batched theft engine (a
    :class:`~cya_sim.engine.theft.reference.TheftIllegalActionError`, as on the reference engine).

    Attributes: game_index, seat, agent (name), action (id), row (batch row).
    """


@njit(**JIT)
def record_result(K, G, Q, q):
    """Write the finished game of row ``G`` into the result columns of queue ``Q`` at position ``q`` (the
    ``record_result`` hook of :mod:`cya_sim.engine.hooks`)."""
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


hooks.implement(hooks.record_result, CONSTS_DTYPE.names, record_result)

#: The theft game as the batch driver sees it.
GAME = BatchGame(name="theft", layout=lo, action_space=TheftActionSpace.for_rules, results=RESULTS,
                 queue_type=TheftQueue, log_dtype=np.int32, illegal_error=TheftIllegalBatchActionError)


def init(rules, n_players: int, batch_size: int, key: int, game_indices=None, seat_agent=None,
         agents: Sequence[str] = ("random",), log_cap: int = 0) -> BatchState:
    """B theft games of ``rules`` at ``n_players`` seats, each at its first decision (R-T-SETUP); the arguments and
    errors of :func:`cya_sim.engine.batched.api.init` (the driver's), for :data:`GAME`."""
    return api.init(GAME, rules, n_players, batch_size, key, game_indices, seat_agent, agents, log_cap)


def results(state: BatchState) -> GameTable:
    """The :class:`GameTable` of the queued games in queue order, as the theft reference play gives it
    (:func:`cya_sim.play.theft.reference.play_theft_games`): the common columns (``totals`` in points, R-T-END;
    ``win_share`` 1/k per tied winner) and the theft game's own (:data:`cya_sim.engine.theft.results.THEFT_COLUMNS`:
    first player, turns, thefts, cancelled thefts, largest steal), each copied from the queue's array of the same
    name (``r_first_player``, ``r_thefts``...)."""
    p = state.n_players
    q = state.queue
    bits = (q.r_winners[:, None] >> np.arange(p)[None, :]) & 1
    k = bits.sum(axis=1, keepdims=True)
    share = np.where(bits == 1, 1.0 / np.maximum(k, 1), 0.0)
    return GameTable(
        game_index=q.q_game_index.copy(), seat_agent=q.q_seat_agent.copy(), totals=q.r_points.copy(),
        win_share=share, decisions=q.r_decisions.copy(), family=THEFT_COLUMNS,
        columns={c: getattr(q, f"r_{c}").copy() for c in THEFT_COLUMNS.names}, capped=q.r_capped.copy())
