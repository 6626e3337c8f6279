"""What a classic-family run compiles (:class:`~cya_sim.play.kernels.Kernel` list): the play loop, each view policy's
and plug-in's C entry, the search kernels, the reference agents' decision functions."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from cya_sim.play.kernels import Kernel, all_cached, build_loop, compile_callees, numba_cached, step_kernel


def kernels(rules_list: Sequence, players: Sequence[int], agents: Sequence[str], engine: str) -> list[Kernel]:
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
    from agents.classic.registry import compiled_policy, plays_from_row
    from agents.spec import parse_agent_spec

    out: list[Kernel] = []
    kinds = {STRATEGY_HEURISTIC: "heuristic", STRATEGY_CARD_COUNTER: "card_counter", STRATEGY_ORACLE: "oracle"}
    if engine == "batched":
        from cya_sim.engine.classic.layout import CONSTS_DTYPE
        from cya_sim.play import loop

        out.append(Kernel("play loop (the rules kernel, greedy, random)", "play loop",
                          lambda: numba_cached(loop.advance, CONSTS_DTYPE.names),
                          lambda: build_play_loop(rules_list[0], players[0]),
                          lambda: compile_play_loop_callees(rules_list[0], players[0])))
    views: set[int] = set()
    plugins = []
    search = False
    python_seats = False
    for spec in agents:
        name = parse_agent_spec(spec).name
        if name in ("ismcts", "pimc"):
            search = True
            rollout = parse_agent_spec(spec).kwargs.get("rollout", "greedy")
            spec = rollout if isinstance(rollout, str) else "greedy"
        pol = compiled_policy(spec)
        python_seats |= pol is None
        if isinstance(pol, int) and pol in kinds:
            views.add(pol)
        elif pol is not None and not isinstance(pol, int):
            plugins.append((spec, pol))
        if pol == POLICY_GREEDY and any(_greedy_is_view(r) for r in rules_list):
            views.add(STRATEGY_HEURISTIC)
    if engine == "batched" and python_seats:
        from cya_sim.engine.classic.layout import CONSTS_DTYPE
        from cya_sim.play.classic.batched import PLAY

        out.append(step_kernel(PLAY, rules_list[0], players[0], CONSTS_DTYPE.names))
    if engine == "batched" or search:
        from agents.classic.compiled_strategy import strategy_address
        from agents.classic.row_abi import row_address, row_entry

        for k in sorted(views):
            from_row = [plays_from_row(k, r) for r in rules_list]
            if not all(from_row):
                out.append(Kernel(kinds[k], kinds[k], lambda k=k: numba_cached(strategy_entry(k)),
                                  lambda k=k: strategy_address(k)))
            if any(from_row):
                out.append(Kernel(f"{kinds[k]} (from the row)", f"{kinds[k]} (row)",
                                  lambda k=k: numba_cached(row_entry(k)), lambda k=k: row_address(k)))
        for spec, pol in plugins:
            from agents.classic.plugin import plugin_address

            mod = entry_module(pol)
            out.append(Kernel(f"plug-in {spec}", "plug-in", lambda mod=mod: numba_cached(mod.entry),
                              lambda pol=pol: plugin_address(pol)))
    if search:
        from cya_sim.engine.classic.layout import CONSTS_DTYPE
        from cya_sim.search.classic import kernels as sk  # the shared kernels, the classic hooks registered

        out.append(Kernel("search (ISMCTS/PIMC kernels)", "search",
                          lambda: all_cached([sk.ismcts_run, sk.pimc_run], CONSTS_DTYPE.names),
                          lambda: _build_search(rules_list[0], players[0])))
    if engine == "reference" and views:  # a plug-in compiles at its first call, in the process that plays it
        from agents.classic.card_counter import card_counter_decide
        from agents.classic.heuristic import heuristic_decide

        funcs = [card_counter_decide, heuristic_decide]
        out.append(Kernel("reference agents' decision functions", "reference agents", lambda: all_cached(funcs),
                          lambda: _build_reference(rules_list[0], players[0], agents)))
    return out


def _greedy_is_view(rules) -> bool:
    from cya_sim.game.classic.actions import ActionSpace

    return ActionSpace.for_rules(rules).advanced_on and rules.draft != "none"


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


def callee_plan(K, G, rng, sc) -> list:
    """The separately compiled functions the play loop (:func:`cya_sim.play.loop.advance`) reaches for the classic
    family, with the argument types of its calls.

    ``(dispatcher, argument types)`` pairs in the reverse of the order in which compiling the loop reaches them
    (numba's ``numba:compile`` events of a compile without the second process, 2026-12-02: the engine's set-up
    kernels first, from ``finish_and_refill``, then the policies, then the rules kernel's callees, which the loop
    inlines): a second process compiles them into numba's disk cache (``dispatcher.compile(types)``) from the last
    one the loop reaches while the first compiles the loop from its start, which loads each one the second has
    finished instead of compiling it (:func:`cya_sim.runs.warmup.warm_up`); the second deals a game (the set-up
    kernels) after the plan. The cache keeps a function's LLVM bitcode for linking, so the loop's machine code is the
    same either way; a pair whose types differ from the loop's call only costs its own compile
    (``tests/test_warmup.py`` checks them).

    Args: K the rule constants, G a (W,) int64 row, rng a (4,) uint64 stream, sc an :class:`agents.classic.compiled.Scratch`
    (values only give their types).
    """
    from numba import typeof, types

    from agents.classic.compiled import random_act
    from agents.classic.compiled_advanced import covers, greedy_advanced_act
    from agents.classic.compiled_draft import best_take, open_if_able
    from agents.classic.compiled_strategy import gives_up_at_once, oracle_view, view_parts
    from cya_sim.engine.classic import advanced as adv
    from cya_sim.engine.classic import draft, kernel
    from cya_sim.engine.seats import seat_add

    k, g, r, s, i = typeof(K), typeof(G), typeof(rng), typeof(sc), types.int64
    f = types.Array(types.float64, 1, "C")  # an agent's parameter row
    # a constant argument at an inlined call site gets its own literal-typed compile: the plan lists those too
    yes, zero, minus_one = types.literal(True), types.literal(0), types.literal(-1)
    return [
        (kernel.second_action_or_end, (k, g, r, yes)), (kernel._new_set, (k, g, i, i, i, i, i)),
        (kernel.piles_then_done, (k, g, r, i, minus_one)), (draft.apply, (k, g, i)),
        (kernel._play_challenge_card, (k, g, i, i)), (adv.turn_action, (k, g, i, i)),
        (kernel.resolve_challenge, (k, g, r)), (adv.pre_legal, (k, g, i)), (draft.is_legal, (k, g, i)),
        (oracle_view, (k, g, s)), (view_parts, (k, g, i, s, i)), (gives_up_at_once, (k, g, i)),
        (random_act, (k, g, i, f, r, s)), (seat_add, (i, zero, i)), (best_take, (k, g, i, g, i, i)),
        (open_if_able, (k, g, i)), (greedy_advanced_act, (k, g, i)), (covers, (k,)),
    ]


def build_play_loop(rules, n_players: int) -> None:
    """Compile (or load) the play loop for the classic game (:func:`cya_sim.play.kernels.build_loop`)."""
    from cya_sim.play.classic.batched import PLAY

    build_loop(PLAY, rules, n_players)


def compile_play_loop_callees(rules, n_players: int) -> None:
    """Compile the play loop's callees for the classic game into the disk cache (:func:`callee_plan`,
    :func:`cya_sim.play.kernels.compile_callees`)."""
    from cya_sim.play.classic.batched import PLAY

    compile_callees(PLAY, callee_plan, rules, n_players)
