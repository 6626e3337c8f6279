"""The search agents of every game: a seat that searches every decision from its observation only (RULES.md §10).

:class:`SearchAgent` holds what is the same for every game — the budget and its checks, the seeds (each decision's
stream is derived from ``seed`` and one draw from the seat's own generator, so a tournament seed fixes every
decision, and both engines, which hand the agent the same observation and generator, play the same games), the
statistics, pickling for worker processes — and :class:`ISMCTSAgent` and :class:`PIMCAgent` run the shared search
(:mod:`cya_sim.search.search`). A game's agents are these with its :class:`~cya_sim.search.search.SearchGame` and
its defaults (:mod:`cya_sim.search.classic.agent`, :mod:`cya_sim.search.theft.agent`).
"""

from __future__ import annotations

import time

import numpy as np

from cya_sim.search import search
from cya_sim.search.search import MAX_NODES, SearchContext, SearchGame, SearchResult, check_budget, check_choice


class SearchAgent:
    """A single-game agent that searches every decision from its observation only (RULES.md §10).

    A game's agents set :attr:`game` (its :class:`~cya_sim.search.search.SearchGame`) and the defaults of their
    arguments (:mod:`cya_sim.search.classic.agent`, :mod:`cya_sim.search.theft.agent`).

    Args:
        iterations: iterations per decision (int >= 1), unless ``time_s`` is given.
        time_s: seconds per decision instead (float > 0), or None.
        rollout: rollout policy: a spec of the game's agents with a compiled form (``game.rollout_policy``).
        utility: a key of ``game.utilities`` (the seat's share of the score, or of the win).
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
    #: The game searched: its context, rollout policies and utilities.
    game: SearchGame

    def __init__(self, iterations: int, time_s: float | None, rollout: str, utility: str, seed: int) -> None:
        check_budget(iterations, time_s)
        self.game.check_rollout(rollout)
        check_choice("utility", utility, self.game.utilities)
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

    def _search(self, obs, stream: int, ctx: SearchContext) -> SearchResult:
        raise NotImplementedError

    def act(self, obs, rng: np.random.Generator) -> int:
        """A legal action id for ``obs``; one legal action is returned without searching."""
        t0 = time.perf_counter()
        stream = int(rng.integers(0, 1 << 62)) if rng is not None else self.decisions
        if self._ctx is None or not self._ctx.matches(obs):
            self._ctx = self.game.context(obs.rules, obs.n_players)
        res = self._search(obs, stream, self._ctx)
        self.last = res
        self.decisions += 1
        if res.iterations:
            self.searched += 1
            self.iterations_run += res.iterations
        self.total_s += time.perf_counter() - t0
        return res.action


class ISMCTSAgent(SearchAgent):
    """SO-ISMCTS for one seat (:func:`cya_sim.search.search.ismcts`).

    Args:
        iterations, time_s, rollout, utility, seed: see :class:`SearchAgent`.
        c_ucb: UCB1 exploration constant (float >= 0; utilities are in [0, 1]).
        max_nodes: tree capacity, at most 1,000,000 (None: iterations + 1 up to that, or 100,000 when
            searching by time); a full tree stops expanding.

    Raises:
        ValueError: a parameter outside its allowed values.
    """

    name = "ismcts"

    def __init__(self, iterations: int, time_s: float | None, c_ucb: float, rollout: str, utility: str, seed: int,
                 max_nodes: int | None):
        super().__init__(iterations, time_s, rollout, utility, seed)
        if not isinstance(c_ucb, (int, float)) or isinstance(c_ucb, bool) or not c_ucb >= 0:
            raise ValueError(f"c_ucb {c_ucb!r}: give a number >= 0")
        self.c_ucb = float(c_ucb)
        if max_nodes is not None and (not isinstance(max_nodes, (int, np.integer)) or isinstance(max_nodes, bool)
                                      or not 1 <= max_nodes <= MAX_NODES):
            raise ValueError(f"max_nodes {max_nodes!r}: give an integer from 1 to {MAX_NODES:,} (or leave it out)")
        self.max_nodes = max_nodes

    def _search(self, obs, stream, ctx):
        return search.ismcts(self.game, obs, self.iterations, self.time_s, self.c_ucb, self.rollout, self.utility,
                             self.seed, stream, self.max_nodes, ctx)


class PIMCAgent(SearchAgent):
    """Flat Monte Carlo over determinizations for one seat (:func:`cya_sim.search.search.pimc`).

    Args: ``iterations`` (rollouts per decision, all actions together), ``time_s``, ``rollout``, ``utility``,
    ``seed``: see :class:`SearchAgent`.

    Raises:
        ValueError: a parameter outside its allowed values.
    """

    name = "pimc"

    def _search(self, obs, stream, ctx):
        return search.pimc(self.game, obs, self.iterations, self.time_s, self.rollout, self.utility, self.seed,
                           stream, ctx)
