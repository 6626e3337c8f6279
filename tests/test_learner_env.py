"""The learned agents' training environment (cya_sim.env.classic.learner): its features are the play loop's view features
under the classic and the advanced rules, equal to the committed models' training environment on the classic game,
and it refuses what the features do not encode."""

from __future__ import annotations

import numpy as np
import pytest

from agents.classic.learned import features, n_features
from agents.classic.view import build_view
from cya_sim.engine.classic.adapter import reference_observation
from cya_sim.env.classic.learner import LearnerVectorEnv
from cya_sim.env.sb3 import ViewFeatureVectorEnv
from cya_sim.game.rules import get_rules


def _random_actions(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    return np.array([rng.choice(np.flatnonzero(r)) for r in mask])


@pytest.mark.parametrize("players", [2, 4])
def test_classic_observations_rewards_and_final_observations_equal_the_committed_models_environment(players):
    opponents = "card_counter,greedy" if players > 2 else "card_counter"
    kw = {"num_envs": 6, "n_players": players, "opponents": opponents, "reward": "dense", "dense_weight": 1.0}
    old, new = ViewFeatureVectorEnv(**kw), LearnerVectorEnv(**kw)
    o1, _ = old.reset(seed=7)
    o2, _ = new.reset(seed=7)
    rng = np.random.default_rng(3)
    finals = 0
    for _ in range(400):
        np.testing.assert_array_equal(o1, o2)
        np.testing.assert_array_equal(old.action_masks(), new.action_masks())
        act = _random_actions(new.action_masks(), rng)
        o1, r1, t1, u1, i1 = old.step(act)
        o2, r2, t2, u2, i2 = new.step(act)
        np.testing.assert_array_equal(r1, r2)
        np.testing.assert_array_equal(t1, t2)
        np.testing.assert_array_equal(u1, u2)
        for b in np.flatnonzero(t1 | u1):
            np.testing.assert_array_equal(i1["final_obs"][b], i2["final_obs"][b])
            finals += 1
    assert finals >= 10 and o2.shape[1] == n_features(players, 12, 10)


@pytest.mark.parametrize("preset, players", [("advanced", 2), ("advanced", 3), ("advanced", 6), ("classic", 3)])
def test_features_are_those_of_the_reference_view_of_each_row(preset, players):
    env = LearnerVectorEnv(num_envs=5, rules=preset, n_players=players, opponents="card_counter", reward="dense",
                           dense_weight=1.0)
    obs, _ = env.reset(seed=11)
    rules = get_rules(preset)
    advanced = preset == "advanced"
    assert obs.shape == (5, n_features(players, rules.deck.n_types, rules.deck.n_assets, advanced))
    rng = np.random.default_rng(5)
    checked = owed = left = second = 0
    for _ in range(150):
        st = env._batch.state
        for b in range(env.num_envs):
            o = reference_observation(st, b)
            hdr, hand, values, unseen, seats, mask = build_view(o)
            want = features(hdr, hand, values, unseen, seats, np.asarray(o.gave_up, bool))
            np.testing.assert_array_equal(obs[b], want.astype(np.float32))
            np.testing.assert_array_equal(env.action_masks()[b], mask)
            checked += 1
            if advanced:
                tail = want[n_features(players, rules.deck.n_types, rules.deck.n_assets):]
                owed += tail[0] > 0
                left += tail[1] > 0
                second += tail[2::3 + rules.deck.n_assets].sum() > 0
        obs, *_ = env.step(_random_actions(env.action_masks(), rng))
    assert checked == 750
    if advanced:  # the advanced block is exercised, not all zeros
        assert left > 0 and second > 0 and (owed > 0 or players == 2)


def test_refuses_rules_the_features_do_not_encode_and_bad_keywords():
    with pytest.raises(ValueError, match=r"^rules: 'two_player_draft'; .*draft piles"):
        LearnerVectorEnv(num_envs=2, rules="two_player_draft", n_players=2)
    with pytest.raises(ValueError, match=r"^rules: 'theft'; "):
        LearnerVectorEnv(num_envs=2, rules="theft", n_players=2)
    with pytest.raises(ValueError, match=r"^reward: 'margin'; allowed: dense, win_share"):
        LearnerVectorEnv(num_envs=2, reward="margin")
    with pytest.raises(ValueError, match=r"^dense_weight: "):
        LearnerVectorEnv(num_envs=2, dense_weight=float("nan"))
    with pytest.raises(ValueError, match="opponents"):
        LearnerVectorEnv(num_envs=2, n_players=2, opponents="ismcts")


@pytest.mark.parametrize("preset, players", [("classic", 4), ("advanced", 3)])
def test_expert_actions_are_the_compiled_agents_own_choices_in_the_learners_seat(preset, players):
    """Stepping the learner with card_counter's labels plays the games of card_counter in that seat."""
    from cya_sim.game.rng import root_key
    from cya_sim.play.families import family_of

    env = LearnerVectorEnv(num_envs=4, rules=preset, n_players=players, opponents="card_counter", reward="win_share",
                           dense_weight=1.0)
    env.reset(seed=21)
    totals: dict[int, np.ndarray] = {}
    while len(totals) < 8:
        act = env.expert_actions("card_counter")
        assert env.action_masks()[np.arange(4), act].all()
        _o, _r, term, trunc, info = env.step(act)
        for b in np.flatnonzero(term | trunc):
            totals[int(info["final_game"][b])] = info["final_total"][b]
    rules = get_rules(preset)
    games = np.array(sorted(totals), np.int64)
    t = family_of(rules).play_games("batched")(rules, ["card_counter"], np.zeros((games.size, players), np.int16),
                                               root_key(21), games)
    np.testing.assert_array_equal(np.asarray(t.totals)[:, 0], [totals[g] for g in games.tolist()])
    with pytest.raises(ValueError, match="expert: 'ismcts' has no compiled form; give rng"):
        env.expert_actions("ismcts")
    search = env.expert_actions("pimc(iterations=20)", np.random.default_rng(1))
    assert env.action_masks()[np.arange(4), search].all()
