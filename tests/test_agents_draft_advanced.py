"""The built-in agents on the drafts with the advanced rules (§7 with §6): one position per new decision.

The new decision is the choice for a Move turned up on a draft pile (``draft_move``, a seat that may not be
on turn; agents/classic/advanced.py :func:`~agents.classic.advanced.draft_move_choice`, the same for ``greedy``, ``heuristic``,
``card_counter`` and ``oracle``); a Penny Jar in the immediate challenge goes through the §6 layer's rules.
The compiled forms make the same choices (tests/test_agents_compiled.py, tests/test_batched_differential.py).
"""

from __future__ import annotations

import numpy as np
import pytest
from conftest import AUTO, BANK, GOLD, HOME, JEWELS, MOVE, PENNY, PIGGY, SILVER, STOCKS, act, cset, state_of

from agents.classic.compiled import GreedyBatchAgent
from agents.classic.registry import make_agent
from cya_sim.engine.classic.batch_observation import observe as batch_observe
from cya_sim.engine.classic.reference.legal import action_space, legal_action_mask
from cya_sim.engine.classic.reference.observation import observe
from cya_sim.search.classic.determinize import TEMPLATE, Determinizer
from cya_sim.search.tree import rng_state

AGENTS = ["greedy", "heuristic", "card_counter", "oracle(cheats=true)"]
TWO = "two_player_draft_advanced"
THREE = "three_player_draft_advanced"


def _choice(agent, state) -> str:
    obs = observe(state, state.to_act)
    ag = make_agent(agent)
    if getattr(ag, "sees_hidden", False):
        a = ag.act(obs, np.random.default_rng(0), state)
    else:
        a = ag.act(obs, np.random.default_rng(0))
    assert legal_action_mask(state)[a]
    return action_space(state.rules).name(int(a))


def _two_move(stack0):
    """Seat 0 drafts Jewels from pile 0; a Move beneath is turned up; seat 1 chooses for seat 0's stack."""
    s = state_of(players=2, preset=TWO, hands=[[JEWELS, PIGGY], [AUTO]], stacks=[stack0, []],
                 draft_piles=[[STOCKS, MOVE, JEWELS], [BANK], [STOCKS]], draw_pile=[STOCKS] * 6)
    act(s, "draft_take:Jewels+match")
    assert s.phase == "draft_move" and s.to_act == 1
    return s


@pytest.mark.parametrize("agent", AGENTS)
def test_agent_move_turned_up_brings_the_protected_bottom_set_into_play(agent):
    """2 players: the opponent's bottom set ($30,000, never stealable) comes on top and its drafted top set
    ($30,000) stays reachable: ``bottom_to_top`` (second set $10,000 < top + bottom)."""
    s = _two_move([cset(AUTO, AUTO, AUTO), cset(PIGGY, PIGGY, PIGGY)])
    assert _choice(agent, s) == "draft_move:bottom_to_top"


@pytest.mark.parametrize("agent", AGENTS)
def test_agent_move_turned_up_exposes_a_rich_second_set(agent):
    """2 players: the opponent's set second from the top ($95,000; $60,000 as seen, its Gold hidden) is worth more than its top ($30,000) and
    bottom ($10,000) sets together: ``top_to_bottom`` puts it on top, within reach of a challenge."""
    s = _two_move([cset(PIGGY, PIGGY, PIGGY), cset(AUTO, AUTO, GOLD, AUTO)])
    assert _choice(agent, s) == "draft_move:top_to_bottom"


@pytest.mark.parametrize("agent", AGENTS)
def test_agent_move_turned_up_three_players_mover_chooses(agent):
    """3 players: the mover (seat 0) chooses for the other player beside the pile (seat 2)."""
    s = state_of(players=3, preset=THREE, hands=[[BANK, PIGGY], [AUTO], [AUTO]],
                 stacks=[[], [], [cset(HOME, HOME, HOME), cset(PIGGY, PIGGY, PIGGY), cset(STOCKS, STOCKS, STOCKS)]],
                 draft_piles=[[JEWELS], [STOCKS], [STOCKS, MOVE, BANK]], draw_pile=[STOCKS] * 6)
    act(s, "draft_take:Bank Account+match")
    assert s.phase == "draft_move" and s.to_act == 0 and s.draft_move == [0, 2]
    assert _choice(agent, s) == "draft_move:bottom_to_top"


def test_random_move_turned_up_picks_either_direction():
    """random: a uniform pick between the two directions."""
    s = _two_move([cset(AUTO, AUTO, AUTO), cset(PIGGY, PIGGY, PIGGY)])
    ag = make_agent("random")
    rng = np.random.default_rng(3)
    picks = {action_space(s.rules).name(int(ag.act(observe(s, 1), rng))) for _ in range(40)}
    assert picks == {"draft_move:top_to_bottom", "draft_move:bottom_to_top"}


def test_greedy_batch_agent_move_turned_up_same_choice():
    """The batch form of greedy (ObservationBatch phase 3, here on a determinization of seat 1's observation,
    which keeps the waiting Move) makes the same choice."""
    for stack0, want in (([cset(AUTO, AUTO, AUTO), cset(PIGGY, PIGGY, PIGGY)], "draft_move:bottom_to_top"),
                         ([cset(PIGGY, PIGGY, PIGGY), cset(AUTO, AUTO, GOLD, AUTO)], "draft_move:top_to_bottom")):
        s = _two_move(stack0)
        det = Determinizer(observe(s, 1))
        det.state.rows[TEMPLATE] = det.sample(rng_state(1), 1)[0]["flat"]
        ob = batch_observe(det.state)
        assert ob.phase[TEMPLATE] == 3 and ob.draft_move_target[TEMPLATE] == 0 and ob.seat[TEMPLATE] == 1
        a = int(GreedyBatchAgent().act(ob)[TEMPLATE])
        assert action_space(s.rules).name(a) == want


@pytest.mark.parametrize("agent", ["greedy", "heuristic"])
def test_agent_opens_the_immediate_challenge_with_a_penny_jar(agent):
    """R-ADV-PENNY with R-2P-DRAFT: greedy's cheapest wild is the Penny Jar ($1,000); opening with it the drafter
    owes two cards."""
    s = state_of(players=2, preset=TWO, hands=[[JEWELS, PIGGY], [PENNY, GOLD]], stacks=[[], []],
                 draft_piles=[[STOCKS, JEWELS], [BANK], [STOCKS]], draw_pile=[STOCKS] * 6)
    act(s, "draft_take:Jewels+match")
    assert s.phase == "draft_offer" and s.to_act == 1
    assert _choice(agent, s) == "draft_challenge:Penny Jar"


@pytest.mark.parametrize("agent", ["greedy", "heuristic", "card_counter"])
def test_agent_answers_a_penny_jar_in_the_immediate_challenge_the_cheapest_way(agent):
    """R-ADV-PENNY with R-2P-DRAFT: the drafter, owing two cards after a Penny Jar, pays the cheapest legal
    way: its own Penny Jar ($1,000) rather than two Jewels or a Jewels and a Silver."""
    s = state_of(players=2, preset=TWO, hands=[[JEWELS, JEWELS, JEWELS, SILVER, PENNY], [PENNY, AUTO]],
                 stacks=[[], []], draft_piles=[[STOCKS, JEWELS], [BANK], [STOCKS]], draw_pile=[STOCKS] * 6)
    act(s, "draft_take:Jewels+match", "draft_challenge:Penny Jar")
    assert s.challenge.owed == 2 and s.to_act == 0
    assert _choice(agent, s) == "respond:Penny Jar"
