"""The Gymnasium environments' defaults that make sb3-contrib's standard recipe learn (docs/rl.md): the view features
as the observation and the margin reward, in ``gym.make`` and ``gym.make_vec`` alike, and their refusals.

The recipe's measured result is ``experiments/rl_recipe.md``; the example itself runs in ``tests/test_env_examples.py``.
"""

from __future__ import annotations

import numpy as np
import pytest

gym = pytest.importorskip("gymnasium")

import cya_sim.env  # noqa: F401  (registers the Gymnasium id)
from agents.classic.learned import n_features
from cya_sim.env import CoverYourAssetsGym, CoverYourAssetsVectorEnv
from cya_sim.env.classic.encoding import ObservationEncoder
from cya_sim.env.features import ViewFeatureEncoder
from cya_sim.env.registration import GYM_ID
from cya_sim.game.rules import get_rules


def _play(env, rng, steps: int = 100_000):
    """Random legal actions to the end of a game; (rewards of every step, the last info)."""
    rewards = []
    mask = env.action_masks()
    for _ in range(steps):
        _obs, r, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(mask))))
        rewards.append(r)
        if terminated or truncated:
            return rewards, info
        mask = env.action_masks()
    raise AssertionError("the game did not end")


def test_gym_make_gives_the_view_features_and_the_margin_reward_by_default():
    env = gym.make(GYM_ID, n_players=2, opponents="greedy")
    assert (env.observation, env.reward_kind) == ("features", "margin_change")
    assert env.observation_space.shape == (n_features(2, 12, 10),) and env.observation_space.dtype == np.float32
    obs, _ = env.reset(seed=1)
    assert env.observation_space.contains(obs) and float(np.abs(obs).max()) <= 10.0
    vec = gym.make_vec(GYM_ID, num_envs=3, n_players=2, opponents="greedy")  # the same defaults, batched
    assert vec.single_observation_space == env.observation_space and vec.reward_kind == "margin_change"
    vobs, _ = vec.reset(seed=1)
    np.testing.assert_array_equal(vobs[0], obs)  # row 0 plays game 0 of seed 1, as the single env's reset
    table = gym.make(GYM_ID, n_players=2, opponents="greedy", observation="table", reward="win_share")
    assert table.observation_space.shape == (ObservationEncoder(get_rules("classic"), 2).size,)


@pytest.mark.parametrize(("rules", "players", "opponents"), [("theft", 3, "greedy,defender"), ("advanced", 4, None),
                                                              ("two_player_draft", 2, None)])
def test_games_without_view_features_default_to_the_table_vector_and_refuse_features_in_one_line(rules, players,
                                                                                                 opponents):
    env = CoverYourAssetsGym(rules, n_players=players, opponents=opponents)
    assert env.observation == "table" and env.reward_kind == "margin_change"
    vec = CoverYourAssetsVectorEnv(num_envs=2, rules=rules, n_players=players, opponents=opponents)
    assert vec.observation == "table" and vec.single_observation_space == env.observation_space
    for make in (lambda: CoverYourAssetsGym(rules, n_players=players, opponents=opponents, observation="features"),
                 lambda: CoverYourAssetsVectorEnv(num_envs=2, rules=rules, n_players=players, opponents=opponents,
                                                  observation="features")):
        with pytest.raises(ValueError, match=rf"^observation: 'features'; rules '{rules}': the view features encode "
                                             r"the classic game.*; use observation='table'$"):
            make()


@pytest.mark.parametrize("make", ["gym", "vector"])
@pytest.mark.parametrize(("kwargs", "message"), [
    ({"observation": "pixels"}, r"^observation: 'pixels'; allowed: None \(the game's default\), 'features', 'table'$"),
    ({"observation": 3}, r"^observation: 3; allowed: None"),
    ({"reward": "dense"}, r"^reward: 'dense'; allowed: margin_change, total_change, win_share$"),
])
def test_a_bad_observation_or_reward_is_one_line_naming_the_allowed_values(make, kwargs, message):
    with pytest.raises(ValueError, match=message):
        if make == "gym":
            CoverYourAssetsGym(n_players=2, opponents="greedy", **kwargs)
        else:
            CoverYourAssetsVectorEnv(num_envs=2, n_players=2, opponents="greedy", **kwargs)


@pytest.mark.parametrize(("rules", "players", "opponents", "unit"), [
    ("classic", 2, "greedy", 1e5), ("classic", 4, "greedy,card_counter,random", 1e5),
    ("theft", 3, "greedy,defender", 1.0)])
def test_margin_rewards_come_as_the_game_goes_and_add_up_to_the_final_margin_plus_the_win_share(rules, players,
                                                                                                opponents, unit):
    """R-SCORE counts a stack at the round's end; the margin counts it as it stands, so rewards come before a round
    ends, and they add up (a telescoping sum) to the change of the margin (own score minus the others' mean) from the
    learner's first decision (seat 0 may have laid a set before it) to the end, plus the win share."""
    env = CoverYourAssetsGym(rules, n_players=players, seat=1, opponents=opponents)
    rng = np.random.default_rng(4)

    def margin(scores) -> float:
        s = np.asarray(scores, np.float64)
        return s[1] - np.delete(s, 1).mean()

    starts = []
    for game in range(4):
        env.reset(seed=11, options={"game": game})
        start = margin(env.game.kind.running_scores(env.game.state))
        starts.append(start)
        rewards, _ = _play(env, rng)
        end = margin(env.game.totals())
        assert sum(rewards) == pytest.approx((end - start) / unit + env.game.win_shares()[1], abs=1e-9)
        first_round = rewards[:10]  # no round ends within the learner's first ten decisions
        assert any(r != 0.0 for r in first_round), first_round
    if rules == "classic" and players == 4:
        assert any(s != 0.0 for s in starts)  # the case the start is there for


def test_total_change_keeps_its_meaning_the_change_of_the_total_in_dollar_millions():
    env = CoverYourAssetsGym(n_players=2, opponents="greedy", reward="total_change")
    env.reset(seed=2)
    rewards, _ = _play(env, np.random.default_rng(1))
    assert sum(rewards) == pytest.approx(env.game.totals()[0] / 1e6 + env.game.win_shares()[0], abs=1e-9)
    assert all(r == 0.0 for r in rewards[:10])  # totals change only when a round is scored (R-SCORE)


def test_theft_vector_env_equals_the_single_env_row_by_row_with_the_defaults():
    """The theft game's defaults (table vector, margin in points) in both Gymnasium environments."""
    b = 2
    vec = CoverYourAssetsVectorEnv(num_envs=b, rules="theft", n_players=3, opponents="greedy,defender")
    obs, info = vec.reset(seed=6)
    singles = [CoverYourAssetsGym("theft", n_players=3, opponents="greedy,defender") for _ in range(b)]
    single_obs = [e.reset(seed=6, options={"game": i})[0] for i, e in enumerate(singles)]
    rng = np.random.default_rng(2)
    ended = 0
    for _ in range(300):
        for i in range(b):
            np.testing.assert_array_equal(obs[i], single_obs[i])
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in vec.action_masks()])
        obs, reward, terminated, truncated, info = vec.step(actions)
        for i in range(b):
            o, r, t, tr, _ = singles[i].step(int(actions[i]))
            assert (t, tr, r) == (bool(terminated[i]), bool(truncated[i]), reward[i])
            if t or tr:
                ended += 1
                o, _ = singles[i].reset(options={"game": int(info["game"][i])})
            single_obs[i] = o
    assert ended >= 4


@pytest.mark.parametrize(("preset", "players"), [("classic", 2), ("classic", 5), ("basic", 3), ("guide", 6)])
def test_view_features_stay_within_their_bounds_in_played_games(preset, players):
    """The features' Box holds every vector of random games, and its bounds are finite (Gymnasium's checker)."""
    enc = ViewFeatureEncoder(get_rules(preset), players)
    assert np.isfinite(enc.high).all() and (enc.low == 0).all()
    env = CoverYourAssetsGym(preset, n_players=players, opponents="random")
    rng = np.random.default_rng(players)
    seen = 0
    for game in range(2):
        obs, _ = env.reset(seed=21, options={"game": game})
        terminated = truncated = False
        while not (terminated or truncated):
            assert ((obs >= enc.low) & (obs <= enc.high)).all(), np.flatnonzero((obs < enc.low) | (obs > enc.high))
            obs, _r, terminated, truncated, _ = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
            seen += 1
    assert seen > 50


def test_the_sb3_adapter_over_gym_make_vec_has_the_recipes_observation_and_reward():
    """``make_sb3_vec_env(gym.make_vec(...))``: the batched engine with the single environment's defaults."""
    pytest.importorskip("stable_baselines3", reason="the train extra (pip install -e '.[train]') is not installed")
    from cya_sim.env.sb3 import make_sb3_vec_env

    single = gym.make(GYM_ID, n_players=2, opponents="greedy")
    venv = make_sb3_vec_env(gym.make_vec(GYM_ID, num_envs=4, n_players=2, opponents="greedy"), seed=3)
    assert venv.observation_space == single.observation_space and venv.action_space == single.action_space
    obs = venv.reset()
    first, _ = single.reset(seed=3)
    np.testing.assert_array_equal(obs[0], first)
    rng = np.random.default_rng(0)
    rewards = np.zeros(4)
    for _ in range(40):
        masks = venv.action_masks()
        obs, r, _dones, _infos = venv.step(np.argmax(rng.random(masks.shape) * masks, axis=1))
        rewards += np.abs(r)
    assert r.dtype == np.float32 and (rewards > 0).all()  # the margin pays before any game ends
