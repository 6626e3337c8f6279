"""What a theft run compiles (:class:`~cya_sim.play.kernels.Kernel` list): the play loop, each compiled theft
plug-in's C entry, the theft search kernels (RULES.md §9)."""

from __future__ import annotations

from collections.abc import Sequence

from cya_sim.play.kernels import Kernel, all_cached, build_loop, compile_callees, numba_cached, step_kernel


def kernels(rules_list: Sequence, players: Sequence[int], agents: Sequence[str], engine: str) -> list[Kernel]:
    """The kernels a theft run needs on ``engine``: on ``batched`` the theft play loop
    (:func:`cya_sim.play.loop.advance`: the theft rules kernel with ``random``, ``greedy`` and ``defender``) and
    each compiled theft plug-in's C entry (:mod:`agents.theft.view`); on either engine the theft search kernels
    when ``ismcts`` or ``pimc`` plays (:mod:`cya_sim.search.kernels` with the theft hooks).

    Raises:
        ValueError: an unknown theft agent spec, or a plug-in not importable as ``module:function``.
    """
    from agents.spec import parse_agent_spec

    out = []
    if any(parse_agent_spec(spec).name in ("ismcts", "pimc") for spec in agents):
        from cya_sim.engine.theft.layout import CONSTS_DTYPE
        from cya_sim.search.theft import kernels as sk  # the shared kernels, the theft hooks registered

        out.append(Kernel("theft search (ISMCTS/PIMC kernels)", "search",
                          lambda: all_cached([sk.ismcts_run, sk.pimc_run], CONSTS_DTYPE.names),
                          lambda: _build_theft_search(rules_list[0], players[0])))
    if engine != "batched":
        return out
    from agents.theft.compiled import plays_in_python
    from agents.theft.registry import make_theft_agent
    from agents.theft.view import TheftViewPolicyAgent, theft_entry_module, theft_plugin_address
    from cya_sim.engine.theft.layout import CONSTS_DTYPE
    from cya_sim.play import loop

    out += [Kernel("theft play loop (the theft rules kernel, random, greedy, defender)", "theft play loop",
                   lambda: numba_cached(loop.advance, CONSTS_DTYPE.names),
                   lambda: build_play_loop(rules_list[0], players[0]),
                   lambda: compile_play_loop_callees(rules_list[0], players[0]))]
    for spec in agents:
        agent = make_theft_agent(spec)
        if isinstance(agent, TheftViewPolicyAgent):
            mod = theft_entry_module(agent.decide)
            out.append(Kernel(f"theft plug-in {spec}", "plug-in", lambda mod=mod: numba_cached(mod.entry),
                              lambda f=agent.decide: theft_plugin_address(f)))
    if any(plays_in_python(spec) for spec in agents):
        from cya_sim.play.theft.batched import PLAY

        out.append(step_kernel(PLAY, rules_list[0], players[0], CONSTS_DTYPE.names))
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


def callee_plan(K, G, rng, sc) -> list:
    """The separately compiled functions the play loop (:func:`cya_sim.play.loop.advance`) reaches for the theft game,
    with the argument types of its calls.

    ``(dispatcher, argument types)`` pairs in the reverse of the order in which compiling the loop reaches them
    (numba's ``numba:compile`` events, 2026-12-02: the engine's set-up kernels first, then the policies, then the
    callees of ``is_legal`` and ``apply_action``, which the loop inlines): the warm-up's second process compiles them
    into numba's disk cache (``dispatcher.compile(types)``) while the first compiles the loop, which then loads each
    one it has not reached yet (:func:`cya_sim.runs.warmup.warm_up`; the classic family's:
    :func:`cya_sim.play.classic.kernels.callee_plan`). A pair whose types differ from the loop's call only costs its
    own compile.

    Args: K the theft constants, G a (W,) int64 row, rng a (4,) uint64 stream, sc a
    :class:`agents.theft.compiled.TheftScratch` (values only give their types).
    """
    from numba import typeof, types

    from agents.theft import compiled as tc
    from agents.theft import view as tv
    from cya_sim.engine.theft import kernel as kn

    k, g, r, s, i = typeof(K), typeof(G), typeof(rng), typeof(sc), types.int64
    view = (k, g, i, typeof(sc.hdr), typeof(sc.hand), typeof(sc.unseen), typeof(sc.assets), typeof(sc.mask),
            typeof(sc.ids))
    return [
        (kn._answer_theft, (k, g, i)), (kn._discard, (k, g, i)), (kn._finish_turn, (k, g, r)),
        (kn._push_asset, (k, g, i, i, i, i)), (kn.can_cancel, (k, g)), (kn.theft_target_ok, (k, g, i, i, i)),
        (kn._theft_of, (k, i)), (tv.build_view_row, view), (tc.random_act, (k, g, i, r, s)),
        (tc.defender_act, (k, g, i, s)), (tc.greedy_act, (k, g, i, s)),
    ]


def build_play_loop(rules, n_players: int) -> None:
    """Compile (or load) the play loop for the theft game (:func:`cya_sim.play.kernels.build_loop`)."""
    from cya_sim.play.theft.batched import PLAY

    build_loop(PLAY, rules, n_players)


def compile_play_loop_callees(rules, n_players: int) -> None:
    """Compile the play loop's callees for the theft game into the disk cache (:func:`callee_plan`,
    :func:`cya_sim.play.kernels.compile_callees`)."""
    from cya_sim.play.theft.batched import PLAY

    compile_callees(PLAY, callee_plan, rules, n_players)
