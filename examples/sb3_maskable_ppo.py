"""sb3-contrib's MaskablePPO learns on the batched engine: view features, the dense reward, the SB3 adapter."""
import numpy as np
from sb3_contrib import MaskablePPO

from cya_sim.env.sb3 import ViewFeatureVectorEnv, make_sb3_vec_env

STEPS = 20_000  # learner decisions in training (4 games side by side)
train = make_sb3_vec_env(ViewFeatureVectorEnv(num_envs=4, n_players=2, opponents="greedy", reward="dense"), seed=1)
model = MaskablePPO("MlpPolicy", train, seed=1, verbose=0)  # sb3-contrib's defaults
model.learn(STEPS)

held_out = ViewFeatureVectorEnv(num_envs=300, n_players=2, opponents="greedy", reward="win_share")
obs, _ = held_out.reset(seed=10_001)  # games 0..299 of a seed never dealt in training, one per row
share = np.full(300, np.nan)
while np.isnan(share).any():
    action, _ = model.predict(obs, deterministic=True, action_masks=held_out.action_masks())
    obs, reward, terminated, truncated, _ = held_out.step(action)
    first = (terminated | truncated) & np.isnan(share)  # each row's first game only
    share[first] = reward[first]
print(f"{STEPS} steps; held-out win share against greedy, 300 games: {share.mean():.3f}")
