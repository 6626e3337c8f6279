"""Python entry points of the search, for every game: one decision of ISMCTS or PIMC from an observation.

A game gives this module a :class:`SearchGame` (its context class, its rollout policies and utilities) and its
entry points call :func:`ismcts` and :func:`pimc` (:func:`cya_sim.search.classic.search.ismcts_search`,
:func:`cya_sim.search.theft.search.theft_ismcts_search`, ...). Both build the template row and the game's information
set from the observation (never from the true state) in a :class:`SearchContext`, which keeps the arrays of one rule
set and table size between decisions, so that a decision allocates nothing large; then they run the shared compiled
kernels of :mod:`cya_sim.search.kernels` and choose the root's action (:func:`root_choice`, :func:`flat_choice`).
"""

from __future__ import annotations

import time
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from cya_sim.search import kernels
from cya_sim.search.kernels import SearchScratch
from cya_sim.search.tree import ROLLOUT_REFUSED, refuse_rollout

#: Tree nodes kept at most when searching by time (each node costs 4 * A bytes of child links).
DEFAULT_TIME_NODES = 100_000
#: Most iterations per decision, and most tree nodes, a search agent takes (a node is about 360 bytes: 1,000,000
#: nodes about 360 MB); more is refused in one line instead of failing to allocate.
MAX_ITERATIONS = 10_000_000
MAX_NODES = 1_000_000
#: Longest search per decision, seconds.
MAX_TIME_S = 86_400.0
#: Iterations per compiled call when searching by time (the clock is read between calls).
TIME_CHUNK = 64
#: Deepest descent of the tree (nodes on a path).
MAX_DEPTH = 512


@dataclass(frozen=True)
class SearchResult:
    """The outcome of one search.

    action: the chosen action id (legal for the observation).
    actions: (k,) int64 the root's legal action ids, ascending.
    visits: (k,) int64 simulations through each (ISMCTS: root child visits; PIMC: rollouts).
    values: (k,) float64 mean utility of the observer after each action (nan if never tried).
    iterations: iterations (ISMCTS) or rollouts (PIMC) run; 0 when one action was legal.
    nodes: tree nodes (ISMCTS; 0 for PIMC). rollout_actions: actions simulated in rollouts.
    elapsed_s: wall time of the search in seconds.
    """

    action: int
    actions: np.ndarray
    visits: np.ndarray
    values: np.ndarray
    iterations: int
    nodes: int
    rollout_actions: int
    elapsed_s: float


def check_choice(field: str, value, allowed: dict) -> int:
    """The code of ``value`` in ``allowed`` (name -> code).

    Raises:
        ValueError: ``value`` not a key; the message names ``field`` and the allowed names.
    """
    if value not in allowed:
        raise ValueError(f"{field} {value!r} is not known; choose one of: {', '.join(allowed)}")
    return allowed[value]


def check_budget(iterations, time_s) -> None:
    """Refuse a search budget that is not ``1 <= iterations <=`` :data:`MAX_ITERATIONS` (int) or
    ``0 < time_s <=`` :data:`MAX_TIME_S` (seconds).

    Raises:
        ValueError: naming ``iterations`` or ``time_s`` and what is allowed.
    """
    if time_s is not None:
        if not isinstance(time_s, (int, float)) or isinstance(time_s, bool) or not 0 < time_s <= MAX_TIME_S:
            raise ValueError(f"time_s {time_s!r}: give a number of seconds > 0 and at most {MAX_TIME_S:,.0f}, or None "
                             "to search by iterations")
        return
    if (not isinstance(iterations, (int, np.integer)) or isinstance(iterations, bool)
            or not 1 <= iterations <= MAX_ITERATIONS):
        raise ValueError(f"iterations {iterations!r}: give an integer from 1 to {MAX_ITERATIONS:,} (or time_s in "
                         "seconds)")


def tree_capacity(max_nodes, iterations, time_s) -> int:
    """Tree nodes to allocate: ``max_nodes``, else ``iterations + 1``, or :data:`DEFAULT_TIME_NODES` by time.

    Raises:
        ValueError: ``max_nodes`` given and not an integer >= 1.
    """
    cap = max_nodes if max_nodes is not None else (DEFAULT_TIME_NODES if time_s is not None
                                                   else min(iterations + 1, MAX_NODES))
    if not isinstance(cap, (int, np.integer)) or cap < 1:
        raise ValueError(f"max_nodes {max_nodes!r}: give an integer >= 1")
    return int(cap)


def root_choice(root: np.ndarray, child: np.ndarray, nvis: np.ndarray, wsum: np.ndarray):
    """``(action, visits, values)`` of an ISMCTS root: per legal id in ``root`` the child's visits and mean utility
    (nan if never tried); the action has the most visits (ties: higher mean utility, then lower id)."""
    kids = child[0, root]
    visits = np.where(kids >= 0, nvis[np.maximum(kids, 0)], 0).astype(np.int64)
    sums = np.where(kids >= 0, wsum[np.maximum(kids, 0)], 0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        values = np.where(visits > 0, sums / np.maximum(visits, 1), np.nan)
    order = np.lexsort((root, -np.nan_to_num(values, nan=-1.0), -visits))
    return int(root[order[0]]), visits, values


def flat_choice(root: np.ndarray, sums: np.ndarray, counts: np.ndarray):
    """``(action, values)`` of flat Monte Carlo: the root id of highest mean utility (ties: more rollouts, then
    lower id); values nan where an action had no rollout."""
    values = np.where(counts > 0, sums / np.maximum(counts, 1), np.nan)
    order = np.lexsort((root, -counts, -np.nan_to_num(values, nan=-1.0)))
    return int(root[order[0]]), values


def single_action(legal: np.ndarray, t0: float) -> SearchResult:
    """The :class:`SearchResult` of a decision with one legal action (no search)."""
    return SearchResult(int(legal[0]), legal.astype(np.int64), np.zeros(1, np.int64), np.full(1, np.nan), 0, 0, 0,
                        time.perf_counter() - t0)


def check_root(obs, root: np.ndarray) -> None:
    """Refuse an observation whose legal action mask is not the legal actions ``root`` of the observed position.

    Raises:
        ValueError: naming the field ``legal_action_mask`` and both lists.
    """
    mask_ids = np.flatnonzero(obs.legal_action_mask)
    if not np.array_equal(mask_ids, root):
        raise ValueError(
            f"observation field 'legal_action_mask' ({mask_ids.tolist()}) does not match the legal actions of "
            f"the observed position ({root.tolist()}); the observation must be the seat to act's")


class SearchContext(ABC):
    """Arrays for searching one rule set at one table size, reused between decisions: the constants, three rows of
    the game's layout (template ``g0``, determinization ``gd``, work ``gw``; (W,) int64), the tree arrays (grown on
    demand, :meth:`tree`) and the kernels' scratch (:class:`~cya_sim.search.kernels.SearchScratch`). A game's
    subclass makes the template and the information set from an observation (:meth:`prepare`). Not thread-safe; one
    per agent.

    Args:
        rules, n_players: what the context searches. consts: the game's constants record. g0: the template row
        (a (W,) int64 array the game fills). n_actions: A. policy_scratch: the rollout policy's scratch.
    """

    def __init__(self, rules, n_players: int, consts, g0: np.ndarray, n_actions: int, policy_scratch) -> None:
        self.rules = rules
        self.n_players = n_players
        self.consts = consts
        self.n_actions = int(n_actions)
        self.g0 = g0
        self.gd, self.gw = (np.zeros(g0.shape[0], np.int64) for _ in range(2))
        self._cap = 0
        a = self.n_actions
        self._common = (np.zeros(a, np.int64), np.zeros(a, np.int64), np.zeros(a, np.int64),
                        np.zeros(a, np.int64), np.zeros(a, np.int64), np.zeros(MAX_DEPTH + 1, np.int64),
                        np.zeros(n_players, np.float64), policy_scratch)

    def matches(self, obs) -> bool:
        """Whether this context fits the observation's rule set and table size."""
        return obs.rules == self.rules and obs.n_players == self.n_players

    def scratch(self, samp: tuple) -> SearchScratch:
        """The kernels' :class:`~cya_sim.search.kernels.SearchScratch` with the game's sampler scratch ``samp``."""
        return SearchScratch(*self._common, samp)

    @abstractmethod
    def prepare(self, obs, seed: int, stream: int) -> tuple[Any, np.ndarray, SearchScratch, np.ndarray]:
        """Fill the template from ``obs``; return (information set, (4,) uint64 rng, scratch, root legal ids).

        Raises:
            ValueError: an inconsistent observation, or a legal action mask that is not the observed position's
                (:func:`check_root`).
        """

    def tree(self, cap: int):
        """Tree arrays with room for ``cap`` nodes, root reset (child, nvis, wsum, avail, mover, n_nodes)."""
        if cap > self._cap:
            self._tree = (np.empty((cap, self.n_actions), np.int32), np.zeros(cap, np.int64),
                          np.zeros(cap, np.float64), np.zeros(cap, np.int64), np.zeros(cap, np.int8))
            self._cap = cap
        child, nvis, wsum, avail, mover = self._tree
        child[0, :] = -1
        nvis[0] = 0
        wsum[0] = 0.0
        avail[0] = 0
        mover[0] = -1
        return child[:cap], nvis[:cap], wsum[:cap], avail[:cap], mover[:cap], np.ones(1, np.int64)


@dataclass(frozen=True)
class SearchGame:
    """What a game gives the shared search entry points (one frozen value per game, ``search/<game>/search.py``).

    context: ``(rules, n_players) ->`` the game's :class:`SearchContext`. rollout_policy: ``(rollout spec, rules) ->
    (code, C address, params)`` of a rollout policy with a compiled form (refuses another spec, ``ValueError``
    listing the built-ins). check_rollout: ``rollout spec ->`` refuses a spec without a compiled form as
    ``rollout_policy`` does, before any rule set is known (a search agent's arguments). utilities: utility name ->
    code (:mod:`cya_sim.search.hooks`). check_obs: refuses an observation of another game (``TypeError``), or None.
    """

    context: Callable[[Any, int], SearchContext]
    rollout_policy: Callable[[Any, Any], tuple]
    check_rollout: Callable[[Any], Any]
    utilities: dict
    check_obs: Callable[[Any], None] | None = None


def _start(game: SearchGame, obs, rollout, utility, iterations, time_s, seed: int, stream: int, context):
    """Checks and set-up shared by both searches: ``(result, None)`` when the seat has one legal action (returned
    without searching), else ``(None, (slot, uk, t0, ctx, info, rng, scratch, root))``.

    Raises:
        ValueError, TypeError: as :func:`ismcts`.
    """
    if game.check_obs is not None:
        game.check_obs(obs)
    slot = game.rollout_policy(rollout, obs.rules)
    uk = check_choice("utility", utility, game.utilities)
    check_budget(iterations, time_s)
    t0 = time.perf_counter()
    legal = np.flatnonzero(obs.legal_action_mask)
    if legal.size == 0:
        raise ValueError(f"seat {obs.seat} has no legal action in this observation (is it the seat to act?)")
    if legal.size == 1:
        return single_action(legal, t0), None
    ctx = context if context is not None and context.matches(obs) else game.context(obs.rules, obs.n_players)
    info, rng, scratch, root = ctx.prepare(obs, seed, stream)
    return None, (slot, uk, t0, ctx, info, rng, scratch, root)


def _checked(steps: int, rollout, scratch: SearchScratch, ctx: SearchContext) -> int:
    """``steps`` (what a search kernel returned), or the :class:`~cya_sim.search.tree.RolloutError` of a rollout
    decision that was not legal (:data:`~cya_sim.search.tree.ROLLOUT_REFUSED`)."""
    if steps == ROLLOUT_REFUSED:
        refuse_rollout(rollout, scratch.sc.ids, ctx.n_actions)
    return int(steps)


def ismcts(game: SearchGame, obs, iterations: int | None, time_s: float | None, c_ucb: float, rollout, utility,
           seed: int, stream: int, max_nodes: int | None, context: SearchContext | None) -> SearchResult:
    """One SO-ISMCTS decision of ``game`` for the seat to act (:func:`cya_sim.search.kernels.ismcts_run`; Cowling,
    Powley & Whitehouse 2012).

    Args:
        game: the game's :class:`SearchGame`. obs: the observation of the seat to act (its mask must have a legal
            action). iterations: iterations (each: one determinization, one descent, one rollout); ignored when
            ``time_s`` is given. time_s: search for this many seconds instead (checked every :data:`TIME_CHUNK`
            iterations). c_ucb: UCB1 exploration constant C >= 0 (utilities lie in [0, 1]). rollout: rollout policy
            spec. utility: a key of ``game.utilities``. seed, stream: 64-bit seed and stream number of the search's
            random stream. max_nodes: tree capacity (default ``iterations + 1``, or :data:`DEFAULT_TIME_NODES` by
            time); a full tree stops expanding. context: a :class:`SearchContext` to reuse.

    Returns:
        a :class:`SearchResult`; the action is the root move with the most visits (ties: higher mean utility, then
        lower id). With one legal action it is returned at once, with ``iterations = 0``.

    Raises:
        ValueError: unknown ``rollout``/``utility``, a bad budget, ``c_ucb`` or ``max_nodes``, an observation with
            no legal action or an inconsistent one.
        TypeError: an observation of another game (``game.check_obs``).
        RolloutError: a rollout decision was not legal, or the rollout plug-in raised
            (:func:`cya_sim.search.tree.refuse_rollout`: the policy, the seat and the action named).
    """
    if not isinstance(c_ucb, (int, float)) or isinstance(c_ucb, bool) or not c_ucb >= 0:
        raise ValueError(f"c_ucb {c_ucb!r}: give a number >= 0")
    single, started = _start(game, obs, rollout, utility, iterations, time_s, seed, stream, context)
    if single is not None:
        return single
    (pcode, paddr, params), uk, t0, ctx, info, rng, scratch, root = started
    child, nvis, wsum, avail, mover, n_nodes = ctx.tree(tree_capacity(max_nodes, iterations, time_s))
    k = ctx.consts
    run = kernels.ismcts_run
    steps = 0
    done = 0
    if time_s is None:
        steps = _checked(run(k, ctx.g0, ctx.gw, info, int(iterations), float(c_ucb), pcode, paddr, params, uk, rng,
                             child, nvis, wsum, avail, mover, n_nodes, scratch), rollout, scratch, ctx)
        done = int(iterations)
    else:
        end = t0 + float(time_s)
        while True:
            steps += _checked(run(k, ctx.g0, ctx.gw, info, TIME_CHUNK, float(c_ucb), pcode, paddr, params, uk, rng,
                                  child, nvis, wsum, avail, mover, n_nodes, scratch), rollout, scratch, ctx)
            done += TIME_CHUNK
            if time.perf_counter() >= end:
                break
    action, visits, values = root_choice(root, child, nvis, wsum)
    return SearchResult(action, root, visits, values, done, int(n_nodes[0]), int(steps), time.perf_counter() - t0)


def pimc(game: SearchGame, obs, iterations: int | None, time_s: float | None, rollout, utility, seed: int,
         stream: int, context: SearchContext | None) -> SearchResult:
    """One decision of determinized flat Monte Carlo (PIMC) of ``game`` for the seat to act.

    Each determinization is played out after every legal root action with the rollout policy
    (:func:`cya_sim.search.kernels.pimc_run`); the action of highest mean utility wins (ties: more rollouts, then
    lower id). PIMC (Long, Sturtevant, Buro & Furtak, AAAI 2010, "Understanding the success of perfect information
    Monte Carlo sampling in game tree search") is the simple baseline ISMCTS is compared with.

    Args: as :func:`ismcts` (``iterations`` = rollouts in all).

    Raises:
        ValueError, TypeError, RolloutError: as :func:`ismcts`.
    """
    single, started = _start(game, obs, rollout, utility, iterations, time_s, seed, stream, context)
    if single is not None:
        return single
    (pcode, paddr, params), uk, t0, ctx, info, rng, scratch, root = started
    k = ctx.consts
    n = root.shape[0]
    acts = np.zeros(ctx.n_actions, np.int64)
    acts[:n] = root
    sums = np.zeros(n, np.float64)
    counts = np.zeros(n, np.int64)
    run = kernels.pimc_run
    steps = 0
    if time_s is None:
        steps = _checked(run(k, ctx.g0, ctx.gd, ctx.gw, info, int(iterations), pcode, paddr, params, uk, rng, acts, n,
                             sums, counts, scratch), rollout, scratch, ctx)
    else:
        end = t0 + float(time_s)
        while time.perf_counter() < end:
            steps += _checked(run(k, ctx.g0, ctx.gd, ctx.gw, info, n * 8, pcode, paddr, params, uk, rng, acts, n,
                                  sums, counts, scratch), rollout, scratch, ctx)
    action, values = flat_choice(root, sums, counts)
    return SearchResult(action, root, counts, values, int(counts.sum()), 0, int(steps), time.perf_counter() - t0)
