"""The Gymnasium single-agent environment and the batched vector environment (issue 15): Gymnasium's
``check_env``, action masks, illegal actions, and the vector environment equal to the single-game
environment row by row (observation vectors, masks, rewards, game ends), across queue recycling."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("gymnasium")

from gymnasium.utils.env_checker import check_env

from cya_sim.engine.classic.batched import IllegalActionError as BatchedIllegalActionError
from cya_sim.env import CoverYourAssetsGym, CoverYourAssetsVectorEnv, IllegalActionError


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize(("kwargs"), [
    {},
    {"rules": "basic", "n_players": 3, "seat": 2, "opponents": "random", "render_mode": "ansi",
     "reward": "total_change"},
    {"rules": "guide", "n_players": 2, "opponents": "heuristic"},
])
def test_gymnasium_check_env_passes(kwargs):
    check_env(CoverYourAssetsGym(**kwargs), skip_render_check=False)


def test_action_masks_are_the_learners_legal_actions_and_reward_is_the_win_share():
    env = CoverYourAssetsGym(opponents="greedy", reward="win_share")
    obs, info = env.reset(seed=3)
    assert obs.shape == env.observation_space.shape and obs.dtype == np.float32
    rng = np.random.default_rng(0)
    total = 0.0
    for _ in range(10_000):
        mask = env.action_masks()
        np.testing.assert_array_equal(mask, info["action_mask"])
        assert mask.any()
        obs, reward, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(mask))))
        total += reward
        if terminated:
            break
    assert terminated and not truncated
    assert total == pytest.approx(env.game.win_shares()[0]) and total in (0.0, 1.0, 0.5, 1 / 3, 0.25)


def test_an_illegal_action_ends_the_episode_or_raises_naming_seat_game_and_action():
    env = CoverYourAssetsGym(seat=1)
    env.reset(seed=1, options={"game": 4})
    bad = int(np.flatnonzero(~env.action_masks())[0])
    _, reward, terminated, _, info = env.step(bad)
    assert reward == -1.0 and terminated
    assert f"learner at seat 1 in game 4 chose illegal action {bad}" in info["illegal_action"]
    strict = CoverYourAssetsGym(seat=1, illegal_action="raise")
    strict.reset(seed=1, options={"game": 4})
    with pytest.raises(IllegalActionError, match=f"learner at seat 1 in game 4 chose illegal action {bad}"):
        strict.step(bad)


def test_bad_arguments_name_the_field():
    with pytest.raises(ValueError, match=r"seat: 4 \(int\); allowed: an integer from 0 to 3"):
        CoverYourAssetsGym(seat=4)
    with pytest.raises(ValueError, match="opponents: "):
        CoverYourAssetsGym(opponents="greedy,nobody")
    with pytest.raises(ValueError, match=r"opponents: 'oracle\(cheats=true\)' reads the hidden game state"):
        CoverYourAssetsGym(opponents="oracle(cheats=true)")
    with pytest.raises(ValueError, match="opponents: 'ismcts' has no compiled form"):
        CoverYourAssetsVectorEnv(num_envs=2, opponents="ismcts")
    with pytest.raises(ValueError, match="num_envs: 0"):
        CoverYourAssetsVectorEnv(num_envs=0)


@pytest.mark.parametrize(("opponents", "seat", "kwargs"), [
    ("greedy,card_counter", 0, {}),  # the defaults: view features, margin reward
    ("random,heuristic", 2, {"observation": "table", "reward": "total_change"}),
    ("card_counter", 1, {"observation": "table", "reward": "win_share"}),
])
def test_vector_env_equals_the_single_game_env_row_by_row(opponents, seat, kwargs):
    """Observations, masks, rewards (exactly: one formula, :func:`cya_sim.env.rewards.standing`) and game ends."""
    b = 3
    vec = CoverYourAssetsVectorEnv(num_envs=b, opponents=opponents, seat=seat, **kwargs)
    obs, info = vec.reset(seed=5)
    singles = [CoverYourAssetsGym(opponents=opponents, seat=seat, **kwargs) for _ in range(b)]
    single_obs = [e.reset(seed=5, options={"game": i})[0] for i, e in enumerate(singles)]
    rng = np.random.default_rng(1)
    ended = 0
    for _ in range(700):
        masks = vec.action_masks()
        for i in range(b):
            np.testing.assert_array_equal(obs[i], single_obs[i])
            np.testing.assert_array_equal(masks[i], singles[i].action_masks())
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        obs, reward, terminated, truncated, info = vec.step(actions)
        assert not truncated.any()
        for i in range(b):
            o, r, t, _, _ = singles[i].step(int(actions[i]))
            assert (t, r) == (bool(terminated[i]), reward[i])
            if t:
                ended += 1
                assert info["final_game"][i] == singles[i].game.game_index
                o, _ = singles[i].reset(options={"game": int(info["game"][i])})
            single_obs[i] = o
    assert ended >= 20
    # rows take the games of the seed in order: every game index started so far is distinct
    assert len(set(info["game"].tolist())) == b and max(info["game"]) < b + ended


def test_vector_env_refuses_an_illegal_action_naming_the_game():
    vec = CoverYourAssetsVectorEnv(num_envs=2, opponents="greedy")
    vec.reset(seed=2)
    actions = np.argmax(vec.action_masks(), axis=1)
    actions[1] = int(np.flatnonzero(~vec.action_masks()[1])[0])
    with pytest.raises(BatchedIllegalActionError, match=r"at seat 0 in game 1 returned illegal action"):
        vec.step(actions)
