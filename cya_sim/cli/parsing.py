"""What the sub-commands share: one-line usage errors with exit status 2, integer flags, and the end of Ctrl-C once
their results are written."""

from __future__ import annotations

import argparse
import re
import sys
from typing import NoReturn


class ExitingParser(argparse.ArgumentParser):
    """argparse whose usage errors are one line and exit with status 2 (no usage block)."""

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
    except ValueError:  # not the main thread
        pass
