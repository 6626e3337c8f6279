"""The PettingZoo AEC environment (issue 15): PettingZoo's own API and seed tests on every preset, the
readable log equal to ``cya-sim play``, rewards, and a random agent written against the PettingZoo API
that reproduces ``cya-sim tournament`` with ``random`` agents game by game."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("pettingzoo")

from pettingzoo.test import api_test, seed_test

from cya_sim.cli.main import main
from cya_sim.env import CoverYourAssetsAEC, IllegalActionError
from cya_sim.game.rules import PRESETS
from cya_sim.studies.tournament import TournamentConfig, run_tournament


@pytest.mark.parametrize("preset", PRESETS)
def test_pettingzoo_api_test_passes_for_every_preset(preset):
    api_test(CoverYourAssetsAEC(rules=preset, n_players=min(4, PRESETS[preset].max_players)), num_cycles=200)


def test_pettingzoo_api_test_passes_with_total_change_rewards_at_two_players():
    api_test(CoverYourAssetsAEC(rules="basic", n_players=2, reward="total_change"), num_cycles=200)


def test_pettingzoo_seed_test_passes():
    seed_test(lambda: CoverYourAssetsAEC(rules="classic", n_players=3), num_cycles=200)


def random_games(env: CoverYourAssetsAEC, seed: int, games: int) -> tuple[np.ndarray, np.ndarray]:
    """A random agent written against the PettingZoo API: uniform over ``action_mask`` with the
    seat's own stream (``env.agent_rng``), the draw the built-in ``random`` makes (agents/classic/random_agent.py).
    Returns (G, P) final totals in dollars and (G, P) win shares read from the rewards."""
    totals, shares = [], []
    for g in range(games):
        env.reset(seed=seed) if g == 0 else env.reset()  # successive resets: games 0, 1, 2, ... of the seed
        reward = dict.fromkeys(env.possible_agents, 0.0)
        for agent in env.agent_iter():
            obs, r, terminated, truncated, _ = env.last()
            reward[agent] += r
            if terminated or truncated:
                env.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            env.step(int(legal[int(env.agent_rng(agent).random() * len(legal))]))
        totals.append(env.game.totals())
        shares.append([reward[a] for a in env.possible_agents])
    return np.array(totals), np.array(shares)


def check_equals_tournament(games: int, preset: str, players: int, seed: int, engine: str = "batched") -> None:
    totals, shares = random_games(CoverYourAssetsAEC(rules=preset, n_players=players), seed, games)
    t = run_tournament(TournamentConfig(rules=preset, agents=["random"], n_players=players, games=games, seed=seed,
                                        engine=engine, workers=1), progress=False).table
    np.testing.assert_array_equal(t.game_index, np.arange(games))
    np.testing.assert_array_equal(totals, t.totals)
    np.testing.assert_array_equal(shares, t.win_share)
    assert shares.sum() == pytest.approx(games)  # one win per game, shared on ties (R-TIE)


@pytest.mark.parametrize(("preset", "players"), [("classic", 4), ("basic", 3)])
def test_random_agent_on_pettingzoo_equals_the_tournament_game_by_game(preset, players):
    check_equals_tournament(20, preset, players, seed=7, engine="reference")


@pytest.mark.slow
def test_random_agent_on_pettingzoo_equals_a_1000_game_tournament():
    check_equals_tournament(1000, "classic", 4, seed=2026)


def test_render_ansi_is_the_log_of_cya_sim_play(capsys):
    assert main(["play", "--agents", "random", "--players", "3", "--seed", "5", "--game", "2"]) == 0
    expected = capsys.readouterr().out
    env = CoverYourAssetsAEC(n_players=3, render_mode="ansi", seat_names=["random"] * 3)
    env.reset(seed=5, options={"game": 2})
    parts = [env.render()]
    for agent in env.agent_iter():
        obs, _, terminated, _, _ = env.last()
        if terminated:
            env.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(legal[int(env.agent_rng(agent).random() * len(legal))]))
        parts.append(env.render())
    assert "\n".join(p for p in parts if p) + "\n" == expected
    assert "game over" in expected


def test_observation_is_the_acting_seats_and_masks_only_its_legal_actions():
    env = CoverYourAssetsAEC(n_players=4)
    env.reset(seed=1)
    agent = env.agent_selection
    seat = env.possible_agents.index(agent)
    s = env.structured_observation(agent)
    obs = env.observe(agent)
    assert obs["observation"].shape == env.observation_space(agent)["observation"].shape
    np.testing.assert_array_equal(obs["action_mask"], s.legal_action_mask.astype(np.int8))
    a, z = env.encoder.blocks["hand"]
    np.testing.assert_array_equal(obs["observation"][a:z], s.hand)
    assert s.seat == seat and obs["action_mask"].sum() > 0
    for other in env.possible_agents:
        if other != agent:
            assert env.observe(other)["action_mask"].sum() == 0


def test_an_illegal_action_names_the_agent_seat_game_and_action():
    env = CoverYourAssetsAEC(n_players=4)
    env.reset(seed=1, options={"game": 9})
    agent = env.agent_selection
    bad = int(np.flatnonzero(env.observe(agent)["action_mask"] == 0)[0])
    with pytest.raises(IllegalActionError, match=rf"agent '{agent}' at seat \d+ in game 9 chose illegal action {bad}"):
        env.step(bad)


def test_bad_arguments_name_the_field():
    with pytest.raises(ValueError, match="reward: 'score'; allowed: win_share, total_change"):
        CoverYourAssetsAEC(reward="score")
    with pytest.raises(ValueError, match="render_mode: 'rgb'; allowed: None, 'ansi', 'human', 'rgb_array'"):
        CoverYourAssetsAEC(render_mode="rgb")
