"""The batched engine's random streams are NumPy's, bit for bit (cya_sim.game.rng, R-SETUP shuffles)."""

from __future__ import annotations

import numpy as np
import pytest
from numba import njit

from cya_sim.engine import pcg
from cya_sim.engine.intrinsics import cttz, mulhi64
from cya_sim.game.rng import root_key, shuffle_in_place, stream_generator, stream_state

CASES = [(0, 0, 0), (1, 0, 1), (12345, 7, 3), (2**63 + 5, 999_999, 0), (2**64 - 1, 2**40, 12)]


@pytest.mark.parametrize("seed,game,stream", CASES)
def test_stream_seeding_matches_splitmix_derivation(seed, game, stream):
    key = root_key(seed) if seed < 2**32 else seed
    st = np.zeros(4, np.uint64)
    pcg.seed_stream(st, np.uint64(key), game, stream)
    state, inc = stream_state(key, game, stream)
    m = (1 << 64) - 1
    assert [int(x) for x in st] == [state >> 64, state & m, inc >> 64, inc & m]


@pytest.mark.parametrize("seed,game,stream", CASES)
def test_pcg64_doubles_bit_exact_vs_numpy(seed, game, stream):
    key = root_key(seed) if seed < 2**32 else seed
    st = pcg.stream_array(key, game, stream)
    ours = pcg.doubles(st, 5000)
    ref = stream_generator(key, game, stream).random(5000)
    assert ours.dtype == np.float64
    assert np.array_equal(ours.view(np.uint64), ref.view(np.uint64))


def test_pcg64_state_after_draws_matches_numpy():
    key = root_key(3)
    st = pcg.stream_array(key, 4, 2)
    pcg.doubles(st, 1234)
    g = stream_generator(key, 4, 2)
    g.random(1234)
    s = g.bit_generator.state["state"]
    assert (int(st[0]) << 64) | int(st[1]) == s["state"]
    assert (int(st[2]) << 64) | int(st[3]) == s["inc"]


@njit
def _mulhi(a, b):
    return mulhi64(a, b)


@njit
def _cttz(x):
    return cttz(x)


def test_mulhi64_against_python_ints():
    rng = np.random.default_rng(0)
    pairs = rng.integers(0, 2**63, (2000, 2), dtype=np.uint64) * np.uint64(2) + np.uint64(1)
    extremes = np.array([[2**64 - 1, 2**64 - 1], [2**64 - 1, 1], [2**63, 2], [0, 2**64 - 1]], dtype=np.uint64)
    for a, b in np.concatenate([pairs, extremes]):
        assert int(_mulhi(a, b)) == (int(a) * int(b)) >> 64


def test_cttz_is_the_lowest_set_bit():
    rng = np.random.default_rng(1)
    for x in [1, 2, 3, 8, 12, 2**40, 2**62 + 2**5] + [int(v) for v in rng.integers(1, 2**62, 500)]:
        assert _cttz(x) == (x & -x).bit_length() - 1


@pytest.mark.parametrize("n", [2, 110, 165, 220])
def test_r_setup_shuffle_matches_reference_fisher_yates(n):
    key = root_key(9)
    for g in range(20):
        ours = (np.arange(n) % 127).astype(np.int8) if n > 127 else np.arange(n, dtype=np.int8)
        ref_in = list(ours)
        shuffle_in_place(ref_in, stream_generator(key, g, 0))
        pcg.shuffle(ours, pcg.stream_array(key, g, 0))
        assert list(ours) == ref_in
