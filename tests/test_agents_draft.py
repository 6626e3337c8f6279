"""Draft decisions of the built-in agents (R-2P-DRAFT, R-3P-DRAFT), one position per decision.

What each agent does with a draft pile is in agents/README.md; the compiled forms make the same
choices (tests/test_agents_compiled.py, tests/test_batched_differential.py).
"""

from __future__ import annotations

import numpy as np
from conftest import AUTO, BANK, GOLD, JEWELS, PIGGY, SILVER, STOCKS, act, state_of

from agents.classic.card_counter import CardCounterAgent
from agents.classic.greedy import GreedyAgent
from agents.classic.heuristic import HeuristicAgent
from agents.classic.oracle import OracleAgent
from agents.classic.random_agent import RandomAgent
from cya_sim.engine.classic.reference.legal import action_space, legal_action_mask
from cya_sim.engine.classic.reference.observation import observe

RNG = np.random.default_rng(0)
TWO = "two_player_draft"


def choice(agent, state) -> str:
    """Name of the action ``agent`` picks for the seat to act."""
    obs = observe(state, state.to_act)
    if getattr(agent, "sees_hidden", False):
        a = agent.act(obs, RNG, state)
    else:
        a = agent.act(obs, RNG)
    assert legal_action_mask(state)[a]
    return action_space(state.rules).name(int(a))


def _turn(hand0, piles, hand1=(AUTO,), draw=(STOCKS,) * 6):
    return state_of(players=2, preset=TWO, hands=[list(hand0), list(hand1)], stacks=[[], []],
                    draft_piles=piles, draw_pile=list(draw), discard_pile=[AUTO])


def test_greedy_takes_the_draft_worth_more_than_its_best_pair():
    """greedy: a take of two face-up Jewels with a hand Jewels ($45,000) beats the Piggy Bank pair ($10,000)."""
    s = _turn([JEWELS, PIGGY, PIGGY], [[JEWELS], [JEWELS], [STOCKS]])
    assert choice(GreedyAgent(), s) == "draft_take:Jewels+match"
    assert choice(HeuristicAgent(), s) == "draft_take:Jewels+match"  # default switches = greedy


def test_greedy_prefers_a_pair_worth_more_than_any_take():
    """greedy: the Jewels + Gold pair ($65,000) beats the Piggy Bank take ($10,000)."""
    s = _turn([JEWELS, GOLD, PIGGY], [[PIGGY], [STOCKS], [BANK]])
    assert choice(GreedyAgent(), s) == "pair_hand:Jewels+Gold"


def test_greedy_takes_a_face_up_wild_with_its_best_asset():
    """greedy: with no face-up match, an asset takes the face-up Gold ($65,000 with Jewels)."""
    s = _turn([JEWELS, PIGGY], [[GOLD], [STOCKS], [BANK]])
    assert choice(GreedyAgent(), s) == "draft_take:Jewels+pile Gold"


def _offer(hand1, drafted=JEWELS, hand0=(PIGGY, STOCKS)):
    """Seat 0 has drafted a set of ``drafted`` (hand card + two face-up cards); seat 1 is asked."""
    s = _turn([drafted, *hand0], [[STOCKS, drafted], [BANK, drafted], [STOCKS]], hand1=hand1)
    act(s, f"draft_take:{drafted}+match")
    assert s.phase == "draft_offer" and s.to_act == 1
    return s


def test_greedy_opens_the_immediate_challenge_when_it_can():
    """greedy: asked about a drafted set, it opens with a matching asset, else its cheapest wild."""
    assert choice(GreedyAgent(), _offer([JEWELS, GOLD])) == "draft_challenge:match"
    assert choice(GreedyAgent(), _offer([SILVER, GOLD])) == "draft_challenge:Silver"


def test_heuristic_backup_declines_with_one_playable_card():
    """heuristic(backup=true), TIP-BACKUP: with one playable card it lets the drafted set be; with two it opens."""
    assert choice(HeuristicAgent(backup=True), _offer([GOLD, AUTO])) == "draft_decline"
    assert choice(HeuristicAgent(backup=True), _offer([JEWELS, GOLD])) == "draft_challenge:match"


def test_card_counter_declines_a_cheap_drafted_set_it_would_likely_lose():
    """card_counter: a $15,000 Piggy Bank set, only a Gold to play ($50,000 at risk) against a drafter holding
    five cards: the expected gain is negative, so it declines."""
    s = _offer([GOLD, AUTO], drafted=PIGGY, hand0=(STOCKS, STOCKS, AUTO, AUTO, BANK))
    assert choice(CardCounterAgent(), s) == "draft_decline"


def test_card_counter_opens_a_valuable_drafted_set_it_likely_wins():
    """card_counter: a $45,000 Jewels set, two Jewels and a Silver to play against a drafter with 2 cards."""
    s = _offer([JEWELS, JEWELS, SILVER])
    assert choice(CardCounterAgent(), s) == "draft_challenge:match"


def test_oracle_opens_only_when_it_wins():
    """oracle (cheats): it opens the immediate challenge only when it holds more playable cards than the drafter."""
    assert choice(OracleAgent(cheats=True), _offer([JEWELS, SILVER], hand0=(PIGGY, STOCKS))) == \
        "draft_challenge:match"
    assert choice(OracleAgent(cheats=True), _offer([JEWELS], hand0=(GOLD, SILVER))) == "draft_decline"


def test_random_picks_among_draft_actions():
    """random: a uniform pick among the legal ids, draft takes and offer answers included."""
    s = _offer([JEWELS, GOLD])
    picks = {choice(RandomAgent(), s) for _ in range(60)}
    assert picks == {"draft_challenge:match", "draft_challenge:Gold", "draft_decline"}
