"""``pimc``: determinized flat Monte Carlo (perfect-information Monte Carlo sampling).

Each decision runs :func:`cya_sim.search.pimc_search`: determinizations are
sampled from the seat's observation only (:mod:`cya_sim.search.determinize`),
every legal action is played out on each of them with a compiled rollout
(default ``greedy``; also ``random`` and ``card_counter``) to the end of the round, and the action of highest mean
utility is played (Long, Sturtevant, Buro & Furtak, AAAI 2010). The baseline
ISMCTS is compared with at equal iterations (one iteration = one rollout).
"""

from __future__ import annotations

from cya_sim.search.agent import SearchAgent
from cya_sim.search.search import pimc_search


class PIMCAgent(SearchAgent):
    """Flat Monte Carlo over determinizations for one seat.

    Args: ``iterations`` (rollouts per decision, all actions together),
    ``time_s``, ``rollout``, ``utility``, ``seed``: see
    :class:`cya_sim.search.agent.SearchAgent`.

    Raises:
        ValueError: a parameter outside its allowed values.
    """

    name = "pimc"

    def _search(self, obs, stream, ctx):
        return pimc_search(obs, self.iterations, self.time_s, self.rollout, self.utility, self.seed, stream, ctx)
