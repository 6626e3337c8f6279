"""Every game family holds to the game protocol (cya_sim/play/families.py), as pgx's api_test holds its games.

For each family's presets: its agents are named and made; a batch plays the same games on both engines
(the same GameTable: the common columns and the family's own, as it declares them); one logged game plays on the reference engine; its batched engine is accepted; a run's
kernel list names what it compiles; an unknown agent and an unknown engine are refused in one line.
"""

from __future__ import annotations

import numpy as np
import pytest

from cya_sim.engine.table import COMMON_COLUMNS, COMMON_NAMES
from cya_sim.game.rng import root_key
from cya_sim.game.rules import get_rules
from cya_sim.play.families import FAMILIES, family_of
from cya_sim.play.family import GameFamily
from cya_sim.play.kernels import Kernel

#: One preset of each family, with two of its agents.
CASES = {"classic": ("classic", ["greedy", "random"]), "theft": ("theft", ["greedy", "defender"])}


def test_every_family_has_a_case_and_family_of_finds_it():
    assert set(FAMILIES) == set(CASES)
    for name, (preset, _) in CASES.items():
        fam = family_of(get_rules(preset))
        assert isinstance(fam, GameFamily) and fam.name == name


@pytest.mark.parametrize("name", sorted(CASES))
def test_family_protocol(name):
    preset, agents = CASES[name]
    rules = get_rules(preset)
    fam = family_of(rules)
    assert set(agents) <= set(fam.agent_names())
    seats = [fam.make_agent(a) for a in agents] * 2  # 4 seats
    lines: list[str] = []
    fam.play_game(rules, seats, root_key(3), 0, log=lines.append)
    assert lines, "a logged game writes its events"
    assert fam.batched_refusal(rules) == ""
    seat_agent = np.tile(np.array([0, 1, 0, 1], np.int16), (24, 1))
    games = np.arange(24)
    a = fam.play_games("batched")(rules, agents, seat_agent, root_key(5), games)
    b = fam.play_games("reference")(rules, agents, seat_agent, root_key(5), games)
    assert np.array_equal(a.totals, b.totals) and np.array_equal(a.win_share, b.win_share)
    assert a.totals.shape == (24, 4)
    option, unit = fam.cap_option
    assert isinstance(getattr(rules, option), int) and unit in ("round", "turn")
    kernels = fam.kernels([rules], [4], agents, "batched")
    assert kernels and all(isinstance(k, Kernel) for k in kernels)
    with pytest.raises(ValueError, match="choose one of"):
        fam.play_games("gpu")
    with pytest.raises(ValueError):
        fam.make_agent("no_such_agent")


@pytest.mark.parametrize("name", sorted(CASES))
def test_every_family_fills_the_common_columns_and_its_own_on_both_engines(name):
    """The common columns of a GameTable (game, seats, totals in the family's score unit, win shares, decisions,
    capped) and exactly the family's declared columns, with their dtypes, equal on both engines game for game."""
    preset, agents = CASES[name]
    rules = get_rules(preset)
    fam = family_of(rules)
    own = fam.result_columns()
    assert own.family == name and own.score_unit == rules.score_unit
    assert own.length in own.names and set(own.metrics) <= set(own.names) and not set(own.names) & set(COMMON_NAMES)
    assert all(c.unit and c.meaning and np.dtype(c.dtype) for c in own.columns)
    seat_agent = np.tile(np.array([0, 1, 1], np.int16), (12, 1))
    games = np.arange(100, 112)
    tables = [fam.play_games(engine)(rules, agents, seat_agent, root_key(8), games) for engine in ("batched", "reference")]
    for t in tables:
        assert t.family is own and list(t.columns) == list(own.names)
        assert np.array_equal(t.game_index, games) and np.array_equal(t.seat_agent, seat_agent)
        for c in COMMON_COLUMNS:
            value = getattr(t, c.name)
            assert value.dtype == np.dtype(c.dtype) and value.shape[0] == 12, c.name
        assert t.totals.shape == t.win_share.shape == (12, 3)
        np.testing.assert_allclose(t.win_share.sum(axis=1), 1.0)
        assert (t.decisions > 0).all() and not t.capped.any()
        for c in own.columns:
            assert t.columns[c.name].dtype == np.dtype(c.dtype) and getattr(t, c.name) is t.columns[c.name]
        first = t.first_to_move()
        assert first.shape == (12,) and ((first >= 0) & (first < 3)).all()
        assert all(t.columns[m].max() > 0 for m in own.metrics if m != "largest_steal")
    assert tables[0].equals(tables[1])


def test_an_unknown_family_is_refused_in_one_line():
    class Odd:
        family, name = "chess", "odd"

    with pytest.raises(ValueError, match="unknown game family 'chess'; known: classic, theft"):
        family_of(Odd())
