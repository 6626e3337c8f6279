"""256 games stepped at once on the compiled engine (cya_sim.env.CoverYourAssetsVectorEnv)."""
import numpy as np

from cya_sim.env import CoverYourAssetsVectorEnv

envs = CoverYourAssetsVectorEnv(num_envs=256, opponents="greedy,card_counter")
obs, info = envs.reset(seed=1)  # games 0..255 of seed 1, one per row; a finished row takes the next game
rng = np.random.default_rng(0)
wins = games = 0
for _ in range(200):
    masks = envs.action_masks()  # (256, A) bool
    actions = np.argmax(rng.random(masks.shape) * masks, axis=1)  # uniform over the legal actions
    obs, reward, terminated, truncated, info = envs.step(actions)
    wins, games = wins + reward.sum(), games + terminated.sum()
print(f"{games} games finished; a random learner's win share: {wins / games:.3f}")
