"""The batched engine: B games as a struct of arrays, rules compiled with numba (issue 3).

Public API: :func:`init`, :func:`step`, :func:`observe`, :func:`play_games`
(same signature and results as the reference engine's), :func:`results`,
:func:`run_compiled`, :class:`BatchState`, :class:`ObservationBatch`,
:class:`IllegalActionError`. The kernels are in :mod:`.kernels` (rules),
:mod:`.pcg` (random streams), :mod:`.runner` (compiled loops); Python agents
are played through :mod:`.adapter`.

The names are loaded on first use (PEP 562), so that ``agents.compiled`` can
import :mod:`.kernels` without importing the whole engine, which itself
imports ``agents.compiled``.
"""

from __future__ import annotations

import importlib

_WHERE = {
    "IllegalActionError": "api", "init": "api", "play_games": "api", "results": "api", "run_compiled": "api",
    "step": "api", "ObservationBatch": "observation", "observe": "observation", "BatchState": "state",
}

__all__ = ["BatchState", "IllegalActionError", "ObservationBatch", "init", "observe", "play_games", "results",
           "run_compiled", "step"]


def __getattr__(name: str):
    if name in _WHERE:
        # The reference engine first: ``cya_sim.observation`` (used by ``agents``) and the
        # reference package import each other, and only this order resolves the cycle.
        importlib.import_module("cya_sim.engine.reference")
        return getattr(importlib.import_module(f"cya_sim.engine.batched.{_WHERE[name]}"), name)
    raise AttributeError(f"module 'cya_sim.engine.batched' has no attribute {name!r}")
