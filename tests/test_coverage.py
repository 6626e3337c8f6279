"""Coverage is tested, not assumed: many small independent tournaments through the statistics layer.

Each design (:data:`cya_sim.studies.validation.DESIGNS`: A/A line-ups, repeated agents,
one-versus-field, duplicate deals) is played for real on the batched engine,
replication after replication, and every 95% interval must cover the truth
(known in A/A designs, pooled over replications otherwise) about 95% of the
time and every 5% test of a true null must reject about 5% of the time.

- default suite: the three A/A designs (greedy only, cheap), 400 replications,
  within a binomial tolerance of 3.5 standard errors of the nominal rate
  (about 91.2–98.8% and 1.2–8.8%); and the seat test of the A/A duplicate-deal
  design over 200 replications at <= 7% (issue 10);
- default suite, issue 23: the boundary design (greedy,random x2: greedy wins nearly every game), 300
  replications, within the same binomial tolerance, every interval inside its possible range;
- slow: every design, 1,000 replications, coverage 93–97% and rejections 3–7% (the boundary design:
  coverage at least 93%, rejections at most 7%; an interval that close to the bound cannot be exact).

Measured figures: docs/statistics.md (``python -m cya_sim.studies.validation --reps 1000``).
"""

from __future__ import annotations

import math

import pytest

from cya_sim.studies.validation import DESIGNS, run_design

AA = [d for d in DESIGNS if d.aa]


def _bounds(nominal: float, reps: int) -> tuple[float, float]:
    half = 3.5 * math.sqrt(nominal * (1 - nominal) / reps)
    return nominal - half, nominal + half


def _check(df, cover: tuple[float, float], reject: tuple[float, float]) -> None:
    new = df[~df["quantity"].str.startswith(("old:", "alt:"))]
    intervals = new[new["kind"] == "interval"]
    tests = new[new["kind"] == "test"]
    assert len(intervals) and len(tests)
    bad = [f"{r.quantity}: {r.rate:.1%}" for r in intervals.itertuples() if not cover[0] <= r.rate <= cover[1]]
    bad += [f"{r.quantity}: {r.rate:.1%}" for r in tests.itertuples() if not reject[0] <= r.rate <= reject[1]]
    assert not bad, f"{df['design'].iloc[0]}: " + "; ".join(bad)
    exact = new[new["kind"] == "exact"]  # fixed by the design (zero width / every unit at the null)
    assert (exact["quantity"].str.startswith("test") & (exact["rate"] > 0)).sum() == 0
    assert (~exact["quantity"].str.startswith("test") & (exact["rate"] < 1)).sum() == 0


@pytest.mark.parametrize("design", AA, ids=[d.name for d in AA])
def test_aa_designs_cover_and_keep_their_false_positive_rate(design):
    reps = 400
    _check(run_design(design, reps), _bounds(0.95, reps), _bounds(0.05, reps))


def test_aa_duplicate_deals_seat_test_rejects_at_most_7_percent_over_200_replications():
    """Issue 10: the old chi-square over games rejected about 57% here; the deal-clustered Wald test must not."""
    design = next(d for d in DESIGNS if d.aa and d.design.duplicate)
    ev = run_design(design, 200, events=True)
    seat = ev[ev["quantity"].str.startswith("test: seat")]
    old = ev[ev["quantity"].str.startswith("old: seat")]
    assert len(seat) == 200 and seat["event"].mean() <= 0.07
    assert old["event"].mean() > 0.3  # the method it replaces, on the same games


@pytest.mark.slow
@pytest.mark.parametrize("design", DESIGNS, ids=[d.name for d in DESIGNS])
def test_every_design_1000_replications(design):
    """Two-sided bands, except in the boundary design, where greedy wins about 1,919 of 1,920 games: a binomial
    count that close to its bound has no interval of exact coverage (Brown, Cai & DasGupta 2001), so its
    intervals must cover at least 93% (measured 98.1%) and its seat test reject at most 7% (measured 1.2%)."""
    from cya_sim.studies.validation import BOUNDARY

    if design is BOUNDARY:
        _check(run_design(design, 1000), (0.93, 1.0), (0.0, 0.07))
    else:
        _check(run_design(design, 1000), (0.93, 0.97), (0.03, 0.07))


def test_boundary_design_covers_at_the_boundary_and_stays_in_range():
    """Issue 23: greedy in two of four seats against random wins almost every game; its per-seat interval was
    "[50.0%, 50.0%]" and covered 24.3% of 300 tournaments, and others passed 1/2. Now every interval covers within
    the binomial tolerance and lies inside its possible range (kind "exact": every replication)."""
    from cya_sim.studies.validation import BOUNDARY

    reps = 300
    ev = run_design(BOUNDARY, reps, events=True)
    df = ev.groupby(["quantity", "kind"], sort=False)["event"].agg(checks="size", rate="mean").reset_index()
    _check(df.assign(design=BOUNDARY.name), _bounds(0.95, reps), _bounds(0.05, reps))
    rate = df.set_index("quantity")["rate"]
    assert rate["per-seat win share"] >= 0.93 and rate["per-game win rate"] >= 0.93
    assert rate["per-seat share interval inside [0, games/seat-games]"] == 1.0
    assert rate["per-seat share difference interval inside its range"] == 1.0
    # the intervals they replace, on the same replications: greedy's (agent 0, the first of each replication's
    # two rows) zero-width "[50.0%, 50.0%]", and the t interval of the difference
    old = ev[ev["quantity"] == "old: per-seat share, effective Wilson on seat-games"].groupby("rep")["event"].first()
    assert old.mean() < 0.35
    assert rate["old: per-seat share difference, t interval"] < 0.35
