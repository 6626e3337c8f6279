"""Run a report's independent parts in two processes, so a long run's report takes about half the wall time.

A report's tables (:func:`cya_sim.reports.analysis.analyse`) and figures (:func:`cya_sim.reports.plots.save_all`)
are computed from the same games, independently of each other. :func:`side_by_side` runs some of them in one
child process (``fork``: the child starts with the parent's memory, so the games are never copied or pickled)
while the parent runs the others; only the results travel back (small tables, pickled). On a machine without
a safe ``fork`` (macOS, Windows), on one core, or for a small run, everything runs in this process in the same order.

BLAS runs on one thread in both processes (``threadpoolctl``), in one process as in two. Two processes each with a
BLAS thread per core spin against each other (on the 1,000,000-game baseline its tables took 3.9 s so, 2.7 s with
one BLAS thread each); and BLAS splits a long dot product by its thread count, so the last digits of a standard
error (about 1e-13 relative) depended on the machine's cores. With one thread the files are the same, byte for
byte, in one process or two and on any number of cores (``tests/test_report_side_by_side.py``).
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import sys
import warnings
from collections.abc import Callable, Sequence
from typing import Any

from threadpoolctl import threadpool_limits

#: Below this many stored games a report runs in one process: a fork and the pickling back cost more than they save.
MIN_GAMES = 200_000

_TASKS: Sequence[Callable[[], Any]] = ()


def usable_cores() -> int:
    """The number of cores this process may run on (``os.sched_getaffinity`` where it exists, else ``os.cpu_count``)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def two_processes(games: int) -> bool:
    """Whether a report of ``games`` stored games is built in two processes: at least :data:`MIN_GAMES`, two
    usable cores, Linux (``fork``; macOS has it but it is unsafe there), and not a daemonic worker process (which may
    not start one); ``CYA_SIM_REPORT_PROCESSES=1`` in the environment forces one."""
    return (games >= MIN_GAMES and usable_cores() >= 2 and os.environ.get("CYA_SIM_REPORT_PROCESSES") != "1"
            and sys.platform == "linux" and not multiprocessing.current_process().daemon)


def _run(i: int) -> Any:
    with threadpool_limits(1, user_api="blas"):
        return _TASKS[i]()


def _child_start() -> None:
    """The child leaves Ctrl-C to the parent, which stops it with SIGTERM: it ignores SIGINT and ends at SIGTERM
    without the handler it inherited (the CLI's, which raises): no second message, no traceback."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def side_by_side(tasks: Sequence[Callable[[], Any]], child: Sequence[int], parallel: bool) -> list[Any]:
    """The results of ``tasks`` (argument-free callables), in their order, computed with BLAS on one thread.

    Args:
        tasks: the parts to run; each returns a picklable result.
        child: indices into ``tasks`` run, one after the other, in the child process when ``parallel``; the parent
            runs the others meanwhile, in order.
        parallel: False runs every task here, in order (:func:`two_processes` decides).

    Raises:
        whatever a task raises (from the child, the same exception, re-raised here). On any exception here
        (KeyboardInterrupt included) the child is stopped before it propagates.
    """
    with threadpool_limits(1, user_api="blas"):
        if not parallel or not child:
            return [t() for t in tasks]
        global _TASKS
        _TASKS = tasks
        out: list[Any] = [None] * len(tasks)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", DeprecationWarning)  # Python 3.12+: fork in a process with threads
                pool = multiprocessing.get_context("fork").Pool(1, initializer=_child_start)
            try:
                pending = {i: pool.apply_async(_run, (i,)) for i in child}
                for i, t in enumerate(tasks):
                    if i not in pending:
                        out[i] = t()
                for i, r in pending.items():
                    out[i] = r.get()
            finally:
                pool.terminate()
                pool.join()
        finally:
            _TASKS = ()
        return out
