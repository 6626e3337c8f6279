"""The one home of the command line's parsing: the parser class every sub-command uses, the flag types, the flags
several sub-commands share (the rules, the rule options), the usage error, and the end of Ctrl-C once a command's
results are written.

Every refused flag is one line naming it and what is allowed, exit status 2 (:class:`ExitingParser`,
:class:`UsageError`); every integer flag is read by :func:`int_at_least` and bounded by the run's limits
(:mod:`cya_sim.game.limits`).
"""

from __future__ import annotations

import argparse
import re
import shlex
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NoReturn

from cya_sim.game.limits import MAX_GAMES, MAX_SEED, MAX_WORKERS
from cya_sim.tomltext import TomlTextError, toml_value

#: The rule preset of every command that plays when ``--rules`` is not given.
DEFAULT_RULES = "classic"
#: Largest table size a flag may ask for (a rule set's own range is checked with the rules, R-PRESETS).
MAX_PLAYERS = 12


class UsageError(Exception):
    """A refused command line; ``str(e)`` is the one line printed (exit status 2)."""


class ExitingParser(argparse.ArgumentParser):
    """argparse whose usage errors are one line and exit with status 2 (no usage block): the parser of ``cya-sim``
    and of each of its sub-commands."""

    def error(self, message: str) -> NoReturn:
        print(f"{self.prog}: error: {message}", file=sys.stderr)
        raise SystemExit(2)


def int_at_least(lo: int, what: str, hi: int | None = None):
    """An argparse ``type``: the text as an int from ``lo`` (to ``hi``, when given), else a one-line refusal naming
    ``what`` and the range.

    Only ASCII decimal digits with an optional sign are read, at most 40 characters: Python's ``int`` would also take
    other scripts' digits (``'١٢'``), underscores (``'1_000'``) and surrounding blanks, which a user did not mean as a
    number of games or a seed.
    """
    allowed = f">= {lo}" if hi is None else f"from {lo} to {hi:,}"

    def parse(text: str) -> int:
        v = int(text) if len(text) <= 40 and _DECIMAL.fullmatch(text) else None
        if v is None or v < lo or (hi is not None and v > hi):
            raise argparse.ArgumentTypeError(f"{text[:40]!r}; {what} must be an integer {allowed}")
        return v
    return parse


_DECIMAL = re.compile(r"[+-]?[0-9]+")

#: ``--seed``: a root seed, stored as a signed 64-bit integer (``games.parquet``).
SEED = int_at_least(0, "seed", MAX_SEED)
#: ``--workers``: local worker processes.
WORKERS = int_at_least(1, "workers", MAX_WORKERS)
#: ``--players``: a table size.
PLAYERS = int_at_least(2, "players", MAX_PLAYERS)


def games(what: str = "games", lo: int = 1):
    """An argparse ``type`` for a number of games (or deals) from ``lo`` to :data:`~cya_sim.game.limits.MAX_GAMES`."""
    return int_at_least(lo, what, MAX_GAMES)


def add_rule_args(p: argparse.ArgumentParser, positional: bool = False, deck: bool = True) -> None:
    """Add the rules of a game to ``p``: ``--rules PRESET`` (or a positional ``PRESET``), ``--option KEY=VALUE``
    (repeatable, read by :func:`option_pairs`) and, with ``deck``, ``--deck FILE`` (R-PRESETS, R-DECK-CUSTOM)."""
    from cya_sim.game.rules import preset_names

    text = f"rule preset: {', '.join(preset_names())} (default {DEFAULT_RULES})"
    if positional:
        p.add_argument("rules", nargs="?", default=DEFAULT_RULES, metavar="PRESET", help=text)
    else:
        p.add_argument("--rules", default=DEFAULT_RULES, metavar="PRESET", help=text)
    p.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                   help="override a rule option, e.g. hand_size=5, end_condition=rounds:3, "
                        "challenge_draw_order=mover_first, hidden_wilds=false (repeatable; see `cya-sim rules`)")
    if deck:
        p.add_argument("--deck", type=Path, metavar="FILE",
                       help="play with a deck from a TOML file (R-DECK-CUSTOM; format of "
                            "cya_sim/game/classic/data/deck_2011.toml)")


def option_pairs(items: Sequence[str], keys: Sequence[str] | None = None, deck_flag: bool = False
                 ) -> list[tuple[str, Any]]:
    """The ``--option KEY=VALUE`` items as (key, value), in order; a value is TOML when it parses as one (``5``,
    ``true``, ``{2 = 5, default = 4}``), else its text (:func:`cya_sim.tomltext.toml_value`).

    Args:
        items: the words given to ``--option``. keys: the rule options allowed (None: any key; the rules check it
            later). deck_flag: the command has ``--deck``, which ``--option deck=...`` is refused in favour of.

    Raises:
        UsageError: an item that is not KEY=VALUE, a key not in ``keys``, ``deck`` with ``deck_flag``, or a value
            TOML refuses (an integer of more than 4,300 digits); one line naming ``--option``.
    """
    out = []
    for item in items:
        key, eq, text = item.partition("=")
        key = key.strip()
        if not eq or not key:
            raise UsageError(f"--option: {item!r} is not key=value" + (f"; keys: {', '.join(keys)}" if keys else ""))
        if deck_flag and key == "deck":
            raise UsageError("--option: give a deck with --deck FILE (a TOML deck file), not --option deck=...")
        if keys is not None and key not in keys:
            raise UsageError(f"--option: unknown rule option {key!r}; choose from: {', '.join(keys)}")
        try:
            out.append((key, toml_value(text.strip())))
        except TomlTextError as e:
            raise UsageError(f"--option {key}: {e}") from None
    return out


def run_subcommand(name: str, parser: argparse.ArgumentParser, argv: Sequence[str],
                   work: Callable[[argparse.Namespace, str], int], refused: tuple[type[BaseException], ...] = ()) -> int:
    """Parse ``argv`` (the words after ``cya-sim NAME``) with ``parser``, then ``work(args, command)`` inside the
    sub-command's boundary, and return the exit status.

    ``--help`` gives 0 and a usage error 2 (:class:`ExitingParser`). A refused input raised by ``work`` (a
    :class:`~cya_sim.errors.FieldError`, a :class:`UsageError` or one of ``refused``) prints the one line
    ``cya-sim NAME: error: ...`` and gives 2; Ctrl-C prints ``interrupted; run the same command again to resume``
    and gives 130 (the folder resumes). Anything else propagates to :func:`cya_sim.cli.main.main`'s boundary.

    Args:
        name: the sub-command. parser: its parser. argv: its words. work: runs it, given the parsed flags and
            the command line as typed (``cya-sim NAME ...``, recorded in its results); returns the exit status.
        refused: the sub-command's own error classes of a refused input.
    """
    from cya_sim.errors import FieldError

    try:
        args = parser.parse_args(list(argv))
    except SystemExit as e:
        return int(e.code or 0)
    try:
        return work(args, f"cya-sim {name} " + shlex.join([str(a) for a in argv]))
    except (FieldError, UsageError, *refused) as e:
        print(f"cya-sim {name}: error: {' '.join(str(e).split())}", file=sys.stderr)
        return 2
    except KeyboardInterrupt as e:
        return interrupt_exit(e, "; run the same command again to resume")


class Terminated(KeyboardInterrupt):
    """SIGTERM (``kill``, ``timeout``, a batch scheduler or ``docker stop``) in cya-sim's own process, raised in its main
    thread by :func:`handle_sigterm`: handled as Ctrl-C is (the workers are stopped, the run's entry in ``runs.json``
    becomes ``interrupted``, the folder resumes), with the line ``terminated ...`` and exit status 143 (128 + 15)."""


def handle_sigterm() -> None:
    """From now on a SIGTERM raises :class:`Terminated` in this process's main thread (nothing outside it)."""
    import signal

    def raise_terminated(signum, frame) -> None:
        raise Terminated

    try:
        signal.signal(signal.SIGTERM, raise_terminated)
    except ValueError:  # not the main thread
        pass


def interrupt_exit(e: KeyboardInterrupt, rest: str = "") -> int:
    """Print the one line of a stopped command (``interrupted`` or, for :class:`Terminated`, ``terminated``, then
    ``rest``) on stderr; its exit status: 130 (SIGINT) or 143 (SIGTERM)."""
    print(("terminated" if isinstance(e, Terminated) else "interrupted") + rest, file=sys.stderr)
    return 143 if isinstance(e, Terminated) else 130


#: True when ``cya-sim`` runs as its own process (set by :func:`cya_sim.cli.main.main` for the console script and
#: ``python -m``), not called by a program in the same process.
OWN_PROCESS = False


def results_written() -> None:
    """A command's results are written and its status decided: from now on, in cya-sim's own process, Ctrl-C is
    ignored (a SIGINT while the last lines print or the interpreter shuts down would otherwise end a finished run
    with "interrupted", exit 130, an atexit traceback, or exit -2 with no message). SIG_IGN, unlike a Python
    handler, survives the interpreter's finalization. A caller in the same process keeps its own Ctrl-C."""
    import signal

    if not OWN_PROCESS:
        return
    try:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)  # a SIGTERM now ends the process without a Python traceback
    except ValueError:  # not the main thread
        pass
