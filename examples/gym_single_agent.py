"""One learning seat against greedy and card_counter, made from Gymnasium's registry."""
import gymnasium as gym
import numpy as np

import cya_sim.env  # noqa: F401  (registers cya_sim/CoverYourAssets-v0)

env = gym.make("cya_sim/CoverYourAssets-v0", rules="classic", n_players=4, opponents="greedy,card_counter")
obs, info = env.reset(seed=1)
rng = np.random.default_rng(0)
returned = 0.0
terminated = truncated = False
while not (terminated or truncated):
    action = rng.choice(np.flatnonzero(info["action_mask"]))  # your masked policy goes here
    obs, reward, terminated, truncated, info = env.step(action)
    returned += reward  # the margin's changes as the game goes, then the win share
print(env.spec.id, env.unwrapped.observation, obs.shape, obs.dtype, "- return", round(returned, 2),
      "- win share", env.unwrapped.game.win_shares()[0])
