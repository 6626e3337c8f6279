"""A random agent written against the PettingZoo API plays one game (cya_sim.env.cover_your_assets_v0)."""
import numpy as np

from cya_sim.env import cover_your_assets_v0

env = cover_your_assets_v0.env(rules="classic", n_players=4, render_mode="ansi")  # PettingZoo's standard wrappers
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
