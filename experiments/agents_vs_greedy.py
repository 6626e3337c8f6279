"""Each built-in policy against three ``greedy`` opponents (issue: strategy agents).

4-player classic games, seats rotated, every line-up ``candidate, greedy,
greedy, greedy``; one experiment per candidate (200,000 games by default) run
through the ordinary experiment runner, so its results folder holds the
usual REPORT.md. Writes ``experiments/agents_vs_greedy.md``: the candidate's
win rate with a 95% Wilson interval (a fair share is 25%), its mean final
total, and the games per second of that line (wall time of the run, all
workers).

    python experiments/agents_vs_greedy.py                  # 200,000 games per line
    python experiments/agents_vs_greedy.py --games 20000 --out /tmp/t.md
"""

from __future__ import annotations

import argparse
import shutil
import time
from pathlib import Path

import pandas as pd

from cya_sim.reports.report import build_report
from cya_sim.runs.experiment import parse_experiment
from cya_sim.runs.runner import run_experiment

CANDIDATES = ["wild_hoarder", "card_counter", "heuristic(count=true)", "heuristic(backup=true)", "random"]
HERE = Path(__file__).resolve().parent


def run_line(candidate: str, games: int, seed: int, out_root: Path) -> dict:
    """Play one line and return its row of the table."""
    slug = "".join(ch if ch.isalnum() else "_" for ch in candidate).strip("_")
    folder = out_root / slug
    if folder.exists():
        shutil.rmtree(folder)
    exp = parse_experiment({
        "name": f"vs_greedy_{slug}", "seed": seed, "games": games, "players": 4,
        "agents": sorted({candidate, "greedy"}), "out": str(folder),
        "rules": {"preset": "classic"},
        "design": {"kind": "explicit", "tables": [[candidate, "greedy", "greedy", "greedy"]]},
    }, base_dir=HERE)
    t0 = time.perf_counter()
    result = run_experiment(exp, progress=True, command=f"python experiments/agents_vs_greedy.py ({candidate})")
    wall = time.perf_counter() - t0
    build_report(folder)
    summary = pd.read_csv(folder / "summary.csv")
    row = summary[summary["agent"] == candidate].iloc[0]
    return {
        "agent": candidate, "games": games, "seat_games": int(row["seat_games"]),
        "win_rate": row["seat_share"], "ci_low": row["seat_share_ci_low"], "ci_high": row["seat_share_ci_high"],
        "mean_total": row["mean_total"], "games_per_s": games / wall, "engine": result.engine,
    }


def main(argv: list[str] | None = None) -> int:
    """Run every line and write the markdown table."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=200_000, help="games per line (default 200,000)")
    ap.add_argument("--seed", type=int, default=4)
    ap.add_argument("--out", default=str(HERE / "agents_vs_greedy.md"), help="markdown table to write")
    ap.add_argument("--results", default="results/agents_vs_greedy", help="folder for the runs")
    args = ap.parse_args(argv)
    rows = [run_line(c, args.games, args.seed, Path(args.results)) for c in CANDIDATES]
    lines = [
        "# Each policy against three greedy opponents",
        "",
        f"4-player classic games to $1,000,000, seats rotated, {args.games:,} games per line, seed {args.seed}.",
        "Win rate of the candidate's seat (one seat per game, so per-game win rate = per-seat share) with a 95%",
        "game-clustered interval (Wilson on the effective sample size, cya_sim.reports.stats; ties shared, R-TIE);",
        "a fair share is 25%.",
        "A greedy seat wins (1 - rate) / 3, so an interval above 25% means the candidate beats greedy.",
        "Speed: complete games per second of the line's run (wall time, every worker of this machine).",
        "",
        f"Made by: `python experiments/agents_vs_greedy.py --games {args.games} --seed {args.seed}`",
        "",
        "| agent | games | win rate | 95% interval | mean final total | games/s | engine |",
        "|---|---:|---:|---|---:|---:|---|",
    ]
    for r in rows:
        lines.append(f"| `{r['agent']}` | {r['games']:,} | {r['win_rate']:.1%} | "
                     f"[{r['ci_low']:.1%}, {r['ci_high']:.1%}] | ${r['mean_total']:,.0f} | "
                     f"{r['games_per_s']:,.0f} | {r['engine']} |")
    Path(args.out).write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
