"""The report of a tip study: the CSV tables, the figures and ``REPORT.md``, built section by section.

Each section of REPORT.md is one function returning its lines (:func:`header_lines`, :func:`verdict_lines`,
:func:`big_pot_lines`, :func:`hide_lines`, :func:`wild_use_lines`, :func:`fact_1360_lines`,
:func:`fact_rounds_lines`, :func:`plan_lines`, :func:`timings_lines`); :func:`write_report` joins them in order.
Every table is written by one helper (:func:`_table`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np

from cya_sim.reports.stats import holm
from cya_sim.studies.tips.design import Study
from cya_sim.studies.tips.figures import forest_figure, heatmap_figure
from cya_sim.studies.tips.result import StudyResult
from cya_sim.studies.tips.verdicts import VERDICTS, big_pot_verdict, fact_1360_verdict, fact_rounds_verdict


def _pp(x: float) -> str:
    return "—" if not np.isfinite(x) else f"{100 * x:+.2f}"


def _pv(x: float) -> str:
    return "—" if not np.isfinite(x) else ("<0.0001" if x < 1e-4 else f"{x:.4f}")


def _table(columns: Sequence[str], rows: Iterable[Sequence[object]]) -> list[str]:
    """A Markdown table: the header, its rule and one line per row (a cell None is written ``| |``)."""
    def line(cells: Sequence[object]) -> str:
        return "|" + "|".join(" " if c is None else f" {c} " for c in cells) + "|"

    return [line(columns), "|" + "---|" * len(columns)] + [line(row) for row in rows]


def verdict_markdown(study: Study, r: StudyResult) -> str:
    """The verdict table (one row per tip x context) and the rows of entries without a verdict, as Markdown."""
    columns = ["tip", "preset", "field", "P", "win rate effect (pp) [95% CI]", "total effect ($) [95% CI]",
               "p (Holm)", "TOST p (Holm)", "decisions changed", "verdict"]
    rows = ([x.tip, x.preset, x.field, x.players, f"{_pp(x.win_diff)} [{_pp(x.win_low)}, {_pp(x.win_high)}]",
             f"{x.total_diff:+,.0f} [{x.total_low:+,.0f}, {x.total_high:+,.0f}]", _pv(x.p_holm), _pv(x.p_tost_holm),
             (f"{x.decisions_changed} of {x.logged_pairs} logged pairs; outcome differs in "
             f"{x.pairs_outcome_changed:,} of {x.pairs:,}"), x.verdict] for x in r.verdicts.itertuples())
    return "\n".join(_table(columns, rows))


def summary_markdown(study: Study, r: StudyResult) -> str:
    """One row per tip over every context: verdict counts, effect range, largest half-width."""
    rows = [[tid, f"`{sub['treatment'].iloc[0]}`", f"`{sub['control'].iloc[0]}`",
             ", ".join(f"{k} {n}" for k, n in sub["verdict"].value_counts().items()),
             f"{_pp(sub['win_diff'].min())} to {_pp(sub['win_diff'].max())}"]
            for tid, sub in r.verdicts.groupby("tip", sort=False)]
    rows += [[tid, "—", "—", f"no verdict row: {why}", "—"] for tid, why in study.reasons]
    ro = r.rounds
    rows += [["TIP-BIG-POT", "(measurement)", None, f"{big_pot_verdict(r.big_pot)} (table below)", "—"],
             ["FACT-1360", "(invariant)", None, f"{fact_1360_verdict(r.fact_1360)} (table below)", "—"],
             ["FACT-ROUNDS", "(distribution)", None, (f"{fact_rounds_verdict(ro)}; mean rounds per game "
              f"{ro['mean_rounds'].min():.2f}–{ro['mean_rounds'].max():.2f} (table below)"), "—"]]
    return "\n".join(_table(["tip", "treatment", "control", "verdicts over the contexts",
                              "win-rate effect range (pp)"], rows))


def write_report(study: Study, r: StudyResult, command: str | None = None) -> Path:
    """Write the CSV tables, ``forest.png``, ``heatmap.png`` and ``REPORT.md`` into ``study.out``.

    Returns:
        the path of REPORT.md.
    """
    out = study.out
    for k in ("verdicts", "rounds", "big_pot", "fact_1360", "hide", "plan", "big_pot_pooled"):
        if k in ("verdicts", "rounds", "big_pot", "fact_1360") or len(getattr(r, k)):
            getattr(r, k).to_csv(out / f"{k}.csv", index=False)
    forest_figure(r.verdicts, study.margin_pp).savefig(out / "forest.png")
    heatmap_figure(r.verdicts).savefig(out / "heatmap.png")
    md = (header_lines(study, r, command) + verdict_lines(study, r) + big_pot_lines(study, r) + hide_lines(study, r)
          + wild_use_lines(study, r) + fact_1360_lines(r) + fact_rounds_lines(r) + plan_lines(study, r)
          + timings_lines(study, r))
    path = out / "REPORT.md"
    path.write_text("\n".join(md) + "\n", encoding="utf-8")
    return path


def header_lines(study: Study, r: StudyResult, command: str | None = None) -> list[str]:
    """The title, the command, what was played (contexts, deals, games, play time) and how it was analysed."""
    v = r.verdicts
    t = r.timings
    games = int(t["games"].sum()) if len(t) else 0
    hide_games = int(r.hide.drop_duplicates("players")["games"].sum()) if len(r.hide) else 0
    cnt = v["verdict"].value_counts()
    only_at = "".join(f" ({pr} at {', '.join(map(str, s))} players only)" for pr, s in study.players_by_preset.items())
    deals = (f"the deals planned from the pilot (two-stage allocation, table below; {min(study.planned.values()):,}"
             f"–{max(study.planned.values()):,} duplicated deals per context)" if study.planned else
             ", ".join(f"{d:,} duplicated deals at {p}p" for p, d in zip(study.players, study.deals)))
    played = (f"{len(study.tips)} ablations x {len(study.cells())} contexts (table sizes "
              f"{', '.join(map(str, study.players))}; presets {', '.join(study.presets)}{only_at}; fields "
              f"{', '.join(f'P-1 {f}' for f in study.fields)}). Each context plays {deals}, every arm "
              f"({len(study.arms)} arms) in every rotation (deals x {len(study.arms)} x P games per context): "
              f"{games:,} games in all, seed {study.seed}"
              + (f"; and {hide_games:,} games of the TIP-HIDE-WILD comparison" if hide_games else "") + ". "
              "Every run's command line, times and wall seconds (per context too) are in the run log, `runs.json`; "
              "a replay with the same games adds an entry there and rewrites every other file byte for byte."
              + (f" **Not analysed (cells not complete on disk): {', '.join(r.missing)}.**" if r.missing else ""))
    method = (f"Effects are treatment minus control, paired on deals (the sampling unit), with 95% Student-t "
              f"intervals on deals - 1 df; p is the two-sided t test of no difference, TOST p the equivalence test "
              f"of |effect| < {study.margin_pp:g} pp (Schuirmann 1987); both Holm-adjusted over the family of "
              f"{int((~v['inert']).sum())} non-inert tip x context rows. Verdicts: "
              + ", ".join(f"{k} {cnt.get(k, 0)}" for k in VERDICTS) + ".")
    return [f"# Tip study `{study.name}`" + (" (quick form)" if study.quick else ""), "",
            f"Command (the first run's): `{command or 'cya-sim tips ' + str(study.source)}`", "", played, "", method,
            "",
            half_width_text(study, r), "",
            ("*Decisions changed*: paired games (same deal, same rotation) of the first "
             f"{study.log_deals} deals replayed with action logs whose logs differ — each has one decision "
             "the switch changed, at the first divergence; and, over all games, paired games whose outcome differs. "
             "A row with both zero is *inert* and carries no test.")]


def half_width_text(study: Study, r: StudyResult) -> str:
    """The median and largest win-rate half-widths of the non-inert rows, and whether the target was met."""
    v = r.verdicts
    hw = v.loc[~v["inert"], "half_width_pp"]
    text = f"Win-rate interval half-widths (non-inert rows): median {hw.median():.2f} pp, largest {hw.max():.2f} pp"
    target = study.target_half_width_pp
    if target is None:
        return text + "."
    if len(hw) and hw.max() <= target:
        return text + f" (target <= {target:g} pp: met in every row)."
    missed = v[~v["inert"] & (v["half_width_pp"] > target)]
    return (text + f" (target <= {target:g} pp: NOT met in {int((hw > target).sum())} rows: "
            + ", ".join(f"{x.tip} {x.preset} {x.field} {x.players}p {x.half_width_pp:.2f}" for x in missed.itertuples())
            + ").")


def verdict_lines(study: Study, r: StudyResult) -> list[str]:
    """The summary per tip, the figures and the verdict table."""
    return ["", "## Summary per tip", "", summary_markdown(study, r), "",
            "![forest plot](forest.png)", "", "![heat map](heatmap.png)", "",
            "## Verdict table", "", verdict_markdown(study, r)]


def big_pot_lines(study: Study, r: StudyResult) -> list[str]:
    """TIP-BIG-POT: its verdict, the table per context and, when there, the table pooled per table size."""
    md = ["", "## TIP-BIG-POT", "",
          ("Per context, the first arm's games of the first "
           f"{study.trace_deals} deals replayed on the reference engine; each round end with a single holder of "
           "the largest set; P(win) is the holder's win share of the game, deal-clustered Wilson interval."), "",
          f"**Verdict:** {big_pot_verdict(r.big_pot)}.", ""]
    md += _table(["preset", "field", "P", "round ends", *_BIG_POT_COLUMNS],
                 ([x.preset, x.field, x.players, x.round_ends, *_big_pot_cells(x)] for x in r.big_pot.itertuples()))
    if len(r.big_pot_pooled):
        md += ["", ("Pooled per table size over every preset and field (units: context x deal, Wilson interval on "
                    "the effective sample size):"), ""]
        md += _table(["P", "units", "round ends", *_BIG_POT_COLUMNS],
                     ([x.players, f"{x.units:,}", f"{x.round_ends:,}", *_big_pot_cells(x)]
                      for x in r.big_pot_pooled.itertuples()))
    return md


#: The columns of both TIP-BIG-POT tables after the context's: P(win | held the largest set), 1/P, at the last round.
_BIG_POT_COLUMNS = ("P(win \\| held largest) [95% CI]", "base rate", "at the last round [95% CI]")


def _big_pot_cells(x) -> list[str]:
    """The :data:`_BIG_POT_COLUMNS` cells of a row of ``big_pot.csv`` or ``big_pot_pooled.csv`` (percent)."""
    return [f"{100 * x.p_win_held:.1f} % [{100 * x.low:.1f}, {100 * x.high:.1f}]", f"{100 * x.base_rate:.1f} %",
            f"{100 * x.p_win_held_last:.1f} % [{100 * x.low_last:.1f}, {100 * x.high_last:.1f}]"]


def hide_lines(study: Study, r: StudyResult) -> list[str]:
    """The TIP-HIDE-WILD comparison: how the tip is tested, and its contrasts (none when it was not run)."""
    if not len(r.hide):
        return []
    h = study.hide_wild or {}
    md = ["", "## TIP-HIDE-WILD: hiding against revealing against inferring opponents", "",
          ("The rules leave a player no choice to reveal a wild: under R-HIDDEN-WILD a set laid from the hand "
           "always shows only its top asset, and `hidden_wilds` is a rule option for the whole table, not a "
           "player's decision. So the tip is tested two ways. (1) The opponent switch, a verdict row in every "
           "context (TIP-HIDE-WILD:infer): `card_counter` values a hidden set card by the unseen cards it can "
           "be (the set's asset or a wild, RULES.md §10, with the public record of who gave up a challenge), "
           "`card_counter(infer_hidden=false)` at the asset's face value. (2) The comparison below: the "
           f"subject `{h.get('subject', 'heuristic')}` (preset {h.get('preset', 'classic')}) against P-1 "
           "copies of a field in three conditions on the same deals, seats rotated: hidden wilds with a naive "
           "field, hidden wilds with an inferring field, and wilds revealed (`hidden_wilds = false`, where "
           "nothing is left to infer). Effects are the subject's win rate, first condition minus second, "
           "paired on deals, 95% Student-t intervals; Holm over this family "
           f"({len(r.hide)} rows); TOST margin ±{study.margin_pp:g} pp."), ""]
    return md + _table(["P", "contrast", "win rates (%)", "effect (pp) [95% CI]", "p (Holm)", "TOST p (Holm)", "deals",
                        "verdict"],
                       ([x.players, x.contrast, f"{100 * x.win_a:.2f} vs {100 * x.win_b:.2f}",
                         f"{_pp(x.win_diff)} [{_pp(x.win_low)}, {_pp(x.win_high)}]", _pv(x.p_holm), _pv(x.p_tost_holm),
                         f"{x.deals:,}", x.verdict] for x in r.hide.itertuples()))


def wild_use_lines(study: Study, r: StudyResult) -> list[str]:
    """The TIP-WILD-USE rows as one family: Holm over that family alone beside the study-wide verdicts."""
    v = r.verdicts
    fam = v[v["tip"].str.startswith("TIP-WILD-USE")].copy()
    if not len(fam):
        return []
    fam["p_family"] = holm(np.where(fam["inert"], np.nan, fam["p"].to_numpy(np.float64)))
    uses = list(dict.fromkeys(t.split(":", 1)[-1] for t in fam["tip"]))
    md = ["", "## TIP-WILD-USE as one family", "",
          ("The uses of a wild, each the effect of allowing it (treatment: every use allowed; control: "
           "that use forbidden), win rate in pp [95% CI], with Holm over this family alone (its rows x "
           f"{len(study.cells())} contexts) beside the study-wide verdict."), ""]
    rows = []
    for (pr, fl, pl), sub in fam.groupby(["preset", "field", "players"], sort=False):
        cells = {x.tip.split(":", 1)[-1]: f"{_pp(x.win_diff)} [{_pp(x.win_low)}, {_pp(x.win_high)}] "
                 f"p<sub>fam</sub> {_pv(x.p_family)}, {x.verdict}" for x in sub.itertuples()}
        best = sub.loc[sub["win_diff"].abs().idxmax(), "tip"].split(":", 1)[-1]
        rows.append([pr, fl, pl, *(cells.get(u, "—") for u in uses), best])
    return md + _table(["preset", "field", "P", *uses, "largest effect"], rows)


def fact_1360_lines(r: StudyResult) -> list[str]:
    """FACT-1360: what is checked, its verdict and the table per context."""
    md = ["", "## FACT-1360", "",
          ("Every stored round (rounds.parquet) is checked: stacks + discard pile + draw pile + hands (+ leftover "
           "draft-pile cards under a draft) = the deck's value in play, and each seat's round score = its stack's "
           "value."), "", f"**Verdict:** {fact_1360_verdict(r.fact_1360)}.", ""]
    return md + _table(["preset", "field", "P", "rounds checked", "failures", "largest round score ($)",
                        "deck value ($)", "rounds over $1,360,000"],
                       ([x.preset, x.field, x.players, x.rounds_checked, x.invariant_failures, f"{x.max_scored:,}",
                         f"{x.deck_value:,}", x.over_1360000] for x in r.fact_1360.itertuples()))


def fact_rounds_lines(r: StudyResult) -> list[str]:
    """FACT-ROUNDS: how the claim is read, its verdict and the rounds histogram per context."""
    md = ["", "## FACT-ROUNDS", "",
          ("Rounds per game over every game of the context (the seeds say a game *usually* lasts 3–5 rounds, "
           "seed 002; 4–5, seed 000: read as more than half of the games, a context holding it when the "
           "deal-clustered 95% interval lies above 50%). The games are those of the study's arms (heuristic "
           "variants against the field), not of a population of human games."), "",
          f"**Verdict:** {fact_rounds_verdict(r.rounds)}.", ""]
    hist = ("r1", "r2", "r3", "r4", "r5", "r6", "r7", "r8plus")
    return md + _table(["preset", "field", "P", "games", "mean", "in 3–5", "in 4–5", "1", "2", "3", "4", "5", "6", "7",
                        "8+"],
                       ([x.preset, x.field, x.players, f"{x.games:,}", f"{x.mean_rounds:.2f}", f"{100 * x.in_3_5:.1f} %",
                         f"{100 * x.in_4_5:.1f} %", *(f"{100 * getattr(x, k):.1f}" for k in hist)]
                        for x in r.rounds.itertuples()))


def plan_lines(study: Study, r: StudyResult) -> list[str]:
    """The two-stage allocation: the pilot, the rule and the deals of each context (none without a plan)."""
    if not len(r.plan):
        return []
    md = ["", "## Deals per context: the two-stage allocation", "",
          ("Stage 1, the pilot (" + ", ".join(f"`{x}`" for x in study.pilot) + "; its own seed, its games not "
           "reused): per context, the largest per-deal standard deviation of a non-inert row's win-rate "
           f"difference. Stage 2, this study: deals = ceil({study.pilot_inflation:g} x (t x sd / "
           f"{study.target_half_width_pp:g} pp)^2), fixed before any game of the study is played, so its "
           "intervals, tests and verdicts keep their error rates (a fixed size chosen from independent "
           "data; no look at the study's own results). Rows: the pilot's largest sd, its tip, and the deals."), ""]
    return md + _table(["preset", "field", "P", "pilot rows", "pilot deals", "largest sd (pp)", "its tip", "deals"],
                       ([x.preset, x.field, x.players, x.pilot_rows, f"{x.pilot_deals:,}", f"{100 * x.sd_max:.1f}",
                         x.tip_at_max, f"{x.deals:,}"] for x in r.plan.itertuples()))


def timings_lines(study: Study, r: StudyResult) -> list[str]:
    """Deals, games and the win-rate half-widths of each context (the play times are in the run log, runs.json)."""
    v = r.verdicts
    rows = []
    for x in r.timings.itertuples():
        h = v[(v["preset"] == x.preset) & (v["field"] == x.field) & (v["players"] == x.players) & ~v["inert"]]
        hw_cell = f"{h['half_width_pp'].max():.2f} / {h['half_width_pp'].median():.2f}" if len(h) else "—"
        rows.append([x.preset, x.field, x.players, f"{study.deals_of(x.preset, x.field, x.players):,}",
                     f"{x.games:,}", hw_cell])
    return ["", "## Games per context", "", "Play times per context: the run log, `runs.json`.", ""] + _table(
        ["preset", "field", "P", "deals", "games", "win-rate half-width, largest / median (pp)"], rows)
