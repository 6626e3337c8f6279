"""sb3-contrib's MaskablePPO learns on the batched engine: view features, the dense reward, the SB3 adapter."""
import numpy as np
from sb3_contrib import MaskablePPO

from cya_sim.env.sb3 import ViewFeatureVectorEnv, make_sb3_vec_env

STEPS = 100_000  # learner decisions in training, 64 games side by side (a few minutes on a CPU)


def held_out_share(model) -> float:
    """Mean win share against greedy on games 0..299 of a seed never dealt in training (each row's first game)."""
    env = ViewFeatureVectorEnv(num_envs=300, n_players=2, opponents="greedy", reward="win_share")
    obs, _ = env.reset(seed=10_001)
    share = np.full(300, np.nan)
    while np.isnan(share).any():
        action, _ = model.predict(obs, deterministic=True, action_masks=env.action_masks())
        obs, reward, terminated, truncated, _ = env.step(action)
        first = (terminated | truncated) & np.isnan(share)
        share[first] = reward[first]
    return float(share.mean())


train = make_sb3_vec_env(ViewFeatureVectorEnv(num_envs=64, n_players=2, opponents="greedy", reward="dense"), seed=1)
model = MaskablePPO("MlpPolicy", train, n_steps=128, batch_size=256, n_epochs=10, seed=1, device="cpu", verbose=0)
model.learn(STEPS)
print(f"held-out win share against greedy, 300 games: {held_out_share(model):.3f} after {model.num_timesteps} steps")
