"""Command line of ``cya-sim leaderboard [BOARD.toml] [--quick] [--out DIR] [--workers N] [--scheduler tcp://HOST:PORT]``.

Plays (or resumes) every cell of the board file and its alias probe (:mod:`cya_sim.studies.leaderboard`), rates
the agents with Bradley–Terry by finishing order and by wins, deal-clustered intervals, and writes ``ratings.csv``,
``head_to_head.csv``, ``leaderboard.png``, ``REPORT.md`` and ``result.json``.
A refused input prints one line and exits with status 2 before any game is played.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

from cya_sim.cli.parsing import WORKERS, ExitingParser, run_subcommand

DEFAULT_BOARD = Path("experiments/leaderboard.toml")


def leaderboard_parser() -> argparse.ArgumentParser:
    """Parser of ``cya-sim leaderboard``."""
    p = ExitingParser(prog="cya-sim leaderboard", description=(
        "Rate every agent of a board file at every table size and rule preset: seats rotated, every game on its own "
        "deal (or duplicated deals with duplicate = true), "
        "Bradley–Terry ratings by finishing order and by wins with clustered 95% intervals, aliases (agents "
        "that play alike) rated once, every pair's difference; writes REPORT.md, ratings.csv, head_to_head.csv and "
        "leaderboard.png. Rerunning resumes finished cells."))
    p.add_argument("board", nargs="?", type=Path, default=DEFAULT_BOARD,
                   help=f"the board TOML file (default {DEFAULT_BOARD})")
    p.add_argument("--quick", action="store_true", help="the small form (the file's [quick] table)")
    p.add_argument("--out", metavar="FOLDER", help="results folder (key out)")
    p.add_argument("--workers", type=WORKERS, metavar="N", help="local worker processes (key workers)")
    p.add_argument("--scheduler", metavar="tcp://HOST:PORT",
                   help="play the cells and alias probes on this Dask distributed scheduler (key scheduler)")
    p.add_argument("--quiet", action="store_true", help="no plan lines and no progress bars (batch jobs)")
    return p


def leaderboard_main(argv: Sequence[str]) -> int:
    """Run ``cya-sim leaderboard`` with the words after ``leaderboard``; return the exit status (0, 2, 130)."""
    from cya_sim.studies.leaderboard import LeaderboardError

    return run_subcommand("leaderboard", leaderboard_parser(), argv, _leaderboard, (LeaderboardError,))


def _leaderboard(args: argparse.Namespace, command: str) -> int:
    """``cya-sim leaderboard`` once its flags are parsed (:func:`leaderboard_main`)."""
    from cya_sim.studies.leaderboard import check_cell_folders, load_board, plan_lines, run_board

    over = {k: v for k, v in (("out", args.out), ("workers", args.workers), ("scheduler", args.scheduler))
            if v is not None}
    board = load_board(args.board, quick=args.quick, overrides=over)
    plan = plan_lines(board)  # checks every cell first: a refused board prints nothing but its one line
    check_cell_folders(board)
    if not args.quiet:
        print(f"leaderboard {board.name}: seating {board.seating}, "
              + ("duplicated deals" if board.duplicate else "every game on its own deal") + f", into {board.out}")
        for line in plan:
            print("  " + line)
    r = run_board(board, progress=not args.quiet, command=command)
    print(f"{len(r.ratings)} ratings over {r.ratings.groupby(['preset', 'players']).ngroups} cells")
    print(f"wrote {board.out / 'REPORT.md'}")
    return 0
