"""Compile once, before the workers start: every numba kernel a run needs, compiled or loaded in one process.

A run (a flags-only tournament, an experiment file, ``cya-sim bench``) calls :func:`warm_up` in the main
process before it starts its worker processes (or its Dask tasks). It lists the kernels the run's
engine, rules and agents need (:func:`kernels_for`) — the batched engine's play loop, each view policy's
C entry (``heuristic``, ``card_counter``, ``oracle``, a compiled plug-in; :mod:`agents.view_abi`), the
search kernels of ``ismcts``/``pimc``, the compiled decision functions the reference engine's agents
call — and compiles each one that numba's disk cache does not hold yet, holding a file lock
(:func:`compile_lock`) so that two processes on one machine never compile the same thing at the same
time: a second run, or a second Dask worker, waits and then loads the cache. Workers then only load.

What happens is said: before each kernel that must compile, one line names it with an estimate (the
time it took on this machine the last time, kept in ``compile_times.json`` in the cache folder, or a
figure measured on a 2-core machine), then a bar of elapsed seconds; :class:`WarmUp` has the seconds
spent, which the run reports on a line of their own (the games/s figures exclude it).
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field

import numpy as np

#: Seconds each kernel took to compile on an idle 2-core machine (2026-12-01), the estimate until this
#: machine has measured its own.
DEFAULT_SECONDS = {"play loop": 30.0, "card_counter": 9.0, "heuristic": 8.0, "oracle": 9.0, "plug-in": 3.0,
                   "search": 20.0, "reference agents": 8.0, "theft play loop": 20.0}


@dataclass
class Kernel:
    """One kernel a run needs: a label for the user, whether numba's disk cache holds it, how to build it.

    label: ``"play loop"``, ``"card_counter"``, ``"plug-in my_pkg:decide"``, ...; kind: the key of its
    estimate (:data:`DEFAULT_SECONDS`); probe: whether the disk cache holds it now (True / False, None
    when it cannot be told); build: compiles or loads it in this process.
    """

    label: str
    kind: str
    probe: Callable[[], bool | None]
    build: Callable[[], object]


@dataclass
class WarmUp:
    """What :func:`warm_up` did: kernels compiled and loaded, and seconds.

    compiled: labels of the kernels compiled in this process. loaded: labels loaded from the disk cache.
    compile_s: wall seconds spent compiling (0.0 when everything was cached). total_s: wall seconds of the
    whole warm-up, waiting for the lock included.
    """

    compiled: list[str] = field(default_factory=list)
    loaded: list[str] = field(default_factory=list)
    compile_s: float = 0.0
    total_s: float = 0.0


def cache_root():
    """cya-sim's cache folder (``$CYA_SIM_CACHE_DIR``, else ``~/.cache/cya_sim``; :func:`agents.plugin.cache_dir`'s parent)."""
    from agents.plugin import cache_dir

    return cache_dir().parent


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


@contextlib.contextmanager
def compile_lock() -> Iterator[None]:
    """Hold the machine's compile lock (``compile.lock`` in :func:`cache_root`; ``fcntl.flock``, released at exit)."""
    path = cache_root() / "compile.lock"
    with open(path, "a+") as f:
        fcntl.flock(f.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f.fileno(), fcntl.LOCK_UN)


def _times_path():
    return cache_root() / "compile_times.json"


def _estimates() -> dict[str, float]:
    out = dict(DEFAULT_SECONDS)
    try:
        out.update({k: float(v) for k, v in json.loads(_times_path().read_text()).items()})
    except (OSError, ValueError, TypeError, AttributeError):
        pass
    return out


def _record(kind: str, seconds: float) -> None:
    try:
        est = json.loads(_times_path().read_text()) if _times_path().exists() else {}
        if not isinstance(est, dict):
            est = {}
        est[kind] = round(seconds, 1)
        tmp = _times_path().with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps(est, indent=1) + "\n")
        os.replace(tmp, _times_path())
    except OSError:
        pass


def kernels_for(rules_list: Sequence, players: Sequence[int], agents: Sequence[str], engine: str) -> list[Kernel]:
    """The kernels a run of ``agents`` at these rule sets and table sizes needs on ``engine`` (module docstring).

    The agents' and engines' modules are imported here, when a run is about to play, so that commands that
    do not play (``cya-sim report``, ``--help``) never import numba.

    Raises:
        ValueError: an unknown agent spec, or a plug-in that is not importable as ``module:function``.
    """
    from agents.compiled import POLICY_GREEDY
    from agents.compiled_strategy import STRATEGY_CARD_COUNTER, STRATEGY_HEURISTIC, STRATEGY_ORACLE, strategy_entry
    from agents.plugin import entry_module
    from agents.registry import compiled_policy
    from agents.spec import parse_agent_spec

    out: list[Kernel] = []
    kinds = {STRATEGY_HEURISTIC: "heuristic", STRATEGY_CARD_COUNTER: "card_counter", STRATEGY_ORACLE: "oracle"}
    theft_rules = [r for r in rules_list if getattr(r, "family", "classic") == "theft"]
    if theft_rules:  # the theft game (RULES.md §9): its own play loop and plug-ins (theft_kernels_for)
        out.extend(theft_kernels_for(theft_rules, players, agents, engine))
    rules_list = [r for r in rules_list if getattr(r, "family", "classic") != "theft"]
    if not rules_list:
        return out
    if engine == "batched":
        from cya_sim.play import loop

        out.append(Kernel("play loop (the rules kernel, greedy, random)", "play loop",
                          lambda: numba_cached(loop.advance), lambda: _build_loop(rules_list[0], players[0])))
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
        from agents.compiled_strategy import strategy_address

        for k in sorted(views):
            out.append(Kernel(kinds[k], kinds[k], lambda k=k: numba_cached(strategy_entry(k)),
                              lambda k=k: strategy_address(k)))
        for spec, pol in plugins:
            from agents.plugin import plugin_address

            mod = entry_module(pol)
            out.append(Kernel(f"plug-in {spec}", "plug-in", lambda mod=mod: numba_cached(mod.entry),
                              lambda pol=pol: plugin_address(pol)))
    if search:
        from cya_sim.search import kernels

        out.append(Kernel("search (ISMCTS/PIMC kernels)", "search",
                          lambda: _all_cached([kernels.ismcts_run, kernels.pimc_run]),
                          lambda: _build_search(rules_list[0], players[0])))
    if engine == "reference" and (views or plugins):
        from agents.card_counter import card_counter_decide
        from agents.heuristic import heuristic_decide

        funcs = [card_counter_decide, heuristic_decide] + [pol for _, pol in plugins]
        out.append(Kernel("reference agents' decision functions", "reference agents", lambda: _all_cached(funcs),
                          lambda: _build_reference(rules_list[0], players[0], agents)))
    return out


# -- the theft game (RULES.md §9) ---------------------------------------------------------------------------
def theft_kernels_for(rules_list: Sequence, players: Sequence[int], agents: Sequence[str], engine: str) -> list[Kernel]:
    """The kernels a theft run needs on ``engine``: on ``batched`` the theft play loop
    (:func:`cya_sim.play.theft_loop.advance`: the theft rules kernel with ``random``, ``greedy`` and ``defender``) and
    each compiled theft plug-in's C entry (:mod:`agents.theft_view`); on either engine the theft search kernels
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
    from agents.theft import make_theft_agent
    from agents.theft_view import TheftViewPolicyAgent, theft_entry_module, theft_plugin_address
    from cya_sim.play import theft_loop as loop

    out += [Kernel("theft play loop (the theft rules kernel, random, greedy, defender)", "theft play loop",
                   lambda: numba_cached(loop.advance), lambda: _build_theft_loop(rules_list[0], players[0]))]
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
    from agents.theft_compiled import new_theft_scratch
    from cya_sim.engine.theft.batched import init
    from cya_sim.play.theft_loop import advance

    st = init(rules, n_players, 1, 1, np.zeros(1, np.int64), np.zeros((1, n_players), np.int16), ["random"])
    advance(st.consts, st.rows, st.engine_rng, st.agent_rng, st.queue, np.full(1, -1, np.int64),
            np.zeros(1, np.int64), np.zeros((1, 16), np.float64), new_theft_scratch(st.consts))


def _greedy_is_view(rules) -> bool:
    from cya_sim.game.actions import ActionSpace

    return ActionSpace.for_rules(rules).advanced_on and rules.draft != "none"


def _build_loop(rules, n_players: int) -> None:
    """Compile (or load) the play loop: one call on a one-game state whose every agent is a Python agent.

    The loop returns at once (every seat waits for Python), having been compiled for the state's types,
    which are the same for every preset.
    """
    from agents.compiled import new_scratch
    from cya_sim.engine.batched import init
    from cya_sim.play import loop

    st = init(rules, n_players, 1, 1, np.zeros(1, np.int64), np.zeros((1, n_players), np.int16), ["random"])
    loop.advance(st.consts, st.rows, st.engine_rng, st.agent_rng, st.queue, np.full(1, -1, np.int64),
                 np.zeros(1, np.int64), np.zeros((1, 16), np.float64), new_scratch(st.consts.cfg))


def _build_search(rules, n_players: int) -> None:
    """Compile (or load) the ISMCTS and PIMC kernels: two small searches on a new game's first decision."""
    from cya_sim.engine.reference import new_game
    from cya_sim.engine.reference.observation import observe
    from cya_sim.game.rng import root_key
    from cya_sim.search.search import ismcts_search, pimc_search

    state = new_game(rules, n_players, root_key(1), 0)
    obs = observe(state, state.to_act)
    ismcts_search(obs, iterations=2)
    pimc_search(obs, iterations=2)


def _all_cached(funcs) -> bool | None:
    found = [numba_cached(f) for f in funcs]
    return None if None in found else all(found)


def _build_reference(rules, n_players: int, agents: Sequence[str]) -> None:
    """Compile (or load) what the reference engine's compiled agents call: one decision of each built-in."""
    from agents.registry import REGISTRY, compiled_policy, make_agent
    from agents.spec import parse_agent_spec
    from cya_sim.engine.reference import new_game
    from cya_sim.engine.reference.observation import observe
    from cya_sim.game.rng import root_key

    state = new_game(rules, n_players, root_key(1), 0)
    obs = observe(state, state.to_act)
    for spec in agents:
        pol = compiled_policy(spec)
        name = parse_agent_spec(spec).name
        if pol is None or pol in (0, 1) or (isinstance(pol, int) and name not in REGISTRY):
            continue
        agent = make_agent(spec)
        if getattr(agent, "sees_hidden", False):
            agent.act(obs, np.random.default_rng(0), state)
        else:
            agent.act(obs, np.random.default_rng(0))


class _Ticker:
    """A tqdm bar of elapsed seconds against an estimate, advanced by a thread while a kernel compiles."""

    def __init__(self, estimate: float, enabled: bool) -> None:
        self.enabled = enabled
        self.estimate = max(1.0, estimate)
        self._stop = threading.Event()

    def __enter__(self):
        if not self.enabled:
            return self
        from tqdm.auto import tqdm

        self.bar = tqdm(total=round(self.estimate), unit="s", leave=False, dynamic_ncols=True, file=sys.stderr,
                        bar_format="  {bar} {n:.0f}/{total:.0f} s (estimate)")
        self.t0 = time.perf_counter()

        def tick() -> None:
            while not self._stop.wait(0.5):
                e = time.perf_counter() - self.t0
                self.bar.total = max(self.bar.total, round(e) + 1)
                self.bar.n = e
                self.bar.refresh()

        self.thread = threading.Thread(target=tick, daemon=True, name="cya-sim-compile-ticker")
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        if self.enabled:
            self._stop.set()
            self.thread.join()
            self.bar.close()


def warm_up(rules_list: Sequence, players: Sequence[int], agents: Sequence[str], engine: str,
            say: Callable[[str], None] | None = None) -> WarmUp:
    """Compile or load every kernel of :func:`kernels_for` in this process, under :func:`compile_lock`.

    Args:
        rules_list: the run's rule sets. players: its table sizes (the first is used to build).
        agents: agent specs. engine: ``batched`` or ``reference``.
        say: where to print what is compiled (a line per kernel and an elapsed-seconds bar on stderr);
            None: silent.

    Returns:
        a :class:`WarmUp`.

    Raises:
        ValueError: as :func:`kernels_for`.
    """
    t0 = time.perf_counter()
    out = WarmUp()
    kernels = kernels_for(rules_list, list(players) or [4], agents, engine)
    if not kernels:
        return out
    est = _estimates()
    cold = [k for k in kernels if k.probe() is False]
    lock = compile_lock() if cold else contextlib.nullcontext()
    with lock:
        cold = [k for k in cold if k.probe() is False]  # another process may have compiled them meanwhile
        helper = _start_helper(rules_list, players, agents, engine, [k.label for k in cold]) if cold else None
        if say is not None and cold:
            total = sum(est.get(k.kind, 10.0) for k in cold)
            how = " on 2 cores" if helper is not None else ""
            say(f"compiling {len(cold)} kernel{'s' if len(cold) > 1 else ''} with numba{how}, once for this machine "
                f"(about {total:.0f} s; later runs load them from the disk cache in about a second)")
        try:
            _build_all(kernels, cold, est, say, out)
        finally:
            if helper is not None:
                helper.terminate()  # what it had not finished the main process compiled itself
                helper.join()
    if say is not None and out.compiled:
        say(f"compiled in {out.compile_s:.1f} s: {', '.join(out.compiled)}")
    out.total_s = time.perf_counter() - t0
    return out


def _build_all(kernels: list[Kernel], cold: list[Kernel], est: dict[str, float], say, out: WarmUp) -> None:
    """Build every kernel in order; the cold ones are announced, timed and recorded in ``out``."""
    for k in kernels:
        k0 = time.perf_counter()
        cold_now = k in cold
        if cold_now and say is not None:
            say(f"  compiling {k.label} (about {est.get(k.kind, 10.0):.0f} s)")
        with _Ticker(est.get(k.kind, 10.0), say is not None and cold_now):
            k.build()
        dt = time.perf_counter() - k0
        if cold_now:
            out.compiled.append(k.label)
            out.compile_s += dt
            _record(k.kind, dt)
        else:
            out.loaded.append(k.label)


def _start_helper(rules_list, players, agents, engine, cold_labels: list[str]):
    """A second process compiling into the disk cache what this one will reach last (None on one core).

    It compiles the play loop's separately compiled callees (:func:`cya_sim.play.loop.callee_plan`) when
    the loop is cold, then the other cold kernels, last first; this process then loads what it finds
    in the cache. It holds no lock (it works for the process holding it) and is stopped when this
    process is done.
    """
    import multiprocessing

    if (os.cpu_count() or 1) < 2 or not cold_labels:
        return None
    if len(cold_labels) == 1 and not cold_labels[0].startswith(("play loop", "theft play loop")):
        return None
    ctx = multiprocessing.get_context("spawn")
    proc = ctx.Process(target=_helper, args=(list(rules_list), list(players), list(agents), engine, cold_labels),
                       daemon=True, name="cya-sim-compile-helper")
    proc.start()
    return proc


def _helper(rules_list, players, agents, engine, cold_labels: list[str]) -> None:
    """The body of :func:`_start_helper`'s process (output silenced; failures leave the work to the parent)."""
    sys.stdout = sys.stderr = open(os.devnull, "w")  # noqa: SIM115 - the process's own streams, to its end
    try:
        kernels = [k for k in kernels_for(rules_list, players, agents, engine) if k.label in cold_labels]
        if kernels and kernels[0].kind == "theft play loop":  # the theft game's loop (RULES.md §9)
            from cya_sim.play.theft_loop import callee_plan as theft_callee_plan

            for disp, sig in theft_callee_plan(rules_list[0], players[0]):
                disp.compile(sig)
            kernels = kernels[1:]
        if kernels and kernels[0].kind == "play loop":
            from agents.compiled import new_scratch
            from cya_sim.engine.compiled.layout import make_consts, row_width
            from cya_sim.play.loop import callee_plan

            k = make_consts(rules_list[0], players[0])
            for disp, sig in callee_plan(k, np.zeros(row_width(k), np.int64), np.zeros(4, np.uint64),
                                         new_scratch(k.cfg)):
                disp.compile(sig)
            kernels = kernels[1:]
        for kern in reversed(kernels):
            kern.build()
    except Exception:  # noqa: BLE001, S110 - the parent compiles whatever is missing
        pass
