"""A long run's report is built in two processes (cya_sim.reports.side_by_side): the same files, byte for byte, as
in one process; a part that fails in the child fails the report with its own error."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from cya_sim.reports import side_by_side as sbs
from cya_sim.reports.report import build_report

EXAMPLE = Path(__file__).resolve().parents[1] / "results" / "example"
FILES = ("REPORT.md", "summary.csv", "pairwise.csv", "seats.csv", "lengths.csv", "rounds.csv", "variance.csv",
         "win_rates.png", "pairwise.png", "totals.png", "seats.png", "rounds.png")

linux = pytest.mark.skipif(sys.platform != "linux", reason="the report runs in two processes on Linux only")


def _built(folder: Path) -> dict[str, bytes]:
    build_report(folder)
    return {name: (folder / name).read_bytes() for name in FILES}


@linux
def test_two_processes_write_the_same_files_as_one(tmp_path, monkeypatch):
    monkeypatch.setattr(sbs, "usable_cores", lambda: 2)
    monkeypatch.setattr(sbs, "MIN_GAMES", 0)
    folder = tmp_path / "example"
    shutil.copytree(EXAMPLE, folder)
    monkeypatch.setenv("CYA_SIM_REPORT_PROCESSES", "1")
    assert not sbs.two_processes(10**6)
    one = _built(folder)
    monkeypatch.delenv("CYA_SIM_REPORT_PROCESSES")
    assert sbs.two_processes(1)
    two = _built(folder)
    for name in FILES:
        assert one[name] == two[name], name


def test_small_runs_and_one_core_stay_in_one_process(monkeypatch):
    monkeypatch.delenv("CYA_SIM_REPORT_PROCESSES", raising=False)
    monkeypatch.setattr(sbs, "usable_cores", lambda: 2)
    assert not sbs.two_processes(sbs.MIN_GAMES - 1)
    assert sbs.two_processes(sbs.MIN_GAMES) == (sys.platform == "linux")
    monkeypatch.setattr(sbs, "usable_cores", lambda: 1)
    assert not sbs.two_processes(10**7)


def _fails():
    raise ValueError("no games of this agent")


@linux
def test_a_child_part_that_fails_fails_with_its_error():
    with pytest.raises(ValueError, match="no games of this agent"):
        sbs.side_by_side([lambda: 1, _fails, lambda: 3], child=[1], parallel=True)
    assert sbs.side_by_side([lambda: 1, lambda: 2, lambda: 3], child=[0, 2], parallel=True) == [1, 2, 3]


def _interrupted():
    raise KeyboardInterrupt


def _recording_fork(monkeypatch, then=None) -> list[int]:
    """os.fork that records the child's pid (and calls ``then(pid)`` in the parent right after the fork)."""
    pids: list[int] = []
    real = os.fork

    def fork():
        pid = real()
        if pid:
            pids.append(pid)
            if then:
                then(pid)
        return pid

    monkeypatch.setattr(os, "fork", fork)
    return pids


def _gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


@linux
def test_ctrl_c_in_the_parent_stops_the_child_at_once(monkeypatch):
    pids = _recording_fork(monkeypatch)
    t0 = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        sbs.side_by_side([lambda: time.sleep(60), _interrupted], child=[0], parallel=True)
    assert time.monotonic() - t0 < 30
    assert len(pids) == 1 and _gone(pids[0])  # killed and reaped


@linux
def test_a_ctrl_c_during_the_fork_is_raised_after_it_not_lost(monkeypatch):
    pids = _recording_fork(monkeypatch, then=lambda pid: os.kill(os.getpid(), signal.SIGINT))
    with pytest.raises(KeyboardInterrupt):
        sbs.side_by_side([lambda: time.sleep(60), lambda: 2], child=[0], parallel=True)
    assert _gone(pids[0])
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


_STOPPED = """
import signal, sys, time
from cya_sim.reports.side_by_side import side_by_side
def stop(signum, frame):
    raise SystemExit(128 + signum)
signal.signal(signal.SIGTERM, stop)
print("ready", flush=True)
side_by_side([lambda: time.sleep(60), lambda: time.sleep(60)], child=[0], parallel=True)
"""


@linux
@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM], ids=["sigint", "sigterm"])
def test_a_stop_sent_to_the_process_group_ends_parent_and_child(stop):
    # a SIGTERM to the group once hung the parent (a pool worker killed holding its queue's lock)
    proc = subprocess.Popen([sys.executable, "-c", _STOPPED], start_new_session=True, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().strip() == "ready"
        time.sleep(1.5)  # forked, both sleeping
        os.killpg(proc.pid, stop)
        proc.wait(timeout=20)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                os.killpg(proc.pid, 0)
            except ProcessLookupError:
                break
            time.sleep(0.1)
        else:
            pytest.fail("a process of the group is left")
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        proc.stdout.close()
        proc.stderr.close()
