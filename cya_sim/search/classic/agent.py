"""The classic family's search agents ``ismcts`` and ``pimc`` (registered by name in ``agents.classic.registry``).

``ismcts`` — single-observer Information Set MCTS (Cowling, Powley & Whitehouse, IEEE TCIAIG 4(2), 2012).
Each decision runs :func:`cya_sim.search.classic.ismcts_search` from the seat's
observation only: every iteration samples a determinization uniformly among
the deals consistent with what the seat has seen (:mod:`cya_sim.search.classic.determinize`),
descends the seat's tree with UCB1 on availability counts, expands one move,
plays a compiled rollout (default ``greedy``; ``random``; ``card_counter``:
every rollout seat plays that agent from its own view of the determinized game,
:func:`agents.classic.compiled_strategy.card_counter_entry`) to the end of the round, and backs up each
mover's utility; the move with the most visits is played. Measured at 1,000
iterations, 4-player classic, seats rotated (``experiments/ismcts_strength.md``):
with ``rollout="card_counter"`` it beats three ``greedy``, three ``card_counter``
and three ``pimc`` (same iterations and rollout) seats, each with the 95%
interval above the fair 25%; the default ``greedy`` rollouts are about 3x
faster per iteration (``cya-sim bench --mcts``) and beat ``greedy`` and
``card_counter`` too, but not ``pimc`` with the same rollouts.
Opponents' moves the seat cannot tell apart (the hidden card beneath a set
laid from the hand or onto a discarded asset, R-HIDDEN-WILD) are one edge
(:func:`cya_sim.search.classic.kernels.edge_key`). Challenge decisions (R-CH-EXCHANGE)
are searched like any other; a decision with one legal action is not searched.

``pimc`` — determinized flat Monte Carlo (perfect-information Monte Carlo sampling).
Each decision runs :func:`cya_sim.search.classic.pimc_search`: determinizations are
sampled from the seat's observation only (:mod:`cya_sim.search.classic.determinize`),
every legal action is played out on each of them with a compiled rollout
(default ``greedy``; also ``random`` and ``card_counter``) to the end of the round, and the action of highest mean
utility is played (Long, Sturtevant, Buro & Furtak, AAAI 2010). The baseline
ISMCTS is compared with at equal iterations (one iteration = one rollout).

They are the shared search agents (:mod:`cya_sim.search.agent`: budget, seeds, statistics, pickling) over the
classic search (:data:`cya_sim.search.classic.search.GAME`). They sit with the search (above ``agents/``, whose
compiled policies they use as rollout policies); ``agents.classic.registry`` names them by path.
"""

from __future__ import annotations

from cya_sim.search import agent
from cya_sim.search.classic.search import DEFAULT_C_UCB, GAME


class ISMCTSAgent(agent.ISMCTSAgent):
    """SO-ISMCTS for one seat of the classic family.

    Args:
        iterations: iterations per decision (int >= 1), unless ``time_s`` is given.
        time_s: seconds per decision instead (float > 0), or None.
        c_ucb: UCB1 exploration constant (float >= 0; utilities are in [0, 1]). Default
            :data:`cya_sim.search.classic.search.DEFAULT_C_UCB` (0.15): the ``share`` utilities of
            different moves differ by a few hundredths, so Cowling et al.'s 0.7 for win/loss
            rewards spreads the visits almost evenly; in 100 rotated 4-player games at 1,000
            iterations, C = 0.15 won 32% against C = 0.35 (22%), pimc (20%) and card_counter (26%).
        rollout: rollout policy, one of ``greedy`` (default), ``random`` or
            ``card_counter`` (every rollout seat plays the ``card_counter``
            agent from its own view of the determinized game,
            :func:`agents.classic.compiled_strategy.card_counter_entry`; slower per iteration,
            much stronger: see ``experiments/ismcts_strength.md``), or another spec with a compiled form.
        utility: ``share`` (the seat's share of the round's scores) or ``win``
            (its share of the game's win, rollouts to the game's end).
        seed: int >= 0 mixed into every decision's random stream.
        max_nodes: tree capacity, at most 1,000,000 (default: iterations + 1 up to that, or 100,000 when
            searching by time); a full tree stops expanding.

    Raises:
        ValueError: a parameter outside its allowed values.
    """

    game = GAME

    def __init__(self, iterations: int = 1000, time_s: float | None = None, c_ucb: float = DEFAULT_C_UCB,
                 rollout: str = "greedy", utility: str = "share", seed: int = 0, max_nodes: int | None = None):
        super().__init__(iterations, time_s, c_ucb, rollout, utility, seed, max_nodes)


class PIMCAgent(agent.PIMCAgent):
    """Flat Monte Carlo over determinizations for one seat of the classic family.

    Args: ``iterations`` (rollouts per decision, all actions together), ``time_s``, ``rollout``, ``utility``
    (default ``share``), ``seed``: as :class:`ISMCTSAgent`.

    Raises:
        ValueError: a parameter outside its allowed values.
    """

    game = GAME

    def __init__(self, iterations: int = 1000, time_s: float | None = None, rollout: str = "greedy",
                 utility: str = "share", seed: int = 0) -> None:
        super().__init__(iterations, time_s, rollout, utility, seed)
