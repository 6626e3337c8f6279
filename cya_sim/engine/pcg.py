"""PCG64 and SplitMix64 in numba, bit for bit as :mod:`cya_sim.game.rng` and NumPy.

A stream is a ``(4,) uint64`` array ``[state_hi, state_lo, inc_hi, inc_lo]``
(the 128-bit PCG64 state and increment as two 64-bit halves). NumPy's PCG64
(XSL-RR 128/64) advances ``state = state * MULT + inc (mod 2**128)`` and
outputs ``rotr64(hi ^ lo, hi >> 58)`` of the new state; ``random()`` is
``(out >> 11) * 2**-53``. These kernels do the 128-bit arithmetic on two
``uint64`` halves (the high half of a product by an LLVM 128-bit multiply,
:func:`cya_sim.engine.intrinsics.mulhi64`) so that the batched engine draws exactly the numbers the
reference engine draws (R-SETUP first dealer and shuffles, the ``random``
agent's choices).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cya_sim.engine.intrinsics import mulhi64
from cya_sim.engine.jit import JIT
from cya_sim.game.rng import _M1, _M2, GOLDEN, PCG64_MULT

_MULT_HI = np.uint64(PCG64_MULT >> 64)
_MULT_LO = np.uint64(PCG64_MULT & ((1 << 64) - 1))
_GOLDEN = np.uint64(GOLDEN)
_M1U = np.uint64(_M1)
_M2U = np.uint64(_M2)
_ONE = np.uint64(1)
_DOUBLE_UNIT = 1.0 / 9007199254740992.0  # 2**-53


@njit(**JIT)
def next64(st):
    """Advance the PCG64 stream ``st`` ((4,) uint64, in place); return the next uint64 output."""
    sh = st[0]
    sl = st[1]
    lo = sl * _MULT_LO
    hi = mulhi64(sl, _MULT_LO) + sh * _MULT_LO + sl * _MULT_HI
    lo2 = lo + st[3]
    carry = _ONE if lo2 < lo else np.uint64(0)
    hi2 = hi + st[2] + carry
    st[0] = hi2
    st[1] = lo2
    x = hi2 ^ lo2
    rot = hi2 >> np.uint64(58)
    return (x >> rot) | (x << ((np.uint64(64) - rot) & np.uint64(63)))


@njit(**JIT)
def next_double(st):
    """``numpy.random.Generator(PCG64).random()`` on stream ``st`` (float64 in [0, 1))."""
    return np.float64(next64(st) >> np.uint64(11)) * _DOUBLE_UNIT


@njit(**JIT)
def mix64(z):
    """SplitMix64 finaliser on a uint64 (as :func:`cya_sim.game.rng.mix64`)."""
    z = (z ^ (z >> np.uint64(30))) * _M1U
    z = (z ^ (z >> np.uint64(27))) * _M2U
    return z ^ (z >> np.uint64(31))


@njit(**JIT)
def seed_stream(st, key, game_index, stream):
    """Set ``st`` ((4,) uint64) to stream ``stream`` of game ``game_index`` under root ``key``.

    Same derivation as :func:`cya_sim.game.rng.stream_state`: key, game_index and
    stream are uint64-compatible integers (key a uint64, the others >= 0).
    """
    x = mix64(np.uint64(key) + np.uint64(game_index + 1) * _GOLDEN)
    x = mix64(x + np.uint64(stream + 1) * _GOLDEN)
    st[0] = mix64(x + np.uint64(1) * _GOLDEN)
    st[1] = mix64(x + np.uint64(2) * _GOLDEN)
    st[2] = mix64(x + np.uint64(3) * _GOLDEN)
    st[3] = mix64(x + np.uint64(4) * _GOLDEN) | _ONE


@njit(**JIT)
def shuffle(cards, st):
    """Fisher–Yates shuffle of ``cards`` ((N,) int8, in place) as :func:`cya_sim.game.rng.shuffle_in_place`.

    For ``i = N-1 .. 1``: ``j = floor(u * (i + 1))`` with ``u`` the next double
    of stream ``st``; swap ``cards[i]`` and ``cards[j]`` (R-SETUP, R-NEW-ROUND).
    """
    n = cards.shape[0]
    for i in range(n - 1, 0, -1):
        j = int(next_double(st) * (i + 1))
        t = cards[i]
        cards[i] = cards[j]
        cards[j] = t


@njit(cache=True)
def doubles(st, n):
    """(n,) float64: the next ``n`` doubles of stream ``st`` (for tests)."""
    out = np.empty(n, np.float64)
    for i in range(n):
        out[i] = next_double(st)
    return out


def stream_array(key: int, game_index: int, stream: int) -> np.ndarray:
    """(4,) uint64 PCG64 stream of ``(key, game_index, stream)``, computed in Python (for tests)."""
    from cya_sim.game.rng import stream_state

    state, inc = stream_state(key, game_index, stream)
    m = (1 << 64) - 1
    return np.array([state >> 64, state & m, inc >> 64, inc & m], dtype=np.uint64)
