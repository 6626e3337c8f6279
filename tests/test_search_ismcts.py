"""ISMCTS and PIMC agents (issue 6): legal results, no search with one legal action, winning moves, seeds.

Cowling, Powley & Whitehouse, IEEE TCIAIG 4(2), 2012 (SO-ISMCTS); RULES.md §4
(R-CH-ALLOWED, R-CH-EXCHANGE), R-HIDDEN-WILD.
"""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from conftest import AUTO, BANK, CASH, GOLD, HOME, JEWELS, PIGGY, SILVER, STAMPS, STOCKS, cset, state_of

from cya_sim.engine.classic.reference import apply_action, new_game, play_game
from cya_sim.engine.classic.reference.legal import action_space
from cya_sim.engine.classic.reference.observation import observe
from cya_sim.game.rules import get_rules
from cya_sim.search.classic import ismcts_search, pimc_search
from cya_sim.search.classic.agent import ISMCTSAgent, PIMCAgent

PUB2 = [[0, 1], [0, 1], [0, 1], [0, 1], [0, 1]]


def _steal_position():
    """R-CH-ALLOWED: seat 0 can steal seat 1's $135,000 top set (Home x3, Gold, Silver, all public) with its
    Home; every other Home and every wild is face-up in the discard pile or in stacks, so seat 1 provably
    cannot answer (R-CH-EXCHANGE). Seat 0 could instead lay Piggy Banks ($10,000), what ``greedy`` does."""
    return state_of(
        players=2,
        hands=[[HOME, PIGGY, PIGGY, CASH], [STAMPS, BANK, STOCKS, JEWELS]],
        stacks=[[cset(AUTO, AUTO, AUTO, known_by=PUB2[:2])],
                [cset(JEWELS, JEWELS, JEWELS, known_by=PUB2[:2]),
                 cset(HOME, HOME, HOME, HOME, GOLD, SILVER, known_by=PUB2[:5])]],
        draw_pile=[STAMPS, BANK, STOCKS, PIGGY, CASH, STAMPS],
        discard_pile=[AUTO],
    )


def _mid_game(key=21, steps=35, players=4):
    from agents.classic.greedy import GreedyAgent

    state = new_game(get_rules("classic"), players, key, 0)
    g = GreedyAgent()
    for _ in range(steps):
        apply_action(state, g.act(observe(state, state.to_act), None))
    return state


def _name(state, a):
    return action_space(state.rules).name(a)


def test_ismcts_finds_the_unanswerable_steal():
    state = _steal_position()
    obs = observe(state, 0)
    assert obs.unseen[obs.rules.deck.names.index(HOME)] == 0
    assert obs.unseen[obs.rules.deck.n_assets:].sum() == 0
    res = ismcts_search(obs, iterations=300, seed=1)
    assert _name(state, res.action) == "challenge:+1:match"
    assert obs.legal_action_mask[res.action]


def test_pimc_finds_the_unanswerable_steal():
    state = _steal_position()
    res = pimc_search(observe(state, 0), iterations=300, seed=1)
    assert _name(state, res.action) == "challenge:+1:match"


def test_one_legal_action_is_returned_without_search():
    """In a challenge with no matching card and no wild, giving up is the only legal action (R-CH-EXCHANGE)."""
    state = _steal_position()
    apply_action(state, action_space(state.rules).names().index("challenge:+1:match"))
    obs = observe(state, 1)
    assert obs.legal_action_mask.sum() == 1
    for agent in (ISMCTSAgent(iterations=500), PIMCAgent(iterations=500)):
        a = agent.act(obs, np.random.default_rng(0))
        assert _name(state, a) == "give_up"
        assert agent.last.iterations == 0 and agent.searched == 0 and agent.decisions == 1


def test_search_returns_only_legal_actions_and_same_seed_same_decisions():
    for key in (21, 22, 23):
        state = _mid_game(key=key)
        obs = observe(state, state.to_act)
        r1 = ismcts_search(obs, iterations=200, seed=4)
        r2 = ismcts_search(obs, iterations=200, seed=4)
        assert obs.legal_action_mask[r1.action]
        assert r1.action == r2.action and np.array_equal(r1.visits, r2.visits)
        if obs.legal_action_mask.sum() == 1:
            assert r1.iterations == 0
            continue
        assert r1.visits.sum() == 200 and r1.nodes <= 201
        p1 = pimc_search(obs, iterations=100, seed=4)
        assert obs.legal_action_mask[p1.action] and p1.visits.sum() == 100


def test_whole_game_same_seed_same_decisions_and_timing_recorded():
    """Same tournament key and seats -> the same game; every action was legal (play_game checks the mask)."""
    rules = get_rules("classic", end_condition="rounds:1")
    from agents.classic.greedy import GreedyAgent

    def play():
        agents = [ISMCTSAgent(iterations=30, seed=3), GreedyAgent(), PIMCAgent(iterations=30, seed=3), GreedyAgent()]
        r = play_game(rules, agents, 99, 0, record_actions=True)
        return r, agents

    (r1, a1), (r2, _) = play(), play()
    assert r1.actions == r2.actions and r1.totals == r2.totals
    assert a1[0].decisions > 0 and a1[0].avg_time_per_decision_ms > 0
    assert a1[0].stats()["searched"] == a1[0].searched


def test_agents_pickle_for_worker_processes():
    agent = ISMCTSAgent(iterations=20, seed=1)
    state = _mid_game()
    agent.act(observe(state, state.to_act), np.random.default_rng(1))
    clone = pickle.loads(pickle.dumps(agent))
    assert clone.iterations == 20 and clone._ctx is None


@pytest.mark.parametrize("kw, field", [
    ({"iterations": 0}, "iterations"), ({"rollout": "smart"}, "rollout"), ({"utility": "money"}, "utility"),
    ({"c_ucb": -1.0}, "c_ucb"), ({"time_s": 0}, "time_s"), ({"seed": -2}, "seed"),
])
def test_bad_parameters_are_refused_naming_the_field(kw, field):
    with pytest.raises(ValueError, match=field):
        ISMCTSAgent(**kw)


def test_time_budget_and_win_utility_run():
    state = _mid_game(key=30)
    obs = observe(state, state.to_act)
    r = ismcts_search(obs, iterations=None, time_s=0.05, utility="win", seed=2)
    assert r.iterations >= 64 and obs.legal_action_mask[r.action]
    r = ismcts_search(obs, iterations=50, rollout="random", seed=2)
    assert obs.legal_action_mask[r.action]


def test_agents_play_through_the_reference_tournament_path(monkeypatch):
    """Registered by name, the search agents play ``play_games`` like any other agent (issue 6, item 4)."""
    from agents.classic import registry
    from cya_sim.play.classic.reference import play_games

    monkeypatch.setitem(registry.REGISTRY, "ismcts", lambda: ISMCTSAgent(iterations=20))
    monkeypatch.setitem(registry.REGISTRY, "pimc", lambda: PIMCAgent(iterations=20))
    rules = get_rules("classic", end_condition="rounds:1")
    table = play_games(rules, ["ismcts", "pimc", "greedy"], np.array([[0, 1, 2, 2], [2, 0, 1, 2]]), 5,
                       np.array([0, 1]))
    assert np.allclose(table.win_share.sum(axis=1), 1.0)


@pytest.mark.parametrize("search", [ismcts_search, pimc_search])
def test_card_counter_rollout_finds_the_unanswerable_steal(search):
    """The ``card_counter`` rollout policy (cya_sim.search.policies) searches like the others (R-CH-ALLOWED)."""
    state = _steal_position()
    res = search(observe(state, 0), iterations=300, rollout="card_counter", seed=1)
    assert _name(state, res.action) == "challenge:+1:match"


def test_card_counter_rollout_legal_and_same_seed_same_decisions():
    for key in (21, 22):
        state = _mid_game(key=key)
        obs = observe(state, state.to_act)
        r1 = ismcts_search(obs, iterations=150, rollout="card_counter", utility="win", seed=5)
        r2 = ismcts_search(obs, iterations=150, rollout="card_counter", utility="win", seed=5)
        assert obs.legal_action_mask[r1.action]
        assert r1.action == r2.action and np.array_equal(r1.visits, r2.visits)
    rules = get_rules("classic", end_condition="rounds:1")
    agents = [ISMCTSAgent(iterations=20, rollout="card_counter", seed=1),
              PIMCAgent(iterations=20, rollout="card_counter", seed=1)]
    from agents.classic.card_counter import CardCounterAgent
    r = play_game(rules, agents + [CardCounterAgent(), CardCounterAgent()], 7, 0)
    assert abs(sum(r.win_shares) - 1.0) < 1e-9


def test_unknown_rollout_is_refused_listing_the_allowed_policies():
    with pytest.raises(ValueError, match="rollout 'smart' is not known; choose one of: greedy, random, card_counter"):
        PIMCAgent(rollout="smart")


@pytest.mark.parametrize("bad", [0, -5, 2.5, True, "10"])
def test_ismcts_max_nodes_refused_up_front(bad):
    """A bad tree capacity is refused when the agent is made, naming the parameter (not mid-tournament)."""
    from cya_sim.search.classic.agent import ISMCTSAgent

    with pytest.raises(ValueError, match="max_nodes"):
        ISMCTSAgent(iterations=10, max_nodes=bad)
