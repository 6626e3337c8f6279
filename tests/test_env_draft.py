"""The RL environments on the draft presets (RULES.md §7): Gymnasium's ``check_env``, and the batched vector
environment equal to the single-game environment row by row (observation vectors with the draft block,
masks with the draft actions, rewards, game ends)."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("gymnasium")

from gymnasium.utils.env_checker import check_env

from cya_sim.env import CoverYourAssetsGym, CoverYourAssetsVectorEnv


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize(("rules", "players"), [("two_player_draft", 2), ("three_player_draft", 3),
                                                 ("two_player_draft_advanced", 2), ("three_player_draft_advanced", 3)])
def test_gymnasium_check_env_passes_on_drafts(rules, players):
    check_env(CoverYourAssetsGym(rules=rules, n_players=players, opponents="greedy"), skip_render_check=False)


@pytest.mark.parametrize(("rules", "players", "opponents"), [("two_player_draft", 2, "card_counter"),
                                                             ("three_player_draft", 3, "greedy,heuristic"),
                                                             ("two_player_draft_advanced", 2, "card_counter"),
                                                             ("three_player_draft_advanced", 3, "greedy,heuristic")])
def test_vector_env_equals_the_single_game_env_on_drafts(rules, players, opponents):
    b = 3
    vec = CoverYourAssetsVectorEnv(num_envs=b, rules=rules, n_players=players, opponents=opponents)
    obs, _ = vec.reset(seed=5)
    singles = [CoverYourAssetsGym(rules=rules, n_players=players, opponents=opponents) for _ in range(b)]
    single_obs = [e.reset(seed=5, options={"game": i})[0] for i, e in enumerate(singles)]
    draft = singles[0].encoder.blocks["draft"]
    rng = np.random.default_rng(1)
    offers = ended = 0
    sp = singles[0].game.space
    for _ in range(250):
        masks = vec.action_masks()
        for i in range(b):
            np.testing.assert_array_equal(obs[i], single_obs[i])
            np.testing.assert_array_equal(masks[i], singles[i].action_masks())
            offers += bool(masks[i][sp.draft_decline])
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        obs, reward, terminated, _, info = vec.step(actions)
        for i in range(b):
            o, r, t, _, _ = singles[i].step(int(actions[i]))
            assert (t, r) == (bool(terminated[i]), reward[i])
            if t:
                ended += 1
                o, _ = singles[i].reset(options={"game": int(info["game"][i])})
            single_obs[i] = o
    assert offers > 0
    assert draft[1] - draft[0] == 3 * (len(sp.card_names) + 1)
