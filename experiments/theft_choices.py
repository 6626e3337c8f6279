"""The theft game's open choices (RULES.md §9): what they do to game length and to who wins.

Seed 003 leaves open what limits a theft and what happens to the hand at the
end of a turn. Each rule variant below changes one reading from the ``theft``
preset's default; each is played by two line-ups at 4 players with seats
rotated (game g uses rotation g % 4): ``greedy, random, greedy, random`` and
``greedy, defender, greedy, defender``. All variants use the same seed, so
game g starts from the same deal in every variant.

Per variant and line-up the table gives (the game is the sampling unit):

* turns per game: mean with a 95% Student-t interval;
* thefts per game, and the share of thefts cancelled;
* games stopped at the turn cap (``max_turns`` = 1000; a safeguard, reported);
* greedy's win share per game (its two seats together; a fair share is 0.5)
  with a 95% t interval over games;
* the first player's win share per game (a fair share is 0.25).

Each variant's mean turns and greedy win share are compared with the
default's by Welch's t-test, Holm-adjusted over the 2 x 2 x 7 = 28 tests
(statsmodels ``multipletests``); the table shows the adjusted p-values.

Writes ``experiments/theft_choices.md`` (table), ``experiments/theft_choices.csv``
(the numbers) and ``experiments/theft_choices.png`` (plot). About 3 minutes on one core:

    python experiments/theft_choices.py                # 2,000 games per variant and line-up
    python experiments/theft_choices.py --games 400 --out /tmp/theft_choices
"""

from __future__ import annotations

import argparse
import time
import warnings
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from scipy import stats
from statsmodels.stats.multitest import multipletests

from cya_sim.game.rng import root_key
from cya_sim.game.rules import get_rules
from cya_sim.play.theft.reference import TheftTurnCapWarning, play_theft_games

HERE = Path(__file__).resolve().parent

#: (label, options changed from the ``theft`` preset)
VARIANTS: list[tuple[str, dict]] = [
    ("seed reading (default)", {}),
    ("end of turn: keep all cards", {"end_of_turn": "keep"}),
    ("end of turn: discard, draw up to 5", {"end_of_turn": "discard_and_draw_up"}),
    ("at most 1 theft per turn", {"max_thefts_per_turn": 1}),
    ("last asset cannot be stolen", {"protect_last_asset": True}),
    ("targeted asset cannot be given up", {"defend_with_targeted_asset": False}),
    ("no giving up assets to cancel", {"defend_with_asset": False}),
]
LINEUPS = {"greedy vs random": ["greedy", "random"], "greedy vs defender": ["greedy", "defender"]}


def _t_interval(x: np.ndarray) -> tuple[float, float, float]:
    """Mean and 95% Student-t interval of per-game values."""
    m = float(x.mean())
    h = float(stats.t.ppf(0.975, len(x) - 1) * x.std(ddof=1) / np.sqrt(len(x))) if len(x) > 1 else float("nan")
    return m, m - h, m + h


def run(games: int, seed: int) -> tuple[pd.DataFrame, dict]:
    """Play every variant and line-up; one row per (variant, line-up), plus per-game arrays for the tests."""
    key = root_key(seed)
    idx = np.arange(games, dtype=np.int64)
    rows, per_game = [], {}
    for lname, agents in LINEUPS.items():
        lineup = np.array([0, 1, 0, 1], dtype=np.int16)
        seat_agent = lineup[(np.arange(4)[None, :] - idx[:, None]) % 4]
        for label, options in VARIANTS:
            rules = get_rules("theft", **options)
            t0 = time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", TheftTurnCapWarning)  # counted below instead
                table = play_theft_games(rules, agents, seat_agent, key, idx)
            wall = time.perf_counter() - t0
            capped = int((table.turns >= rules.max_turns).sum())
            greedy_share = (table.win_share * (table.seat_agent == 0)).sum(axis=1)
            first = table.first_to_move()  # the first player (R-T-SETUP)
            first_share = table.win_share[np.arange(games), first]
            turns = table.turns.astype(np.float64)
            per_game[(lname, label)] = (turns, greedy_share)
            tm, tlo, thi = _t_interval(turns)
            gm, glo, ghi = _t_interval(greedy_share)
            fm, flo, fhi = _t_interval(first_share)
            rows.append({
                "lineup": lname, "variant": label, "options": ", ".join(f"{k}={v}" for k, v in options.items()) or "-",
                "games": games, "turns_mean": tm, "turns_ci_low": tlo, "turns_ci_high": thi,
                "turns_median": float(np.median(turns)), "thefts_per_game": float(table.thefts.mean()),
                "capped_games": capped,
                "greedy_share": gm, "greedy_ci_low": glo, "greedy_ci_high": ghi,
                "first_player_share": fm, "first_ci_low": flo, "first_ci_high": fhi,
                "games_per_s": games / wall,
            })
            print(f"{lname:20s} {label:36s} turns {tm:5.2f}  greedy {gm:.3f}  first {fm:.3f}  "
                  f"({games / wall:.0f} games/s)", flush=True)
    df = pd.DataFrame(rows)
    pvals, keys = [], []
    for lname in LINEUPS:
        base_turns, base_share = per_game[(lname, VARIANTS[0][0])]
        for label, _ in VARIANTS[1:]:
            turns, share = per_game[(lname, label)]
            pvals.append(stats.ttest_ind(turns, base_turns, equal_var=False).pvalue)
            keys.append((lname, label, "p_turns_holm"))
            pvals.append(stats.ttest_ind(share, base_share, equal_var=False).pvalue)
            keys.append((lname, label, "p_greedy_holm"))
    adjusted = multipletests(np.nan_to_num(pvals, nan=1.0), method="holm")[1]
    df["p_turns_holm"] = np.nan
    df["p_greedy_holm"] = np.nan
    for (lname, label, col), p in zip(keys, adjusted):
        df.loc[(df.lineup == lname) & (df.variant == label), col] = p
    return df, per_game


def plot(df: pd.DataFrame, path: Path) -> None:
    """Two panels: mean turns per game and greedy's win share per game (%), per variant and line-up, 95% intervals;
    the legend under the panels, outside the data."""
    from matplotlib.ticker import PercentFormatter

    fig, axes = plt.subplots(1, 2, figsize=(12, 5.0), sharey=True, layout="constrained")
    labels = [v for v, _ in VARIANTS]
    y = np.arange(len(labels))
    for k, (lname, marker) in enumerate(zip(LINEUPS, ("o", "s"))):
        d = df[df.lineup == lname].set_index("variant").loc[labels]
        off = (k - 0.5) * 0.25
        axes[0].errorbar(d.turns_mean, y + off, xerr=[d.turns_mean - d.turns_ci_low, d.turns_ci_high - d.turns_mean],
                         fmt=marker, capsize=3, label=lname)
        axes[1].errorbar(100 * d.greedy_share, y + off, xerr=[100 * (d.greedy_share - d.greedy_ci_low),
                                                               100 * (d.greedy_ci_high - d.greedy_share)],
                         fmt=marker, capsize=3, label=lname)
    axes[1].axvline(50, ls="--", c="grey", lw=1, label="fair share of 2 seats of 4 (50%)")
    axes[1].xaxis.set_major_formatter(PercentFormatter(100, decimals=0))
    axes[0].set_yticks(y, labels)
    axes[0].invert_yaxis()
    for ax in axes:
        ax.grid(axis="x", color="0.92")
    axes[0].set_xlabel("turns per game (mean, 95% t interval)")
    axes[1].set_xlabel("greedy's win share per game (2 of 4 seats; 95% t interval)")
    fig.legend(*axes[1].get_legend_handles_labels(), loc="outside lower center", ncol=3, fontsize=9, frameon=False)
    fig.suptitle(f"Theft game (RULES.md §9): the seed's open choices, 4 players, {int(df.games.iloc[0]):,} games each")
    fig.savefig(path, dpi=120)
    plt.close(fig)


def write_markdown(df: pd.DataFrame, path: Path, seed: int, command: str) -> None:
    """The table as Markdown, with how it was made."""
    lines = [
        "# Theft game: the seed's open choices (RULES.md §9)",
        "",
        (f"Made by `{command}` (seed {seed}); {int(df.games.iloc[0]):,} games per row, 4 players, seats rotated, "
        "the reference engine (the theft game has no compiled engine). Game g starts from the same deal in every "
        "row. Intervals are 95% Student-t over games (the game is the sampling unit); p-values compare a row with "
        "the default row of its line-up by Welch's t-test, Holm-adjusted over all 28 tests. Turns count every "
        "player's turn; `capped` counts games that reached the turn cap (1000 turns, a safeguard)."),
        "",
        ("| line-up | variant | turns (95% CI) | median | thefts/game | greedy win share (95% CI) | first player "
        "share (95% CI) | p turns | p greedy | capped |"),
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in df.itertuples(index=False):
        pt = "" if np.isnan(r.p_turns_holm) else f"{r.p_turns_holm:.2g}"
        pg = "" if np.isnan(r.p_greedy_holm) else f"{r.p_greedy_holm:.2g}"
        lines.append(
            f"| {r.lineup} | {r.variant} | {r.turns_mean:.2f} ({r.turns_ci_low:.2f}–{r.turns_ci_high:.2f}) | "
            f"{r.turns_median:.0f} | {r.thefts_per_game:.2f} | {r.greedy_share:.3f} ({r.greedy_ci_low:.3f}–"
            f"{r.greedy_ci_high:.3f}) | {r.first_player_share:.3f} ({r.first_ci_low:.3f}–{r.first_ci_high:.3f}) | "
            f"{pt} | {pg} | {r.capped_games} |")
    lines += ["", "![plot](theft_choices.png)", ""]
    path.write_text("\n".join(lines), encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    """Run the study and write the table, the CSV and the plot."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--games", type=int, default=2000, help="games per variant and line-up (default 2000)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", type=Path, default=HERE / "theft_choices", help="path stem of the outputs")
    ap.add_argument("--replot", action="store_true",
                    help="redraw the plot from the CSV of --out (no game is played)")
    args = ap.parse_args(argv)
    stem = args.out
    if args.replot:
        plot(pd.read_csv(stem.with_suffix(".csv")), stem.with_suffix(".png"))
        print(f"wrote {stem.with_suffix('.png')}")
        return 0
    df, _ = run(args.games, args.seed)
    stem.parent.mkdir(parents=True, exist_ok=True)
    df.to_csv(stem.with_suffix(".csv"), index=False)
    plot(df, stem.with_suffix(".png"))
    cmd = "python experiments/theft_choices.py" + ("" if args.games == 2000 else f" --games {args.games}")
    write_markdown(df, stem.with_suffix(".md"), args.seed, cmd)
    print(f"wrote {stem.with_suffix('.md')}, {stem.with_suffix('.csv')}, {stem.with_suffix('.png')}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
