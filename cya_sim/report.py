"""The report of a results folder: CSV tables, PNG plots and REPORT.md, rebuilt from the stored games.

:func:`build_report` reads only the folder (``manifest.json``, ``runs.json``,
``games.parquet/``), so ``cya-sim report <folder>`` rebuilds exactly what the
run wrote, and a partly played (killed) run can be reported as far as it got.
Every file is written atomically (:func:`cya_sim.runner.write_atomic`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from cya_sim.analysis import Analysis, analyse
from cya_sim.plots import PLOTS, save_all
from cya_sim.runner import games_schema, load_games, read_manifest, read_runs, write_atomic

REPORT = "REPORT.md"
EXPERIMENT_COPY = "experiment.toml"
TABLES = {
    "summary.csv": "per agent: seat-games, wins (shared on ties), win rate with 95% Wilson interval, mean final "
                   "total with t interval, Bradley-Terry rating (Elo scale) with 95% interval",
    "pairwise.csv": "per ordered pair: comparisons, ahead/behind/ties, share ahead with Wilson interval, "
                    "exact binomial p-value of 'A beats B'",
    "seats.csv": "win rate by seat and by turn order (all agents, with the chi-square test of equal shares, and per "
                 "agent: the rotation balance)",
    "lengths.csv": "rounds, turns, challenges and largest set stolen per game",
    "rounds.csv": "games by number of rounds",
    "variance.csv": "standard error of each agent's mean win share and total: independent, by game, by deal "
                    "(the variance removed by duplicate deals)",
}


@dataclass(frozen=True)
class Report:
    """What :func:`build_report` wrote.

    Attributes:
        folder: the results folder. analysis: the tables.
        files: every file written. complete: all games of the experiment are stored.
        games_stored, games_total: stored and planned game counts.
    """

    folder: Path
    analysis: Analysis
    files: tuple[Path, ...]
    complete: bool
    games_stored: int
    games_total: int


def build_report(folder: str | Path, confidence: float = 0.95) -> Report:
    """Compute every table and plot of a results folder and write them with REPORT.md.

    Args:
        folder: a results folder (``manifest.json`` and ``games.parquet/``).
        confidence: level of every interval (0.95 in the files' column descriptions).

    Returns:
        a :class:`Report`.

    Raises:
        ExperimentError: not a results folder (field ``out``).
        ValueError: no game stored yet.
        OSError: a file cannot be written.
    """
    folder = Path(folder)
    manifest = read_manifest(folder)
    skip = {"winner_agents", "cycle", "lineup", "rotation"}  # not needed for any table or plot
    games = load_games(folder, columns=[c for c in games_schema(int(manifest["max_players"])).names if c not in skip])
    agents = list(manifest["experiment"]["agents"])
    analysis = analyse(games, agents, confidence)
    written: list[Path] = []

    def put(name: str, write) -> None:
        write_atomic(folder / name, write)
        written.append(folder / name)

    for name, df in (("summary.csv", analysis.summary), ("pairwise.csv", analysis.pairwise),
                     ("seats.csv", analysis.seats), ("lengths.csv", analysis.lengths),
                     ("rounds.csv", analysis.rounds), ("variance.csv", analysis.variance)):
        put(name, lambda p, df=df: df.to_csv(p, index=False))
    written += save_all(analysis, games, folder, write=write_atomic)
    put(EXPERIMENT_COPY, lambda p: p.write_text(manifest["experiment_toml"], encoding="utf-8"))
    total = int(manifest["total_games"])
    text = report_markdown(folder, manifest, read_runs(folder), analysis, len(games), total)
    capped = int(games["capped"].sum()) if "capped" in games else 0
    if capped:  # games that hit the rules' round cap (max_rounds), not an end condition (R-GAME-END)
        text += (f"\n**{capped:,} of {len(games):,} games were stopped by the round cap** (rules option max_rounds) "
                 "before any end condition of R-GAME-END; their winners are the highest totals at the cap "
                 "(column `capped` of games.parquet).\n")
    put(REPORT, lambda p: p.write_text(text, encoding="utf-8"))
    return Report(folder, analysis, tuple(written), len(games) == total, len(games), total)


def md_table(df: pd.DataFrame, formats: dict[str, str] | None = None) -> str:
    """A GitHub-flavoured Markdown table of a DataFrame; ``formats`` maps a column to a format spec."""
    formats = formats or {}
    cols = list(df.columns)
    lines = ["| " + " | ".join(cols) + " |", "|" + "|".join("---" for _ in cols) + "|"]
    for row in df.itertuples(index=False):
        cells = []
        for c, v in zip(cols, row):
            if isinstance(v, float) and not math.isfinite(v):
                cells.append("–")
            elif c in formats:
                cells.append(format(v, formats[c]))
            else:
                cells.append(str(v))
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _p(v: float) -> str:
    """A p-value; one that underflows to 0 in double precision is shown as < 1e-300."""
    if not np.isfinite(v):
        return "–"
    return "< 1e-300" if v == 0 else f"{v:.3g}"


def _pct(v: float) -> str:
    return "–" if not np.isfinite(v) else f"{v:.1%}"


def report_markdown(folder: Path, manifest: dict, runs: list[dict], a: Analysis, stored: int, total: int) -> str:
    """The text of REPORT.md (tables, plots, the command and seed that reproduce the results)."""
    exp = manifest["experiment"]
    lines = [f"# Tournament report: {manifest['name']}", ""]
    if manifest.get("description"):
        lines += [manifest["description"], ""]
    design = exp["design"]
    rules = exp["rules"]
    lines += [
        (f"- rules: `{rules['name']}` (end `{rules['end_condition']}`, target ${rules['target_score']:,}, "
        f"ties `{rules['tie_break']}`); deck `{rules['deck']['name']}`"),
        f"- table sizes: {', '.join(map(str, exp['players']))}; agents: {', '.join(exp['agents'])}",
        f"- design: `{design['kind']}`" + (", duplicate deals" if design.get("duplicate") else "")
        + f"; seats rotated; {exp['games']:,} games per table size",
        (f"- seed: **{manifest['seed']}**; cya-sim {manifest['cya_sim_version']}; chunks of "
        f"{manifest['chunk_size']:,} games ({manifest['n_chunks']} chunks)"),
        f"- games stored: {stored:,} of {total:,}" + ("" if stored == total else " — **incomplete: run the same "
                                                       "command again to resume**"),
        "",
        "## Reproduce",
        "",
        "```sh",
    ]
    first = next((r["command"] for r in runs if r.get("command")), None)
    if first:
        lines.append(first)
    lines += [f"# or, from the copy of the experiment kept with the results (seed {manifest['seed']}):",
              f"cya-sim tournament {folder.as_posix()}/{EXPERIMENT_COPY} --out NEW_FOLDER",
              f"cya-sim report {folder.as_posix()}   # rebuild this report from the stored games", "```", ""]
    if runs:
        lines += ["Runs into this folder:", "",
                  md_table(pd.DataFrame([{k: r.get(k) for k in ("finished_utc", "resumed", "engine", "executor",
                                                                "chunks_played", "chunks_skipped", "games_played",
                                                                "elapsed_s", "games_per_s", "peak_rss_mb")}
                                         for r in runs])), ""]
    for p in sorted(a.games):
        lines += _size_section(p, a)
    lines += ["## Files", ""]
    lines += [f"- `{n}`: {d}" for n, d in TABLES.items()]
    lines += [f"- `{n}`: {d}" for n, d in PLOTS.items()]
    lines += ["- `games.parquet/`: one row per game, one file per chunk (`pandas.read_parquet` reads the folder)",
              f"- `manifest.json`, `runs.json`, `{EXPERIMENT_COPY}`: what was played, how, by which version", ""]
    lines += [("Methods: Wilson score intervals (statsmodels); Student-t intervals for means; Bradley–Terry by "
              "binomial GLM on pairwise finishing orders (statsmodels), first agent fixed at 0, Elo scale; exact "
              "binomial test of ahead vs behind (scipy); Pearson chi-square test of equal wins per seat (scipy); "
              "cluster-robust standard errors by deal (statsmodels). Comparisons inside one game are not "
              "independent, so pairwise p-values and rating errors are a guide."), ""]
    return "\n".join(lines)


def _size_section(p: int, a: Analysis) -> list[str]:
    s = a.summary[a.summary["players"] == p]
    out = [f"## {p} players ({a.games[p]:,} games)", "", "### Win rates and ratings", "",
           "![win rates](win_rates.png)", ""]
    tab = pd.DataFrame({
        "agent": s["agent"], "seat-games": s["games"].map("{:,}".format), "wins": s["wins"].map("{:,.1f}".format),
        "win rate": s["win_rate"].map(_pct),
        "95% CI": [f"[{_pct(lo)}, {_pct(hi)}]" for lo, hi in zip(s["win_rate_ci_low"], s["win_rate_ci_high"])],
        "mean total": s["mean_total"].map(lambda v: f"${v:,.0f}"),
        "95% CI (total)": [f"[${lo:,.0f}, ${hi:,.0f}]" if np.isfinite(lo) else "–"
                           for lo, hi in zip(s["mean_total_ci_low"], s["mean_total_ci_high"])],
        "rating (Elo)": [f"{r:+.0f} ± {1.96 * se:.0f}" if np.isfinite(r) else "–"
                         for r, se in zip(s["rating"], s["rating_se"])],
    })
    out += [md_table(tab), "", (f"Fair share 1/{p} = {1 / p:.1%}; ties share the win (R-TIE). Ratings: "
            f"Bradley–Terry, {s['agent'].iloc[0]} fixed at 0, ± a 95% interval."), ""]
    out += [f"{n}" for n in a.notes.get(p, [])] + ([""] if a.notes.get(p) else [])
    pw = a.pairwise[(a.pairwise["players"] == p) & (a.pairwise["comparisons"] > 0)]
    out += ["### Head to head", "", "![pairwise](pairwise.png)", ""]
    if len(pw):
        keep = pw[pw["agent"] < pw["opponent"]]
        tab = pd.DataFrame({
            "A": keep["agent"], "B": keep["opponent"], "comparisons": keep["comparisons"].map("{:,}".format),
            "A ahead": keep["ahead"].map("{:,}".format), "B ahead": keep["behind"].map("{:,}".format),
            "ties": keep["ties"].map("{:,}".format), "share A ahead": keep["ahead_share"].map(_pct),
            "95% CI": [f"[{_pct(lo)}, {_pct(hi)}]" for lo, hi in zip(keep["ahead_share_ci_low"],
                                                                      keep["ahead_share_ci_high"])],
            "p (A beats B)": keep["p_value"].map(_p),
        })
        out += [md_table(tab), ""]
    else:
        out += ["No two different agents met at this table size.", ""]
    seats = a.seats[(a.seats["players"] == p)]
    out += ["### Seats", "", "![seats](seats.png)", ""]
    for position, label in (("seat", "seat (fixed chair)"), ("turn_order", "turn order (0 = first to move)")):
        d = seats[(seats["position"] == position) & (seats["agent"] == "(all)")]
        chi2, pv = d["chi2"].iloc[0], d["p_value"].iloc[0]
        out += [f"Win rate by {label}: " + ", ".join(f"{int(r.seat)}: {_pct(r.win_rate)}" for r in d.itertuples())
                + f"; chi-square {chi2:.2f} on {p - 1} df, p = {_p(pv)}.", ""]
    bal = seats[(seats["position"] == "seat") & (seats["agent"] != "(all)")]
    pivot = bal.pivot(index="agent", columns="seat", values="games").reset_index()
    pivot.columns = ["agent"] + [f"seat {c}" for c in pivot.columns[1:]]
    for c in pivot.columns[1:]:
        pivot[c] = pivot[c].map("{:,}".format)
    out += ["Seat-games of each agent in each seat (rotation balance):", "", md_table(pivot), ""]
    ln = a.lengths[a.lengths["players"] == p]
    out += ["### Game length and largest set stolen", "", "![rounds](rounds.png) ![totals](totals.png)", ""]
    tab = pd.DataFrame({
        "per game": ln["metric"], "mean": ln["mean"].map("{:,.2f}".format),
        "95% CI": [f"[{lo:,.2f}, {hi:,.2f}]" if np.isfinite(lo) else "–"
                   for lo, hi in zip(ln["mean_ci_low"], ln["mean_ci_high"])],
        "median": ln["median"].map("{:,.0f}".format), "5%": ln["p05"].map("{:,.0f}".format),
        "95%": ln["p95"].map("{:,.0f}".format), "max": ln["max"].map("{:,.0f}".format),
    })
    out += [md_table(tab), "", "largest_steal is in dollars: the most valuable set won by a challenger in the game.",
            ""]
    r = a.rounds[a.rounds["players"] == p]
    out += ["Rounds per game: " + ", ".join(f"{int(x.rounds)}: {_pct(x.share)}" for x in r.itertuples()), ""]
    v = a.variance[a.variance["players"] == p]
    out += ["### Luck of the deal", ""]
    if a.duplicate:
        out += [("Standard error of each agent's mean, cluster-robust with each game as a cluster (a plain design) "
                 "and with all games of one deal as a cluster (duplicate deals). 'Variance removed' = 1 - (SE by "
                 "deal / SE by game)^2 is the share of the variance the duplicate deals cancelled."), ""]
        tab = pd.DataFrame({
            "agent": v["agent"], "measure": v["metric"], "seat-games": v["seat_games"].map("{:,}".format),
            "SE by game": v["se_by_game"].map("{:.4g}".format), "SE by deal": v["se_by_deal"].map("{:.4g}".format),
            "variance removed": v["variance_removed"].map(_pct),
        })
    else:
        out += [("No duplicate deals: every game had its own deal, so none of the luck of the deal was cancelled "
                 "(set design.duplicate = true to replay each deal with every rotation). Standard errors of each "
                 "agent's mean, with each game as a cluster:"), ""]
        tab = pd.DataFrame({
            "agent": v["agent"], "measure": v["metric"], "seat-games": v["seat_games"].map("{:,}".format),
            "SE independent": v["se_independent"].map("{:.4g}".format),
            "SE by game": v["se_by_game"].map("{:.4g}".format),
        })
    out += [md_table(tab), ""]
    return out
