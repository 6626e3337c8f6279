"""Command line of the tip study: ``cya-sim tips [STUDY.toml] [--quick] [--deals N] [--out DIR] [--workers N] [--only CELLS]``.

Runs every cell of the study (:mod:`cya_sim.studies.tips`; each cell resumes like any
experiment), then writes REPORT.md, the verdict table (``verdicts.csv``), the
forest plot and the heat map into the study folder. A refused input prints
one line naming the field and exits with status 2 before any game is played.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

from cya_sim.cli.parsing import WORKERS, ExitingParser, games, run_subcommand

DEFAULT_STUDY = Path("experiments/tips.toml")


def tips_parser() -> argparse.ArgumentParser:
    """Parser of ``cya-sim tips``."""
    p = ExitingParser(prog="cya-sim tips", description=(
        "Run the tip study (every TIP-* entry of TIPS.md, at the root of the repository, as a treatment-versus-control ablation on duplicate deals, "
        "seats rotated, at every table size, rule preset and field of the study file) and write REPORT.md with the "
        "verdict table, forest plot and heat map into the study folder. Rerunning resumes finished cells."))
    p.add_argument("study", nargs="?", type=Path, default=DEFAULT_STUDY,
                   help=f"the study TOML file (default {DEFAULT_STUDY})")
    p.add_argument("--quick", action="store_true", help="the small CI form (the file's [quick] table)")
    p.add_argument("--deals", type=games("deals", lo=2), metavar="N", help="duplicated deals per context (field deals)")
    p.add_argument("--out", metavar="FOLDER", help="study folder (field out)")
    p.add_argument("--workers", type=WORKERS, metavar="N", help="local worker processes (default: all cores)")
    p.add_argument("--report-only", action="store_true",
                   help="play nothing: analyse the cells already complete in the study folder and name the others")
    p.add_argument("--only", metavar="CELL[,CELL]", help=(
        "run and analyse only these cells (e.g. classic-greedy-2p, or hide for the TIP-HIDE-WILD comparison), each "
        "with its own seed and deals as in the full study: a reproduction check of single contexts (Holm-adjusted "
        "p-values then cover the cells run)"))
    p.add_argument("--quiet", action="store_true", help="no progress bars")
    return p


def _only_cells(text: str | None) -> list[str]:
    """The cell names of ``--only`` (none given: every cell).

    Raises:
        ExperimentError (field ``only``): the text, or one of its comma-separated entries, is empty (``--only ""``
            or ``--only ",,"`` would otherwise run the whole study).
    """
    from cya_sim.runs.experiment import ExperimentError

    if text is None:
        return []
    names = [x.strip() for x in text.split(",")]
    for i, x in enumerate(names):
        if not x:
            raise ExperimentError("only", f"entry {i + 1} of {text!r} is empty; give cell names separated by commas, "
                                  "such as classic-greedy-2p (preset-field-Pp) or hide, or omit --only to run every "
                                  "cell")
    return names


def tips_main(argv: Sequence[str]) -> int:
    """Run ``cya-sim tips`` with the words after ``tips``; return the exit status (0, 2 refused, 130 interrupted).

    The study's modules (pandas, SciPy, the runner) are imported only after the words are parsed, so
    ``cya-sim tips --help`` and a usage error answer at once.
    """
    return run_subcommand("tips", tips_parser(), argv, _tips)


def _tips(args: argparse.Namespace, command: str) -> int:
    """``cya-sim tips`` once its flags are parsed (:func:`tips_main`)."""
    from cya_sim.studies.tips import load_study, run_study

    over = {k: v for k, v in (("deals", args.deals), ("out", args.out), ("workers", args.workers)) if v is not None}
    study = load_study(args.study, quick=args.quick, overrides=over, only=_only_cells(args.only))
    result = run_study(study, progress=not args.quiet, command=command, play=not args.report_only)
    v = result.verdicts
    print(f"{len(v)} tip x context rows: " + ", ".join(f"{k} {n}" for k, n in v["verdict"].value_counts().items()))
    print(f"wrote {study.out / 'REPORT.md'}")
    return 0
