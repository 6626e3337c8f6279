"""Compile once: the warm-up lists what a run needs, two runs on one machine compile it once, and the helper
process's plan matches the play loop's own calls (``cya_sim/runs/warmup.py``, ``cya_sim/play/loop.py``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

from cya_sim.game.rules import get_rules
from cya_sim.runs.warmup import kernels_for


def labels(agents, engine, preset="classic"):
    return [k.label for k in kernels_for([get_rules(preset)], [4 if preset != "two_player_draft_advanced" else 2],
                                         agents, engine)]


def test_kernels_for_lists_what_a_run_needs():
    """The play loop for every batched run; a view policy's C entry only when the line-up has it; the search kernels
    for ismcts/pimc (and their rollout's entry); the step of the Python seats on the batched engine (issue 33: a
    Python agent's first run compiles nothing unannounced); nothing compiled for the reference engine's greedy and
    random."""
    assert labels(["greedy", "random"], "batched") == ["play loop (the rules kernel, greedy, random)"]
    # under the classic rules card_counter and heuristic (wild_hoarder) play from the row: their row forms' entries
    assert labels(["greedy", "card_counter", "wild_hoarder"], "batched") == [
        "play loop (the rules kernel, greedy, random)", "card_counter (from the row)", "heuristic (from the row)"]
    assert labels(["greedy", "card_counter", "wild_hoarder"], "batched", "advanced") == [
        "play loop (the rules kernel, greedy, random)", "card_counter", "heuristic"]
    assert labels(['ismcts(rollout="card_counter")', "greedy"], "reference") == [
        "card_counter (from the row)", "search (ISMCTS/PIMC kernels)", "reference agents' decision functions"]
    assert labels(['ismcts(rollout="card_counter")', "greedy"], "reference", "advanced") == [
        "card_counter", "search (ISMCTS/PIMC kernels)", "reference agents' decision functions"]
    assert labels(["greedy", "random"], "reference") == []
    # greedy under the advanced rules with draft piles is the heuristic view policy (agents.classic.registry.policy_of)
    assert labels(["greedy"], "batched", "two_player_draft_advanced") == [
        "play loop (the rules kernel, greedy, random)", "heuristic"]
    assert kernels_for([get_rules("theft")], [3], ["greedy"], "reference") == []
    assert [k.label for k in kernels_for([get_rules("theft")], [3], ["pimc", "greedy"], "reference")] == [
        "theft search (ISMCTS/PIMC kernels)"]
    step = "step (the Python agents' actions)"  # a seat played through Python (a search agent too) on the batched engine
    assert [k.label for k in kernels_for([get_rules("theft")], [3], ["ismcts(iterations=5)"], "batched")] == [
        "theft search (ISMCTS/PIMC kernels)", "theft play loop (the theft rules kernel, random, greedy, defender)", step]
    assert labels(["agents.classic.greedy:GreedyAgent", "greedy"], "batched") == [
        "play loop (the rules kernel, greedy, random)", step]
    assert labels(["agents.classic.greedy:GreedyAgent", "greedy"], "reference") == []


_RUN = textwrap.dedent("""
    import json, sys, time
    from cya_sim.game.rules import get_rules
    from cya_sim.runs.warmup import warm_up
    t0 = time.perf_counter()
    w = warm_up([get_rules("classic")], [4], ["greedy", "random"], "batched")
    print(json.dumps({"compiled": w.compiled, "loaded": w.loaded, "wall": time.perf_counter() - t0}))
""")


@pytest.mark.slow
def test_two_runs_started_together_compile_the_loop_once(tmp_path):
    """Two processes warm up at once on an empty cache: one compiles the play loop, the other waits for the lock and
    loads it (a cold compile: about 20 s on two cores)."""
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "numba"), CYA_SIM_CACHE_DIR=str(tmp_path / "cya"))
    procs = [subprocess.Popen([sys.executable, "-c", _RUN], env=env, stdout=subprocess.PIPE, text=True)
             for _ in range(2)]
    outs = [json.loads(p.communicate(timeout=900)[0].strip().splitlines()[-1]) for p in procs]
    compiled = sorted(len(o["compiled"]) for o in outs)
    assert compiled == [0, 1], outs
    assert all(o["loaded"] or o["compiled"] for o in outs)


_PLAN = textwrap.dedent("""
    import json, sys
    from numba.core import event
    from cya_sim.game.rules import get_rules
    from cya_sim.play.kernels import compile_callees
    game = sys.argv[1]
    if game == "classic":
        from cya_sim.play.classic.batched import PLAY
        from cya_sim.play.classic.kernels import build_play_loop as _build_loop, callee_plan
    else:
        from cya_sim.play.theft.batched import PLAY
        from cya_sim.play.theft.kernels import build_play_loop as _build_loop, callee_plan
    rules = get_rules(game)
    plan = []
    compile_callees(PLAY, lambda *a: plan.extend(callee_plan(*a)) or plan, rules, 4)
    names = {d.py_func.__module__ + "." + d.py_func.__qualname__ for d, _ in plan}
    names |= {"cya_sim.engine.batched.loops.fill_rows", "cya_sim.engine.batched.loops.finish_and_refill"}  # set-up
    again = set()
    with event.install_recorder("numba:compile") as rec:
        _build_loop(rules, 4)
    for _, ev in rec.buffer:
        if ev.is_start:
            f = ev.data["dispatcher"].py_func
            again.add(f"{f.__module__}.{f.__qualname__}")
    print(json.dumps(sorted(names & again)))
""")


@pytest.mark.slow
@pytest.mark.parametrize("game", ["classic", "theft"])
def test_callee_plan_matches_the_loops_calls(tmp_path, game):
    """Every function of the game's ``callee_plan`` (:func:`cya_sim.play.classic.kernels.callee_plan`,
    :func:`cya_sim.play.theft.kernels.callee_plan`), compiled first with the plan's types as the warm-up's second
    process compiles them (:func:`cya_sim.play.kernels.compile_callees`, the engine's set-up kernels too), is found in
    the cache when the play loop is compiled: none is compiled again (a plan with other types would be)."""
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "numba"), CYA_SIM_CACHE_DIR=str(tmp_path / "cya"))
    out = subprocess.run([sys.executable, "-c", _PLAN, game], env=env, capture_output=True, text=True, timeout=900,
                         check=True)
    assert json.loads(out.stdout.strip().splitlines()[-1]) == []


def _helper_in_daemon(queue):
    from cya_sim.runs.warmup import _start_helper

    try:
        queue.put(repr(_start_helper([get_rules("classic")], [4], ["greedy"], "batched", ["play loop (cold)", "x"])))
    except BaseException as e:  # noqa: BLE001 - the test reports what was raised
        queue.put(f"raised {type(e).__name__}: {e}")


def test_no_compile_helper_in_a_daemonic_process():
    """A Dask worker is a daemonic process, which may not have children: its warm-up compiles alone instead of
    failing with 'daemonic processes are not allowed to have children' when its cache is cold."""
    import multiprocessing

    ctx = multiprocessing.get_context("spawn")
    queue = ctx.Queue()
    proc = ctx.Process(target=_helper_in_daemon, args=(queue,), daemon=True)
    proc.start()
    got = queue.get(timeout=60)
    proc.join(timeout=60)
    assert got == "None"


def test_a_partial_compile_does_not_lower_the_first_run_estimate(tmp_path, monkeypatch):
    """A compile under half the recorded time is partial (callees were in the disk cache) and leaves the estimate;
    a whole compile, shorter or longer, replaces it (the first-run message's estimate, cya_sim.runs.warmup)."""
    from cya_sim.runs import warmup

    monkeypatch.setenv("CYA_SIM_CACHE_DIR", str(tmp_path))
    warmup._record("play loop", 23.7)
    warmup._record("play loop", 9.0)  # partial: kept out
    assert warmup._estimates()["play loop"] == 23.7
    warmup._record("play loop", 15.0)  # a whole compile on a quieter machine
    assert warmup._estimates()["play loop"] == 15.0
    warmup._record("play loop", 40.0)
    assert warmup._estimates()["play loop"] == 40.0
    assert warmup._estimates()["card_counter"] == warmup.DEFAULT_SECONDS["card_counter"]  # none recorded yet


def test_the_compile_ticker_draws_only_on_a_terminal(monkeypatch):
    """The elapsed-seconds bar of a compile is drawn on a terminal only: into a log it wrote a frame every half
    second on one line (57 frames in a `make run` log); the lines naming the kernel and its time stay."""
    import io

    from cya_sim.runs import warmup

    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    monkeypatch.setattr("sys.stderr", io.StringIO())
    assert not warmup._Ticker(5.0, True).enabled
    monkeypatch.setattr("sys.stderr", Tty())
    assert warmup._Ticker(5.0, True).enabled
    assert not warmup._Ticker(5.0, False).enabled
