"""The baseline agents' documented decision rules: ``greedy`` (each rule) and ``random`` (legal, uniform)."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import (
    AUTO,
    BANK,
    CASH,
    GOLD,
    HOME,
    JEWELS,
    PIGGY,
    SILVER,
    STOCKS,
    act,
    action_id,
    cset,
    legal,
    state_of,
)

from agents import Agent
from agents.classic.greedy import GreedyAgent
from agents.classic.random_agent import RandomAgent
from agents.classic.registry import agent_names, make_agent
from cya_sim.engine.classic.reference import apply_action, new_game, play_game
from cya_sim.engine.classic.reference.legal import action_space
from cya_sim.engine.classic.reference.observation import observe
from cya_sim.game.rng import root_key, stream_generator
from cya_sim.game.rules import get_rules


def greedy_choice(state):
    """The name of greedy's action for the seat to act."""
    rng = np.random.default_rng(0)
    before = rng.bit_generator.state
    a = GreedyAgent().act(observe(state, state.to_act), rng)
    assert rng.bit_generator.state == before  # greedy never uses its rng
    return action_space(state.rules).name(a)


def _three(hand0, stacks=None, discard=(CASH,), **kw):
    return state_of(players=3, hands=[list(hand0), [PIGGY, PIGGY], [AUTO, AUTO]],
                    stacks=stacks or [[], [], []], discard_pile=list(discard), **kw)


# -- greedy rule 1: lay the highest-value set ---------------------------------------------------------


def test_greedy_lays_the_highest_value_set_from_hand():
    """greedy rule 1: among legal pairs it lays the one with the highest face value (Home + Gold, $70,000)."""
    s = _three([JEWELS, JEWELS, HOME, GOLD])
    assert greedy_choice(s) == "pair_hand:Home+Gold"


def test_greedy_lays_the_highest_value_set_with_the_discard():
    """greedy rule 1: a pair with the discard pile counts too (Home on the pile + Home, $40,000 > Jewels x2)."""
    s = _three([JEWELS, JEWELS, HOME, STOCKS], discard=(HOME,))
    assert greedy_choice(s) == "pair_discard:Home"


def test_greedy_pair_ties_go_to_the_lowest_action_id():
    """greedy rule 1: equal-value pairs go to the lowest action id (Piggy Bank before Baseball Cards...)."""
    s = _three([STOCKS, STOCKS, BANK, BANK])
    assert greedy_choice(s) == "pair_hand:Bank Account+Bank Account"


def test_greedy_pairs_before_challenging():
    """greedy rule 1 comes before rule 2: it lays a set even when a challenge is open."""
    s = _three([JEWELS, PIGGY, PIGGY], stacks=[[cset(BANK, BANK, BANK)], [cset(HOME, HOME, HOME),
                                                                         cset(JEWELS, JEWELS, JEWELS)], []])
    assert "challenge:+1:match" in legal(s)
    assert greedy_choice(s) == "pair_hand:Piggy Bank+Piggy Bank"


# -- greedy rule 2: challenge for the most valuable reachable set -------------------------------------


def test_greedy_challenges_the_most_valuable_reachable_set():
    """greedy rule 2: with no pair, it challenges the target whose top set has the highest value_seen (hidden
    cards at the asset's value: Jewels over a hidden Gold is seen as $30,000 < four Stocks, $40,000)."""
    stacks = [[cset(BANK, BANK, BANK)],
              [cset(HOME, HOME, HOME), cset(JEWELS, GOLD, JEWELS)],
              [cset(AUTO, AUTO, AUTO), cset(STOCKS, STOCKS, STOCKS, STOCKS, STOCKS)]]
    s = _three([JEWELS, STOCKS, PIGGY, BANK], stacks=stacks)
    assert legal(s)[:2] == ["challenge:+1:match", "challenge:+2:match"]
    assert greedy_choice(s) == "challenge:+2:match"


def test_greedy_challenge_ties_go_to_the_nearest_seat():
    """greedy rule 2: equal value_seen goes to the lowest offset (lowest action id)."""
    stacks = [[cset(BANK, BANK, BANK)],
              [cset(HOME, HOME, HOME), cset(STOCKS, STOCKS, STOCKS)],
              [cset(AUTO, AUTO, AUTO), cset(STOCKS, STOCKS, STOCKS)]]
    s = _three([JEWELS, STOCKS, PIGGY, BANK], stacks=stacks)
    assert greedy_choice(s) == "challenge:+1:match"


def test_greedy_challenge_opens_with_its_cheapest_wild_without_a_match():
    """greedy rule 2: without a matching asset it opens with its lowest-value wild (Silver before Gold)."""
    stacks = [[cset(BANK, BANK, BANK)], [cset(HOME, HOME, HOME), cset(JEWELS, JEWELS, JEWELS)], []]
    s = _three([GOLD, SILVER], stacks=stacks, discard=(SILVER,))
    assert legal(s)[:2] == ["challenge:+1:Silver", "challenge:+1:Gold"]
    assert greedy_choice(s) == "challenge:+1:Silver"


# -- greedy rule 3: discard the lowest-value card, keeping wilds ---------------------------------------


def test_greedy_discards_its_cheapest_asset_keeping_wilds():
    """greedy rule 3: with no pair and no challenge, it discards its cheapest asset (ties: lowest id)."""
    s = _three([STOCKS, BANK, CASH], discard=(HOME,))
    assert legal(s) == ["discard:Cash Under the Mattress", "discard:Bank Account", "discard:Stocks"]
    assert greedy_choice(s) == "discard:Cash Under the Mattress"


def test_greedy_discards_cheapest_wild_only_when_holding_only_wilds():
    """greedy rule 3: holding nothing but wilds (and no challenge), it discards its cheapest wild."""
    s = _three([GOLD, SILVER, GOLD], discard=(SILVER,))
    assert greedy_choice(s) == "discard:Silver"
    s = _three([GOLD, GOLD], discard=(SILVER,))
    assert greedy_choice(s) == "discard:Gold"


# -- greedy in a challenge: answer while it can ---------------------------------------------------------


def _challenged(defender_hand):
    s = state_of(players=2, hands=[[JEWELS, JEWELS, PIGGY], list(defender_hand)],
                 stacks=[[cset(BANK, BANK, BANK)], [cset(HOME, HOME, HOME), cset(JEWELS, GOLD, JEWELS)]])
    act(s, "challenge:+1:match")
    return s


@pytest.mark.parametrize("hand, choice", [
    ([GOLD, SILVER, JEWELS, PIGGY], "respond:match"),
    ([GOLD, SILVER, PIGGY], "respond:Silver"),
    ([GOLD, PIGGY], "respond:Gold"),
    ([PIGGY, HOME], "give_up"),
])
def test_greedy_defends_while_it_can(hand, choice):
    """greedy in a challenge: a matching asset first, else its cheapest wild; it gives up only with neither."""
    assert greedy_choice(_challenged(hand)) == choice


def test_greedy_challenger_answers_while_it_can():
    """greedy in a challenge, as the challenger: it answers with a matching asset while it has one."""
    s = _challenged([SILVER, PIGGY])
    act(s, "respond:Silver")
    assert s.to_act == 0 and greedy_choice(s) == "respond:match"
    act(s, "respond:match", "give_up")
    assert s.challenge is None


def test_greedy_plays_only_legal_actions_and_is_deterministic():
    """greedy: full games end without an illegal action; the same seed gives the same game."""
    rules = get_rules("classic")
    a = play_game(rules, [make_agent("greedy") for _ in range(4)], root_key(3), 0, record_actions=True)
    b = play_game(rules, [make_agent("greedy") for _ in range(4)], root_key(3), 0, record_actions=True)
    assert a == b and max(a.totals) >= 1_000_000


# -- random -----------------------------------------------------------------------------------------


def test_random_picks_only_legal_actions_uniformly_by_its_documented_draw():
    """random: the action is legal, and it is exactly legal_ids[floor(u * n_legal)] for u = rng.random()."""
    rules = get_rules("guide")
    key = root_key(8)
    s = new_game(rules, 4, key)
    agent = RandomAgent()
    rngs = [stream_generator(key, 0, 1 + i) for i in range(4)]
    twins = [stream_generator(key, 0, 1 + i) for i in range(4)]
    n = 0
    while s.to_act >= 0:
        seat = s.to_act
        obs = observe(s, seat)
        a = agent.act(obs, rngs[seat])
        legal_ids = np.flatnonzero(obs.legal_action_mask)
        assert obs.legal_action_mask[a]
        assert a == legal_ids[int(twins[seat].random() * len(legal_ids))]
        apply_action(s, a)
        n += 1
    assert n > 100


def test_random_is_roughly_uniform():
    """random: over many draws each of 2 legal actions is chosen about half of the time."""
    s = _three([GOLD, SILVER, GOLD], discard=(SILVER,))
    obs = observe(s, 0)
    assert legal(s) == ["discard:Silver", "discard:Gold"]
    rng = np.random.default_rng(1)
    picks = [RandomAgent().act(obs, rng) for _ in range(4000)]
    frac = picks.count(action_id(s, "discard:Silver")) / 4000
    assert 0.47 < frac < 0.53


def test_agent_registry_and_interface():
    """Agents: ``random`` and ``greedy`` are registered and satisfy the Agent interface; unknown names are
    refused listing the registered ones."""
    assert {"random", "greedy"} <= set(agent_names())
    for name in ("random", "greedy"):
        ag = make_agent(name)
        assert isinstance(ag, Agent) and ag.name == name
    with pytest.raises(ValueError, match=r"unknown agent 'smart'; choose one of: random, greedy"):
        make_agent("smart")
