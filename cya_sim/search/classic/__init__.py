"""Search for one seat of the classic family: determinization, ISMCTS and PIMC.

Modules:

* :mod:`.determinize` — from one seat's :class:`~cya_sim.engine.classic.reference.observation.Observation`
  (never the true state) build the template game row and sample full game
  states (determinizations) consistent with it, exactly uniformly over the
  consistent deals (RULES.md §10, R-HIDDEN-WILD).
* :mod:`.kernels` — numba kernels: the observer's edge key of an action,
  rollouts, utilities, single-observer ISMCTS (Cowling, Powley & Whitehouse,
  IEEE TCIAIG 4(2), 2012) and determinized flat Monte Carlo (PIMC). They step
  the one compiled rules kernel (:mod:`cya_sim.engine.classic.kernel`) on rows of
  the one compiled game layout, and rollout seats play the compiled policies of
  ``agents/`` — the very functions the batched engine's play loop calls.
* :mod:`.search` — the Python entry points (:func:`~cya_sim.search.classic.search.ismcts_search`,
  :func:`~cya_sim.search.classic.search.pimc_search`).
* :mod:`.agent` — the agents ``ismcts`` and ``pimc``; :mod:`.bench` — speed and strength benchmarks.

The game-independent part of SO-ISMCTS (one node's choice, expansion, backup) is :mod:`cya_sim.search.tree`,
shared with the theft game's search (:mod:`cya_sim.search.theft`).
"""

from cya_sim.search.classic.determinize import Determinizer, InfoSet, info_set
from cya_sim.search.classic.search import (
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
