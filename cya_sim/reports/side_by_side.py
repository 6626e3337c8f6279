"""Run a report's independent parts in two processes, so a long run's report takes less wall time (the
1,000,000-game baseline's: 5.9 s against 8.1 s in one process, docs/benchmark.md).

A report's tables (:func:`cya_sim.reports.analysis.analyse`) and figures (:func:`cya_sim.reports.plots.save_all`)
are computed from the same games, independently of each other. :func:`side_by_side` runs some of them in one
child process (``os.fork``: the child starts with the parent's memory, so the games are never copied or pickled)
while the parent runs the others; only the results travel back (small tables, pickled, through a pipe). On a
machine without a safe ``fork`` (macOS, Windows), on one core, or for a small run, everything runs in this process
in the same order.

BLAS runs on one thread in both processes (``threadpoolctl``), in one process as in two. Two processes each with a
BLAS thread per core spin against each other (on the 1,000,000-game baseline its tables took 3.9 s so, 2.7 s with
one BLAS thread each); and BLAS splits a long dot product by its thread count, so the last digits of a standard
error (about 1e-13 relative) depended on the machine's cores. With one thread the files are the same, byte for
byte, in one process or two and on any number of cores (``tests/test_report_side_by_side.py``).
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import pickle
import signal
import sys
import threading
from collections.abc import Callable, Sequence
from typing import Any

from threadpoolctl import threadpool_limits

#: Below this many stored games a report runs in one process: a fork and the pickling back cost more than they save.
MIN_GAMES = 200_000


def usable_cores() -> int:
    """The number of cores this process may run on (``os.sched_getaffinity`` where it exists, else ``os.cpu_count``).

    The same lines as :func:`cya_sim.runs.schedule.default_workers`, which the reports may not import: the runs and
    the reports are kept apart, no import either way (``tests/test_layers.py``)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def two_processes(games: int) -> bool:
    """Whether a report of ``games`` stored games (all table sizes together) is built in two processes: at least
    :data:`MIN_GAMES`, two usable cores, Linux (``fork``; macOS has it but it is unsafe there), the main thread (the
    signal handlers are set around the fork) of a process that is not a daemonic worker (which may not start one);
    ``CYA_SIM_REPORT_PROCESSES=1`` in the environment forces one."""
    return (games >= MIN_GAMES and usable_cores() >= 2 and os.environ.get("CYA_SIM_REPORT_PROCESSES") != "1"
            and sys.platform == "linux" and threading.current_thread() is threading.main_thread()
            and not multiprocessing.current_process().daemon)


#: The signals that stop a report (Ctrl-C, ``kill``): held while the process forks, handled in the parent after.
_STOPS = (signal.SIGINT, signal.SIGTERM)


def side_by_side(tasks: Sequence[Callable[[], Any]], child: Sequence[int], parallel: bool) -> list[Any]:
    """The results of ``tasks`` (argument-free callables), in their order, computed with BLAS on one thread.

    Args:
        tasks: the parts to run; each returns a picklable result.
        child: indices into ``tasks`` run, one after the other, in the child process when ``parallel``; the parent
            runs the others meanwhile, in order.
        parallel: False runs every task here, in order (:func:`two_processes` decides).

    Raises:
        whatever a task raises (from the child, the same exception, re-raised here); RuntimeError when the child
        ends without its results (killed). On any exception here (KeyboardInterrupt included) the child is killed
        and reaped before it propagates.
    """
    with threadpool_limits(1, user_api="blas"):
        if not parallel or not child:
            return [t() for t in tasks]
        return _forked(tasks, list(child))


def _forked(tasks: Sequence[Callable[[], Any]], child: list[int]) -> list[Any]:
    """:func:`side_by_side` in two processes: a plain ``os.fork`` and a pipe, no lock shared with the child (a
    ``multiprocessing`` pool's queue lock, held by a worker killed by a SIGTERM to the group, hung its parent).

    A Ctrl-C or SIGTERM that comes while the process forks is held (Python runs the fork handlers of other modules
    then, where an exception would be lost) and raised in the parent right after. The child ignores Ctrl-C and
    ends at SIGTERM (the default, not the handler it inherits): the parent stops it.
    """
    held: list[int] = []
    saved = {s: signal.signal(s, lambda signum, _frame: held.append(signum)) for s in _STOPS}
    r, w = os.pipe()
    try:
        pid = os.fork()
    except BaseException:
        for s, handler in saved.items():
            signal.signal(s, signal.SIG_DFL if handler is None else handler)
        os.close(r)
        os.close(w)
        raise
    if pid == 0:  # the child: compute its parts, send them, leave without running the parent's exit handlers
        status = 1
        try:
            signal.signal(signal.SIGINT, signal.SIG_IGN)
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            os.close(r)
            try:
                payload = pickle.dumps(("ok", [tasks[i]() for i in child]))
            except Exception as e:  # noqa: BLE001 - any error of a part is the parent's to raise
                try:
                    payload = pickle.dumps(("error", e))
                except Exception:  # noqa: BLE001 - an exception that does not pickle: its text
                    payload = pickle.dumps(("error", RuntimeError(f"{type(e).__name__}: {e}")))
            with os.fdopen(w, "wb") as f:
                f.write(payload)
            status = 0
        finally:
            os._exit(status)
    os.close(w)
    reaped = False
    try:
        for s, handler in saved.items():
            signal.signal(s, signal.SIG_DFL if handler is None else handler)  # None: a handler set outside Python
        for s in held:
            signal.raise_signal(s)  # a stop that came during the fork, handled now
        out: list[Any] = [None] * len(tasks)
        for i, t in enumerate(tasks):
            if i not in child:
                out[i] = t()
        with os.fdopen(r, "rb") as f:
            r = -1
            data = f.read()
        _, code = os.waitpid(pid, 0)
        reaped = True
        if not data:
            raise RuntimeError(f"the report's second process ended without its results ({_ended(code)})")
        kind, value = pickle.loads(data)
        if kind == "error":
            raise value
        for i, v in zip(child, value):
            out[i] = v
        return out
    finally:
        if r >= 0:
            os.close(r)
        if not reaped:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)


def _ended(code: int) -> str:
    """How a child ended, from its ``waitpid`` status."""
    if os.WIFSIGNALED(code):
        return f"killed by signal {os.WTERMSIG(code)}"
    return f"exit status {os.waitstatus_to_exitcode(code)}"
