"""RULES.md §3 turns: R-TURN, R-PAIR-HAND, R-PAIR-DISCARD, R-CHALLENGE, R-DISCARD, R-NO-WILD-PAIR,
R-NEW-SET, R-EMPTY-DISCARD."""

from __future__ import annotations

import pytest
from conftest import (
    AUTO,
    BANK,
    GOLD,
    HOME,
    JEWELS,
    PIGGY,
    SILVER,
    STOCKS,
    act,
    cset,
    hand,
    legal,
    names_of,
    sets,
    state_of,
)

from cya_sim.engine.classic.reference import IllegalActionError, apply_action
from cya_sim.engine.classic.reference.legal import action_space
from cya_sim.game.classic.position import dumps


def _three_player_turn():
    return state_of(
        players=3,
        hands=[[JEWELS, JEWELS, STOCKS, GOLD], [HOME, HOME, BANK, BANK], [AUTO, AUTO, PIGGY, PIGGY]],
        stacks=[[cset(BANK, BANK, BANK)], [cset(HOME, SILVER, HOME), cset(JEWELS, JEWELS, JEWELS)],
                [cset(AUTO, AUTO, AUTO)]],
        discard_pile=[STOCKS],
        draw_pile=[PIGGY] * 4,
    )


def test_r_turn_legal_actions_exact():
    """R-TURN: the player to move may pair from hand, pair with the discard, challenge or discard; exactly
    these actions are legal."""
    s = _three_player_turn()
    assert s.to_act == 0 and s.phase == "turn"
    assert legal(s) == [
        "pair_hand:Stocks+Gold", "pair_hand:Jewels+Jewels", "pair_hand:Jewels+Gold",
        "pair_discard:Stocks", "pair_discard:Gold",
        "challenge:+1:match", "challenge:+1:Gold",
        "discard:Stocks", "discard:Jewels", "discard:Gold",
    ]


def test_r_turn_one_action_then_next_seat_clockwise():
    """R-TURN: one action per turn; then the seat to the left (next seat number) moves."""
    s = _three_player_turn()
    act(s, "discard:Stocks")
    assert (s.current_player, s.to_act, s.turns, s.decisions) == (1, 1, 1, 1)
    act(s, "discard:Home")
    assert s.current_player == 2
    act(s, "discard:Piggy Bank")
    assert s.current_player == 0


def test_r_turn_empty_hand_is_skipped():
    """R-TURN: a player with an empty hand is skipped."""
    s = state_of(players=3, hands=[[JEWELS, STOCKS], [], [BANK]],
                 stacks=[[], [cset(HOME, HOME, HOME)], []])
    act(s, "discard:Jewels")
    assert s.current_player == 2
    act(s, "discard:Bank Account")
    assert s.current_player == 0  # seat 1 skipped again


def test_r_turn_illegal_action_refused_state_unchanged():
    """R-TURN: an action outside the legal mask is refused with IllegalActionError; the state is unchanged."""
    s = _three_player_turn()
    before = dumps(s)
    sp = action_space(s.rules)
    for bad in ("pair_hand:Home+Home", "challenge:+2:match", "discard:Silver", "give_up", "respond:match"):
        with pytest.raises(IllegalActionError, match=r"seat 0 chose illegal action \d+ \("):
            apply_action(s, sp.names().index(bad))
    with pytest.raises(IllegalActionError, match=r"outside the action space"):
        apply_action(s, sp.size)
    assert dumps(s) == before


def test_r_pair_hand_asset_and_wild():
    """R-PAIR-HAND: an asset and a wild from hand form a set, the asset on top (2 players, hand size 5)."""
    s = state_of(hands=[[JEWELS, GOLD, STOCKS, BANK, BANK], [HOME] * 5], draw_pile=[HOME, PIGGY, AUTO])
    act(s, "pair_hand:Jewels+Gold")
    assert sets(s, 0) == [(JEWELS, [GOLD, JEWELS])]
    assert hand(s, 0) == [PIGGY, BANK, BANK, STOCKS, HOME]
    assert names_of(s, s.draw_pile) == [AUTO]
    assert s.current_player == 1


def test_r_pair_hand_two_assets_of_one_type():
    """R-PAIR-HAND: two assets of one type form a set; two of different types do not."""
    s = state_of(hands=[[BANK, BANK, STOCKS, JEWELS, PIGGY], [HOME] * 5], draw_pile=[AUTO, AUTO])
    assert [a for a in legal(s) if a.startswith("pair_hand")] == ["pair_hand:Bank Account+Bank Account"]
    act(s, "pair_hand:Bank Account+Bank Account")
    assert sets(s, 0) == [(BANK, [BANK, BANK])]
    assert hand(s, 0) == [PIGGY, STOCKS, JEWELS, AUTO, AUTO]


def test_r_pair_discard_asset_on_pile_with_wild_from_hand():
    """R-PAIR-DISCARD: the top discard asset with a wild from hand; the discard pile shrinks by its top."""
    s = state_of(hands=[[SILVER, STOCKS], [HOME]], discard_pile=[PIGGY, JEWELS], draw_pile=[AUTO, AUTO, AUTO],
                 rest="draw")
    assert [a for a in legal(s) if a.startswith("pair_")] == ["pair_hand:Stocks+Silver", "pair_discard:Silver"]
    act(s, "pair_discard:Silver")
    assert sets(s, 0) == [(JEWELS, [SILVER, JEWELS])]
    assert names_of(s, s.discard_pile) == [PIGGY]
    assert hand(s, 0) == [PIGGY, STOCKS, AUTO, AUTO, AUTO]


def test_r_pair_discard_wild_on_pile_with_asset_from_hand():
    """R-PAIR-DISCARD: either side may be the wild: a Gold on the pile pairs with a hand asset, which goes on
    top (the set's type)."""
    s = state_of(hands=[[HOME, GOLD], [HOME]], discard_pile=[GOLD], rest="draw")
    assert [a for a in legal(s) if a.startswith("pair_")] == ["pair_hand:Home+Gold", "pair_discard:Home"]
    act(s, "pair_discard:Home")
    assert sets(s, 0) == [(HOME, [GOLD, HOME])]


def test_r_pair_discard_matching_asset():
    """R-PAIR-DISCARD: the top discard asset with the same asset from hand; another asset is not legal."""
    s = state_of(hands=[[JEWELS, STOCKS], [HOME]], discard_pile=[JEWELS], rest="draw")
    assert [a for a in legal(s) if a.startswith("pair_")] == ["pair_discard:Jewels"]
    act(s, "pair_discard:Jewels")
    assert sets(s, 0) == [(JEWELS, [JEWELS, JEWELS])]


def test_r_pair_discard_only_the_top_card():
    """R-PAIR-DISCARD: only the top discard card can be used (a Jewels beneath it cannot)."""
    s = state_of(hands=[[JEWELS, STOCKS], [HOME]], discard_pile=[JEWELS, PIGGY], rest="draw")
    assert [a for a in legal(s) if a.startswith("pair_")] == []


def test_r_challenge_opens_with_one_card():
    """R-CHALLENGE: challenging is an action; the challenger shows one card and the defender must answer."""
    s = _three_player_turn()
    act(s, "challenge:+1:Gold")
    assert s.phase == "challenge" and s.to_act == 1 and s.current_player == 0
    ch = s.challenge
    assert (ch.challenger, ch.defender, names_of(s, [ch.asset]), names_of(s, ch.cards), ch.players) == (
        0, 1, [JEWELS], [GOLD], [0])
    assert hand(s, 0) == [STOCKS, JEWELS, JEWELS]  # no drawing before the challenge ends (R-CH-ONE)
    assert s.challenges == 1


def test_r_discard_any_card_even_when_a_pair_is_possible():
    """R-DISCARD: any hand card may be discarded, even when a pair is possible; it becomes the top discard."""
    s = state_of(hands=[[JEWELS, JEWELS, GOLD, STOCKS, BANK], [HOME]], draw_pile=[AUTO, PIGGY], rest="discard")
    assert "pair_hand:Jewels+Jewels" in legal(s)
    act(s, "discard:Gold")
    assert names_of(s, s.discard_pile[-1:]) == [GOLD]
    assert hand(s, 0) == [BANK, STOCKS, JEWELS, JEWELS, AUTO]
    assert names_of(s, s.draw_pile) == [PIGGY]


def test_r_no_wild_pair_two_wilds_never_form_a_set():
    """R-NO-WILD-PAIR: two wilds never form a set, neither from hand nor with a wild on the discard pile."""
    s = state_of(hands=[[GOLD, SILVER, GOLD], [HOME]], discard_pile=[SILVER], rest="draw")
    assert legal(s) == ["discard:Silver", "discard:Gold"]


def test_r_new_set_never_merged_with_top_set_of_same_type():
    """R-NEW-SET: a new Jewels set goes on top of the stack as a new set, not into the Jewels set below."""
    s = state_of(hands=[[JEWELS, JEWELS], [HOME]], stacks=[[cset(JEWELS, GOLD, JEWELS)], []], rest="draw")
    act(s, "pair_hand:Jewels+Jewels")
    assert sets(s, 0) == [(JEWELS, [GOLD, JEWELS]), (JEWELS, [JEWELS, JEWELS])]


def test_r_empty_discard_stays_empty_until_someone_discards():
    """R-EMPTY-DISCARD: once the last discard card is taken the pile stays empty (no refill from the draw
    pile) and no pair with it is legal, until someone discards."""
    s = state_of(hands=[[JEWELS, STOCKS], [HOME, GOLD]], discard_pile=[JEWELS], rest="draw")
    act(s, "pair_discard:Jewels")
    assert s.discard_pile == []
    assert s.current_player == 1
    assert legal(s) == ["pair_hand:Home+Gold", "discard:Home", "discard:Gold"]
    draw_before = list(s.draw_pile)
    act(s, "discard:Home")
    assert names_of(s, s.discard_pile) == [HOME]
    assert s.draw_pile == draw_before[4:]  # seat 1 drew four cards; the discard pile got none
    assert sum(s.hands[1]) == 5
