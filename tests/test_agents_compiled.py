"""The in-engine forms of the strategy agents see exactly what the single-game forms see.

Games are played on the reference engine; the same action sequence is stepped
through the batched engine, and at every decision the agent view built from
the batch state (agents.classic.compiled_strategy.view_row) must equal the view built
from the reference observation (agents.classic.view.build_view), and every strategy
agent must choose the same action from both.
"""

from __future__ import annotations

import numpy as np
import pytest

from agents.classic.card_counter import CardCounterAgent
from agents.classic.compiled import (
    POLICY_CARD_COUNTER,
    POLICY_HEURISTIC,
    POLICY_ORACLE,
    ROW_FORM,
    act_once,
    new_scratch,
)
from agents.classic.compiled_strategy import strategy_address, view_row
from agents.classic.heuristic import HeuristicAgent, HeuristicConfig
from agents.classic.oracle import OracleAgent
from agents.classic.random_agent import RandomAgent
from agents.classic.registry import plays_from_row
from agents.classic.row_abi import row_address
from agents.classic.view import build_view
from cya_sim.engine.classic import batched as api
from cya_sim.engine.classic.reference import apply_action, new_game
from cya_sim.engine.classic.reference.observation import observe
from cya_sim.game.rng import root_key, stream_generator
from cya_sim.game.rules import get_rules


def _act(code, k, row, seat, params, rng, sc, rules):
    """One decision of view policy ``code`` through the play loop's dispatch and its C entry: the row form's under the
    classic rules without §6 and §7 (agents.classic.registry.plays_from_row), else the view policy's."""
    if plays_from_row(code, rules):
        return act_once(code | ROW_FORM, row_address(code), k, row, seat, params, rng, sc)
    return act_once(code, strategy_address(code), k, row, seat, params, rng, sc)


CONFIGS = [HeuristicConfig(), HeuristicConfig(wild_for_sets=False, save_wild=True),
           HeuristicConfig(count=True, backup=True, pair_first=False, cover=True, let_go=True, wild_first=True,
                           fast_first=False)]


@pytest.mark.parametrize(("preset", "players"), [("classic", 4), ("classic", 2), ("guide", 3), ("basic", 6),
                                                   ("two_player_draft", 2), ("three_player_draft", 3),
                                                   ("advanced", 4), ("advanced", 3),
                                                   ("two_player_draft_advanced", 2), ("three_player_draft_advanced", 3)])
def test_views_and_choices_agree_between_engines(preset, players):
    rules = get_rules(preset)
    key = root_key(21)
    rng = np.random.default_rng(0)
    for g in range(3):
        ref = new_game(rules, players, key, g)
        bat = api.init(rules, players, 1, key, game_indices=np.array([g]), log_cap=0)
        k_, row = bat.consts, bat.rows[0]
        agent_rngs = [stream_generator(key, g, 1 + s) for s in range(players)]
        sc = new_scratch(k_.cfg)
        hdr, hand, unseen, seats = sc.hdr, sc.hand, sc.unseen, sc.seats
        no_rng = np.zeros(4, np.uint64)
        while ref.to_act >= 0:
            seat = ref.to_act
            assert int(bat.to_act[0]) == seat
            obs = observe(ref, seat)
            r_hdr, r_hand, _values, r_unseen, r_seats, r_mask = build_view(obs)
            view_row(k_, row, seat, sc)
            np.testing.assert_array_equal(hdr, r_hdr)
            np.testing.assert_array_equal(hand, r_hand)
            np.testing.assert_array_equal(unseen, r_unseen)
            np.testing.assert_array_equal(seats, r_seats)
            np.testing.assert_array_equal(sc.mask, r_mask)
            np.testing.assert_array_equal(sc.gave_up, obs.gave_up)
            np.testing.assert_array_equal(bat.gave_up[0], obs.gave_up)
            for cfg in CONFIGS:
                p16 = np.zeros(16)
                p16[:14] = cfg.to_array()
                assert _act(POLICY_HEURISTIC, k_, row, seat, p16, no_rng, sc, rules) == HeuristicAgent(cfg).act(obs, rng)
            assert _act(POLICY_CARD_COUNTER, k_, row, seat, np.zeros(16), no_rng, sc, rules) == CardCounterAgent().act(obs, rng)
            assert _act(POLICY_ORACLE, k_, row, seat, np.zeros(16), no_rng, sc, rules) == OracleAgent(cheats=True).act(obs, rng, ref)
            action = RandomAgent().act(obs, agent_rngs[seat])
            apply_action(ref, action)
            api.step(bat, np.array([action]))
        assert bool(bat.r_done[0])
        assert tuple(bat.r_totals[0]) == tuple(ref.totals)
