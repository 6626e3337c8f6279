"""The baseline line-up under the later edition's presets, against `basic` and `classic` at the same table sizes.

Reads the stored games of five experiment files (play them first; each resumes):

    cya-sim tournament experiments/baseline-advanced.toml     # advanced, 4-6 players
    cya-sim tournament experiments/baseline-2p-draft.toml     # two_player_draft, 2 players
    cya-sim tournament experiments/baseline-3p-draft.toml     # three_player_draft, 3 players
    cya-sim tournament experiments/baseline-basic.toml        # basic, 2-6 players (control)
    cya-sim tournament experiments/baseline-classic.toml      # classic, 2-6 players (control)
    python experiments/later_presets.py                       # writes later_presets.md and .csv here

Every file plays the same line-ups of the baseline's pool at a table size, seats rotated, a new deal
per game (the sampling unit), 210,000 games per table size. Per preset, table size and agent: the
per-game win rate (share of games won by any copy of the agent, R-TIE; Wilson interval on the
effective sample size) and the mean final total per seat-game (dollars, t interval); per preset and
table size: rounds, challenges and turns per game (t intervals), all from
:mod:`cya_sim.reports.stats` with the game as the unit. Each later preset is compared with `basic`
and with `classic` at the same table size: difference of two independent estimates
(:func:`cya_sim.reports.stats.independent_difference`, Welch t), Holm-adjusted within each family
(win rates; mean totals; game length), the families stated in the output.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pandas as pd

from cya_sim.reports.analysis import table_of
from cya_sim.reports.stats import agent_unit_sums, estimate_from_sums, holm, independent_difference, ratio_estimate
from cya_sim.results.folder import load_games

HERE = Path(__file__).resolve().parent
AGENTS = ["random", "greedy", "wild_hoarder", "card_counter", "heuristic(count=true, backup=true)"]
SHORT = {"heuristic(count=true, backup=true)": "heuristic(count, backup)"}
#: preset -> results folder (relative to the repository root).
FOLDERS = {"advanced": "results/baseline-advanced", "two_player_draft": "results/baseline-2p-draft",
           "three_player_draft": "results/baseline-3p-draft", "basic": "results/baseline-basic",
           "classic": "results/baseline-classic"}
NEW = ("advanced", "two_player_draft", "three_player_draft")
REFS = ("basic", "classic")
LENGTHS = ("rounds", "challenges", "turns")


def estimates(root: Path) -> pd.DataFrame:
    """One row per (preset, players, metric, agent): value, se, low, high, units (games), from the stored games."""
    rows = []
    for preset, folder in FOLDERS.items():
        games = load_games(root / folder)
        for p, df in games.groupby("players", sort=True):
            t = table_of(df, AGENTS)
            for a, name in enumerate(AGENTS):
                u = agent_unit_sums(t, a)
                if not u["seats"].size:
                    continue
                for metric, e in (("win_rate", estimate_from_sums(u["wins"], u["games"], proportion=True)),
                                  ("mean_total", estimate_from_sums(u["total"], u["seats"]))):
                    rows.append({"preset": preset, "players": int(p), "metric": metric, "agent": name,
                                 "value": e.value, "se": e.se, "low": e.low, "high": e.high, "units": e.units})
            for m in LENGTHS:
                e = ratio_estimate(np.asarray(getattr(t, m), np.float64), 1.0, t.game_index)
                rows.append({"preset": preset, "players": int(p), "metric": m, "agent": "",
                             "value": e.value, "se": e.se, "low": e.low, "high": e.high, "units": e.units})
    return pd.DataFrame(rows)


def differences(est: pd.DataFrame) -> pd.DataFrame:
    """Each later preset minus each reference at the same table size, per metric and agent, Holm per family."""
    from cya_sim.reports.stats import Estimate

    key = {(r.preset, r.players, r.metric, r.agent): Estimate(r.value, r.se, r.low, r.high, r.units, r.units)
           for r in est.itertuples()}
    rows = []
    for (preset, p, metric, agent), a in key.items():
        if preset not in NEW:
            continue
        for ref in REFS:
            b = key.get((ref, p, metric, agent))
            if b is None:
                continue
            d, lo, hi, pv = independent_difference(a, b)
            rows.append({"preset": preset, "reference": ref, "players": p, "metric": metric, "agent": agent,
                         "value": a.value, "ref_value": b.value, "diff": d, "low": lo, "high": hi, "p": pv,
                         "family": metric if metric in ("win_rate", "mean_total") else "length"})
    out = pd.DataFrame(rows)
    out["p_holm"] = np.nan
    for idx in out.groupby("family").groups.values():
        out.loc[idx, "p_holm"] = holm(out.loc[idx, "p"].to_numpy(np.float64))
    return out


def _pv(p: float) -> str:
    return "<1e-300" if p == 0 else (f"{p:.2g}" if p < 0.001 else f"{p:.3f}")


def markdown(est: pd.DataFrame, diff: pd.DataFrame) -> str:
    """The tables of ``later_presets.md``."""
    e = {(r.preset, r.players, r.metric, r.agent): r for r in est.itertuples()}
    fam = diff.groupby("family").size()
    md = ["# The baseline line-up under the later edition's presets", "",
          ("Written by `python experiments/later_presets.py` from the stored games of `experiments/baseline-advanced.toml`, "
          "`baseline-2p-draft.toml`, `baseline-3p-draft.toml`, `baseline-basic.toml` and `baseline-classic.toml` "
          "(210,000 games per preset and table size, seats rotated, a new deal per game). Win rate: per-game "
          "win rate (share of games won by any copy of the agent; ties shared, R-TIE) with its 95% Wilson "
          "interval on the effective sample size; mean total: dollars per seat-game, 95% t interval; the game "
          "is the sampling unit. Δ: later preset minus the reference at the same table size (independent "
          "runs; Welch t), 95% interval, and Holm-adjusted p over its family: win rates "
          f"({fam.get('win_rate', 0)} differences), mean totals ({fam.get('mean_total', 0)}), game length "
          f"({fam.get('length', 0)}: rounds, challenges and turns)."), ""]
    for preset in NEW:
        for p in sorted(est.loc[est["preset"] == preset, "players"].unique()):
            md += [f"## {preset}, {p} players", "",
                   (f"| agent | {preset} | basic | Δ vs basic (pp) | p (Holm) | classic | Δ vs classic (pp) | p (Holm) | "
                   f"mean total {preset} | basic | classic |"),
                   "|---|---|---|---|---|---|---|---|---|---|---|"]
            for agent in AGENTS:
                r = e.get((preset, p, "win_rate", agent))
                if r is None:
                    continue
                cells = [f"{100 * r.value:.2f} [{100 * r.low:.2f}, {100 * r.high:.2f}]"]
                for ref in REFS:
                    b = e[(ref, p, "win_rate", agent)]
                    d = diff[(diff.preset == preset) & (diff.reference == ref) & (diff.players == p)
                             & (diff.metric == "win_rate") & (diff.agent == agent)].iloc[0]
                    cells += [f"{100 * b.value:.2f} [{100 * b.low:.2f}, {100 * b.high:.2f}]",
                              f"{100 * d['diff']:+.2f} [{100 * d.low:+.2f}, {100 * d.high:+.2f}]", _pv(d.p_holm)]
                tots = [f"${e[(pr, p, 'mean_total', agent)].value:,.0f}" for pr in (preset, *REFS)]
                md.append(f"| {SHORT.get(agent, agent)} | " + " | ".join(cells + tots) + " |")
            md.append("")
    md += ["## Game length", "",
           ("Per game, mean [95% CI]; Δ against basic and classic at the same table size with Holm p (family: "
           "game length)."), "",
           ("| preset | P | metric | later preset | basic | Δ vs basic [95% CI] | p (Holm) | classic | "
           "Δ vs classic [95% CI] | p (Holm) |"), "|---|---|---|---|---|---|---|---|---|---|"]
    for preset in NEW:
        for p in sorted(est.loc[est["preset"] == preset, "players"].unique()):
            for m in LENGTHS:
                r = e[(preset, p, m, "")]
                cells = [f"{r.value:.2f} [{r.low:.2f}, {r.high:.2f}]"]
                for ref in REFS:
                    b = e[(ref, p, m, "")]
                    d = diff[(diff.preset == preset) & (diff.reference == ref) & (diff.players == p)
                             & (diff.metric == m)].iloc[0]
                    cells += [f"{b.value:.2f}", f"{d['diff']:+.2f} [{d.low:+.2f}, {d.high:+.2f}]", _pv(d.p_holm)]
                md.append(f"| {preset} | {p} | {m} per game | " + " | ".join(cells) + " |")
    return "\n".join(md) + "\n"


def main(root: Path = HERE.parent) -> int:
    """Write ``experiments/later_presets.md`` and ``later_presets.csv`` (estimates) and ``later_presets_diff.csv``."""
    missing = [f for f in FOLDERS.values() if not (root / f / "games.parquet").exists()]
    if missing:
        print(f"later_presets.py: error: no stored games in {', '.join(missing)}; run the tournaments in this "
              "file's docstring first", file=sys.stderr)
        return 2
    est = estimates(root)
    diff = differences(est)
    est.to_csv(HERE / "later_presets.csv", index=False)
    diff.to_csv(HERE / "later_presets_diff.csv", index=False)
    (HERE / "later_presets.md").write_text(markdown(est, diff), encoding="utf-8")
    print(f"wrote {HERE / 'later_presets.md'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
