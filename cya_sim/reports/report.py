"""The report of a results folder: CSV tables, PNG plots and REPORT.md, rebuilt from the stored games.

:func:`build_report` reads only the folder (``manifest.json``, ``runs.json``,
``games.parquet/``), so ``cya-sim report <folder>`` rebuilds exactly what the
run wrote, and a partly played (killed) run can be reported as far as it got.
Every file is written atomically (:func:`cya_sim.results.folder.write_atomic`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from cya_sim.engine.table import ResultColumns
from cya_sim.play.families import FAMILIES
from cya_sim.reports.analysis import Analysis, analyse
from cya_sim.reports.comparisons import PAIRWISE_DOC
from cya_sim.reports.numbers import estimate_interval, percent_interval
from cya_sim.reports.plots import plots_of, save_all
from cya_sim.reports.side_by_side import two_processes
from cya_sim.reports.stats import ADJUSTMENT, SUMMARY_DOC
from cya_sim.results.folder import (
    first_command,
    games_schema,
    load_games,
    read_manifest,
    read_runs,
    result_columns_of,
    write_atomic,
)

#: Modules the report imports inside functions (the Bradley–Terry GLM of :mod:`cya_sim.reports.ratings`), which a
#: tournament imports ahead, while its games play (:func:`cya_sim.cli.experiment.report_layer_importer`).
DEFERRED_IMPORTS = ("statsmodels.genmod.families", "statsmodels.genmod.generalized_linear_model",
                    "statsmodels.tools.sm_exceptions")

REPORT = "REPORT.md"
EXPERIMENT_COPY = "experiment.toml"
TABLES = {
    "summary.csv": "per agent: seat-games, games, units, wins (shared on ties); per-game win rate (share of games "
                   "won by any copy of the agent) and per-seat win share, each with its fair value and 95% "
                   "game/deal-clustered interval; two-sided test of per-seat share = 1/P with its Holm-adjusted "
                   "p-value; mean final total with clustered t interval; Bradley-Terry rating (Elo scale) with "
                   "clustered 95% interval",
    "pairwise.csv": "per ordered pair: games, units, comparisons, ahead/behind/ties, share finished ahead with "
                    "clustered interval, per-seat win-share difference with clustered interval, two-sided "
                    "clustered test of 'finishes ahead half the time' with its Holm-adjusted p-value",
    "seats.csv": "win rate by seat and by turn order with clustered intervals; agent-adjusted effect against "
                 "position 0; clustered score test (F, df, p, Holm p) of no seat / turn-order effect; per agent: "
                 "the rotation balance",
    "lengths.csv": "rounds, turns, challenges and largest set stolen per game (mean with deal-clustered interval)",
    "rounds.csv": "games by number of rounds",
    "variance.csv": "standard error of each agent's mean win share and total: independent, by game, by deal "
                    "(the variance removed by duplicate deals)",
}


def tables_of(family: ResultColumns) -> dict[str, str]:
    """:data:`TABLES` in a game family's words: its length metrics in ``lengths.csv``, and the games by its length
    column in ``<length>.csv`` (``rounds.csv`` in the classic game, ``turns.csv`` in the theft game)."""
    metrics = [m.replace("_", " ") for m in family.metrics]
    out = {}
    for name, text in TABLES.items():
        if name == "lengths.csv":
            text = (", ".join(metrics[:-1]) + " and " + metrics[-1] + " per game (mean with deal-clustered interval)"
                    if family.family != "classic" else text)
        elif name == "rounds.csv":
            name, text = f"{family.length}.csv", f"games by number of {family.length}"
        out[name] = text
    return out


@dataclass(frozen=True)
class Report:
    """What :func:`build_report` wrote.

    Attributes:
        folder: the results folder. analysis: the tables.
        files: every file written. complete: all games of the experiment are stored.
        games_stored, games_total: stored and planned game counts.
        score_unit: ``dollars`` (the classic family) or ``points`` (the theft game), the totals' unit.
    """

    folder: Path
    analysis: Analysis
    files: tuple[Path, ...]
    complete: bool
    games_stored: int
    games_total: int
    score_unit: str = "dollars"


#: Stored columns no table or plot of the report reads (:func:`report_columns` leaves them out).
UNREAD = frozenset({"winner_agents", "cycle", "lineup", "rotation"})


def report_columns(manifest: dict) -> list[str]:
    """The columns of ``games.parquet`` the report reads (:func:`cya_sim.results.folder.games_schema` of the
    folder's family and largest table, without :data:`UNREAD`), for ``load_games(folder, columns=...)``."""
    family = result_columns_of(manifest)
    return [c for c in games_schema(int(manifest["max_players"]), family).names if c not in UNREAD]


def build_report(folder: str | Path, confidence: float = 0.95, games: pd.DataFrame | None = None) -> Report:
    """Compute every table and plot of a results folder and write them with REPORT.md (written last; an older
    REPORT.md is removed before the first file is rewritten, so a report stopped half-way leaves none).

    Args:
        folder: a results folder (``manifest.json`` and ``games.parquet/``).
        confidence: level of every interval (0.95 in the files' column descriptions).
        games: the folder's stored games already loaded (``load_games(folder, columns=report_columns(manifest))``
            or all columns), so a run that holds them does not read them twice; default: read them here.

    Returns:
        a :class:`Report`.

    Raises:
        FolderError: not a results folder, or a damaged one (field ``out``).
        ValueError: no game stored yet (the folder named).
        OSError: a file cannot be written.
    """
    folder = Path(folder)
    manifest = read_manifest(folder)
    family = result_columns_of(manifest)
    if games is None:
        games = load_games(folder, columns=report_columns(manifest))
    if games.empty:
        raise ValueError(f"{str(folder)!r} holds no stored game yet; run its tournament first (the same command "
                         "resumes it)")
    agents = list(manifest["experiment"]["agents"])
    analysis = analyse(games, agents, confidence, family.family)
    # REPORT.md is written last and an older one is removed before the first file is rewritten: a report stopped
    # half-way (Ctrl-C, a full disk) leaves no REPORT.md, so a folder that has one holds a whole report
    (folder / REPORT).unlink(missing_ok=True)
    written: list[Path] = []

    def put(name: str, write) -> None:
        write_atomic(folder / name, write)
        written.append(folder / name)

    for name, df in (("summary.csv", analysis.summary), ("pairwise.csv", analysis.pairwise),
                     ("seats.csv", analysis.seats), ("lengths.csv", analysis.lengths),
                     (f"{family.length}.csv", analysis.length_counts), ("variance.csv", analysis.variance)):
        put(name, lambda p, df=df: df.to_csv(p, index=False))
    rules = manifest["experiment"]["rules"]
    written += save_all(analysis, games, folder, write=write_atomic, rules=str(rules.get("name", "")),
                        unit="$" if family.score_unit == "dollars" else family.score_unit,
                        parallel=two_processes(len(games)))
    put(EXPERIMENT_COPY, lambda p: p.write_text(manifest["experiment_toml"], encoding="utf-8"))
    total = int(manifest["total_games"])
    text = report_markdown(folder, manifest, read_runs(folder), analysis, len(games), total)
    capped = int(games["capped"].sum())
    if capped:  # games that hit the rules' cap (max_rounds, max_turns), not an end condition (R-GAME-END, R-T-END)
        option, unit = FAMILIES[family.family].cap_option
        text += (f"\n**{capped:,} of {len(games):,} games were stopped by the {unit} cap** (rules option {option}) "
                 "before the game's end rule; their winners are the highest totals at the cap "
                 "(column `capped` of games.parquet).\n")
    put(REPORT, lambda p: p.write_text(text, encoding="utf-8"))
    return Report(folder, analysis, tuple(written), len(games) == total, len(games), total, family.score_unit)


def _cells(s: pd.DataFrame, unit: str = "dollars") -> pd.DataFrame:
    """The labelled cells of a summary (:data:`cya_sim.reports.stats.SUMMARY_COLUMNS`) as text, one row per agent.

    ``unit``: ``dollars`` or ``points`` (the rules' ``score_unit``), for the mean total and its interval. Each
    estimate and its interval share the decimals of :func:`cya_sim.reports.numbers.decimals_apart` (per row), so
    an estimate prints equal to a bound only when it is equal to it.
    """
    total = "mean total" if unit == "dollars" else f"mean total ({unit})"
    per_game = s["seat_games"] / s["games"].where(s["games"] > 0)
    game = [percent_interval(*v) for v in zip(s["game_win_rate"], s["game_win_rate_ci_low"],
                                              s["game_win_rate_ci_high"])]
    seat = [percent_interval(*v) for v in zip(s["seat_share"], s["seat_share_ci_low"], s["seat_share_ci_high"])]
    money = [score_interval(*v, unit=unit) for v in zip(s["mean_total"], s["mean_total_ci_low"],
                                                        s["mean_total_ci_high"])]
    return pd.DataFrame({
        "agent": s["agent"].astype(str),
        "seats/game": [f"{v:.3g}" if np.isfinite(v) else "–" for v in per_game],
        "games": s["games"].map("{:,}".format),
        "per-game win rate": [e for e, _ in game],
        "95% CI": [ci for _, ci in game],
        "fair": s["game_win_rate_fair"].map(_pct),
        "per-seat share": [e for e, _ in seat],
        "95% CI ": [ci for _, ci in seat],
        "fair ": s["seat_share_fair"].map(_pct),
        "p vs fair (Holm)": s["p_holm"].map(_p),
        total: [e for e, _ in money],
        "95% CI  ": [ci for _, ci in money],
    }, index=s.index)


def score_interval(v: float, low: float, high: float, unit: str = "dollars") -> tuple[str, str]:
    """A mean total and its interval as text: whole dollars (``$1,150,214``) or points to one decimal, more
    decimals only where the estimate would print equal to a bound it is not equal to."""
    if unit == "dollars":
        return estimate_interval(v, low, high, decimals=0, prefix="$", thousands=True)
    return estimate_interval(v, low, high, decimals=1, thousands=True)


#: The legend printed under every console summary and REPORT.md's win-rate table.
SUMMARY_LEGEND = (
    "per-game win rate = share of games won by any copy of the agent (ties shared, R-TIE); its fair value is "
    "(seats it holds)/P. per-seat share = wins / seat-games; its fair value is 1/P. 95% intervals treat the "
    "game (the deal, under duplicate deals) as the sampling unit (cluster-robust; Wilson on the effective "
    "sample size for rates, Student t for mean totals). p vs fair: two-sided test of per-seat share = 1/P, "
    "Holm-adjusted over the agents.")


def console_summary(summary: pd.DataFrame, unit: str = "dollars") -> str:
    """The per-agent table printed by ``cya-sim tournament``: labelled rates, their fair values and intervals.

    Column widths follow the longest cell, so long agent specs stay aligned.

    Args:
        summary: rows of :func:`cya_sim.reports.stats.summarize` (one table size).
        unit: the totals' unit, ``dollars`` or ``points`` (the rules' ``score_unit``).

    Returns:
        the lines of the table and its legend, joined by newlines.
    """
    cells = _cells(summary, unit)
    cols = list(cells.columns)
    width = {c: max(len(c.strip()), *(len(v) for v in cells[c])) for c in cols}
    def line(vals):
        return "  " + "  ".join(v.ljust(width[c]) if c == "agent" else v.rjust(width[c]) for c, v in zip(cols, vals))
    out = [line([c.strip() for c in cols])]
    out += [line(list(r)) for r in cells.itertuples(index=False)]
    return "\n".join(out)


#: Where REPORT.md sends the reader for how and when the games were played: the run log changes with every run
#: (a replay, a resume) while the report stays byte for byte the same when the games are.
RUN_LOG_NOTE = ("The command line, start and end times (UTC), engine, executor, chunks, wall time, games per second and "
                "peak memory of every run into this folder are in its run log, `runs.json` (a resumed or replayed run "
                "adds an entry there and changes nothing else when the games are the same).")


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
    if rules.get("family") == "theft":  # RULES.md §9: its own options; totals are points, not dollars
        rules_line = (f"- rules: `{rules['name']}` (the theft game, RULES.md §9: end at {rules['assets_to_end']} "
                      f"assets, end of turn `{rules['end_of_turn']}`; totals are points)")
    else:
        rules_line = (f"- rules: `{rules['name']}` (end `{rules['end_condition']}`, target ${rules['target_score']:,}, "
                      f"ties `{rules['tie_break']}`); deck `{rules['deck']['name']}`")
    lines += [
        rules_line,
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
    first = first_command(runs)
    if first:
        lines.append(first)
    lines += [f"# or, from the copy of the experiment kept with the results (seed {manifest['seed']}):",
              f"cya-sim tournament {folder.as_posix()}/{EXPERIMENT_COPY} --out NEW_FOLDER",
              f"cya-sim report {folder.as_posix()}   # rebuild this report from the stored games", "```", ""]
    if runs:
        lines += [RUN_LOG_NOTE, ""]
    for p in sorted(a.games):
        lines += _size_section(p, a, a.family.score_unit)
    lines += ["## Files", ""]
    for n, d in tables_of(a.family).items():
        lines.append(f"- `{n}`: {d}")
        docs = {"summary.csv": SUMMARY_DOC, "pairwise.csv": PAIRWISE_DOC}.get(n, {})
        lines += [f"  - `{k}`: {v}" if not k.startswith("_") else f"  - {v}" for k, v in docs.items()]
    lines += [f"- `{n}`: {d}" for n, d in plots_of(a.family.length).items()]
    lines += ["- `games.parquet/`: one row per game, one file per chunk (`pandas.read_parquet` reads the folder)",
              f"- `manifest.json`, `runs.json`, `{EXPERIMENT_COPY}`: what was played, how, by which version", ""]
    lines += ["## Methods", "",
              ("The sampling unit is the game — the deal when deals are duplicated — never the seat: every "
               "estimate is a ratio over units (Cochran 1977) with a cluster-robust sandwich standard error "
               "(Liang & Zeger 1986) and C - 1 degrees of freedom (Cameron & Miller 2015). Rates: Wilson "
               "interval on the effective sample size (Korn & Graubard 1998), with Poisson limits within 3 "
               "wins or losses of 0% and 100% (Brown, Cai & DasGupta 2001); a per-seat share as the share of "
               "the most its seats could win, so its interval stays in range (1/2 for two seats of four); "
               "differences of win shares: Newcombe's (1998) hybrid score interval with the estimates' "
               "correlation, inside the possible range; dollars: Student t. Tests of a fixed value (fair share, 50% finished ahead): generalised score test (Boos 1992), "
               "two-sided. Seat and turn-order effects: least squares of the win share on position and agent "
               "dummies, clustered score (LM) test on F(q, C - 1) (Wooldridge 2010; Cameron & Miller 2015). Ratings: Bradley–Terry on every pair of "
               "seats of a game (rank-breaking; Azari Soufiani et al. 2014), statsmodels GLM, first agent fixed "
               "at 0, Elo scale, sandwich covariance clustered by game/deal (Varin, Reid & Firth 2011). "
               f"Multiple comparisons: {ADJUSTMENT} — the agents' tests against the fair share, the pairwise "
               "tests, and the seat and turn-order tests are three families per table size; every table shows the "
               "raw p-value beside the adjusted one. Coverage and false-positive rates of these intervals and "
               "tests on simulated nulls: docs/statistics.md."), ""]
    return "\n".join(lines)


def _size_section(p: int, a: Analysis, unit: str = "dollars") -> list[str]:
    s = a.summary[a.summary["players"] == p]
    out = [f"## {p} players ({a.games[p]:,} games)", "", "### Win rates and ratings", "",
           "![win rates](win_rates.png)", ""]
    tab = _cells(s, unit).drop(columns=["games"])
    tab.insert(2, "games", s["games"].map("{:,}".format).to_numpy())
    tab.insert(tab.columns.get_loc("p vs fair (Holm)"), "p vs fair (raw)", s["p_value"].map(_p).to_numpy())
    tab["rating (Elo)"] = [f"{r:+.0f} ± {1.96 * se:.0f}" if np.isfinite(r) else "–"
                           for r, se in zip(s["rating"], s["rating_se"])]
    out += [md_table(tab), "", SUMMARY_LEGEND + (f" Ratings: Bradley–Terry, {s['agent'].iloc[0]} fixed at 0, "
            "± a 95% interval clustered by game/deal."), ""]
    out += [f"{n}" for n in a.notes.get(p, [])] + ([""] if a.notes.get(p) else [])
    pw = a.pairwise[(a.pairwise["players"] == p) & (a.pairwise["comparisons"] > 0)]
    out += ["### Head to head", "", "![pairwise](pairwise.png)", ""]
    if len(pw):
        keep = pw[pw["agent"] < pw["opponent"]]
        ahead = [percent_interval(*v) for v in zip(keep["ahead_share"], keep["ahead_share_ci_low"],
                                                   keep["ahead_share_ci_high"])]
        diff = [percent_interval(*v, signed=True) for v in zip(keep["seat_share_diff"], keep["seat_share_diff_ci_low"],
                                                              keep["seat_share_diff_ci_high"])]
        tab = pd.DataFrame({
            "A": keep["agent"], "B": keep["opponent"], "games": keep["games"].map("{:,}".format),
            "comparisons": keep["comparisons"].map("{:,}".format),
            "A ahead": keep["ahead"].map("{:,}".format), "B ahead": keep["behind"].map("{:,}".format),
            "ties": keep["ties"].map("{:,}".format), "share A ahead": [e for e, _ in ahead],
            "95% CI": [ci for _, ci in ahead],
            "seat share A − B": [e for e, _ in diff],
            "95% CI ": [ci for _, ci in diff],
            "p (two-sided, raw)": keep["p_value"].map(_p), "p (Holm)": keep["p_holm"].map(_p),
        })
        out += [md_table(tab), "", ("share A ahead: share of pairs (seat of A, seat of B) in the games where both "
                                    "sat in which A finished with the higher total (ties half); 50% = no "
                                    "difference. p: two-sided test of 50%, games (deals) as units; Holm over the "
                                    f"{len(keep)} pairs of this table size. To claim 'A beats B', the share must "
                                    "be above 50% and the Holm p small."), ""]
    else:
        out += ["No two different agents met at this table size.", ""]
    seats = a.seats[(a.seats["players"] == p)]
    out += ["### Seats", "", "![seats](seats.png)", ""]
    for position, label in (("seat", "seat (fixed chair)"), ("turn_order", "turn order (0 = first to move)")):
        d = seats[(seats["position"] == position) & (seats["agent"] == "(all)")]
        r0 = d.iloc[0]
        what = position.replace("_", " ")
        if np.isfinite(r0.F):
            test = (f". Agent-adjusted score test of no {what} effect, clustered by game/deal: F = {r0.F:.2f} on "
                    f"({int(r0.df_num)}, {int(r0.df_den):,}) df, p = {_p(r0.p_value)} (raw), p = {_p(r0.p_holm)} "
                    "(Holm, over the seat and turn-order tests).")
        else:
            test = f". No {what} test: in these games the {what} cannot be told apart from the agents."
        out += [f"Win rate by {label}: " + ", ".join(f"{int(r.seat)}: {_pct(r.win_rate)}" for r in d.itertuples())
                + test, ""]
    bal = seats[(seats["position"] == "seat") & (seats["agent"] != "(all)")]
    pivot = bal.pivot(index="agent", columns="seat", values="games").reset_index()
    pivot.columns = ["agent"] + [f"seat {c}" for c in pivot.columns[1:]]
    for c in pivot.columns[1:]:
        pivot[c] = pivot[c].map("{:,}".format)
    out += ["Seat-games of each agent in each seat (rotation balance):", "", md_table(pivot), ""]
    ln = a.lengths[a.lengths["players"] == p]
    length = a.family.length
    out += [f"### {a.family.title}", "", f"![{length}]({length}.png) ![totals](totals.png)", ""]
    tab = pd.DataFrame({
        "per game": ln["metric"], "mean": ln["mean"].map("{:,.2f}".format),
        "95% CI": [f"[{lo:,.2f}, {hi:,.2f}]" if np.isfinite(lo) else "–"
                   for lo, hi in zip(ln["mean_ci_low"], ln["mean_ci_high"])],
        "median": ln["median"].map("{:,.0f}".format), "5%": ln["p05"].map("{:,.0f}".format),
        "95%": ln["p95"].map("{:,.0f}".format), "max": ln["max"].map("{:,.0f}".format),
    })
    steal = a.family.column("largest_steal")
    meaning = steal.meaning.split(" (")[0]  # without its rule ID and remark
    out += [md_table(tab), "", f"largest_steal is in {steal.unit}: {meaning}.", ""]
    r = a.length_counts[a.length_counts["players"] == p]
    out += [f"{length.capitalize()} per game: " + ", ".join(f"{int(n)}: {_pct(sh)}"
                                                           for n, sh in zip(r[length], r["share"])), ""]
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
