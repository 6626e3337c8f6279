"""The classic family's batched engine: B games as the rows of one int64 array, rules compiled with numba.

Public API: :func:`init`, :func:`step`, :func:`observe`, :func:`results`, :class:`BatchState`,
:class:`ObservationBatch`, :class:`IllegalActionError`. The rows are driven by :mod:`cya_sim.engine.batched`
and played by the classic rules kernel (:mod:`cya_sim.engine.classic.kernel`); :mod:`cya_sim.engine.classic.adapter`
builds the reference observation of a row. Playing whole games with agents (``play_games``, ``run_compiled``) is
the play layer's (:mod:`cya_sim.play.classic.batched`).
"""

from __future__ import annotations

import numpy as np

from cya_sim.engine.batched.api import IllegalActionError, init, step
from cya_sim.engine.batched.state import BatchState
from cya_sim.engine.classic.batch_observation import ObservationBatch, observe
from cya_sim.engine.table import GameTable

__all__ = ["BatchState", "IllegalActionError", "ObservationBatch", "init", "observe", "results", "step"]


def results(state: BatchState) -> GameTable:
    """The :class:`GameTable` of the queued games, in queue order (finished games only are meaningful)."""
    p = state.n_players
    q = state.queue
    bits = (q.r_winners[:, None] >> np.arange(p)[None, :]) & 1
    k = bits.sum(axis=1, keepdims=True)
    share = np.where(bits == 1, 1.0 / np.maximum(k, 1), 0.0)
    return GameTable(
        game_index=q.q_game_index.copy(), seat_agent=q.q_seat_agent.copy(),
        first_dealer=q.r_first_dealer.copy(), totals=q.r_totals.copy(), win_share=share,
        rounds=q.r_rounds.copy(), turns=q.r_turns.copy(), challenges=q.r_challenges.copy(),
        decisions=q.r_decisions.copy(), largest_steal=q.r_largest_steal.copy(), capped=q.r_capped.copy())
