"""Errors shared by several layers."""

from __future__ import annotations


class UserInputError(Exception):
    """An error that reports what the user gave (an option, a deck, a position, an agent spec or the action an
    agent chose, a field of an experiment): the command line prints it in one line with exit status 2
    (:func:`cya_sim.cli.main.describe_error`).

    A layer's or a game's user errors subclass it beside their own base (``class PositionError(ValueError,
    UserInputError)``), so the command line needs no game's class names (docs/layout.md, "Adding a game").
    """


class FieldError(ValueError, UserInputError):
    """A named field of the user's input is missing or outside what is allowed.

    ``str(e)`` is one line: ``field 'design.kind': 'rr'; choose one of: ...``. The command line prints it
    with exit status 2.

    Attributes:
        field: dotted path of the field (``"games"``, ``"design.tables[1]"``, ``"out"``).
        detail: what was wrong and what is allowed.
    """

    def __init__(self, field: str, detail: str) -> None:
        super().__init__(f"field {field!r}: {detail}")
        self.field = field
        self.detail = detail
