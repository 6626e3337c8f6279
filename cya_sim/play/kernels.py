"""What each game's run must compile: its kernels, whether numba's disk cache holds them, how to build them.

A :class:`Kernel` names one compiled piece a run needs (the play loop, a strategy agent's C entry, a plug-in,
the search kernels) with a probe of the disk cache and a build that compiles or loads it in this process. Each game
lists its own (``kernels()`` of :mod:`cya_sim.play.classic.kernels`, :mod:`cya_sim.play.theft.kernels`) for its rule
sets, table sizes, agents and engine; the game protocol (:mod:`cya_sim.play.families`) hands them to the runner's
compile-once warm-up (:func:`cya_sim.runs.warmup.warm_up`), which compiles them before any worker starts. What every
game's list shares is here: probing numba's cache for one game's entry of a shared loop (:func:`numba_cached`), and
building the play loop and its callees (:func:`build_loop`, :func:`compile_callees`).

The agents' and engines' modules are imported inside the functions, when a run is about to play, so that
commands that do not play (``cya-sim report``, ``--help``) never import numba.
"""

from __future__ import annotations

from collections.abc import Callable
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


def numba_cached(func, fields: tuple[str, ...] | None = None) -> bool | None:
    """Whether numba's disk cache holds a valid entry of ``func`` (a dispatcher or a plain function): for any
    signature, or, with ``fields``, for one whose constants record ``K`` (the first argument) has these field names
    (one game's entry of a loop shared by every game, :mod:`cya_sim.engine.hooks`).

    Reads the cache index as numba does (an index written for other source is empty); None when the
    index cannot be read (a numba without this layout).
    """
    from numba import types
    from numba.core.caching import FunctionCache

    py = getattr(func, "py_func", func)
    try:
        index = FunctionCache(py)._cache_file._load_index()
        if fields is None:
            return bool(index)
        return any(sig and isinstance(sig[0], types.Record) and tuple(sig[0].fields) == tuple(fields)
                   for sig, *_ in index)
    except Exception:  # noqa: BLE001 - private numba layout: unknown rather than wrong
        return None


def all_cached(funcs, fields: tuple[str, ...] | None = None) -> bool | None:
    """Whether numba's disk cache holds every one of ``funcs`` (:func:`numba_cached`); None when it cannot be told."""
    found = [numba_cached(f, fields) for f in funcs]
    return None if None in found else all(found)


def _one_game(play, rules, n_players: int, dealt: bool):
    """A one-game state of ``play``'s game whose every agent is a Python agent: dealt (the engine's set-up kernels
    compiled or loaded) or only allocated (nothing compiled; its types are the same)."""
    args = (rules, n_players, 1, 1, np.zeros(1, np.int64), np.zeros((1, n_players), np.int16))
    if dealt:
        return play.engine.init(*args, ["random"])
    from cya_sim.engine.batched.state import allocate

    return allocate(play.engine.GAME, *args, ("random",))


def _loop_args(play, st) -> tuple:
    return (st.consts, st.rows, st.engine_rng, st.agent_rng, st.queue, np.full(1, -1, np.int64), np.zeros(1, np.int64),
            np.zeros((1, 16), np.float64), play.new_scratch(st.consts))


def build_loop(play, rules, n_players: int) -> None:
    """Compile (or load) the play loop (:func:`cya_sim.play.loop.advance`) for ``play``'s game, then the engine's
    set-up kernels, and call the loop once on a one-game state whose every agent is a Python agent (it returns at
    once: every seat waits for Python).

    The loop is compiled first, for the types of an allocated state (the same for every preset of the game): its
    compile reaches the engine's set-up kernels first (``finish_and_refill``), then the policies, then the rules
    kernel's callees, while the second process of the warm-up (:func:`compile_callees`) works from the other end, for
    this process to load. play: the game's :class:`~cya_sim.play.batched.BatchPlay`.
    """
    from numba import typeof

    from cya_sim.play import loop

    loop.advance.compile(tuple(typeof(a) for a in _loop_args(play, _one_game(play, rules, n_players, dealt=False))))
    loop.advance(*_loop_args(play, _one_game(play, rules, n_players, dealt=True)))


def compile_callees(play, plan: Callable, rules, n_players: int) -> None:
    """Compile the play loop's separately compiled callees for ``play``'s game into the disk cache: every
    ``(dispatcher, argument types)`` of ``plan(K, G, rng, sc)`` (the game's ``callee_plan``), then the engine's
    set-up kernels (dealing a one-game state of ``rules`` at ``n_players`` seats), which the loop reaches first; then
    the step of the Python agents (:func:`build_step`), which the first process does not wait for. The order is the
    reverse of the one in which the first process (:func:`build_loop`) reaches them, so that the two meet once.
    """
    st = _one_game(play, rules, n_players, dealt=False)
    for disp, sig in plan(st.consts, st.rows[0], st.engine_rng[0], play.new_scratch(st.consts)):
        disp.compile(sig)
    _one_game(play, rules, n_players, dealt=True)
    build_step(play, rules, n_players)  # while the first process finishes the loop: for runs with Python agents


def step_kernel(play, rules, n_players: int, fields: tuple[str, ...]) -> Kernel:
    """The kernel a run with Python agents needs on the batched engine besides the play loop: the step that checks and
    applies the Python seats' actions (:func:`cya_sim.engine.batched.loops.check_actions`,
    :func:`~cya_sim.engine.batched.loops.apply_actions`, for ``play``'s game: the constants record's ``fields``).
    The warm-up's second process also compiles it after the loop's callees (:func:`compile_callees`), so a run after
    ``make run`` usually finds it in the cache."""
    from cya_sim.engine.batched import loops

    return Kernel("step (the Python agents' actions)", "step",
                  lambda: all_cached([loops.check_actions, loops.apply_actions], fields),
                  lambda: build_step(play, rules, n_players))


def build_step(play, rules, n_players: int) -> None:
    """Compile (or load) :func:`step_kernel`'s functions for ``play``'s game: called on an allocated one-game state
    with no row selected (nothing is played)."""
    from cya_sim.engine.batched import loops

    st = _one_game(play, rules, n_players, dealt=False)
    actions, rows = np.zeros(1, np.int64), np.zeros(1, np.bool_)
    loops.check_actions(st.consts, st.rows, actions, rows)
    loops.apply_actions(st.consts, st.rows, st.engine_rng, st.agent_rng, st.queue, actions, rows)
