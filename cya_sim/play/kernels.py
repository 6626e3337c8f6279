"""What each game's run must compile: its kernels, whether numba's disk cache holds them, how to build them.

A :class:`Kernel` names one compiled piece a run needs (the play loop, a strategy agent's C entry, a plug-in,
the search kernels) with a probe of the disk cache and a build that compiles or loads it in this process.
:func:`classic_kernels` and :func:`theft_kernels` list them for a game family's rule sets, table sizes, agents
and engine; the game protocol (:mod:`cya_sim.play.families`) hands them to the runner's compile-once warm-up
(:func:`cya_sim.runs.warmup.warm_up`), which compiles them before any worker starts.

The agents' and engines' modules are imported inside the functions, when a run is about to play, so that
commands that do not play (``cya-sim report``, ``--help``) never import numba.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np


@dataclass
class Kernel:
    """One kernel a run needs: a label for the user, whether numba's disk cache holds it, how to build it.

    label: ``"play loop"``, ``"card_counter"``, ``"plug-in my_pkg:decide"``, ...; kind: the key of its
    estimate (``cya_sim.runs.warmup.DEFAULT_SECONDS``); probe: whether the disk cache holds it now (True /
    False, None when it cannot be told); build: compiles or loads it in this process; callees: for a play
    loop, compiles the functions it calls into the disk cache (what a second process does while the first
    compiles the loop), else None.
    """

    label: str
    kind: str
    probe: Callable[[], bool | None]
    build: Callable[[], object]
    callees: Callable[[], None] | None = None


def numba_cached(func) -> bool | None:
    """Whether numba's disk cache holds a valid entry of ``func`` (a dispatcher or a plain function) for any signature.

    Reads the cache index as numba does (an index written for other source is empty); None when the
    index cannot be read (a numba without this layout).
    """
    from numba.core.caching import FunctionCache

    py = getattr(func, "py_func", func)
    try:
        return bool(FunctionCache(py)._cache_file._load_index())
    except Exception:  # noqa: BLE001 - private numba layout: unknown rather than wrong
        return None


def _all_cached(funcs) -> bool | None:
    found = [numba_cached(f) for f in funcs]
    return None if None in found else all(found)


def classic_kernels(rules_list: Sequence, players: Sequence[int], agents: Sequence[str], engine: str) -> list[Kernel]:
    """The kernels a classic-family run of ``agents`` at these rule sets and table sizes needs on ``engine``.

    The agents' and engines' modules are imported here, when a run is about to play, so that commands that
    do not play (``cya-sim report``, ``--help``) never import numba.

    Raises:
        ValueError: an unknown agent spec, or a plug-in that is not importable as ``module:function``.
    """
    from agents.classic.compiled import POLICY_GREEDY
    from agents.classic.compiled_strategy import (
        STRATEGY_CARD_COUNTER,
        STRATEGY_HEURISTIC,
        STRATEGY_ORACLE,
        strategy_entry,
    )
    from agents.classic.plugin import entry_module
    from agents.classic.registry import compiled_policy
    from agents.spec import parse_agent_spec

    out: list[Kernel] = []
    kinds = {STRATEGY_HEURISTIC: "heuristic", STRATEGY_CARD_COUNTER: "card_counter", STRATEGY_ORACLE: "oracle"}
    if engine == "batched":
        from cya_sim.play.classic import loop

        out.append(Kernel("play loop (the rules kernel, greedy, random)", "play loop",
                          lambda: numba_cached(loop.advance), lambda: _build_loop(rules_list[0], players[0]),
                          lambda: _compile_loop_callees(rules_list[0], players[0])))
    views: set[int] = set()
    plugins = []
    search = False
    for spec in agents:
        name = parse_agent_spec(spec).name
        if name in ("ismcts", "pimc"):
            search = True
            rollout = parse_agent_spec(spec).kwargs.get("rollout", "greedy")
            spec = rollout if isinstance(rollout, str) else "greedy"
        pol = compiled_policy(spec)
        if isinstance(pol, int) and pol in kinds:
            views.add(pol)
        elif pol is not None and not isinstance(pol, int):
            plugins.append((spec, pol))
        if pol == POLICY_GREEDY and any(_greedy_is_view(r) for r in rules_list):
            views.add(STRATEGY_HEURISTIC)
    if engine == "batched" or search:
        from agents.classic.compiled_strategy import strategy_address

        for k in sorted(views):
            out.append(Kernel(kinds[k], kinds[k], lambda k=k: numba_cached(strategy_entry(k)),
                              lambda k=k: strategy_address(k)))
        for spec, pol in plugins:
            from agents.classic.plugin import plugin_address

            mod = entry_module(pol)
            out.append(Kernel(f"plug-in {spec}", "plug-in", lambda mod=mod: numba_cached(mod.entry),
                              lambda pol=pol: plugin_address(pol)))
    if search:
        from cya_sim.search.classic import kernels

        out.append(Kernel("search (ISMCTS/PIMC kernels)", "search",
                          lambda: _all_cached([kernels.ismcts_run, kernels.pimc_run]),
                          lambda: _build_search(rules_list[0], players[0])))
    if engine == "reference" and views:  # a plug-in compiles at its first call, in the process that plays it
        from agents.classic.card_counter import card_counter_decide
        from agents.classic.heuristic import heuristic_decide

        funcs = [card_counter_decide, heuristic_decide]
        out.append(Kernel("reference agents' decision functions", "reference agents", lambda: _all_cached(funcs),
                          lambda: _build_reference(rules_list[0], players[0], agents)))
    return out


def _greedy_is_view(rules) -> bool:
    from cya_sim.game.classic.actions import ActionSpace

    return ActionSpace.for_rules(rules).advanced_on and rules.draft != "none"


def _build_loop(rules, n_players: int) -> None:
    """Compile (or load) the play loop: one call on a one-game state whose every agent is a Python agent.

    The loop returns at once (every seat waits for Python), having been compiled for the state's types,
    which are the same for every preset.
    """
    from agents.classic.compiled import new_scratch
    from cya_sim.engine.classic.batched import init
    from cya_sim.play.classic import loop

    st = init(rules, n_players, 1, 1, np.zeros(1, np.int64), np.zeros((1, n_players), np.int16), ["random"])
    loop.advance(st.consts, st.rows, st.engine_rng, st.agent_rng, st.queue, np.full(1, -1, np.int64),
                 np.zeros(1, np.int64), np.zeros((1, 16), np.float64), new_scratch(st.consts.cfg))


def _build_search(rules, n_players: int) -> None:
    """Compile (or load) the ISMCTS and PIMC kernels: two small searches on a new game's first decision."""
    from cya_sim.engine.classic.reference import new_game
    from cya_sim.engine.classic.reference.observation import observe
    from cya_sim.game.rng import root_key
    from cya_sim.search.classic.search import ismcts_search, pimc_search

    state = new_game(rules, n_players, root_key(1), 0)
    obs = observe(state, state.to_act)
    ismcts_search(obs, iterations=2)
    pimc_search(obs, iterations=2)


def _build_reference(rules, n_players: int, agents: Sequence[str]) -> None:
    """Compile (or load) what the reference engine's compiled agents call: one decision of each built-in."""
    from agents.classic.registry import REGISTRY, compiled_policy, make_agent
    from agents.spec import parse_agent_spec
    from cya_sim.engine.classic.reference import new_game
    from cya_sim.engine.classic.reference.observation import observe
    from cya_sim.game.rng import root_key

    state = new_game(rules, n_players, root_key(1), 0)
    obs = observe(state, state.to_act)
    for spec in agents:
        pol = compiled_policy(spec)
        name = parse_agent_spec(spec).name
        if pol is None or not isinstance(pol, int) or pol in (0, 1) or name not in REGISTRY:
            continue  # a compiled plug-in is never called here: a loop without end could not be interrupted
        agent = make_agent(spec)
        if getattr(agent, "sees_hidden", False):
            agent.act(obs, np.random.default_rng(0), state)
        else:
            agent.act(obs, np.random.default_rng(0))


def theft_kernels(rules_list: Sequence, players: Sequence[int], agents: Sequence[str], engine: str) -> list[Kernel]:
    """The kernels a theft run needs on ``engine``: on ``batched`` the theft play loop
    (:func:`cya_sim.play.theft.loop.advance`: the theft rules kernel with ``random``, ``greedy`` and ``defender``) and
    each compiled theft plug-in's C entry (:mod:`agents.theft.view`); on either engine the theft search kernels
    when ``ismcts`` or ``pimc`` plays (:mod:`cya_sim.search.theft.kernels`).

    Raises:
        ValueError: an unknown theft agent spec, or a plug-in not importable as ``module:function``.
    """
    from agents.spec import parse_agent_spec

    out = []
    if any(parse_agent_spec(spec).name in ("ismcts", "pimc") for spec in agents):
        from cya_sim.search.theft import kernels as tk

        out.append(Kernel("theft search (ISMCTS/PIMC kernels)", "search",
                          lambda: _all_cached([tk.ismcts_run, tk.pimc_run]),
                          lambda: _build_theft_search(rules_list[0], players[0])))
    if engine != "batched":
        return out
    from agents.theft.registry import make_theft_agent
    from agents.theft.view import TheftViewPolicyAgent, theft_entry_module, theft_plugin_address
    from cya_sim.play.theft import loop

    out += [Kernel("theft play loop (the theft rules kernel, random, greedy, defender)", "theft play loop",
                   lambda: numba_cached(loop.advance), lambda: _build_theft_loop(rules_list[0], players[0]),
                   lambda: _compile_theft_loop_callees(rules_list[0], players[0]))]
    for spec in agents:
        agent = make_theft_agent(spec)
        if isinstance(agent, TheftViewPolicyAgent):
            mod = theft_entry_module(agent.decide)
            out.append(Kernel(f"theft plug-in {spec}", "plug-in", lambda mod=mod: numba_cached(mod.entry),
                              lambda f=agent.decide: theft_plugin_address(f)))
    return out


def _build_theft_search(rules, n_players: int) -> None:
    """Compile (or load) the theft ISMCTS and PIMC kernels: two small searches on a new theft game's first decision."""
    from cya_sim.engine.theft.observation import observe
    from cya_sim.engine.theft.reference import new_game
    from cya_sim.game.rng import root_key
    from cya_sim.search.theft.search import theft_ismcts_search, theft_pimc_search

    state = new_game(rules, n_players, root_key(1), 0)
    obs = observe(state, state.to_act)
    if obs.legal_action_mask.sum() > 1:
        theft_ismcts_search(obs, iterations=2)
        theft_pimc_search(obs, iterations=2)


def _build_theft_loop(rules, n_players: int) -> None:
    """Compile (or load) the theft play loop: one call on a one-game state whose every seat waits for Python."""
    from agents.theft.compiled import new_theft_scratch
    from cya_sim.engine.theft.batched import init
    from cya_sim.play.theft.loop import advance

    st = init(rules, n_players, 1, 1, np.zeros(1, np.int64), np.zeros((1, n_players), np.int16), ["random"])
    advance(st.consts, st.rows, st.engine_rng, st.agent_rng, st.queue, np.full(1, -1, np.int64),
            np.zeros(1, np.int64), np.zeros((1, 16), np.float64), new_theft_scratch(st.consts))


def _compile_loop_callees(rules, n_players: int) -> None:
    """Compile the classic play loop's callees into the disk cache (:func:`cya_sim.play.classic.loop.callee_plan`)."""
    from agents.classic.compiled import new_scratch
    from cya_sim.engine.classic.layout import make_consts, row_width
    from cya_sim.play.classic.loop import callee_plan

    k = make_consts(rules, n_players)
    for disp, sig in callee_plan(k, np.zeros(row_width(k), np.int64), np.zeros(4, np.uint64), new_scratch(k.cfg)):
        disp.compile(sig)


def _compile_theft_loop_callees(rules, n_players: int) -> None:
    """Compile the theft play loop's callees into the disk cache (:func:`cya_sim.play.theft.loop.callee_plan`)."""
    from cya_sim.play.theft.loop import callee_plan

    for disp, sig in callee_plan(rules, n_players):
        disp.compile(sig)
