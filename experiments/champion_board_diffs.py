"""The champion against each other agent of a champion board (experiments/champion_board_*.toml): differences
with their own intervals, from the committed games (nothing played).

    python experiments/champion_board_diffs.py results/champion-board-classic results/champion-board-advanced

For each board folder (one 4-player cell of duplicated deals: every agent holds each seat of each deal once), per
other agent: (1) the paired per-deal difference of win rates, the champion's minus the agent's (each agent's win
share averaged over its rotations of the deal; :func:`cya_sim.reports.stats.paired_difference`, the deal the
unit; p-values Holm-adjusted over the family of the cell's comparisons), and (2) the Bradley–Terry rating
difference (Elo) with its deal-clustered interval, for the finishing order (``total``) and for wins only
(``win``), from :func:`cya_sim.studies.board_analysis.differences`. Writes ``champion_differences.csv`` and
prints a Markdown table.
"""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd

CHAMPION = "agents.learned_models.champion:decide"


def per_deal_win_rate(games: pd.DataFrame, agent: str, players: int) -> pd.Series:
    """(D,) the agent's mean win share over its seats of each deal (index: deal)."""
    parts = [games.loc[games[f"seat_{s}_agent"] == agent, ["deal", f"seat_{s}_win_share"]]
             .rename(columns={f"seat_{s}_win_share": "w"}) for s in range(players)]
    return pd.concat(parts).groupby("deal")["w"].mean()


def champion_differences(folder: Path) -> pd.DataFrame:
    """One row per other agent of the board folder's single cell (module docstring)."""
    from cya_sim.reports.stats import holm, paired_difference
    from cya_sim.studies.board_analysis import differences
    from cya_sim.studies.tournament import game_table

    (cell,) = sorted((folder / "cells").iterdir())
    games = pd.read_parquet(cell / "games.parquet")
    players = int(games["players"].iloc[0])
    agents = list(dict.fromkeys(games[[f"seat_{s}_agent" for s in range(players)]].to_numpy().ravel()))
    agents = [CHAMPION] + [a for a in agents if a != CHAMPION]
    champ = per_deal_win_rate(games, CHAMPION, players)
    t = game_table(games, agents)
    t = replace(t, game_index=games["deal"].to_numpy(np.int64))
    bt = {o: differences(t, agents, order=o) for o in ("total", "win")}
    rows = []
    for a in agents[1:]:
        other = per_deal_win_rate(games, a, players)
        d = paired_difference((champ - other.reindex(champ.index)).to_numpy())
        row = {"cell": cell.name, "versus": a, "deals": d.deals, "champion_win_rate": float(champ.mean()),
               "versus_win_rate": float(other.mean()), "win_rate_difference": d.value, "low": d.low, "high": d.high,
               "p": d.p, "rule": d.rule}
        for o, df in bt.items():
            r = df[(df["agent"] == CHAMPION) & (df["versus"] == a)].iloc[0]
            row |= {f"elo_{o}": r["difference"], f"elo_{o}_low": r["low"], f"elo_{o}_high": r["high"]}
        rows.append(row)
    out = pd.DataFrame(rows)
    out["p_holm"] = holm(out["p"].to_numpy())
    return out


def main(argv: list[str] | None = None) -> int:
    """Write each folder's champion_differences.csv, print the table; returns 0."""
    folders = [Path(x) for x in (sys.argv[1:] if argv is None else argv)]
    print("| cell | versus | champion's win rate | its | difference [95%], Holm p | Elo, finishing order | "
          "Elo, wins only |\n|---|---|---|---|---|---|---|")
    for f in folders:
        df = champion_differences(f)
        df.to_csv(f / "champion_differences.csv", index=False)
        for r in df.itertuples():
            print(f"| {r.cell} | `{r.versus}` | {100 * r.champion_win_rate:.1f}% | {100 * r.versus_win_rate:.1f}% | "
                  f"{100 * r.win_rate_difference:+.1f} pts [{100 * r.low:+.1f}, {100 * r.high:+.1f}], "
                  f"{r.p_holm:.2g} | {r.elo_total:+.0f} [{r.elo_total_low:+.0f}, {r.elo_total_high:+.0f}] | "
                  f"{r.elo_win:+.0f} [{r.elo_win_low:+.0f}, {r.elo_win_high:+.0f}] |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
