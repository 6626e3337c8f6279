"""The tip study's verdicts under the later presets against `basic` and `classic` for the same tip, field and size.

Reads two committed verdict tables, ``results/tips-later/verdicts.csv`` (``cya-sim tips
experiments/tips-later.toml``) and ``results/tips/verdicts.csv`` (``cya-sim tips experiments/tips.toml``),
and writes ``results/tips-later/COMPARISON.md`` and ``comparison.csv``:

    python experiments/tips_later_compare.py

Each later context is set against the classic study's contexts with the same tip, field and table
size: `advanced` (4-6 players) and the drafts (2 and 3) against `basic` and `classic`. Every
verdict is the one of its own study (Holm over that study's family; TOST at its margin); this
script computes no new test. Δ effect: the later preset's win-rate effect minus the reference's,
with a 95% interval from the two independent standard errors (Welch,
:func:`cya_sim.reports.stats.independent_difference`), shown as a description, not a test.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pandas as pd

from cya_sim.reports.stats import Estimate, independent_difference

ROOT = Path(__file__).resolve().parents[1]
LATER = ROOT / "results" / "tips-later" / "verdicts.csv"
CLASSIC = ROOT / "results" / "tips" / "verdicts.csv"
REFS = ("basic", "classic")


def comparison(later: pd.DataFrame, classic: pd.DataFrame) -> pd.DataFrame:
    """One row per later tip x context with the same tip, field and size under each reference preset."""
    key = ["tip", "field", "players"]
    out = later[key + ["preset", "deals", "win_diff", "win_se", "win_low", "win_high", "verdict"]].copy()
    for ref in REFS:
        r = classic[classic["preset"] == ref][key + ["deals", "win_diff", "win_se", "verdict"]]
        out = out.merge(r.rename(columns={c: f"{ref}_{c}" for c in ("deals", "win_diff", "win_se", "verdict")}),
                        on=key, how="left")
        d = [independent_difference(Estimate(a, sa, 0, 0, int(na), na), Estimate(b, sb, 0, 0, int(nb), nb))
             for a, sa, na, b, sb, nb in zip(out["win_diff"], out["win_se"], out["deals"], out[f"{ref}_win_diff"],
                                             out[f"{ref}_win_se"], out[f"{ref}_deals"])]
        out[f"delta_vs_{ref}"] = [x[0] for x in d]
        out[f"delta_vs_{ref}_low"] = [x[1] for x in d]
        out[f"delta_vs_{ref}_high"] = [x[2] for x in d]
        out[f"same_as_{ref}"] = out["verdict"] == out[f"{ref}_verdict"]
    return out


def _pp(x: float) -> str:
    return "—" if not np.isfinite(x) else f"{100 * x:+.2f}"


def markdown(c: pd.DataFrame) -> str:
    """``COMPARISON.md``: counts of equal verdicts, then every row whose verdict differs from basic's or classic's."""
    md = ["# Tip verdicts under the later presets against basic and classic", "",
          ("Written by `python experiments/tips_later_compare.py` from `results/tips-later/verdicts.csv` and "
          "`results/tips/verdicts.csv`. Same tip, field and table size; each verdict is its own study's. "
          "Effects are win-rate differences treatment minus control (pp) with 95% intervals; Δ is the later "
          "preset's effect minus the reference's (Welch interval; descriptive)."), "",
          "| later preset | P | rows | same verdict as basic | same as classic |", "|---|---|---|---|---|"]
    for (pr, p), s in c.groupby(["preset", "players"], sort=False):
        md.append(f"| {pr} | {p} | {len(s)} | {int(s['same_as_basic'].sum())} | {int(s['same_as_classic'].sum())} |")
    md += ["", "## Rows whose verdict differs from basic's or classic's", "",
           ("| tip | field | P | later preset: effect [95% CI], verdict | basic: effect, verdict | Δ vs basic [95% CI] "
           "| classic: effect, verdict | Δ vs classic [95% CI] |"), "|---|---|---|---|---|---|---|---|"]
    for x in c[~(c["same_as_basic"] & c["same_as_classic"])].itertuples():
        md.append(f"| {x.tip} | {x.field} | {x.players} | {x.preset}: {_pp(x.win_diff)} [{_pp(x.win_low)}, "
                  f"{_pp(x.win_high)}], {x.verdict} | {_pp(x.basic_win_diff)}, {x.basic_verdict} | "
                  f"{_pp(x.delta_vs_basic)} [{_pp(x.delta_vs_basic_low)}, {_pp(x.delta_vs_basic_high)}] | "
                  f"{_pp(x.classic_win_diff)}, {x.classic_verdict} | {_pp(x.delta_vs_classic)} "
                  f"[{_pp(x.delta_vs_classic_low)}, {_pp(x.delta_vs_classic_high)}] |")
    return "\n".join(md) + "\n"


def main() -> int:
    """Write ``results/tips-later/COMPARISON.md`` and ``comparison.csv``; 2 when a verdict table is missing."""
    for f in (LATER, CLASSIC):
        if not f.exists():
            print(f"tips_later_compare.py: error: {f} is missing; run the tip studies first", file=sys.stderr)
            return 2
    c = comparison(pd.read_csv(LATER), pd.read_csv(CLASSIC))
    c.to_csv(LATER.parent / "comparison.csv", index=False)
    (LATER.parent / "COMPARISON.md").write_text(markdown(c), encoding="utf-8")
    print(f"wrote {LATER.parent / 'COMPARISON.md'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
