"""Search for one seat of the theft game (RULES.md §9): determinization, ISMCTS and PIMC.

The classic search's structure (:mod:`cya_sim.search.classic`) over the compiled theft kernel:

* :mod:`.determinize` — from one seat's :class:`~cya_sim.engine.theft.observation.TheftObservation` (never the
  true state) the template row and exactly uniform determinizations;
* :mod:`.kernels` — numba kernels: edge keys, rollouts by compiled theft policies, utilities, SO-ISMCTS
  (its tree shared with the classic search, :mod:`cya_sim.search.tree`) and PIMC;
* :mod:`.search` — :func:`~cya_sim.search.theft.search.theft_ismcts_search`,
  :func:`~cya_sim.search.theft.search.theft_pimc_search`;
* :mod:`.agent` — the theft agents ``ismcts`` and ``pimc``.
"""

from cya_sim.search.theft.determinize import TheftDeterminizer, TheftInfoSet, template_row
from cya_sim.search.theft.search import ROLLOUTS, UTILITIES, theft_ismcts_search, theft_pimc_search

__all__ = ["ROLLOUTS", "UTILITIES", "TheftDeterminizer", "TheftInfoSet", "template_row", "theft_ismcts_search",
           "theft_pimc_search"]
