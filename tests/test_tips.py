"""The tip study (issue 11): ablation design, paired effects, TOST, verdicts, inert switches, report, notebook, CLI."""

from __future__ import annotations

import json
from pathlib import Path

import nbclient
import nbformat
import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

from cya_sim.cli.main import main
from cya_sim.reports.stats import paired_difference
from cya_sim.runs.experiment import ExperimentError, parse_experiment
from cya_sim.runs.schedule import Schedule
from cya_sim.studies.tips import load_study, parse_study, plan_deals, run_study
from cya_sim.studies.tips.design import hide_experiments
from cya_sim.studies.tips.effects import HIDE_CONTRASTS, hide_effects
from cya_sim.studies.tips.verdicts import verdict

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOK = ROOT / "notebooks" / "tips.ipynb"


def _ablation(**design):
    doc = {"name": "abl", "seed": 1, "games": 2 * 3 * 3, "players": 3,
           "agents": ["heuristic", "heuristic(backup=true)", "greedy"],
           "design": {"kind": "ablation", "field": "greedy",
                      "tips": [{"id": "TIP-BACKUP", "treatment": "heuristic(backup=true)", "control": "heuristic"}],
                      **design}}
    return parse_experiment(doc)


def test_ablation_plays_treatment_and_control_on_the_same_deals_and_seats():
    exp = _ablation()
    assert exp.design.duplicate and exp.design.arms == ("heuristic(backup=true)", "heuristic")
    g = Schedule.of(exp).games_of(0, exp.games)
    arm_seat = g["rotation"]  # the arm sits at line-up position 0: seat = rotation
    pool = np.array([exp.agents.index(a) for a in exp.design.arms])
    assert (g["seat_agent"][np.arange(exp.games), arm_seat] == pool[g["lineup"]]).all()
    for d in np.unique(g["deal"]):  # every deal: both arms, every rotation once
        sel = g["deal"] == d
        assert sorted(zip(g["lineup"][sel], g["rotation"][sel])) == [(a, r) for a in (0, 1) for r in range(3)]
    assert (g["seat_agent"][g["seat_agent"] != pool[g["lineup"]][:, None]] == 2).all()  # the field elsewhere


@pytest.mark.parametrize(("design", "field"), [
    ({"duplicate": False}, "design.duplicate"),
    ({"tips": [{"id": "T", "treatment": "heuristic", "control": "nope"}]}, "design.tips[0].control"),
    ({"tips": [{"id": "T", "treatment": "heuristic", "control": "heuristic"}]}, "design.tips[0].control"),
    ({"tips": [{"id": "T", "treatment": "greedy", "control": "heuristic"}]}, "design.tips[0].treatment"),
    ({"field": "random"}, "design.field"),
    ({"tips": []}, "design.tips"),
])
def test_ablation_design_refuses_bad_fields_by_name(design, field):
    with pytest.raises(ExperimentError) as e:
        _ablation(**design)
    assert e.value.field == field
    assert "\n" not in str(e.value)


def test_verdicts():
    assert verdict(0.03, 0.001, 1.0, False) == "supported"
    assert verdict(-0.03, 0.001, 1.0, False) == "refuted"
    assert verdict(0.001, 0.6, 0.01, False) == "no effect within ±m"
    assert verdict(0.001, 0.6, 0.2, False) == "inconclusive"
    assert verdict(0.0, float("nan"), float("nan"), True) == "inert"


def _small_study(out: Path) -> dict:
    return {"name": "t", "seed": 3, "deals": 8, "players": [2, 3], "presets": ["classic"], "fields": ["greedy"],
            "margin_pp": 0.5, "log_deals": 8, "trace_deals": 3, "out": str(out), "workers": 1,
            "tip": [{"id": "AA-CHECK", "treatment": "heuristic", "control": "heuristic(cover=false)"},
                    {"id": "TIP-COVER", "treatment": "heuristic(cover=true)", "control": "heuristic"},
                    {"id": "TIP-BACKUP", "treatment": "heuristic(backup=true)", "control": "heuristic"}],
            "reason": [{"id": "TIP-HIDE-WILD", "reason": "no choice in the rules"}],
            "hide_wild": {"subject": "heuristic", "preset": "classic", "players": [2], "deals": 6}}


def test_small_study_end_to_end_aa_inert_report_and_notebook(tmp_path, monkeypatch):
    out = tmp_path / "study"
    study = parse_study(_small_study(out))
    r = run_study(study, progress=False)
    v = r.verdicts.set_index(["tip", "players"])
    assert len(v) == 3 * 2
    for p in (2, 3):
        # A/A (the same switches spelled twice): identical games, inert with zero changed decisions
        aa = v.loc[("AA-CHECK", p)]
        assert aa["verdict"] == "inert" and aa["decisions_changed"] == 0 and aa["pairs_outcome_changed"] == 0
        assert aa["logged_pairs"] == 8 * p and aa["win_diff"] == 0.0
        # cover=true on greedy's order (sets first) changes nothing either
        assert v.loc[("TIP-COVER", p), "verdict"] == "inert"
        # backup=true changes decisions; its effect is real numbers, not a stub
        b = v.loc[("TIP-BACKUP", p)]
        assert b["verdict"] != "inert" and b["decisions_changed"] > 0 and b["logged_decisions"] > 0
        assert b["win_low"] <= b["win_diff"] <= b["win_high"]
        assert np.isfinite(b["p_holm"]) and b["p_holm"] >= b["p"]
    # FACT-1360: every stored round checked on the reference engine
    f = r.fact_1360
    assert (f["rounds_checked"] > 0).all() and (f["invariant_failures"] == 0).all()
    assert (f["max_scored"] <= 1_360_000).all()
    rounds = pd.read_parquet(out / "rounds.parquet")
    assert rounds["invariant_ok"].all() and len(rounds) == f["rounds_checked"].sum()
    # FACT-ROUNDS histogram sums to 1; TIP-BIG-POT has an interval around its estimate
    h = r.rounds[["r1", "r2", "r3", "r4", "r5", "r6", "r7", "r8plus"]].sum(axis=1)
    assert np.allclose(h, 1.0)
    bp = r.big_pot
    assert ((bp["low"] <= bp["p_win_held"]) & (bp["p_win_held"] <= bp["high"])).all()
    text = (out / "REPORT.md").read_text()
    for needle in ("AA-CHECK", "TIP-HIDE-WILD", "no verdict row: no choice in the rules", "TIP-BIG-POT",
                   "FACT-1360", "FACT-ROUNDS", "forest.png", "heatmap.png"):
        assert needle in text
    assert (out / "forest.png").stat().st_size > 0 and (out / "heatmap.png").stat().st_size > 0
    # TIP-HIDE-WILD comparison: three conditions on the same 6 deals, one row per contrast, real numbers
    hd = r.hide
    assert len(hd) == len(HIDE_CONTRASTS) and (hd["deals"] == 6).all() and (hd["games"] == 3 * 6 * 2).all()
    assert ((hd["win_low"] <= hd["win_diff"]) & (hd["win_diff"] <= hd["win_high"])).all()
    assert np.allclose(hd["win_diff"], hd["win_a"] - hd["win_b"])
    assert "hiding against revealing against inferring opponents" in text
    assert (r.big_pot_pooled["units"] == 3).all()  # 3 traced deals x 1 preset x 1 field per table size
    # a second run resumes (nothing to play) and gives the same table, and every file of the study byte for byte:
    # only its run log (runs.json, with the wall times) changes; so does analysing what is on disk
    def files() -> dict[str, bytes]:
        return {p.name: p.read_bytes() for p in out.iterdir() if p.is_file() and p.name != "runs.json"}

    before = files()
    assert "timings.csv" not in before and "play time (s)" not in text and "Play time (sum" not in text
    again = run_study(study, progress=False).verdicts
    pd.testing.assert_frame_equal(again, r.verdicts)
    assert files() == before and len(json.loads((out / "runs.json").read_text())) == 2
    only = run_study(study, progress=False, play=False)
    assert only.missing == () and only.verdicts.equals(r.verdicts)

    monkeypatch.setenv("CYA_TIPS", str(out))
    monkeypatch.delenv("MPLBACKEND", raising=False)
    nb = nbformat.read(NOTEBOOK, as_version=4)
    nbclient.NotebookClient(nb, timeout=300, kernel_name="python3",
                            resources={"metadata": {"path": str(NOTEBOOK.parent)}}).execute()
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])]
    assert not [o for o in outputs if o.get("output_type") == "error"]
    assert len([o for o in outputs if "image/png" in o.get("data", {})]) >= 2  # forest plot, heat map


def test_shipped_study_covers_every_tip_of_tips_md():
    ids = {line.split("|")[1].strip() for line in (ROOT / "TIPS.md").read_text(encoding="utf-8").splitlines()
           if line.startswith(("| TIP-", "| FACT-"))}
    assert len(ids) == 12  # the project's own tip list (TIPS.md at the repository's root): 10 tips, 2 facts
    study = load_study(ROOT / "experiments" / "tips.toml")
    have = {t.split(":")[0] for t, _tr, _co in study.tips} | {i for i, _ in study.reasons}
    have |= {"TIP-BIG-POT", "FACT-1360", "FACT-ROUNDS"}  # measurements in every study report
    assert ids <= have, ids - have
    assert study.presets == ("classic", "guide", "basic") and study.players == (2, 3, 4, 5, 6)
    assert study.fields == ("greedy", "card_counter") and study.margin_pp == 0.5
    assert load_study(ROOT / "experiments" / "tips.toml", quick=True).quick
    # the deals come from the committed pilot: every context planned, each at least the logged deals
    assert set(study.planned) == set(study.all_cells()) and min(study.planned.values()) >= study.log_deals
    assert study.target_half_width_pp == 1.0 and study.hide_wild["planned"]
    pilot = load_study(ROOT / "experiments" / "tips-pilot.toml")
    assert pilot.seed != study.seed and [t for t, _a, _b in pilot.tips] == ["TIP-HIDE-WILD:infer"]


def test_cli_refuses_a_bad_study_field_in_one_line(tmp_path, capsys):
    bad = tmp_path / "bad.toml"
    bad.write_text('name = "x"\nseed = 1\ndeals = 0\nplayers = [2]\npresets = ["classic"]\nfields = ["greedy"]\n'
                   '[[tip]]\nid = "T"\ntreatment = "heuristic(backup=true)"\ncontrol = "heuristic"\n')
    assert main(["tips", str(bad), "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "'deals'" in err
    assert not (tmp_path / "o").exists()
    assert main(["tips", str(tmp_path / "missing.toml")]) == 2


def test_card_counter_infer_hidden_switch_parameters_and_refusal():
    """TIP-HIDE-WILD's opponent switch (R-HIDDEN-WILD): the default infers (parameter 0.0, the agent as before)."""
    from agents.classic.card_counter import CardCounterAgent
    from agents.classic.registry import compiled_params

    assert list(CardCounterAgent()._params) == [0.0, 0.0]
    assert list(CardCounterAgent(infer_hidden=False)._params) == [0.0, 1.0]
    assert list(compiled_params("card_counter(infer_hidden=false)")[:3]) == [0.0, 1.0, 0.0]
    assert list(compiled_params("card_counter")[:2]) == list(compiled_params("card_counter(infer_hidden=true)")[:2])
    with pytest.raises(TypeError, match="infer_hidden"):
        CardCounterAgent(infer_hidden=1)


def test_hide_wild_conditions_share_their_deals():
    """The three conditions of a table size have one seed; a deal does not depend on hidden_wilds (R-HIDDEN-WILD
    changes what is seen, not what is dealt), so the contrasts are paired on the same cards."""
    from cya_sim.engine.classic.reference.setup import new_game
    from cya_sim.game.rng import root_key

    study = parse_study(_small_study(Path("unused")))
    exps = hide_experiments(study)
    assert [(p, j) for p, j, _e in exps] == [(2, 0), (2, 1), (2, 2)]
    assert len({e.seed for _p, _j, e in exps}) == 1
    assert [e.rules.hidden_wilds for _p, _j, e in exps] == [True, True, False]
    for deal in range(3):
        a, b = (new_game(e.rules, 2, root_key(e.seed), deal) for e in (exps[0][2], exps[2][2]))
        assert [list(h) for h in a.hands] == [list(h) for h in b.hands] and list(a.draw_pile) == list(b.draw_pile)


def test_hide_effects_pairs_on_deals_and_refuses_other_deals():
    rng = np.random.default_rng(2)
    deals = np.arange(2000)
    base = rng.uniform(0, 1, 2000)
    per = {(3, 0): (deals, base), (3, 1): (deals, np.clip(base - 0.2, 0, 1)), (3, 2): (deals, base.copy())}
    h = hide_effects(per).set_index("contrast")
    assert h.loc[HIDE_CONTRASTS[0][2], "verdict"] == "lower"  # condition 1 minus condition 0: about -0.2
    # identical per-deal rates on 2,000 deals: the exact rule of rows with no differing deal bounds the effect
    # within ±0.5 pp (issue 23: a zero spread alone does not prove equivalence; on 400 deals the bound is ±0.9 pp)
    assert h.loc[HIDE_CONTRASTS[2][2], "verdict"] == "no effect within ±m"
    assert h.loc[HIDE_CONTRASTS[2][2], "win_rule"] == "few non-zero deals"
    small = hide_effects({k: (d[:400], w[:400]) for k, d_w in per.items() for d, w in [d_w]}).set_index("contrast")
    assert small.loc[HIDE_CONTRASTS[2][2], "verdict"] == "inconclusive"
    with pytest.raises(ValueError, match="different deals"):
        hide_effects({(3, 0): (deals, base), (3, 1): (deals + 1, base)})


def test_plan_deals_from_a_pilot_reaches_the_target_on_simulated_data(tmp_path):
    """The two-stage allocation (Stein 1945; an external pilot): deals fixed from the pilot's sd, then a fresh
    sample. On simulated per-deal differences (pilot of 400 deals, sd 0.45 as the 2-player rows), the final
    t intervals keep ~95% coverage and reach the 1.0 pp half-width in nearly every replication."""
    pilot = tmp_path / "pilot.csv"
    rows = [{"preset": "classic", "field": "greedy", "players": 2, "tip": "T", "deals": 400,
             "win_se": 0.45 / np.sqrt(400), "inert": False},
            {"preset": "classic", "field": "greedy", "players": 2, "tip": "AA", "deals": 400,
             "win_se": 9.0, "inert": True}]  # inert rows carry no spread to plan on
    pd.DataFrame(rows).to_csv(pilot, index=False)
    doc = {**_small_study(tmp_path / "o"), "pilot": [str(pilot)], "target_half_width_pp": 1.0,
           "pilot_inflation": 1.1, "tip": [{"id": "T", "treatment": "heuristic(backup=true)", "control": "heuristic"}]}
    study = parse_study(doc)
    plan = plan_deals(study).set_index("players")
    n = int(plan.loc[2, "deals"])
    n_z = int(np.ceil(1.1 * (sps.norm.ppf(0.975) * 0.45 / 0.01) ** 2))
    assert n == int(np.ceil(1.1 * (sps.t.ppf(0.975, n_z - 1) * 0.45 / 0.01) ** 2)) and 8500 < n < 8600
    assert plan.loc[3, "pilot_rows"] == 0 and plan.loc[3, "deals"] == 8  # no pilot rows: the deals field
    assert study.deals_of("classic", "greedy", 2) == n and study.experiment("classic", "greedy", 2).games == n * 2 * 2
    # the procedure on simulated nulls: pilot sd -> n -> an independent final sample
    rng = np.random.default_rng(11)
    reps, hits, narrow = 300, 0, 0
    for _ in range(reps):
        s1 = rng.normal(0, 0.45, 400).std(ddof=1)
        m = int(np.ceil(1.1 * (sps.t.ppf(0.975, 400) * s1 / 0.01) ** 2))
        x = rng.normal(0, 0.45, m)
        hw = sps.t.ppf(0.975, m - 1) * x.std(ddof=1) / np.sqrt(m)
        hits += abs(x.mean()) <= hw
        narrow += hw <= 0.01
    assert abs(hits / reps - 0.95) < 3 * np.sqrt(0.05 * 0.95 / reps)
    assert narrow / reps > 0.9


@pytest.mark.parametrize(("key", "value", "field"), [
    ("hide_wild", {"players": [1], "deals": 5}, "hide_wild.players"),
    ("hide_wild", {"players": [2], "deals": [5, 6]}, "hide_wild.deals"),
    ("hide_wild", {"players": [2], "deals": 5, "subject": "nope"}, "hide_wild.subject"),
    ("hide_wild", {"players": [2], "deals": 5, "colour": 1}, "hide_wild"),
    ("pilot", [3], "pilot"),
    ("target_half_width_pp", -1, "target_half_width_pp"),
    ("pilot_inflation", 0.5, "pilot_inflation"),
])
def test_study_refuses_bad_plan_and_hide_fields_by_name(tmp_path, key, value, field):
    with pytest.raises(ExperimentError) as e:
        parse_study({**_small_study(tmp_path), key: value})
    assert e.value.field == field and "\n" not in str(e.value)


def test_only_runs_single_cells_with_the_full_studys_seeds_and_refuses_unknown_names(tmp_path):
    full = parse_study(_small_study(tmp_path))
    one = parse_study(_small_study(tmp_path), only=["classic-greedy-3p"])
    assert one.cells() == [("classic", "greedy", 3)] and hide_experiments(one) == []
    assert one.experiment("classic", "greedy", 3).seed == full.experiment("classic", "greedy", 3).seed
    assert [e.seed for _p, _j, e in hide_experiments(parse_study(_small_study(tmp_path), only=["hide"]))] == \
        [e.seed for _p, _j, e in hide_experiments(full)]
    with pytest.raises(ExperimentError) as e:
        parse_study(_small_study(tmp_path), only=["classic-greedy-9p"])
    assert e.value.field == "only"


def test_forest_plot_of_the_committed_study_is_one_scale_for_every_panel_and_readable():
    """results/tips (420 rows): one panel per preset and field, the 14 tips named once per row of panels, the table
    sizes as markers inside a tip's row, inert rows without whiskers, one x axis for every panel on which a ±0.5 pp
    effect is drawn smaller than a −35 pp one, text of at least 8 pt inside the figure, and a title naming
    presets, fields, sizes and deals."""
    from matplotlib.text import Text

    from cya_sim.reports.plots import MIN_FONT
    from cya_sim.studies.tips import forest_figure

    v = pd.read_csv(ROOT / "results" / "tips" / "verdicts.csv")
    fig = forest_figure(v, 0.5)
    fig.canvas.draw()
    axes = fig.axes
    tips = list(dict.fromkeys(v["tip"]))
    assert [ax.get_title() for ax in axes] == [f"{pr} · against P−1 {f}" for f in ("greedy", "card_counter")
                                               for pr in ("classic", "guide", "basic")]
    w, h = fig.get_size_inches()
    assert h < 18 and w < 14  # 6 panels of 14 tips (was 14 panels of 30 rows, 6 px labels)
    labels = [t for t in axes[0].get_yticklabels() if t.get_text()]
    assert [t.get_text() for t in sorted(labels, key=lambda t: -t.get_position()[1])] == tips
    assert not [t.get_text() for t in axes[1].get_yticklabels() if t.get_text() and t.get_visible()]
    texts = [t for t in fig.findobj(Text) if t.get_visible() and t.get_text().strip()]
    assert min(t.get_fontsize() for t in texts) >= MIN_FONT
    box = fig.bbox
    assert all(box.x0 - 1 <= t.get_window_extent().x0 and t.get_window_extent().x1 <= box.x1 + 1 for t in labels)
    # one scale: every panel the same limits, linear within ±1 pp and logarithmic beyond
    assert len({ax.get_xlim() for ax in axes}) == 1 and {ax.get_xscale() for ax in axes} == {"symlog"}
    zero, half, big = axes[0].transData.transform([(0, 0), (0.5, 0), (-35, 0)])[:, 0]
    assert 0 < half - zero < (zero - big) / 5
    # AA-CHECK is inert in every context: a cross per table size in every panel, no whisker
    aa = [ln for ax in axes for ln in ax.lines if ln.get_marker() == "x"]
    assert sum(len(ln.get_xdata()) for ln in aa) >= 30
    # a tip with intervals: one whisker per non-inert row of a panel, spanning win_low..win_high in pp
    sub = v[(v["tip"] == "TIP-BACKUP") & (v["preset"] == "classic") & (v["field"] == "greedy") & ~v["inert"]]
    y0 = len(tips) - 1 - tips.index("TIP-BACKUP")
    segs = [ln for ln in axes[0].lines if ln.get_marker() in ("None", "", None) and len(ln.get_xdata()) == 2
            and abs(ln.get_ydata()[0] - y0) < 0.45 and ln.get_ydata()[0] == ln.get_ydata()[1]]
    assert len(segs) == len(sub)
    assert np.allclose(sorted(ln.get_xdata()[0] for ln in segs), sorted(100 * sub["win_low"]))
    title = fig._suptitle.get_text()
    assert "presets classic, guide, basic" in title and "2–6 players" in title and "deals per context" in title
    from cya_sim.studies.tips.figures import _range_text

    assert _range_text([2, 4], every=True) == "2, 4" and _range_text([1_078, 8_924]) == "1,078–8,924"  # no false range


@pytest.mark.parametrize(("only", "entry"), [("", 1), (",,", 1), ("classic-greedy-3p,", 2), (" ", 1)])
def test_only_with_an_empty_entry_is_refused_before_any_game(tmp_path, capsys, only, entry):
    """Issue 23: ``--only ""`` or ``--only ",,"`` started the whole study; now one line naming the field and the
    allowed values, exit status 2, nothing written."""
    out = tmp_path / "study"
    assert main(["tips", str(ROOT / "experiments" / "tips.toml"), "--only", only, "--out", str(out), "--quiet"]) == 2
    stdout, err = capsys.readouterr()
    assert stdout == "" and len(err.strip().splitlines()) == 1
    assert err.startswith(f"cya-sim tips: error: field 'only': entry {entry} of {only!r} is empty; give cell names "
                          "separated by commas, such as classic-greedy-2p")
    assert not out.exists()


def test_a_row_with_a_single_nonzero_deal_is_no_effect_only_with_enough_deals():
    """Issue 23: one deal of n differing gave a t interval whose half-width equals the effect and TOST p < 0.0001.
    With the exact rule of :func:`cya_sim.reports.stats.paired_difference` (tests/test_paired_difference.py), 3,022
    deals bound it within ±0.5 pp; 600 cannot."""
    d = np.zeros(3022)
    d[17] = 0.25
    e = paired_difference(d, 0.95, 0.005)
    assert e.rule == "few non-zero deals" and verdict(e.value, e.p, e.p_tost, False) == "no effect within ±m"
    few = paired_difference(d[:600], 0.95, 0.005)
    assert few.p_tost > 0.05 and verdict(few.value, few.p, few.p_tost, False) == "inconclusive"


def test_fact_and_big_pot_verdicts_say_whether_the_claim_holds():
    """Issue 23: FACT-1360, FACT-ROUNDS and TIP-BIG-POT reported measurements but no verdict."""
    from cya_sim.studies.tips.verdicts import big_pot_verdict, fact_1360_verdict, fact_rounds_verdict

    f = pd.DataFrame({"preset": ["classic", "advanced"], "field": ["greedy"] * 2, "players": [4, 4],
                      "rounds_checked": [700, 340], "invariant_failures": [0, 0], "max_scored": [1_360_000, 1_362_000],
                      "deck_value": [1_360_000, 1_362_000], "over_1360000": [0, 28]})
    assert fact_1360_verdict(f.iloc[:1]).startswith("holds: 700 stored rounds, none scored more than $1,360,000")
    assert fact_1360_verdict(f).startswith("holds only for decks worth at most $1,360,000 a round (classic): 28 "
                                           "rounds under advanced scored more, up to $1,362,000")
    assert fact_1360_verdict(f.assign(invariant_failures=[0, 2])).startswith("does not hold: 2 of 1,040 stored")
    r = pd.DataFrame({"preset": ["classic"] * 4, "field": ["greedy", "card_counter"] * 2, "players": [2, 2, 6, 6],
                      "in_3_5": [0.0, 0.01, 0.99, 0.87], "in_3_5_low": [0.0, 0.005, 0.98, 0.86],
                      "in_3_5_high": [0.001, 0.02, 0.995, 0.88], "in_4_5": [0.0, 0.0, 0.73, 0.32]})
    text = fact_rounds_verdict(r)
    assert text.startswith("3–5 rounds (seed 002): holds only at 6 players (87.0–99.0 % of games); not at 2 "
                           "(0.0–1.0 % of games)")
    assert "4–5 rounds (seed 000): holds only in some contexts at 6 players (32.0–73.0 % of games); not at 2" in text
    assert fact_rounds_verdict(r[r["players"] == 6].assign(in_4_5=0.9)) == \
        "3–5 rounds (seed 002): holds (87.0–99.0 % of games); 4–5 rounds (seed 000): holds (90.0–90.0 % of games)"
    b = pd.DataFrame({"preset": ["classic"] * 2, "field": ["greedy"] * 2, "players": [2, 4], "p_win_held": [0.59, 0.4],
                      "low": [0.49, 0.34], "high": [0.68, 0.47], "base_rate": [0.5, 0.25]})
    assert big_pot_verdict(b.iloc[1:]).startswith("holds: above the base rate in all 1 contexts")
    assert big_pot_verdict(b).startswith("holds only in 1 of 2 contexts") and "classic/greedy/2p" in big_pot_verdict(b)
    assert big_pot_verdict(b.assign(low=0.01, high=0.1)).startswith("does not hold: below the base rate")
