"""The ``cya-sim`` command line: play, tournament, rules, report, bench.

``cya-sim tournament EXPERIMENT.toml [flags]`` (an experiment file) and
``cya-sim report FOLDER`` are handled by :mod:`cya_sim.cli.experiment`; a
``tournament`` with flags only plays one rotated line-up (:mod:`cya_sim.studies.tournament`).

Every refused input prints one line to stderr naming the option, file, field,
agent, seat or game and what is allowed, exits with status 2, and writes
nothing. :func:`main` is the one error boundary: every user-caused error
raised anywhere below it (a rule option, a deck or experiment file, an agent
that raises or returns a bad action, an unwritable or full disk...) becomes
that one line; anything else is reported as an internal error (exit 1).
``--debug`` (anywhere on the command line) prints the traceback as well.
"""

from __future__ import annotations

import argparse
import errno
import functools
import os
import sys
import textwrap
import time
import traceback
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from cya_sim import __version__
from cya_sim.cli import parsing
from cya_sim.cli.parsing import (
    PLAYERS,
    SEED,
    WORKERS,
    ExitingParser,
    UsageError,
    add_rule_args,
    games,
    int_at_least,
    option_pairs,
)
from cya_sim.errors import UserInputError
from cya_sim.game.limits import MAX_SEED

#: The tournament ``cya-sim tournament`` (and ``make run``) plays with no options (rules: parsing.DEFAULT_RULES).
DEFAULT_AGENTS = "greedy,random"
DEFAULT_PLAYERS = 4
DEFAULT_GAMES = 4000
DEFAULT_SEED = 1
DEFAULT_OUT = "results/default"

#: TournamentConfig field -> command-line flag, for error messages.
_FLAGS = {
    "rules": "--rules", "agents": "--agents", "n_players": "--players", "games": "--games", "seed": "--seed",
    "engine": "--engine", "workers": "--workers", "chunk_size": "--chunk-size", "out": "--out",
}


def _rules_from_args(args: argparse.Namespace):
    """The RuleSet of ``--rules``/positional preset, ``--deck`` and ``--option`` (R-PRESETS, R-DECK-CUSTOM).

    Raises:
        UsageError: unknown preset, unreadable or invalid deck, unknown option key or bad value.
    """
    from cya_sim.game.rules import DeckError, RulesError, get_rules, load_deck, rule_option_names

    try:
        rules = get_rules(args.rules)
    except RulesError as e:
        raise UsageError(f"--rules: {e}") from None
    allowed = [k for k in rule_option_names(rules) if k != "deck"]
    options: dict[str, Any] = dict(option_pairs(args.option or [], allowed, deck_flag=True))
    if args.deck is not None:
        from cya_sim.play.families import family_of

        if not family_of(rules).takes_deck_file:
            raise UsageError(f"--deck: rules {rules.name!r} have their own deck; change it with --option "
                             "(see `cya-sim rules " + args.rules + "`)")
        try:
            options["deck"] = load_deck(args.deck)
        except DeckError as e:
            raise UsageError(f"--deck: {e}") from None
    if options:
        try:
            rules = rules.with_options(**options)
        except (RulesError, DeckError, TypeError, ValueError) as e:
            flag = "--deck" if set(options) == {"deck"} else "--option"
            raise UsageError(f"{flag}: {e}") from None
    return rules


def _agents_module():
    """The ``agents`` package (imported on first use: ``cya-sim --help`` does not load numba)."""
    import importlib

    return importlib.import_module("agents")


def _agent_factory(rules):
    """``make_agent`` of the rules' game family (:func:`cya_sim.play.families.family_of`)."""
    _agents_module()
    from cya_sim.play.families import family_of

    return family_of(rules).make_agent


def _agents_from_args(text: str, rules=None) -> list[str]:
    """The agent specs of ``--agents``, each checked (by the rules' game family) and in its normal spelling.

    Raises:
        UsageError: an empty entry, a malformed spec, an unknown agent, or an agent that cannot be made.
    """
    from agents.spec import AgentSpecError, normalise_spec, split_agent_list

    make = _agent_factory(rules) if rules is not None else _agents_module().make_agent
    names = []
    for i, a in enumerate(split_agent_list(text)):
        if not a:
            raise UsageError(f"--agents: entry {i + 1} of {text!r} is empty; give agent specs separated by commas, "
                             "e.g. greedy,random")
        try:
            a = normalise_spec(a)
            make(a)
        except (AgentSpecError, ValueError, TypeError) as e:
            raise UsageError(f"--agents: {e}") from None
        names.append(a)
    return names


def _check_table(rules, n: int, args: argparse.Namespace) -> None:
    """Refuse a table size the rules cannot set up, naming the flag of the option at fault.

    Raises:
        UsageError: ``--players`` outside the rules' range, or too few cards at that size (``--option``/``--deck``).
    """
    from cya_sim.game.rules import RulesError

    if not rules.min_players <= n <= rules.max_players:
        from cya_sim.game.limits import range_text

        raise UsageError(f"--players: {n}; rules {rules.name!r} allow {range_text(rules.min_players, rules.max_players)}")
    try:
        rules.check_table(n)
    except RulesError as e:
        flag = "--deck" if args.deck is not None and "'hand_size'" not in str(e) else "--option"
        if args.deck is None and not args.option:
            flag = "--players"
        raise UsageError(f"{flag}: {e}") from None


def build_parser(argv: Sequence[str] = ()) -> argparse.ArgumentParser:
    """The argument parser. ``cya_sim.studies.bench`` is imported only when ``argv`` asks for ``bench``.

    Raises:
        UsageError: ``bench`` asked for but ``cya_sim.studies.bench`` cannot be imported.
    """
    parser = ExitingParser(prog="cya-sim", description="Cover Your Assets research simulator.")
    parser.add_argument("--version", action="version", version=f"cya-sim {__version__}")
    parser.add_argument("--debug", action="store_true",
                        help="on an error, print the Python traceback after the one-line message (anywhere on the "
                             "command line)")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    play = sub.add_parser("play", help="play one game and print a readable log of it",
                          description="Play one game on the reference engine and print every action, "
                                      "every challenge exchange, the round totals and the winner, to be checked "
                                      "against the rules specification (RULES.md at the root of the cya-sim "
                                      "repository; rule IDs R-...).")
    add_rule_args(play)
    play.add_argument("--players", type=PLAYERS, metavar="P",
                      help=f"table size (default: one seat per --agents name, or {DEFAULT_PLAYERS})")
    play.add_argument("--agents", metavar="A,B,...",
                      help="agent per seat, comma-separated, cycled to fill the seats (default greedy,random)")
    play.add_argument("--seed", type=SEED, default=DEFAULT_SEED, help="random seed (default 1)")
    play.add_argument("--game", type=int_at_least(0, "game", MAX_SEED), default=0, metavar="INDEX",
                      help="game index under the seed (default 0); a tournament's game g with its seat "
                           "order (games.parquet seat_s_agent) replays exactly")
    play.add_argument("--human", action="append", type=int_at_least(0, "human seat"), metavar="SEAT",
                      help="play seat SEAT yourself at the terminal (repeatable); you see only what that seat "
                           "may see (RULES.md §10, at the root of the repository)")
    play.add_argument("--svg", metavar="FILE", help="also draw the table as an SVG picture (the final state, or "
                      "the one after --at STEP)")
    play.add_argument("--png", metavar="FILE", help="also draw the table as a PNG picture (as --svg)")
    play.add_argument("--at", type=int_at_least(0, "at", MAX_SEED), metavar="STEP",
                      help="the state --svg/--png draw: after action STEP (0: the deal; default: the end)")
    play.add_argument("--view", type=int_at_least(0, "view"), metavar="SEAT",
                      help="--svg/--png draw the table as seat SEAT sees it (RULES.md §10; default: the full view)")
    play.add_argument("--html", metavar="FILE",
                      help="also write one self-contained HTML replay of the game to step through (buttons and "
                           "arrow keys; the seat's view or the full view)")

    tour = sub.add_parser(
        "tournament", help="run an experiment file, or play one rotated line-up given by flags",
        description="With an experiment file (cya-sim tournament experiments/<name>.toml [flags]; see "
                    "`cya-sim tournament FILE --help` for its flags): play every missing chunk of its games into "
                    "its results folder, then write REPORT.md, the CSV tables and the plots. With flags only: "
                    "play many games with seats rotated so every agent sits in every seat equally often; "
                    "play it through the same runner as an experiment file into --out (manifest.json, "
                    "games.parquet/ in chunks, runs.json, REPORT.md, summary.csv with per-game win rates and per-seat shares, their fair values and game-clustered 95% intervals, plots); "
                    "rerunning the same command after an interruption resumes. With no options: classic rules, 4 players, greedy vs "
                    f"random, {DEFAULT_GAMES} games, seed 1, into {DEFAULT_OUT}.")
    tour.add_argument("experiment", nargs="?", type=Path, metavar="EXPERIMENT.toml",
                      help="an experiment file (experiments/<name>.toml); its own flags override its fields")
    add_rule_args(tour)
    tour.add_argument("--agents", default=DEFAULT_AGENTS, metavar="A,B,...",
                      help="agents, comma-separated, cycled to fill the seats (default greedy,random)")
    tour.add_argument("--players", type=PLAYERS, default=DEFAULT_PLAYERS, metavar="P",
                      help=f"table size (default {DEFAULT_PLAYERS})")
    tour.add_argument("--games", type=games(), default=DEFAULT_GAMES, metavar="G",
                      help=f"number of games (default {DEFAULT_GAMES}; a multiple of P balances the seats)")
    tour.add_argument("--seed", type=SEED, default=DEFAULT_SEED,
                      help=f"tournament seed (default {DEFAULT_SEED})")
    tour.add_argument("--out", type=Path, default=Path(DEFAULT_OUT), metavar="FOLDER",
                      help=f"results folder: new, empty, or this same tournament's (default {DEFAULT_OUT})")
    tour.add_argument("--engine", choices=("batched", "reference"), default="batched",
                      help="batched (default; the reference engine is used, with a note, while the batched "
                           "engine is not installed) or reference")
    tour.add_argument("--workers", type=WORKERS, metavar="N",
                      help="local worker processes (default: all cores; one for a small run of built-in compiled agents, "
                           "at most 20,000 games)")
    tour.add_argument("--chunk-size", type=games("chunk size"), metavar="G",
                      help="games per unit of work (default: automatic; results do not depend on it)")
    tour.add_argument("--quiet", action="store_true", help="no progress bar and no header (batch jobs)")
    parser.tournament_flags = tour  # the flags-only form (experiment_argument reads its flags)

    sub.add_parser("report", help="rebuild REPORT.md, tables and plots of a results folder (see `cya-sim report "
                                  "--help`)", add_help=False)

    sub.add_parser("tips", help="run the tip study and write its verdict table (see `cya-sim tips --help`)",
                   add_help=False)

    sub.add_parser("tune", help="search a policy family's parameters against a field (see `cya-sim tune --help`)",
                   add_help=False)
    sub.add_parser("metagame", help="the empirical game of an agent pool: Nash mix, alpha-Rank, dominance (see "
                                    "`cya-sim metagame --help`)", add_help=False)
    sub.add_parser("leaderboard", help="rate every agent of a board file at every table size and preset (see "
                                       "`cya-sim leaderboard --help`)", add_help=False)
    sub.add_parser("exploit", help="how exploitable an agent is: a best response trained against it (see "
                                   "`cya-sim exploit --help`)", add_help=False)

    rules = sub.add_parser("rules", help="print a preset's options and deck",
                           description="Print every option of a rule preset and its deck. What each option means, and the rule "
                                       "ID it belongs to, is in the rules specification (RULES.md at the root of "
                                       "the cya-sim repository).")
    add_rule_args(rules, positional=True)

    bench = sub.add_parser("bench", help="measure engine speed (see `cya-sim bench --help`)", add_help=False)
    command = next((a for a in argv if not a.startswith("-")), None)
    if command == "bench":
        try:
            from cya_sim.studies import bench as bench_module
        except ImportError as e:
            raise UsageError(f"cya-sim bench: error: the benchmark is not available in this installation ({e})")
        from cya_sim.cli.bench import add_arguments

        bench.add_argument("-h", "--help", action="help", help="show this help message and exit")
        add_arguments(bench)
        bench.set_defaults(run=bench_module.run)
    return parser


def _cmd_rules(args: argparse.Namespace) -> int:
    print(_rules_from_args(args).describe())
    return 0


def _cmd_play(args: argparse.Namespace) -> int:
    from cya_sim.play.families import calls_compiled_plugin

    rules = _rules_from_args(args)
    names = _agents_from_args(args.agents or DEFAULT_AGENTS, rules)
    n = args.players if args.players is not None else (
        len(names) if args.agents and len(names) >= 2 else DEFAULT_PLAYERS)
    _check_table(rules, n, args)
    if len(names) > n:
        raise UsageError(f"--agents: {len(names)} agents for {n} seats; give 1 to {n} agents (cycled to fill seats)")
    seats = [_agent_factory(rules)(names[s % len(names)]) for s in range(n)]
    if calls_compiled_plugin(names) and sys.stdout is sys.__stdout__ and sys.stderr is sys.__stderr__:
        return _in_child_process(lambda: _play_seats(args, rules, seats, n), "play")
    return _play_seats(args, rules, seats, n)


def _in_child_process(work: Callable[[], int], command: str) -> int:
    """Run ``work`` in a forked child process and return its exit status, so that Ctrl-C ends the command even
    while a user's compiled plug-in loops for ever (compiled code never returns to Python, which sees a signal
    only between bytecodes): the child ignores SIGINT, and on Ctrl-C this process stops it (SIGTERM, then SIGKILL
    after 2 s) and the error boundary prints "interrupted" (exit 130). The child shares the terminal (standard
    input and output), so ``--human`` play works in it; its errors pass this module's one error boundary there.
    Used only when the real standard streams are in place (a caller that captures them plays in its process)."""
    import signal

    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:  # the child: never returns
        status = 1
        try:
            signal.signal(signal.SIGINT, signal.SIG_IGN)
            status = _guarded(work, command, debug="--debug" in sys.argv)
        finally:
            try:
                sys.stdout.flush()
                sys.stderr.flush()
            finally:
                os._exit(status)
    try:
        _, wait_status = os.waitpid(pid, 0)
    except BaseException:
        os.kill(pid, signal.SIGTERM)
        for _ in range(20):
            if os.waitpid(pid, os.WNOHANG)[0]:
                break
            time.sleep(0.1)
        else:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        raise
    return os.waitstatus_to_exitcode(wait_status) % 256


def _play_seats(args: argparse.Namespace, rules, seats: list, n: int) -> int:
    """The game of ``cya-sim play`` once its seats are made: at the terminal (``--human``), drawn (``--svg``,
    ``--png``, ``--html``) or logged."""
    from cya_sim.game.rng import root_key
    from cya_sim.play.families import family_of

    if args.human:  # every game family: the terminal env (cya_sim.env.terminal)
        drawn = next((f for f, v in (("--svg", args.svg), ("--png", args.png), ("--html", args.html),
                                      ("--at", args.at), ("--view", args.view)) if v is not None), None)
        if drawn:
            raise UsageError(f"{drawn}: draws a game played by agents, not one played with --human; drop one of them")
        bad = [h for h in args.human if h >= n]
        if bad:
            raise UsageError(f"--human: seat {bad[0]}; the seats are 0 to {n - 1}")
        from cya_sim.env.terminal import play_human

        return play_human(rules, seats, args.human, args.seed, args.game)
    if args.svg or args.png or args.html or args.at is not None or args.view is not None:
        return _play_pictures(args, rules, seats)
    family_of(rules).play_game(rules, seats, root_key(args.seed), args.game, log=print)
    return 0


def _play_pictures(args: argparse.Namespace, rules, seats: list) -> int:
    """``cya-sim play`` with ``--svg``/``--png``/``--html``: the same game and log, then the pictures
    (:mod:`cya_sim.render`, :func:`cya_sim.env.replay.record_game`). Every flag is checked before the game."""
    from pathlib import Path

    n = len(seats)
    if not (args.svg or args.png) and (args.at is not None or args.view is not None):
        flag = "--at" if args.at is not None else "--view"
        raise UsageError(f"{flag}: chooses what --svg/--png draw; give --svg FILE or --png FILE too")
    if args.view is not None and args.view >= n:
        raise UsageError(f"--view: seat {args.view}; the seats are 0 to {n - 1}")
    for flag, name in (("--svg", args.svg), ("--png", args.png), ("--html", args.html)):
        if name and (Path(name).is_dir() or not Path(name).absolute().parent.is_dir()):
            raise UsageError(f"{flag}: {name!r} is a folder or in a folder that does not exist; give a file path "
                             "in an existing folder")
    from cya_sim.env.replay import record_game
    from cya_sim.render import replay
    from cya_sim.render.raster import save_png
    from cya_sim.render.svg import save_svg

    want = args.at
    frames, state = record_game(rules, seats, args.seed, args.game, log=print, at=want,
                                keep=None if args.html else (lambda k: False))
    if want is not None and want >= len(frames):
        raise UsageError(f"--at: step {want:,}; this game has steps 0 (the deal) to {len(frames) - 1:,}; the log "
                         "above is the whole game")
    if args.svg or args.png:
        names = [getattr(a, "name", type(a).__name__) for a in seats]
        if args.svg:
            save_svg(state, args.svg, seat=args.view, names=names)
        if args.png:
            save_png(state, args.png, seat=args.view, names=names)
    if args.html:
        title = (f"cya-sim play --rules {rules.name} --players {n} --seed {args.seed} --game {args.game}: "
                 + ", ".join(f"seat {s} {getattr(a, 'name', type(a).__name__)}" for s, a in enumerate(seats)))
        replay.save_replay([f for f in frames if f is not None], args.html, title)
    for path in (args.svg, args.png, args.html):  # on stderr: standard output stays the game's log
        if path:
            print(f"cya-sim play: wrote {path}", file=sys.stderr)
    return 0


def _format_summary(summary, unit: str = "dollars") -> str:
    """The console table of a tournament summary (:func:`cya_sim.reports.report.console_summary`)."""
    from cya_sim.reports.report import console_summary

    return console_summary(summary, unit)


def _flags(parser: argparse.ArgumentParser) -> tuple[frozenset[str], frozenset[str]]:
    """(every option string of ``parser``, those that take a value)."""
    every = {o for a in parser._actions for o in a.option_strings}
    valued = {o for a in parser._actions if a.nargs != 0 for o in a.option_strings}
    return frozenset(every), frozenset(valued)


@functools.cache  # the parsers never change within a process: built once, not for every look-up of a command line
def tournament_flags() -> tuple[frozenset[str], frozenset[str], frozenset[str]]:
    """The flags of ``cya-sim tournament``: (those that take a value in either form, those of the experiment-file form
    only, those of the flags-only form), read from the two parsers (:func:`build_parser`,
    :func:`cya_sim.cli.experiment.tournament_parser`) so that they never drift apart."""
    from cya_sim.cli.experiment import tournament_parser

    flags_every, flags_valued = _flags(build_parser(["tournament"]).tournament_flags)
    file_every, file_valued = _flags(tournament_parser())
    return flags_valued | file_valued, file_every - flags_every, flags_every


def experiment_argument(args: Sequence[str]) -> int | None:
    """Index in ``args`` (the words after ``tournament``) of an experiment file, or None (flags-only mode).

    The experiment file is the first positional word, skipping the values of flags that take one in either form
    (``--deck my_deck.toml`` is a deck, ``--scheduler tcp://...`` an address, not an experiment).
    """
    valued = tournament_flags()[0]
    skip = False
    for i, a in enumerate(args):
        if skip:
            skip = False
        elif a in valued:
            skip = True
        elif not a.startswith("-"):
            return i
    return None


def refuse_file_only_flags(args: Sequence[str]) -> None:
    """Refuse, in flags-only mode (no experiment file in ``args``), a flag of the experiment-file form only
    (``--scheduler``, ``--set``, ``--design``, ``--no-report``...), naming it.

    Raises:
        UsageError: such a flag (as ``--flag`` or ``--flag=value``).
    """
    _, file_only, _ = tournament_flags()
    for a in args:
        name = a.split("=", 1)[0]
        if name in file_only:
            raise UsageError(f"cya-sim tournament: error: {name} works with an experiment file only (cya-sim "
                             f"tournament experiments/<name>.toml {name} ...); see `cya-sim tournament --help`")


def played_line(games: int, elapsed_s: float, workers: int, engine: str) -> str:
    """``played N games in T s (R games/s, W workers, engine E)``; nothing played gives no rate."""
    if games == 0 or elapsed_s <= 0:
        return f"played no new games (every game is already stored), engine {engine}"
    return (f"played {games:,} games in {elapsed_s:.1f} s ({games / elapsed_s:,.1f} games/s, {workers} worker"
            f"{'s' if workers > 1 else ''}, engine {engine})")


def _cmd_tournament(args: argparse.Namespace) -> int:
    import shlex

    from cya_sim.runs.experiment import resolve_engine
    from cya_sim.studies.tournament import TournamentConfig, TournamentError, check_out_folder, run_tournament

    rules = _rules_from_args(args)
    names = _agents_from_args(args.agents, rules)
    _check_table(rules, args.players, args)
    try:
        config = TournamentConfig(rules=rules, agents=names, n_players=args.players, games=args.games,
                                  seed=args.seed, engine=args.engine, workers=args.workers,
                                  chunk_size=args.chunk_size, out=args.out)
        check_out_folder(config)
    except TournamentError as e:
        raise UsageError(f"{_FLAGS.get(e.field, e.field)}: {e.detail}") from None
    if not args.quiet:
        lineup = ", ".join(names[s % len(names)] for s in range(config.n_players))
        engine, note = resolve_engine(config.run_engine, rules)
        print(f"tournament: rules {rules.name}, {config.n_players} players, line-up {lineup} (seats rotated), "
              f"{config.games:,} games, seed {config.seed}")
        print(f"engine: {engine}" + (f" ({note})" if note else ""))
        if config.games % config.n_players:
            print(f"note: {config.games} games is not a multiple of {config.n_players}; seats are balanced "
                  "to within one game")
    try:
        result = run_tournament(config, progress=not args.quiet,
                                command="cya-sim " + shlex.join(args.argv))
    except TournamentError as e:
        raise UsageError(f"{_FLAGS.get(e.field, e.field)}: {e.detail}") from None
    if args.quiet and result.engine_note:
        print(f"engine: {result.engine} ({result.engine_note})")
    print(played_line(result.games_played, result.elapsed_s, result.workers, result.engine))
    if result.compiled:
        print(f"compiled once before the games: {result.compile_s:.1f} s ({', '.join(result.compiled)}; later runs "
              "load them from the disk cache)")
    print(_format_summary(result.summary, rules.score_unit))
    from cya_sim.reports.report import SUMMARY_LEGEND

    print(textwrap.fill(SUMMARY_LEGEND, width=110))
    capped = int(result.table.capped.sum())
    if capped:
        from cya_sim.play.families import family_of

        option, unit = family_of(rules).cap_option
        print(f"note: {capped:,} of {len(result.table):,} games were stopped by the {unit} cap (option {option} = "
              f"{getattr(rules, option):,}), not by an end condition; column capped of games.parquet flags them")
    print(f"wrote {config.out}: " + ", ".join(p.name for p in result.files))
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``cya-sim`` with ``argv`` (default ``sys.argv[1:]``); return the exit status.

    The one error boundary of the command line: 0 on success; 2 for a refused
    input, with one line on stderr naming the flag, file, field, agent, seat
    or game (:func:`describe_error`); 1 for an internal error (a bug: one line,
    and the traceback with ``--debug``); 130 when interrupted (Ctrl-C), 143 when terminated (SIGTERM, in
    cya-sim's own process: :func:`cya_sim.cli.parsing.handle_sigterm`); 141 when the
    output pipe is closed early. ``--debug`` anywhere on the command line also
    prints the traceback of a refused input.
    """
    if argv is None:  # the process's own entry (console script, python -m), not a caller in the same process
        parsing.OWN_PROCESS = True
        parsing.handle_sigterm()
    status = _main(argv)
    if argv is None:
        parsing.results_written()
    return status


def _main(argv: Sequence[str] | None) -> int:
    """:func:`main` without the exit-time Ctrl-C handler."""
    argv = list(sys.argv[1:] if argv is None else argv)
    debug = "--debug" in argv
    argv = [a for a in argv if a != "--debug"]
    command = next((a for a in argv if not a.startswith("-")), None)
    return _guarded(lambda: _dispatch(argv), command, debug)


def _guarded(work: Callable[[], int], command: str | None, debug: bool) -> int:
    """``work()``'s exit status through the error boundary of :func:`main` (one line, the status it gives)."""
    try:
        return work()
    except KeyboardInterrupt as e:
        return parsing.interrupt_exit(e)
    except BrokenPipeError:  # output piped into `head` and closed early
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    except Exception as e:  # noqa: BLE001 -- the one error boundary: every error becomes one line
        if debug:
            traceback.print_exc()
        line, status = describe_error(e, command)
        try:
            print(line, file=sys.stderr)
        except OSError:
            pass
        return status


def _dispatch(argv: list[str]) -> int:
    """Parse ``argv`` and run its command (exceptions go to :func:`main`'s boundary)."""
    if argv[:1] == ["report"]:
        from cya_sim.cli.experiment import report_main

        return report_main(argv[1:])
    if argv[:1] == ["tips"]:
        from cya_sim.cli.tips import tips_main

        return tips_main(argv[1:])
    if argv[:1] == ["tune"]:
        from cya_sim.cli.tune import tune_main

        return tune_main(argv[1:])
    if argv[:1] == ["metagame"]:
        from cya_sim.cli.metagame import metagame_main

        return metagame_main(argv[1:])
    if argv[:1] == ["leaderboard"]:
        from cya_sim.cli.leaderboard import leaderboard_main

        return leaderboard_main(argv[1:])
    if argv[:1] == ["exploit"]:
        from cya_sim.cli.exploit import exploit_main

        return exploit_main(argv[1:])
    if argv[:1] == ["tournament"]:
        i = experiment_argument(argv[1:])
        if i is not None:
            from cya_sim.cli.experiment import tournament_main

            return tournament_main([argv[1 + i], *argv[1:1 + i], *argv[2 + i:]])
        refuse_file_only_flags(argv[1:])
    parser = build_parser(argv)
    try:
        args, extra = parser.parse_known_args(argv)
        if extra:  # refused by the sub-command's parser, so that the line names it (cya-sim bench: error: ...)
            subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
            sub = subs[0].choices.get(getattr(args, "command", None)) if subs else None
            (sub or parser).error(f"unrecognized arguments: {' '.join(extra)}")
        args.argv = argv
    except SystemExit as e:  # --help, --version, a refused argument (one line printed)
        return int(e.code or 0)
    if args.command == "bench":
        from cya_sim.cli.bench import check_tournament_agents

        check_tournament_agents(args)
        return int(args.run(args) or 0)
    command = {"rules": _cmd_rules, "play": _cmd_play, "tournament": _cmd_tournament}[args.command]
    try:
        return command(args)
    except UsageError as e:
        raise UsageError(f"cya-sim {args.command}: error: {e}") from None


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


def describe_error(e: BaseException, command: str | None = None) -> tuple[str, int]:
    """The one line and exit status of an exception that reached the command line.

    Returns:
        (line, 2) for a user-caused error: a refused command line, rule option,
        deck, position, experiment field or results folder; an agent that
        raised or returned a bad action (agent, seat and game named); a file
        that cannot be read or written (named), a full disk, a file that is
        not UTF-8, memory exhausted. (line, 1) for anything else (a bug).
    """
    prefix = f"cya-sim {command}: error: " if command in ("play", "tournament", "rules", "report", "bench") \
        else "cya-sim: error: "
    if isinstance(e, UsageError):
        return _one_line(str(e)), 2
    names = {f"{c.__module__}.{c.__qualname__}" for c in type(e).__mro__}
    if "cya_sim.studies.tournament.TournamentError" in names:
        return prefix + _one_line(f"{_FLAGS.get(e.field, e.field)}: {e.detail}"), 2
    if "cya_sim.errors.FieldError" in names:  # an experiment field, or the results folder (field out)
        from cya_sim.cli.experiment import FLAG_OF

        flag = FLAG_OF.get(e.field)
        return prefix + _one_line(f"field {e.field!r}" + (f" ({flag})" if flag else "") + f": {e.detail}"), 2
    if isinstance(e, UserInputError):  # every game's and layer's user errors (cya_sim.errors)
        return prefix + _one_line(str(e)), 2
    if isinstance(e, OSError):
        return prefix + _os_error_text(e), 2
    if isinstance(e, UnicodeDecodeError):
        return prefix + _one_line(f"a file is not UTF-8 text ({e}); save it as UTF-8"), 2
    if isinstance(e, RuntimeError) and "no locator available" in str(e):  # numba: nowhere to write its cache
        from cya_sim.cache import NO_CACHE_FOLDER

        return prefix + NO_CACHE_FOLDER, 2
    if isinstance(e, MemoryError):
        return prefix + "out of memory; use fewer --workers, fewer games per chunk (--chunk-size) or a larger machine", 2
    text = _one_line(str(e))
    return (f"cya-sim: internal error (a bug in cya-sim, please report it): {type(e).__name__}"
            + (f": {text}" if text else "") + "; rerun with --debug for the traceback"), 1


def _os_error_text(e: OSError) -> str:
    """One line for a file-system error: what failed, on which file, and what to do."""
    files = " -> ".join(repr(str(f)) for f in (e.filename, e.filename2) if f)
    what = e.strerror or _one_line(str(e)) or type(e).__name__
    if e.errno == errno.ENOSPC:
        return (f"no space left on device{' writing ' + files if files else ''}; free some space and run the same "
                "command again (results already written are kept)")
    if e.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        return f"cannot write or read {files or 'a file'}: {what}; give a folder you can write (--out)"
    if e.errno == errno.ENOTDIR:
        return f"{files or 'a path'}: a part of the path is a file, not a folder; give a folder path (--out)"
    return _one_line(f"{files + ': ' if files else ''}{what}")


if __name__ == "__main__":
    sys.exit(main())
