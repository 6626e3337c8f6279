"""Seat arithmetic every game's compiled kernels share."""

from __future__ import annotations

from numba import njit

from cya_sim.engine.jit import JIT


@njit(**JIT)
def seat_add(seat, d, p):
    """``(seat + d) % p`` for ``0 <= seat < p`` and ``0 <= d <= p`` (int64 each; no integer division): the seat
    ``d`` places to the left of ``seat`` at a table of ``p`` (R-TURN's order)."""
    x = seat + d
    return x - p if x >= p else x
