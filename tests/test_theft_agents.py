"""The theft game's agents (agents/theft/registry.py), from hand-built positions (RULES.md §9)."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from theft_helpers import asset, tstate

from agents.theft.registry import make_theft_agent, theft_agent_names
from cya_sim.engine.theft.legal import action_space
from cya_sim.engine.theft.observation import observe
from cya_sim.game.theft.state import PendingTheft


def choice(spec: str, state, rng=None) -> str:
    """Name of the action agent ``spec`` picks for the seat to act."""
    obs = observe(state, state.to_act)
    return action_space(state.rules).name(make_theft_agent(spec).act(obs, rng or np.random.default_rng(0)))


def test_registry_names_and_unknown_refused():
    assert theft_agent_names() == ("random", "greedy", "defender", "ismcts", "pimc")
    with pytest.raises(ValueError, match=r"unknown agent 'mcts'; choose one of: random, greedy, defender, ismcts, "
                                         r"pimc"):
        make_theft_agent("mcts")
    with pytest.raises(ValueError, match=r"agent 'greedy\(depth=2\)'"):
        make_theft_agent("greedy(depth=2)")


def test_random_uniform_over_legal_actions():
    """random: every legal action, about equally often; never an illegal one."""
    s = tstate(players=2, hands=[["4", "4", "Theft"], []], assets=[[], [asset("5", "5")]])
    obs = observe(s, 0)
    agent = make_theft_agent("random")
    rng = np.random.default_rng(1)
    counts = Counter(int(agent.act(obs, rng)) for _ in range(900))
    assert set(counts) == set(np.flatnonzero(obs.legal_action_mask).tolist())  # build, theft, end_turn
    assert all(240 <= n <= 360 for n in counts.values()), counts


def test_greedy_builds_the_best_pair_first():
    """greedy: the pair worth the most points; on equal points the one without gold."""
    s = tstate(players=2, hands=[["3", "3", "9", "9", "Gold"], []])
    assert choice("greedy", s) == "build:9+9"
    s = tstate(players=2, hands=[["5", "5", "9", "Gold"], []])
    assert choice("greedy", s) == "build:5+5"  # 10 points each: the pair without gold (gold cancels gold thefts)
    s = tstate(players=2, hands=[["4", "4", "3", "Gold"], []])
    assert choice("greedy", s) == "build:4+4"  # 8 points against 4+... 3+Gold = 4


def test_greedy_steals_the_most_valuable_asset():
    """greedy: after building, a theft on the asset worth the most points (hidden cards at their mean)."""
    s = tstate(players=3, hands=[["1", "Theft", "Gold Theft"], [], []],
               assets=[[], [asset("6", "6"), asset("9", "8")], [asset("2", "7", known_by=[[2], [0, 1, 2]])]])
    assert choice("greedy", s) == "theft:Theft:+1:#1"  # 17 points, plain theft before the gold one
    kw = {"players": 3, "hands": [["Gold Theft"], [], []],
          "assets": [[], [asset("6", "6")], [asset("2", "7", known_by=[[2], [0, 1, 2]])]]}
    s = tstate(rest="draw", **kw)
    assert choice("greedy", s) == "theft:Gold Theft:+2:#0"  # 7 + about 5.5 for the hidden card > 12
    s = tstate(rest="discard", **kw)  # every other card seen in the discard pile: the hidden card is the 2
    assert choice("greedy", s) == "theft:Gold Theft:+1:#0"  # 12 > 7 + 2


def test_greedy_defends_with_the_cheapest_cancel():
    """greedy: the cheapest cancel (a 2+2 pair, 4 points) before an asset; the targeted asset itself when
    nothing is cheaper; the theft passes only when there is no cancel at all."""
    def defend(hand_cards, assets, slot, **opts):
        st = tstate(players=2, hands=[[], hand_cards], assets=[[], assets], phase="defence",
                    theft={"thief": 0, "target": 1, "slot": slot, "card": "Theft"}, options=opts)
        assert isinstance(st.theft, PendingTheft)
        return choice("greedy", st)

    assert defend(["2", "2"], [asset("5", "5"), asset("9", "9")], 1) == "cancel_pair:2+2"
    assert defend(["9", "9"], [asset("5", "5"), asset("9", "9")], 1) == "give_up_asset:#0"
    assert defend([], [asset("9", "9")], 0) == "give_up_asset:#0"
    assert defend([], [asset("9", "9")], 0, defend_with_asset=False) == "let_pass"


def test_greedy_discards_the_least_useful_card():
    """greedy end of turn: the lowest single number goes first; pairs, gold and thefts are kept."""
    s = tstate(players=2, hands=[["2", "2", "3", "8", "Gold", "Theft", "Gold Theft"], []], phase="discard")
    assert choice("greedy", s) == "discard:3"


def test_greedy_first_asset_two_highest_singles_higher_face_down():
    """greedy setup: the two highest numbers outside pairs, the higher one face-down; gold kept."""
    s = tstate(players=2, phase="setup", hands=[["4", "4", "6", "9", "Gold"], ["1", "2", "3", "4", "5"]])
    assert choice("greedy", s) == "first_asset:9 down+6 up"


def test_defender_keeps_a_cancelling_pair():
    """defender: builds only while another pair stays in hand, keeping the one with gold."""
    s = tstate(players=2, hands=[["4", "4", "7", "Gold"], []])
    assert choice("defender", s) == "build:4+4"
    s = tstate(players=2, hands=[["7", "Gold"], []])
    assert choice("defender", s) == "end_turn"
    s = tstate(players=2, hands=[["7", "Gold", "Theft"], []], assets=[[], [asset("3", "3")]])
    assert choice("defender", s) == "theft:Theft:+1:#0"


def test_defender_cancels_with_a_pair_never_with_an_asset():
    """defender: the cheapest pair from hand; with no pair it lets the asset pass, never gives up an asset."""
    kw = {"players": 2, "phase": "defence", "theft": {"thief": 0, "target": 1, "slot": 0, "card": "Theft"}}
    s = tstate(hands=[[], ["6", "6", "2", "Gold"]], assets=[[], [asset("5", "5")]], **kw)
    assert choice("defender", s) == "cancel_pair:2+Gold"
    s = tstate(hands=[[], ["6"]], assets=[[], [asset("5", "5"), asset("1", "1")]], **kw)
    assert choice("defender", s) == "let_pass"
