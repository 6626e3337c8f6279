"""Benchmarks of the search agents: speed of ISMCTS/PIMC and strength in 4-player classic games.

Speed (``mcts_speed``): one fixed 4-player classic mid-game position (game 0
of root key 12345, after 30 ``greedy`` actions of round 1), one warm-up
search (compilation excluded), then ISMCTS with ``iterations`` iterations,
timed on one core; likewise PIMC rollouts. Strength (``strength``): whole
games on the reference engine, seats rotated (every line-up played in all P
rotations), with 95% Wilson intervals of each agent's win share (R-TIE
``share``), games played in worker processes.

Run ``python -m cya_sim.search.classic.bench speed`` or
``python -m cya_sim.search.classic.bench strength --lineup ismcts,greedy,greedy,greedy --games 200``.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor, as_completed

import numpy as np

#: Agents the strength benchmark can seat, by name.
AGENT_NAMES = ("ismcts", "pimc", "greedy", "card_counter", "random")


def mid_game_observation():
    """The speed benchmark's position: (observation of the seat to act, its game state)."""
    from agents.classic.greedy import GreedyAgent
    from cya_sim.engine.classic.reference import apply_action, new_game
    from cya_sim.engine.classic.reference.observation import observe
    from cya_sim.game.rules import get_rules

    state = new_game(get_rules("classic"), 4, 12345, 0)
    g = GreedyAgent()
    for _ in range(30):
        apply_action(state, g.act(observe(state, state.to_act), None))
    return observe(state, state.to_act), state


def mcts_speed(iterations: int = 20_000, repeats: int = 3) -> dict:
    """ISMCTS iterations and PIMC rollouts per second on one core in the mid-game position.

    Returns a dict with ``ismcts_iterations_per_s`` (wall clock, best of
    ``repeats``), ``ismcts_ms_per_1000_iterations``,
    ``ismcts_iterations_per_cpu_s`` (per second of CPU time the process got:
    the per-core rate on a shared machine), ``pimc_rollouts_per_s``,
    ``ismcts_card_counter_rollout_iterations_per_s`` (ISMCTS with
    ``rollout="card_counter"``, ``iterations // 4`` per search; ``..._per_cpu_s`` per CPU second); the other keys
    are the default configuration, ``greedy`` rollouts),
    ``ismcts_compile_s`` (first call, including loading the on-disk cache),
    ``rollout_actions_per_iteration``, ``position`` (what was searched).
    """
    from cya_sim.search.classic import ismcts_search, pimc_search

    obs, _ = mid_game_observation()
    t = time.perf_counter()
    ismcts_search(obs, iterations=10)
    pimc_search(obs, iterations=10)
    compile_s = time.perf_counter() - t
    best = cpu_best = math.inf
    steps = 0
    for r in range(repeats):
        c0 = time.process_time()
        res = ismcts_search(obs, iterations=iterations, seed=r)
        cpu_best = min(cpu_best, time.process_time() - c0)
        if res.elapsed_s < best:
            best, steps = res.elapsed_s, res.rollout_actions
    pbest = math.inf
    for r in range(repeats):
        pbest = min(pbest, pimc_search(obs, iterations=iterations, seed=r).elapsed_s)
    ismcts_search(obs, iterations=10, rollout="card_counter")
    cc_n = max(1, iterations // 4)
    cc_best = cc_cpu = math.inf
    for r in range(repeats):
        c0 = time.process_time()
        cc_best = min(cc_best, ismcts_search(obs, iterations=cc_n, rollout="card_counter", seed=r).elapsed_s)
        cc_cpu = min(cc_cpu, time.process_time() - c0)
    return {
        "ismcts_iterations_per_s": iterations / best,
        "ismcts_ms_per_1000_iterations": 1000.0 * best / iterations * 1000.0,
        "ismcts_iterations_per_cpu_s": iterations / cpu_best,
        "pimc_rollouts_per_s": iterations / pbest,
        "ismcts_card_counter_rollout_iterations_per_s": cc_n / cc_best,
        "ismcts_card_counter_rollout_iterations_per_cpu_s": cc_n / cc_cpu,
        "ismcts_compile_s": compile_s,
        "rollout_actions_per_iteration": steps / iterations,
        "iterations": iterations,
        "load_average_1min": os.getloadavg()[0],
        "position": {"preset": "classic", "players": 4, "round": obs.round, "draw_size": obs.draw_size,
                     "seat": obs.seat, "legal_actions": int(obs.legal_action_mask.sum())},
    }


def make_agent(name: str, iterations: int, seed: int):
    """An agent object by name (search agents with ``iterations`` per decision; ``ismcts@C[@U]`` sets c_ucb = C, utility = U).

    Raises:
        ValueError: ``name`` not in :data:`AGENT_NAMES`.
    """
    if name == "ismcts" or name.startswith("ismcts@"):
        from cya_sim.search.classic.agent import ISMCTSAgent
        parts = name.split("@")  # ismcts@C[@utility]: another UCB constant and utility
        kw = {"c_ucb": float(parts[1])} if len(parts) > 1 else {}
        if len(parts) > 2:
            kw["utility"] = parts[2]
        return ISMCTSAgent(iterations=iterations, seed=seed, **kw)
    if name == "pimc":
        from cya_sim.search.classic.agent import PIMCAgent
        return PIMCAgent(iterations=iterations, seed=seed)
    if name == "card_counter":
        from agents.classic.card_counter import CardCounterAgent
        return CardCounterAgent()
    if name in ("greedy", "random"):
        from agents.classic.registry import make_agent as mk
        return mk(name)
    raise ValueError(f"agent {name!r} is not known here; choose one of: {', '.join(AGENT_NAMES)}")


def _play_one(lineup: tuple[str, ...], game: int, key: int, iterations: int) -> dict:
    """One game with ``lineup`` rotated by ``game % P``; returns per-seat agents, win shares, timing."""
    from cya_sim.engine.classic.reference import play_game
    from cya_sim.game.rules import get_rules

    p = len(lineup)
    rot = game % p
    seats = [lineup[(s - rot) % p] for s in range(p)]
    agents = [make_agent(n, iterations, seed=game * p + s) for s, n in enumerate(seats)]
    t = time.perf_counter()
    r = play_game(get_rules("classic"), agents, key, game)
    ms = {}
    for a, n in zip(agents, seats):
        if hasattr(a, "avg_time_per_decision_ms"):
            ms.setdefault(n, []).append(a.avg_time_per_decision_ms)
    return {"game": game, "seats": seats, "share": list(r.win_shares), "totals": list(r.totals),
            "wall_s": time.perf_counter() - t, "ms_per_decision": {k: float(np.mean(v)) for k, v in ms.items()}}


def wilson(successes: float, n: int, z: float = 1.959963984540054) -> tuple[float, float]:
    """95% Wilson score interval of a proportion (``successes`` may be fractional: shared wins)."""
    if n == 0:
        return (0.0, 1.0)
    ph = successes / n
    d = 1 + z * z / n
    c = (ph + z * z / (2 * n)) / d
    h = z * math.sqrt(ph * (1 - ph) / n + z * z / (4 * n * n)) / d
    return (max(0.0, c - h), min(1.0, c + h))


def strength(lineup: tuple[str, ...], games: int, iterations: int = 1000, workers: int = 2, key: int = 20261129,
             first_game: int = 0, progress: bool = True) -> dict:
    """Play ``games`` 4-player classic games of ``lineup`` (rotated), return win shares with 95% intervals.

    Each line of the result's ``table`` is one distinct agent of the line-up:
    seats it held, summed win share, win rate (share per seat-game), its
    Wilson interval, mean ms per decision (search agents).
    """
    t0 = time.perf_counter()
    rows = []
    with ProcessPoolExecutor(max_workers=workers) as ex:
        futs = [ex.submit(_play_one, tuple(lineup), g, key, iterations) for g in range(first_game, first_game + games)]
        for i, f in enumerate(as_completed(futs)):
            rows.append(f.result())
            if progress:
                print(f"game {i + 1}/{games} done ({time.perf_counter() - t0:.0f} s)", file=sys.stderr, flush=True)
    table = []
    for name in dict.fromkeys(lineup):
        seat_games = 0
        share = 0.0
        ms = []
        for r in rows:
            for s, n in enumerate(r["seats"]):
                if n == name:
                    seat_games += 1
                    share += r["share"][s]
            if name in r["ms_per_decision"]:
                ms.append(r["ms_per_decision"][name])
        lo, hi = wilson(share, seat_games)
        table.append({"agent": name, "seat_games": seat_games, "wins": share, "win_rate": share / seat_games,
                      "ci95": [lo, hi], "ms_per_decision": float(np.mean(ms)) if ms else None})
    return {"lineup": list(lineup), "games": len(rows), "iterations": iterations, "key": key,
            "workers": workers, "wall_s": time.perf_counter() - t0, "table": table, "rows": rows}


def main(argv=None) -> int:
    """Command line: ``speed`` or ``strength`` (prints JSON)."""
    ap = argparse.ArgumentParser(prog="python -m cya_sim.search.classic.bench")
    sub = ap.add_subparsers(dest="cmd", required=True)
    sp = sub.add_parser("speed")
    sp.add_argument("--iterations", type=int, default=20_000)
    sp.add_argument("--json", action="store_true", help="(always JSON; accepted for symmetry with cya-sim bench)")
    st = sub.add_parser("strength")
    st.add_argument("--lineup", default="ismcts,greedy,greedy,greedy")
    st.add_argument("--games", type=int, default=100)
    st.add_argument("--iterations", type=int, default=1000)
    st.add_argument("--workers", type=int, default=min(2, os.cpu_count() or 1))
    st.add_argument("--first-game", type=int, default=0)
    st.add_argument("--out", default=None)
    a = ap.parse_args(argv)
    if a.cmd == "speed":
        print(json.dumps(mcts_speed(a.iterations), indent=1))
        return 0
    lineup = tuple(x.strip() for x in a.lineup.split(","))
    for n in lineup:
        if n.split("@", 1)[0] not in AGENT_NAMES:
            ap.error(f"--lineup: unknown agent {n!r}; choose from: {', '.join(AGENT_NAMES)}")
    res = strength(lineup, a.games, a.iterations, a.workers, first_game=a.first_game)
    text = json.dumps(res, indent=1)
    if a.out:
        with open(a.out, "w") as f:
            f.write(text)
    print(json.dumps({k: v for k, v in res.items() if k != "rows"}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
