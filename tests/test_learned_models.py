"""Every committed learned model (agents/learned_models/PRESET_Pp*.npz) records the setting its name says, plays it,
and is refused elsewhere in one line (issue 31 item 4: a model for every cell the champion plays in)."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from agents.learned import LearnedSettingError, check_setting, n_features, rules_digest, trained_for
from cya_sim.game.actions import ActionSpace
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
