"""256 games stepped at once on the compiled engine: gym.make_vec gives the batched CoverYourAssetsVectorEnv."""
import gymnasium as gym
import numpy as np

import cya_sim.env  # noqa: F401  (registers cya_sim/CoverYourAssets-v0 and its vector entry point)

envs = gym.make_vec("cya_sim/CoverYourAssets-v0", num_envs=256, opponents="greedy,card_counter")
obs, info = envs.reset(seed=1)  # games 0..255 of seed 1, one per row; a finished row takes the next game
rng = np.random.default_rng(0)
wins = games = 0
for _ in range(200):
    masks = envs.action_masks()  # (256, A) bool
    actions = np.argmax(rng.random(masks.shape) * masks, axis=1)  # uniform over the legal actions
    obs, reward, terminated, truncated, info = envs.step(actions)
    if terminated.any():  # SAME_STEP autoreset: obs is the next game's; the finished game's last is in final_obs
        wins, games = wins + info["final_share"][terminated].sum(), games + terminated.sum()
        last = info["final_obs"][np.flatnonzero(terminated)[0]]
print(f"{games} games finished; a random learner's win share: {wins / games:.3f}; a final_obs {last.shape}")
