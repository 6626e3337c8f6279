"""The built-in agents under the advanced rules (RULES.md §6, agents/classic/advanced.py): one position per new decision.

Each position is played by ``greedy``, ``heuristic`` and ``card_counter`` (the §6 layer is the same for all
three) and the chosen action is checked; ``random`` only ever picks legal actions (tests/test_batched_invariants.py).
"""

from __future__ import annotations

import numpy as np
import pytest
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
    state_of,
)

from agents.classic.registry import make_agent
from cya_sim.engine.classic.reference.legal import action_space
from cya_sim.engine.classic.reference.observation import observe

AGENTS = ["greedy", "heuristic", "card_counter"]


def _adv(**kw):
    args = {"players": 3, "preset": "advanced", "draw_pile": [STOCKS] * 8,
            "hands": [[PIGGY, BANK], [HOME], [AUTO]], "stacks": [[], [], []], "discard_pile": [AUTO]}
    args.update(kw)
    return state_of(**args)


def _choice(agent, state):
    a = make_agent(agent).act(observe(state, state.to_act), np.random.default_rng(0))
    assert observe(state, state.to_act).legal_action_mask[a]
    return action_space(state.rules).name(a)


@pytest.mark.parametrize("agent", AGENTS)
def test_agent_swaps_for_a_much_better_top_set(agent):
    """R-ADV-SWAP: with a Swap and an opponent's top set worth $10,000+ more than its own, swap with the best."""
    s = _adv(hands=[[SWAP, PIGGY, BANK], [HOME], [AUTO]],
             stacks=[[cset(PIGGY, PIGGY, PIGGY)], [cset(HOME, HOME, HOME)], [cset(BANK, BANK, BANK)]])
    assert _choice(agent, s) == "swap:+1"


@pytest.mark.parametrize("agent", AGENTS)
def test_agent_moves_a_valuable_top_set_to_the_bottom(agent):
    """R-ADV-MOVE: a top set worth >= $30,000 and more than the bottom set goes to the bottom (safe there)."""
    s = _adv(hands=[[MOVE, PIGGY, BANK], [HOME], [AUTO]],
             stacks=[[cset(PIGGY, PIGGY, PIGGY), cset(HOME, GOLD, HOME)], [], []])
    assert _choice(agent, s) == "move:+0:top_to_bottom"


@pytest.mark.parametrize("agent", AGENTS)
def test_agent_improves_when_no_set_can_be_laid(agent):
    """R-ADV-IMPROVE: holding a matching asset and no pair, improve the own top set."""
    s = _adv(hands=[[JEWELS, PIGGY, BANK], [HOME], [AUTO]], stacks=[[cset(JEWELS, JEWELS, JEWELS)], [], []])
    assert _choice(agent, s) == "improve"


@pytest.mark.parametrize("agent", AGENTS)
def test_agent_deep_challenges_a_valuable_second_set(agent):
    """R-ADV-DEEP: a set second from the top worth more than $40,000 and than every reachable top set is
    challenged, with the cheapest opening (two Silvers here, the only one)."""
    s = _adv(hands=[[SILVER, SILVER, PIGGY, BANK], [HOME], [AUTO]],
             stacks=[[cset(STOCKS, STOCKS, STOCKS)],
                     [cset(AUTO, AUTO, AUTO), cset(HOME, GOLD, HOME), cset(PIGGY, PIGGY, PIGGY)], []])
    assert _choice(agent, s) == "deep_challenge:+1:Silver+Silver"


@pytest.mark.parametrize("agent", AGENTS)
def test_agent_answers_a_penny_jar_with_the_cheapest_two(agent):
    """R-ADV-PENNY: owing two cards, pay the cheapest way (a matching asset and a Penny Jar here); give up when
    nothing pays."""
    s = _adv(hands=[[PENNY, PIGGY], [JEWELS, PENNY, GOLD, HOME], [AUTO]],
             stacks=[[cset(AUTO, AUTO, AUTO)], [cset(HOME, HOME, HOME), cset(JEWELS, JEWELS, JEWELS)], []])
    act(s, "challenge:+1:Penny Jar")
    assert _choice(agent, s) == "respond:Penny Jar"  # $1,000 beats match+Penny ($16,000) and the rest
    s = _adv(hands=[[PENNY, PIGGY], [HOME, PIGGY], [AUTO]],
             stacks=[[cset(AUTO, AUTO, AUTO)], [cset(HOME, HOME, HOME), cset(JEWELS, JEWELS, JEWELS)], []])
    act(s, "challenge:+1:Penny Jar")
    assert _choice(agent, s) == "give_up"


@pytest.mark.parametrize("agent", AGENTS)
def test_agent_ends_the_turn_instead_of_a_second_discard(agent):
    """R-ADV-TWO: after laying a set, with nothing useful left (the classic choice is a discard), end the turn."""
    s = _adv(hands=[[JEWELS, JEWELS, PIGGY, BANK], [HOME], [AUTO]])
    act(s, "pair_hand:Jewels+Jewels")
    assert _choice(agent, s) == "end_turn"


@pytest.mark.parametrize("agent", AGENTS)
def test_agent_opens_with_a_penny_jar_as_its_cheapest_wild(agent):
    """R-ADV-PENNY: with no matching asset, ``greedy`` opens a challenge with its cheapest wild, the Penny Jar."""
    s = _adv(hands=[[PENNY, SILVER], [HOME], [AUTO]], discard_pile=[GOLD],
             stacks=[[cset(STOCKS, STOCKS, STOCKS)], [cset(AUTO, AUTO, AUTO), cset(HOME, HOME, HOME)], []])
    if agent != "greedy":
        pytest.skip("the opening card is greedy's rule; heuristic/card_counter may weigh it otherwise")
    assert _choice(agent, s) == "challenge:+1:Penny Jar"
