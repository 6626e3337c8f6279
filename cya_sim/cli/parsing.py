"""What the sub-commands' own parsers share: one-line usage errors with exit status 2, and integer flags."""

from __future__ import annotations

import argparse
import sys
from typing import NoReturn


class ExitingParser(argparse.ArgumentParser):
    """argparse whose usage errors are one line and exit with status 2 (no usage block)."""

    def error(self, message: str) -> NoReturn:
        print(f"{self.prog}: error: {message}", file=sys.stderr)
        raise SystemExit(2)


def int_at_least(lo: int, what: str):
    """An argparse ``type``: the text as an int ``>= lo``, else a one-line refusal naming ``what``."""
    def parse(text: str) -> int:
        try:
            v = int(text)
        except ValueError:
            v = None
        if v is None or v < lo:
            raise argparse.ArgumentTypeError(f"{text[:40]!r}; {what} must be an integer >= {lo}")
        return v
    return parse
