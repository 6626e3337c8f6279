"""Reading TOML a user gives (experiment, deck, board, study files; ``--option`` values) without an internal error.

``tomllib.loads`` alone lets two inputs escape as bare Python errors: an
integer of more than 4,300 digits (``ValueError: Exceeds the limit (4300
digits) for integer string conversion``, CPython's limit,
``sys.get_int_max_str_digits``) and arrays or inline tables nested a few
hundred levels deep (``RecursionError``). :func:`load_toml` turns both, and bad
TOML, into one :class:`TomlTextError` that each reader renames to its own
error (naming its file or flag); :func:`toml_value` reads one flag value the
way every ``--option KEY=VALUE`` does. The companion of
:mod:`cya_sim.game.jsontext` for JSON positions; on the ground floor (cya_sim), as every layer reads TOML.
"""

from __future__ import annotations

import sys
import tomllib
from typing import Any


class TomlTextError(ValueError):
    """TOML text that cannot be read: not TOML (with tomllib's line and column), nested too deep, or a too-long
    integer. ``str(e)`` is one line, without the file's name (the caller adds it)."""


def load_toml(text: str) -> dict[str, Any]:
    """Parse TOML text.

    Args:
        text: the TOML document (str).

    Returns:
        the parsed table (dict).

    Raises:
        TomlTextError: not valid TOML, nested deeper than Python can read, or an integer of more digits than
            Python converts (``sys.get_int_max_str_digits()``, 4,300 by default).
    """
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise TomlTextError(f"not valid TOML ({' '.join(str(e).split())})") from None
    except RecursionError:
        raise TomlTextError("arrays or tables nested deeper than Python can read; no field nests more than a few "
                            "levels") from None
    except ValueError:  # "Exceeds the limit (4300 digits) for integer string conversion"
        raise TomlTextError(huge_integer_text()) from None


def huge_integer_text() -> str:
    """The words for an integer beyond CPython's int/str limit (one line, the limit named)."""
    limit = sys.get_int_max_str_digits()
    return (f"an integer of more than {limit:,} digits; no field takes such a number (every integer field is "
            "bounded far below it)")


def toml_value(text: str) -> Any:
    """A flag's value: the TOML value ``text`` spells (``5``, ``true``, ``[1, 2]``, ``{2 = 5}``), else the text.

    The reading of ``--option KEY=VALUE`` and of ``key:value`` game strings: a value that is not TOML is taken
    as a string (``--option end_of_turn=keep``).

    Raises:
        TomlTextError: the value is an integer of more than ``sys.get_int_max_str_digits()`` digits, or nested
            deeper than Python can read (either would otherwise be taken as a huge string and refused far later,
            or escape as a bare ValueError).
    """
    try:
        return tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        return text
    except RecursionError:
        raise TomlTextError("nested deeper than Python can read") from None
    except ValueError:
        raise TomlTextError(huge_integer_text()) from None
