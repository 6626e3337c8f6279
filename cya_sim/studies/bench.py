"""``cya-sim bench``: the speed of the batched engine, measured against the reference engine and the ceiling.

One run measures, for 4-player classic games to $1,000,000 (R-GAME-END ``target``) with
``greedy`` agents in every seat:

- **engine**: the batched engine (:mod:`cya_sim.engine.batched`), complete games per second per
  core and decisions per second, from this process's CPU time (one thread, so CPU seconds are
  core-seconds; wall time is reported too);
- **reference**: the reference engine on the same games, same measure;
- **ceiling** (optional): a hand-compiled loop, a Python file with ``play_game(seed, players, VAL, COUNT)``,
  ``VAL`` and ``COUNT`` (``--ceiling PATH``; without the flag, the project's original ``ceiling.py``, kept in a
  ``shared/bench/`` folder beside the repository's folder, is used if that file happens to exist), side by side
  with the engine: :data:`PAIRS` alternating runs of ``greedy`` x4 and the loop, ``--ceiling-games`` games each;
  ``greedy_x4_vs_ceiling`` (= ``engine_vs_ceiling``) is the median of the pairs' ratios
  (``greedy_x4_vs_ceiling_pairs``), ``ceiling_games_per_s`` the median of the loop's runs
  (``ceiling_paired_greedy_x4_games_s`` of the ``greedy`` runs beside them). When there is
  none, ``ceiling_games_per_s``, ``engine_vs_ceiling`` and ``greedy_x4_vs_ceiling`` are ``null`` and the notes say
  why: a clone measures everything else;
- **compile_s**: first-run compile time of the batched engine (the play loop with ``greedy`` and
  ``random``, as a default tournament compiles it: :func:`cya_sim.runs.warmup.warm_up`, a second
  process helping on a machine of two or more cores), in a fresh process with an empty numba cache
  directory, wall seconds (``compile_cpu_s``: CPU seconds of both processes; later runs load the
  on-disk cache, ``cache_load_s`` is that time here);
- **cold_tournament_wall_s**: the default tournament (``cya-sim tournament``, what ``make run``
  plays) with empty caches and its default workers, wall seconds of the whole command;
- **plug-in edit loop**: ``plugin_first_run_wall_s``, a 400-game tournament of the
  ``agents/README.md`` plug-in example under a module name never used before, engine cache warm,
  wall seconds of the whole command; ``plugin_edit_rerun_wall_s``, the same after one line of the
  plug-in is changed; ``cli_warm_run_wall_s``, the same command with ``greedy,random`` (what any
  warm command costs: start-up, games, report);
- **strategy agents**: ``card_counter`` x4 and the compiled plug-in example of
  ``agents/README.md`` x4 (installed from a temporary folder, as a user would) on the same
  engine, ``--strategy-games`` games each, as games/s and as a ratio to ``greedy`` x4 measured side by side:
  :data:`PAIRS` alternating runs of ``greedy`` x4 and the agent on the same games, the ratio of each pair
  (``<agent>_vs_greedy_x4_pairs``) and their median (``<agent>_vs_greedy_x4``; ``<agent>_games_s`` the median of
  the agent's runs, ``<agent>_paired_greedy_x4_games_s`` of the ``greedy`` runs beside them), so that a drift of
  the machine's speed between the two does not move the ratio; and the learned 4-player plug-in in one seat against ``card_counter`` in three (``learned_4p_vs_card_counter_games_s``, half as many games;
  ``learned_4p_load_s``: its first call, compile or cache load);
- **baseline**: the line-ups of ``experiments/baseline.toml`` (``--baseline-games`` games), games per CPU
  second and the estimated time of its 1,000,000 games on 2 idle cores (``baseline_est_2core_s``);
- **search**: ISMCTS iterations per second with ``greedy`` and with ``card_counter`` rollouts
  (:func:`cya_sim.search.classic.bench.mcts_speed`, ``--mcts-iterations``; ``--no-search`` skips it);
- **peak_rss_mb**: peak resident memory of this process, MB;
- **tournament**: wall time of a ``--tournament-games`` 4-player tournament with the runner's default workers
  (every core; one for a run of at most 20,000 games; ``--workers``), through
  :func:`cya_sim.studies.tournament.run_tournament` (or, if that module is missing, a process pool over
  chunks of game indices), in a process of its own, with the peak RSS of that process and its workers.

With ``--rules PRESET`` it measures instead, side by side in one run, ``greedy`` in every seat at
4 players or the preset's nearest allowed size (4 for ``advanced``, 2 for ``two_player_draft``, 3
for ``three_player_draft``) and ``classic`` at that same size: batched games and decisions per CPU
second, ``random`` in every seat (the engine's own cost, without greedy's decisions), the reference
engine's games per CPU second, and the ratios (:func:`rules_speed`).

With ``--rules theft`` (the theft game of RULES.md §9) it measures the compiled theft engine against the
theft reference engine per CPU second, the theft play loop's cold compile and a ``--tournament-games`` theft
tournament's wall time, in one run (:mod:`cya_sim.studies.bench_theft`).

Speed claims of the project come from this command only, never from timed unit tests.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np

#: Where the ceiling loop is looked for when ``--ceiling`` is not given: the project's original ``ceiling.py``,
#: in a ``shared/bench/`` folder beside the repository's folder (a clone has none; then the ceiling is skipped).
SIBLING_CEILING = Path(__file__).resolve().parents[2].parent / "shared" / "bench" / "ceiling.py"


def ceiling_path(given: Path | None) -> Path | None:
    """The ceiling loop a run measures: ``given`` (``--ceiling``), else :data:`SIBLING_CEILING` when that file
    exists, else None (the ceiling is skipped with a note; never an error)."""
    if given is not None:
        return Path(given)
    return SIBLING_CEILING if SIBLING_CEILING.is_file() else None


def _rss_mb(who: int = resource.RUSAGE_SELF) -> float:
    """Peak resident set size in MB (Linux reports KB)."""
    kb = resource.getrusage(who).ru_maxrss
    return kb / 1024.0 if sys.platform != "darwin" else kb / 1024.0 / 1024.0


def tournament_agents(text: str) -> tuple[str, ...]:
    """The agent specs of ``--tournament-agents``: :func:`agents.spec.split_agent_list` (a comma inside a spec's
    parentheses stays in it), empty entries left out."""
    from agents.spec import split_agent_list

    return tuple(a for a in split_agent_list(text) if a)


def _own_peak_mb() -> float:
    """Peak resident set size in MB of this process since its program started: Linux's ``VmHWM``, where
    ``ru_maxrss`` starts from the forking parent's peak (a subprocess of a 800 MB bench reported 800 MB); elsewhere
    ``ru_maxrss``."""
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024.0
    except (OSError, ValueError, IndexError):
        pass
    return _rss_mb()


def _timed(fn):
    """(result, cpu seconds, wall seconds) of ``fn()``."""
    c0, w0 = time.process_time(), time.perf_counter()
    out = fn()
    return out, time.process_time() - c0, time.perf_counter() - w0


_COLD = """
import time
t0 = time.perf_counter()
from cya_sim.game.rules import get_rules
from cya_sim.runs.warmup import warm_up
warm_up([get_rules("classic")], [4], ["greedy", "random"], "batched")
print(time.perf_counter() - t0)
"""


def _child_cpu(fn):
    """(result of ``fn()``, CPU seconds of the child processes it ran)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = fn()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return out, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def cold_compile_seconds() -> tuple[float, float]:
    """(wall seconds, CPU seconds) to import and compile the batched engine with an empty numba cache.

    Measured in a fresh process, as a run compiles it (:func:`cya_sim.runs.warmup.warm_up`); the CPU
    seconds (user + system time of the process and its helper) are what a shared machine does not inflate.
    """
    with tempfile.TemporaryDirectory() as d:
        env = dict(os.environ, NUMBA_CACHE_DIR=d, CYA_SIM_CACHE_DIR=d)
        out, cpu = _child_cpu(lambda: subprocess.run([sys.executable, "-c", _COLD], env=env, capture_output=True,
                                                     text=True, check=True))
    return float(out.stdout.strip().splitlines()[-1]), cpu


def _cli() -> list[str]:
    return [sys.executable, "-m", "cya_sim.cli"]


def cold_tournament_seconds() -> tuple[float, float]:
    """(wall seconds, CPU seconds) of ``cya-sim tournament`` (the default tournament) with empty caches.

    Default workers, results into a temporary folder, every process's CPU time counted.
    """
    with tempfile.TemporaryDirectory() as d:
        env = dict(os.environ, NUMBA_CACHE_DIR=d, CYA_SIM_CACHE_DIR=d)
        t0 = time.perf_counter()
        _, cpu = _child_cpu(lambda: subprocess.run(_cli() + ["tournament", "--quiet", "--out", str(Path(d) / "out")],
                                                   env=env, capture_output=True, text=True, check=True))
        return time.perf_counter() - t0, cpu


def plugin_edit_loop() -> dict:
    """Wall seconds of the plug-in edit loop of a user (module docstring), engine cache warm.

    The README's plug-in example is written under a module name no earlier run used (a fresh
    process compiles its C entry and the user's function, nothing else), a 400-game 4-player
    tournament is run with it, one line of it is changed (the most valuable set now wins ties by the
    highest id) and the tournament is run again; ``cli_warm_run_wall_s`` is the same command with
    ``greedy,random`` only.
    """
    import uuid

    def run(agents: str, folder: Path, env: dict) -> float:
        t0 = time.perf_counter()
        subprocess.run(_cli() + ["tournament", "--quiet", "--agents", agents, "--players", "4", "--games", "400",
                                 "--workers", "1", "--out", str(folder)], env=env, capture_output=True, text=True,
                       check=True)
        return time.perf_counter() - t0

    out = {}
    with tempfile.TemporaryDirectory() as d:
        name = f"cya_bench_plugin_{uuid.uuid4().hex[:10]}"
        src = plugin_example_source()
        path = Path(d) / f"{name}.py"
        path.write_text(src)
        env = dict(os.environ, PYTHONPATH=os.pathsep.join([d] + [p for p in sys.path if p]))
        out["cli_warm_run_wall_s"] = run("greedy,random", Path(d) / "warm", env)
        out["plugin_first_run_wall_s"] = run(f"{name}:decide,greedy", Path(d) / "first", env)
        edited = src.replace("if v > best_v:", "if v >= best_v:")
        if edited == src:
            raise RuntimeError("agents/README.md's plug-in example changed; update plugin_edit_loop's edit")
        path.write_text(edited)
        out["plugin_edit_rerun_wall_s"] = run(f"{name}:decide,greedy", Path(d) / "edited", env)
    return out


def plugin_example_source() -> str:
    """The compiled plug-in example of ``agents/README.md`` (the code block after ``<!-- plugin-example -->``)."""
    import re

    text = (Path(__file__).resolve().parents[2] / "agents" / "README.md").read_text()
    m = re.search(r"<!-- plugin-example -->\s*```python\n(.*?)```", text, re.DOTALL)
    if not m:
        raise RuntimeError("agents/README.md has no plug-in example")
    return m.group(1)


#: Alternating runs of ``greedy`` x4 and each strategy agent x4 behind ``<agent>_vs_greedy_x4`` (their median).
PAIRS = 3


def _games_per_cpu_s(rules, spec: str, games: int, key, batch_size: int) -> float:
    """Games per CPU second of ``spec`` in every seat of ``games`` 4-player games on the batched engine (games
    ``0 .. games - 1`` of ``key``: the same games at every call)."""
    from cya_sim.play.classic.batched import play_games

    _, cpu, _ = _timed(lambda: play_games(rules, [spec], _seats(games), key, np.arange(games, dtype=np.int64),
                                          batch_size=batch_size))
    return games / cpu


def _strategy_rates(rules, key, games: int, batch_size: int) -> dict:
    """games/s of card_counter x4 and of the README's plug-in example x4 (from a temporary module), and their ratios
    to ``greedy`` x4 in :data:`PAIRS` alternating runs on the same games (the median of the pairs' ratios)."""
    from cya_sim.play.classic.batched import play_games

    out = {}
    with tempfile.TemporaryDirectory() as d:
        (Path(d) / "cya_bench_my_policy.py").write_text(plugin_example_source())
        sys.path.insert(0, d)
        try:
            for label, spec in (("card_counter_x4", "card_counter"), ("plugin_example_x4", "cya_bench_my_policy:decide")):
                play_games(rules, [spec], _seats(2), key, np.arange(2))  # compile (or load the cache) first
                pairs = [(_games_per_cpu_s(rules, "greedy", games, key, batch_size),
                          _games_per_cpu_s(rules, spec, games, key, batch_size)) for _ in range(PAIRS)]
                out[f"{label}_games_s"] = float(np.median([r for _, r in pairs]))
                out[f"{label}_paired_greedy_x4_games_s"] = float(np.median([g for g, _ in pairs]))
                out[f"{label}_vs_greedy_x4_pairs"] = [r / g for g, r in pairs]
                out[f"{label}_vs_greedy_x4"] = float(np.median(out[f"{label}_vs_greedy_x4_pairs"]))
        finally:
            sys.path.remove(d)
            sys.modules.pop("cya_bench_my_policy", None)
    out["strategy_games"] = games
    return out


#: The learned plug-in of the ``learned_4p_vs_card_counter`` rate (agents/learned_models/, a 173-64-64-91 MLP).
LEARNED_4P = "agents.learned_models.classic_4p:decide"


def _learned_rate(rules, key, games: int, batch_size: int) -> dict:
    """games/s of the learned 4-player plug-in (:data:`LEARNED_4P`) in one seat against ``card_counter`` in the other
    three, the learned seat rotated game by game, per CPU second after a first call that compiles or loads it
    (``learned_4p_load_s``, wall seconds of that call, two games)."""
    from cya_sim.play.classic.batched import play_games

    agents = [LEARNED_4P, "card_counter"]
    idx = np.arange(games, dtype=np.int64)
    seats = np.ones((games, 4), np.int16)
    seats[idx, idx % 4] = 0
    _, _, load = _timed(lambda: play_games(rules, agents, seats[:2], key, idx[:2]))
    _, cpu, _ = _timed(lambda: play_games(rules, agents, seats, key, idx, batch_size=batch_size))
    return {"learned_4p_vs_card_counter_games_s": games / cpu, "learned_4p_games": games, "learned_4p_load_s": load}


BASELINE = Path(__file__).resolve().parents[2] / "experiments" / "baseline.toml"


def _baseline_rate(games: int) -> dict:
    """Games per CPU second of ``experiments/baseline.toml``'s line-ups, and its estimated time on 2 idle cores.

    The file's round robin without repeats: every 4 of its agents, seats rotated, ``games / n_lineups``
    games each, on its rules, in this process (one core; the run pipeline's writing and reports are
    not counted). ``baseline_est_2core_s`` = the file's games / rate / 2 (its two worker processes on
    two idle cores), seconds.
    """
    import itertools
    import tomllib

    from cya_sim.game.rng import root_key
    from cya_sim.game.rules import get_rules
    from cya_sim.play.classic.batched import play_games

    spec = tomllib.loads(BASELINE.read_text())
    agents, p = spec["agents"], int(spec["players"])
    rules = get_rules(spec["rules"]["preset"])
    key = root_key(int(spec["seed"]))
    lineups = list(itertools.combinations(range(len(agents)), p))
    per = max(1, games // len(lineups))
    play_games(rules, agents, np.array([lineups[0]], np.int16), key, np.arange(1))  # compile / load the cache
    cpu = 0.0
    for li, lu in enumerate(lineups):
        idx = np.arange(li * per, (li + 1) * per, dtype=np.int64)
        sa = np.array(lu, np.int16)[(np.arange(p)[None, :] + idx[:, None]) % p]
        _, c, _ = _timed(lambda sa=sa, idx=idx: play_games(rules, agents, sa, key, idx))
        cpu += c
    rate = per * len(lineups) / cpu
    return {"baseline_games": per * len(lineups), "baseline_games_s": rate,
            "baseline_est_2core_s": int(spec["games"]) / rate / 2}


def _seats(games: int) -> np.ndarray:
    return np.zeros((games, 4), np.int16)


def _no_ceiling_note() -> str:
    """The note of a run without a ceiling loop."""
    return (f"ceiling not measured: no --ceiling PATH given and no {SIBLING_CEILING} "
            f"(with --json: ceiling_games_per_s and the ratios to it are null)")


@contextlib.contextmanager
def _ceiling_loop(ceiling: Path) -> Iterator[Callable[[int], float]]:
    """The ceiling loop's speed as a function of the games to play (games per CPU second), while the context lasts.

    The file is copied to a temporary folder and imported from there, so that
    numba's disk cache of it is fresh for this run: a cache left beside the
    file by another kind of import cannot be loaded (numba re-imports
    the module by name), and the file's folder is not written to. It is compiled (one game) on entry.
    """
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "cya_bench_ceiling.py"
        shutil.copyfile(ceiling, path)
        spec = importlib.util.spec_from_file_location("cya_bench_ceiling", path)
        mod = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = mod  # numba looks the module up by name
        try:
            spec.loader.exec_module(mod)
            mod.play_game(0, 4, mod.VAL, mod.COUNT)

            def rate(games: int) -> float:
                def loop():
                    for s in range(games):
                        mod.play_game(s, 4, mod.VAL, mod.COUNT)

                _, cpu, _ = _timed(loop)
                return games / cpu

            yield rate
        finally:
            sys.modules.pop(spec.name, None)


def _tournament(games: int, agents: list[str], workers: int | None, seed: int) -> dict:
    """Wall time and memory of a ``games``-game classic 4-player tournament (its default workers: every core, one for
    a run of at most 20,000 games), measured in a fresh process (:func:`_tournament_here`): the peak RSS is the
    largest of that process (:func:`_own_peak_mb`) and its workers, not of a process an earlier measurement of this
    run started (a cold compile's, for instance), nor this one's."""
    code = (f"import json; from cya_sim.studies.bench import _tournament_here; "
            f"print(json.dumps(_tournament_here({games}, {agents!r}, {workers!r}, {seed})))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def _tournament_here(games: int, agents: list[str], workers: int | None, seed: int) -> dict:
    """:func:`_tournament` in this process: wall seconds, workers, engine and the peak RSS (MB) of this process and
    its worker processes."""
    try:
        from cya_sim.studies.tournament import TournamentConfig, run_tournament
    except ImportError:
        run_tournament = None
    t0 = time.perf_counter()
    if run_tournament is not None:
        res = run_tournament(TournamentConfig(rules="classic", agents=tuple(agents), n_players=4, games=games,
                                              seed=seed, engine="batched", workers=workers), progress=False)
        n_workers, engine, how = res.workers, res.engine, "cya_sim.studies.tournament.run_tournament"
    else:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        n_workers = workers or os.cpu_count() or 1
        chunks = [(a, min(a + 50_000, games)) for a in range(0, games, 50_000)]
        ctx = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(n_workers, mp_context=ctx) as pool:
            list(pool.map(_play_chunk, [(a, b, agents, seed) for a, b in chunks]))
        engine, how = "batched", "bench process pool (cya_sim.studies.tournament not available)"
    wall = time.perf_counter() - t0
    return {"tournament_games": games, "tournament_wall_s": wall, "tournament_workers": n_workers,
            "tournament_engine": engine, "tournament_via": how,
            "tournament_peak_rss_mb": max(_rss_mb(resource.RUSAGE_CHILDREN), _own_peak_mb())}


def _play_chunk(task) -> int:
    from cya_sim.game.rng import root_key
    from cya_sim.game.rules import get_rules
    from cya_sim.play.classic.batched import play_games

    a, b, agents, seed = task
    idx = np.arange(a, b, dtype=np.int64)
    sa = (np.arange(4)[None, :] + idx[:, None]) % len(agents)
    play_games(get_rules("classic"), agents, sa, root_key(seed), idx)
    return b - a


def measure(args: argparse.Namespace) -> dict:
    """Run every measurement of the module docstring; a JSON-ready dict."""
    from cya_sim.game.rng import root_key
    from cya_sim.game.rules import get_rules
    from cya_sim.play.classic.batched import play_games as batched
    from cya_sim.play.classic.reference import play_games as reference

    rules = get_rules("classic")
    key = root_key(args.seed)
    notes = []
    out: dict = {"rules": rules.name, "players": 4, "agents": "greedy x4", "target_score": rules.target_score}
    out["compile_s"], out["compile_cpu_s"] = (None, None) if args.no_compile else cold_compile_seconds()
    if not args.no_compile:
        out["cold_tournament_wall_s"], out["cold_tournament_cpu_s"] = cold_tournament_seconds()
    else:
        out["cold_tournament_wall_s"] = out["cold_tournament_cpu_s"] = None
        out["plugin_first_run_wall_s"] = out["plugin_edit_rerun_wall_s"] = out["cli_warm_run_wall_s"] = None
        notes.append("the cold compile, the cold tournament and the plug-in edit loop skipped (--no-compile)")
    _, out["cache_load_s"], _ = _timed(lambda: batched(rules, ["greedy"], _seats(1), key, np.arange(1)))

    g = args.games
    table, cpu, wall = _timed(lambda: batched(rules, ["greedy"], _seats(g), key, np.arange(g, dtype=np.int64),
                                              batch_size=args.batch_size))
    out.update(engine_games=g, engine_cpu_s=cpu, engine_wall_s=wall, engine_games_per_s=g / cpu,
               engine_games_per_wall_s=g / wall, decisions_per_s=float(table.decisions.sum()) / cpu,
               decisions_per_game=float(table.decisions.mean()), rounds_per_game=float(table.rounds.mean()))

    r = args.reference_games
    rtable, rcpu, _ = _timed(lambda: reference(rules, ["greedy"], _seats(r), key, np.arange(r, dtype=np.int64)))
    out.update(reference_games=r, reference_cpu_s=rcpu, reference_games_per_s=r / rcpu,
               reference_decisions_per_s=float(rtable.decisions.sum()) / rcpu)
    same = table.totals[:r].tolist() == rtable.totals.tolist() if r <= g else None
    out["reference_same_results"] = same
    out["engine_vs_reference"] = out["engine_games_per_s"] / out["reference_games_per_s"]

    ceiling = ceiling_path(getattr(args, "ceiling", None))
    out["ceiling"] = None if ceiling is None else str(ceiling)
    out["greedy_x4_games_s"] = out["engine_games_per_s"]
    if ceiling is None:
        notes.append(_no_ceiling_note())
        out["ceiling_games_per_s"] = out["engine_vs_ceiling"] = out["greedy_x4_vs_ceiling"] = None
    else:  # side by side: PAIRS alternating runs of greedy x4 (the engine) and the ceiling, the same game count
        cg = args.ceiling_games
        with _ceiling_loop(ceiling) as ceiling_rate:
            pairs = [(_games_per_cpu_s(rules, "greedy", cg, key, args.batch_size), ceiling_rate(cg))
                     for _ in range(PAIRS)]
        notes.append(f"ceiling: {ceiling}")
        out["ceiling_games_per_s"] = float(np.median([c for _, c in pairs]))
        out["ceiling_paired_greedy_x4_games_s"] = float(np.median([g for g, _ in pairs]))
        out["greedy_x4_vs_ceiling_pairs"] = [g / c for g, c in pairs]
        out["greedy_x4_vs_ceiling"] = out["engine_vs_ceiling"] = float(np.median(out["greedy_x4_vs_ceiling_pairs"]))
    if args.strategy_games > 0:
        out.update(_strategy_rates(rules, key, args.strategy_games, args.batch_size))
        out.update(_learned_rate(rules, key, max(1, args.strategy_games // 2), args.batch_size))
    if not args.no_compile:
        out.update(plugin_edit_loop())
    if args.baseline_games > 0:
        out.update(_baseline_rate(args.baseline_games))
    if not args.no_search:
        from cya_sim.search.classic.bench import mcts_speed

        m = mcts_speed(args.mcts_iterations)
        # per CPU second of this process (per core), like the games/s above: wall rates on a shared machine
        # measure the other processes too
        out["ismcts_greedy_iterations_s"] = m["ismcts_iterations_per_cpu_s"]
        out["ismcts_card_counter_iterations_s"] = m["ismcts_card_counter_rollout_iterations_per_cpu_s"]
        out["ismcts_greedy_iterations_wall_s"] = m["ismcts_iterations_per_s"]
        out["pimc_greedy_rollouts_s"] = m["pimc_rollouts_per_s"]
    out["peak_rss_mb"] = _rss_mb()

    if args.tournament_games > 0:
        agents = list(tournament_agents(args.tournament_agents))
        out.update(_tournament(args.tournament_games, agents, args.workers, args.seed))
        out["tournament_agents"] = agents
    else:
        notes.append("tournament skipped (--tournament-games 0)")
    out["cpu_count"] = os.cpu_count()
    out["load_average_1min"] = os.getloadavg()[0]
    out["notes"] = notes
    return out


def rules_speed(preset: str, games: int, reference_games: int, batch_size: int, seed: int) -> dict:
    """Greedy x P on ``preset`` and on ``classic`` at the same P, measured in this run (module docstring).

    Returns a JSON-ready dict: ``rules``, ``players``, ``games``, ``<label>_games_s``,
    ``<label>_decisions_s``, ``<label>_decisions_per_game``, ``<label>_reference_games_s`` for the labels
    ``rules`` and ``classic`` (per CPU second of this process), ``<label>_random_games_s`` (random in
    every seat, a quarter of ``games``), ``vs_classic_games``, ``vs_classic_decisions`` and
    ``vs_classic_random`` (batched rates, preset / classic), and the same figures under names that say what
    they compare: ``<preset>_greedy_x<P>_games_s``, ``classic_greedy_x<P>_games_s``,
    ``<preset>_greedy_x<P>_vs_classic`` (e.g. ``advanced_greedy_x4_vs_classic``, goal >= 0.5) and
    ``<preset>_random_x<P>_vs_classic``. P is 4 clamped to the preset's ``min_players..max_players``.

    Raises:
        RulesError: unknown preset or one the batched engine does not play.
    """
    from cya_sim.game.rng import root_key
    from cya_sim.game.rules import RulesError, RuleSet, get_rules
    from cya_sim.play.classic.batched import play_games as batched
    from cya_sim.play.classic.reference import play_games as reference

    rules = get_rules(preset)
    if not isinstance(rules, RuleSet):
        raise RulesError(f"--rules {preset!r}: the batched engine plays the classic family only "
                         "(classic, guide, basic, advanced and the drafts)")
    p = min(max(4, rules.min_players), rules.max_players)
    key = root_key(seed)
    seats = np.zeros((games, p), np.int16)
    out: dict = {"rules": preset, "players": p, "agents": f"greedy x{p}", "games": games,
                 "reference_games": reference_games}
    for label, r in (("rules", rules), ("classic", get_rules("classic"))):
        batched(r, ["greedy"], seats[:1], key, np.arange(1))  # compile or load the cache first
        table, cpu, _ = _timed(lambda r=r: batched(r, ["greedy"], seats, key, np.arange(games, dtype=np.int64),
                                                   batch_size=batch_size))
        out[f"{label}_games_s"] = games / cpu
        out[f"{label}_decisions_s"] = float(table.decisions.sum()) / cpu
        out[f"{label}_decisions_per_game"] = float(table.decisions.mean())
        if reference_games > 0:
            _, rcpu, _ = _timed(lambda r=r: reference(r, ["greedy"], seats[:reference_games], key,
                                                      np.arange(reference_games, dtype=np.int64)))
            out[f"{label}_reference_games_s"] = reference_games / rcpu
        rg = max(1, games // 4)  # random x P: the engine's own cost (legal lists and rules)
        batched(r, ["random"], seats[:1], key, np.arange(1))
        _, rcpu, _ = _timed(lambda r=r, rg=rg: batched(r, ["random"], seats[:rg], key,
                                                       np.arange(rg, dtype=np.int64), batch_size=batch_size))
        out[f"{label}_random_games_s"] = rg / rcpu
    out["vs_classic_games"] = out["rules_games_s"] / out["classic_games_s"]
    out["vs_classic_decisions"] = out["rules_decisions_s"] / out["classic_decisions_s"]
    out["vs_classic_random"] = out["rules_random_games_s"] / out["classic_random_games_s"]
    # the same ratios under names that say what they compare (goal: >= 0.5x the classic engine rate)
    out[f"{preset}_greedy_x{p}_games_s"] = out["rules_games_s"]
    out[f"classic_greedy_x{p}_games_s"] = out["classic_games_s"]
    out[f"{preset}_greedy_x{p}_vs_classic"] = out["vs_classic_games"]
    out[f"{preset}_random_x{p}_vs_classic"] = out["vs_classic_random"]
    out["load_average_1min"] = os.getloadavg()[0]
    return out


def run(args: argparse.Namespace) -> int:
    """Run the benchmark and print it (``--json``: one JSON object). Returns the exit code 0."""
    if getattr(args, "rules", None):
        from cya_sim.studies.bench_theft import is_theft_preset, theft_speed, theft_text

        if is_theft_preset(args.rules):  # the theft game (RULES.md §9): compiled against its reference engine
            agents = tournament_agents(args.tournament_agents)
            res = theft_speed(args.rules, args.games, args.reference_games, args.batch_size, args.seed,
                              args.tournament_games, agents, args.workers, compile_cold=not args.no_compile)
            print(json.dumps(res, indent=1) if args.json else theft_text(res))
            return 0
        res = rules_speed(args.rules, args.games, args.reference_games, args.batch_size, args.seed)
        if args.json:
            print(json.dumps(res, indent=1))
        else:
            print(f"cya-sim bench --rules {res['rules']}: greedy x{res['players']}, per CPU second: "
                  f"{res['rules_games_s']:,.0f} games/s ({res['rules_decisions_s']:,.0f} decisions/s) against "
                  f"classic {res['classic_games_s']:,.0f} games/s ({res['classic_decisions_s']:,.0f} decisions/s) at "
                  f"{res['players']} players: {res['vs_classic_games']:.2f}x games/s, "
                  f"{res['vs_classic_decisions']:.2f}x decisions/s; random x{res['players']} "
                  f"{res['vs_classic_random']:.2f}x games/s")
        return 0
    if getattr(args, "mcts", False):
        from cya_sim.search.classic.bench import mcts_speed

        res = mcts_speed(args.mcts_iterations)
        if args.json:
            print(json.dumps(res, indent=1))
        else:
            print(f"cya-sim bench --mcts: ISMCTS {res['ismcts_iterations_per_s']:,.0f} iterations/s per core "
                  f"({res['ismcts_ms_per_1000_iterations']:.1f} ms per 1,000), PIMC "
                  f"{res['pimc_rollouts_per_s']:,.0f} rollouts/s; 4-player classic mid-game position")
        return 0
    if getattr(args, "env", False):
        from cya_sim.env.bench import env_speed

        res = env_speed(num_envs=args.batch_size, seconds=args.env_seconds, seed=args.seed)
        if args.json:
            print(json.dumps(res, indent=1))
        else:
            print(f"cya-sim bench --env: vector env {res['vector_steps_per_s']:,.0f} learner steps/s "
                  f"({res['vector_num_envs']} games at once), SyncVectorEnv {res['sync_steps_per_s']:,.0f} steps/s "
                  f"({res['sync_num_envs']} envs): {res['vector_vs_sync']:.1f}x; per CPU second")
        return 0
    res = measure(args)
    if args.json:
        print(json.dumps(res, indent=1))
        return 0

    def f(v, fmt="{:,.0f}"):
        return "n/a" if v is None else fmt.format(v)

    print(f"cya-sim bench: {res['rules']}, 4 players, greedy in every seat, games to $1,000,000")
    print(f"  batched engine    {f(res['engine_games_per_s'])} games/s per core "
          f"({f(res['decisions_per_s'])} decisions/s; {res['engine_games']:,} games)")
    if "rules_vs_classic_games" in res:
        print(f"  vs classic        {f(res['classic_games_per_s'])} classic games/s: "
              f"{res['rules_vs_classic_games']:.2f}x the games/s, {res['rules_vs_classic_decisions']:.2f}x the "
              f"decisions/s; random x4 {res['rules_vs_classic_random_x4']:.2f}x classic's")
    same = {True: "the same results", False: "DIFFERENT RESULTS", None: "not compared"}[res["reference_same_results"]]
    print(f"  reference engine  {f(res['reference_games_per_s'], '{:,.1f}')} games/s per core "
          f"({res['reference_games']:,} games; {same} as the batched engine)")
    print(f"  ceiling loop      {f(res['ceiling_games_per_s'])} games/s per core"
          + ("" if res.get("ceiling") else " (not measured: no ceiling file; see the note below)"))
    print(f"  ratios            {f(res['engine_vs_reference'], '{:,.0f}')}x reference, "
          + ("ceiling not measured" if res["engine_vs_ceiling"] is None else
             f"{res['engine_vs_ceiling']:.2f}x ceiling (side by side: greedy x4 "
             f"{f(res['ceiling_paired_greedy_x4_games_s'])} games/s)"))
    if "card_counter_x4_games_s" in res:
        print(f"  card_counter x4   {f(res['card_counter_x4_games_s'])} games/s per core "
              f"({res['card_counter_x4_vs_greedy_x4']:.2f}x greedy x4 side by side, "
              f"{f(res['card_counter_x4_paired_greedy_x4_games_s'])} games/s)")
        print(f"  plug-in example   {f(res['plugin_example_x4_games_s'])} games/s per core "
              f"({res['plugin_example_x4_vs_greedy_x4']:.2f}x greedy x4 side by side, "
              f"{f(res['plugin_example_x4_paired_greedy_x4_games_s'])} games/s; agents/README.md)")
    if "learned_4p_vs_card_counter_games_s" in res:
        print(f"  learned 4p x1     {f(res['learned_4p_vs_card_counter_games_s'])} games/s per core against "
              f"card_counter x3 ({LEARNED_4P}; loaded in {res['learned_4p_load_s']:.1f} s)")
    if "baseline_est_2core_s" in res:
        print(f"  baseline.toml     {f(res['baseline_games_s'])} games/s per core, 1,000,000 games ~"
              f"{res['baseline_est_2core_s']:.0f} s on 2 idle cores (games only)")
    if "ismcts_greedy_iterations_s" in res:
        print(f"  ISMCTS            {f(res['ismcts_greedy_iterations_s'])} iterations/s (greedy rollouts), "
              f"{f(res['ismcts_card_counter_iterations_s'])} (card_counter rollouts)")
    print("  compile           " + ("cold not measured (--no-compile)" if res["compile_s"] is None else
                                   f"{res['compile_s']:.1f} s cold") + f", {res['cache_load_s']:.2f} s from cache")
    if res.get("cold_tournament_wall_s") is not None:
        print(f"  cold tournament   {res['cold_tournament_wall_s']:.1f} s wall (the default tournament, empty caches)")
        print(f"  plug-in edit loop {res['plugin_first_run_wall_s']:.1f} s first run, {res['plugin_edit_rerun_wall_s']:.1f} s "
              f"after an edit ({res['cli_warm_run_wall_s']:.1f} s for the same command with greedy,random)")
    print(f"  peak RSS          {res['peak_rss_mb']:.0f} MB")
    if "tournament_wall_s" in res:
        print(f"  tournament        {res['tournament_games']:,} games in {res['tournament_wall_s']:.1f} s wall on "
              f"{res['tournament_workers']} worker{'s' if res['tournament_workers'] != 1 else ''}, "
              f"peak RSS {res['tournament_peak_rss_mb']:.0f} MB")
    for n in res["notes"]:
        print(f"  note: {n}")
    return 0
