"""The theft game's search agents ``ismcts`` and ``pimc``: whole legal games on both engines, seeds, refusals.

RULES.md §9 (R-T-SETUP, R-T-TURN, R-T-END); SO-ISMCTS (Cowling, Powley & Whitehouse, IEEE TCIAIG 4(2),
2012) and PIMC over the compiled theft kernel (:mod:`cya_sim.search.theft`).
"""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from theft_helpers import asset, tstate

from agents.theft.registry import make_theft_agent
from cya_sim.engine.theft.legal import action_space
from cya_sim.engine.theft.observation import observe
from cya_sim.game.rng import root_key
from cya_sim.game.theft.rules import TheftRuleSet
from cya_sim.play.theft.batched import play_theft_games_batched
from cya_sim.play.theft.reference import play_theft_games
from cya_sim.search.theft.agent import TheftISMCTSAgent, TheftPIMCAgent
from cya_sim.search.theft.search import theft_ismcts_search, theft_pimc_search


def _rotations(p: int, k: int, games: int) -> np.ndarray:
    return np.array([[(g + s) % k for s in range(p)] for g in range(games)], np.int16)


@pytest.mark.parametrize(("players", "options"), [
    (3, {}),
    (2, {"compulsory_defence": True, "gold_theft_cancel": "single_gold"}),
    (4, {"end_of_turn": "discard_and_draw_up", "max_thefts_per_turn": 1}),
])
def test_search_agents_play_whole_legal_games_the_same_on_both_engines(players, options):
    """Whole games on the batched theft engine (every action checked legal there) equal the reference engine's
    game by game: the agents see the same observation and the same seat stream on either path."""
    rules = TheftRuleSet().with_options(**options)
    agents = ["ismcts(iterations=40)", "greedy", "pimc(iterations=40, rollout='random')", "defender"]
    sa = _rotations(players, len(agents), 8)
    key = root_key(17)
    gi = np.arange(8, dtype=np.int64)
    tb = play_theft_games_batched(rules, agents, sa, key, gi)
    tr = play_theft_games(rules, agents, sa, key, gi)
    for f in ("totals", "win_share", "turns", "decisions", "thefts", "cancelled"):
        assert np.array_equal(np.asarray(getattr(tb, f)), np.asarray(getattr(tr, f))), f
    assert (np.asarray(tb.turns) > 0).all()


def _last_turn_position():
    """R-T-END: seat 1 has three assets (9+9, 6+6, 1+1: 32 points) and seat 0 (2+1: 3 points) plays the last turn
    with a Gold Theft and no pair. Every gold card lies face up in the discard pile, so nothing cancels the theft
    (R-T-TURN): taking 9+9 wins (21 against 14); taking 6+6 (15 against 20) or 1+1, or ending the turn, loses."""
    return tstate(players=2, hands=[["4", "7", "Gold Theft"], ["5", "7", "3"]],
                  assets=[[asset("2", "1", known_by=[[0], [0, 1]])], [asset("9", "9"), asset("6", "6"), asset("1", "1")]],
                  discard_pile=["Gold", "Gold", "Gold", "Gold"], final_turns_left=1, trigger_seat=1, rest="draw")


@pytest.mark.parametrize("search", [theft_ismcts_search, theft_pimc_search])
def test_search_finds_the_winning_theft_on_the_last_turn(search):
    st = _last_turn_position()
    obs = observe(st, 0)
    res = search(obs, iterations=400, seed=1)
    assert obs.legal_action_mask[res.action]
    assert action_space(st.rules).name(res.action) == "theft:Gold Theft:+1:#0"
    assert res.iterations == 400 and res.visits.sum() > 0


def test_same_seed_same_decision_and_one_legal_action_not_searched():
    st = _last_turn_position()
    obs = observe(st, 0)
    a = theft_ismcts_search(obs, iterations=200, seed=9, stream=3)
    b = theft_ismcts_search(obs, iterations=200, seed=9, stream=3)
    assert a.action == b.action and np.array_equal(a.visits, b.visits) and np.array_equal(a.values, b.values, True)
    agent = TheftISMCTSAgent(iterations=50)
    only = observe(tstate(players=2, hands=[[], ["5"]], assets=[[asset("3", "3")], [asset("6", "6")]]), 0)
    assert only.legal_action_mask.sum() == 1  # end_turn only
    assert agent.act(only, np.random.default_rng(0)) == int(np.flatnonzero(only.legal_action_mask)[0])
    assert agent.last.iterations == 0 and agent.searched == 0
    clone = pickle.loads(pickle.dumps(agent))
    assert clone.act(obs, np.random.default_rng(4)) == agent.act(obs, np.random.default_rng(4))


@pytest.mark.parametrize(("spec", "message"), [
    ("ismcts(iterations=0)", "iterations 0: give an integer from 1 to 10,000,000"),
    ("ismcts(iterations=100000000000)", "iterations 100000000000: give an integer from 1 to 10,000,000"),
    ("pimc(iterations=-3)", "iterations -3: give an integer from 1 to 10,000,000"),
    ("ismcts(time_s=0)", "time_s 0: give a number of seconds > 0"),
    ("ismcts(c_ucb=-1)", "c_ucb -1: give a number >= 0"),
    ("ismcts(max_nodes=0)", "max_nodes 0: give an integer from 1 to 1,000,000"),
    ("ismcts(rollout='oracle')", "rollout 'oracle' is not known; choose one of: random, greedy, defender"),
    ("pimc(utility='margin')", "utility 'margin' is not known; choose one of: win, share"),
    ("ismcts(seed=-1)", "seed -1: give an integer >= 0"),
    ("pimc(c_ucb=1)", "agent 'pimc(c_ucb=1)'"),
])
def test_bad_parameters_refused_in_one_line_naming_the_parameter(spec, message):
    with pytest.raises(ValueError) as e:
        make_theft_agent(spec)
    assert message in str(e.value) and "\n" not in str(e.value)


def test_registry_makes_the_theft_search_agents():
    a = make_theft_agent("ismcts(iterations=7, rollout='defender', utility='share')")
    assert isinstance(a, TheftISMCTSAgent) and (a.iterations, a.rollout, a.utility) == (7, "defender", "share")
    assert isinstance(make_theft_agent("pimc"), TheftPIMCAgent)


def test_opponents_first_assets_share_an_edge_by_their_face_up_card():
    """R-T-SETUP: another seat's first asset shows only its face-up card, so the observer's tree merges the moves
    that differ in the face-down card; its own first assets, and every later move, stay apart."""
    from cya_sim.engine.theft.layout import G_PHASE, G_TO_ACT, PH_SETUP, make_consts, row_width
    from cya_sim.search.theft.kernels import edge_key

    rules = TheftRuleSet()
    k = make_consts(rules, 3)
    g = np.zeros(row_width(k), np.int64)
    g[G_PHASE], g[G_TO_ACT] = PH_SETUP, 1
    sp = action_space(rules)
    a, b = sp.first_asset(7, 3), sp.first_asset(2, 3)
    assert edge_key(k, g, a, 0) == edge_key(k, g, b, 0) == sp.first_asset(0, 3)
    assert edge_key(k, g, a, 1) == a and edge_key(k, g, b, 1) == b  # the observer's own moves
    assert edge_key(k, g, sp.end_turn, 0) == sp.end_turn


def test_search_by_time_returns_a_legal_action():
    obs = observe(_last_turn_position(), 0)
    for search in (theft_ismcts_search, theft_pimc_search):
        res = search(obs, time_s=0.02, seed=3)
        assert obs.legal_action_mask[res.action] and res.iterations > 0


def test_cache_guard_covers_the_theft_search_kernels():
    """numba's disk cache keys a function on its own file only: an edit to the theft rules kernel or to the search
    tree must drop the theft search kernels' caches too (:mod:`cya_sim.engine.cache_guard`)."""
    from pathlib import Path

    from cya_sim.engine import cache_guard
    from cya_sim.search import tree
    from cya_sim.search.theft import kernels

    sources = set(cache_guard.sources_of("theft"))
    assert {Path(kernels.__file__).resolve(), Path(tree.__file__).resolve()} <= sources
    assert any(d == Path(kernels.__file__).resolve().parent / "__pycache__" for d, _ in cache_guard.caches_of("theft"))
