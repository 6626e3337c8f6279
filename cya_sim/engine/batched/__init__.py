"""The batched engine: B games as the rows of one int64 array, rules compiled with numba.

Public API: :func:`init`, :func:`step`, :func:`observe`, :func:`results`,
:class:`BatchState`, :class:`ObservationBatch`, :class:`IllegalActionError`.
The rules are the single compiled kernel :mod:`cya_sim.engine.compiled`;
:mod:`.loops` runs it over rows; :mod:`.adapter` builds the reference
observation of a row. Playing whole games with agents (``play_games``,
``run_compiled``) is the play layer's (:mod:`cya_sim.play.batched`).
"""

from __future__ import annotations

from cya_sim.engine.batched.api import IllegalActionError, init, results, step
from cya_sim.engine.batched.observation import ObservationBatch, observe
from cya_sim.engine.batched.state import BatchState

__all__ = ["BatchState", "IllegalActionError", "ObservationBatch", "init", "observe", "results", "step"]
