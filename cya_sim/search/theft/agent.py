"""The theft game's search agents ``ismcts`` and ``pimc`` (named in ``agents.theft.registry``'s registry; RULES.md §9).

They are the shared search agents (:mod:`cya_sim.search.agent`: budget, seeds, statistics, pickling)
over the theft game's search (:mod:`cya_sim.search.theft.search`): every decision is searched from the
seat's :class:`~cya_sim.engine.theft.observation.TheftObservation` only, determinizations are sampled
uniformly among the deals consistent with it (:mod:`cya_sim.search.theft.determinize`), and rollouts
are played to the end of the game by a compiled theft policy (``greedy`` by default; ``random``,
``defender``, or a compiled theft plug-in) in the one compiled theft kernel.

* ``ismcts(iterations=N, time_s=None, c_ucb=0.5, rollout="greedy", utility="win", seed=0, max_nodes=None)`` —
  single-observer ISMCTS (Cowling, Powley & Whitehouse, IEEE TCIAIG 4(2), 2012);
* ``pimc(iterations=N, time_s=None, rollout="greedy", utility="win", seed=0)`` — determinized flat Monte
  Carlo (Long, Sturtevant, Buro & Furtak, AAAI 2010), one iteration = one rollout.

``utility``: ``win`` (the seat's share of the win, R-T-END) or ``share`` (its share of all points).
Seeds: each decision's stream is derived from ``seed`` and one draw from the seat's own generator
(stream ``1 + seat`` of the game under the tournament's root key, :mod:`cya_sim.game.rng`), so a
tournament seed fixes every decision, and the reference and the batched theft engines (which hand the
agent the same observation and the same generator) play the same games.
"""

from __future__ import annotations

from cya_sim.search import agent
from cya_sim.search.theft.search import DEFAULT_C_UCB, DEFAULT_UTILITY, GAME


class TheftISMCTSAgent(agent.ISMCTSAgent):
    """SO-ISMCTS for one seat of the theft game.

    Args:
        iterations: iterations per decision (int >= 1), unless ``time_s`` is given.
        time_s: seconds per decision instead (float > 0), or None.
        c_ucb: UCB1 exploration constant (float >= 0; utilities lie in [0, 1]); default
            :data:`cya_sim.search.theft.search.DEFAULT_C_UCB` (0.5, measured there).
        rollout: ``greedy`` (default), ``random``, ``defender`` or a compiled theft plug-in.
        utility: ``win`` (default) or ``share``.
        seed: int >= 0 mixed into every decision's random stream.
        max_nodes: tree capacity, at most 1,000,000 (default: iterations + 1 up to that, or 100,000 by time).

    Raises:
        ValueError: a parameter outside its allowed values (the message names it and what is allowed).
    """

    game = GAME

    def __init__(self, iterations: int = 1000, time_s: float | None = None, c_ucb: float = DEFAULT_C_UCB,
                 rollout: str = "greedy", utility: str = DEFAULT_UTILITY, seed: int = 0,
                 max_nodes: int | None = None) -> None:
        super().__init__(iterations, time_s, c_ucb, rollout, utility, seed, max_nodes)



class TheftPIMCAgent(agent.PIMCAgent):
    """Flat Monte Carlo over determinizations for one seat of the theft game.

    Args: ``iterations`` (rollouts per decision, all actions together), ``time_s``, ``rollout``,
    ``utility`` (default ``win``), ``seed``: as :class:`TheftISMCTSAgent`.

    Raises:
        ValueError: a parameter outside its allowed values.
    """

    game = GAME

    def __init__(self, iterations: int = 1000, time_s: float | None = None, rollout: str = "greedy",
                 utility: str = DEFAULT_UTILITY, seed: int = 0) -> None:
        super().__init__(iterations, time_s, rollout, utility, seed)
