"""The classic family's batched engine: B games as the rows of one int64 array, rules compiled with numba.

Public API: :func:`init`, :func:`step`, :func:`observe`, :func:`results`, :class:`BatchState`,
:class:`ObservationBatch`, :class:`IllegalActionError`. The rows (:mod:`cya_sim.engine.classic.layout`) are driven
by the game-independent batch driver (:mod:`cya_sim.engine.batched`) and played by the classic rules kernel
(:mod:`cya_sim.engine.classic.kernel`); this module gives the driver the classic game (:data:`GAME`: its result
columns and their ``record_result`` hook). :mod:`cya_sim.engine.classic.adapter` builds the reference observation of
a row. Playing whole games with agents (``play_games``, ``run_compiled``) is the play layer's
(:mod:`cya_sim.play.classic.batched`).
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
from cya_sim.engine.classic import layout as lo
from cya_sim.engine.classic.batch_observation import ObservationBatch, observe
from cya_sim.engine.classic.layout import (
    B_TOTAL,
    C_P,
    CONSTS_DTYPE,
    G_CAPPED,
    G_CHALLENGES,
    G_DECISIONS,
    G_FIRST_DEALER,
    G_LARGEST_STEAL,
    G_ROUND,
    G_TURNS,
    G_WINNERS,
)
from cya_sim.engine.classic.results import CLASSIC_COLUMNS
from cya_sim.engine.jit import JIT
from cya_sim.engine.table import GameTable
from cya_sim.game.classic.actions import ActionSpace

__all__ = ["DEFAULT_BATCH_SIZE", "GAME", "BatchState", "IllegalActionError", "ObservationBatch", "Queue", "init",
           "observe", "raise_illegal", "results", "step"]

#: The classic game's result columns of the queue: name -> (dtype, one per seat).
RESULTS = {"r_first_dealer": (np.int16, False), "r_totals": (np.int64, True), "r_winners": (np.int32, False),
           "r_rounds": (np.int64, False), "r_turns": (np.int64, False), "r_challenges": (np.int64, False),
           "r_decisions": (np.int64, False), "r_largest_steal": (np.int64, False), "r_capped": (np.bool_, False)}
Queue = namedtuple("Queue", COMMON_FIELDS + tuple(RESULTS))
Queue.__doc__ = "The queue of classic games a batch plays, their results, action logs and the error slot.\n\n" + \
    COMMON_DOC + """r_first_dealer: (G,) int16; r_totals: (G, P) int64 dollars; r_winners: (G,) int32 bitmask;
r_rounds, r_turns, r_challenges, r_decisions, r_largest_steal: (G,) int64 — results per queued game.
r_capped: (G,) bool — the game was stopped by the round cap (``RuleSet.max_rounds``), not by R-GAME-END.
"""


@njit(**JIT)
def record_result(K, G, Q, q):
    """Write the finished game of row ``G`` into the result columns of queue ``Q`` at position ``q`` (the
    ``record_result`` hook of :mod:`cya_sim.engine.hooks`)."""
    Q.r_first_dealer[q] = G[G_FIRST_DEALER]
    t0 = K.lay[B_TOTAL]
    for s in range(K.cfg[C_P]):
        Q.r_totals[q, s] = G[t0 + s]
    Q.r_winners[q] = G[G_WINNERS]
    Q.r_rounds[q] = G[G_ROUND]
    Q.r_turns[q] = G[G_TURNS]
    Q.r_challenges[q] = G[G_CHALLENGES]
    Q.r_decisions[q] = G[G_DECISIONS]
    Q.r_largest_steal[q] = G[G_LARGEST_STEAL]
    Q.r_capped[q] = G[G_CAPPED] != 0


hooks.implement(hooks.record_result, CONSTS_DTYPE.names, record_result)

#: The classic game as the batch driver sees it.
GAME = BatchGame(name="classic", layout=lo, action_space=ActionSpace.for_rules, results=RESULTS, queue_type=Queue,
                 log_dtype=np.int16, illegal_error=IllegalActionError)


def init(rules, n_players: int, batch_size: int, key: int, game_indices=None, seat_agent=None,
         agents: Sequence[str] = ("random",), log_cap: int = 0) -> BatchState:
    """B classic games of ``rules`` at ``n_players`` seats, each at its first decision (R-SETUP); the arguments and
    errors of :func:`cya_sim.engine.batched.api.init` (the driver's), for :data:`GAME`."""
    return api.init(GAME, rules, n_players, batch_size, key, game_indices, seat_agent, agents, log_cap)


def results(state: BatchState) -> GameTable:
    """The :class:`GameTable` of the queued games, in queue order (finished games only are meaningful).

    The common columns and the classic family's own (:data:`cya_sim.engine.classic.results.CLASSIC_COLUMNS`),
    each copied from the queue's array of the same name (``r_first_dealer``, ``r_rounds``...); totals in dollars.
    """
    p = state.n_players
    q = state.queue
    bits = (q.r_winners[:, None] >> np.arange(p)[None, :]) & 1
    k = bits.sum(axis=1, keepdims=True)
    share = np.where(bits == 1, 1.0 / np.maximum(k, 1), 0.0)
    return GameTable(
        game_index=q.q_game_index.copy(), seat_agent=q.q_seat_agent.copy(), totals=q.r_totals.copy(),
        win_share=share, decisions=q.r_decisions.copy(), family=CLASSIC_COLUMNS,
        columns={c: getattr(q, f"r_{c}").copy() for c in CLASSIC_COLUMNS.names}, capped=q.r_capped.copy())
