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
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field

from cya_sim.play.kernels import Kernel

#: Seconds each kernel took to compile on an idle 2-core machine (2026-12-01; the play loops 2026-12-02: classic
#: 15.1-16.3 s, theft 9.3-9.4 s, the warm-up's two processes), the estimate until this
#: machine has measured its own.
DEFAULT_SECONDS = {"play loop": 20.0, "card_counter": 9.0, "heuristic": 8.0, "oracle": 9.0, "plug-in": 3.0,
                   "search": 20.0, "reference agents": 8.0, "theft play loop": 12.0, "step": 5.0,
                   "card_counter (row)": 5.0, "heuristic (row)": 3.0}  # the row forms: 2026-12-03, 4.3 and 1.5 s


def kernels_for(rules_list: Sequence, players: Sequence[int], agents: Sequence[str], engine: str) -> list[Kernel]:
    """The kernels a run of ``agents`` at these rule sets and table sizes needs on ``engine``, each game family's
    own (:meth:`cya_sim.play.family.GameFamily.kernels`; for the classic family the play loop, each view
    policy's and plug-in's C entry, the search kernels).

    The agents' and engines' modules are imported only here, when a run is about to play, so that commands
    that do not play (``cya-sim report``, ``--help``) never import numba.

    Raises:
        ValueError: an unknown agent spec, or a plug-in that is not importable as ``module:function``.
    """
    from cya_sim.play.families import family_of

    out: list[Kernel] = []
    by_family: dict[str, list] = {}
    for r in rules_list:
        by_family.setdefault(family_of(r).name, []).append(r)
    for rules_of_family in by_family.values():
        out.extend(family_of(rules_of_family[0]).kernels(rules_of_family, players, agents, engine))
    return out


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
    """cya-sim's cache folder (:func:`cya_sim.cache.cache_folder`: ``$CYA_SIM_CACHE_DIR``, else ``~/.cache/cya_sim``)."""
    from cya_sim.cache import cache_folder

    return cache_folder()


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
        # at least a second: a kernel the second process had already compiled was recorded as loaded in 0 s
        out.update({k: max(1.0, float(v)) for k, v in json.loads(_times_path().read_text()).items()})
    except (OSError, ValueError, TypeError, AttributeError):
        pass
    return out


#: A compile shorter than this share of the one recorded for its kind is taken for a partial one (the disk cache
#: held some of the kernel's callees, from the warm-up's second process or an earlier run) and leaves the estimate.
PARTIAL = 0.5


def _record(kind: str, seconds: float) -> None:
    """Record ``seconds`` as this machine's compile time of ``kind`` (the next first-run estimate,
    :func:`_estimates`), unless it is under :data:`PARTIAL` of the time recorded already: a partial compile, which
    would make the next whole one's estimate too short (a first run said "about 14 s" on a machine that then
    compiled the play loop in 23.7 s)."""
    try:
        est = json.loads(_times_path().read_text()) if _times_path().exists() else {}
        if not isinstance(est, dict):
            est = {}
        try:
            if seconds < PARTIAL * float(est.get(kind, 0.0)):
                return
        except (TypeError, ValueError):
            pass
        est[kind] = round(seconds, 1)
        tmp = _times_path().with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps(est, indent=1) + "\n")
        os.replace(tmp, _times_path())
    except OSError:
        pass


class _Ticker:
    """A tqdm bar of elapsed seconds against an estimate, advanced by a thread while a kernel compiles; only on a
    terminal: into a log or a pipe it would write a frame every half second on one line (the lines before and after
    it say what compiles, its estimate and the time it took)."""

    def __init__(self, estimate: float, enabled: bool) -> None:
        self.enabled = enabled and _is_terminal(sys.stderr)
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
            with _sigint_outside_llvmlite():
                _build_all(kernels, cold, est, say, out)
        except BaseException:
            if helper is not None:
                helper.terminate()
                helper.join()
            raise
        # Everything this run needs is built; what the helper may still compile is for later runs (the step of the
        # Python agents: a Python agent's first run after `make run` then compiles nothing). It goes on while the
        # games play; multiprocessing ends it, a daemon process, if it is not done when this process exits.
    if say is not None and out.compiled:
        say(f"compiled in {out.compile_s:.1f} s: {', '.join(out.compiled)}")
    out.total_s = time.perf_counter() - t0
    return out


@contextlib.contextmanager
def _sigint_outside_llvmlite() -> Iterator[None]:
    """Raise Ctrl-C's ``KeyboardInterrupt`` while numba compiles, but never inside llvmlite's ctypes callbacks.

    A ``KeyboardInterrupt`` raised in a ctypes callback (llvmlite's object-cache notification) is printed as
    "Exception ignored" and lost, and numba then goes on with a half-made library: the run ended in "internal
    error ... no compiled object yet" with status 1 instead of the one-line interrupt (tests/test_interrupt.py,
    a Ctrl-C during a cold warm-up). In such a frame the signal is sent again 50 ms later, when Python is back
    in numba's own code. Only in the main thread (where Python runs signal handlers); elsewhere nothing changes.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.getsignal(signal.SIGINT)

    def handler(signum, frame) -> None:
        f = frame
        while f is not None:
            if str(f.f_globals.get("__name__", "")).startswith("llvmlite"):
                threading.Timer(0.05, os.kill, (os.getpid(), signal.SIGINT)).start()
                return
            f = f.f_back
        if previous is signal.SIG_IGN:
            return
        if callable(previous):  # Python's default handler raises KeyboardInterrupt; the CLI's may do more
            previous(signum, frame)
            return
        raise KeyboardInterrupt

    signal.signal(signal.SIGINT, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def _is_terminal(stream) -> bool:
    """Whether ``stream`` is a terminal (False for a file, a pipe, or a stream without ``isatty``)."""
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError, OSError):
        return False


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
    """A second process compiling into the disk cache what this one will reach last (None on one core, and in a
    daemonic process, which may have no children: a Dask worker).

    It compiles the play loop's separately compiled callees (:func:`cya_sim.play.classic.kernels.callee_plan`) when
    the loop is cold, then the other cold kernels, last first; this process then loads what it finds
    in the cache. It holds no lock (it works for the process holding it). It is stopped if this process's warm-up
    fails or is interrupted; else it goes on while the games play, with what only later runs need (the step of the
    Python agents), and is ended, if not done, when this process exits.
    """
    import multiprocessing

    if (os.cpu_count() or 1) < 2 or not cold_labels or multiprocessing.current_process().daemon:
        return None  # a daemonic process (a Dask worker's) may not start one
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
        for kern in kernels:  # a play loop: its callees, from the other end of the parent's compile
            if kern.callees is not None:
                kern.callees()
        kernels = [k for k in kernels if k.callees is None]
        for kern in reversed(kernels):
            kern.build()
    except Exception:  # noqa: BLE001, S110 - the parent compiles whatever is missing
        pass
