"""The champion against each other agent of the champion boards (experiments/champion_board_*.toml): differences
with their own intervals, from the cells' games (nothing played).

    python experiments/champion_board_diffs.py results/champion-board-classic results/champion-board-advanced
    python experiments/champion_board_diffs.py --table   # the Markdown table from the committed CSV (no games)

Every cell of a board folder (``cells/<preset>-<P>p``) is one table size of duplicated deals in which every
agent holds each seat of each of its line-ups once per deal: at 2 players every pair in both seats; at 3 players and
more, with the boards' balanced seating, each set of agents in the circular orders of
:func:`cya_sim.studies.leaderboard.circular_orders` (every trio of the four agents in both orders at 3 players, the
one set of 4 agents in all 6 orders at 4, the one set of 6 in 20 orders at 6), each in all its rotations. So on
every deal the champion and any other agent play the same number of games against fields that differ only by the
two swapped (the deal is the unit). Per other agent: (1) the paired per-deal difference of win
rates, the champion's minus the agent's (each agent's win share averaged over its seats of the deal;
:func:`cya_sim.reports.stats.paired_difference`; p-values Holm-adjusted over the family of the cell's
comparisons), and (2) the Bradley–Terry rating difference (Elo) with its deal-clustered interval, for the
finishing order (``total``) and for wins only (``win``), from :func:`cya_sim.studies.board_analysis.differences`.
Writes ``results/champion-board-differences/champion_differences.csv`` (one row per cell and other agent; outside
the board folders, which a resumed board run requires to hold only its own files) and its ``README.md`` (the
Markdown table, also printed).
"""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd

from cya_sim.cli.parsing import ExitingParser

CHAMPION = "agents.learned_models.champion:decide"
#: The committed output folder, found from this file (the script runs from any folder).
OUT = Path(__file__).resolve().parents[1] / "results" / "champion-board-differences"


def per_deal_win_rate(games: pd.DataFrame, agent: str, players: int) -> pd.Series:
    """(D,) the agent's mean win share over its seats of each deal (index: deal)."""
    parts = [games.loc[games[f"seat_{s}_agent"] == agent, ["deal", f"seat_{s}_win_share"]]
             .rename(columns={f"seat_{s}_win_share": "w"}) for s in range(players)]
    return pd.concat(parts).groupby("deal")["w"].mean()


def cell_differences(cell: Path) -> pd.DataFrame:
    """One row per other agent of one cell folder (module docstring)."""
    from cya_sim.reports.stats import holm, paired_difference
    from cya_sim.studies.board_analysis import differences
    from cya_sim.studies.tournament import game_table

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
        row = {"cell": cell.name, "players": players, "games": len(games), "versus": a, "deals": d.deals,
               "champion_win_rate": float(champ.mean()), "versus_win_rate": float(other.mean()),
               "win_rate_difference": d.value, "low": d.low, "high": d.high, "p": d.p, "rule": d.rule}
        for o, df in bt.items():
            r = df[(df["agent"] == CHAMPION) & (df["versus"] == a)].iloc[0]
            row |= {f"elo_{o}": r["difference"], f"elo_{o}_low": r["low"], f"elo_{o}_high": r["high"]}
        rows.append(row)
    out = pd.DataFrame(rows)
    out["p_holm"] = holm(out["p"].to_numpy())
    return out


def champion_differences(folder: Path) -> pd.DataFrame:
    """The rows of every cell of one board folder (cells sorted by table size)."""
    cells = sorted((folder / "cells").iterdir(), key=lambda c: int(c.name.rsplit("-", 1)[1].rstrip("p")))
    return pd.concat([cell_differences(c) for c in cells], ignore_index=True)


def short(spec: str) -> str:
    """A learned model's module name (``classic_2p``), any other spec as written."""
    return spec.removeprefix("agents.learned_models.").removesuffix(":decide")


def table(df: pd.DataFrame) -> str:
    """The Markdown table of a ``champion_differences.csv`` frame, and one line per cell: the champion above every
    other agent (every paired interval above 0), or the agents it is below (interval below 0) or not told apart
    from (interval holding 0)."""
    head = ("| cell | games | versus | champion's win rate | its | difference [95%], Holm p | Elo, finishing order | "
            "Elo, wins only |")
    out = [head, "|---|---|---|---|---|---|---|---|"]
    for r in df.itertuples():
        out.append(f"| {r.cell} | {r.games:,} | `{short(r.versus)}` | {100 * r.champion_win_rate:.1f}% | "
                   f"{100 * r.versus_win_rate:.1f}% | {100 * r.win_rate_difference:+.1f} pts "
                   f"[{100 * r.low:+.1f}, {100 * r.high:+.1f}], {r.p_holm:.2g} | "
                   f"{r.elo_total:+.0f} [{r.elo_total_low:+.0f}, {r.elo_total_high:+.0f}] | "
                   f"{r.elo_win:+.0f} [{r.elo_win_low:+.0f}, {r.elo_win_high:+.0f}] |")
    out.append("")
    for cell, g in df.groupby("cell", sort=False):
        below = [f"`{short(v)}`" for v, hi in zip(g["versus"], g["high"]) if hi < 0]
        tied = [f"`{short(v)}`" for v, lo, hi in zip(g["versus"], g["low"], g["high"]) if lo <= 0 <= hi]
        out.append(f"- {cell}: " + ("above every other agent (every interval above 0)" if not below + tied else
                                    "; ".join(([f"below {', '.join(below)}"] if below else [])
                                              + ([f"not told apart from {', '.join(tied)} (interval holds 0)"]
                                                 if tied else []))))
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    """Write the CSV and README.md from the board folders' games (or, with ``--table``, print the table of the
    committed CSV); returns 0."""
    ap = ExitingParser(description=__doc__.splitlines()[0])  # one-line refusals, exit status 2
    ap.add_argument("folders", nargs="*", type=Path, help="board folders (results/champion-board-*)")
    ap.add_argument("--table", action="store_true", help="print the table of the committed CSV, nothing read else")
    a = ap.parse_args(argv)
    if a.table:
        csv = OUT / "champion_differences.csv"
        if not csv.is_file():
            ap.error(f"--table: {csv} is missing; run the script on the board folders first")
        print(table(pd.read_csv(csv)), end="")
        return 0
    if not a.folders:
        ap.error("folders: give the board folders (results/champion-board-classic ...), or --table")
    for f in a.folders:
        if not (f / "cells").is_dir():
            ap.error(f"folders: {str(f)!r} is not a board folder (it has no cells/); give the folders that "
                     "cya-sim experiment wrote for experiments/champion_board_*.toml")
    df = pd.concat([champion_differences(f) for f in a.folders], ignore_index=True)
    OUT.mkdir(parents=True, exist_ok=True)
    df.to_csv(OUT / "champion_differences.csv", index=False)
    text = table(df)
    (OUT / "README.md").write_text(
        "# The champion against the field, every cell\n\nMade by `python experiments/champion_board_diffs.py "
        + " ".join(str(f) for f in a.folders) + "` from the games of the board folders (the champion's win rate "
        "minus each other agent's, paired by deal, Holm over each cell's comparisons; Bradley–Terry differences "
        "with deal-clustered intervals). Nothing typed by hand.\n\n" + text)
    print(text, end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
