"""Every committed learned model (agents/learned_models/PRESET_Pp*.npz) records the setting its name says, plays it,
and is refused elsewhere in one line (issue 31 item 4: a model for every cell the champion plays in)."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from agents.classic.learned import LearnedSettingError, check_setting, n_features, rules_digest, trained_for
from cya_sim.game.classic.actions import ActionSpace
from cya_sim.game.rules import get_rules

MODELS = Path(__file__).resolve().parents[1] / "agents" / "learned_models"
CELL = re.compile(r"^(classic|advanced)_(\d)p(_\w+)?$")
SINGLE = sorted(p.stem for p in MODELS.glob("*.npz") if CELL.match(p.stem))
#: The cells the champion plays in: a model of each is committed.
CELLS = [f"{preset}_{p}p" for preset in ("classic", "advanced") for p in (2, 3, 4, 6)]


def test_a_model_is_committed_for_every_cell_of_the_champion():
    assert set(CELLS) <= set(SINGLE)


@pytest.mark.parametrize("name", SINGLE)
def test_each_model_records_the_setting_of_its_name_and_refuses_another(name):
    preset, players = CELL.match(name).group(1), int(CELL.match(name).group(2))
    rules = get_rules(preset)
    with np.load(MODELS / f"{name}.npz") as f:
        rec = trained_for(f)
        w1, w3 = f["W1"].shape, f["W3"].shape
    assert rec == {"rules": preset, "rules_digest": rules_digest(rules), "players": players,
                   "encoding": "agents.learned.features/1"}
    d = rules.deck
    assert w1[0] == n_features(players, d.n_types, d.n_assets, ActionSpace.for_rules(rules).advanced_on)
    assert w3[1] == ActionSpace.for_rules(rules).size
    spec = f"agents.learned_models.{name}:decide"
    check_setting(spec, rules, players)
    other = 3 if players == 2 else 2
    with pytest.raises(LearnedSettingError, match=rf"{players} players, encoding .*; asked to play rules {preset} .*, {other} "
                                                  r"players \(other table size\)"):
        check_setting(spec, rules, other)
    with pytest.raises(LearnedSettingError, match=r"\(other rules\)"):
        check_setting(spec, get_rules("advanced" if preset == "classic" else "classic"), players)


def test_the_champion_holds_the_network_of_each_cell_and_refuses_any_other_setting():
    """agents.learned_models.champion (experiments/make_champion.py): one network per cell of the board, each the
    committed member's weights exactly; elsewhere refused in one line."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("make_champion", MODELS.parents[1] / "experiments" / "make_champion.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    with np.load(MODELS / "champion.npz") as f:
        assert int(f["members"]) == len(mod.MEMBERS) == 8
        for k, (cell, member) in enumerate(mod.MEMBERS.items()):
            preset, p = cell.split()
            assert str(f[f"m{k}_source"]) == f"{member}.npz" and member.startswith(f"{preset}_{p}")
            with np.load(MODELS / f"{member}.npz") as g:
                assert all(np.array_equal(f[f"m{k}_{w}"], g[w]) for w in ("W1", "b1", "W2", "b2", "W3", "b3"))
    for preset in ("classic", "advanced"):
        for p in (2, 3, 4, 6):
            check_setting("agents.learned_models.champion:decide", get_rules(preset), p)
    for rules, p in ((get_rules("classic"), 5), (get_rules("guide"), 4), (get_rules("two_player_draft"), 2)):
        with pytest.raises(LearnedSettingError, match="which none of them was trained for"):
            check_setting("agents.learned_models.champion:decide", rules, p)
