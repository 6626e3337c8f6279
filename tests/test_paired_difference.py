"""The one paired per-deal difference (cya_sim.reports.stats.paired_difference) of the tip study and tune.

Coverage and test size on simulated paired nulls, 1,000 replications each, held to the central 99.9% of the
binomial distribution of the count under the nominal rate (Bin(1000, 0.95): 926 to 971 intervals covering;
Bin(1000, 0.05): 29 to 74 rejections), computed with scipy, not picked by hand; Holm's family-wise error rate on
families of paired comparisons with a common arm (tune's held-out table); the exact rules (no zero-width
interval); its refusals.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats as sps

from cya_sim.reports.stats import FEW_NONZERO_DEALS, holm, paired_difference, tost_p

REPS = 1000
#: The counts an exact 95% interval (5% test) lands in with probability 0.999 over REPS replications.
COVER_BAND = tuple(int(x) for x in sps.binom.interval(0.999, REPS, 0.95))
REJECT_BAND = tuple(int(x) for x in sps.binom.interval(0.999, REPS, 0.05))


def _paired_deals(rng: np.random.Generator, deals: int, delta: float, rotations: int = 4, arms: int = 2):
    """(arms, deals) per-deal win rates: each arm's mean over its rotations of a deal.

    A deal's luck ``u ~ Beta(2, 2)`` is shared by every arm (the duplicate deal); arm 0 wins each rotation with
    probability ``u / 2 + delta``, every other arm with ``u / 2``, so the true mean per-deal difference of arm 0
    against any other arm is exactly ``delta`` and the differences are discrete, bounded by 1 and correlated
    between comparisons with arm 0, as in the tip study and tune's held-out run.
    """
    u = rng.beta(2.0, 2.0, deals)
    p = np.vstack([u / 2 + delta] + [u / 2] * (arms - 1))
    return rng.binomial(rotations, p) / rotations


@pytest.mark.parametrize("delta", [0.0, 0.03])
def test_interval_covers_the_true_mean_difference_and_the_test_keeps_its_size(delta):
    """1,000 replications of 200 paired deals (4 rotations each): the 95% interval held the truth in 947 (delta 0)
    and 949 (delta 0.03) of them (94.7%, 94.9%); at delta 0 the test of no difference rejected 53 times (5.3%)."""
    rng = np.random.default_rng(2030 + int(1000 * delta))
    cover = reject = 0
    for _ in range(REPS):
        w = _paired_deals(rng, 200, delta)
        e = paired_difference(w[0] - w[1])
        assert e.rule == "t" and e.deals == 200 and e.low < e.value < e.high
        cover += e.low <= delta <= e.high
        reject += e.p < 0.05
    assert COVER_BAND[0] <= cover <= COVER_BAND[1], cover
    if delta == 0.0:
        assert REJECT_BAND[0] <= reject <= REJECT_BAND[1], reject


def test_rare_differences_get_the_exact_bound_which_covers_where_a_zero_width_interval_did_not():
    """A switch that changes a winner on 0.3% of deals (1,000 deals: 3 differing deals expected, none in 5% of
    the replications: 54 here). The exact sign-count bound covers the truth 0.003 in all 1,000 replications (it is
    conservative: at least 95% by construction); the t interval with tune's old zero-width rule covered 784."""
    rng = np.random.default_rng(7)
    q, n = 0.003, 1000
    cover = cover_t = 0
    for _ in range(REPS):
        d = (rng.random(n) < q).astype(np.float64)
        e = paired_difference(d)
        cover += e.low <= q <= e.high
        assert e.high > e.low
        if e.rule == "t":
            cover_t += e.low <= q <= e.high
        else:
            assert e.rule == "few non-zero deals" and e.p == 1.0
            m = int(d.sum())
            se = d.std(ddof=1) / np.sqrt(n) if m else 0.0  # the t interval, zero-width when no deal differs
            half = sps.t.ppf(0.975, n - 1) * se
            cover_t += d.mean() - half <= q <= d.mean() + half
    assert cover >= COVER_BAND[0], cover
    assert cover_t < COVER_BAND[0], cover_t  # why the exact rule: the t interval fails here


def test_holm_keeps_the_family_wise_error_rate_of_comparisons_with_a_common_arm(monkeypatch):
    """tune compares its best spec with each other arm and adjusts with Holm (1979); the tip study adjusts its
    rows the same way. Five null comparisons sharing arm 0, 1,000 families of 200 deals: some Holm-adjusted
    p < 0.05 in 42 families (4.2%; raw p: 165)."""
    import gc

    monkeypatch.setattr(gc, "collect", lambda *a: 0)  # statsmodels' Holm runs gc.collect() per call (0.1 s here)
    rng = np.random.default_rng(11)
    k = 5
    family = raw = 0
    for _ in range(REPS):
        w = _paired_deals(rng, 200, 0.0, arms=k + 1)
        p = np.array([paired_difference(w[0] - w[j]).p for j in range(1, k + 1)])
        family += bool((holm(p) < 0.05).any())
        raw += bool((p < 0.05).any())
    assert family <= REJECT_BAND[1], family
    assert raw > REJECT_BAND[1], raw  # unadjusted, the family errs far more often than 5%


def test_identically_zero_differences_have_an_exact_interval_not_a_zero_width_one():
    """Two agents that play alike on every deal: effect 0, an interval of ±(1 - 0.025^(1/D)) (the rule of three,
    about ±3.7/D), no direction (p = 1), and equivalence within ±0.5 pp once D is large enough (exact TOST)."""
    for n in (10, 400, 5000):
        e = paired_difference(np.zeros(n), 0.95, 0.005)
        u = 1 - 0.025 ** (1 / n)
        assert e.rule == "few non-zero deals" and e.value == 0.0 and e.se == 0.0
        assert (e.low, e.high) == pytest.approx((-u, u)) and e.p == 1.0
        assert e.p_tost == pytest.approx(0.995 ** n)
    assert paired_difference(np.zeros(400), 0.95, 0.005).p_tost > 0.05  # 400 deals cannot bound it within ±0.5 pp
    assert paired_difference(np.zeros(5000), 0.95, 0.005).p_tost < 0.05 and paired_difference(np.zeros(5000)).high < 0.005
    assert np.isnan(paired_difference(np.zeros(50)).p_tost)  # no margin, no TOST


def test_a_single_nonzero_deal_gets_the_exact_bound_not_a_t_interval():
    """Issue 23: one deal of n differing gave a t interval whose half-width equals the effect and TOST p < 0.0001.
    Clopper–Pearson bounds on the shares of positive and negative deals, |D| <= 1; no direction (p = 1)."""
    n = 3022
    d = np.zeros(n)
    d[17] = 0.25
    e = paired_difference(d, 0.95, 0.005)
    assert e.rule == "few non-zero deals" and e.value == pytest.approx(0.25 / n)
    assert e.se == pytest.approx(e.value)  # the t interval's width would have been the effect itself
    assert e.low == pytest.approx(-(1 - 0.025 ** (1 / n)))  # no negative deal: rule of three, one side
    assert e.high == pytest.approx(sps.beta.ppf(0.975, 2, n - 1))  # one positive deal: Clopper–Pearson
    assert e.p == 1.0 and e.p_tost == pytest.approx(sps.binom.cdf(1, n, 0.005))
    assert paired_difference(d[:600], 0.95, 0.005).p_tost > 0.05
    # mixed signs: both bounds from the counts (3 positive, 2 negative of 400)
    m = np.zeros(400)
    m[:3], m[3:5] = 0.5, -1.0
    e = paired_difference(m, 0.95, 0.005)
    assert (e.low, e.high, e.p) == pytest.approx((-sps.beta.ppf(0.975, 3, 398), sps.beta.ppf(0.975, 4, 397), 1.0))
    # at FEW_NONZERO_DEALS differing deals the t interval is back, and it is scipy's one-sample t
    d[:FEW_NONZERO_DEALS] = np.linspace(-0.5, 0.5, FEW_NONZERO_DEALS) + 0.1
    t = paired_difference(d, 0.95, 0.005)
    ref = sps.ttest_1samp(d, 0.0)
    ci = ref.confidence_interval(0.95)
    assert t.rule == "t" and t.p == pytest.approx(ref.pvalue) and (t.low, t.high) == pytest.approx((ci.low, ci.high))
    assert t.p_tost == pytest.approx(tost_p(t.value, t.se, n - 1, 0.005))


def test_a_constant_nonzero_difference_gets_a_bound_and_p_values_that_agree_with_it():
    """Every deal with the same difference d: the share of deals that could differ is bounded exactly (rule of
    three), each moves the mean by at most 2; p and TOST p invert that bound (not the old 0 or 1)."""
    e = paired_difference(np.full(50, 0.2), 0.95, 0.005)
    u = 1 - 0.025 ** (1 / 50)
    assert e.rule == "constant" and (e.low, e.high) == pytest.approx((0.2 - 2 * u, 0.2 + 2 * u))
    assert e.p == pytest.approx(2 * 0.9 ** 50) and e.p_tost == 1.0
    assert e.low > 0 and e.p < 0.05  # the bound excludes 0, and so does the test
    small = paired_difference(np.full(12, 0.02), 0.95, 0.005)  # 12 deals: the bound holds 0, no direction
    assert small.low < 0 < small.high and small.p > 0.05
    near = paired_difference(np.full(20000, 0.001), 0.95, 0.005)
    assert near.p_tost == pytest.approx((1 - 0.004 / 2) ** 20000) and near.high < 0.005


def test_tost_and_t_test_hold_their_size_on_simulated_nulls():
    """Per-deal differences drawn under the nulls (Schuirmann 1987): the equivalence test at the margin and the
    difference test at zero each reject at most about 5% (2,000 replications, 300 deals)."""
    rng = np.random.default_rng(5)
    reps, n, sd, margin = 2000, 300, 0.3, 0.005
    for true, which in ((0.0, "t"), (margin, "tost"), (-margin, "tost")):
        x = rng.normal(true, sd, size=(reps, n))
        m, se = x.mean(1), x.std(1, ddof=1) / np.sqrt(n)
        if which == "t":
            rej = (2 * sps.t.sf(np.abs(m) / se, n - 1) < 0.05).mean()
        else:
            rej = np.mean([tost_p(a, b, n - 1, margin) < 0.05 for a, b in zip(m, se)])
        assert rej <= 0.05 + 3 * np.sqrt(0.05 * 0.95 / reps), (true, which, rej)
    # and TOST has power when the effect is well inside the margin
    x = rng.normal(0.0, 0.1, size=(200, 20000))
    m, se = x.mean(1), x.std(1, ddof=1) / np.sqrt(20000)
    assert np.mean([tost_p(a, b, 19999, margin) < 0.05 for a, b in zip(m, se)]) > 0.8
    assert tost_p(0.0, 0.0, 10, 0.005) == 0.0 and tost_p(0.01, 0.0, 10, 0.005) == 1.0


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"diffs": [0.5, 1.5]}, "outside"),
    ({"diffs": [0.5, float("nan")]}, "outside"),
    ({"diffs": [0.5], "margin": 0.0}, "margin"),
    ({"diffs": [0.5], "bound": 0.0}, "bound"),
    ({"diffs": [0.5], "confidence": 1.0}, "confidence"),
])
def test_refusals_name_what_is_wrong(kwargs, message):
    with pytest.raises(ValueError, match=message):
        paired_difference(**kwargs)


def test_no_deals_gives_nan_fields():
    e = paired_difference(np.array([]))
    assert e.rule == "no deals" and e.deals == 0 and np.isnan([e.value, e.low, e.high, e.p]).all()
