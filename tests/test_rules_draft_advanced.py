"""RULES.md §7 with §6: the drafts played with the advanced cards and actions (presets
``two_player_draft_advanced``, ``three_player_draft_advanced``), one hand-built position per reading.

The readings (seed 000 lines 21 and 25) are listed in :mod:`cya_sim.engine.classic.reference.draft`: an action card
turned up on a draft pile is carried out at once by the two players beside it and leaves the game; Swap
exchanges their top sets; for Move the 2-player opponent of the mover (3 players: the mover) chooses how the
mover's stack (3 players: the other neighbour's stack) moves; at set-up it acts on nothing. R-ADV-PENNY and
R-ADV-TWO apply to draft takes and the immediate challenge.
"""

from __future__ import annotations

import numpy as np
import pytest
from conftest import (
    AUTO,
    BANK,
    GOLD,
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
    sets,
    state_of,
)

from cya_sim.engine.classic.reference import apply_action, legal_action_mask, new_game
from cya_sim.engine.classic.reference.draft import deal_piles, leftover_value
from cya_sim.engine.classic.reference.legal import action_space
from cya_sim.engine.classic.reference.observation import observe
from cya_sim.game.classic.position import dumps, loads
from cya_sim.game.rng import root_key
from cya_sim.game.rules import get_rules

TWO = "two_player_draft_advanced"
THREE = "three_player_draft_advanced"


def _two(hands, piles, stacks=None, draw=None, **kw):
    """A two-player draft position with the advanced rules: seat 0 to move, two actions left."""
    return state_of(players=2, preset=TWO, hands=hands, stacks=stacks or [[], []], draft_piles=piles,
                    draw_pile=draw or [STOCKS] * 6, **kw)


def _three(hands, piles, current=0, stacks=None, **kw):
    return state_of(players=3, preset=THREE, hands=hands, stacks=stacks or [[], [], []], draft_piles=piles,
                    draw_pile=[STOCKS] * 6, current_player=current, **kw)


def _tops(s):
    return observe(s, 0).draft_tops


NAMES = get_rules(TWO).deck.names
ID = {n: NAMES.index(n) for n in NAMES}


# -- presets, options, action space -------------------------------------------------------------------------


def test_r_presets_draft_advanced_presets():
    """R-PRESETS / R-ADV-HAND: the draft presets plus the §6 options of ``advanced``; a hand of 6 at both tables;
    R-2P-DRAFT's reduced deck plus 2 Swap, 2 Move, 2 Penny Jars ($1,102,000 a round), the whole deck plus them at
    three players ($1,362,000)."""
    adv = get_rules("advanced")
    for name, base, players, total in ((TWO, "two_player_draft", 2, 1_102_000),
                                       (THREE, "three_player_draft", 3, 1_362_000)):
        r, b = get_rules(name), get_rules(base)
        assert (r.draft, r.draft_piles, r.draft_pile_size, r.draft_removed) == (
            b.draft, b.draft_piles, b.draft_pile_size, b.draft_removed)
        for opt in ("actions_per_turn", "action_card_counts", "penny_jar_value", "deep_challenge_costs",
                    "advanced_actions", "challenge_draw_order"):
            assert getattr(r, opt) == getattr(adv, opt), opt
        assert r.hand_size_for(players) == 6 and r.round_total(players) == total
        s = new_game(r, players, root_key(2), 0)
        assert [sum(h) for h in s.hands] == [6] * players and s.actions_left == 2
        assert (s.card_counts() == s.deck_counts).all()


def test_action_space_ids_of_earlier_presets_unchanged_draft_move_last():
    """The new ``draft_move`` block is appended after every other block: the earlier presets keep their sizes."""
    sizes = {p: action_space(get_rules(p)).size for p in ("classic", "advanced", "two_player_draft",
                                                           "three_player_draft", TWO, THREE)}
    assert sizes == {"classic": 91, "advanced": 179, "two_player_draft": 115, "three_player_draft": 118,
                     TWO: 184, THREE: 202}
    sp = action_space(get_rules(TWO))
    assert sp.names()[-2:] == ["draft_move:top_to_bottom", "draft_move:bottom_to_top"]
    assert sp.start["draft_take"] == action_space(get_rules("advanced").with_options(max_players=2)).size


@pytest.mark.parametrize("options", [{"action_card_counts": (2, 2, 2)}, {"action_card_counts": {"Penny Jar": 1}},
                                     {"action_card_counts": {"Move": 3}}, {"advanced_actions": True},
                                     {"actions_per_turn": 2}])
@pytest.mark.parametrize(("preset", "players"), [("two_player_draft", 2), ("three_player_draft", 3)])
def test_r_presets_draft_with_each_advanced_option_plays(preset, players, options):
    """R-PRESETS: every §6 option combines with the drafts on its own; random games keep every card in one place
    and the round total (stacks + discard pile + leftover draft cards) is ``round_total``."""
    rules = get_rules(preset, **options)
    audits = []
    for g in range(3):
        s = new_game(rules, players, root_key(4), g)
        rng = np.random.default_rng(g)

        def log(msg, s=s):
            if msg.startswith("round ") and " ends:" in msg:
                audits.append(sum(s.stack_values()) + leftover_value(s)
                              + sum(int(rules.deck.values[c]) for c in s.discard_pile))

        while s.to_act >= 0:
            m = legal_action_mask(s)
            apply_action(s, int(rng.choice(np.flatnonzero(m))), log, legal_mask=m)
            assert (s.card_counts() == s.deck_counts).all()
    assert audits and set(audits) == {rules.round_total(players)}


# -- an action card turned up on a draft pile ----------------------------------------------------------------


def test_r_2p_draft_swap_turned_up_exchanges_top_sets():
    """R-2P-DRAFT with §6: a Swap turned up after a take exchanges the two players' top sets at once, leaves the
    game, and the pile's next card is turned up; each player learns the set it receives."""
    s = _two([[JEWELS, PIGGY], [AUTO]], [[STOCKS, SWAP, JEWELS], [BANK], [STOCKS]],
             stacks=[[cset(PIGGY, PIGGY, PIGGY)], [cset(AUTO, GOLD, AUTO), cset(BANK, SILVER, BANK)]])
    act(s, "draft_take:Jewels+match")  # seat 1 holds no Jewels and no wild: not asked
    assert sets(s, 0) == [(PIGGY, [PIGGY, PIGGY]), (BANK, [SILVER, BANK])]
    assert sets(s, 1) == [(AUTO, [GOLD, AUTO]), (JEWELS, [JEWELS, JEWELS])]
    assert s.stacks[0][-1].known_by[0] & 1 and s.stacks[1][-1].known_by[0] & 2  # the hidden cards are learned
    assert s.removed.count(ID[SWAP]) == 2 and _tops(s) == (ID[STOCKS], ID[BANK], ID[STOCKS])
    assert s.current_player == 0 and s.actions_left == 1  # the take was the first of two actions


def test_r_2p_draft_swap_turned_up_nothing_without_two_sets():
    """R-2P-DRAFT with §6 (reading): a Swap turned up when one player has no set does nothing; it still leaves
    the game."""
    s = _two([[JEWELS, PIGGY], [AUTO]], [[STOCKS, SWAP, JEWELS], [BANK], [STOCKS]])
    act(s, "draft_take:Jewels+match")
    assert sets(s, 0) == [(JEWELS, [JEWELS, JEWELS])] and sets(s, 1) == []
    assert s.removed.count(ID[SWAP]) == 2 and _tops(s)[0] == ID[STOCKS]


def test_r_2p_draft_move_turned_up_opponent_chooses_for_the_mover():
    """R-2P-DRAFT with §6 (seed 000 line 21): for a Move turned up the opponent (seat 1, not on turn) chooses
    whether the mover's top set goes to the bottom or its bottom set to the top; then the next card is turned."""
    s = _two([[JEWELS, PIGGY], [AUTO]], [[STOCKS, MOVE, JEWELS], [BANK], [STOCKS]],
             stacks=[[cset(PIGGY, PIGGY, PIGGY), cset(BANK, BANK, BANK)], []])
    act(s, "draft_take:Jewels+match")
    assert s.phase == "draft_move" and s.to_act == 1 and s.draft_move == [1, 0]
    assert legal(s) == ["draft_move:top_to_bottom", "draft_move:bottom_to_top"]
    assert _tops(s)[0] == -1  # the pile is turned up once the Move is carried out
    obs = observe(s, 1)
    assert obs.draft_move == (1, 0) and obs.phase == "draft_move" and ID[MOVE] in obs.removed
    act(s, "draft_move:bottom_to_top")
    assert [a for a, _ in sets(s, 0)] == [BANK, JEWELS, PIGGY]
    assert s.draft_move == [] and _tops(s)[0] == ID[STOCKS]
    assert s.current_player == 0 and s.to_act == 0 and s.actions_left == 1  # the mover's second action


def test_r_2p_draft_move_turned_up_top_to_bottom():
    """R-2P-DRAFT with §6: ``top_to_bottom`` puts the mover's top set (the one just drafted) at the bottom."""
    s = _two([[JEWELS, PIGGY], [AUTO]], [[STOCKS, MOVE, JEWELS], [BANK], [STOCKS]],
             stacks=[[cset(PIGGY, PIGGY, PIGGY), cset(BANK, BANK, BANK)], []])
    act(s, "draft_take:Jewels+match", "draft_move:top_to_bottom")
    assert [a for a, _ in sets(s, 0)] == [JEWELS, PIGGY, BANK]


def test_r_2p_draft_move_turned_up_nothing_with_one_set():
    """R-2P-DRAFT with §6 (reading): with fewer than two sets in the moving stack nothing moves; no choice is
    asked and the Move leaves the game."""
    s = _two([[JEWELS, PIGGY], [AUTO]], [[STOCKS, MOVE, JEWELS], [BANK], [STOCKS]])
    act(s, "draft_take:Jewels+match")
    assert s.phase == "turn" and s.to_act == 0 and _tops(s)[0] == ID[STOCKS] and ID[MOVE] in s.removed


def test_r_2p_draft_two_action_cards_in_a_row_after_the_challenge():
    """R-2P-DRAFT with §6: the piles turn up after the immediate challenge; a Swap then a Move beneath it are
    both carried out, in order (the Move finds one set in the mover's stack: nothing moves, no choice), then the
    next card is turned. R-REFILL: the mover, then the challenger, draw at the end of the two-action turn."""
    s = _two([[JEWELS, PIGGY], [JEWELS, AUTO]], [[STOCKS, MOVE, SWAP, JEWELS], [BANK], [STOCKS]],
             stacks=[[cset(PIGGY, PIGGY, PIGGY)], [cset(AUTO, AUTO, AUTO), cset(BANK, BANK, BANK)]],
             draw=[GOLD, STOCKS, STOCKS, STOCKS, STOCKS, SILVER])
    act(s, "draft_take:Jewels+match", "draft_challenge:match", "give_up")
    # seat 1 won the drafted Jewels set (3 cards); the Swap exchanged it with seat 0's Piggy Bank set
    assert sets(s, 0) == [(JEWELS, [JEWELS, JEWELS, JEWELS])]
    assert [a for a, _ in sets(s, 1)] == [AUTO, BANK, PIGGY]
    assert s.phase == "turn" and s.to_act == 0 and s.actions_left == 1 and _tops(s)[0] == ID[STOCKS]
    assert s.removed.count(ID[SWAP]) == 2 and s.removed.count(ID[MOVE]) == 2
    act(s, "end_turn")
    assert hand(s, 0) == [PIGGY, STOCKS, STOCKS, STOCKS, STOCKS, GOLD] and hand(s, 1) == [AUTO, SILVER]


def test_r_2p_draft_swap_then_move_in_a_row():
    """R-2P-DRAFT with §6: a Swap and, beneath it, a Move turned up in a row: both act, then the next card."""
    s = _two([[JEWELS, PIGGY], [AUTO]], [[STOCKS, MOVE, SWAP, JEWELS], [BANK], [STOCKS]],
             stacks=[[cset(PIGGY, PIGGY, PIGGY)], [cset(AUTO, AUTO, AUTO)]])
    act(s, "draft_take:Jewels+match")
    assert sets(s, 0) == [(PIGGY, [PIGGY, PIGGY]), (AUTO, [AUTO, AUTO])]
    assert sets(s, 1) == [(JEWELS, [JEWELS, JEWELS])]
    assert s.draft_move == [1, 0] and _tops(s)[0] == -1
    act(s, "draft_move:top_to_bottom")
    assert [a for a, _ in sets(s, 0)] == [AUTO, PIGGY] and _tops(s)[0] == ID[STOCKS]
    assert sorted(s.removed).count(ID[SWAP]) == 2 and sorted(s.removed).count(ID[MOVE]) == 2


def test_r_adv_two_draft_challenger_draws_after_the_mover():
    """R-ADV-TWO with R-2P-DRAFT: the mover defending the immediate challenge is no challenge of the mover (it may
    still challenge that player); the neighbour who played in it draws after the mover at the end of the turn."""
    s = _two([[JEWELS, SILVER, PIGGY, AUTO], [JEWELS, AUTO]], [[STOCKS, JEWELS], [BANK], [STOCKS]],
             stacks=[[cset(PIGGY, PIGGY, PIGGY)], [cset(BANK, BANK, BANK), cset(AUTO, AUTO, AUTO)]],
             draw=[GOLD, STOCKS, STOCKS, STOCKS, STOCKS, SILVER])
    act(s, "draft_take:Jewels+match", "draft_challenge:match", "respond:Silver", "give_up")
    assert sets(s, 0)[-1] == (JEWELS, [JEWELS, JEWELS, JEWELS, SILVER])
    assert s.current_player == 0 and s.actions_left == 1 and s.no_challenge == -1 and s.turn_defenders == [1]
    assert "challenge:+1:match" in legal(s)
    act(s, "challenge:+1:match", "give_up")
    assert s.current_player == 1
    assert hand(s, 0) == [PIGGY, STOCKS, STOCKS, STOCKS, STOCKS, GOLD] and hand(s, 1) == [AUTO, SILVER]


def test_r_adv_two_draft_take_is_one_action():
    """R-ADV-TWO with R-2P-DRAFT: a draft take is one action; a second take may follow in the same turn and the
    mover draws at the end of the turn."""
    s = _two([[JEWELS, BANK, PIGGY], [AUTO]], [[STOCKS, JEWELS], [STOCKS, BANK], [STOCKS]],
             draw=[GOLD, SILVER, STOCKS, STOCKS, STOCKS])
    act(s, "draft_take:Jewels+match")
    assert s.to_act == 0 and s.actions_left == 1 and "end_turn" in legal(s) and hand(s, 0) == [PIGGY, BANK]
    act(s, "draft_take:Bank Account+match")
    assert s.current_player == 1 and [a for a, _ in sets(s, 0)] == [JEWELS, BANK]
    assert hand(s, 0) == [PIGGY, STOCKS, STOCKS, STOCKS, SILVER, GOLD]


# -- three players ------------------------------------------------------------------------------------------


def test_r_3p_draft_move_turned_up_mover_chooses_for_the_other_neighbour():
    """R-3P-DRAFT with §6 (seed 000 line 25): a Move turned up on pile 2 (between seats 2 and 0) after seat 0's
    take: seat 0 chooses, seat 2's stack moves; seat 1 is not beside the pile and is untouched."""
    s = _three([[BANK, PIGGY], [AUTO], [AUTO]], [[JEWELS], [STOCKS], [STOCKS, MOVE, BANK]],
               stacks=[[], [cset(PIGGY, PIGGY, PIGGY), cset(AUTO, AUTO, AUTO)],
                       [cset(JEWELS, JEWELS, JEWELS), cset(STOCKS, STOCKS, STOCKS), cset(AUTO, AUTO, AUTO)]])
    act(s, "draft_take:Bank Account+match")
    assert s.phase == "draft_move" and s.to_act == 0 and s.draft_move == [0, 2]
    act(s, "draft_move:top_to_bottom")
    assert [a for a, _ in sets(s, 2)] == [AUTO, JEWELS, STOCKS] and [a for a, _ in sets(s, 1)] == [PIGGY, AUTO]
    assert observe(s, 1).draft_tops[2] == ID[STOCKS]


def test_r_3p_draft_swap_turned_up_by_the_two_players_beside_the_pile():
    """R-3P-DRAFT with §6: a Swap turned up on pile 0 (between seats 0 and 1) after seat 0's take: seats 0 and 1
    exchange top sets; seat 2 is untouched."""
    s = _three([[JEWELS, PIGGY], [AUTO], [AUTO]], [[STOCKS, SWAP, JEWELS], [STOCKS], [BANK]],
               stacks=[[], [cset(PIGGY, PIGGY, PIGGY)], [cset(AUTO, AUTO, AUTO)]])
    act(s, "draft_take:Jewels+match")
    assert sets(s, 0) == [(PIGGY, [PIGGY, PIGGY])] and sets(s, 1) == [(JEWELS, [JEWELS, JEWELS])]
    assert sets(s, 2) == [(AUTO, [AUTO, AUTO])] and observe(s, 2).draft_tops[0] == ID[STOCKS]


# -- set-up ---------------------------------------------------------------------------------------------------


def test_r_2p_draft_action_card_turned_up_at_set_up_leaves_the_game():
    """R-2P-DRAFT with §6 (the analogue of R-ADV-SETUP): an action card turned up on a pile at set-up acts on
    nothing (no set yet), leaves the game, and the next card is turned up; one beneath a non-action top stays."""
    s = new_game(get_rules(TWO), 2, root_key(9), 0)
    s.removed = []
    cards = [ID[STOCKS]] * 8 + [ID[MOVE], ID[SWAP]] + [ID[BANK]] * 10 + [ID[SWAP]] + [ID[PIGGY]] * 9
    assert deal_piles(s, cards) == 30
    assert [len(p) for p in s.draft_piles] == [8, 10, 10] and s.removed == [ID[SWAP], ID[MOVE]]
    assert _tops(s) == (ID[STOCKS], ID[BANK], ID[PIGGY])


def test_r_2p_draft_no_pile_shows_an_action_card_after_set_up():
    """R-2P-DRAFT with §6: over 300 deals no draft pile top is an action card, every card is in one place, and
    the piles are short by at most the action cards set aside."""
    rules = get_rules(TWO)
    first_action = rules.deck.n_assets + rules.deck.n_wilds
    short_deals = 0
    for g in range(300):
        s = new_game(rules, 2, root_key(9), g)
        assert all(not p or p[-1] < first_action for p in s.draft_piles)
        short = sum(10 - len(p) for p in s.draft_piles)
        assert short <= len(s.removed) and (s.card_counts() == s.deck_counts).all()
        short_deals += short > 0
    assert short_deals >= 5


# -- Penny Jar (R-ADV-PENNY) ------------------------------------------------------------------------------------


def test_r_adv_penny_drafts_like_a_wild():
    """R-ADV-PENNY with R-2P-DRAFT: a Penny Jar in hand names a face-up asset type (``draft_wild``); a face-up
    Penny Jar is taken only with a played asset when no face-up card of that asset's type is there."""
    s = _two([[PENNY, PIGGY], [AUTO]], [[STOCKS, JEWELS], [BANK, PENNY], [STOCKS]])
    names = legal(s)
    assert "draft_wild:Penny Jar=Jewels" in names and "draft_take:Piggy Bank+pile Penny Jar" in names
    act(s, "draft_take:Piggy Bank+pile Penny Jar")
    assert sets(s, 0) == [(PIGGY, [PENNY, PIGGY])]


def test_r_adv_penny_opens_the_immediate_challenge_asking_for_two():
    """R-ADV-PENNY with R-2P-DRAFT: the immediate challenge opened with a Penny Jar asks the mover for two cards
    (two matching, two wilds, one of each) or another Penny Jar."""
    s = _two([[JEWELS, JEWELS, SILVER, PIGGY], [PENNY, AUTO]], [[STOCKS, JEWELS], [BANK], [STOCKS]])
    act(s, "draft_take:Jewels+match")
    assert legal(s) == ["draft_challenge:Penny Jar", "draft_decline"]
    act(s, "draft_challenge:Penny Jar")
    assert s.challenge.owed == 2 and legal(s) == ["give_up", "respond_two:match+Silver"]
    act(s, "respond_two:match+Silver")
    assert s.to_act == 1 and legal(s) == ["give_up"]
    act(s, "give_up")
    assert sets(s, 0) == [(JEWELS, [JEWELS, JEWELS, PENNY, JEWELS, SILVER])]


# -- positions --------------------------------------------------------------------------------------------------


def test_r_2p_draft_move_choice_position_round_trip():
    """JSON positions carry a Move choice waiting on a draft pile (chooser, target, the draw order after it)."""
    s = _two([[JEWELS, PIGGY], [AUTO]], [[STOCKS, MOVE, JEWELS], [BANK], [STOCKS]],
             stacks=[[cset(PIGGY, PIGGY, PIGGY), cset(BANK, BANK, BANK)], []])
    act(s, "draft_take:Jewels+match")
    t = loads(dumps(s))
    assert t.draft_move == [1, 0] and t.draft_then == [0] and t.draft_down == [True, False, False]
    assert legal(t) == legal(s)
    act(t, "draft_move:bottom_to_top")
    act(s, "draft_move:bottom_to_top")
    assert dumps(t) == dumps(s)
