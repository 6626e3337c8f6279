"""Theft game JSON positions (cya_sim.game.theft.position): round trip, and refused documents name the field."""

from __future__ import annotations

import json

import pytest
from theft_helpers import asset, tposition, tstate

from cya_sim.game.theft.position import TheftPositionError, dumps, loads, state_from_dict


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


@pytest.mark.parametrize(("change", "message"), [
    (lambda d: d.update(counters={"turns": 10**40}),
     (r"^counters\.turns: is 1000000000000000000000000000000000000...; allowed: an integer from 0 to 1,000 "
     r"\(option max_turns")),
    (lambda d: d.update(counters={"largest_steal": 21}),
     r"^counters\.largest_steal: is 21; allowed: an integer from 0 to 20 \(an asset is two cards"),
    (lambda d: d.update(counters={"thefts": 2**31}), r"^counters\.thefts: is 2147483648; allowed: .* 2,147,483,647"),
    (lambda d: d.update(thefts_this_turn=9), r"^thefts_this_turn: is 9; allowed: an integer from 0 to 8 "),
    (lambda d: d.update(rng={"seed": 2**70}), (r"^rng\.seed: is 1180591620717411303424; allowed: an integer from 0 "
     r"to 9,223,372,036,854,775,807")),
    (lambda d: d.update(rng={"state": 1.5, "inc": True}),
     r"^rng\.state: expected a decimal string of a 128-bit integer; got 1\.5$"),
    (lambda d: d.update(rng={"state": "1" * 50, "inc": "3"}), r"^rng\.state: is out of range; allowed: 0 to 2\*\*128"),
    (lambda d: d.update(rng={"state": "12", "inc": "4"}), r"^rng\.inc: is even; a PCG64 increment is odd$"),
    (lambda d: d["rules"].update(preset=["theft"]), r"^rules\.preset: unknown theft preset \['theft'\]; choose one"),
    (lambda d: d["rules"].update(options={"copies_per_number": 10**30}),
     (r"^rules\.options: option 'copies_per_number' is 1000000000000000000000000000000; it must be an integer >= 0 "
     r"and <= 100$")),
    (lambda d: d["rules"].update(options={"max_turns": 10**30}),
     r"^rules\.options: option 'max_turns' is .*; it must be an integer >= 1 and <= 10000000$"),
    (lambda d: d.update(phase=["play"]), r"^phase: is \['play'\]; choose one of: setup, play"),
    (lambda d: d.update(players=10**5000), r"^players: is an integer of about 5,001 digits; allowed: an integer from 2"),
    (lambda d: d["hands"][0].append(10**5000), r"^hands\[0\]\[1\]: unknown card an integer of about 5,001 digits"),
], ids=["turns_1e40", "largest_steal", "thefts_int32", "thefts_this_turn", "rng_seed_2_70", "rng_float_state",
        "rng_state_129_bits", "rng_even_inc", "preset_list", "option_1e30", "max_turns_1e30", "phase_list",
        "players_5000_digits", "card_5000_digits"])
def test_theft_positions_beyond_what_a_game_reaches_are_refused(change, message):
    """Issue 23: counters of 1e40, a seed of 2**70, a float RNG state and huge options were accepted or escaped as
    TypeError/OverflowError/ValueError; each is a TheftPositionError naming the field and its bounds."""
    d = tposition(players=2, hands=[["1"], []])
    change(d)
    with pytest.raises(TheftPositionError, match=message):
        state_from_dict(d)
    d = tposition(players=2, hands=[["1"], []], counters={"turns": 1000, "largest_steal": 20}, thefts_this_turn=8,
                  rng={"seed": 2**63 - 1})
    s = state_from_dict(d)  # at the bounds: accepted
    assert (s.turns, s.largest_steal, s.thefts_this_turn) == (1000, 20, 8)


@pytest.mark.parametrize(("text", "message"), [
    ("[" * 100_000 + "]" * 100_000, r"^position: nested deeper than Python can read; a position nests at most 64"),
    ("{" + '"a": {' * 70 + "}" * 71, r"^position: nested more than 64 levels deep; a position nests at most 64 levels$"),
    ('{"players": ' + "7" * 5000 + "}", r"^position: a number has more than 4,300 digits .*; no field of a position"),
], ids=["100000_levels", "71_levels", "5000_digits"])
def test_theft_loads_refuses_deep_nesting_and_huge_integers(text, message):
    """Issue 23: RecursionError and ValueError from inside json became TheftPositionError."""
    with pytest.raises(TheftPositionError, match=message):
        loads(text)


def test_theft_unknown_field_with_a_newline_is_named_on_one_line():
    d = tposition(players=2, hands=[["1"], []])
    d["counters"] = {"turns\n": 1}
    with pytest.raises(TheftPositionError, match=r"^counters\.'turns\\n': unknown field; allowed: turns") as e:
        state_from_dict(d)
    assert "\n" not in str(e.value)


def _over(**kw):
    """A finished 2-seat game: seat 0's asset 4+9 (13 points) against seat 1's 2+2 (4)."""
    return tposition(players=2, phase="over", assets=[[asset("4", "9")], [asset("2", "2")]], **kw)


@pytest.mark.parametrize(("d", "message"), [
    (_over(winners=[]), r"^winners: is empty; a game over has at least one winner \(R-T-END"),
    (_over(winners=[0, 0]), r"^winners: lists a seat twice \(\[0, 0\]\); each seat at most once$"),
    (_over(winners=[1]), r"^winners: is \[1\]; R-T-END: the highest total .* seats \[0\] \(points 13, 4\)$"),
    (tposition(players=2, final_turns_left=0, trigger_seat=0),
     (r"^final_turns_left: is 0 in phase play; the game ends when it reaches 0, so it would never end \(R-T-END\): "
     r"allowed: null or 1 to 1$")),
    (tposition(players=3, phase="defence", final_turns_left=0, trigger_seat=1, hands=[["Theft"], [], []],
               assets=[[], [asset("2", "2")], []], theft={"thief": 0, "target": 1, "slot": 0, "card": "Theft"}),
     r"^final_turns_left: is 0 in phase defence; .* allowed: null or 1 to 2$"),
    (tposition(players=2, phase="discard", hands=[[], []]),
     (r"^phase: is discard, but seat 0 holds 0 card\(s\); the discard phase is entered only with more than "
     r"hand_limit = 5 \(R-T-TURN\): seat 0 would have no legal action$")),
    (tposition(players=2, phase="discard", hands=[["1"] * 6, []], options={"end_of_turn": "keep"}),
     r"^phase: is discard under end_of_turn = 'keep'; no discarding"),
    (tposition(players=2, phase="setup", hands=[["Theft", "1"], ["2", "3"]]),
     r"^hands\[0\]: seat 0 holds fewer than two asset cards in phase setup; .* no legal action$"),
    (tposition(players=2, phase="setup", hands=[["1", "1"], []], assets=[[asset("2", "3")], []]),
     r"^assets\[0\]: seat 0 lays its first asset now \(phase setup\) and has none yet; allowed: \[\]$"),
    (tposition(players=2, phase="setup", hands=[["1", "1"], []], final_turns_left=1, trigger_seat=0),
     r"^final_turns_left: is 1 in phase setup; R-T-END triggers only at the end of a turn: allowed: null$"),
    (tposition(players=2, phase="setup", hands=[["1", "1"], []], counters={"turns": 3}),
     r"^counters\.turns: is not 0 in phase setup"),
    (tposition(players=2, final_turns_left=1), r"^trigger_seat: is -1 with final_turns_left = 1; both are set"),
    (tposition(players=2, trigger_seat=1), r"^trigger_seat: is 1 with final_turns_left = null; both are set"),
    (tposition(players=2, capped=True), r"^capped: is true in phase play; the turn cap ends the game"),
    (_over(winners=[0], capped=True, counters={"turns": 5}),
     r"^capped: is true after 5 turns; the game stops at max_turns = 1000$"),
], ids=["over_no_winner", "over_winner_twice", "over_wrong_winner", "play_final_turns_0", "defence_final_turns_0",
        "discard_empty_hand", "discard_under_keep", "setup_no_asset_pair", "setup_already_laid",
        "setup_final_turns", "setup_turns", "final_turns_without_trigger", "trigger_without_final_turns",
        "capped_in_play", "capped_early"])
def test_theft_positions_the_rules_cannot_reach_are_refused(d, message):
    """Issue 29: a game over with no/repeated/wrong winners, final_turns_left = 0 in play (never ends by R-T-END),
    a discard-phase mover with no card (no legal action), and the other unreachable set-up/turn states."""
    with pytest.raises(TheftPositionError, match=message) as e:
        state_from_dict(d)
    assert "\n" not in str(e.value)


def test_theft_positions_at_the_edges_of_reachable_are_accepted():
    """The boundary cases of the checks above are still read: a shared win, the last final turn, a discard phase
    with one card over the limit, a set-up seat holding one pair, a capped game at max_turns."""
    s = state_from_dict(tposition(players=2, phase="over", assets=[[asset("4", "9")], [asset("6", "7")]],
                                  winners=[0, 1]))
    assert s.winners == [0, 1]
    s = state_from_dict(tposition(players=3, final_turns_left=2, trigger_seat=1))
    assert (s.final_turns_left, s.trigger_seat) == (2, 1)
    s = state_from_dict(tposition(players=2, phase="discard", hands=[["1"] * 6, []]))
    assert s.hand_count(0) == 6
    s = state_from_dict(tposition(players=2, phase="setup", hands=[["Theft", "1", "Gold"], []]))
    assert s.phase == "setup"
    s = state_from_dict(_over(winners=[0], capped=True, counters={"turns": 1000}, final_turns_left=1,
                              trigger_seat=0))
    assert s.capped and s.turns == 1000
