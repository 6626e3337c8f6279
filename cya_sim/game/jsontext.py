"""Reading JSON a user gives (positions of every game family) without an internal error.

``json.loads`` alone lets two inputs escape as Python errors: text nested a few
thousand levels deep (``RecursionError``) and an integer of more than 4,300
digits (``ValueError``, CPython's limit on int/str conversion,
``sys.get_int_max_str_digits``). :func:`load_json` turns both, and bad JSON,
into one :class:`JsonTextError` the position readers rename to their own
error; :func:`show` prints any value in a message without raising.
"""

from __future__ import annotations

import json
import math
import sys
from typing import Any

#: Deepest nesting a position may have (a real one nests 5 levels: stacks[s][j].known_by[i][k]).
MAX_DEPTH = 64


class JsonTextError(ValueError):
    """JSON text that cannot be read: not JSON, nested deeper than :data:`MAX_DEPTH`, or a too-long number."""


def load_json(text: str) -> Any:
    """Parse JSON text, nested at most :data:`MAX_DEPTH` levels (lists and objects).

    Args:
        text: the JSON text (str).

    Returns:
        the parsed value (dict, list, str, int, float, bool or None).

    Raises:
        JsonTextError: not valid JSON (with the decoder's line and column), nested
            deeper than :data:`MAX_DEPTH`, or an integer of more digits than Python
            converts (``sys.get_int_max_str_digits()``, 4,300 by default).
    """
    try:
        data = json.loads(text)
    except RecursionError:
        raise JsonTextError(f"nested deeper than Python can read; a position nests at most {MAX_DEPTH} levels") \
            from None
    except json.JSONDecodeError as e:
        raise JsonTextError(f"not valid JSON ({e})") from None
    except ValueError as e:  # "Exceeds the limit (4300 digits) for integer string conversion"
        limit = sys.get_int_max_str_digits()
        raise JsonTextError(f"a number has more than {limit:,} digits ({' '.join(str(e).split())[:80]}); "
                            "no field of a position takes such a number") from None
    if nesting_depth(data) > MAX_DEPTH:
        raise JsonTextError(f"nested more than {MAX_DEPTH} levels deep; a position nests at most {MAX_DEPTH} levels")
    return data


def nesting_depth(value: Any, stop: int = MAX_DEPTH + 1) -> int:
    """Levels of lists and dicts in ``value`` (0 for a scalar), counted without recursion, up to ``stop``."""
    deepest = 0
    todo: list[tuple[Any, int]] = [(value, 0)]
    while todo:
        v, d = todo.pop()
        if isinstance(v, dict | list):
            d += 1
            deepest = max(deepest, d)
            if d >= stop:
                return d
            todo.extend((x, d) for x in (v.values() if isinstance(v, dict) else v))
    return deepest


def show(v: Any, width: int = 40, python_str: bool = False) -> str:
    """``v`` for an error message, at most ``width`` characters; never raises.

    JSON by default (``"3"``, ``true``); with ``python_str`` as Python shows it
    (``'clasic'``, ``True``), as the messages about rule options and card names
    do. A huge integer is shown by its size (``an integer of about 5,001
    digits``), a value nested too deep or not printable by its type.
    """
    if isinstance(v, int) and not isinstance(v, bool) and v.bit_length() > 200:
        digits = int(v.bit_length() * math.log10(2)) + 1
        return f"an integer of about {digits:,} digits"
    if nesting_depth(v, 8) >= 8:
        return f"a {type(v).__name__} nested 8 or more levels deep"
    try:
        t = repr(v) if python_str else json.dumps(v)
    except (TypeError, ValueError, RecursionError):
        return type(v).__name__
    return t if len(t) <= width else t[:width - 3] + "..."


def field_name(key: Any) -> str:
    """A JSON object key as it appears in an error's path: as is when it is a plain name
    (``hand_size``, ``draft_piles``), else Python's quoted form, at most 40 characters (a key with a
    newline or of a thousand characters stays one short line)."""
    if isinstance(key, str) and key and len(key) <= 40 and key.replace("_", "a").replace("-", "a").isalnum() \
            and key.isascii():
        return key
    return show(key, python_str=True)
