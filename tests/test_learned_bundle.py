"""A bundle of learned models (agents.classic.learned.write_bundle): each network plays in its own setting exactly as its
own plug-in does, on both engines; any other setting is refused in one line; a bundle that could not tell two
members apart is refused when written."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from agents.classic.learned import LearnedSettingError, check_setting, write_bundle
from cya_sim.game.rng import root_key
from cya_sim.game.rules import get_rules
from cya_sim.play.families import family_of

MODELS = Path(__file__).resolve().parents[1] / "agents" / "learned_models"


@pytest.fixture()
def bundle(tmp_path, monkeypatch):
    pkg = tmp_path / "bundle_pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("CYA_SIM_CACHE_DIR", str(tmp_path / "cache"))
    py = write_bundle(pkg / "both", [MODELS / "classic_2p", MODELS / "classic_4p.npz"])
    yield py
    for m in ("bundle_pkg.both", "bundle_pkg"):
        sys.modules.pop(m, None)


@pytest.mark.parametrize("players, member", [(2, "classic_2p"), (4, "classic_4p")])
def test_each_network_of_a_bundle_plays_the_games_of_its_own_model(bundle, players, member):
    rules = get_rules("classic")
    n = 12
    games = np.repeat(np.arange(n), players)
    sa = np.array([[(s - r) % players for s in range(players)] for _ in range(n) for r in range(players)], np.int16)
    play = family_of(rules).play_games("batched")
    a = play(rules, ["bundle_pkg.both:decide", "card_counter"], np.minimum(sa, 1), root_key(9), games)
    b = play(rules, [f"agents.learned_models.{member}:decide", "card_counter"], np.minimum(sa, 1), root_key(9), games)
    np.testing.assert_array_equal(a.totals, b.totals)
    np.testing.assert_array_equal(a.decisions, b.decisions)
    ref = family_of(rules).play_games("reference")(rules, ["bundle_pkg.both:decide", "card_counter"],
                                                  np.minimum(sa, 1)[:players], root_key(9), games[:players])
    np.testing.assert_array_equal(ref.totals, a.totals[:players])


def test_a_bundle_refuses_a_setting_none_of_its_networks_was_trained_for_in_one_line(bundle):
    check_setting("bundle_pkg.both:decide", get_rules("classic"), 2)
    check_setting("bundle_pkg.both:decide", get_rules("classic"), 4)
    for rules, players in ((get_rules("classic"), 3), (get_rules("advanced"), 4), (get_rules("guide"), 2)):
        with pytest.raises(LearnedSettingError) as e:
            check_setting("bundle_pkg.both:decide", rules, players)
        msg = str(e.value)
        assert msg.startswith("agent 'bundle_pkg.both:decide': a bundle of learned models for rules classic, "
                              "2 players; rules classic, 4 players (encoding agents.learned.features/1); asked to "
                              f"play rules {rules.name}")
        assert f"{players} players, which none of them was trained for" in msg and "\n" not in msg


def test_a_bundle_needs_members_it_can_tell_apart(tmp_path):
    with pytest.raises(ValueError, match=r"members\[1\]: a second model for 2 players without the advanced cards"):
        write_bundle(tmp_path / "b", [MODELS / "classic_2p", MODELS / "classic_2p"])
    with pytest.raises(ValueError, match="at least one"):
        write_bundle(tmp_path / "b", [])
