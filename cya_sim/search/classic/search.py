"""Python entry points of the search: one decision of ISMCTS or PIMC from an observation.

Both build the template row and the :class:`~cya_sim.search.classic.determinize.InfoSet`
from the :class:`~cya_sim.engine.classic.reference.observation.Observation` (never from the true state),
then run the compiled kernels of :mod:`cya_sim.search.classic.kernels`. A
:class:`SearchContext` keeps the arrays of one rule set and table size between
decisions, so that a decision allocates nothing large.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from agents.classic.compiled import POLICY_CARD_COUNTER, POLICY_GREEDY, POLICY_RANDOM, new_scratch
from agents.classic.registry import compiled_policy, policy_of
from cya_sim.engine.classic.kernel import legal_list
from cya_sim.engine.classic.layout import C_A, C_N, C_T, row_width
from cya_sim.engine.classic.reference.observation import Observation
from cya_sim.search.classic import kernels
from cya_sim.search.classic.determinize import TEMPLATE, fill_template, info_set, new_search_state, rng_state
from cya_sim.search.classic.kernels import UTIL_SHARE, UTIL_WIN
from cya_sim.search.tree import ROLLOUT_REFUSED, refuse_rollout

#: Built-in rollout policies by name: the compiled policies of :mod:`agents.classic.compiled` (``greedy``, ``random``)
#: and :mod:`agents.classic.compiled_strategy` (``card_counter``: the agent's own decision function on each rollout
#: seat's view). Any other agent spec with a compiled form — e.g. ``heuristic(count=true)`` or a compiled
#: plug-in ``my_pkg.policies:decide`` (:mod:`agents.plugin`) — is a rollout policy too.
ROLLOUTS = {"greedy": POLICY_GREEDY, "random": POLICY_RANDOM, "card_counter": POLICY_CARD_COUNTER}
#: Utilities by name: ``share`` = the seat's share of the round's scores; ``win`` = its share of the game's win.
UTILITIES = {"share": UTIL_SHARE, "win": UTIL_WIN}
#: Tree nodes kept at most when searching by time (each node costs 4 * A bytes of child links).
DEFAULT_TIME_NODES = 100_000
#: Most iterations per decision, and most tree nodes, a search agent takes (a node is about 360 bytes: 1,000,000
#: nodes about 360 MB); more is refused in one line instead of failing to allocate.
MAX_ITERATIONS = 10_000_000
MAX_NODES = 1_000_000
#: Longest search per decision, seconds.
MAX_TIME_S = 86_400.0
#: Default UCB1 constant for utilities in [0, 1] whose differences between moves are small (cya_sim.search.classic.agent.ISMCTSAgent).
DEFAULT_C_UCB = 0.15
#: Iterations per compiled call when searching by time (the clock is read between calls).
TIME_CHUNK = 64
_MAX_DEPTH = 512


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


def rollout_policy(rollout: str, rules):
    """(kernels module, policy code, C address, (N_AGENT_PARAMS,) float64 params) of a rollout spec under ``rules``.

    The module is :mod:`cya_sim.search.classic.kernels` (compiled once for every rollout policy); the code,
    address and parameters are :func:`agents.classic.registry.policy_of`'s (a view policy's C entry compiles the
    first time it is used).

    Raises:
        ValueError: ``rollout`` is not an agent spec with a compiled form; the message lists the built-ins.
    """
    check_rollout(rollout)
    code, addr, params = policy_of(rollout, rules)
    return kernels, code, addr, params


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


class TreeArrays:
    """The ISMCTS tree arrays of a search context (:mod:`cya_sim.search.tree`), grown on demand and reused.

    A subclass sets ``n_actions`` (A) and ``_cap = 0`` before the first :meth:`tree`.
    """

    n_actions: int
    _cap: int = 0

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


class SearchContext(TreeArrays):
    """Arrays for searching one rule set at one table size, reused between decisions.

    Holds a one-row batch state whose row is the template (the observation,
    in the one compiled game layout, :mod:`cya_sim.engine.classic.layout`), two
    more rows (determinization, work), the tree arrays (grown on demand) and
    the scratch arrays of the kernels. Not thread-safe; one per agent.
    """

    def __init__(self, rules, n_players: int) -> None:
        self.rules = rules
        self.n_players = n_players
        self.state = new_search_state(rules, n_players)
        k = self.state.consts
        cfg = k.cfg
        self.n_actions = int(cfg[C_A])
        self.n_types = int(cfg[C_T])
        self.n_cards = int(cfg[C_N])
        self.g0 = self.state.rows[TEMPLATE]
        self.gd, self.gw = (np.zeros(row_width(k), np.int64) for _ in range(2))
        self._cap = 0
        a = self.n_actions
        self._common = (np.zeros(a, np.int64), np.zeros(a, np.int64), np.zeros(a, np.int64),
                        np.zeros(a, np.int64), np.zeros(a, np.int64), np.zeros(_MAX_DEPTH + 1, np.int64),
                        np.zeros(n_players, np.float64), new_scratch(cfg))

    def matches(self, obs: Observation) -> bool:
        """Whether this context fits the observation's rule set and table size."""
        return obs.rules == self.rules and obs.n_players == self.n_players

    def prepare(self, obs: Observation, seed: int, stream: int):
        """Fill the template from ``obs``; return (info, rng, scratch, root legal ids)."""
        fill_template(obs, self.state, TEMPLATE)
        k = self.state.consts
        info = info_set(obs)
        rng = rng_state(seed, stream)
        h = info.slot_set.shape[0]
        scratch = (np.zeros(self.n_types, np.int64), np.zeros(self.n_cards, np.int64), np.zeros(h, np.int64),
                   np.zeros(h + 2, np.float64)) + self._common
        acts = np.zeros(self.n_actions, np.int64)
        n = legal_list(k, self.g0, acts)
        return info, rng, scratch, acts[:n].copy()


def _context(obs: Observation, context: SearchContext | None) -> SearchContext:
    if context is not None and context.matches(obs):
        return context
    return SearchContext(obs.rules, obs.n_players)


def _root_check(obs: Observation, root: np.ndarray) -> None:
    mask_ids = np.flatnonzero(obs.legal_action_mask)
    if not np.array_equal(mask_ids, root):
        raise ValueError(
            f"observation field 'legal_action_mask' ({mask_ids.tolist()}) does not match the legal actions of "
            f"the observed position ({root.tolist()}); the observation must be the seat to act's")


def _start(obs: Observation, rollout: str, utility: str, iterations, time_s, seed: int, stream: int,
           context: SearchContext | None):
    """Checks and set-up shared by both searches.

    Returns:
        ``(result, None)`` when the seat has one legal action (returned
        without searching), else ``(None, (rk, uk, t0, ctx, info, rng, scratch, root))`` with ``rk`` the
        :func:`rollout_policy` triple.

    Raises:
        ValueError: as :func:`ismcts_search`.
    """
    rk = rollout_policy(rollout, obs.rules)
    uk = check_choice("utility", utility, UTILITIES)
    check_budget(iterations, time_s)
    t0 = time.perf_counter()
    legal = np.flatnonzero(obs.legal_action_mask)
    if legal.size == 0:
        raise ValueError(f"seat {obs.seat} has no legal action in this observation (is it the seat to act?)")
    if legal.size == 1:
        return single_action(legal, t0), None
    ctx = _context(obs, context)
    info, rng, scratch, root = ctx.prepare(obs, seed, stream)
    _root_check(obs, root)
    return None, (rk, uk, t0, ctx, info, rng, scratch, root)


def _checked(steps: int, rollout: str, scratch: tuple, ctx: SearchContext) -> int:
    """``steps`` (what a search kernel returned), or the :class:`~cya_sim.search.tree.RolloutError` of a rollout
    decision that was not legal (:data:`~cya_sim.search.tree.ROLLOUT_REFUSED`)."""
    if steps == ROLLOUT_REFUSED:
        refuse_rollout(rollout, scratch[11].ids, ctx.n_actions)
    return int(steps)


def ismcts_search(obs: Observation, iterations: int | None = 1000, time_s: float | None = None,
                  c_ucb: float = DEFAULT_C_UCB, rollout: str = "greedy", utility: str = "share", seed: int = 0,
                  stream: int = 0, max_nodes: int | None = None,
                  context: SearchContext | None = None) -> SearchResult:
    """One SO-ISMCTS decision for the seat to act (:mod:`cya_sim.search.classic.kernels`; Cowling et al. 2012).

    Args:
        obs: the observation of the seat to act (its mask must have a legal action).
        iterations: iterations (each: one determinization, one descent, one
            rollout); ignored when ``time_s`` is given.
        time_s: search for this many seconds instead (checked every
            :data:`TIME_CHUNK` iterations).
        c_ucb: UCB1 exploration constant C >= 0 (utilities lie in [0, 1]).
        rollout: rollout policy, a key of :data:`ROLLOUTS`.
        utility: a key of :data:`UTILITIES`.
        seed, stream: 64-bit seed and stream number of the search's random stream.
        max_nodes: tree capacity (default ``iterations + 1``, or
            :data:`DEFAULT_TIME_NODES` by time); a full tree stops expanding.
        context: a :class:`SearchContext` to reuse.

    Returns:
        a :class:`SearchResult`; the action is the root move with the most
        visits (ties: higher mean utility, then lower id). With one legal
        action it is returned at once, with ``iterations = 0``.

    Raises:
        ValueError: unknown ``rollout``/``utility``, a bad budget or ``c_ucb``,
            an observation with no legal action or an inconsistent one.
        RolloutError: a rollout decision was not legal, or the rollout plug-in raised
            (:func:`cya_sim.search.tree.refuse_rollout`: the policy, the seat and the action named).
    """
    if not isinstance(c_ucb, (int, float)) or not c_ucb >= 0:
        raise ValueError(f"c_ucb {c_ucb!r}: give a number >= 0")
    single, started = _start(obs, rollout, utility, iterations, time_s, seed, stream, context)
    if single is not None:
        return single
    rk, uk, t0, ctx, info, rng, scratch, root = started
    child, nvis, wsum, avail, mover, n_nodes = ctx.tree(tree_capacity(max_nodes, iterations, time_s))
    mod, pcode, paddr, params = rk
    k = ctx.state.consts
    steps = 0
    done = 0
    if time_s is None:
        steps = _checked(mod.ismcts_run(k, ctx.g0, ctx.gw, info, int(iterations), float(c_ucb), pcode, paddr, params,
                                        uk, rng, child, nvis, wsum, avail, mover, n_nodes, scratch), rollout, scratch, ctx)
        done = int(iterations)
    else:
        end = t0 + float(time_s)
        while True:
            steps += _checked(mod.ismcts_run(k, ctx.g0, ctx.gw, info, TIME_CHUNK, float(c_ucb), pcode, paddr, params,
                                             uk, rng, child, nvis, wsum, avail, mover, n_nodes, scratch), rollout,
                              scratch, ctx)
            done += TIME_CHUNK
            if time.perf_counter() >= end:
                break
    action, visits, values = root_choice(root, child, nvis, wsum)
    return SearchResult(action, root, visits, values, done, int(n_nodes[0]), int(steps), time.perf_counter() - t0)


def pimc_search(obs: Observation, iterations: int | None = 1000, time_s: float | None = None,
                rollout: str = "greedy", utility: str = "share", seed: int = 0, stream: int = 0,
                context: SearchContext | None = None) -> SearchResult:
    """One decision of determinized flat Monte Carlo (PIMC) for the seat to act.

    Each determinization is played out after every legal root action with
    the rollout policy (:func:`cya_sim.search.classic.kernels.pimc_run`); the action
    of highest mean utility wins (ties: more rollouts, then lower id). PIMC
    (Long, Sturtevant, Buro & Furtak, AAAI 2010, "Understanding the success of
    perfect information Monte Carlo sampling in game tree search") is the
    simple baseline ISMCTS is compared with.

    Args: as :func:`ismcts_search` (``iterations`` = rollouts in all).

    Raises:
        ValueError, RolloutError: as :func:`ismcts_search`.
    """
    single, started = _start(obs, rollout, utility, iterations, time_s, seed, stream, context)
    if single is not None:
        return single
    rk, uk, t0, ctx, info, rng, scratch, root = started
    mod, pcode, paddr, params = rk
    k = ctx.state.consts
    n = root.shape[0]
    acts = np.zeros(ctx.n_actions, np.int64)
    acts[:n] = root
    sums = np.zeros(n, np.float64)
    counts = np.zeros(n, np.int64)
    steps = 0
    if time_s is None:
        steps = _checked(mod.pimc_run(k, ctx.g0, ctx.gd, ctx.gw, info, int(iterations), pcode, paddr, params, uk, rng,
                                      acts, n, sums, counts, scratch), rollout, scratch, ctx)
    else:
        end = t0 + float(time_s)
        while time.perf_counter() < end:
            steps += _checked(mod.pimc_run(k, ctx.g0, ctx.gd, ctx.gw, info, n * 8, pcode, paddr, params, uk, rng, acts,
                                           n, sums, counts, scratch), rollout, scratch, ctx)
    action, values = flat_choice(root, sums, counts)
    return SearchResult(action, root, counts, values, int(counts.sum()), 0, int(steps),
                        time.perf_counter() - t0)
