"""The statistics of a tip study: paired per-deal effects per tip and cell, the TIP-HIDE-WILD contrasts, and the
per-cell tables of the measured claims (FACT-ROUNDS, TIP-BIG-POT, FACT-1360).

Per tip and cell (:func:`tip_effects`):

- the paired difference, treatment minus control, in per-game win rate and in
  mean final total (dollars). The sampling unit is the deal: per deal, each
  arm's mean over its P rotations; the effect is the mean over deals of the
  per-deal difference. The win rate's (:func:`cya_sim.reports.stats.paired_difference`,
  shared with ``cya-sim tune``): a Student-t interval on deals - 1 df, or an exact
  bound when fewer than 10 deals differ from 0 or every deal gave the same difference
  (never a zero-width interval); the two-sided test of no difference and an
  equivalence test, TOST (Schuirmann 1987, J. Pharmacokinet. Biopharm.
  15:657–680), of ``|effect| < m`` with the margin ``m`` in percentage points.
  The total's: :func:`cya_sim.reports.stats.mean_interval` (Student t on deals - 1 df);
- Holm (1979) adjustment of both p-value columns over the whole family of
  tip x cell rows of the study, and the verdicts: :mod:`cya_sim.studies.tips.verdicts`.

FACT-ROUNDS uses the ``rounds`` column of every game (:func:`rounds_table`); TIP-BIG-POT and FACT-1360 use the
per-round records of the replays (:func:`cya_sim.studies.tips.replays.trace_rounds`).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from cya_sim.reports.stats import holm, mean_interval, paired_difference, ratio_estimate
from cya_sim.runs.experiment import Experiment
from cya_sim.studies.tips.verdicts import verdict

#: The contrasts reported (later condition minus earlier), each a row of its own Holm family.
HIDE_CONTRASTS = ((1, 0, "opponents infer hidden wilds (hidden: inferring - naive field)"),
                  (2, 1, "wilds revealed vs hidden against inferring opponents (revealed - hidden)"),
                  (2, 0, "wilds revealed vs hidden from naive opponents (revealed - hidden, naive field)"))


#: Dollars at most scored in one round with the classic deck (seed 001; FACT-1360).
FACT_1360 = 1_360_000


def arm_columns(games: pd.DataFrame, exp: Experiment) -> dict[str, np.ndarray]:
    """Per game of an ablation cell: the arm (line-up) and the arm's seat outcome.

    The arm sits at line-up position 0, so in rotation r it holds seat r
    (:class:`~cya_sim.runs.schedule.Schedule`).

    Returns:
        dict of ``arm`` (G,) int32 (index into ``exp.design.arms``), ``deal`` (G,) int64,
        ``rotation`` (G,) int16, ``win`` (G,) float64 (the arm's win share, R-TIE),
        ``total`` (G,) float64 (dollars), ``outcome`` (G, P + 4) int64 (totals, rounds, turns,
        challenges, decisions: equal rows of a pair mean the same game result).
    """
    p = exp.players[0]
    rot = games["rotation"].to_numpy().astype(np.int64)
    share = np.stack([games[f"seat_{s}_win_share"].to_numpy(np.float64) for s in range(p)], axis=1)
    totals = np.stack([games[f"seat_{s}_total"].to_numpy(np.float64) for s in range(p)], axis=1)
    rows = np.arange(len(games))
    outcome = np.column_stack([totals.astype(np.int64)] + [games[k].to_numpy().astype(np.int64)
                                                           for k in ("rounds", "turns", "challenges", "decisions")])
    return {"arm": games["lineup"].to_numpy().astype(np.int32), "deal": games["deal"].to_numpy().astype(np.int64),
            "rotation": rot.astype(np.int16), "win": share[rows, rot], "total": totals[rows, rot],
            "outcome": outcome}


def per_deal_mean(cols: dict[str, np.ndarray], arm: int, deals: np.ndarray, key: str) -> np.ndarray:
    """(D,) float64 mean over the arm's rotations of ``key`` on each deal (deals in ``deals`` order)."""
    sel = cols["arm"] == arm
    d = cols["deal"][sel]
    pos = np.searchsorted(deals, d)
    s = np.bincount(pos, weights=cols[key][sel], minlength=deals.size)
    n = np.bincount(pos, minlength=deals.size)
    return s / np.maximum(n, 1)


def _paired_outcome_changes(cols: dict[str, np.ndarray], t: int, c: int) -> tuple[int, int]:
    """(pairs, pairs whose outcome differs) over every (deal, rotation) both arms played."""
    def keyed(a: int) -> dict[tuple[int, int], np.ndarray]:
        sel = np.flatnonzero(cols["arm"] == a)
        return {(int(cols["deal"][i]), int(cols["rotation"][i])): cols["outcome"][i] for i in sel}

    kt, kc = keyed(t), keyed(c)
    common = kt.keys() & kc.keys()
    return len(common), sum(1 for k in common if not np.array_equal(kt[k], kc[k]))


def tip_effects(games: pd.DataFrame, exp: Experiment, confidence: float = 0.95, margin_pp: float = 0.5,
                log_changes: Mapping[str, tuple[int, int, int]] | None = None) -> pd.DataFrame:
    """Paired effects of every tip of one ablation cell (Holm and verdicts come later, :func:`finish`).

    Args:
        games: the cell's games (:func:`cya_sim.results.folder.load_games`). exp: its experiment.
        confidence: two-sided level. margin_pp: TOST margin, percentage points.
        log_changes: tip id -> (logged pairs, pairs whose action logs differ, logged decisions),
            from :func:`changed_decisions`.

    Returns:
        one row per tip: ``tip``, ``treatment``, ``control``, ``deals``, ``win_diff`` (fraction) with
        ``win_low``/``win_high``/``win_se``, ``win_treatment``, ``win_control``, ``total_diff`` (dollars)
        with ``total_low``/``total_high``, ``p`` (two-sided t test, deals - 1 df), ``p_tost``,
        ``pairs``, ``pairs_outcome_changed``, ``logged_pairs``, ``decisions_changed``, ``logged_decisions``.
    """
    cols = arm_columns(games, exp)
    arms = exp.design.arms
    deals = np.unique(cols["deal"])
    rows = []
    for tid, tr, co in exp.design.tips:
        t, c = arms.index(tr), arms.index(co)
        wt, wc = per_deal_mean(cols, t, deals, "win"), per_deal_mean(cols, c, deals, "win")
        dt = per_deal_mean(cols, t, deals, "total") - per_deal_mean(cols, c, deals, "total")
        e = paired_difference(wt - wc, confidence, margin_pp / 100.0)
        m_tot, lo_tot, hi_tot = mean_interval(dt, confidence)
        pairs, changed = _paired_outcome_changes(cols, t, c)
        lg = (log_changes or {}).get(tid, (0, 0, 0))
        rows.append({"tip": tid, "treatment": tr, "control": co, "deals": int(deals.size),
                     "win_treatment": float(wt.mean()), "win_control": float(wc.mean()),
                     "win_diff": e.value, "win_se": e.se, "win_low": e.low, "win_high": e.high,
                     "win_rule": e.rule,
                     "total_diff": m_tot, "total_low": lo_tot, "total_high": hi_tot,
                     "p": e.p, "p_tost": e.p_tost,
                     "pairs": pairs, "pairs_outcome_changed": changed,
                     "logged_pairs": lg[0], "decisions_changed": lg[1], "logged_decisions": lg[2]})
    return pd.DataFrame(rows)


def hide_effects(per_deal: Mapping[tuple[int, int], tuple[np.ndarray, np.ndarray]], confidence: float = 0.95,
                 margin_pp: float = 0.5) -> pd.DataFrame:
    """Paired contrasts of the TIP-HIDE-WILD comparison, Holm over its own family.

    Args:
        per_deal: (P, condition) -> (deals (D,) int64 sorted, the subject's win share per deal (D,) float64,
            mean over its P rotations). The conditions of a P hold the same deals.
        confidence, margin_pp: as :func:`tip_effects`.

    Returns:
        one row per (P, contrast of :data:`HIDE_CONTRASTS`): ``players``, ``contrast``, ``win_a``, ``win_b``
        (the two conditions' win rates), ``win_diff`` (fraction, a - b), ``win_low``/``win_high``, ``p``,
        ``p_tost``, ``p_holm``, ``p_tost_holm``, ``deals``, ``half_width_pp``, ``verdict`` (``higher``,
        ``lower``, ``no effect within ±m``, ``inconclusive``).

    Raises:
        ValueError: two conditions of a table size with different deals.
    """
    rows = []
    for p in sorted({k[0] for k in per_deal}):
        for a, b, name in HIDE_CONTRASTS:
            if (p, a) not in per_deal or (p, b) not in per_deal:
                continue
            (da, wa), (db, wb) = per_deal[(p, a)], per_deal[(p, b)]
            if not np.array_equal(da, db):
                raise ValueError(f"TIP-HIDE-WILD at {p}p: conditions {a} and {b} played different deals")
            e = paired_difference(wa - wb, confidence, margin_pp / 100.0)
            rows.append({"players": p, "contrast": name, "win_a": float(wa.mean()), "win_b": float(wb.mean()),
                         "win_diff": e.value, "win_se": e.se, "win_low": e.low, "win_high": e.high,
                         "win_rule": e.rule, "p": e.p, "p_tost": e.p_tost, "deals": int(da.size)})
    out = pd.DataFrame(rows)
    if out.empty:
        return out
    out["p_holm"], out["p_tost_holm"] = holm(out["p"].to_numpy(np.float64)), holm(out["p_tost"].to_numpy(np.float64))
    alpha = 1.0 - confidence
    out["verdict"] = [verdict(e, a, b, False, alpha).replace("supported", "higher").replace("refuted", "lower")
                      for e, a, b in zip(out["win_diff"], out["p_holm"], out["p_tost_holm"])]
    out["half_width_pp"] = 100.0 * (out["win_high"] - out["win_low"]) / 2.0
    return out


def rounds_table(games: pd.DataFrame, confidence: float = 0.95) -> dict[str, float]:
    """FACT-ROUNDS of one cell: ``games``, ``mean_rounds``, ``in_3_5``, ``in_4_5`` (with deal-clustered Wilson
    intervals ``*_low``/``*_high`` when ``games`` has a ``deal`` column) and ``r1``..``r8plus`` fractions."""
    r = games["rounds"].to_numpy()
    out: dict[str, float] = {"games": int(r.size), "mean_rounds": float(r.mean()),
                             "in_3_5": float(((r >= 3) & (r <= 5)).mean()), "in_4_5": float(((r >= 4) & (r <= 5)).mean())}
    if "deal" in games:
        for k, lo in (("in_3_5", 3), ("in_4_5", 4)):
            e = ratio_estimate(((r >= lo) & (r <= 5)).astype(np.float64), 1.0, games["deal"].to_numpy(), confidence,
                               proportion=True)
            out[f"{k}_low"], out[f"{k}_high"] = e.low, e.high
    for k in range(1, 8):
        out[f"r{k}"] = float((r == k).mean())
    out["r8plus"] = float((r >= 8).mean())
    return out


def big_pot_table(trace: pd.DataFrame, p: int, confidence: float = 0.95) -> dict[str, float]:
    """TIP-BIG-POT of one cell's round records: P(win | held the largest set at a round's end) vs 1/P.

    Units are deals (every game of a deal shares its cards); round ends where
    the largest set was shared are left out (counted in ``shared``).
    """
    one = trace[trace["largest_holder"] >= 0]
    e = ratio_estimate(one["holder_won"], 1.0, one["deal"], confidence, proportion=True)
    last = one[one["round"] == one["game_rounds"]]
    e2 = ratio_estimate(last["holder_won"], 1.0, last["deal"], confidence, proportion=True)
    return {"round_ends": len(one), "shared": int((trace["largest_holder"] < 0).sum()),
            "p_win_held": e.value, "low": e.low, "high": e.high, "base_rate": 1.0 / p,
            "last_round_ends": len(last), "p_win_held_last": e2.value, "low_last": e2.low, "high_last": e2.high}


def big_pot_pooled(traces: pd.DataFrame, confidence: float = 0.95) -> pd.DataFrame:
    """TIP-BIG-POT per table size over every preset and field of the study (:func:`big_pot_table` pooled).

    The sampling unit is a cell's deal (``preset|field|deal``): the games of one deal share its cards, the
    cells are independent.

    Args:
        traces: the per-round records of every cell (:func:`cya_sim.studies.tips.replays.trace_rounds` with
            ``preset`` and ``field`` columns). confidence: two-sided level.

    Returns:
        one row per table size: ``players``, ``units``, ``round_ends``, ``p_win_held`` with ``low``/``high``
        (deal-clustered Wilson interval), ``base_rate`` (1/P), ``last_round_ends``, ``p_win_held_last`` with
        ``low_last``/``high_last``.
    """
    pooled = []
    for p, sub in traces.groupby("players"):
        unit = (sub["preset"] + "|" + sub["field"] + "|" + sub["deal"].astype(str)).to_numpy()
        one = sub["largest_holder"].to_numpy() >= 0
        e = ratio_estimate(sub["holder_won"].to_numpy()[one], 1.0, unit[one], confidence, proportion=True)
        last = one & (sub["round"] == sub["game_rounds"]).to_numpy()
        e2 = ratio_estimate(sub["holder_won"].to_numpy()[last], 1.0, unit[last], confidence, proportion=True)
        pooled.append({"players": int(p), "units": int(np.unique(unit).size), "round_ends": int(one.sum()),
                       "p_win_held": e.value, "low": e.low, "high": e.high, "base_rate": 1.0 / int(p),
                       "last_round_ends": int(last.sum()), "p_win_held_last": e2.value, "low_last": e2.low,
                       "high_last": e2.high})
    return pd.DataFrame(pooled)


def fact_1360_table(trace: pd.DataFrame) -> dict[str, int]:
    """FACT-1360 of one cell's per-round records: ``rounds_checked``, ``invariant_failures`` (rounds whose
    R-SCORE invariant failed), ``max_scored`` (dollars), ``deck_value`` (dollars), ``over_1360000`` (rounds that
    scored more than :data:`FACT_1360`)."""
    return {"rounds_checked": len(trace), "invariant_failures": int((~trace["invariant_ok"]).sum()),
            "max_scored": int(trace["scored"].max()), "deck_value": int(trace["deck_value"].iloc[0]),
            "over_1360000": int((trace["scored"] > FACT_1360).sum())}
