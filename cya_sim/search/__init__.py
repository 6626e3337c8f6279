"""Search for one seat of a hidden-information game: determinization, ISMCTS and PIMC.

Modules:

* :mod:`.determinize` — from one seat's :class:`~cya_sim.engine.reference.observation.Observation`
  (never the true state) build the template game row and sample full game
  states (determinizations) consistent with it, exactly uniformly over the
  consistent deals (RULES.md §10, R-HIDDEN-WILD).
* :mod:`.kernels` — numba kernels: the observer's edge key of an action,
  rollouts, utilities, single-observer ISMCTS (Cowling, Powley & Whitehouse,
  IEEE TCIAIG 4(2), 2012) and determinized flat Monte Carlo (PIMC). They step
  the one compiled rules kernel (:mod:`cya_sim.engine.compiled.rules`) on rows of
  the one compiled game layout, and rollout seats play the compiled policies of
  ``agents/`` — the very functions the batched engine's play loop calls.
* :mod:`.search` — the Python entry points (:func:`~cya_sim.search.search.ismcts_search`,
  :func:`~cya_sim.search.search.pimc_search`).
* :mod:`.agent` — the agents ``ismcts`` and ``pimc``; :mod:`.bench` — speed and strength benchmarks.
* :mod:`.tree` — the game-independent part of SO-ISMCTS (one node's choice, expansion, backup), shared by
  the classic kernels and the theft game's.
* :mod:`.theft` — the same search for the theft game (RULES.md §9) over its compiled kernel: its
  determinizer, kernels and agents ``ismcts`` and ``pimc``.
"""

from cya_sim.search.determinize import Determinizer, InfoSet, info_set
from cya_sim.search.search import (
    ROLLOUTS,
    UTILITIES,
    SearchResult,
    ismcts_search,
    pimc_search,
)

__all__ = [
    "ROLLOUTS",
    "UTILITIES",
    "Determinizer",
    "InfoSet",
    "SearchResult",
    "info_set",
    "ismcts_search",
    "pimc_search",
]
