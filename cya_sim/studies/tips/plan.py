"""The two-stage allocation of a tip study: the deals of each cell fixed from an external pilot, before any game.

Method: :func:`plan_deals` (Stein 1945; Wittes & Brittain 1990).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from scipy import stats as sps

from cya_sim.runs.experiment import ExperimentError
from cya_sim.studies.tips.design import Study


def plan_deals(study: Study) -> pd.DataFrame:
    """Deals per cell from the pilot's per-deal spread (stage 1) so every win-rate row reaches the target (stage 2).

    Method (a two-stage design with an *external* pilot, Stein 1945; Wittes &
    Brittain 1990): the pilot tables (``study.pilot``, verdict CSVs of earlier
    runs with their own seed, so their deals are independent of the study's)
    give per tip x cell the standard deviation of the per-deal win-rate
    difference, ``sd = win_se * sqrt(deals)``. A cell's deals are then fixed
    once, before any of its games is played::

        n = ceil(inflation * (t * sd_max / target) ** 2)

    with ``sd_max`` the largest sd over the cell's non-inert pilot rows (every
    arm plays the same deals), ``t`` the two-sided Student quantile on
    ``n_z - 1`` df (``n_z`` the normal-quantile size) and ``inflation``
    (``pilot_inflation``) against the pilot's own sampling error. Because ``n``
    depends only on the pilot, whose games are not reused, the study's
    intervals, tests, Holm adjustment and TOST are those of a fixed-size study:
    their error rates are unchanged (no look at the study's own outcomes, no
    peek-until-significant). At least ``log_deals`` deals per cell; a cell
    without pilot rows keeps ``deals_at``.

    Returns:
        one row per cell: ``preset``, ``field``, ``players``, ``pilot_rows``, ``pilot_deals``, ``sd_max``
        (per-deal sd of the largest row, win-rate fraction), ``tip_at_max``, ``deals`` (planned).

    Raises:
        ExperimentError: an unreadable pilot table or one without the needed columns (``pilot``).
    """
    frames = []
    for f in study.pilot:
        try:
            t = pd.read_csv(f)
        except (OSError, pd.errors.ParserError) as e:
            raise ExperimentError("pilot", f"cannot read {str(f)!r} ({e}); give verdict tables of a pilot run")
        if "contrast" in t.columns:  # a TIP-HIDE-WILD comparison table (plan_hide_deals)
            continue
        need = {"preset", "field", "players", "tip", "deals", "win_se", "inert"}
        if need - set(t.columns):
            raise ExperimentError("pilot", f"{str(f)!r} lacks columns {', '.join(sorted(need - set(t.columns)))}")
        frames.append(t[list(need)])
    pilot = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=["preset", "field", "players"])
    tips = {t for t, _a, _b in study.tips}
    target = (study.target_half_width_pp or 1.0) / 100.0
    q = 0.5 + study.confidence / 2
    rows = []
    for pr, fl, p in study.cells():
        sub = pilot[(pilot["preset"] == pr) & (pilot["field"] == fl) & (pilot["players"] == p)]
        sub = sub[sub["tip"].isin(tips) & ~sub["inert"].astype(bool)]
        sd = sub["win_se"].to_numpy(np.float64) * np.sqrt(sub["deals"].to_numpy(np.float64))
        if sd.size == 0 or not np.isfinite(sd).any():
            rows.append({"preset": pr, "field": fl, "players": p, "pilot_rows": 0, "pilot_deals": 0,
                         "sd_max": float("nan"), "tip_at_max": "", "deals": study.deals_at(p)})
            continue
        i = int(np.nanargmax(sd))
        n_z = max(2, math.ceil(study.pilot_inflation * (float(sps.norm.ppf(q)) * sd[i] / target) ** 2))
        n = math.ceil(study.pilot_inflation * (float(sps.t.ppf(q, n_z - 1)) * sd[i] / target) ** 2)
        rows.append({"preset": pr, "field": fl, "players": p, "pilot_rows": int(sd.size),
                     "pilot_deals": int(sub["deals"].min()), "sd_max": float(sd[i]),
                     "tip_at_max": str(sub["tip"].iloc[i]), "deals": max(n, study.log_deals, 2)})
    return pd.DataFrame(rows)


def plan_hide_deals(study: Study) -> pd.DataFrame:
    """Deals per table size of the TIP-HIDE-WILD comparison from pilot ``hide.csv`` tables (as :func:`plan_deals`).

    Pilot tables with a ``contrast`` column are the comparison's; the largest
    per-deal sd over the contrasts of a table size fixes its deals. Table sizes
    without pilot rows keep the ``hide_wild.deals`` given.

    Returns:
        one row per table size of ``hide_wild.players``: ``players``, ``sd_max``, ``pilot_deals``, ``deals``;
        empty when no pilot table is the comparison's.
    """
    h = study.hide_wild
    frames = [t for t in (pd.read_csv(f) for f in study.pilot) if "contrast" in t.columns]
    if not h or not frames:
        return pd.DataFrame()
    pilot = pd.concat(frames, ignore_index=True)
    target = (study.target_half_width_pp or 1.0) / 100.0
    q = 0.5 + study.confidence / 2
    rows = []
    for p, given in zip(h["players"], h["deals"]):
        sub = pilot[pilot["players"] == p]
        sd = sub["win_se"].to_numpy(np.float64) * np.sqrt(sub["deals"].to_numpy(np.float64))
        if sd.size == 0 or not np.isfinite(sd).any():
            rows.append({"players": p, "sd_max": float("nan"), "pilot_deals": 0, "deals": given})
            continue
        s_max = float(np.nanmax(sd))
        n_z = max(2, math.ceil(study.pilot_inflation * (float(sps.norm.ppf(q)) * s_max / target) ** 2))
        n = math.ceil(study.pilot_inflation * (float(sps.t.ppf(q, n_z - 1)) * s_max / target) ** 2)
        rows.append({"players": p, "sd_max": s_max, "pilot_deals": int(sub["deals"].min()), "deals": max(n, 2)})
    return pd.DataFrame(rows)
