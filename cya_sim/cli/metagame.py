"""Command line of ``cya-sim metagame``: the empirical game of an agent pool, α-Rank and a stable mix.

``cya-sim metagame --pool random,greedy,heuristic,card_counter --players 4 --deals 300 --out results/metagame-4p``
plays every line-up with repetition in every rotation on duplicated deals (resumable), then writes the Nash
mixture with bootstrap intervals, α-Rank, dominance, the response graph and the replicator trajectories
(:mod:`cya_sim.studies.metagame`). A refused input prints one line and exits with status 2 before any game.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from collections.abc import Sequence
from pathlib import Path

from cya_sim.cli.parsing import ExitingParser, int_at_least
from cya_sim.tomltext import TomlTextError, toml_value


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
    p.add_argument("--rules", default="classic", metavar="PRESET", help="rule preset (default classic)")
    p.add_argument("--option", action="append", default=[], metavar="KEY=VALUE", help="a rule option (repeatable)")
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
    from agents.spec import AgentSpecError, split_agent_list
    from cya_sim.errors import FieldError
    from cya_sim.studies.metagame import MetagameConfig, MetagameError, run_metagame

    try:
        args = metagame_parser().parse_args(list(argv))
    except SystemExit as e:
        return int(e.code or 0)
    command = "cya-sim metagame " + shlex.join([str(a) for a in argv])
    try:
        opts = []
        for it in args.option:
            if "=" not in it:
                raise MetagameError(f"--option {it!r}: write KEY=VALUE")
            k, v = it.split("=", 1)
            try:
                value = toml_value(v)
            except TomlTextError as e:
                raise MetagameError(f"--option {k.strip()}: {e}") from None
            opts.append((k.strip(), value.strip() if isinstance(value, str) else value))
        pool = tuple(a for a in split_agent_list(args.pool) if a) if args.pool.strip() else ()
        cfg = MetagameConfig(pool=pool, players=args.players, out=args.out, deals=args.deals, preset=args.rules,
                             options=tuple(opts), seed=args.seed, workers=args.workers, bootstrap=args.bootstrap,
                             alpha=args.alpha, m=args.population)
        r = run_metagame(cfg, progress=not args.quiet, command=command)
    except (MetagameError, AgentSpecError) as e:
        print(f"cya-sim metagame: error: {' '.join(str(e).split())}", file=sys.stderr)
        return 2
    except FieldError as e:
        print(f"cya-sim metagame: error: field {e.field!r}: {' '.join(e.detail.split())}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted; run the same command again to resume", file=sys.stderr)
        return 130
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
