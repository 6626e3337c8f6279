"""Search for one seat of a hidden-information game: determinization, ISMCTS and PIMC (issue 6).

Modules:

* :mod:`.determinize` — from one seat's :class:`~cya_sim.observation.Observation`
  (never the true state) build a *template* row of the batched engine's state
  and sample full game states (determinizations) consistent with it, exactly
  uniformly over the consistent deals (RULES.md §10, R-HIDDEN-WILD).
* :mod:`.kernels` — numba kernels: the legal actions of a row, the observer's
  edge key of an action, rollouts, utilities, single-observer ISMCTS
  (Cowling, Powley & Whitehouse, IEEE TCIAIG 4(2), 2012) and determinized flat
  Monte Carlo (PIMC).
* :mod:`.search` — the Python entry points the agents call
  (:func:`~cya_sim.search.search.ismcts_search`, :func:`~cya_sim.search.search.pimc_search`).

* :mod:`.flat` — the batched engine's rules and the ``greedy``/``random``
  policies on one game held in one int64 array, for the inner loop (checked
  action by action against :mod:`cya_sim.engine.batched.kernels` by
  ``tests/test_search_flat.py``).
* :mod:`.policies` — the ``card_counter`` rollout policy: the agent view of
  a seat of a flat game and the agent's own compiled decision function.
* :mod:`.agent` — the common part of :class:`agents.ismcts.ISMCTSAgent` and
  :class:`agents.pimc.PIMCAgent`; :mod:`.bench` — speed and strength benchmarks.
"""

# The agents package first: its registry imports the search agents, which import this package, and the
# ``card_counter`` rollout (.policies) imports agents.card_counter; loaded in this order there is no cycle.
import agents  # noqa: F401
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
