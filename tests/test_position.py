"""Positions as JSON (cya_sim.game.classic.position): exact round trips, defaults, and every kind of malformed
position refused with an error naming the field."""

from __future__ import annotations

import copy
import json

import numpy as np
import pytest
from conftest import (
    AUTO,
    BANK,
    GOLD,
    HOME,
    JEWELS,
    PIGGY,
    POSITIONS,
    SILVER,
    STOCKS,
    act,
    cset,
    hand,
    legal,
    position,
    sets,
)

from agents.classic.registry import make_agent
from cya_sim.engine.classic.reference import apply_action, new_game
from cya_sim.engine.classic.reference.observation import observe
from cya_sim.game.classic.position import (
    FORMAT,
    PositionError,
    dumps,
    load_position,
    loads,
    state_from_dict,
    state_to_dict,
)
from cya_sim.game.rng import root_key, stream_generator
from cya_sim.game.rules import Deck, get_rules


def _play(state, rngs, agents, n=None):
    """Play ``n`` decisions (all when None); returns the action ids."""
    actions = []
    while state.to_act >= 0 and (n is None or len(actions) < n):
        seat = state.to_act
        a = agents[seat].act(observe(state, seat), rngs[seat])
        apply_action(state, a)
        actions.append(a)
    return actions


def _midgame(preset, players, decisions, seed=3, **options):
    rules = get_rules(preset, **options)
    key = root_key(seed)
    s = new_game(rules, players, key, 0)
    rngs = [stream_generator(key, 0, 1 + i) for i in range(players)]
    agents = [make_agent("random") for _ in range(players)]
    _play(s, rngs, agents, decisions)
    return s, rngs, agents


# -- round trip ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("preset, players, options", [
    ("classic", 2, {}), ("classic", 5, {"hidden_wilds": False}), ("guide", 3, {"tie_break": "extra_round"}),
    ("basic", 6, {"end_condition": "round_wins:2"}), ("classic", 8, {"extra_deck_unit": "full"}),
    ("advanced", 4, {}), ("advanced", 3, {"penny_jar_value": 3_000, "deep_challenge_costs": "one_for_one"}),
    ("two_player_draft_advanced", 2, {}), ("three_player_draft_advanced", 3, {}),
])
def test_round_trip_exact_at_every_decision(preset, players, options):
    """state_from_dict(state_to_dict(s)) == s through a whole game (every decision of round 1, every
    challenge decision, every 10th other decision, the end), including the engine's RNG state; the JSON text
    is stable."""
    rules = get_rules(preset, **options)
    key = root_key(17)
    s = new_game(rules, players, key, 2)
    rngs = [stream_generator(key, 2, 1 + i) for i in range(players)]
    agent = make_agent("random")
    phases = set()
    i = 0
    while True:
        # every decision of the first round trip-checked, then every challenge decision and every 10th
        if s.round == 1 or s.phase != "turn" or i % 10 == 0:
            text = dumps(s)
            back = loads(text)
            assert back == s
            assert back.rng.bit_generator.state == s.rng.bit_generator.state
            assert dumps(back) == text
            phases.add(s.phase)
        if s.to_act < 0:
            break
        apply_action(s, agent.act(observe(s, s.to_act), rngs[s.to_act]))
        i += 1
    assert {"turn", "challenge", "over"} <= phases <= {"turn", "challenge", "over", "draft_offer", "draft_move"}


@pytest.mark.parametrize("preset, players", [("classic", 4), ("guide", 2), ("basic", 5)])
def test_round_trip_continues_play_identically(preset, players):
    """A game saved to JSON text mid-way and loaded plays on exactly as the original (same deals in later
    rounds, same actions, same result)."""
    s, rngs, agents = _midgame(preset, players, 150)
    assert s.to_act >= 0
    loaded = loads(dumps(s))
    rngs2 = [copy.deepcopy(r) for r in rngs]
    a1 = _play(s, rngs, agents)
    a2 = _play(loaded, rngs2, agents)
    assert a1 == a2 and len(a1) > 0
    assert loaded == s and s.winners is not None and s.round >= 2


def test_round_trip_custom_rules_and_deck():
    """The rules are written as a preset plus the options that differ, a custom deck included, and rebuilt
    equal (name included)."""
    deck = Deck.from_entries("tiny", [
        {"name": "A", "kind": "asset", "value": 10, "copies": 30},
        {"name": "B", "kind": "asset", "value": 20, "copies": 30},
        {"name": "W", "kind": "wild", "value": 50, "copies": 4},
    ])
    s, _, _ = _midgame("guide", 3, 20, deck=deck, max_players=6, hand_size=3, target_score=500)
    d = state_to_dict(s)
    assert d["rules"]["preset"] == "guide" and d["rules"]["name"] == "guide+custom"
    assert sorted(d["rules"]["options"]) == ["deck", "hand_size", "max_players", "target_score"]
    assert d["rules"]["options"]["hand_size"] == {str(n): 3 for n in range(2, 7)}
    assert state_from_dict(json.loads(json.dumps(d))) == s
    assert state_to_dict(new_game(get_rules("basic"), 4, root_key(1)))["rules"] == {"preset": "basic", "options": {}}


def test_written_fields_and_order():
    """The written document has the format tag, version 1, hands as card names in type order, the draw pile
    top first, the discard pile top last, per-card known_by seat lists and the RNG as decimal strings."""
    s = state_from_dict(position(hands=[[GOLD, JEWELS, PIGGY], [HOME]], draw_pile=[AUTO, STOCKS],
                                 stacks=[[cset(BANK, SILVER, BANK)], []], rest="discard", rng={"seed": 5}))
    d = state_to_dict(s)
    assert (d["format"], d["version"], d["players"]) == (FORMAT, 1, 2)
    assert d["hands"] == [[PIGGY, JEWELS, GOLD], [HOME]]
    assert d["draw_pile"] == [AUTO, STOCKS]
    assert d["stacks"] == [[{"asset": BANK, "cards": [SILVER, BANK], "known_by": [[0], [0, 1]]}], []]
    st = stream_generator(root_key(5), 0, 0).bit_generator.state["state"]
    assert d["rng"] == {"state": str(st["state"]), "inc": str(st["inc"]), "has_uint32": 0, "uinteger": 0}
    assert d["challenge"] is None and d["played_this_turn"] == [] and d["winners"] is None
    assert d["counters"] == {"turns": 0, "challenges": 0, "decisions": 0, "largest_steal": 0}


def test_defaults_when_fields_are_omitted():
    """Omitted optional fields take their documented defaults: round 1, dealer right of the current player,
    zero totals, no challenge, known_by = top card public and the rest owner-only (hidden_wilds)."""
    s = state_from_dict(position(players=3, current_player=0, hands=[[JEWELS], [HOME], []],
                                 stacks=[[], [cset(HOME, GOLD, SILVER, HOME)], []]))
    assert (s.round, s.dealer, s.first_dealer, s.totals, s.round_wins) == (1, 2, 2, [0, 0, 0], [0, 0, 0])
    assert s.stacks[1][0].known_by == [0b010, 0b010, 0b111]
    assert s.challenge is None and s.winners is None and s.eligible is None and s.played_this_turn == [False] * 3
    assert s.rng.bit_generator.state == stream_generator(root_key(0), 0, 0).bit_generator.state
    pub = state_from_dict(position(players=3, hands=[[JEWELS], [HOME], []], options={"hidden_wilds": False},
                                   stacks=[[], [cset(HOME, GOLD, HOME)], []]))
    assert pub.stacks[1][0].known_by == [0b111, 0b111]


def test_challenge_in_progress_file():
    """tests/positions/challenge_in_progress.json: a challenge where the defender must answer; it loads with
    the shown cards, and playing it out gives the exact stacks and hands."""
    s = load_position(POSITIONS / "challenge_in_progress.json")
    assert s.phase == "challenge" and s.to_act == 1 and s.current_player == 0
    assert legal(s) == ["respond:match", "respond:Silver", "give_up"]
    act(s, "respond:Silver", "respond:Gold", "give_up")
    assert sets(s, 0) == [(BANK, [BANK, BANK]), (JEWELS, [GOLD, JEWELS, JEWELS, SILVER, GOLD])]
    assert hand(s, 0) == [PIGGY, STOCKS, HOME, SILVER]
    assert hand(s, 1) == [PIGGY, JEWELS, AUTO, AUTO, HOME]  # classic: the loser draws first
    assert s.current_player == 1 and s.round == 2 and s.challenges == 5 and s.turns == 42


def test_positions_directory_files_all_load():
    """Every file in tests/positions is a valid position that round-trips exactly."""
    files = sorted(POSITIONS.glob("*.json"))
    assert len(files) >= 2
    for f in files:
        s = load_position(f)
        assert loads(dumps(s)) == s


# -- malformed positions ------------------------------------------------------------------------------


def _valid():
    return position(
        players=3,
        hands=[[JEWELS, GOLD, PIGGY], [JEWELS], [HOME, HOME]],
        stacks=[[cset(BANK, BANK, BANK)], [cset(HOME, HOME, HOME), cset(STOCKS, SILVER, STOCKS)], []],
        draw_pile=[AUTO, AUTO],
    )


def _set(d, path, value):
    """Set ``d[path...] = value`` (path of keys and indices); a value of ``...`` deletes."""
    *head, last = path
    for k in head:
        d = d[k]
    if value is ...:
        del d[last]
    else:
        d[last] = value


def _challenge(**kw):
    c = {"challenger": 0, "defender": 1, "cards": [JEWELS], "players": [0]}
    c.update(kw)
    return c


MALFORMED = [
    # (id, change(s) as (path, value), message regex)
    ("format_tag", [(("format",), "chess")], r"^format: is 'chess'; expected 'cya-sim-position'$"),
    ("version", [(("version",), 2)], r"^version: is 2; supported versions: 1$"),
    ("unknown_field", [(("colour",), "red")], r"^colour: unknown field; allowed fields: format, version, rules"),
    ("missing_field", [(("hands",), ...)], r"^hands: missing; it is required$"),
    ("players_type", [(("players",), "3")], r'^players: expected an integer; got "3"$'),
    ("players_range", [(("rules", "preset"), "basic"), (("players",), 7)],
     r"^players: is 7; rules 'basic' allow 2 to 6 players$"),
    ("hands_type", [(("hands",), "Jewels")], r"^hands: expected a list; got str$"),
    ("hands_length", [(("hands",), [[JEWELS]])], r"^hands: has 1 entries; expected 3 \(one per seat\)$"),
    ("unknown_preset", [(("rules", "preset"), "clasic")],
     (r"^rules.preset: unknown rule preset 'clasic'; choose one of: classic, guide, basic, advanced, "
      r"two_player_draft, three_player_draft, two_player_draft_advanced, three_player_draft_advanced$")),
    ("unknown_option", [(("rules", "options"), {"colour": "red"})],
     r"^rules.options.colour: unknown rule option 'colour'; choose from: deck, "),
    ("bad_option_value", [(("rules", "options"), {"tie_break": "coin"})],
     r"^rules.options.tie_break: option 'tie_break' is 'coin'; choose one of: share, extra_round$"),
    ("unknown_rules_field", [(("rules", "seed"), 1)], r"^rules.seed: unknown field; allowed fields: preset, options"),
    ("unknown_card", [(("hands", 1, 0), "Jewel")], r"^hands\[1\]\[0\]: unknown card 'Jewel'; this deck has: Piggy"),
    ("card_not_a_string", [(("draw_pile", 1), 7)], r"^draw_pile\[1\]: unknown card 7; this deck has: "),
    ("card_count_too_many", [(("hands", 1), [JEWELS, JEWELS])],
     (r"^cards: the position holds 11 'Jewels' \(hands 3, draw_pile 0, discard_pile 8, stacks 0, challenge 0\); "
     r"the deck in play at 3 players has exactly 10")),
    ("card_count_too_few", [(("draw_pile",), [AUTO])],
     (r"^cards: the position holds 9 'Classic Auto' \(hands 0, draw_pile 1, discard_pile 8, stacks 0, "
     r"challenge 0\); the deck in play at 3 players has exactly 10")),
    ("negative_total", [(("totals",), [0, -5000, 0])], r"^totals\[1\]: is -5000; allowed: an integer from 0 to 1,360,000,000 \(max_rounds = 1,000 rounds of \$1,360,000, R-SCORE\)$"),
    ("totals_length", [(("totals",), [0, 0])], r"^totals: has 2 entries; expected 3 \(one per seat\)$"),
    ("hand_too_large", [(("hands", 0), [JEWELS, GOLD, PIGGY, PIGGY, PIGGY])],
     r"^hands\[0\]: holds 5 cards; at most hand_size = 4 at 3 players \(R-HAND-SIZE\)$"),
    ("set_asset_is_wild", [(("stacks", 0, 0), cset(GOLD, BANK, BANK))],
     r"^stacks\[0\]\[0\].asset: 'Gold' is a wild, not an asset; a set's type is an asset: Piggy Bank, "),
    ("set_asset_unknown", [(("stacks", 0, 0), cset("Yacht", BANK, BANK))],
     r"^stacks\[0\]\[0\].asset: unknown card 'Yacht'"),
    ("set_card_not_matching", [(("stacks", 0, 0, "cards", 1), HOME)],
     (r"^stacks\[0\]\[0\].cards\[1\]: 'Home' does not match the set's asset 'Bank Account'; allowed: "
     r"'Bank Account' or a wild \(Silver, Gold\)$")),
    ("set_too_small", [(("stacks", 0, 0), cset(BANK, BANK)), (("draw_pile",), [AUTO, AUTO, BANK])],
     r"^stacks\[0\]\[0\].cards: has 1 card\(s\); a set has at least 2 \(R-PAIR-HAND\)$"),
    ("set_only_wilds", [(("stacks", 1, 1), cset(STOCKS, SILVER, SILVER)), (("draw_pile",), [AUTO, AUTO, STOCKS,
                                                                                             STOCKS])],
     r"^stacks\[1\]\[1\].cards: holds no 'Stocks'; a set has at least one card of its asset type"),
    ("set_unknown_field", [(("stacks", 0, 0, "value"), 20000)],
     r"^stacks\[0\]\[0\].value: unknown field; allowed fields: asset, cards, known_by$"),
    ("stacks_length", [(("stacks",), [[], []])], r"^stacks: has 2 entries; expected 3 \(one per seat\)$"),
    ("known_by_length", [(("stacks", 0, 0, "known_by"), [[0]])],
     r"^stacks\[0\]\[0\].known_by: has 1 entries; expected 2 \(one per card\)$"),
    ("known_by_seat_range", [(("stacks", 0, 0, "known_by"), [[0], [0, 3]])],
     r"^stacks\[0\]\[0\].known_by\[1\]\[1\]: is 3; allowed: an integer from 0 to 2$"),
    ("known_by_without_owner", [(("stacks", 1, 0, "known_by"), [[0], [0, 1, 2]])],
     r"^stacks\[1\]\[0\].known_by\[0\]: lacks the set's owner, seat 1; the owner knows every card"),
    ("known_by_hidden_when_public", [(("rules", "options"), {"hidden_wilds": False}),
                                     (("stacks", 0, 0, "known_by"), [[0], [0, 1, 2]])],
     r"^stacks\[0\]\[0\].known_by\[0\]: is \[0\]; with hidden_wilds = false every stack card is public"),
    ("current_player_range", [(("current_player",), 3)], r"^current_player: is 3; allowed: an integer from 0 to 2$"),
    ("current_player_empty_hand", [(("hands", 0), []), (("draw_pile",), [AUTO, AUTO, JEWELS, GOLD, PIGGY])],
     r"^current_player: seat 0 has an empty hand; a player with an empty hand is skipped \(R-TURN\)"),
    ("dealer_range", [(("dealer",), -1)], r"^dealer: is -1; allowed: an integer from 0 to 2$"),
    ("first_dealer_range", [(("first_dealer",), 5)], r"^first_dealer: is 5; allowed: an integer from 0 to 2$"),
    ("round_zero", [(("round",), 0)], r"^round: is 0; allowed: an integer from 1 to 1,000 \(option max_rounds: the game stops after that round\)$"),
    ("negative_counter", [(("counters",), {"turns": -1})], r"^counters.turns: is -1; allowed: an integer from 0 to 2,147,483,647 \(the int32 column of games.parquet\)$"),
    ("unknown_counter", [(("counters",), {"moves": 1})], r"^counters.moves: unknown field; allowed fields: turns"),
    ("played_this_turn_range", [(("played_this_turn",), [4])],
     r"^played_this_turn\[0\]: is 4; allowed: an integer from 0 to 2$"),
    ("eligible_repeated", [(("eligible",), [1, 1])], r"^eligible: lists a seat twice \(\[1, 1\]\)"),
    ("winners_empty", [(("winners",), [])], r"^winners: is empty; give null"),
    ("challenge_target_one_set", [(("challenge",), _challenge(defender=2, cards=[HOME])), (("hands", 2), [HOME])],
     r"^challenge.defender: seat 2 has 0 set\(s\); a challenge needs a target with at least two \(R-CH-ALLOWED\)$"),
    ("challenge_not_current_player", [(("challenge",), _challenge(challenger=2, players=[2]))],
     r"^challenge.challenger: is seat 2; the challenger is the player whose turn it is, current_player = 0"),
    ("challenge_card_not_matching", [(("challenge",), _challenge(cards=[PIGGY])), (("hands", 0), [JEWELS, GOLD])],
     r"^challenge.cards\[0\]: 'Piggy Bank' does not match the contested set; allowed: 'Stocks' or a wild"),
    ("challenge_players_alternate", [(("challenge",), _challenge(cards=[GOLD, STOCKS], players=[0, 0])),
                                     (("hands", 0), [PIGGY])],
     (r"^challenge.players\[1\]: is seat 0; the two sides alternate starting with the challenger, so it must be "
     r"seat 1")),
    ("challenge_to_act", [(("challenge",), _challenge(cards=[GOLD], to_act=0)), (("hands", 0), [JEWELS, PIGGY])],
     r"^challenge.to_act: is seat 0; after seat 0 showed the last card, seat 1 must answer or give up"),
    ("challenge_unknown_field", [(("challenge",), _challenge(cards=[GOLD], winner=1)),
                                 (("hands", 0), [JEWELS, PIGGY])],
     r"^challenge.winner: unknown field; allowed fields: challenger, defender"),
    ("gave_up_wild", [(("gave_up",), [[], [GOLD], []])],
     r"^gave_up\[1\]\[0\]: 'Gold' is a wild; a challenge is over an asset type: Piggy Bank, "),
    ("rng_bad_state", [(("rng",), {"state": "0x12", "inc": "3"})],
     r"^rng.state: expected a decimal string of a 128-bit integer; got '0x12'$"),
    ("rng_even_inc", [(("rng",), {"state": "12", "inc": "4"})], r"^rng.inc: is even; a PCG64 increment is odd$"),
    ("not_an_object", None, r"^position: expected an object with fields format, version"),
]


@pytest.mark.parametrize("changes, message", [(c, m) for _, c, m in MALFORMED], ids=[i for i, _, _ in MALFORMED])
def test_malformed_position_refused(changes, message):
    """Every kind of malformed or impossible position is refused with PositionError (a ValueError) naming the
    field by its JSON path and what is allowed."""
    if changes is None:
        d = [1, 2, 3]
    else:
        d = _valid()
        assert state_from_dict(copy.deepcopy(d)).n_players == 3
        for path, value in changes:
            _set(d, path, value)
    with pytest.raises(PositionError, match=message) as e:
        state_from_dict(d)
    assert isinstance(e.value, ValueError)


def test_challenge_position_valid_variant_loads():
    """The challenge entries of MALFORMED differ from a valid challenge only in the named field."""
    d = _valid()
    d["challenge"] = _challenge(cards=[GOLD])
    d["hands"][0] = [JEWELS, PIGGY]
    s = state_from_dict(d)
    assert s.to_act == 1 and legal(s) == ["give_up"]


def test_loads_refuses_invalid_json():
    """loads: text that is not JSON is refused as a PositionError."""
    with pytest.raises(PositionError, match=r"^position: not valid JSON \("):
        loads("{players: 3")


def test_load_position_names_the_file(tmp_path):
    """load_position: an unreadable file, or a bad field, is refused naming the file."""
    with pytest.raises(PositionError, match=r"position file '.*missing.json': cannot read it"):
        load_position(tmp_path / "missing.json")
    d = _valid()
    d["totals"] = [0, 0, -1]
    f = tmp_path / "bug.json"
    f.write_text(json.dumps(d), encoding="utf-8")
    with pytest.raises(PositionError, match=r"^bug.json: totals\[2\]: is -1; allowed: an integer from 0 to "):
        load_position(f)


def test_gave_up_record_round_trips():
    """The public record of who gave up a challenge over which asset type (§10) is written per seat as asset
    names and read back."""
    d = _valid()
    d["gave_up"] = [[], [STOCKS, JEWELS], []]
    s = state_from_dict(d)
    assert state_to_dict(s)["gave_up"] == [[], [STOCKS, JEWELS], []]  # card-type order
    assert state_from_dict(state_to_dict(s)) == s
    s = state_from_dict(position(players=2, hands=[[JEWELS, PIGGY], [GOLD]],
                                 stacks=[[cset(BANK, BANK, BANK)], [cset(HOME, HOME, HOME), cset(JEWELS, JEWELS,
                                                                                             JEWELS)]]))
    act(s, "challenge:+1:match", "give_up")
    assert state_to_dict(s)["gave_up"] == [[], [JEWELS]]


def test_loaded_rng_drives_the_next_deal():
    """The engine stream saved in a position deals the next round exactly as the original would."""
    s, _, _ = _midgame("classic", 3, 5)
    d = state_to_dict(s)
    a, b = state_from_dict(d), state_from_dict(d)
    assert np.array_equal(a.rng.random(4), b.rng.random(4))
    assert a.rng.bit_generator.state == b.rng.bit_generator.state


# -- issue 23: impossible numbers, nesting and huge integers ------------------------------------------


@pytest.mark.parametrize("changes, message", [
    ([(("totals",), [10**30, 0, 0])],
     (r"^totals\[0\]: is 1000000000000000000000000000000; allowed: an integer from 0 to 1,360,000,000 "
     r"\(max_rounds = 1,000 rounds of \$1,360,000, R-SCORE\)$")),
    ([(("totals",), [800_000_000, 800_000_000, 0])],
     r"^totals: add up to \$1,600,000,000; at most \$1,360,000,000 can be scored in a game"),
    ([(("round",), 10**30)], r"^round: is 1000000000000000000000000000000; allowed: an integer from 1 to 1,000 "),
    ([(("round",), 1001)], r"^round: is 1001; allowed: an integer from 1 to 1,000 \(option max_rounds"),
    ([(("counters",), {"turns": 10**40})],
     r"^counters.turns: is 1000000000000000000000000000000000000...; allowed: an integer from 0 to 2,147,483,647"),
    ([(("counters",), {"decisions": 2**63})], (r"^counters.decisions: is 9223372036854775808; allowed: .* to "
     r"9,223,372,036,854,775,807")),
    ([(("counters",), {"largest_steal": 1_360_001})],
     r"^counters.largest_steal: is 1360001; allowed: an integer from 0 to 1,360,000 \(a set is worth at most"),
    ([(("rng",), {"seed": 2**70})], (r"^rng.seed: is 1180591620717411303424; allowed: an integer from 0 to "
     r"9,223,372,036,854,775,807 \(a tournament seed\)$")),
    ([(("rng",), {"state": "9" * 5000, "inc": "3"})], r"^rng.state: has 5,000 digits; allowed: 0 to 2\*\*128 - 1"),
    ([(("round_wins",), [0, 1001, 0])], r"^round_wins\[1\]: is 1001; allowed: an integer from 0 to 1,000"),
    ([(("round_scores",), [[1_000_000, 1_000_000, 0]])],
     r"^round_scores\[0\]: adds up to \$2,000,000; a round scores at most the deck in play, \$1,360,000"),
    ([(("round_scores",), [[0, 0, 0]] * 1001)], r"^round_scores: has 1,001 rounds; at most max_rounds = 1,000$"),
    ([(("extra_rounds",), 51)], r"^extra_rounds: is 51; allowed: an integer from 0 to 50 \(option max_extra_rounds"),
    ([(("totals",), [10**5000, 0, 0])], r"^totals\[0\]: is an integer of about 5,001 digits; allowed: "),
    ([(("hands", 0), [10**5000])], r"^hands\[0\]\[0\]: unknown card an integer of about 5,001 digits; this deck"),
    ([(("players",), 10**5000)], r"^players: is an integer of about 5,001 digits; rules 'classic' allow 2 to 12"),
], ids=["total_1e30", "totals_sum", "round_1e30", "round_past_cap", "counter_1e40", "decisions_int64",
        "largest_steal", "rng_seed_2_70", "rng_state_digits", "round_wins", "round_score_sum", "round_scores_len",
        "extra_rounds", "total_5000_digits", "card_5000_digits", "players_5000_digits"])
def test_position_numbers_beyond_what_a_game_reaches_are_refused(changes, message):
    """Issue 23: totals of 1e30, round 1e30, counters 1e40 and a seed of 2**70 were accepted; each bound comes
    from the rules (max_rounds, the deck in play, max_extra_rounds) or the storage (int32/int64 columns, seeds)."""
    d = _valid()
    for path, value in changes:
        _set(d, path, value)
    with pytest.raises(PositionError, match=message):
        state_from_dict(d)
    d = _valid()  # at the bounds: accepted
    # a finished game (winners) of tie_break extra_round, so that the extra rounds are reachable (issue 29)
    d["rules"]["options"] = {"tie_break": "extra_round"}
    d.update(round=1000, totals=[1_360_000_000, 0, 0], extra_rounds=50, eligible=[0, 1], winners=[0],
             rng={"seed": 2**63 - 1},
             counters={"turns": 2**31 - 1, "challenges": 0, "decisions": 2**63 - 1, "largest_steal": 1_360_000})
    s = state_from_dict(d)
    assert (s.round, s.totals[0], s.decisions, s.largest_steal) == (1000, 1_360_000_000, 2**63 - 1, 1_360_000)


@pytest.mark.parametrize("text, message", [
    ("[" * 100_000 + "]" * 100_000, r"^position: nested deeper than Python can read; a position nests at most 64"),
    ("[" * 65 + "]" * 65, r"^position: nested more than 64 levels deep; a position nests at most 64 levels$"),
    ('{"players": ' + "7" * 5000 + "}", r"^position: a number has more than 4,300 digits .*; no field of a position"),
    ('{"format": "cya-sim-position", "version": 1, "rules": {"preset": "classic", "options": {"hand_size": '
     + "5" * 5000 + "}}}", r"^position: a number has more than 4,300 digits"),
], ids=["100000_levels", "65_levels", "5000_digits", "5000_digit_option"])
def test_loads_refuses_deep_nesting_and_huge_integers_as_a_position_error(text, message):
    """Issue 23: deep nesting raised RecursionError and a 5,000-digit integer ValueError from inside json."""
    with pytest.raises(PositionError, match=message):
        loads(text)


def test_r_2p_draft_action_card_face_up_on_a_pile_is_refused():
    """R-2P-DRAFT with §6: a Swap turned up is carried out at once, so it never lies face up on a pile (issue 23:
    such impossible draft piles were accepted); face down (its pile in draft_down) it is a position mid-turn."""
    from cya_sim.game.classic.rules.advanced import SWAP

    piles = [[JEWELS, SWAP], [STOCKS], [PIGGY]]
    d = position(players=2, preset="two_player_draft_advanced", hands=[[JEWELS], [PIGGY]], draft_piles=piles)
    with pytest.raises(PositionError, match=r"^draft_piles\[0\]\[1\]: 'Swap' lies face up on top of pile 0; an "
                       r"action card turned up is carried out at once"):
        state_from_dict(d)
    d["draft_down"] = [0, 0]
    with pytest.raises(PositionError, match=r"^draft_down\[1\]: lists pile 0 twice; each pile at most once$"):
        state_from_dict(d)
    d["draft_down"] = [0]
    s = state_from_dict(d)
    assert s.draft_down == [True, False, False] and s.draft_piles[0][-1] == s.rules.advanced_ids.swap


def test_an_unknown_field_with_a_newline_is_named_on_one_line():
    """Found by the fuzz of issue 23: a key holding a newline was printed as is, making a two-line message."""
    d = _valid()
    d["\nx"] = 1
    with pytest.raises(PositionError, match=r"^'\\nx': unknown field; allowed fields: format") as e:
        state_from_dict(d)
    assert "\n" not in str(e.value)
    d = _valid()
    d["rules"]["options"] = {"a\nb": 1}
    with pytest.raises(PositionError) as e:
        state_from_dict(d)
    assert "\n" not in str(e.value) and str(e.value).startswith("rules.options.'a\\nb': ")


@pytest.mark.parametrize("changes, message", [
    ([(("eligible",), [0, 1])], r"^eligible: is \[0, 1\]; seats are set aside only by tie_break = 'extra_round'"),
    ([(("rules", "options"), {"tie_break": "extra_round"}), (("eligible",), [1]), (("extra_rounds",), 1)],
     r"^eligible: is \[1\]; an extra round is played between at least two tied seats \(R-TIE\)$"),
    ([(("rules", "options"), {"tie_break": "extra_round"}), (("eligible",), [0, 1])],
     r"^extra_rounds: is 0 while 'eligible' is set; the tie's first extra round counts 1 \(R-TIE\)"),
    ([(("extra_rounds",), 2)], r"^extra_rounds: is 2 while 'eligible' is null; extra rounds are played only"),
    ([(("rules", "options"), {"tie_break": "extra_round"}), (("eligible",), [0, 1]), (("extra_rounds",), 1),
      (("totals",), [5, 10, 0])],
     r"^eligible: seats \[0, 1\] hold totals \[5, 10\]; a tie played off is between equal totals"),
    ([(("winners",), [2]), (("totals",), [10, 0, 20]), (("challenge",), _challenge(cards=[GOLD])),
      (("hands", 0), [JEWELS, PIGGY])],
     r"^winners: is set while a challenge, a draft offer or a Move choice is pending; the game ends only at the end"),
    ([(("winners",), [0, 2]), (("totals",), [10, 0, 20])],
     r"^winners: seats \[0, 2\] hold totals \[10, 20\]; winners share the highest total"),
    ([(("winners",), [0]), (("totals",), [10, 0, 20])],
     r"^winners: is \[0\]; the highest total wins and ties share: seats \[2\] \(\$20; R-GAME-END, R-TIE\)$"),
    ([(("rules", "options"), {"tie_break": "extra_round"}), (("eligible",), [0, 1]), (("extra_rounds",), 1),
      (("winners",), [2])],
     r"^winners: names seat 2, not in 'eligible' \[0, 1\]; only the tied seats can win \(R-TIE\)$"),
], ids=["eligible_under_share",
        "eligible_one_seat", "eligible_without_extra_round", "extra_rounds_without_eligible", "eligible_unequal",
        "winners_mid_challenge", "winners_unequal_totals", "winners_not_highest", "winners_outside_eligible"])
def test_position_game_ends_the_rules_cannot_reach_are_refused(changes, message):
    """Issue 29: a tie played off that cannot be (R-TIE), and winners that are not the highest total, not among the
    tied seats or that sit in the middle of a turn (R-GAME-END)."""
    d = _valid()
    for path, value in changes:
        _set(d, path, value)
    with pytest.raises(PositionError, match=message) as e:
        state_from_dict(d)
    assert "\n" not in str(e.value)


def test_position_reachable_game_ends_are_accepted():
    """The edges of the end-of-game checks are read: a shared win, a tie played off, round_wins below K, winners
    under round_wins:K that are not the highest total overall (the highest among the seats that reached K)."""
    d = _valid()
    d.update(totals=[20, 0, 20], winners=[0, 2])
    assert state_from_dict(d).winners == [0, 2]
    d = _valid()
    d["rules"]["options"] = {"tie_break": "extra_round"}
    d.update(totals=[1_000_000, 1_000_000, 0], eligible=[0, 1], extra_rounds=1)
    assert state_from_dict(d).eligible == [0, 1]
    d = _valid()
    d["rules"]["options"] = {"end_condition": "round_wins:2"}
    d.update(round_wins=[1, 1, 1], totals=[0, 5, 9])
    assert state_from_dict(d).round_wins == [1, 1, 1]
    d.update(round_wins=[2, 1, 1], winners=[0])
    assert state_from_dict(d).winners == [0]
