"""Command line of ``cya-sim tune``: search a policy family's parameters, then replay the best on fresh deals.

``cya-sim tune --agent heuristic --field card_counter --players 4 --trials 200 --out results/tune-h4``
searches every switch and threshold of ``heuristic`` (:mod:`cya_sim.studies.tune`), prints the best spec
(pasteable as an agent), its held-out gain over the baseline (and over each ``--compare`` spec) with an
interval, and writes the study (resumable), the trials, the held-out games and the history plot into
``--out``. A refused input prints one line and exits with status 2 before any game is played.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

from cya_sim.cli.parsing import (
    ExitingParser,
    add_rule_args,
    int_at_least,
    option_pairs,
    results_written,
    run_subcommand,
)


def tune_parser() -> argparse.ArgumentParser:
    """Parser of ``cya-sim tune``."""
    from cya_sim.studies.tune import SAMPLERS

    p = ExitingParser(prog="cya-sim tune", description=(
        "Search the parameters of a policy family (every heuristic(...) switch and dollar threshold, card_counter's "
        "min_gain and infer_hidden, or a compiled plug-in's params given with --space) to maximise its win rate "
        "against a field, with optuna (TPE by default). The study is stored in --out (study.db) and resumes when "
        "the same command is run again. The best spec is then replayed with the baseline (and --compare specs) on "
        "fresh duplicated deals: the printed gain has an honest interval (deal-clustered, Holm-adjusted)."))
    p.add_argument("--agent", required=True, metavar="SPEC",
                   help="the family and baseline, e.g. heuristic, 'heuristic(count=true)', card_counter, "
                        "'my_mod:decide(a=1, b=2)'")
    p.add_argument("--field", required=True, metavar="A,B,...",
                   help="opponents, comma-separated, cycled over the other seats (at most P - 1 specs; e.g. card_counter)")
    p.add_argument("--players", type=int_at_least(2, "players"), default=4, metavar="P", help="table size (default 4)")
    add_rule_args(p, deck=False)
    p.add_argument("--space", action="append", default=[], metavar="NAME=RANGE",
                   help="a searched parameter: NAME=bool, NAME=LO:HI or NAME=LO:HI:STEP (repeatable; overrides the "
                        "family's range; required for a plug-in)")
    p.add_argument("--fix", default="", metavar="NAME,...", help="family parameters not to search (kept as given)")
    p.add_argument("--trials", type=int_at_least(0, "trials"), default=100, metavar="N", help="trials in total (default 100)")
    p.add_argument("--trial-deals", type=int_at_least(0, "trial deals"), default=1000, metavar="D",
                   help="duplicated deals per trial, each in every rotation (default 1000)")
    p.add_argument("--heldout-deals", type=int_at_least(0, "held-out deals"), default=5000, metavar="D",
                   help="fresh duplicated deals of the held-out evaluation (default 5000; 0 skips it)")
    p.add_argument("--compare", default="", metavar="A,B,...",
                   help="more specs replayed on the held-out deals (e.g. card_counter)")
    p.add_argument("--sampler", choices=SAMPLERS, default="tpe", help="optuna sampler (default tpe)")
    p.add_argument("--seed", type=int_at_least(0, "seed"), default=1, help="seed of deals and sampler (default 1)")
    p.add_argument("--workers", type=int_at_least(1, "workers"), default=1, metavar="N",
                   help="processes of the held-out run (default 1; trials run in this process)")
    p.add_argument("--out", type=Path, required=True, metavar="FOLDER", help="results folder (new, or this run's)")
    p.add_argument("--quiet", action="store_true", help="no progress bars")
    return p


def tune_main(argv: Sequence[str]) -> int:
    """Run ``cya-sim tune`` with the words after ``tune``; return the exit status (0, 2 refused, 130 interrupted)."""
    from agents.spec import AgentSpecError
    from cya_sim.studies.tune import TuneError

    return run_subcommand("tune", tune_parser(), argv, _tune, (TuneError, AgentSpecError))


def _tune(args: argparse.Namespace, command: str) -> int:
    """``cya-sim tune`` once its flags are parsed (:func:`tune_main`)."""
    from agents.spec import split_agent_list
    from cya_sim.studies.tune import TuneConfig, TuneError, parse_dimension, resolve_space, run_tune

    space = resolve_space(args.agent, [parse_dimension(s) for s in args.space],
                          [f.strip() for f in args.fix.split(",") if f.strip()])
    field = tuple(a for a in split_agent_list(args.field) if a)
    compare = tuple(a for a in split_agent_list(args.compare) if a) if args.compare.strip() else ()
    if args.compare.strip() and not compare:  # "--compare ," would silently compare nothing
        raise TuneError(f"--compare {args.compare!r}: no agent spec in it; give specs separated by commas "
                        "(e.g. --compare card_counter), or omit --compare")
    cfg = TuneConfig(agent=args.agent, field=field, players=args.players, out=args.out, preset=args.rules,
                     options=dict(option_pairs(args.option)), space=space, trials=args.trials,
                     trial_deals=args.trial_deals, heldout_deals=args.heldout_deals, compare=compare, seed=args.seed,
                     sampler=args.sampler, workers=args.workers)
    r = run_tune(cfg, progress=not args.quiet, command=command)
    results_written()  # the study and its report are on disk: a Ctrl-C from here on changes nothing
    print(f"best spec: {r.best}")
    print(f"in-sample win rate (tuning deals, biased up): best {100 * r.best_value:.2f}%, "
          f"baseline {100 * r.baseline_value:.2f}% over {len(r.trials)} trials")
    for a in r.arms.itertuples():
        print(f"held-out win rate {a.arm}: {100 * a.win_rate:.2f}% ({100 * a.low:.2f} to {100 * a.high:.2f})")
    for g in r.heldout.itertuples():
        print(f"held-out gain over {g.versus}: {100 * g.gain:+.2f} points ({100 * g.low:+.2f} to {100 * g.high:+.2f}, "
              f"{g.deals:,} deals, p_holm {g.p_holm:.3g})")
    print(f"wrote {args.out / 'REPORT.md'}")
    return 0
