"""RULES.md §6, the advanced rules (preset ``advanced``): one hand-built position per rule ID and its known outcome.

R-ADV-HAND, R-ADV-TWO (with the discard-then-draw exception and the no-second-challenge rule),
R-ADV-IMPROVE, R-ADV-SWAP, R-ADV-MOVE, R-ADV-DISCARD-ACTION, R-ADV-PENNY, R-ADV-DEEP, R-ADV-SETUP.
"""

from __future__ import annotations

import numpy as np
from conftest import (
    AUTO,
    BANK,
    GOLD,
    HOME,
    JEWELS,
    MOVE,
    PENNY,
    PIGGY,
    SILVER,
    STOCKS,
    SWAP,
    act,
    cset,
    hand,
    legal,
    names_of,
    sets,
    state_of,
)

from cya_sim.engine.classic.reference import new_game
from cya_sim.game.rng import root_key
from cya_sim.game.rules import get_rules


def _adv(**kw):
    """Three players under ``advanced`` (hand size 6), seat 0 to move; the draw pile is 8 Stocks."""
    args = {"players": 3, "preset": "advanced", "draw_pile": [STOCKS] * 8,
            "hands": [[JEWELS, JEWELS, AUTO, AUTO, PIGGY, BANK], [HOME, PIGGY], [BANK, BANK]],
            "stacks": [[], [], []]}
    args.update(kw)
    return state_of(**args)


# -- R-ADV-HAND -------------------------------------------------------------------------------------
def test_r_adv_hand_six_cards_dealt():
    """R-ADV-HAND: every player is dealt six cards under ``advanced``, at every table size."""
    rules = get_rules("advanced")
    for p in (2, 4, 6):
        s = new_game(rules, p, root_key(1), 0)
        assert [sum(h) for h in s.hands] == [6] * p and s.hand_size == 6


# -- R-ADV-TWO --------------------------------------------------------------------------------------
def test_r_adv_two_two_actions_then_draw_at_end_of_turn():
    """R-ADV-TWO: two actions in one turn (here two sets laid); the player draws only at the end of the turn."""
    s = _adv()
    act(s, "pair_hand:Jewels+Jewels")
    assert s.current_player == 0 and s.to_act == 0 and s.actions_left == 1 and len(hand(s, 0)) == 4
    assert "end_turn" in legal(s)
    act(s, "pair_hand:Classic Auto+Classic Auto")
    assert s.current_player == 1 and hand(s, 0) == [PIGGY, BANK] + [STOCKS] * 4
    assert [a for a, _ in sets(s, 0)] == [JEWELS, AUTO]


def test_r_adv_two_may_stop_after_one_action():
    """R-ADV-TWO: ``end_turn`` stops after the first action (it is not offered before the first action)."""
    s = _adv()
    assert "end_turn" not in legal(s)
    act(s, "pair_hand:Jewels+Jewels", "end_turn")
    assert s.current_player == 1 and len(hand(s, 0)) == 6 and s.actions_left == 2


def test_r_adv_two_discard_then_draw_at_once():
    """R-ADV-TWO's exception: a player whose first action is a discard draws back up at once; a discard as the
    second action waits for the end of the turn."""
    s = _adv()
    act(s, "discard:Piggy Bank")
    assert s.to_act == 0 and len(hand(s, 0)) == 6 and hand(s, 0).count(STOCKS) == 1
    act(s, "discard:Bank Account")
    assert s.current_player == 1 and len(hand(s, 0)) == 6
    s = _adv()
    act(s, "pair_hand:Jewels+Jewels")
    assert len(hand(s, 0)) == 4  # a set as the first action: no drawing yet
    act(s, "discard:Piggy Bank")
    assert s.current_player == 1 and len(hand(s, 0)) == 6


def test_r_adv_two_no_second_challenge_of_the_same_player_after_losing():
    """R-ADV-TWO: after losing a challenge against seat 1 as the first action, seat 0 may not challenge seat 1
    again that turn (seat 2 still can); after winning, it may."""
    kw = {"hands": [[JEWELS, JEWELS, SILVER, PIGGY, BANK, BANK], [JEWELS, HOME], [PIGGY]],
          "stacks": [[cset(AUTO, AUTO, AUTO)], [cset(HOME, HOME, HOME), cset(PIGGY, SILVER, PIGGY),
                                                cset(JEWELS, JEWELS, JEWELS)],
                     [cset(STOCKS, STOCKS, STOCKS), cset(BANK, BANK, BANK)]]}
    s = _adv(**kw)
    act(s, "challenge:+1:match")
    act(s, "respond:match")  # seat 1 answers with its Jewels
    act(s, "give_up")  # seat 0 gives up: seat 1 defends
    assert s.to_act == 0 and s.actions_left == 1 and s.no_challenge == 1
    assert [a for a in legal(s) if a.startswith("challenge:+1")] == []
    assert "challenge:+2:match" in legal(s) and "challenge:+2:Silver" in legal(s)
    s = _adv(**kw)
    act(s, "challenge:+1:match", "give_up")  # seat 1 gives up: seat 0 wins and may challenge seat 1 again
    assert s.to_act == 0 and s.no_challenge == -1 and "challenge:+1:Silver" in legal(s)


# -- R-ADV-IMPROVE ----------------------------------------------------------------------------------
def test_r_adv_improve_adds_a_matching_asset_to_the_own_top_set():
    """R-ADV-IMPROVE: one matching asset from the hand goes onto the own top set (public); it needs a set and a
    matching asset; the set's value grows by the asset's value."""
    s = _adv(stacks=[[cset(AUTO, AUTO, AUTO), cset(JEWELS, GOLD, JEWELS)], [], []])
    assert "improve" in legal(s)
    act(s, "improve")
    assert sets(s, 0)[-1] == (JEWELS, [GOLD, JEWELS, JEWELS]) and s.stack_values()[0] == 30_000 + 80_000
    assert s.stacks[0][-1].known_by[-1] == 0b111 and hand(s, 0).count(JEWELS) == 1
    assert "improve" in legal(s)  # the second action may improve again with the other Jewels
    s = _adv(stacks=[[cset(HOME, HOME, HOME)], [], []])
    assert "improve" not in legal(s)  # no Home in hand
    assert "improve" not in legal(_adv())  # no set


# -- R-ADV-SWAP -------------------------------------------------------------------------------------
def test_r_adv_swap_exchanges_top_sets_and_leaves_the_game():
    """R-ADV-SWAP: Swap exchanges the own top set with another player's top set, also when either has only
    one set; each side learns the set it receives; the Swap leaves the game."""
    s = _adv(hands=[[SWAP, PIGGY], [HOME], [BANK]],
             stacks=[[cset(AUTO, AUTO, AUTO), cset(PIGGY, SILVER, PIGGY)], [cset(HOME, GOLD, HOME)], []])
    assert [a for a in legal(s) if a.startswith("swap")] == ["swap:+1"]  # seat 2 has no set
    removed = len(s.removed)
    act(s, "swap:+1")
    assert sets(s, 0) == [(AUTO, [AUTO, AUTO]), (HOME, [GOLD, HOME])]
    assert sets(s, 1) == [(PIGGY, [SILVER, PIGGY])]
    assert s.stacks[0][-1].known_by[0] & 1 and s.stacks[1][-1].known_by[0] & 2  # new owners learn the cards
    assert not s.stacks[1][-1].known_by[0] & 4  # seat 2 still does not know the Silver
    assert names_of(s, s.removed[removed:]) == [SWAP] and SWAP not in hand(s, 0)
    assert s.discard_pile[-1] != s.rules.deck.names.index(SWAP)


# -- R-ADV-MOVE -------------------------------------------------------------------------------------
def test_r_adv_move_top_to_bottom_or_bottom_to_top_any_player():
    """R-ADV-MOVE: Move puts a stack's top set at the bottom or its bottom set on top, on any player's stack
    (the mover's own included, offset 0); the Move leaves the game. A stack needs two sets."""
    stacks = [[cset(AUTO, AUTO, AUTO), cset(PIGGY, PIGGY, PIGGY)],
              [cset(HOME, HOME, HOME), cset(BANK, BANK, BANK), cset(JEWELS, JEWELS, JEWELS)], []]
    s = _adv(hands=[[MOVE, MOVE, STOCKS], [HOME], [BANK]], stacks=stacks)
    assert [a for a in legal(s) if a.startswith("move")] == [
        "move:+0:top_to_bottom", "move:+0:bottom_to_top", "move:+1:top_to_bottom", "move:+1:bottom_to_top"]
    act(s, "move:+1:bottom_to_top")
    assert [a for a, _ in sets(s, 1)] == [BANK, JEWELS, HOME]
    act(s, "move:+0:top_to_bottom")
    assert [a for a, _ in sets(s, 0)] == [PIGGY, AUTO]
    assert names_of(s, s.removed[-2:]) == [MOVE, MOVE] and s.current_player == 1


# -- R-ADV-DISCARD-ACTION ----------------------------------------------------------------------------
def test_r_adv_discard_action_leaves_the_game():
    """R-ADV-DISCARD-ACTION: a discarded Swap or Move leaves the game; it never lies on the discard pile."""
    s = _adv(hands=[[SWAP, MOVE, PIGGY], [HOME], [BANK]], discard_pile=[GOLD])
    n = len(s.removed)
    act(s, "discard:Swap")
    assert names_of(s, s.removed[n:]) == [SWAP] and names_of(s, s.discard_pile[-1:]) == [GOLD]
    assert len(hand(s, 0)) == 6  # a first-action discard: drawn back up at once (R-ADV-TWO)
    act(s, "discard:Move")
    assert names_of(s, s.removed[n:]) == [SWAP, MOVE] and names_of(s, s.discard_pile[-1:]) == [GOLD]


# -- R-ADV-PENNY ------------------------------------------------------------------------------------
def test_r_adv_penny_forms_sets_like_a_wild():
    """R-ADV-PENNY: a Penny Jar forms sets like any wild (from the hand and from the discard pile), never with
    another wild; it counts its value ($1,000 by default)."""
    s = _adv(hands=[[JEWELS, PENNY, GOLD], [HOME], [BANK]], discard_pile=[PENNY])
    assert "pair_hand:Jewels+Penny Jar" in legal(s) and "pair_discard:Jewels" in legal(s)
    assert "pair_discard:Gold" not in legal(s) and "pair_discard:Penny Jar" not in legal(s)
    act(s, "pair_hand:Jewels+Penny Jar")
    assert sets(s, 0) == [(JEWELS, [PENNY, JEWELS])] and s.stack_values()[0] == 16_000


def test_r_adv_penny_is_answered_by_two_cards_or_a_penny_jar():
    """R-ADV-PENNY: a Penny Jar in a challenge counts as two wilds: the answer is two cards (two matching assets,
    two wilds or one of each) or another Penny Jar; after a two-card answer the next play needs one card."""
    s = _adv(hands=[[PENNY, JEWELS, PIGGY], [JEWELS, SILVER, PENNY, HOME], [BANK]],
             stacks=[[cset(AUTO, AUTO, AUTO)], [cset(HOME, HOME, HOME), cset(JEWELS, JEWELS, JEWELS)], []])
    act(s, "challenge:+1:Penny Jar")
    assert s.challenge.owed == 2
    assert legal(s) == ["respond:Penny Jar", "give_up", "respond_two:match+Silver", "respond_two:match+Penny Jar",
                        "respond_two:Silver+Penny Jar"]
    act(s, "respond_two:match+Silver")
    assert s.challenge.owed == 1 and legal(s) == ["respond:match", "give_up"]
    act(s, "respond:match", "give_up")  # seat 0 played the last card: it wins the set and all 4 challenge cards
    assert sets(s, 0)[-1] == (JEWELS, [JEWELS, JEWELS, PENNY, JEWELS, SILVER, JEWELS])
    assert s.stack_values()[0] == 30_000 + 4 * 15_000 + 1_000 + 25_000
    # answering a Penny Jar with a Penny Jar asks two of the other side again
    s = _adv(hands=[[PENNY, PIGGY], [PENNY, HOME], [BANK]],
             stacks=[[cset(AUTO, AUTO, AUTO)], [cset(HOME, HOME, HOME), cset(JEWELS, JEWELS, JEWELS)], []])
    act(s, "challenge:+1:Penny Jar", "respond:Penny Jar")
    assert s.challenge.owed == 2 and legal(s) == ["give_up"]


# -- R-ADV-DEEP -------------------------------------------------------------------------------------
_DEEP_STACKS = [[cset(AUTO, AUTO, AUTO)],
                [cset(HOME, HOME, HOME), cset(JEWELS, GOLD, JEWELS), cset(BANK, BANK, BANK)], []]


def test_r_adv_deep_second_set_with_a_two_card_opening():
    """R-ADV-DEEP: the set second from the top is open to a challenge when the target has three sets, opened with
    two cards (or a Penny Jar); the defender answers with one; with ``two_for_one`` the challenger keeps paying
    two. A winning challenger takes that set; the defender keeps its top and bottom sets."""
    s = _adv(hands=[[JEWELS, JEWELS, SILVER, PENNY, PIGGY], [JEWELS, HOME], [BANK]], stacks=_DEEP_STACKS)
    deep = [a for a in legal(s) if a.startswith("deep")]
    assert deep == ["deep_challenge:+1:match+match", "deep_challenge:+1:match+Silver",
                    "deep_challenge:+1:match+Penny Jar", "deep_challenge:+1:Silver+Penny Jar",
                    "deep_challenge:+1:Penny Jar"]
    act(s, "deep_challenge:+1:match+match")
    assert s.challenge.depth == 1 and s.challenge.asset == s.rules.deck.names.index(JEWELS)
    assert legal(s) == ["respond:match", "give_up"]  # the defender needs one card
    act(s, "respond:match")
    assert s.challenge.owed == 2 and legal(s) == ["respond:Penny Jar", "give_up", "respond_two:Silver+Penny Jar"]
    act(s, "respond:Penny Jar")
    assert s.challenge.owed == 1
    act(s, "give_up")
    assert [a for a, _ in sets(s, 1)] == [HOME, BANK]
    assert sets(s, 0)[-1] == (JEWELS, [GOLD, JEWELS, JEWELS, JEWELS, JEWELS, PENNY])
    assert s.largest_steal == 15_000 * 4 + 50_000 + 1_000


def test_r_adv_deep_defender_wins_and_one_for_one_option():
    """R-ADV-DEEP: a defender that wins keeps the set second from the top, enlarged; it needs three sets; with
    ``deep_challenge_costs = one_for_one`` the challenger's later plays cost one card."""
    s = _adv(hands=[[JEWELS, JEWELS, SILVER, PIGGY], [SILVER, HOME], [BANK]], stacks=_DEEP_STACKS)
    act(s, "deep_challenge:+1:match+Silver", "respond:Silver", "give_up")
    assert sets(s, 1)[1] == (JEWELS, [GOLD, JEWELS, JEWELS, SILVER, SILVER]) and len(sets(s, 1)) == 3
    assert s.no_challenge == 1 and not [a for a in legal(s) if a.startswith(("deep", "challenge:+1"))]
    s = state_of(players=3, preset="advanced", options={"deep_challenge_costs": "one_for_one"},
                 draw_pile=[STOCKS] * 8, hands=[[JEWELS, JEWELS, JEWELS, PIGGY], [SILVER, HOME], [BANK]],
                 stacks=_DEEP_STACKS)
    act(s, "deep_challenge:+1:match+match", "respond:Silver")
    assert s.challenge.owed == 1 and legal(s) == ["respond:match", "give_up"]
    two = _adv(stacks=[[cset(AUTO, AUTO, AUTO)], [cset(HOME, HOME, HOME), cset(JEWELS, JEWELS, JEWELS)], []],
               hands=[[JEWELS, JEWELS, PIGGY], [HOME], [BANK]])
    assert not [a for a in legal(two) if a.startswith("deep")]  # only two sets: no deep challenge


# -- R-ADV-SETUP ------------------------------------------------------------------------------------
def test_r_adv_setup_action_card_turned_up_leaves_the_game():
    """R-ADV-SETUP: a Swap or Move turned up as the first discard leaves the game and the next card is turned up
    (found among the deals of seed 7: every such deal shows it, and cards are conserved)."""
    rules = get_rules("advanced")
    n_t = rules.deck.n_assets + rules.deck.n_wilds
    found = 0
    for g in range(400):
        s = new_game(rules, 4, root_key(7), g)
        assert s.discard_pile[-1] < n_t
        assert np.array_equal(s.card_counts(), s.deck_counts)
        if s.removed:
            found += 1
            assert all(c >= n_t for c in s.removed)
    assert found >= 5  # about 4/116 of the deals turn an action card up first
