"""One learning seat against greedy and card_counter (cya_sim.env.CoverYourAssetsGym)."""
import numpy as np

from cya_sim.env import CoverYourAssetsGym

env = CoverYourAssetsGym(rules="classic", n_players=4, seat=0, opponents="greedy,card_counter")
obs, info = env.reset(seed=1)
rng = np.random.default_rng(0)
terminated = False
while not terminated:
    action = rng.choice(np.flatnonzero(env.action_masks()))  # your masked policy goes here
    obs, reward, terminated, truncated, info = env.step(action)
print("observation", obs.shape, obs.dtype, "- reward at the end:", reward)
