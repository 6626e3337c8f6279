"""Seeding: one tournament seed -> independent, reproducible streams per game.

A tournament seed goes through :class:`numpy.random.SeedSequence` to a 64-bit
root key. Game ``g`` (its global index in the tournament, whatever worker
plays it) has ``1 + P`` random streams: stream 0 is the engine's (first dealer,
shuffles), stream ``1 + s`` is the agent at seat ``s``. Each stream is a NumPy
``PCG64`` generator whose 128-bit state and increment are derived from
``(root key, g, stream)`` with the SplitMix64 finaliser (Steele, Lea & Flood,
"Fast splittable pseudorandom number generators", OOPSLA 2014).

Because the derivation is pure integer arithmetic, the compiled batched
engine derives the very same streams without touching Python, and PCG64's
``random()`` is reproduced there bit for bit (O'Neill 2014, XSL-RR 128/64 as in
NumPy), so both engines deal the same cards and a random agent makes the same
choices in both.
"""

from __future__ import annotations

import numpy as np

MASK64 = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15
_M1 = 0xBF58476D1CE4E5B9
_M2 = 0x94D049BB133111EB
PCG64_MULT = 0x2360ED051FC65DA44385DF649FCCF645


def root_key(seed: int | np.random.SeedSequence) -> int:
    """64-bit root key of a tournament seed (via ``numpy.random.SeedSequence``).

    Raises:
        TypeError, ValueError: from SeedSequence for a negative or non-int seed.
    """
    ss = seed if isinstance(seed, np.random.SeedSequence) else np.random.SeedSequence(seed)
    return int(ss.generate_state(1, np.uint64)[0])


def mix64(z: int) -> int:
    """SplitMix64 finaliser on a 64-bit int."""
    z &= MASK64
    z = ((z ^ (z >> 30)) * _M1) & MASK64
    z = ((z ^ (z >> 27)) * _M2) & MASK64
    return z ^ (z >> 31)


def stream_state(key: int, game_index: int, stream: int) -> tuple[int, int]:
    """(state, inc) 128-bit ints of PCG64 stream ``stream`` of game ``game_index``."""
    x = mix64(key + (game_index + 1) * GOLDEN)
    x = mix64(x + (stream + 1) * GOLDEN)
    o = [mix64(x + i * GOLDEN) for i in range(1, 5)]
    return (o[0] << 64) | o[1], ((o[2] << 64) | o[3]) | 1


def stream_generator(key: int, game_index: int, stream: int) -> np.random.Generator:
    """A ``numpy.random.Generator`` (PCG64) on stream ``stream`` of game ``game_index``."""
    state, inc = stream_state(key, game_index, stream)
    bg = np.random.PCG64()
    bg.state = {"bit_generator": "PCG64", "state": {"state": state, "inc": inc}, "has_uint32": 0, "uinteger": 0}
    return np.random.Generator(bg)


def shuffle_in_place(cards: list[int], rng: np.random.Generator) -> None:
    """Fisher–Yates shuffle driven by ``rng.random()``; the batched engine mirrors it.

    For ``i = n-1 .. 1``: ``j = floor(u * (i + 1))`` with ``u = rng.random()``,
    then swap ``cards[i]`` and ``cards[j]``.
    """
    n = len(cards)
    if n < 2:
        return
    us = rng.random(n - 1)
    for k, i in enumerate(range(n - 1, 0, -1)):
        j = int(us[k] * (i + 1))
        cards[i], cards[j] = cards[j], cards[i]


def shuffle_uniforms(initial: list[int], order: list[int]) -> list[float]:
    """The ``n - 1`` uniforms (floats in [0, 1)) that make :func:`shuffle_in_place` turn the cards ``initial`` into
    ``order`` (a permutation of them): for ``i = n-1 .. 1`` the ``u`` whose ``j = floor(u * (i + 1))`` picks a card
    equal to ``order[i]``, at the middle of its interval. What a chance node of an OpenSpiel game feeds the engine
    for the shuffle it chose (:mod:`cya_sim.env.openspiel`).

    Raises:
        ValueError: ``order`` is not a permutation of ``initial``.
    """
    cards = list(initial)
    us = []
    for i in range(len(cards) - 1, 0, -1):
        j = cards.index(order[i], 0, i + 1)
        us.append((j + 0.5) / (i + 1))
        cards[i], cards[j] = cards[j], cards[i]
    return us


def uniform_index(rng: np.random.Generator, n: int) -> int:
    """``floor(rng.random() * n)``: a uniform pick among ``n`` (n >= 1)."""
    return int(rng.random() * n)
