"""Errors shared by several layers."""

from __future__ import annotations


class FieldError(ValueError):
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
