"""The theft game's rules, one test (or more) per rule ID of RULES.md §9: R-T-DECK, R-T-SETUP, R-T-TURN,
R-T-END, each from a hand-built position."""

from __future__ import annotations

import re
from collections import Counter

import numpy as np
import pytest
from conftest import RULES_MD
from theft_helpers import asset, tact, tassets, thand, tlegal, tnames, tstate

from cya_sim.engine.theft.legal import action_space
from cya_sim.engine.theft.observation import observe
from cya_sim.engine.theft.reference import TheftIllegalActionError, apply_action, new_game
from cya_sim.game.errors import RulesError
from cya_sim.game.rng import root_key
from cya_sim.game.rules import get_rules
from cya_sim.game.theft.rules import TheftRuleSet


# -- R-T-DECK --------------------------------------------------------------------------------
def test_r_t_deck_default_104_assets_and_8_thefts():
    """R-T-DECK: 10 copies of 1..10 and 4 gold cards (104 asset cards), 7 plain thefts and 1 gold theft."""
    r = get_rules("theft")
    assert isinstance(r, TheftRuleSet) and r.family == "theft"
    assert r.card_names == ("1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "Gold", "Theft", "Gold Theft")
    assert r.counts.tolist() == [10] * 10 + [4, 7, 1]
    assert r.n_cards == 112 and int(r.counts[: r.n_asset_types].sum()) == 104
    assert r.values.tolist() == [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 1, 0, 0]  # gold counts 1 (R-T-END)


def test_r_t_deck_counts_are_options_and_bad_values_are_refused():
    """R-T-DECK (choice, option): the counts can be changed; a bad value is refused naming the option."""
    r = get_rules("theft", copies_per_number=8, gold_cards=2, plain_thefts=3, gold_thefts=0)
    assert r.name == "theft+custom" and r.n_cards == 85
    with pytest.raises(RulesError, match=r"option 'gold_cards' is -1; it must be an integer >= 0"):
        get_rules("theft", gold_cards=-1)
    with pytest.raises(RulesError, match=r"unknown rule option 'deck'; choose from: numbers, "):
        get_rules("theft", deck="x")
    with pytest.raises(RulesError, match=r"cannot deal 5 to 6 players"):
        get_rules("theft", copies_per_number=2, gold_cards=0, plain_thefts=0, gold_thefts=0)


# -- R-T-SETUP -------------------------------------------------------------------------------
def test_r_t_setup_deal_five_each_first_player_at_random():
    """R-T-SETUP: 5 cards each (dealt from the first player on), the rest is the draw pile; the first player
    is chosen at random: over 400 games at 4 players every seat moves first, each 60–140 times."""
    r = get_rules("theft")
    firsts = Counter()
    for g in range(400):
        s = new_game(r, 4, root_key(5), g)
        assert [sum(h) for h in s.hands] == [5, 5, 5, 5]
        assert len(s.draw_pile) == 112 - 20 and s.discard_pile == [] and s.phase == "setup"
        assert (s.card_counts() == r.counts).all()
        firsts[s.first_player] += 1
    assert set(firsts) == {0, 1, 2, 3} and all(60 <= n <= 140 for n in firsts.values()), firsts


def test_r_t_setup_first_asset_any_two_asset_cards_one_face_down():
    """R-T-SETUP: each player lays one hand card face-down and one face-up as a first asset worth their sum;
    any two asset cards (not only a pair), never a theft card; seats lay in turn order from the first player."""
    s = tstate(players=2, phase="setup", current_player=1, first_player=1,
               hands=[["2", "2", "9", "Theft", "Gold Theft"], ["3", "5", "Gold", "Theft", "Theft"]])
    assert tlegal(s) == [
        "first_asset:3 down+5 up", "first_asset:3 down+Gold up", "first_asset:5 down+3 up",
        "first_asset:5 down+Gold up", "first_asset:Gold down+3 up", "first_asset:Gold down+5 up"]
    tact(s, "first_asset:5 down+3 up")
    assert tassets(s, 1) == [["5", "3"]] and s.assets[1][0].value(s.rules.values) == 8
    assert s.assets[1][0].known_by == [0b10, 0b11]  # face-down: only the owner knows it (RULES.md §10)
    assert s.current_player == 0 and s.phase == "setup"
    assert observe(s, 0).assets[1] == ()  # laid at once at a real table: not seen until everyone has laid
    tact(s, "first_asset:9 down+2 up")
    assert s.phase == "play" and s.current_player == 1 and s.turns == 1
    v = observe(s, 0).assets[1][0]
    assert (v.cards, v.n_hidden, v.value_seen, v.value_low, v.value_high) == ((2,), 1, 3, 4, 13)


def test_r_t_setup_seat_without_two_asset_cards_lays_none():
    """R-T-SETUP (a reading): a seat dealt fewer than two asset cards lays no first asset and is skipped."""
    lines = []
    s = tstate(players=2, phase="setup", current_player=0, first_player=0,
               hands=[["4", "6", "7", "8", "9"], ["1", "Theft", "Theft", "Theft", "Theft"]])
    tact(s, "first_asset:4 down+6 up", log=lines.append)
    assert s.phase == "play" and s.current_player == 0 and tassets(s, 1) == []
    assert "seat 1 holds fewer than two asset cards and lays no first asset" in lines


# -- R-T-TURN --------------------------------------------------------------------------------
def test_r_t_turn_draw_two_then_play():
    """R-T-TURN: a turn starts by drawing 2 cards from the top of the draw pile."""
    s = tstate(players=2, phase="discard", current_player=1, hands=[["1"], ["2", "3", "4", "5", "6", "6"]],
               assets=[[asset("9", "9")], []], draw_pile=["7", "Gold", "8"], rest="draw")
    tact(s, "discard:2")
    assert s.current_player == 0 and s.phase == "play" and thand(s, 0) == ["1", "7", "Gold"]
    assert tnames(s, s.draw_pile[:1]) == ["8"] and s.turns == 1


def test_r_t_turn_empty_draw_pile_reshuffles_discard_pile():
    """R-T-TURN: when the draw pile is empty, the discard pile is shuffled into a new one."""
    s = tstate(players=2, phase="play", current_player=1, hands=[["1"], ["2"]], draw_pile=["7"], rest="discard")
    n_discard = len(s.discard_pile)
    tact(s, "end_turn")
    assert sum(s.hands[0]) == 3 and s.hands[0][6] == 1  # the 7, then one card of the reshuffled pile
    assert s.discard_pile == [] and len(s.draw_pile) == n_discard - 1
    assert (s.card_counts() == s.rules.counts).all()


def test_r_t_turn_build_pairs_exact_legal_actions():
    """R-T-TURN build: a pair of equal numbers, or a number and a gold card, worth the sum; two gold cards
    do not build; a theft card lies on another player's asset, any asset."""
    s = tstate(players=3, hands=[["4", "4", "7", "Gold", "Gold", "Theft"], [], []],
               assets=[[asset("1", "1")], [asset("5", "5")], [asset("6", "2"), asset("8", "8")]])
    assert tlegal(s) == ["build:4+4", "build:4+Gold", "build:7+Gold",
                         "theft:Theft:+1:#0", "theft:Theft:+2:#0", "theft:Theft:+2:#1", "end_turn"]
    tact(s, "build:7+Gold")
    assert tassets(s, 0) == [["1", "1"], ["7", "Gold"]] and s.assets[0][1].value(s.rules.values) == 8
    assert s.assets[0][1].known_by == [0b111, 0b111]  # built face-up


def test_r_t_turn_gold_gold_pair_option():
    """R-T-TURN (choice): under ``gold_gold_pair`` two gold cards build and cancel."""
    s = tstate(players=2, hands=[["Gold", "Gold"], []], options={"gold_gold_pair": True})
    assert tlegal(s) == ["build:Gold+Gold", "end_turn"]


def test_r_t_turn_any_number_of_plays():
    """R-T-TURN: the mover plays any number of builds and thefts, then ends the turn."""
    s = tstate(players=2, hands=[["3", "3", "9", "9", "Theft", "Theft"], ["1"]],
               assets=[[], [asset("5", "5"), asset("6", "6")]])
    tact(s, "build:3+3", "build:9+9", "theft:Theft:+1:#0", "let_pass", "theft:Theft:+1:#0", "let_pass")
    assert tassets(s, 0) == [["3", "3"], ["9", "9"], ["5", "5"], ["6", "6"]] and tassets(s, 1) == []
    assert s.phase == "play" and s.current_player == 0 and s.thefts_this_turn == 2
    assert "end_turn" in tlegal(s)


def test_r_t_turn_theft_limits_are_options():
    """R-T-TURN: the seed sets no limit on theft; ``max_thefts_per_turn`` and ``protect_last_asset`` add one."""
    kw = {"players": 2, "hands": [["Theft", "Theft"], []], "assets": [[], [asset("5", "5"), asset("6", "6")]]}
    s = tstate(options={"max_thefts_per_turn": 1}, **kw)
    tact(s, "theft:Theft:+1:#0", "let_pass")
    assert tlegal(s) == ["end_turn"]
    s = tstate(options={"protect_last_asset": True}, **kw)
    tact(s, "theft:Theft:+1:#0", "let_pass")
    assert tlegal(s) == ["end_turn"]  # seat 1's only asset is protected


def test_r_t_turn_defence_options_exact():
    """R-T-TURN defence: a pair of equal numbers or a pair with one gold card from hand, or one of one's own
    assets (the targeted one included), or let the asset pass."""
    s = tstate(players=2, hands=[["Theft"], ["2", "2", "8", "Gold"]],
               assets=[[], [asset("5", "5"), asset("6", "1")]])
    tact(s, "theft:Theft:+1:#1")
    assert s.phase == "defence" and s.to_act == 1
    assert tlegal(s) == ["cancel_pair:2+2", "cancel_pair:2+Gold", "cancel_pair:8+Gold",
                         "give_up_asset:#0", "give_up_asset:#1", "let_pass"]
    s2 = tstate(players=2, hands=[["Theft"], []], assets=[[], [asset("5", "5"), asset("6", "1")]],
                options={"defend_with_targeted_asset": False})
    tact(s2, "theft:Theft:+1:#1")
    assert tlegal(s2) == ["give_up_asset:#0", "let_pass"]
    s3 = tstate(players=2, hands=[["Theft"], []], assets=[[], [asset("5", "5")]],
                options={"defend_with_asset": False})
    tact(s3, "theft:Theft:+1:#0")
    assert tlegal(s3) == ["let_pass"]


def test_r_t_turn_cancel_with_pair_discards_theft_and_pair():
    """R-T-TURN: the theft card and the cancelling cards go to the discard pile; the asset stays."""
    s = tstate(players=2, hands=[["Theft"], ["2", "2"]], assets=[[], [asset("5", "5")]])
    tact(s, "theft:Theft:+1:#0", "cancel_pair:2+2")
    assert tnames(s, s.discard_pile[-3:]) == ["Theft", "2", "2"] and tassets(s, 1) == [["5", "5"]]
    assert thand(s, 1) == [] and s.phase == "play" and s.to_act == 0 and (s.thefts, s.cancelled) == (1, 1)


def test_r_t_turn_cancel_by_giving_up_an_asset():
    """R-T-TURN: giving up one of one's own assets cancels; its cards go to the discard pile."""
    s = tstate(players=2, hands=[["Theft"], []], assets=[[], [asset("5", "5"), asset("6", "1")]])
    tact(s, "theft:Theft:+1:#1", "give_up_asset:#0")
    assert tassets(s, 1) == [["6", "1"]] and tassets(s, 0) == []
    assert tnames(s, s.discard_pile[-3:]) == ["Theft", "5", "5"]


def test_r_t_turn_let_pass_moves_asset_to_thief():
    """R-T-TURN: otherwise the asset passes to the thief (who now knows a face-down card)."""
    s = tstate(players=3, hands=[[], ["Theft"], []], current_player=1,
               assets=[[asset("4", "9", known_by=[[0], [0, 1, 2]])], [], []])
    tact(s, "theft:Theft:+2:#0", "let_pass")
    assert tassets(s, 0) == [] and tassets(s, 1) == [["4", "9"]]
    assert s.assets[1][0].known_by == [0b011, 0b111] and s.largest_steal == 13
    assert tnames(s, s.discard_pile[-1:]) == ["Theft"]


def test_r_t_turn_gold_theft_cancelled_only_with_gold():
    """R-T-TURN: a gold theft is cancelled only by a pair that includes a gold card (from hand, or an asset
    holding one)."""
    s = tstate(players=2, hands=[["Gold Theft"], ["2", "2", "8", "Gold"]],
               assets=[[], [asset("5", "5"), asset("6", "Gold")]])
    tact(s, "theft:Gold Theft:+1:#0")
    assert tlegal(s) == ["cancel_pair:2+Gold", "cancel_pair:8+Gold", "give_up_asset:#1", "let_pass"]


def test_r_t_turn_compulsory_defence_option():
    """R-T-TURN ``compulsory_defence`` (the seed's "must immediately put a pair … to cancel the theft"): a target
    that can cancel may not let the asset pass; one that cannot lets it pass. Default: defending is optional."""
    opts = {"compulsory_defence": True}
    s = tstate(players=2, hands=[["Theft"], ["2", "2"]], assets=[[], [asset("5", "5")]], options=opts)
    tact(s, "theft:Theft:+1:#0")
    assert tlegal(s) == ["cancel_pair:2+2", "give_up_asset:#0"]
    s2 = tstate(players=2, hands=[["Theft"], ["3"]], assets=[[], [asset("5", "5")]],
                options={**opts, "defend_with_asset": False})
    tact(s2, "theft:Theft:+1:#0")
    assert tlegal(s2) == ["let_pass"]
    s3 = tstate(players=2, hands=[["Theft"], ["2", "2"]], assets=[[], [asset("5", "5")]])
    tact(s3, "theft:Theft:+1:#0")
    assert tlegal(s3)[-1] == "let_pass"


def test_r_t_turn_give_up_pair_only_option():
    """R-T-TURN ``give_up_pair_only`` (the seed's "a pair of same-number cards (which can also be from his
    assets)"): only an own asset that is itself a pair may be given up, which excludes a first asset 3+5."""
    assets = [[], [asset("3", "5"), asset("5", "5"), asset("6", "Gold"), asset("Gold", "Gold")]]
    s = tstate(players=2, hands=[["Theft"], []], assets=assets, options={"give_up_pair_only": True})
    tact(s, "theft:Theft:+1:#0")
    assert tlegal(s) == ["give_up_asset:#1", "give_up_asset:#2", "let_pass"]
    s2 = tstate(players=2, hands=[["Theft"], []], assets=assets,
                options={"give_up_pair_only": True, "gold_gold_pair": True})
    tact(s2, "theft:Theft:+1:#0")
    assert tlegal(s2) == ["give_up_asset:#1", "give_up_asset:#2", "give_up_asset:#3", "let_pass"]
    s3 = tstate(players=2, hands=[["Theft"], []], assets=assets)
    tact(s3, "theft:Theft:+1:#0")
    assert tlegal(s3) == ["give_up_asset:#0", "give_up_asset:#1", "give_up_asset:#2", "give_up_asset:#3",
                          "let_pass"]


def test_r_t_turn_gold_theft_single_gold_option():
    """R-T-TURN ``gold_theft_cancel = single_gold`` (the seed's "cannot be defended except with a gold card"): one
    gold card from the hand cancels the gold theft (the gold card and the gold theft go to the discard pile);
    pairs from hand then do not; an own asset holding a gold card still does; a plain theft is as before."""
    opts = {"gold_theft_cancel": "single_gold"}
    hands = [["Gold Theft", "Theft"], ["2", "2", "Gold"]]
    assets = [[], [asset("5", "5"), asset("6", "Gold")]]
    s = tstate(players=2, hands=hands, assets=assets, options=opts)
    tact(s, "theft:Gold Theft:+1:#0")
    assert tlegal(s) == ["give_up_asset:#1", "let_pass", "cancel_gold"]
    tact(s, "cancel_gold")
    assert thand(s, 1) == ["2", "2"] and tnames(s, s.discard_pile[-2:]) == ["Gold Theft", "Gold"]
    assert tassets(s, 1) == [["5", "5"], ["6", "Gold"]] and s.phase == "play" and s.cancelled == 1
    tact(s, "theft:Theft:+1:#0")
    assert tlegal(s) == ["cancel_pair:2+2", "give_up_asset:#0", "give_up_asset:#1", "let_pass"]
    assert action_space(s.rules).size == action_space(get_rules("theft")).size + 1  # cancel_gold comes last


def test_r_t_turn_cancel_pair_value_option():
    """R-T-TURN ``cancel_pair_value = target_value`` (the seed's example "any pair whose sum is 12" for a 12
    asset): only a pair from hand whose points equal the targeted asset's points cancels (gold counts 1)."""
    hands = [["Theft", "Gold Theft"], ["6", "6", "2", "2", "8", "Gold", "3"]]
    s = tstate(players=2, hands=hands, assets=[[], [asset("5", "7")]], options={"cancel_pair_value": "target_value"})
    tact(s, "theft:Theft:+1:#0")
    assert tlegal(s) == ["cancel_pair:6+6", "give_up_asset:#0", "let_pass"]
    s2 = tstate(players=2, hands=hands, assets=[[], [asset("4", "5")]], options={"cancel_pair_value": "target_value"})
    tact(s2, "theft:Gold Theft:+1:#0")
    assert tlegal(s2) == ["cancel_pair:8+Gold", "let_pass"]  # 8 + 1 = 9 points, and it holds the gold card


@pytest.mark.parametrize("options", [{"compulsory_defence": True}, {"give_up_pair_only": True},
                                     {"gold_theft_cancel": "single_gold"}, {"cancel_pair_value": "target_value"},
                                     {"compulsory_defence": True, "gold_theft_cancel": "single_gold",
                                      "give_up_pair_only": True, "cancel_pair_value": "target_value"}])
def test_r_t_turn_new_defence_options_play_whole_games(options):
    """Every agent plays whole games under the four defence readings without an illegal action; the card count
    holds (R-T-DECK), and under ``compulsory_defence`` no seat ever lets an asset pass while it could cancel."""
    from agents.theft.registry import make_theft_agent
    from cya_sim.engine.theft.legal import legal_action_mask

    rules = get_rules("theft", **options)
    sp = action_space(rules)
    for g in range(12):
        state = new_game(rules, 3, root_key(5), g)
        agents = [make_theft_agent(a) for a in ("greedy", "defender", "random")]
        rng = np.random.default_rng(g)
        while state.to_act >= 0:
            mask = legal_action_mask(state)
            a = agents[state.to_act].act(observe(state, state.to_act), rng)
            assert mask[a], (options, g, sp.name(a))
            if options.get("compulsory_defence") and a == sp.let_pass:
                assert mask.sum() == 1
            apply_action(state, a)
        held = sum(sum(h) for h in state.hands) + len(state.draw_pile) + len(state.discard_pile)
        held += sum(len(x.cards) for row in state.assets for x in row)
        assert held == rules.n_cards


def test_r_t_turn_end_of_turn_discard_down_to_five_no_drawing_up():
    """R-T-TURN (choice): at the end of a turn the mover discards down to 5 cards and draws none."""
    s = tstate(players=2, hands=[["1", "2", "3", "4", "5", "6", "7"], ["9"]], draw_pile=["8", "8"], rest="discard")
    tact(s, "end_turn")
    assert s.phase == "discard" and tlegal(s) == [f"discard:{n}" for n in range(1, 8)]
    tact(s, "discard:1")
    assert s.phase == "discard"
    tact(s, "discard:7")
    assert thand(s, 0) == ["2", "3", "4", "5", "6"] and s.current_player == 1
    s = tstate(players=2, hands=[["1", "2"], ["9"]], draw_pile=["8", "8", "3", "3", "3"], rest="discard")
    tact(s, "end_turn")
    assert thand(s, 0) == ["1", "2"]  # no drawing up


def test_r_t_turn_end_of_turn_other_readings():
    """R-T-TURN (choice): ``keep`` has no end-of-turn limit; ``discard_and_draw_up`` draws up to 5."""
    s = tstate(players=2, hands=[["1", "2", "3", "4", "5", "6", "7"], ["9"]], options={"end_of_turn": "keep"})
    tact(s, "end_turn")
    assert s.current_player == 1 and sum(s.hands[0]) == 7
    s = tstate(players=2, hands=[["1", "2"], ["9"]], draw_pile=["8", "8", "3", "3", "3"],
               options={"end_of_turn": "discard_and_draw_up"}, rest="discard")
    tact(s, "end_turn")
    assert thand(s, 0) == ["1", "2", "3", "8", "8"]


def test_r_t_turn_illegal_action_refused():
    """R-T-TURN: an action outside the legal mask is refused, naming it."""
    s = tstate(players=2, hands=[["1"], []])
    with pytest.raises(TheftIllegalActionError, match=r"build:1\+1\) is not legal for seat 0 in phase play"):
        apply_action(s, action_space(s.rules).build(0, 0))


# -- R-T-END ---------------------------------------------------------------------------------
def test_r_t_end_three_assets_then_one_more_turn_each_then_highest_total():
    """R-T-END: a player with 3 assets at the end of a turn gives every other player one more turn; then
    the highest total of asset card values wins (gold counts 1)."""
    s = tstate(players=3, hands=[["7", "7"], ["Gold", "9"], ["1"]],
               assets=[[asset("5", "5"), asset("2", "2")], [asset("10", "10")], [asset("3", "3")]],
               draw_pile=["4", "4", "6", "6", "8", "8"], rest="discard")
    tact(s, "build:7+7", "end_turn")
    assert s.final_turns_left == 2 and s.trigger_seat == 0 and s.current_player == 1
    tact(s, "build:9+Gold", "end_turn")
    assert s.phase == "play" and s.current_player == 2
    tact(s, "end_turn")
    assert s.phase == "over" and s.to_act == -1 and s.scores() == [28, 30, 6] and s.winners == [1]


def test_r_t_end_tie_shares_the_win():
    """R-T-END: ties share the win."""
    s = tstate(players=2, hands=[["4", "4"], ["1"]], assets=[[asset("5", "5"), asset("2", "2")],
                                                               [asset("10", "10"), asset("8", "8")]],
               draw_pile=["3", "3"], rest="discard")
    tact(s, "build:4+4", "end_turn")
    tact(s, "end_turn")
    assert s.scores() == [22, 36] and s.winners == [1]
    s = tstate(players=2, hands=[["4", "4"], ["1"]], assets=[[asset("5", "5"), asset("2", "2")],
                                                               [asset("10", "10"), asset("2", "2")]],
               draw_pile=["3", "3"], rest="discard")
    tact(s, "build:4+4", "end_turn", "end_turn")
    assert s.scores() == [22, 24] and s.winners == [1]
    s = tstate(players=2, hands=[["4", "4"], ["1"]], assets=[[asset("5", "5"), asset("2", "2")],
                                                               [asset("10", "10"), asset("1", "1")]],
               draw_pile=["3", "3"], rest="discard")
    tact(s, "build:4+4", "end_turn", "end_turn")
    assert s.scores() == [22, 22] and s.winners == [0, 1]


def test_r_t_end_turn_cap_is_reported():
    """R-T-END safeguard: a game that reaches ``max_turns`` stops, is scored as it stands and says so."""
    lines = []
    s = tstate(players=2, hands=[["1"], ["2"]], assets=[[asset("5", "5")], []], options={"max_turns": 3},
               counters={"turns": 2, "thefts": 0, "cancelled": 0, "decisions": 0, "largest_steal": 0})
    tact(s, "end_turn", log=lines.append)
    assert s.turns == 3 and s.phase == "play"
    tact(s, "end_turn", log=lines.append)
    assert s.phase == "over" and s.capped and s.winners == [0] and s.turns == 3
    assert any(line.startswith("turn cap reached (max_turns = 3") for line in lines)


# -- coverage ----------------------------------------------------------------------------------
def test_r_t_rule_ids_each_have_a_test():
    """Every R-T- ID defined in RULES.md §9 names a test in this file."""
    if not RULES_MD.is_file():
        pytest.skip(f"RULES.md not found at {RULES_MD}")
    text = RULES_MD.read_text(encoding="utf-8")
    section = text.split("## 9.")[1].split("\n## ")[0]
    ids = sorted(set(re.findall(r"\*\*(R-T-[A-Z]+)\*\*", section)))
    assert ids == ["R-T-DECK", "R-T-END", "R-T-SETUP", "R-T-TURN"]
    names = [n for n in globals() if n.startswith("test_")]
    for rid in ids:
        token = rid.lower().replace("-", "_")
        assert any(n.startswith(f"test_{token}_") for n in names), rid


def test_r_t_preset_options_listed_with_defaults():
    """Every option of the theft rule set appears in ``describe()`` (``cya-sim rules theft``) with its default."""
    r = get_rules("theft")
    text = r.describe()
    for name, value in r.to_dict().items():
        if name in ("name", "family"):
            continue
        assert re.search(rf"^  {name}\s+{re.escape(str(value))}\s", text, re.MULTILINE), name
    assert np.array_equal(r.counts, TheftRuleSet().counts)
