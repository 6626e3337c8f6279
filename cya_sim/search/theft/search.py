"""The theft game's search entry points: one decision of ISMCTS or PIMC from an observation (RULES.md §9).

Both build the template row and the :class:`~cya_sim.search.theft.determinize.TheftInfoSet` from the
:class:`~cya_sim.engine.theft.observation.TheftObservation` (never from the true state) in a
:class:`TheftSearchContext`, then run the shared search (:mod:`cya_sim.search.search`, the compiled kernels of
:mod:`cya_sim.search.kernels` with the theft hooks of :mod:`cya_sim.search.theft.kernels`); a simulation plays to the
end of the game.
"""

from __future__ import annotations

import numpy as np

from agents.theft.compiled import THEFT_POLICIES, new_theft_scratch, theft_policy_of
from cya_sim.engine.theft.kernel import legal_list
from cya_sim.engine.theft.layout import C_A, C_NC, C_T, make_consts, row_width
from cya_sim.engine.theft.observation import TheftObservation
from cya_sim.search import search
from cya_sim.search.search import SearchContext, SearchGame, SearchResult, check_root
from cya_sim.search.theft.determinize import template_row
from cya_sim.search.theft.kernels import UTIL_SHARE, UTIL_WIN
from cya_sim.search.tree import rng_state

#: Built-in rollout policies by name: the compiled theft policies of :mod:`agents.theft.compiled`. A compiled
#: theft plug-in ``my_pkg.policies:decide`` (:mod:`agents.theft.view`) is a rollout policy too.
ROLLOUTS = dict(THEFT_POLICIES)
#: Utilities by name: ``win`` = the seat's share of the win (R-T-END); ``share`` = its share of all points.
UTILITIES = {"win": UTIL_WIN, "share": UTIL_SHARE}
#: The default utility of the theft search (what a tournament scores).
DEFAULT_UTILITY = "win"
#: Default UCB1 constant of the theft search. Its ``win`` utility is 0 or 1 per game (ties shared), so moves differ
#: by more than the classic game's shares of a round (:data:`cya_sim.search.classic.search.DEFAULT_C_UCB`, 0.15): in
#: 1,200 three-seat games against ``greedy`` and ``defender`` (seed 7, 2,000 iterations), C = 0.5 won 53.8%
#: [51.0%, 56.5%] and C = 0.15 won 49.0% [46.2%, 51.8%]; C = 1.0 won 50.3% [45.8%, 54.8%] in 450 games.
DEFAULT_C_UCB = 0.5


def check_rollout(rollout, rules=None) -> tuple[int, int, np.ndarray]:
    """``(code, C address, (N_AGENT_PARAMS,) float64 params)`` of a theft rollout spec with a compiled form (``rules``
    is not read: every theft rule set plays a spec alike).

    Raises:
        ValueError: ``rollout`` is not a theft agent spec with a compiled form; the message lists the built-ins.
        AgentSpecError: a compiled theft plug-in that numba cannot compile or that returns a non-integer (named).
    """
    from agents.spec import AgentSpecError

    try:
        slot = theft_policy_of(rollout) if isinstance(rollout, str) else None
    except AgentSpecError:  # a compiled plug-in numba cannot compile, or that returns a float: its own line
        raise
    except ValueError:
        slot = None
    if slot is None or slot[0] < 0:
        raise ValueError(f"rollout {rollout!r} is not known; choose one of: {', '.join(ROLLOUTS)}, or a compiled "
                         "theft plug-in module:function")
    return slot


def _check_obs(obs) -> None:
    """Refuse an observation of another game.

    Raises:
        TypeError: ``obs`` is not a :class:`~cya_sim.engine.theft.observation.TheftObservation`.
    """
    if not isinstance(obs, TheftObservation):
        raise TypeError(f"observation {type(obs).__name__}: the theft search takes a TheftObservation")


class TheftSearchContext(SearchContext):
    """Arrays for searching one theft rule set at one table size, reused between decisions
    (:class:`~cya_sim.search.search.SearchContext`; the template is a row of the theft layout)."""

    def __init__(self, rules, n_players: int) -> None:
        k = make_consts(rules, n_players)
        cfg = k.cfg
        super().__init__(rules, n_players, k, np.zeros(row_width(k), np.int64), int(cfg[C_A]), new_theft_scratch(k))
        self._samp = (np.zeros(int(cfg[C_T]), np.int64), np.zeros(int(cfg[C_NC]), np.int64))

    def prepare(self, obs: TheftObservation, seed: int, stream: int):
        """Fill the template from ``obs``; return (info, rng, scratch, root legal ids).

        Raises:
            ValueError: an inconsistent observation, or a legal action mask that is not the observed position's.
        """
        _, g0, info = template_row(obs, self.consts)
        self.g0[:] = g0
        acts = np.zeros(self.n_actions, np.int64)
        n = legal_list(self.consts, self.g0, acts)
        root = acts[:n].copy()
        check_root(obs, root)
        return info, rng_state(seed, stream), self.scratch(self._samp), root


#: The theft game as the shared search sees it.
GAME = SearchGame(context=TheftSearchContext, rollout_policy=check_rollout, check_rollout=check_rollout,
                  utilities=UTILITIES, check_obs=_check_obs)


def theft_ismcts_search(obs: TheftObservation, iterations: int | None = 1000, time_s: float | None = None,
                        c_ucb: float = DEFAULT_C_UCB, rollout: str = "greedy", utility: str = DEFAULT_UTILITY,
                        seed: int = 0, stream: int = 0, max_nodes: int | None = None,
                        context: TheftSearchContext | None = None) -> SearchResult:
    """One SO-ISMCTS decision of the theft game for the seat to act (Cowling, Powley & Whitehouse 2012):
    :func:`cya_sim.search.search.ismcts` for the theft game, each rollout to the end of the game.

    Args: as :func:`cya_sim.search.search.ismcts`; ``obs`` a
    :class:`~cya_sim.engine.theft.observation.TheftObservation`, ``rollout`` a key of :data:`ROLLOUTS` or a compiled
    theft plug-in, ``utility`` a key of :data:`UTILITIES`.

    Raises:
        ValueError: unknown ``rollout``/``utility``, a bad budget, ``c_ucb`` or ``max_nodes``, an observation
            with no legal action or an inconsistent one.
        TypeError: ``obs`` is not a :class:`~cya_sim.engine.theft.observation.TheftObservation`.
        RolloutError: a rollout decision was not legal, or the rollout plug-in raised
            (:func:`cya_sim.search.tree.refuse_rollout`).
    """
    return search.ismcts(GAME, obs, iterations, time_s, c_ucb, rollout, utility, seed, stream, max_nodes, context)


def theft_pimc_search(obs: TheftObservation, iterations: int | None = 1000, time_s: float | None = None,
                      rollout: str = "greedy", utility: str = DEFAULT_UTILITY, seed: int = 0, stream: int = 0,
                      context: TheftSearchContext | None = None) -> SearchResult:
    """One decision of determinized flat Monte Carlo (PIMC) of the theft game for the seat to act:
    :func:`cya_sim.search.search.pimc` for the theft game (Long, Sturtevant, Buro & Furtak, AAAI 2010).

    Args: as :func:`theft_ismcts_search` (``iterations`` = rollouts in all).

    Raises:
        ValueError, TypeError: as :func:`theft_ismcts_search`.
    """
    return search.pimc(GAME, obs, iterations, time_s, rollout, utility, seed, stream, context)
