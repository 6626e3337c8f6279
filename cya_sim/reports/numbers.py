"""Numbers as text for the console, REPORT.md and the plots' labels: an estimate never prints equal to an interval
bound it is not equal to.

A fixed number of decimals prints ``99.9% [99.7%, 99.9%]`` for an estimate of 99.88% with an upper bound of 99.94%:
the reader sees an estimate on its bound. :func:`decimals_apart` chooses, per row, the fewest decimals (at least
the table's usual number) at which every two values of the row that differ print differently — ``99.88%
[99.71%, 99.94%]`` — while values that are equal (a rate of 0 with its lower bound 0, a fixed anchor ``0 [0, 0]``)
still print equal. Two values closer than :data:`MAX_DECIMALS` decimals of the printed unit are taken as equal
(floating-point noise, not a difference a reader could use).
"""

from __future__ import annotations

import math
from collections.abc import Iterable

#: The most decimals :func:`decimals_apart` gives; values that agree to this many decimals (of the printed unit:
#: points of percent, dollars, Elo) are taken as equal.
MAX_DECIMALS = 6

#: The text of a value that is not a finite number (not computed, or undefined).
MISSING = "–"


def _finite(values: Iterable[float | None]) -> list[float]:
    return [float(v) for v in values if v is not None and math.isfinite(float(v))]


def fixed(value: float, decimals: int, signed: bool = False) -> str:
    """``value`` with ``decimals`` decimals (``+`` before a positive number when ``signed``), never ``-0.0``.

    Args:
        value: a finite number. decimals: >= 0. signed: print ``+`` before numbers that do not round to a negative.
    """
    text = f"{value:+.{decimals}f}" if signed else f"{value:.{decimals}f}"
    if float(text) == 0.0:  # -0.004 at two decimals prints 0.00 (+0.00), never -0.00
        text = f"{0.0:+.{decimals}f}" if signed else f"{0.0:.{decimals}f}"
    return text


def decimals_apart(values: Iterable[float | None], decimals: int = 1, max_decimals: int = MAX_DECIMALS) -> int:
    """The fewest decimals, at least ``decimals``, at which every two of ``values`` that differ print differently.

    Values that print equal at ``max_decimals`` are taken as equal (they may print equal). Missing (None, NaN,
    infinite) values are left out.

    Args:
        values: numbers in the unit they are printed in (percent points, dollars, Elo).
        decimals: the least number of decimals (the table's usual number), >= 0.
        max_decimals: the most, >= ``decimals``.

    Returns:
        the number of decimals, ``decimals`` to ``max_decimals``.

    Raises:
        ValueError: ``decimals`` < 0 or ``max_decimals`` < ``decimals``.
    """
    if decimals < 0 or max_decimals < decimals:
        raise ValueError(f"decimals must be >= 0 and max_decimals >= decimals; got {decimals}, {max_decimals}")
    vals = _finite(values)
    finest = [fixed(v, max_decimals) for v in vals]
    for d in range(decimals, max_decimals):
        shown: dict[str, set[str]] = {}
        for v, f in zip(vals, finest):
            shown.setdefault(fixed(v, d), set()).add(f)
        if all(len(s) == 1 for s in shown.values()):
            return d
    return max_decimals


def estimate_interval(estimate: float, low: float, high: float, decimals: int = 1, scale: float = 1.0,
                      prefix: str = "", suffix: str = "", signed: bool = False, thousands: bool = False
                      ) -> tuple[str, str]:
    """An estimate and its interval as text, ``("99.88%", "[99.71%, 99.94%]")``, with the decimals of
    :func:`decimals_apart` over the three values (so the estimate prints equal to a bound only when it is equal).

    Args:
        estimate, low, high: the estimate and its interval (NaN: not computed; the interval prints ``–``).
        decimals: the least number of decimals. scale: multiplies every value before printing (100 for a rate
            printed in percent). prefix, suffix: around each number (``"$"``, ``"%"``). signed: ``+`` before
            positive numbers (differences). thousands: ``,`` between thousands (dollars).

    Returns:
        (the estimate's text, the interval's text in brackets); :data:`MISSING` for a value that is not finite.
    """
    vals = [v * scale if v is not None and math.isfinite(v) else math.nan for v in (estimate, low, high)]
    d = decimals_apart(vals, decimals)

    def one(v: float) -> str:
        if not math.isfinite(v):
            return MISSING
        body = fixed(v, d, signed)
        if thousands:
            body = f"{float(body):+,.{d}f}" if signed else f"{float(body):,.{d}f}"
            if signed and not body.startswith(("+", "-")):
                body = "+" + body
        sign = body[0] if body[:1] in ("+", "-") else ""
        return f"{sign}{prefix}{body[len(sign):]}{suffix}"

    est = one(vals[0])
    ci = MISSING if not (math.isfinite(vals[1]) and math.isfinite(vals[2])) else f"[{one(vals[1])}, {one(vals[2])}]"
    return est, ci


def percent_interval(rate: float, low: float, high: float, decimals: int = 1, signed: bool = False
                     ) -> tuple[str, str]:
    """A rate in [0, 1] and its interval in percent: ``("99.88%", "[99.71%, 99.94%]")`` (:func:`estimate_interval`)."""
    return estimate_interval(rate, low, high, decimals, scale=100.0, suffix="%", signed=signed)


__all__ = ["MAX_DECIMALS", "MISSING", "decimals_apart", "estimate_interval", "fixed", "percent_interval"]
