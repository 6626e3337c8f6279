"""Command line of ``cya-sim metagame``: the empirical game of an agent pool, α-Rank and a stable mix.

``cya-sim metagame --pool random,greedy,heuristic,card_counter --players 4 --deals 300 --out results/metagame-4p``
plays every line-up with repetition in every rotation on duplicated deals (resumable), then writes the Nash
mixture with bootstrap intervals, α-Rank, dominance, the response graph and the replicator trajectories
(:mod:`cya_sim.studies.metagame`). A refused input prints one line and exits with status 2 before any game.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

from cya_sim.cli.parsing import ExitingParser, add_rule_args, int_at_least, option_pairs, run_subcommand


def metagame_parser() -> argparse.ArgumentParser:
    """Parser of ``cya-sim metagame``."""
    p = ExitingParser(prog="cya-sim metagame", description=(
        "The empirical game of an agent pool at one table size: every line-up with repetition played in every "
        "rotation on duplicated deals (payoff = per-seat win share, deal-clustered intervals), then an approximate "
        "symmetric Nash mixture and alpha-Rank with bootstrap intervals over deals, strict dominance, the response "
        "graph and the replicator trajectories. Rerunning the same command resumes the games."))
    p.add_argument("--pool", required=True, metavar="A,B,...", help="agents, comma-separated (at least two)")
    p.add_argument("--players", type=int_at_least(2, "players"), default=4, metavar="P", help="table size (default 4)")
    p.add_argument("--deals", type=int_at_least(0, "deals"), default=200, metavar="D",
                   help="duplicated deals (each played by every line-up in every rotation; default 200)")
    add_rule_args(p, deck=False)
    p.add_argument("--seed", type=int_at_least(0, "seed"), default=1, help="seed of deals and bootstrap (default 1)")
    p.add_argument("--bootstrap", type=int_at_least(0, "bootstrap"), default=200, metavar="B",
                   help="bootstrap replications over deals, 0 (none) to 100,000 (default 200)")
    p.add_argument("--alpha", type=float, default=100.0,
                   help="alpha-Rank selection intensity, > 0 and <= 1e6 (default 100)")
    p.add_argument("--population", type=int_at_least(2, "population"), default=50, metavar="M",
                   help="alpha-Rank population size, from the table size P to 10,000 (default 50)")
    p.add_argument("--workers", type=int_at_least(1, "workers"), default=1, metavar="N", help="processes (default 1)")
    p.add_argument("--out", type=Path, required=True, metavar="FOLDER", help="results folder (new, or this run's)")
    p.add_argument("--quiet", action="store_true", help="no progress bars")
    return p


def metagame_main(argv: Sequence[str]) -> int:
    """Run ``cya-sim metagame`` with the words after ``metagame``; return the exit status (0, 2, 130)."""
    from agents.spec import AgentSpecError
    from cya_sim.studies.metagame import MetagameError

    return run_subcommand("metagame", metagame_parser(), argv, _metagame, (MetagameError, AgentSpecError))


def _metagame(args: argparse.Namespace, command: str) -> int:
    """``cya-sim metagame`` once its flags are parsed (:func:`metagame_main`)."""
    from agents.spec import split_agent_list
    from cya_sim.studies.metagame import MetagameConfig, run_metagame

    pool = tuple(a for a in split_agent_list(args.pool) if a) if args.pool.strip() else ()
    cfg = MetagameConfig(pool=pool, players=args.players, out=args.out, deals=args.deals, preset=args.rules,
                         options=tuple(option_pairs(args.option)), seed=args.seed, workers=args.workers,
                         bootstrap=args.bootstrap, alpha=args.alpha, m=args.population)
    r = run_metagame(cfg, progress=not args.quiet, command=command)
    print_summary(r, cfg)
    print(f"wrote {args.out / 'REPORT.md'}")
    return 0


def print_summary(r, cfg) -> None:
    """The console summary of a metagame result (:class:`cya_sim.studies.metagame.MetagameResult`): aliases, the
    mixture with its intervals, α-Rank with its selection model, tested dominance; never ``nan`` or ``-0.000``."""
    from cya_sim.studies.metagame import interval_text, number_text, selection_model

    for rep, alias, n in r.aliases:
        print(f"alias: {alias} plays as {rep} (identical records in {n:,} pairs of games on the same deals); "
              "merged into one strategy")
    print(f"{r.deals:,} deals; epsilon-Nash mixture (regret {r.regret:.1e}):")
    for m in r.mix.itertuples():
        dom = f"; dominated by {m.dominated_by}" if m.dominated_by else ""
        ci = interval_text(m.nash_low, m.nash_high, cfg.bootstrap)
        ci = f" ({ci})" if cfg.bootstrap else f", {ci}"
        print(f"  {m.agent}: Nash {number_text(m.nash)}{ci}, alpha-Rank {number_text(m.alpharank)}{dom}")
    print(selection_model(cfg).replace("α-Rank", "alpha-Rank") + ".")
