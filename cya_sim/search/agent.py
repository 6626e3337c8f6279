"""The common part of the search agents (:class:`agents.ismcts.ISMCTSAgent`, :class:`agents.pimc.PIMCAgent`)."""

from __future__ import annotations

import time

import numpy as np

from cya_sim.observation import Observation
from cya_sim.search.search import ROLLOUTS, UTILITIES, SearchContext, SearchResult, check_budget, check_choice


class SearchAgent:
    """A single-game agent that searches every decision from its observation only (RULES.md §10).

    Args:
        iterations: iterations per decision (int >= 1), unless ``time_s`` is given.
        time_s: seconds per decision instead (float > 0), or None.
        rollout: rollout policy, one of ``greedy`` (default), ``random`` or
            ``card_counter`` (every rollout seat plays the ``card_counter``
            agent from its own view of the determinized game,
            :mod:`cya_sim.search.policies`; about 3x slower per iteration,
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

    def __init__(self, iterations: int = 1000, time_s: float | None = None, rollout: str = "greedy",
                 utility: str = "share", seed: int = 0) -> None:
        check_budget(iterations, time_s)
        check_choice("rollout", rollout, ROLLOUTS)
        check_choice("utility", utility, UTILITIES)
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
            self._ctx = SearchContext(obs.rules, obs.n_players)
        res = self._search(obs, stream, self._ctx)
        self.last = res
        self.decisions += 1
        if res.iterations:
            self.searched += 1
            self.iterations_run += res.iterations
        self.total_s += time.perf_counter() - t0
        return res.action
