"""Theft game JSON positions (cya_sim.theft.position): round trip, and refused documents name the field."""

from __future__ import annotations

import json

import pytest
from theft_helpers import asset, tposition, tstate

from cya_sim.theft.position import TheftPositionError, dumps, loads, state_from_dict


def test_round_trip_hand_built_position():
    s = tstate(players=3, hands=[["1", "Gold"], ["Theft"], []], phase="defence", current_player=2,
               assets=[[asset("4", "9", known_by=[[0], [0, 1, 2]])], [], []],
               theft={"thief": 2, "target": 0, "slot": 0, "card": "Gold Theft"}, options={"max_thefts_per_turn": 2})
    text = dumps(s)
    assert dumps(loads(text)) == text
    d = json.loads(text)
    assert d["rules"] == {"preset": "theft", "options": {"max_thefts_per_turn": 2}}
    assert d["assets"][0] == [{"cards": ["4", "9"], "known_by": [[0], [0, 1, 2]]}]


@pytest.mark.parametrize(("change", "message"), [
    (lambda d: d["hands"][0].append("11"), r"^hands\[0\]\[1\]: unknown card '11'; this deck has: 1, 2,"),
    (lambda d: d["hands"][0].append("1"), r"^position: 11 cards '1' in play; the deck has 10 \(R-T-DECK"),
    (lambda d: d.update(phase="defence"), r"^theft: a pending theft is given exactly in the defence phase"),
    (lambda d: d["assets"][1].append({"cards": ["Theft", "2"]}), r"^assets\[1\]\[0\]\.cards\[0\]: 'Theft' cannot lie"),
    (lambda d: d["assets"][1].append({"cards": ["2", "2"], "known_by": [[0], [0, 1]]}),
     r"^assets\[1\]\[0\]\.known_by\[0\]: the owner, seat 1, must know"),
    (lambda d: d.update(colour="red"), r"^colour: unknown field; allowed: format, version,"),
    (lambda d: d["rules"].update(options={"end_of_turn": "x"}), r"^rules\.options: option 'end_of_turn' is 'x'"),
    (lambda d: d.update(players=7), r"^players: is 7; allowed: an integer from 2 to 6"),
])
def test_refused_positions_name_the_field(change, message):
    """Each error starts with the JSON path of the field (asset cards are checked before the deck's count)."""
    d = tposition(players=2, hands=[["1"], []])
    change(d)
    with pytest.raises(TheftPositionError, match=message):
        state_from_dict(d)
