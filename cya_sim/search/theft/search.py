"""Python entry points of the theft game's search: one decision of ISMCTS or PIMC from an observation (RULES.md §9).

As :mod:`cya_sim.search.classic.search` for the classic family: both build the template row and the
:class:`~cya_sim.search.theft.determinize.TheftInfoSet` from the
:class:`~cya_sim.engine.theft.observation.TheftObservation` (never from the true state), then run the compiled
kernels of :mod:`cya_sim.search.theft.kernels`. A :class:`TheftSearchContext` keeps the arrays of one
rule set and table size between decisions. The budget checks, the result and the root's choice are the
classic search's (:func:`~cya_sim.search.classic.search.check_budget`,
:class:`~cya_sim.search.classic.search.SearchResult`, :func:`~cya_sim.search.classic.search.root_choice`,
:func:`~cya_sim.search.classic.search.flat_choice`).
"""

from __future__ import annotations

import time

import numpy as np

from agents.theft.compiled import THEFT_POLICIES, new_theft_scratch, theft_policy_of
from cya_sim.engine.theft.kernel import legal_list
from cya_sim.engine.theft.layout import C_A, C_NC, C_T, make_consts, row_width
from cya_sim.engine.theft.observation import TheftObservation
from cya_sim.search.classic.determinize import rng_state
from cya_sim.search.classic.search import (
    _MAX_DEPTH,
    TIME_CHUNK,
    SearchResult,
    TreeArrays,
    check_budget,
    check_choice,
    flat_choice,
    root_choice,
    single_action,
    tree_capacity,
)
from cya_sim.search.theft import kernels
from cya_sim.search.theft.determinize import template_row
from cya_sim.search.theft.kernels import UTIL_SHARE, UTIL_WIN
from cya_sim.search.tree import ROLLOUT_REFUSED, refuse_rollout

#: Built-in rollout policies by name: the compiled theft policies of :mod:`agents.theft.compiled`. A compiled
#: theft plug-in ``my_pkg.policies:decide`` (:mod:`agents.theft.view`) is a rollout policy too.
ROLLOUTS = dict(THEFT_POLICIES)
#: Utilities by name: ``win`` = the seat's share of the win (R-T-END); ``share`` = its share of all points.
UTILITIES = {"win": UTIL_WIN, "share": UTIL_SHARE}
#: The default utility of the theft search (what a tournament scores).
DEFAULT_UTILITY = "win"
#: Default UCB1 constant of the theft search. Its ``win`` utility is 0 or 1 per game (ties shared), so moves differ
#: by more than the classic game's shares of a round (:data:`cya_sim.search.classic.search.DEFAULT_C_UCB`, 0.15): in 1,200
#: three-seat games against ``greedy`` and ``defender`` (seed 7, 2,000 iterations), C = 0.5 won 53.8%
#: [51.0%, 56.5%] and C = 0.15 won 49.0% [46.2%, 51.8%]; C = 1.0 won 50.3% [45.8%, 54.8%] in 450 games.
DEFAULT_C_UCB = 0.5


def check_rollout(rollout) -> tuple[int, int, np.ndarray]:
    """``(code, C address, (N_AGENT_PARAMS,) float64 params)`` of a theft rollout spec with a compiled form.

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


class TheftSearchContext(TreeArrays):
    """Arrays for searching one theft rule set at one table size, reused between decisions.

    Holds the constants ``K``, three rows (template ``g0``, determinization ``gd``, work ``gw``; (W,) int64),
    the tree arrays (grown on demand) and the kernels' scratch. Not thread-safe; one per agent.
    """

    def __init__(self, rules, n_players: int) -> None:
        self.rules = rules
        self.n_players = n_players
        self.consts = make_consts(rules, n_players)
        cfg = self.consts.cfg
        self.n_actions = int(cfg[C_A])
        w = row_width(self.consts)
        self.g0, self.gd, self.gw = (np.zeros(w, np.int64) for _ in range(3))
        self._cap = 0
        a = self.n_actions
        self.scratch = (np.zeros(int(cfg[C_T]), np.int64), np.zeros(int(cfg[C_NC]), np.int64),
                        np.zeros(a, np.int64), np.zeros(a, np.int64), np.zeros(a, np.int64), np.zeros(a, np.int64),
                        np.zeros(a, np.int64), np.zeros(_MAX_DEPTH + 1, np.int64), np.zeros(n_players, np.float64),
                        new_theft_scratch(self.consts))

    def matches(self, obs: TheftObservation) -> bool:
        """Whether this context fits the observation's rule set and table size."""
        return obs.rules == self.rules and obs.n_players == self.n_players

    def prepare(self, obs: TheftObservation, seed: int, stream: int):
        """Fill the template from ``obs``; return (info, rng, root legal ids).

        Raises:
            ValueError: an inconsistent observation, or a legal action mask that is not the observed position's.
        """
        _, g0, info = template_row(obs, self.consts)
        self.g0[:] = g0
        acts = np.zeros(self.n_actions, np.int64)
        n = legal_list(self.consts, self.g0, acts)
        root = acts[:n].copy()
        mask_ids = np.flatnonzero(obs.legal_action_mask)
        if not np.array_equal(mask_ids, root):
            raise ValueError(
                f"observation field 'legal_action_mask' ({mask_ids.tolist()}) does not match the legal actions of "
                f"the observed position ({root.tolist()}); the observation must be the seat to act's")
        return info, rng_state(seed, stream), root


def _start(obs, rollout, utility, iterations, time_s, seed, stream, context):
    """Checks and set-up shared by both searches: ``(result, None)`` with one legal action, else
    ``(None, (slot, uk, t0, ctx, info, rng, root))``.

    Raises:
        ValueError, TypeError: as :func:`theft_ismcts_search`.
    """
    if not isinstance(obs, TheftObservation):
        raise TypeError(f"observation {type(obs).__name__}: the theft search takes a TheftObservation")
    slot = check_rollout(rollout)
    uk = check_choice("utility", utility, UTILITIES)
    check_budget(iterations, time_s)
    t0 = time.perf_counter()
    legal = np.flatnonzero(obs.legal_action_mask)
    if legal.size == 0:
        raise ValueError(f"seat {obs.seat} has no legal action in this observation (is it the seat to act?)")
    if legal.size == 1:
        return single_action(legal, t0), None
    ctx = context if context is not None and context.matches(obs) else TheftSearchContext(obs.rules, obs.n_players)
    info, rng, root = ctx.prepare(obs, seed, stream)
    return None, (slot, uk, t0, ctx, info, rng, root)


def _checked(steps: int, rollout, ctx: TheftSearchContext) -> int:
    """``steps`` (what a theft search kernel returned), or the :class:`~cya_sim.search.tree.RolloutError` of a
    rollout decision that was not legal (:data:`~cya_sim.search.tree.ROLLOUT_REFUSED`)."""
    if steps == ROLLOUT_REFUSED:
        refuse_rollout(rollout, ctx.scratch[9].ids, ctx.n_actions)
    return int(steps)


def theft_ismcts_search(obs: TheftObservation, iterations: int | None = 1000, time_s: float | None = None,
                        c_ucb: float = DEFAULT_C_UCB, rollout: str = "greedy", utility: str = DEFAULT_UTILITY,
                        seed: int = 0, stream: int = 0, max_nodes: int | None = None,
                        context: TheftSearchContext | None = None) -> SearchResult:
    """One SO-ISMCTS decision of the theft game for the seat to act (Cowling, Powley & Whitehouse 2012).

    Args:
        obs: the :class:`~cya_sim.engine.theft.observation.TheftObservation` of the seat to act.
        iterations: iterations (each: one determinization, one descent, one rollout to the end of the
            game); ignored when ``time_s`` is given.
        time_s: search for this many seconds instead (checked every :data:`~cya_sim.search.classic.search.TIME_CHUNK`
            iterations).
        c_ucb: UCB1 exploration constant C >= 0 (utilities lie in [0, 1]).
        rollout: rollout policy, a key of :data:`ROLLOUTS` or a compiled theft plug-in.
        utility: a key of :data:`UTILITIES`.
        seed, stream: 64-bit seed and stream number of the search's random stream
            (:func:`cya_sim.search.classic.determinize.rng_state`, the classic search's key scheme).
        max_nodes: tree capacity (default ``iterations + 1``, or 100,000 by time); a full tree stops expanding.
        context: a :class:`TheftSearchContext` to reuse.

    Returns:
        a :class:`~cya_sim.search.classic.search.SearchResult`; the action is the root move with the most visits
        (ties: higher mean utility, then lower id). With one legal action it is returned at once, with
        ``iterations = 0``.

    Raises:
        ValueError: unknown ``rollout``/``utility``, a bad budget, ``c_ucb`` or ``max_nodes``, an observation
            with no legal action or an inconsistent one.
        TypeError: ``obs`` is not a :class:`~cya_sim.engine.theft.observation.TheftObservation`.
        RolloutError: a rollout decision was not legal, or the rollout plug-in raised
            (:func:`cya_sim.search.tree.refuse_rollout`).
    """
    if not isinstance(c_ucb, (int, float)) or isinstance(c_ucb, bool) or not c_ucb >= 0:
        raise ValueError(f"c_ucb {c_ucb!r}: give a number >= 0")
    single, started = _start(obs, rollout, utility, iterations, time_s, seed, stream, context)
    if single is not None:
        return single
    (pcode, paddr, params), uk, t0, ctx, info, rng, root = started
    child, nvis, wsum, avail, mover, n_nodes = ctx.tree(tree_capacity(max_nodes, iterations, time_s))
    k = ctx.consts
    steps = 0
    done = 0
    run = kernels.ismcts_run
    if time_s is None:
        steps = _checked(run(k, ctx.g0, ctx.gw, info, int(iterations), float(c_ucb), pcode, paddr, params, uk, rng,
                             child, nvis, wsum, avail, mover, n_nodes, ctx.scratch), rollout, ctx)
        done = int(iterations)
    else:
        end = t0 + float(time_s)
        while True:
            steps += _checked(run(k, ctx.g0, ctx.gw, info, TIME_CHUNK, float(c_ucb), pcode, paddr, params, uk, rng,
                                  child, nvis, wsum, avail, mover, n_nodes, ctx.scratch), rollout, ctx)
            done += TIME_CHUNK
            if time.perf_counter() >= end:
                break
    action, visits, values = root_choice(root, child, nvis, wsum)
    return SearchResult(action, root, visits, values, done, int(n_nodes[0]), int(steps), time.perf_counter() - t0)


def theft_pimc_search(obs: TheftObservation, iterations: int | None = 1000, time_s: float | None = None,
                      rollout: str = "greedy", utility: str = DEFAULT_UTILITY, seed: int = 0, stream: int = 0,
                      context: TheftSearchContext | None = None) -> SearchResult:
    """One decision of determinized flat Monte Carlo (PIMC) of the theft game for the seat to act.

    Each determinization is played out after every legal root action with the rollout policy to the end
    of the game (:func:`cya_sim.search.theft.kernels.pimc_run`); the action of highest mean utility wins
    (ties: more rollouts, then lower id). Long, Sturtevant, Buro & Furtak, AAAI 2010.

    Args: as :func:`theft_ismcts_search` (``iterations`` = rollouts in all).

    Raises:
        ValueError, TypeError: as :func:`theft_ismcts_search`.
    """
    single, started = _start(obs, rollout, utility, iterations, time_s, seed, stream, context)
    if single is not None:
        return single
    (pcode, paddr, params), uk, t0, ctx, info, rng, root = started
    k = ctx.consts
    n = root.shape[0]
    acts = np.zeros(ctx.n_actions, np.int64)
    acts[:n] = root
    sums = np.zeros(n, np.float64)
    counts = np.zeros(n, np.int64)
    steps = 0
    run = kernels.pimc_run
    if time_s is None:
        steps = _checked(run(k, ctx.g0, ctx.gd, ctx.gw, info, int(iterations), pcode, paddr, params, uk, rng, acts, n,
                             sums, counts, ctx.scratch), rollout, ctx)
    else:
        end = t0 + float(time_s)
        while time.perf_counter() < end:
            steps += _checked(run(k, ctx.g0, ctx.gd, ctx.gw, info, n * 8, pcode, paddr, params, uk, rng, acts, n,
                                  sums, counts, ctx.scratch), rollout, ctx)
    action, values = flat_choice(root, sums, counts)
    return SearchResult(action, root, counts, values, int(counts.sum()), 0, int(steps), time.perf_counter() - t0)
