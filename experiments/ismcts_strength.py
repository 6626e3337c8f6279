"""Strength of ``ismcts`` at 1,000 iterations per decision (issue 6, "Done when").

4-player classic games to $1,000,000, seats rotated (game ``g`` uses rotation
``g % 4`` of the line-up, so with a multiple of 4 games every agent sits in
every seat equally often), played by the ordinary tournament runner
(:func:`cya_sim.studies.tournament.run_tournament`) on the reference engine — search
agents decide in Python, once per decision — with one worker process by
default. Each line is one candidate against three copies of one opponent;
the table gives the candidate's win rate (win shares, R-TIE) with its 95%
Wilson interval (statsmodels, :mod:`cya_sim.reports.stats`), its mean final total,
the games played and the wall time. A fair share is 25%: a line whose
interval lies above 25% means the candidate beats that opponent.

Lines (``--lines``, default all three of the issue, plus ``--four-way``):

* ``greedy``: ismcts against three ``greedy`` (target: at least 35%);
* ``card_counter``: ismcts against three ``card_counter``;
* ``pimc``: ismcts against three ``pimc`` at the same iterations and rollout
  policy (one iteration = one rollout);
* ``--four-way``: one table of ismcts, pimc, card_counter and greedy.

Writes ``experiments/ismcts_strength.md`` (``--out``) and its data
(``ismcts_strength.json``) with the exact command of every line; ``--append``
adds lines to an existing report (so each run can stay short); ``--render``
rewrites the report from its JSON without playing.

    python experiments/ismcts_strength.py                               # the committed table
    python experiments/ismcts_strength.py --games 100 --lines greedy --out /tmp/pilot.md
    python experiments/ismcts_strength.py --rollout greedy --c-ucb 0.15 --out /tmp/greedy_rollouts.md
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
import time
from pathlib import Path

from cya_sim.search.classic.search import DEFAULT_C_UCB
from cya_sim.studies.tournament import TournamentConfig, run_tournament

HERE = Path(__file__).resolve().parent
LINES = ("greedy", "card_counter", "pimc")


def search_spec(name: str, iterations: int, rollout: str, c_ucb: float | None = None,
                utility: str | None = None) -> str:
    """Agent spec of a search agent, e.g. ``ismcts(iterations=1000, rollout="card_counter", c_ucb=0.15)``."""
    parts = [f"iterations={iterations}", f'rollout="{rollout}"']
    if c_ucb is not None:
        parts.append(f"c_ucb={c_ucb}")
    if utility is not None:
        parts.append(f'utility="{utility}"')
    return f"{name}({', '.join(parts)})"


def run_line(label: str, lineup: list[str], games: int, seed: int, workers: int, progress: bool) -> dict:
    """Play one line-up (rotated) and return its summary rows, games and wall time."""
    cfg = TournamentConfig(rules="classic", agents=lineup, n_players=4, games=games, seed=seed,
                           engine="reference", workers=workers, out=None)
    t0 = time.perf_counter()
    res = run_tournament(cfg, progress=progress)
    wall = time.perf_counter() - t0
    rows = []
    for _, r in res.summary.iterrows():
        rows.append({"agent": r["agent"], "seat_games": int(r["seat_games"]), "wins": float(r["wins"]),
                     "win_rate": float(r["seat_share"]), "ci_low": float(r["seat_share_ci_low"]),
                     "ci_high": float(r["seat_share_ci_high"]), "mean_total": float(r["mean_total"]),
                     "ci_method": "game-clustered"})
    return {"line": label, "lineup": lineup, "games": games, "seed": seed, "wall_s": wall, "workers": res.workers,
            "engine": res.engine, "rows": rows}


def render(results: list[dict]) -> str:
    """The markdown report of the lines in ``results`` (each with its command)."""
    md = [
        "# ismcts strength (issue 6)",
        "",
        "4-player classic games to $1,000,000 on the reference engine (search agents decide in Python, one call",
        "per decision), seats rotated (game g uses rotation g mod 4 of the line-up), one worker process.",
        "Win rate = sum of win shares (ties shared, R-TIE) per seat-game, with a 95% Wilson interval",
        "(statsmodels); a fair share is 25%, so an interval above 25% means the first agent of the line beats",
        "the others (column \"above 25%?\": the lower bound of the candidate's interval is above 25%). Wall",
        "time: the whole line on this machine (2 cores, shared with other work).",
        f"Parameters a spec does not name are the agents' defaults: ismcts `c_ucb={DEFAULT_C_UCB}` (UCB1 on",
        "availability counts, Cowling, Powley & Whitehouse 2012), `utility=\"share\"` (the seat's share of the",
        "round's scores), rollouts to the end of the round, final move by most visits; `seed=0`, mixed with each",
        "seat's own stream of the tournament. One iteration = one determinization and one rollout (pimc: one",
        "rollout).",
        "Intervals take the game as the sampling unit (:mod:`cya_sim.reports.stats`, cluster-robust). The field's rows",
        "of lines first run before issue 10 (Wilson over seat-games, too wide for an agent in three seats) are",
        "recomputed exactly from the candidate's interval: every game's win shares sum to 1, so the field's",
        "per-seat share is (1 - candidate's share) / 3 game by game, and its interval is",
        "[(1 - candidate's high) / 3, (1 - candidate's low) / 3].",
        "",
        "| line | agent | seat-games | win rate | 95% interval | above 25%? | mean final total | games | wall time |",
        "|---|---|---:|---:|---|---|---:|---:|---:|",
    ]
    for r in results:
        for i, row in enumerate(r["rows"]):
            verdict = ("yes" if row["ci_low"] > 0.25 else "no") if i == 0 and r["line"].startswith("vs") else ""
            md.append(f"| {r['line']} | `{row['agent']}` | {row['seat_games']:,} | {row['win_rate']:.1%} | "
                      f"[{row['ci_low']:.1%}, {row['ci_high']:.1%}] | {verdict} | ${row['mean_total']:,.0f} | "
                      f"{r['games']:,} | {r['wall_s'] / 60:.1f} min |")
    md += ["", "Made by (tournament seed and games of each line in its command):", ""]
    for c in dict.fromkeys(r["command"] for r in results):
        md.append(f"    {c}")
    return "\n".join(md) + "\n"


def main(argv: list[str] | None = None) -> int:
    """Run the lines and write the markdown report (and a JSON copy next to it)."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=400, help="games per line (a multiple of 4; default 400)")
    ap.add_argument("--seed", type=int, default=6)
    ap.add_argument("--iterations", type=int, default=1000, help="iterations (rollouts) per decision")
    ap.add_argument("--rollout", default="card_counter", help="rollout policy of ismcts and pimc")
    ap.add_argument("--c-ucb", type=float, default=None, help="UCB1 constant of ismcts (default: the agent's)")
    ap.add_argument("--utility", default=None, help="utility of ismcts and pimc (default: the agents')")
    ap.add_argument("--lines", default=",".join(LINES), help=f"comma-separated subset of: {', '.join(LINES)}")
    ap.add_argument("--four-way", action="store_true", help="also play ismcts, pimc, card_counter, greedy together")
    ap.add_argument("--workers", type=int, default=1, help="worker processes (default 1)")
    ap.add_argument("--out", default=str(HERE / "ismcts_strength.md"), help="markdown report to write")
    ap.add_argument("--quiet", action="store_true", help="no progress bars")
    ap.add_argument("--append", action="store_true",
                    help="keep the lines already in the report's JSON (OUT with .json) and add these")
    ap.add_argument("--render", action="store_true", help="play nothing: rewrite OUT from its JSON")
    args = ap.parse_args(argv)
    if args.render:
        out = Path(args.out)
        text = render(json.loads(out.with_suffix(".json").read_text(encoding="utf-8"))["results"])
        out.write_text(text, encoding="utf-8")
        print(text)
        return 0
    lines = [x.strip() for x in args.lines.split(",") if x.strip()]
    for x in lines:
        if x not in LINES:
            ap.error(f"--lines: {x!r}; choose from: {', '.join(LINES)}")
    if args.games < 1 or args.games % 4:
        ap.error(f"--games: {args.games}; give a positive multiple of 4 (seats rotated)")
    ism = search_spec("ismcts", args.iterations, args.rollout, args.c_ucb, args.utility)
    pim = search_spec("pimc", args.iterations, args.rollout, None, args.utility)
    opponent = {"greedy": "greedy", "card_counter": "card_counter", "pimc": pim}
    results = []
    for x in lines:
        print(f"line: {ism} vs 3 {opponent[x]}", file=sys.stderr, flush=True)
        results.append(run_line(f"vs 3 {x}", [ism] + [opponent[x]] * 3, args.games, args.seed, args.workers,
                                not args.quiet))
    if args.four_way:
        print("line: four-way", file=sys.stderr, flush=True)
        results.append(run_line("four-way", [ism, pim, "card_counter", "greedy"], args.games, args.seed,
                                args.workers, not args.quiet))
    command = ("python experiments/ismcts_strength.py "
               + " ".join(shlex.quote(a) for a in (argv if argv is not None else sys.argv[1:]))).strip()
    for r in results:
        r["command"] = command
    out = Path(args.out)
    store = out.with_suffix(".json")
    if args.append and store.exists():
        results = json.loads(store.read_text(encoding="utf-8"))["results"] + results
    store.write_text(json.dumps({"results": results}, indent=1) + "\n", encoding="utf-8")
    text = render(results)
    out.write_text(text, encoding="utf-8")
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
