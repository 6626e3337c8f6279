"""Command line of experiment files: ``cya-sim tournament EXPERIMENT.toml [overrides]`` and ``cya-sim report FOLDER``.

``cya-sim`` (:mod:`cya_sim.cli.main`) hands these two forms to :func:`tournament_main`
and :func:`report_main`. Every refused input — a flag, a field of the file, the
results folder — prints one line naming the field and what is allowed and
exits with status 2 before any game is played; nothing already written is
touched.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import shlex
import sys
import textwrap
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from cya_sim.cli.parsing import ExitingParser, interrupt_exit
from cya_sim.errors import FieldError
from cya_sim.tomltext import TomlTextError, toml_value

#: experiment field -> the flag that overrides it (error messages name both).
FLAG_OF = {
    "games": "--games", "seed": "--seed", "players": "--players", "agents": "--agents", "out": "--out",
    "rules.preset": "--rules", "design.kind": "--design", "design.duplicate": "--duplicate",
    "run.engine": "--engine", "run.workers": "--workers", "run.chunk_size": "--chunk-size",
    "run.scheduler": "--scheduler",
}


def _value(text: str, field: str) -> Any:
    """A TOML value when the text parses as one (``5``, ``true``, ``["a", "b"]``), else the text itself.

    Raises:
        FieldError: ``field`` holds an integer of more than 4,300 digits (:func:`~cya_sim.tomltext.toml_value`).
    """
    try:
        return toml_value(text)
    except TomlTextError as e:
        raise FieldError(field, str(e)) from None


def _list(text: str, field: str) -> list[Any]:
    return [_value(x.strip(), field) for x in text.split(",")]


def tournament_parser(prog: str = "cya-sim tournament") -> argparse.ArgumentParser:
    """Parser of ``cya-sim tournament EXPERIMENT.toml`` and its overrides."""
    p = ExitingParser(prog=prog, description=(
        "Run an experiment file (experiments/<name>.toml): play every missing chunk of games into its results "
        "folder (resume), then write summary.csv, pairwise.csv, seats.csv, plots and REPORT.md. Flags override "
        "fields of the file."))
    p.add_argument("experiment", type=Path, help="the experiment TOML file")
    p.add_argument("--games", metavar="G", help="games per table size (field games)")
    p.add_argument("--seed", metavar="N", help="tournament seed (field seed)")
    p.add_argument("--players", metavar="P[,P...]", help="table size(s) (field players)")
    p.add_argument("--agents", metavar="A,B,...", help="the agent pool (field agents)")
    p.add_argument("--rules", metavar="PRESET", help="rule preset (field rules.preset)")
    p.add_argument("--design", metavar="KIND", help="round_robin | one_vs_field | explicit | ablation (field design.kind)")
    dup = p.add_mutually_exclusive_group()
    dup.add_argument("--duplicate", dest="duplicate", action="store_const", const=True,
                     help="duplicate deals: every rotation of every line-up plays the same deal")
    dup.add_argument("--no-duplicate", dest="duplicate", action="store_const", const=False,
                     help="a new deal for every game")
    p.add_argument("--out", metavar="FOLDER", help="results folder (field out)")
    p.add_argument("--engine", metavar="NAME", help="auto | batched | reference (field run.engine)")
    p.add_argument("--workers", metavar="N", help="local worker processes (field run.workers)")
    p.add_argument("--chunk-size", metavar="G", help="games per chunk file (field run.chunk_size)")
    p.add_argument("--scheduler", metavar="tcp://HOST:PORT",
                   help="run the chunks on this Dask distributed scheduler (field run.scheduler)")
    p.add_argument("--set", action="append", default=[], metavar="FIELD=VALUE",
                   help="set any field by its dotted name, value in TOML syntax, e.g. --set rules.options.hand_size=5 "
                        "(repeatable)")
    p.add_argument("--quiet", action="store_true", help="no progress bar and no summary (batch jobs)")
    p.add_argument("--no-report", action="store_true", help="play only; build the report later with cya-sim report")
    return p


def overrides_of(args: argparse.Namespace) -> dict[str, Any]:
    """Dotted field -> value of every override flag given (values still unvalidated).

    Raises:
        SystemExit(2): a ``--set`` item that is not FIELD=VALUE (message printed).
    """
    o: dict[str, Any] = {}
    scalar = {"games": args.games, "seed": args.seed, "rules.preset": args.rules, "design.kind": args.design,
              "out": args.out, "run.engine": args.engine, "run.workers": args.workers,
              "run.chunk_size": args.chunk_size, "run.scheduler": args.scheduler}
    for k, v in scalar.items():
        if v is not None:
            o[k] = _value(v, k) if k not in ("out", "run.scheduler") else v
    if args.players is not None:
        ps = _list(args.players, "players")
        o["players"] = ps[0] if len(ps) == 1 else ps
    if args.agents is not None:
        o["agents"] = [str(a) for a in _list(args.agents, "agents")]
    if args.duplicate is not None:
        o["design.duplicate"] = args.duplicate
    for item in args.set:
        key, eq, text = item.partition("=")
        if not eq or not key.strip():
            print(f"cya-sim tournament: error: --set: {item!r} is not FIELD=VALUE (e.g. design.duplicate=true)",
                  file=sys.stderr)
            raise SystemExit(2)
        o[key.strip()] = _value(text.strip(), key.strip())
    return o


def _fail(command: str, e) -> int:
    from cya_sim.errors import FieldError

    if isinstance(e, FieldError):
        flag = FLAG_OF.get(e.field)
        where = f"field {e.field!r}" + (f" ({flag})" if flag else "")
        print(f"cya-sim {command}: error: {where}: {e.detail}", file=sys.stderr)
    else:
        print(f"cya-sim {command}: error: {' '.join(str(e).split())}", file=sys.stderr)
    return 2


def tournament_main(argv: Sequence[str]) -> int:
    """``cya-sim tournament EXPERIMENT.toml [flags]``: validate, run (or resume), report.

    Returns:
        0 when done; 2 for a refused input (one line on stderr, nothing
        played or written); 130 when interrupted (finished chunks are kept).
    """
    from cya_sim.errors import FieldError
    from cya_sim.results.folder import folder_lock
    from cya_sim.runs.experiment import load_experiment, resolve_engine
    from cya_sim.runs.runner import check_folder, connect, prepare_folder, run_experiment

    argv = list(argv)
    try:
        args = tournament_parser().parse_args(argv)
    except SystemExit as e:
        return int(e.code or 0)
    command = "cya-sim tournament " + shlex.join(argv)
    try:
        overrides = overrides_of(args)
        exp = load_experiment(args.experiment, overrides)
        engine, note = resolve_engine(exp.run.engine, exp.rules)
        if exp.run.scheduler:
            connect(exp.run.scheduler).close()
        check_folder(exp)  # read-only, before the lock file is made
    except SystemExit as e:
        return int(e.code or 0)
    except FieldError as e:
        return _fail("tournament", e)
    try:
        # one run at a time in a folder: from the folder check to the report
        with folder_lock(exp.out, command):
            manifest, resumed = prepare_folder(exp, engine, command)
            if not args.quiet:
                done = "resuming" if resumed else "new run"
                print(f"experiment {exp.name}: rules {exp.rules.name}, players {', '.join(map(str, exp.players))}, "
                      f"agents {', '.join(exp.agents)}, design {exp.design.kind}"
                      + (" (duplicate deals)" if exp.design.duplicate else "")
                      + f", {exp.total_games:,} games, seed {exp.seed}")
                print(f"results: {exp.out} ({done}, chunks of {manifest['chunk_size']:,} games); engine {engine}"
                      + (f" ({note})" if note else ""))
            result = run_experiment(exp, progress=not args.quiet, command=command, prepared=(manifest, resumed),
                                    on_chunk=None if args.no_report else report_layer_importer())
            if not args.quiet:
                print(f"played {result.games_played:,} games in {result.elapsed_s:.1f} s"
                      + (f" ({result.games_per_s:,.0f} games/s, {result.executor})" if result.games_played else "")
                      + (f"; {result.chunks_skipped} chunks were already stored" if result.chunks_skipped else "")
                      + f"; peak memory {result.peak_rss_mb:,.0f} MiB")
                if result.compiled:
                    print(f"compiled once before the games: {result.compile_s:.1f} s ({', '.join(result.compiled)})")
            if args.no_report:
                return 0
            return _report(exp.out, quiet=args.quiet)
    except FieldError as e:
        return _fail("tournament", e)
    except KeyboardInterrupt as e:
        return interrupt_exit(e, f"; finished chunks are kept in {exp.out}; run the same command to resume")


def report_layer_importer() -> Callable[[int], None]:
    """A run's ``on_chunk`` hook that imports the report layer in a daemon thread once the first chunk is stored.

    The imports (pandas, scipy.stats, matplotlib: about 1.2 s of CPU; the rating's GLM, 0.15 s) then happen while
    the workers play the other chunks, not after the last game; the main thread, by then only storing chunks with
    modules it has already loaded, waits for them only if it reaches the report first (Python's per-module import
    locks). An import that fails in the thread fails again, with its message, when the report imports the module.

    Returns:
        a function of the chunk index (int) that starts the thread at its first call and does nothing after.
    """
    started = threading.Event()

    def hook(_index: int) -> None:
        if not started.is_set():
            started.set()
            threading.Thread(target=_import_quietly, args=("cya_sim.reports.report",), daemon=True,
                             name="cya-sim report imports").start()

    return hook


def _import_quietly(module: str) -> None:
    """Import ``module`` and the modules its ``DEFERRED_IMPORTS`` names (imported inside functions, such as the
    rating's GLM: :data:`cya_sim.reports.report.DEFERRED_IMPORTS`); an error is left for the main thread's own
    import to raise."""
    with contextlib.suppress(Exception):  # raised again, with its message, by the report's own import
        for name in (module, *getattr(importlib.import_module(module), "DEFERRED_IMPORTS", ())):
            importlib.import_module(name)


def _report(folder: Path, quiet: bool) -> int:
    from cya_sim.reports.report import build_report

    rep = build_report(folder)
    if not quiet:
        from cya_sim.reports.report import SUMMARY_LEGEND, console_summary

        s = rep.analysis.summary
        for p, d in s.groupby("players", sort=True):
            print(f"{p} players:")
            print(console_summary(d, rep.score_unit))
        print(textwrap.fill(SUMMARY_LEGEND, width=110))
        shown = [f for f in rep.files if f.suffix in (".csv", ".png")]
        print(f"wrote {folder}/REPORT.md, {len(shown)} tables and plots, and a copy of the experiment"
              + ("" if rep.complete else f" (incomplete: {rep.games_stored:,} of {rep.games_total:,} games)"))
    return 0


#: The folder ``cya-sim report`` rebuilds when none is named: committed with its games (experiments/example.toml).
DEFAULT_REPORT_FOLDER = Path("results/example")


def report_parser(prog: str = "cya-sim report") -> argparse.ArgumentParser:
    """Parser of ``cya-sim report FOLDER``."""
    p = ExitingParser(prog=prog, description="Rebuild REPORT.md, the CSV tables and the plots of a results folder from its "
                                       "stored games (nothing is played).")
    p.add_argument("folder", type=Path, nargs="?", default=DEFAULT_REPORT_FOLDER,
                   help=f"a results folder written by cya-sim tournament (default {DEFAULT_REPORT_FOLDER}: the small "
                        "example committed with its games, so a fresh clone can rebuild a report in seconds)")
    p.add_argument("--quiet", action="store_true", help="print nothing")
    return p


def report_main(argv: Sequence[str]) -> int:
    """``cya-sim report FOLDER``: 0 when written, 2 when the folder is not a results folder or holds no games."""
    from cya_sim.errors import FieldError

    try:
        args = report_parser().parse_args(list(argv))
    except SystemExit as e:
        return int(e.code or 0)
    try:
        return _report(args.folder, args.quiet)
    except (FieldError, ValueError) as e:
        if isinstance(e, FieldError):
            print(f"cya-sim report: error: {e.detail}", file=sys.stderr)
            return 2
        return _fail("report", e)


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m cya_sim.cli.experiment tournament|report ...`` (what ``cya-sim`` delegates to)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] == "tournament":
        return tournament_main(argv[1:])
    if argv and argv[0] == "report":
        return report_main(argv[1:])
    print("usage: python -m cya_sim.cli.experiment tournament EXPERIMENT.toml [flags] | report FOLDER", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
