"""Stable-Baselines3 on the batched engine: a SB3 ``VecEnv`` over the vector environments, and the learned agents'
training environment.

:func:`make_sb3_vec_env` wraps any vector environment of :mod:`cya_sim.env.vector` as a ``stable_baselines3``
``VecEnv`` (``reset() -> obs``, ``step_async`` / ``step_wait -> obs, rewards, dones, infos``, ``get_images()``)
with ``env_method("action_masks")`` for sb3-contrib's ``MaskablePPO``: B games stepped in one compiled call
instead of B single environments. Stable-Baselines3 is imported only there (the ``train`` extra).

:class:`ViewFeatureVectorEnv` is the vector environment set up as the committed learned agents were trained
(``experiments/train_learned.py``):

* **observations** are :func:`agents.classic.learned.features` of the learner's agent view
  (:class:`~cya_sim.env.features.ViewFeatureEncoder`, ``observation="features"``) — the very function the
  exported policy runs inside the compiled loop, so a network trained here plays the same inputs as a plug-in
  (:func:`agents.classic.learned.write_plugin`);
* **reward** ``"dense"``: at every learner step, the change in the learner's running total (R-SCORE) since its
  previous step, in millions of dollars times ``dense_weight``, plus the final win share (R-TIE) when the
  game ends (the vector environment's ``reward="total_change"``, weighted); ``"win_share"``: the final win share
  only.

The Gymnasium environments' defaults (``gym.make``, ``gym.make_vec``) are the view features too, with the margin
reward (:mod:`cya_sim.env.rewards`), which learns faster at small budgets (docs/rl.md).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from cya_sim.env.errors import missing_extra

try:
    import gymnasium  # noqa: F401  (the rl extra; the vector environment below needs it)
except ModuleNotFoundError as _e:  # one line naming the extra to install
    raise missing_extra(_e) from None

from cya_sim.env.features import batch_features  # noqa: F401  (its home before cya_sim.env.features)
from cya_sim.env.game import keyword_checked
from cya_sim.env.rewards import check_reward
from cya_sim.env.vector import CoverYourAssetsVectorEnv
from cya_sim.game.jsontext import show

#: The rewards of :class:`ViewFeatureVectorEnv`, and the vector environment's reward each one is.
REWARDS = ("dense", "win_share")
_AS_VECTOR_REWARD = {"dense": "total_change", "win_share": "win_share"}


@keyword_checked
class ViewFeatureVectorEnv(CoverYourAssetsVectorEnv):
    """The batched vector environment with view-feature observations and the dense reward of the learned agents.

    The vector environment with ``observation="features"`` and ``reward="total_change"`` (called ``"dense"``
    here, with a weight): the training environment of ``experiments/train_learned.py`` and the committed learned
    agents, kept as it was when they were trained (module docstring).

    Args:
        num_envs, rules, n_players, seat, opponents, render_mode: as
            :class:`~cya_sim.env.vector.CoverYourAssetsVectorEnv` (its defaults differ: 2 players against
            ``card_counter``).
        reward: ``"dense"`` or ``"win_share"``. dense_weight: factor of the change in total ($M).

    Spaces: ``single_observation_space`` ``Box(low, high, (F,), float32)``, F = :func:`agents.classic.learned.n_features`
    (:class:`~cya_sim.env.features.ViewFeatureEncoder`).

    Raises:
        ValueError: a reward not in :data:`REWARDS`, a dense weight that is not a finite number, rules with the
            advanced cards or draft piles, or the theft game (the features encode the classic game only), and what
            the vector environment refuses.
    """

    def __init__(self, num_envs: int = 64, rules: Any = "classic", n_players: int = 2, seat: int = 0,
                 opponents: str = "card_counter", reward: str = "dense", dense_weight: float = 1.0,
                 render_mode: str | None = None) -> None:
        reward = check_reward(reward, REWARDS)
        w = dense_weight
        number = isinstance(w, int | float | np.integer | np.floating) and not isinstance(w, bool | np.bool_)
        if not number or not (abs(int(w)) < 2**1023 if isinstance(w, int | np.integer) else math.isfinite(w)):
            raise ValueError(f"dense_weight: {show(dense_weight, python_str=True)} ({type(dense_weight).__name__}); "
                             "allowed: a finite number (the weight of the dense reward)")
        super().__init__(num_envs, rules, n_players, seat, opponents, reward=_AS_VECTOR_REWARD[reward],
                         observation="features", render_mode=render_mode)
        self.dense_weight = self._weight = float(dense_weight)
        self.n_features = self.encoder.size


def held_out_win_shares(policy, games: int = 300, seed: int = 10_001, **env_kwargs: Any) -> np.ndarray:
    """(games,) float64 the learner's win share in each of ``games`` held-out games, the policy playing greedily.

    Games ``0 .. games - 1`` of ``seed`` (a seed training never dealt: ``make_vec_env(..., seed=1)`` deals seeds
    1 to 4) are played side by side on :class:`~cya_sim.env.vector.CoverYourAssetsVectorEnv` (what ``gym.make_vec``
    of the registered id gives) with ``env_kwargs``, e.g. ``n_players=2, opponents="greedy"``: the observation and
    the rules of the environment the policy learned on; each row's first game only, so long games count as much
    as short ones. The game is
    the unit: a 95% interval of the mean is the Wilson interval of ``shares.sum()`` wins in ``games`` games
    (:func:`cya_sim.reports.stats.wilson_interval`; a shared win counts 1/k, R-TIE).

    Args:
        policy: what plays the learner's seat: ``policy.predict(obs, deterministic=True, action_masks=masks)``
            returns ``(actions, state)`` (sb3-contrib's ``MaskablePPO``), obs ``(games, D_obs)``, masks
            ``(games, A) bool``.

    Raises:
        ValueError: ``games`` not an integer from 1 to :data:`~cya_sim.env.vector.MAX_NUM_ENVS`, and what the vector
            environment refuses.
    """
    env = CoverYourAssetsVectorEnv(num_envs=games, **env_kwargs)
    obs, _ = env.reset(seed=seed)
    share = np.full(games, np.nan)
    while np.isnan(share).any():
        actions, _ = policy.predict(obs, deterministic=True, action_masks=env.action_masks())
        obs, _reward, terminated, truncated, info = env.step(actions)
        first = (terminated | truncated) & np.isnan(share)
        if first.any():
            share[first] = info["final_share"][first]
    return share


def sb3_infos(terminated: np.ndarray, truncated: np.ndarray, info: dict) -> list[dict]:
    """SB3's per-row infos of one vector step: for each finished row ``terminal_observation`` and ``TimeLimit.truncated``.

    Args:
        terminated, truncated: (B,) bool of the vector environment's step. info: its info dict (its
            ``final_obs`` holds each finished row's last observation, SAME_STEP autoreset).

    Returns:
        B dicts; a row whose game ended has ``terminal_observation`` (the finished game's last observation, not the
        next game's first) and ``TimeLimit.truncated`` (True when the ``max_rounds`` safeguard stopped it, so SB3
        bootstraps it; False when the game ended by its rules); the other rows' dicts are empty.
    """
    infos: list[dict] = [{} for _ in range(len(terminated))]
    for i in np.flatnonzero(terminated | truncated).tolist():
        infos[i]["terminal_observation"] = info["final_obs"][i]
        infos[i]["TimeLimit.truncated"] = bool(truncated[i] and not terminated[i])
    return infos


def make_sb3_vec_env(venv: CoverYourAssetsVectorEnv, seed: int | None = None):
    """A ``stable_baselines3.common.vec_env.VecEnv`` over a cya-sim vector environment (module docstring).

    ``reset()`` starts games 0.. of ``seed`` the first time and fresh random seeds after; every done row has
    already started its next game (its returned observation is the new game's first, SB3's convention), and its
    info holds ``terminal_observation``: the finished game's last observation (the vector environment's
    ``info["final_obs"]``), and ``TimeLimit.truncated``: True when the rules' ``max_rounds`` safeguard stopped
    the game (a truncation: SB3 bootstraps the value of ``terminal_observation``), False when it ended by its
    rules. Rewards are float32, dones ``terminated | truncated``.

    Raises:
        ImportError: stable-baselines3 is not installed (one line naming ``pip install -e '.[train]'``).
    """
    try:
        from stable_baselines3.common.vec_env import VecEnv
    except ModuleNotFoundError as e:  # torch, stable-baselines3 and sb3-contrib: the train extra
        raise missing_extra(e, "train", "make_sb3_vec_env") from None

    class CyaSB3VecEnv(VecEnv):
        """SB3 view of a cya-sim vector environment; ``action_masks()`` for MaskablePPO."""

        def __init__(self) -> None:
            self.venv, self._seed, self._actions = venv, seed, None  # first: VecEnv.__init__ reads render_mode
            super().__init__(venv.num_envs, venv.single_observation_space, venv.single_action_space)

        def reset(self):
            """Start the games (of ``seed`` the first time); return the (B, F) observations."""
            obs, _ = self.venv.reset(seed=self._seed)
            self._seed = None
            return obs

        def step_async(self, actions) -> None:
            """Keep the (B,) actions for :meth:`step_wait`."""
            self._actions = np.asarray(actions)

        def step_wait(self):
            """Step every row: (obs (B, F), rewards (B,) float32, dones (B,) bool, infos)."""
            obs, r, term, trunc, info = self.venv.step(self._actions)
            return obs, r.astype(np.float32), np.asarray(term | trunc), sb3_infos(term, trunc, info)

        def action_masks(self) -> np.ndarray:
            """(B, A) bool legal actions of the learner in each row."""
            return self.venv.action_masks()

        def get_images(self) -> list:
            """Each row's frame (``render_mode="rgb_array"``; SB3's ``render`` tiles them and ``VecVideoRecorder``
            films them)."""
            return list(self.venv.render() or [None] * self.num_envs)

        def close(self) -> None:
            """Close the vector environment."""
            self.venv.close()

        def get_attr(self, attr_name: str, indices=None) -> list:
            """The vector environment's attribute, once per requested row."""
            return [getattr(self.venv, attr_name)] * len(self._get_indices(indices))

        def set_attr(self, attr_name: str, value, indices=None) -> None:
            """Set an attribute of the vector environment (shared by every row)."""
            setattr(self.venv, attr_name, value)

        def has_attr(self, attr_name: str) -> bool:
            """Whether the attribute exists (``action_masks`` always, for MaskablePPO)."""
            return attr_name == "action_masks" or hasattr(self.venv, attr_name)

        def env_method(self, method_name: str, *args, indices=None, **kwargs) -> list:
            """Call a method of the vector environment; ``action_masks`` gives each row's own (A,) mask."""
            idx = list(self._get_indices(indices))
            if method_name == "action_masks":
                m = self.venv.action_masks()
                return [m[i] for i in idx]
            out = getattr(self.venv, method_name)(*args, **kwargs)
            return [out] * len(idx)

        def env_is_wrapped(self, wrapper_class, indices=None) -> list[bool]:
            """No row is wrapped."""
            return [False] * len(self._get_indices(indices))

        def seed(self, seed: int | None = None):
            """The seed of the next :meth:`reset`."""
            self._seed = seed
            return [seed] * self.num_envs

    return CyaSB3VecEnv()
