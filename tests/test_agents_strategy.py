"""Decision rules of the strategy agents (issue: strategy agents), one position per rule.

Each test builds a JSON position where the expected action is known and asserts
exactly that action for the seat to act.
"""

from __future__ import annotations

import numpy as np
import pytest
from conftest import (
    AUTO,
    BANK,
    COINS,
    GOLD,
    HOME,
    JEWELS,
    PIGGY,
    SILVER,
    STAMPS,
    STOCKS,
    cset,
    state_of,
)

from agents.classic.card_counter import CardCounterAgent
from agents.classic.greedy import GreedyAgent
from agents.classic.heuristic import HeuristicAgent, HeuristicConfig, WildHoarderAgent
from agents.classic.oracle import OracleAgent
from cya_sim.engine.classic.reference.legal import action_space
from cya_sim.engine.classic.reference.observation import observe

RNG = np.random.default_rng(0)


def choice(agent, state) -> str:
    """Name of the action ``agent`` picks for the seat to act."""
    obs = observe(state, state.to_act)
    if getattr(agent, "sees_hidden", False):
        a = agent.act(obs, RNG, state)
    else:
        a = agent.act(obs, RNG)
    assert obs.legal_action_mask[a]
    return action_space(state.rules).name(a)


def four(hands, stacks=None, discard=None, draw=None, **kw):
    return state_of(players=4, hands=hands, stacks=stacks or [[], [], [], []],
                    discard_pile=discard or [], draw_pile=draw, **kw)


OPPONENT_HANDS = [[STAMPS, STAMPS, BANK, BANK], [STAMPS, COINS, COINS, BANK], [STAMPS, AUTO, AUTO, BANK]]


# -- heuristic switches (TIPS.md) -----------------------------------------------------------------
def test_heuristic_defaults_lay_the_highest_value_set_like_greedy():
    s = four([[JEWELS, JEWELS, GOLD, PIGGY]] + OPPONENT_HANDS, discard=[PIGGY], draw=[HOME] * 4)
    assert choice(HeuristicAgent(), s) == choice(GreedyAgent(), s) == "pair_hand:Jewels+Gold"


def test_tip_wild_use_no_wilds_in_sets():
    s = four([[JEWELS, JEWELS, GOLD, PIGGY]] + OPPONENT_HANDS, discard=[PIGGY], draw=[HOME] * 4)
    assert choice(HeuristicAgent(wild_for_sets=False), s) == "pair_hand:Jewels+Jewels"


def test_wild_hoarder_keeps_its_wild_out_of_sets():
    s = four([[JEWELS, JEWELS, GOLD, PIGGY]] + OPPONENT_HANDS, discard=[PIGGY], draw=[HOME] * 4)
    assert choice(WildHoarderAgent(), s) == "pair_hand:Jewels+Jewels"


def test_tip_save_wild_keeps_the_last_wild_while_the_draw_pile_lasts():
    hands = [[JEWELS, GOLD, PIGGY, STOCKS]] + OPPONENT_HANDS
    s = four(hands, discard=[STAMPS], draw=[HOME] * 4)
    assert choice(HeuristicAgent(), s) == "pair_hand:Jewels+Gold"
    assert choice(HeuristicAgent(save_wild=True), s) == "discard:Piggy Bank"
    empty = four(hands, discard=[STAMPS], rest="discard")
    assert empty.draw_pile == []
    assert choice(HeuristicAgent(save_wild=True), empty) == "pair_hand:Jewels+Gold"


def test_tip_fast_first_off_waits_for_a_valuable_first_set():
    s = four([[PIGGY, PIGGY, STOCKS, JEWELS]] + OPPONENT_HANDS, discard=[HOME], draw=[HOME] * 4)
    assert choice(HeuristicAgent(), s) == "pair_hand:Piggy Bank+Piggy Bank"
    assert choice(HeuristicAgent(fast_first=False), s) == "discard:Piggy Bank"
    assert choice(HeuristicAgent(fast_first=False, first_set_min=10_000), s) == "pair_hand:Piggy Bank+Piggy Bank"


def test_tip_wild_first_puts_the_wild_in_the_first_set():
    s = four([[HOME, HOME, SILVER, PIGGY]] + OPPONENT_HANDS, discard=[STOCKS], draw=[JEWELS] * 4)
    assert choice(HeuristicAgent(wild_for_sets=False), s) == "pair_hand:Home+Home"
    assert choice(HeuristicAgent(wild_for_sets=False, wild_first=True), s) == "pair_hand:Home+Silver"


def _challenge_position(my_hand, target_top=JEWELS, rest="discard"):
    """Seat 0 (one set) may challenge seat 1's top set; with rest="draw" the discard pile is empty."""
    stacks = [[cset(STOCKS, STOCKS, STOCKS)], [cset(BANK, BANK, BANK), cset(target_top, target_top, target_top)],
              [], []]
    if rest == "draw":
        return four([my_hand] + OPPONENT_HANDS, stacks=stacks, rest="draw")
    return four([my_hand] + OPPONENT_HANDS, stacks=stacks, discard=[HOME], draw=[HOME] * 4)


def test_tip_backup_needs_a_second_card_to_challenge():
    s = _challenge_position([JEWELS, PIGGY, STAMPS, COINS])
    assert choice(HeuristicAgent(), s) == "challenge:+1:match"
    assert choice(HeuristicAgent(backup=True), s) == "discard:Piggy Bank"
    s2 = _challenge_position([JEWELS, SILVER, PIGGY, COINS], rest="draw")
    # (no wilds in sets, so the Silver is kept for the challenge)
    assert choice(HeuristicAgent(backup=True, wild_for_sets=False), s2) == "challenge:+1:match"


def test_tip_wild_use_no_wilds_in_challenges():
    s = _challenge_position([SILVER, PIGGY, STAMPS, COINS], rest="draw")
    assert choice(HeuristicAgent(wild_for_sets=False), s) == "challenge:+1:Silver"
    assert choice(HeuristicAgent(wild_for_sets=False, wild_for_challenges=False), s) == "discard:Piggy Bank"


def test_pair_first_off_challenges_for_a_bigger_set_and_tip_cover_lays_first():
    s = _challenge_position([JEWELS, PIGGY, PIGGY, COINS])  # Piggy pair ($10,000) vs Jewels set ($30,000)
    assert choice(HeuristicAgent(), s) == "pair_hand:Piggy Bank+Piggy Bank"
    assert choice(HeuristicAgent(pair_first=False), s) == "challenge:+1:match"
    # own top set Stocks pair = $20,000: TIP-COVER at $20,000 lays first
    assert choice(HeuristicAgent(pair_first=False, cover=True, cover_min=20_000), s) == "pair_hand:Piggy Bank+Piggy Bank"


def _defence_position(defender_hand):
    stacks = [[cset(STOCKS, STOCKS, STOCKS)], [cset(BANK, BANK, BANK), cset(PIGGY, PIGGY, PIGGY)], [], []]
    challenge = {"challenger": 0, "defender": 1, "cards": [PIGGY], "players": [0], "to_act": 1}
    return four([[COINS, COINS, STAMPS], defender_hand] + OPPONENT_HANDS[1:], stacks=stacks,
                discard=[HOME], draw=[HOME] * 4, challenge=challenge, current_player=0)


def test_tip_let_go_gives_up_a_cheap_set_and_keeps_the_card():
    s = _defence_position([PIGGY, SILVER, JEWELS, JEWELS])
    assert choice(HeuristicAgent(), s) == "respond:match"
    assert choice(HeuristicAgent(let_go=True), s) == "give_up"  # $10,000 + $5,000 < $20,000
    assert choice(HeuristicAgent(let_go=True, let_go_max=15_000), s) == "respond:match"


def test_tip_wild_use_no_wilds_in_defence():
    s = _defence_position([SILVER, JEWELS, JEWELS, STAMPS])
    assert choice(HeuristicAgent(), s) == "respond:Silver"
    assert choice(HeuristicAgent(wild_for_defence=False), s) == "give_up"


def test_tip_count_prefers_the_set_nobody_can_steal():
    # every other Piggy Bank and every wild is in the discard pile (seen); the
    # eight other Jewels are in the opponents' hands (unseen), who all have sets
    opp = [[JEWELS, JEWELS, JEWELS, STAMPS], [JEWELS, JEWELS, JEWELS, COINS], [JEWELS, JEWELS, BANK, BANK]]
    stacks = [[cset(STOCKS, STOCKS, STOCKS)], [cset(STOCKS, STOCKS, STOCKS)],
              [cset(STOCKS, STOCKS, STOCKS)], [cset(AUTO, AUTO, AUTO)]]
    s = four([[JEWELS, JEWELS, PIGGY, PIGGY]] + opp, stacks=stacks, discard=[HOME])
    assert choice(HeuristicAgent(), s) == "pair_hand:Jewels+Jewels"
    assert choice(HeuristicAgent(count=True), s) == "pair_hand:Piggy Bank+Piggy Bank"


def test_heuristic_config_refuses_bad_values():
    with pytest.raises(ValueError, match="'backup'"):
        HeuristicConfig(backup=1)
    with pytest.raises(ValueError, match="'cover_min'"):
        HeuristicConfig(cover_min=-5)


# -- card_counter -----------------------------------------------------------------------------------
def test_card_counter_challenges_when_no_answer_is_left_unseen():
    # every Jewels and every wild but the challenger's are seen: the defender cannot answer
    s = _challenge_position([JEWELS, PIGGY, STAMPS, COINS])
    assert choice(CardCounterAgent(), s) == "challenge:+1:match"


def test_card_counter_does_not_challenge_a_defender_who_surely_answers():
    # the target's top set is cheap Piggy Banks; every unseen card is a wild or a Piggy Bank
    opp = [[SILVER, SILVER, GOLD, PIGGY], [SILVER, GOLD, PIGGY, PIGGY], [SILVER, SILVER, GOLD, GOLD]]
    stacks = [[cset(STOCKS, STOCKS, STOCKS)], [cset(BANK, BANK, BANK), cset(PIGGY, PIGGY, PIGGY)], [], []]
    s = four([[PIGGY, STAMPS, COINS, AUTO]] + opp, stacks=stacks, discard=[HOME])
    assert choice(GreedyAgent(), s) == "challenge:+1:match"
    assert choice(CardCounterAgent(), s) == "discard:Piggy Bank"


# -- oracle (CHEATS) --------------------------------------------------------------------------------
def test_oracle_challenges_only_what_it_surely_wins():
    s = _challenge_position([JEWELS, PIGGY, STAMPS, COINS])  # the defender (seat 1) holds no Jewels or wild
    assert choice(OracleAgent(cheats=True), s) == "challenge:+1:match"
    opp = [[JEWELS, STAMPS, BANK, BANK]] + OPPONENT_HANDS[1:]
    stacks = [[cset(STOCKS, STOCKS, STOCKS)], [cset(BANK, BANK, BANK), cset(JEWELS, JEWELS, JEWELS)], [], []]
    s2 = four([[JEWELS, PIGGY, STAMPS, COINS]] + opp, stacks=stacks, discard=[HOME], draw=[HOME] * 4)
    assert choice(GreedyAgent(), s2) == "challenge:+1:match"
    assert choice(OracleAgent(cheats=True), s2) == "discard:Piggy Bank"


def test_oracle_must_be_labelled_as_cheating():
    with pytest.raises(ValueError, match=r"oracle\(cheats=true\)"):
        OracleAgent()


def test_oracle_refuses_to_play_blind():
    s = _challenge_position([JEWELS, PIGGY, STAMPS, COINS])
    with pytest.raises(ValueError, match="needs the full game state"):
        OracleAgent(cheats=True).act(observe(s, 0), RNG)


def _alternate(first, second, players):
    """One new agent per seat: ``first`` on even seats, ``second`` on odd ones."""
    return [first() if s % 2 == 0 else second() for s in range(players)]


@pytest.mark.parametrize("preset", ["classic", "guide", "basic"])
def test_heuristic_with_default_switches_is_greedy_game_by_game(preset):
    """``greedy`` is expressible as ``heuristic()``: the same actions in whole games."""
    from agents.classic.random_agent import RandomAgent
    from cya_sim.engine.classic.reference import play_game
    from cya_sim.game.rng import root_key
    from cya_sim.game.rules import get_rules

    rules = get_rules(preset)
    for players in range(2, 7):
        for g in range(2):
            a = play_game(rules, _alternate(GreedyAgent, RandomAgent, players), root_key(5), g, record_actions=True)
            b = play_game(rules, _alternate(HeuristicAgent, RandomAgent, players), root_key(5), g, record_actions=True)
            assert a.actions == b.actions
            assert a.totals == b.totals


def test_card_counter_lays_the_set_nobody_can_steal():
    opp = [[JEWELS, JEWELS, JEWELS, STAMPS], [JEWELS, JEWELS, JEWELS, COINS], [JEWELS, JEWELS, BANK, BANK]]
    stacks = [[cset(STOCKS, STOCKS, STOCKS)], [cset(STOCKS, STOCKS, STOCKS)],
              [cset(STOCKS, STOCKS, STOCKS)], [cset(AUTO, AUTO, AUTO)]]
    s = four([[JEWELS, JEWELS, PIGGY, PIGGY]] + opp, stacks=stacks, discard=[HOME])
    assert choice(CardCounterAgent(), s) == "pair_hand:Piggy Bank+Piggy Bank"


def test_card_counter_defends_when_the_challenger_cannot_answer_again():
    # every other Piggy Bank and every wild is seen: the challenger holds none
    s = _defence_position([PIGGY, SILVER, JEWELS, JEWELS])
    assert choice(CardCounterAgent(), s) == "respond:match"


def test_card_counter_lets_go_when_the_challenger_surely_answers():
    # the unseen cards are nearly all wilds and Piggy Banks: answering would only lose the card
    stacks = [[cset(STOCKS, STOCKS, STOCKS)], [cset(BANK, BANK, BANK), cset(PIGGY, PIGGY, PIGGY)], [], []]
    challenge = {"challenger": 0, "defender": 1, "cards": [PIGGY], "players": [0], "to_act": 1}
    hands = [[SILVER, SILVER, GOLD], [PIGGY, JEWELS, JEWELS, STAMPS],
             [SILVER, SILVER, GOLD, GOLD], [SILVER, SILVER, GOLD, PIGGY]]
    s = four(hands, stacks=stacks, discard=[HOME], draw=[HOME] * 4, challenge=challenge, current_player=0)
    assert choice(GreedyAgent(), s) == "respond:match"
    assert choice(CardCounterAgent(), s) == "give_up"
