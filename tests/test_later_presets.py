"""Results under the later edition's presets (issue 13): the baseline files, the tip study's contexts, a small run."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from cya_sim.runs.experiment import ExperimentError, load_experiment
from cya_sim.runs.schedule import Schedule
from cya_sim.studies.tips import load_study, parse_study, run_study

ROOT = Path(__file__).resolve().parents[1]
EXP = ROOT / "experiments"
BASELINES = {"baseline-advanced": ("advanced", (4, 5, 6)), "baseline-2p-draft": ("two_player_draft", (2,)),
             "baseline-3p-draft": ("three_player_draft", (3,)), "baseline-basic": ("basic", (2, 3, 4, 5, 6)),
             "baseline-classic": ("classic", (2, 3, 4, 5, 6))}


@pytest.mark.parametrize("name", sorted(BASELINES))
def test_baseline_files_seat_every_agent_equally_at_every_size(name):
    """Every file plays the baseline's pool; per table size every agent holds every seat equally often."""
    exp = load_experiment(EXP / f"{name}.toml")
    preset, sizes = BASELINES[name]
    assert exp.rules.name == preset and exp.players == sizes and exp.games == 210_000
    base = load_experiment(EXP / "baseline.toml")
    assert exp.agents == base.agents
    sched = Schedule.of(exp)
    for i, p in enumerate(sizes):
        g = sched.games_of(i * exp.games, (i + 1) * exp.games)
        sa = np.asarray(g["seat_agent"])
        counts = np.stack([np.bincount(sa[:, s], minlength=len(exp.agents)) for s in range(p)])
        assert (counts == counts[0]).all(), (p, counts)  # each agent: the same seat-games in every seat
        per_agent = counts.sum(axis=0)
        assert (per_agent == per_agent[0]).all()  # and the same seat-games in all


def test_later_study_files_cover_the_allowed_sizes_with_their_own_seeds():
    tips = load_study(EXP / "tips.toml")
    pilot = load_study(EXP / "tips-later-pilot.toml")
    study = load_study(EXP / "tips-later.toml")
    cells = [("advanced", f, p) for f in ("greedy", "card_counter") for p in (4, 5, 6)] + \
            [("two_player_draft", f, 2) for f in ("greedy", "card_counter")] + \
            [("three_player_draft", f, 3) for f in ("greedy", "card_counter")]
    assert pilot.all_cells() == study.all_cells() == cells
    assert pilot.tips == study.tips == tips.tips  # the same ablations as the classic study
    assert len({pilot.seed, study.seed, tips.seed, load_study(EXP / "tips-pilot.toml").seed}) == 4
    assert study.hide_wild is None and study.target_half_width_pp is not None
    # stage 2's deals come from the committed pilot, every context planned before any of its games
    assert set(study.planned) == set(cells) and min(study.planned.values()) >= study.log_deals
    quick = load_study(EXP / "tips-later.toml", quick=True)
    assert quick.cells() == [("advanced", "greedy", 4), ("two_player_draft", "greedy", 2)]


def _doc(out: Path, **kw) -> dict:
    return {"name": "later", "seed": 5, "deals": 3, "players": [2, 3, 4], "presets": ["two_player_draft", "advanced"],
            "players_by_preset": {"two_player_draft": [2], "advanced": [3]}, "fields": ["greedy"],
            "log_deals": 3, "trace_deals": 1, "out": str(out),
            "tip": [{"id": "AA-CHECK", "treatment": "heuristic", "control": "heuristic(cover=false)"},
                    {"id": "TIP-BACKUP", "treatment": "heuristic(backup=true)", "control": "heuristic"}], **kw}


@pytest.mark.parametrize(("value", "field"), [
    ({"theft": [2]}, "players_by_preset.theft"),
    ({"advanced": [5]}, "players_by_preset.advanced"),
    ({"advanced": []}, "players_by_preset.advanced"),
    ([2], "players_by_preset"),
])
def test_players_by_preset_refuses_bad_entries_by_name(tmp_path, value, field):
    with pytest.raises(ExperimentError) as e:
        parse_study(_doc(tmp_path, players_by_preset=value))
    assert e.value.field == field and "\n" not in str(e.value)


def test_players_by_preset_keeps_only_the_allowed_cells_and_a_draft_would_be_refused_elsewhere(tmp_path):
    s = parse_study(_doc(tmp_path))
    assert s.all_cells() == [("two_player_draft", "greedy", 2), ("advanced", "greedy", 3)]
    with pytest.raises(ExperimentError):  # without it, two_player_draft at 3 players is refused by name
        parse_study({k: v for k, v in _doc(tmp_path).items() if k != "players_by_preset"})


def test_small_later_study_runs_with_inert_aa_and_the_round_invariant(tmp_path):
    """Under advanced (Penny Jar, action cards) and the 2p draft (removed cards, draft piles) the study runs end to
    end: A/A inert, every traced round's dollars equal the preset's round total (R-SCORE, R-ADV-PENNY, R-2P-DRAFT)."""
    r = run_study(parse_study(_doc(tmp_path / "s")), progress=False)
    v = r.verdicts.set_index(["tip", "preset"])
    for preset in ("two_player_draft", "advanced"):
        assert v.loc[("AA-CHECK", preset), "verdict"] == "inert"
        assert v.loc[("TIP-BACKUP", preset), "decisions_changed"] > 0
    f = r.fact_1360.set_index("preset")
    assert (f["rounds_checked"] > 0).all() and (f["invariant_failures"] == 0).all()
    assert f.loc["advanced", "deck_value"] == 1_362_000 and f.loc["two_player_draft", "deck_value"] == 1_100_000
    assert "two_player_draft at 2 players only" in (tmp_path / "s" / "REPORT.md").read_text()
