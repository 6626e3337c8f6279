"""``ismcts``: single-observer Information Set MCTS (Cowling, Powley & Whitehouse, IEEE TCIAIG 4(2), 2012).

Each decision runs :func:`cya_sim.search.ismcts_search` from the seat's
observation only: every iteration samples a determinization uniformly among
the deals consistent with what the seat has seen (:mod:`cya_sim.search.determinize`),
descends the seat's tree with UCB1 on availability counts, expands one move,
plays a compiled rollout (default ``greedy``; ``random``; ``card_counter``:
every rollout seat plays that agent from its own view of the determinized game,
:mod:`cya_sim.search.policies`) to the end of the round, and backs up each
mover's utility; the move with the most visits is played. Measured at 1,000
iterations, 4-player classic, seats rotated (``experiments/ismcts_strength.md``):
with ``rollout="card_counter"`` it beats three ``greedy``, three ``card_counter``
and three ``pimc`` (same iterations and rollout) seats, each with the 95%
interval above the fair 25%; the default ``greedy`` rollouts are about 3x
faster per iteration (``cya-sim bench --mcts``) and beat ``greedy`` and
``card_counter`` too, but not ``pimc`` with the same rollouts.
Opponents' moves the seat cannot tell apart (the hidden card beneath a set
laid from the hand or onto a discarded asset, R-HIDDEN-WILD) are one edge
(:func:`cya_sim.search.kernels.edge_key`). Challenge decisions (R-CH-EXCHANGE)
are searched like any other; a decision with one legal action is not searched.
"""

from __future__ import annotations

import numpy as np

from cya_sim.search.agent import SearchAgent
from cya_sim.search.search import DEFAULT_C_UCB, ismcts_search


class ISMCTSAgent(SearchAgent):
    """SO-ISMCTS for one seat.

    Args:
        iterations, time_s, rollout, utility, seed: see :class:`cya_sim.search.agent.SearchAgent`.
        c_ucb: UCB1 exploration constant (float >= 0; utilities are in [0, 1]). Default
            :data:`cya_sim.search.search.DEFAULT_C_UCB` (0.15): the ``share`` utilities of
            different moves differ by a few hundredths, so Cowling et al.'s 0.7 for win/loss
            rewards spreads the visits almost evenly; in 100 rotated 4-player games at 1,000
            iterations, C = 0.15 won 32% against C = 0.35 (22%), pimc (20%) and card_counter (26%).
        max_nodes: tree capacity (default: iterations + 1, or 100,000 when searching by time).

    Raises:
        ValueError: a parameter outside its allowed values.
    """

    name = "ismcts"

    def __init__(self, iterations: int = 1000, time_s: float | None = None, c_ucb: float = DEFAULT_C_UCB,
                 rollout: str = "greedy", utility: str = "share", seed: int = 0, max_nodes: int | None = None):
        super().__init__(iterations, time_s, rollout, utility, seed)
        if not isinstance(c_ucb, (int, float)) or isinstance(c_ucb, bool) or not c_ucb >= 0:
            raise ValueError(f"c_ucb {c_ucb!r}: give a number >= 0")
        self.c_ucb = float(c_ucb)
        if max_nodes is not None and (not isinstance(max_nodes, (int, np.integer)) or isinstance(max_nodes, bool)
                                      or max_nodes < 1):
            raise ValueError(f"max_nodes {max_nodes!r}: give an integer >= 1 (or leave it out)")
        self.max_nodes = max_nodes

    def _search(self, obs, stream, ctx):
        return ismcts_search(obs, self.iterations, self.time_s, self.c_ucb, self.rollout, self.utility, self.seed,
                             stream, self.max_nodes, ctx)
