"""A random agent written against the PettingZoo API plays one game (cya_sim.env.CoverYourAssetsAEC)."""
import numpy as np

from cya_sim.env import CoverYourAssetsAEC

env = CoverYourAssetsAEC(rules="classic", n_players=4, render_mode="ansi")
env.reset(seed=1)  # game 0 of seed 1: the deal of `cya-sim play --seed 1`
for agent in env.agent_iter():
    obs, reward, terminated, truncated, info = env.last()
    if terminated or truncated:
        print(agent, "win share", reward)
        env.step(None)
        continue
    legal = np.flatnonzero(obs["action_mask"])
    env.step(int(legal[int(env.agent_rng(agent).random() * len(legal))]))  # the draw of the built-in `random`
print("\n".join(env.render().splitlines()[-2:]))  # the end of the readable log of `cya-sim play`
