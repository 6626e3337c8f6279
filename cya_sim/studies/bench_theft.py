"""``cya-sim bench --rules theft``: the compiled theft engine against the theft reference engine, in one run.

Measured side by side in this process, at 4 players on the ``theft`` preset (or the theft preset named),
per CPU second of this process (one thread: CPU seconds are core-seconds; a shared machine does not
inflate them as it does wall time):

- **compiled**: the batched theft engine (:func:`cya_sim.play.theft.batched.play_theft_games_batched`) with
  ``greedy`` in every seat — games and decisions per CPU second —, and with ``random`` and ``defender``
  in every seat (a quarter of ``--games`` each);
- **reference**: the theft reference play (:func:`cya_sim.play.theft.reference.play_theft_games`, the Python agents on
  the readable engine) on the same ``greedy`` games (``--reference-games``), and whether its results equal the
  compiled engine's on those games;
- **ratio**: compiled / reference games per CPU second;
- **compile**: the cold compile of the theft play loop (:func:`cya_sim.runs.warmup.warm_up` in a fresh process
  with an empty numba cache), wall and CPU seconds, and the load from the disk cache in this process;
- **tournament**: wall seconds of a ``--tournament-games`` (default 1,000,000) 4-player theft tournament
  through :func:`cya_sim.studies.tournament.run_tournament` on ``--workers`` processes (default: every core),
  in memory; ``--tournament-games 0`` skips it.

The 1-minute load average is reported before and after, since the wall times depend on it.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time

import numpy as np

_COLD = """
import time
t0 = time.perf_counter()
from cya_sim.game.rules import get_rules
from cya_sim.runs.warmup import warm_up
warm_up([get_rules({preset!r})], [4], ["greedy", "random", "defender"], "batched")
print(time.perf_counter() - t0)
"""


def is_theft_preset(preset: str) -> bool:
    """Whether ``preset`` names a theft game rule set (RULES.md §9); False for unknown names."""
    from cya_sim.game.rules import RulesError, get_rules

    try:
        return getattr(get_rules(preset), "family", "classic") == "theft"
    except RulesError:
        return False


def _timed(fn):
    c0, w0 = time.process_time(), time.perf_counter()
    out = fn()
    return out, time.process_time() - c0, time.perf_counter() - w0


def cold_compile_seconds(preset: str = "theft") -> tuple[float, float]:
    """(wall seconds, CPU seconds) of importing and compiling the theft play loop in a fresh process with an
    empty numba cache (what a first run on a machine waits for)."""
    import resource

    with tempfile.TemporaryDirectory() as d:
        env = dict(os.environ, NUMBA_CACHE_DIR=d, CYA_SIM_CACHE_DIR=d)
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        out = subprocess.run([sys.executable, "-c", _COLD.format(preset=preset)], env=env, capture_output=True,
                             text=True, check=True)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return float(out.stdout.strip().splitlines()[-1]), cpu


def theft_speed(preset: str = "theft", games: int = 200_000, reference_games: int = 300, batch_size: int = 256,
                seed: int = 1, tournament_games: int = 1_000_000, tournament_agents: tuple[str, ...] = (
                    "greedy", "defender", "random", "greedy"), workers: int | None = None,
                compile_cold: bool = True) -> dict:
    """Every measurement of the module docstring; a JSON-ready dict.

    Keys: ``rules``, ``players``, ``compiled_greedy_games_s``, ``compiled_greedy_decisions_s``,
    ``compiled_random_games_s``, ``compiled_defender_games_s``, ``reference_greedy_games_s``,
    ``reference_greedy_decisions_s``, ``compiled_vs_reference`` (the ratio of games per CPU second),
    ``reference_same_results``, ``compile_s``/``compile_cpu_s`` (None when skipped), ``cache_load_s``,
    ``tournament_games``, ``tournament_wall_s``, ``tournament_workers``, ``tournament_engine``,
    ``load_average_1min_before``/``_after``, ``cpu_count``.

    Raises:
        RulesError: ``preset`` is not a theft rule set.
    """
    from cya_sim.game.rng import root_key
    from cya_sim.game.rules import RulesError, get_rules
    from cya_sim.play.theft.batched import play_theft_games_batched
    from cya_sim.play.theft.reference import play_theft_games

    rules = get_rules(preset)
    if getattr(rules, "family", "classic") != "theft":
        raise RulesError(f"--rules {preset!r} is not a theft game rule set")
    p = min(max(4, rules.min_players), rules.max_players)
    key = root_key(seed)
    out: dict = {"rules": preset, "players": p, "games": games, "reference_games": reference_games,
                 "load_average_1min_before": os.getloadavg()[0], "cpu_count": os.cpu_count()}
    out["compile_s"], out["compile_cpu_s"] = cold_compile_seconds(preset) if compile_cold else (None, None)
    seats = np.zeros((games, p), np.int16)
    _, out["cache_load_s"], _ = _timed(lambda: play_theft_games_batched(rules, ["greedy"], seats[:1], key,
                                                                        np.arange(1)))
    idx = np.arange(games, dtype=np.int64)
    table, cpu, wall = _timed(lambda: play_theft_games_batched(rules, ["greedy"], seats, key, idx,
                                                               batch_size=batch_size))
    out.update(compiled_greedy_games_s=games / cpu, compiled_greedy_decisions_s=float(table.decisions.sum()) / cpu,
               compiled_greedy_wall_games_s=games / wall, decisions_per_game=float(table.decisions.mean()))
    for name in ("random", "defender"):
        g = max(1, games // 4)
        _, c, _ = _timed(lambda n=name, g=g: play_theft_games_batched(rules, [n], seats[:g], key, idx[:g],
                                                                      batch_size=batch_size))
        out[f"compiled_{name}_games_s"] = g / c
    r = reference_games
    rtable, rcpu, _ = _timed(lambda: play_theft_games(rules, ["greedy"], seats[:r], key, idx[:r]))
    out.update(reference_greedy_games_s=r / rcpu, reference_greedy_decisions_s=float(rtable.decisions.sum()) / rcpu)
    sub = play_theft_games_batched(rules, ["greedy"], seats[:r], key, idx[:r])
    out["reference_same_results"] = bool(sub.equals(rtable))
    out["compiled_vs_reference"] = out["compiled_greedy_games_s"] / out["reference_greedy_games_s"]
    if tournament_games > 0:
        from cya_sim.studies.tournament import TournamentConfig, run_tournament

        t0 = time.perf_counter()
        res = run_tournament(TournamentConfig(rules=rules, agents=tuple(tournament_agents), n_players=p,
                                              games=tournament_games, seed=seed, engine="batched", workers=workers),
                             progress=False)
        out.update(tournament_games=tournament_games, tournament_wall_s=time.perf_counter() - t0,
                   tournament_play_s=res.elapsed_s, tournament_workers=res.workers, tournament_engine=res.engine,
                   tournament_agents=list(tournament_agents), tournament_chunk_size=res.chunk_size)
    out["load_average_1min_after"] = os.getloadavg()[0]
    return out


def theft_text(res: dict) -> str:
    """The lines ``cya-sim bench --rules theft`` prints for a :func:`theft_speed` result."""
    def f(v, fmt="{:,.0f}"):
        return "n/a" if v is None else fmt.format(v)

    n = res["players"]
    head = (f"cya-sim bench --rules {res['rules']}: {n} players, per CPU second (load "
            f"{res['load_average_1min_before']:.2f} before, {res['load_average_1min_after']:.2f} after, "
            f"{res['cpu_count']} cores)")
    compiled = (f"  compiled theft engine   greedy x{n} {f(res['compiled_greedy_games_s'])} games/s "
                f"({f(res['compiled_greedy_decisions_s'])} decisions/s; {res['games']:,} games); random "
                f"{f(res['compiled_random_games_s'])}, defender {f(res['compiled_defender_games_s'])} games/s")
    reference = (f"  theft reference engine  greedy x{n} {f(res['reference_greedy_games_s'], '{:,.1f}')} games/s "
                 f"({f(res['reference_greedy_decisions_s'])} decisions/s; {res['reference_games']:,} games; "
                 f"same results: {res['reference_same_results']})")
    ratio = f"  ratio                   {f(res['compiled_vs_reference'], '{:,.0f}')}x the reference per core (target >= 100x)"
    comp = (f"  compile                 {f(res['compile_s'], '{:.1f}')} s cold ({f(res['compile_cpu_s'], '{:.1f}')} "
            f"CPU s), {res['cache_load_s']:.2f} s from the disk cache")
    lines = [head, compiled, reference, ratio, comp]
    if "tournament_wall_s" in res:
        lines.append(f"  tournament              {res['tournament_games']:,} games in {res['tournament_wall_s']:.1f} s "
                     f"wall on {res['tournament_workers']} workers ({res['tournament_engine']} engine, "
                     f"{','.join(res['tournament_agents'])}; target < 60 s)")
    return "\n".join(lines)
