"""sb3-contrib's recipe, as its docs give it, learns on gym.make's environment: MaskablePPO beats greedy in 20,000 steps."""
import sys

import gymnasium as gym
from sb3_contrib import MaskablePPO
from sb3_contrib.common.wrappers import ActionMasker
from stable_baselines3.common.env_util import make_vec_env

import cya_sim.env  # noqa: F401  (registers cya_sim/CoverYourAssets-v0)
from cya_sim.env.sb3 import held_out_win_shares
from cya_sim.reports.stats import wilson_interval

STEPS = int(sys.argv[1]) if len(sys.argv) > 1 else 20_000  # learner decisions in training
SEED = int(sys.argv[2]) if len(sys.argv) > 2 else 1


def make_env():
    """The environment's defaults (view features, margin reward), 2 players, greedy in the other seat."""
    return ActionMasker(gym.make("cya_sim/CoverYourAssets-v0", n_players=2, opponents="greedy"), "action_masks")


env = make_vec_env(make_env, n_envs=4, seed=SEED)  # games of seeds SEED .. SEED + 3
model = MaskablePPO("MlpPolicy", env, seed=SEED)  # sb3-contrib's default hyper-parameters
model.learn(STEPS)
# 300 games of a seed never dealt in training, the policy playing greedily; the game is the unit
shares = held_out_win_shares(model, games=300, seed=10_001, n_players=2, opponents="greedy")
low, high = wilson_interval(shares.sum(), shares.size)
print(f"held-out win share against greedy: {shares.mean():.3f} (95% CI {low:.3f} to {high:.3f}) over {shares.size} "
      f"games after {model.num_timesteps:,} steps")
