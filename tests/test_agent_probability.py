"""The probabilities of agents/classic/probability.py against hand-computed values (issue: card_counter)."""

import math

import numpy as np
import pytest
from scipy.stats import hypergeom

from agents.classic.probability import expected_hidden_value, hypergeom_pmf, log_comb, p_at_most, p_holds_none


def test_log_comb_matches_math_comb():
    assert math.exp(log_comb(10, 3)) == pytest.approx(120)
    assert log_comb(3, 4) == -math.inf
    assert log_comb(3, -1) == -math.inf


def test_p_holds_none_hand_computed():
    # 10 unseen cards, 3 match, a hand of 2: C(7,2)/C(10,2) = 21/45
    assert p_holds_none(10, 3, 2) == pytest.approx(21 / 45, abs=1e-12)
    # no matching card unseen: certainly none
    assert p_holds_none(50, 0, 4) == pytest.approx(1.0)
    # every unseen card matches: certainly some
    assert p_holds_none(4, 4, 1) == 0.0


def test_hypergeom_pmf_hand_computed():
    # 10 unseen, 3 match, hand 4: P(X=1) = C(3,1) C(7,3) / C(10,4) = 3*35/210 = 1/2
    assert hypergeom_pmf(1, 10, 3, 4) == pytest.approx(0.5, abs=1e-12)
    # P(X=3) = C(3,3) C(7,1) / 210 = 7/210
    assert hypergeom_pmf(3, 10, 3, 4) == pytest.approx(7 / 210, abs=1e-12)
    assert hypergeom_pmf(4, 10, 3, 4) == 0.0


def test_p_at_most_hand_computed_and_scipy():
    # P(X<=1) = P(0) + P(1) = C(7,4)/210 + 1/2 = 35/210 + 105/210 = 2/3
    assert p_at_most(1, 10, 3, 4) == pytest.approx(2 / 3, abs=1e-12)
    for n, m, h in [(60, 14, 4), (97, 22, 5), (30, 9, 6)]:
        for k in range(5):
            assert p_at_most(k, n, m, h) == pytest.approx(hypergeom.cdf(k, n, m, h), abs=1e-12)


def test_inconsistent_counts_give_zero():
    assert hypergeom_pmf(0, 3, 1, 5) == 0.0  # a hand larger than the unseen cards


def test_expected_hidden_value_hand_computed():
    # 2 unseen Jewels ($15k), 1 Silver ($25k), 1 Gold ($50k): (30 + 25 + 50) / 4 = 26.25k
    assert expected_hidden_value(2, 15_000, np.array([1, 1]), np.array([25_000, 50_000])) == pytest.approx(26_250)
    assert expected_hidden_value(0, 15_000, np.array([0, 0]), np.array([25_000, 50_000])) == 15_000


def test_log_comb_lookup_is_bit_identical_to_compiled_lgamma():
    """The ln i! table (LN_FACT) holds what compiled ``math.lgamma`` gives, so card_counter decides as before."""
    from numba import njit

    from agents.classic.probability import LN_FACT_SIZE

    @njit
    def direct(n, k):
        return math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1)

    for n in list(range(230)) + [LN_FACT_SIZE - 1, LN_FACT_SIZE, LN_FACT_SIZE + 7]:
        for k in range(0, n + 1, max(1, n // 40)):
            assert log_comb(n, k) == direct(n, k), (n, k)
