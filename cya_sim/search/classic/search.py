"""The classic family's search entry points: one decision of ISMCTS or PIMC from an observation.

Both build the template row and the :class:`~cya_sim.search.classic.determinize.InfoSet` from the
:class:`~cya_sim.engine.classic.reference.observation.Observation` (never from the true state) in a
:class:`ClassicSearchContext`, then run the shared search (:mod:`cya_sim.search.search`, the compiled kernels of
:mod:`cya_sim.search.kernels` with the classic hooks of :mod:`cya_sim.search.classic.kernels`).
"""

from __future__ import annotations

import numpy as np

from agents.classic.compiled import POLICY_CARD_COUNTER, POLICY_GREEDY, POLICY_RANDOM, new_scratch
from agents.classic.registry import compiled_policy, policy_of
from cya_sim.engine.classic.kernel import legal_list
from cya_sim.engine.classic.layout import C_A, C_N, C_T
from cya_sim.engine.classic.reference.observation import Observation
from cya_sim.search import search
from cya_sim.search.classic.determinize import TEMPLATE, fill_template, info_set, new_search_state
from cya_sim.search.classic.kernels import UTIL_SHARE, UTIL_WIN
from cya_sim.search.search import (
    DEFAULT_TIME_NODES,
    MAX_ITERATIONS,
    MAX_NODES,
    MAX_TIME_S,
    TIME_CHUNK,
    SearchContext,
    SearchGame,
    SearchResult,
    check_budget,
    check_choice,
    check_root,
)
from cya_sim.search.tree import rng_state

__all__ = ["DEFAULT_C_UCB", "DEFAULT_TIME_NODES", "MAX_ITERATIONS", "MAX_NODES", "MAX_TIME_S", "ROLLOUTS", "TIME_CHUNK",
           "UTILITIES", "ClassicSearchContext", "SearchResult", "check_budget", "check_choice", "check_rollout",
           "ismcts_search", "pimc_search", "rollout_policy"]

#: Built-in rollout policies by name: the compiled policies of :mod:`agents.classic.compiled` (``greedy``, ``random``)
#: and :mod:`agents.classic.compiled_strategy` (``card_counter``: the agent's own decision function on each rollout
#: seat's view). Any other agent spec with a compiled form — e.g. ``heuristic(count=true)`` or a compiled
#: plug-in ``my_pkg.policies:decide`` (:mod:`agents.classic.plugin`) — is a rollout policy too.
ROLLOUTS = {"greedy": POLICY_GREEDY, "random": POLICY_RANDOM, "card_counter": POLICY_CARD_COUNTER}
#: Utilities by name: ``share`` = the seat's share of the round's scores; ``win`` = its share of the game's win.
UTILITIES = {"share": UTIL_SHARE, "win": UTIL_WIN}
#: Default UCB1 constant for utilities in [0, 1] whose differences between moves are small
#: (:class:`cya_sim.search.classic.agent.ISMCTSAgent`).
DEFAULT_C_UCB = 0.15


def check_rollout(rollout: str) -> None:
    """Refuse a rollout spec without a compiled form (nothing is compiled here).

    Raises:
        ValueError: ``rollout`` is not an agent spec with a compiled form; the message lists the built-ins.
    """
    try:
        pol = compiled_policy(rollout) if isinstance(rollout, str) else None
    except ValueError:
        pol = None
    if pol is None:
        raise ValueError(f"rollout {rollout!r} is not known; choose one of: {', '.join(ROLLOUTS)}, or another "
                         "agent spec with a compiled form (heuristic(...), a compiled plug-in module:function)")


def rollout_policy(rollout: str, rules) -> tuple[int, int, np.ndarray]:
    """``(policy code, C address, (N_AGENT_PARAMS,) float64 params)`` of a rollout spec under ``rules``
    (:func:`agents.classic.registry.policy_of`; a view policy's C entry compiles the first time it is used).

    Raises:
        ValueError: ``rollout`` is not an agent spec with a compiled form; the message lists the built-ins.
    """
    check_rollout(rollout)
    return policy_of(rollout, rules)


class ClassicSearchContext(SearchContext):
    """Arrays for searching one classic rule set at one table size, reused between decisions
    (:class:`~cya_sim.search.search.SearchContext`).

    The template is the row of a one-row batch state (the observation, in the classic layout,
    :mod:`cya_sim.engine.classic.layout`); the sampler's scratch is sized per observation (its hidden set cards).
    """

    def __init__(self, rules, n_players: int) -> None:
        self.state = new_search_state(rules, n_players)
        k = self.state.consts
        cfg = k.cfg
        super().__init__(rules, n_players, k, self.state.rows[TEMPLATE], int(cfg[C_A]), new_scratch(cfg))
        self.n_types = int(cfg[C_T])
        self.n_cards = int(cfg[C_N])

    def prepare(self, obs: Observation, seed: int, stream: int):
        """Fill the template from ``obs``; return (info, rng, scratch, root legal ids).

        Raises:
            ValueError: an inconsistent observation, or a legal action mask that is not the observed position's.
        """
        fill_template(obs, self.state, TEMPLATE)
        info = info_set(obs)
        h = info.slot_set.shape[0]
        samp = (np.zeros(self.n_types, np.int64), np.zeros(self.n_cards, np.int64), np.zeros(h, np.int64),
                np.zeros(h + 2, np.float64))
        acts = np.zeros(self.n_actions, np.int64)
        n = legal_list(self.consts, self.g0, acts)
        root = acts[:n].copy()
        check_root(obs, root)
        return info, rng_state(seed, stream), self.scratch(samp), root


#: The classic family as the shared search sees it.
GAME = SearchGame(context=ClassicSearchContext, rollout_policy=rollout_policy, check_rollout=check_rollout,
                  utilities=UTILITIES)


def ismcts_search(obs: Observation, iterations: int | None = 1000, time_s: float | None = None,
                  c_ucb: float = DEFAULT_C_UCB, rollout: str = "greedy", utility: str = "share", seed: int = 0,
                  stream: int = 0, max_nodes: int | None = None,
                  context: ClassicSearchContext | None = None) -> SearchResult:
    """One SO-ISMCTS decision for the seat to act (Cowling et al. 2012): :func:`cya_sim.search.search.ismcts` for the
    classic family, a simulation playing to the end of the round (``share``) or of the game (``win``).

    Args: as :func:`cya_sim.search.search.ismcts`; ``rollout`` a key of :data:`ROLLOUTS` or another spec with a
    compiled form, ``utility`` a key of :data:`UTILITIES`.

    Raises:
        ValueError: unknown ``rollout``/``utility``, a bad budget or ``c_ucb``, an observation with no legal action
            or an inconsistent one.
        RolloutError: a rollout decision was not legal, or the rollout plug-in raised
            (:func:`cya_sim.search.tree.refuse_rollout`: the policy, the seat and the action named).
    """
    return search.ismcts(GAME, obs, iterations, time_s, c_ucb, rollout, utility, seed, stream, max_nodes, context)


def pimc_search(obs: Observation, iterations: int | None = 1000, time_s: float | None = None,
                rollout: str = "greedy", utility: str = "share", seed: int = 0, stream: int = 0,
                context: ClassicSearchContext | None = None) -> SearchResult:
    """One decision of determinized flat Monte Carlo (PIMC) for the seat to act: :func:`cya_sim.search.search.pimc`
    for the classic family (Long, Sturtevant, Buro & Furtak, AAAI 2010).

    Args: as :func:`ismcts_search` (``iterations`` = rollouts in all).

    Raises:
        ValueError, RolloutError: as :func:`ismcts_search`.
    """
    return search.pimc(GAME, obs, iterations, time_s, rollout, utility, seed, stream, context)
