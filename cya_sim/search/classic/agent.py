"""The search agents ``ismcts`` and ``pimc`` (registered by name in ``agents.classic.registry``) and their common part.

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

They sit with the search (above ``agents/``, whose compiled policies they use
as rollout policies); ``agents.classic.registry`` names them by path.
"""

from __future__ import annotations

import time

import numpy as np

from cya_sim.engine.classic.reference.observation import Observation
from cya_sim.search.classic.search import (
    DEFAULT_C_UCB,
    MAX_NODES,
    UTILITIES,
    SearchContext,
    SearchResult,
    check_budget,
    check_choice,
    check_rollout,
    ismcts_search,
    pimc_search,
)


class SearchAgent:
    """A single-game agent that searches every decision from its observation only (RULES.md §10).

    Args:
        iterations: iterations per decision (int >= 1), unless ``time_s`` is given.
        time_s: seconds per decision instead (float > 0), or None.
        rollout: rollout policy, one of ``greedy`` (default), ``random`` or
            ``card_counter`` (every rollout seat plays the ``card_counter``
            agent from its own view of the determinized game,
            :func:`agents.classic.compiled_strategy.card_counter_entry`; slower per iteration,
            much stronger: see ``experiments/ismcts_strength.md``). All compiled.
        utility: ``share`` (the seat's share of the round's scores) or ``win``
            (its share of the game's win, rollouts to the game's end).
        seed: int >= 0 mixed into every decision's random stream, with a
            draw from the seat's own ``rng`` (so a tournament seed fixes every decision).

    Attributes:
        name: the label in logs and tables.
        decisions: decisions taken. searched: decisions that searched (more than one legal action).
        total_s: seconds spent in :meth:`act`. iterations_run: iterations over all decisions.
        last: the :class:`SearchResult` of the last decision, or None.

    Raises:
        ValueError: a parameter outside its allowed values (the message names it).
    """

    name = "search"
    #: The utilities by name this agent's game offers (``utility`` must be one of them).
    utilities = UTILITIES

    @staticmethod
    def _check_rollout(rollout) -> None:
        """Refuse a rollout spec this agent's game cannot compile (:func:`cya_sim.search.classic.search.check_rollout`)."""
        check_rollout(rollout)

    def _new_context(self, obs):
        """A search context for the observation's rule set and table size."""
        return SearchContext(obs.rules, obs.n_players)

    def __init__(self, iterations: int = 1000, time_s: float | None = None, rollout: str = "greedy",
                 utility: str = "share", seed: int = 0) -> None:
        check_budget(iterations, time_s)
        self._check_rollout(rollout)
        check_choice("utility", utility, self.utilities)
        if not isinstance(seed, (int, np.integer)) or isinstance(seed, bool) or seed < 0:
            raise ValueError(f"seed {seed!r}: give an integer >= 0")
        self.iterations = int(iterations) if time_s is None else iterations
        self.time_s = time_s
        self.rollout = rollout
        self.utility = utility
        self.seed = int(seed)
        self.decisions = 0
        self.searched = 0
        self.total_s = 0.0
        self.iterations_run = 0
        self.last: SearchResult | None = None
        self._ctx: SearchContext | None = None

    def __getstate__(self) -> dict:
        d = dict(self.__dict__)
        d["_ctx"] = None  # arrays are rebuilt in the worker process
        return d

    @property
    def avg_time_per_decision_ms(self) -> float:
        """Mean wall time of :meth:`act` in milliseconds (0.0 before the first decision)."""
        return 1000.0 * self.total_s / self.decisions if self.decisions else 0.0

    def stats(self) -> dict:
        """Decisions, searched decisions, mean ms per decision, iterations per searched decision."""
        return {
            "agent": self.name, "decisions": self.decisions, "searched": self.searched,
            "avg_ms_per_decision": self.avg_time_per_decision_ms,
            "iterations_per_search": self.iterations_run / self.searched if self.searched else 0.0,
        }

    def _search(self, obs: Observation, stream: int, ctx: SearchContext) -> SearchResult:
        raise NotImplementedError

    def act(self, obs: Observation, rng: np.random.Generator) -> int:
        """A legal action id for ``obs``; one legal action is returned without searching."""
        t0 = time.perf_counter()
        stream = int(rng.integers(0, 1 << 62)) if rng is not None else self.decisions
        if self._ctx is None or not self._ctx.matches(obs):
            self._ctx = self._new_context(obs)
        res = self._search(obs, stream, self._ctx)
        self.last = res
        self.decisions += 1
        if res.iterations:
            self.searched += 1
            self.iterations_run += res.iterations
        self.total_s += time.perf_counter() - t0
        return res.action


class ISMCTSAgent(SearchAgent):
    """SO-ISMCTS for one seat.

    Args:
        iterations, time_s, rollout, utility, seed: see :class:`cya_sim.search.classic.agent.SearchAgent`.
        c_ucb: UCB1 exploration constant (float >= 0; utilities are in [0, 1]). Default
            :data:`cya_sim.search.classic.search.DEFAULT_C_UCB` (0.15): the ``share`` utilities of
            different moves differ by a few hundredths, so Cowling et al.'s 0.7 for win/loss
            rewards spreads the visits almost evenly; in 100 rotated 4-player games at 1,000
            iterations, C = 0.15 won 32% against C = 0.35 (22%), pimc (20%) and card_counter (26%).
        max_nodes: tree capacity, at most 1,000,000 (default: iterations + 1 up to that, or 100,000 when
            searching by time); a full tree stops expanding.

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
                                      or not 1 <= max_nodes <= MAX_NODES):
            raise ValueError(f"max_nodes {max_nodes!r}: give an integer from 1 to {MAX_NODES:,} (or leave it out)")
        self.max_nodes = max_nodes

    def _search(self, obs, stream, ctx):
        return ismcts_search(obs, self.iterations, self.time_s, self.c_ucb, self.rollout, self.utility, self.seed,
                             stream, self.max_nodes, ctx)


class PIMCAgent(SearchAgent):
    """Flat Monte Carlo over determinizations for one seat.

    Args: ``iterations`` (rollouts per decision, all actions together),
    ``time_s``, ``rollout``, ``utility``, ``seed``: see
    :class:`cya_sim.search.classic.agent.SearchAgent`.

    Raises:
        ValueError: a parameter outside its allowed values.
    """

    name = "pimc"

    def _search(self, obs, stream, ctx):
        return pimc_search(obs, self.iterations, self.time_s, self.rollout, self.utility, self.seed, stream, ctx)
