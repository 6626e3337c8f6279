"""``cya-sim bench --env``: learner steps per second of the batched vector environment against Gymnasium's
``SyncVectorEnv`` over the single-game environment, measured side by side in one run.

Both play 4-player classic with the learner at seat 0 choosing uniformly among its legal actions and
the opponents given by ``--env-opponents``, observing the §10 table vector (``observation="table"``, the
costlier observation to build; the view features of the default are cheaper) with the sparse win share; a step
is one learner decision in one game (the opponents' decisions between two learner decisions are part of it). Speeds are per CPU second of this process
(one thread), with wall seconds reported too.
"""

from __future__ import annotations

import time

import numpy as np


def _random_legal(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """(B,) a uniformly random legal action per row of (B, A) bool masks."""
    return np.argmax(rng.random(masks.shape) * masks, axis=1)


def _run(step, seconds: float) -> tuple[int, float, float]:
    """Call ``step()`` (returns steps done) until ``seconds`` of CPU time; (steps, cpu s, wall s)."""
    c0, w0 = time.process_time(), time.perf_counter()
    n = 0
    while time.process_time() - c0 < seconds:
        n += step()
    return n, time.process_time() - c0, time.perf_counter() - w0


def env_speed(num_envs: int = 256, sync_envs: int = 8, seconds: float = 10.0,
              opponents: str = "greedy,card_counter", seed: int = 1) -> dict:
    """Steps/s of :class:`~cya_sim.env.vector.CoverYourAssetsVectorEnv` (``num_envs`` rows) and of
    ``gymnasium.vector.SyncVectorEnv`` over ``sync_envs`` :class:`~cya_sim.env.gym.CoverYourAssetsGym`;
    a JSON-ready dict (steps/s per CPU second and per wall second, their ratio)."""
    from gymnasium.vector import SyncVectorEnv

    from cya_sim.env.gym import CoverYourAssetsGym
    from cya_sim.env.vector import CoverYourAssetsVectorEnv

    rng = np.random.default_rng(seed)
    setting = {"observation": "table", "reward": "win_share"}
    out: dict = {"rules": "classic", "players": 4, "learner_seat": 0, "opponents": opponents,
                 "learner_policy": "uniform over legal actions", **setting}
    vec = CoverYourAssetsVectorEnv(num_envs=num_envs, opponents=opponents, **setting)
    t0 = time.perf_counter()
    vec.reset(seed=seed)
    vec.step(_random_legal(vec.action_masks(), rng))  # compile or load the numba cache outside the timing
    out["vector_warmup_s"] = time.perf_counter() - t0

    def vstep() -> int:
        vec.step(_random_legal(vec.action_masks(), rng))
        return num_envs

    n, cpu, wall = _run(vstep, seconds)
    out.update(vector_num_envs=num_envs, vector_steps=n, vector_steps_per_s=n / cpu, vector_steps_per_wall_s=n / wall)

    sync = SyncVectorEnv([lambda: CoverYourAssetsGym(opponents=opponents, **setting) for _ in range(sync_envs)])
    sync.reset(seed=seed)

    def sstep() -> int:
        masks = np.stack(sync.call("action_masks"))
        sync.step(_random_legal(masks, rng))
        return sync_envs

    n, cpu, wall = _run(sstep, seconds)
    out.update(sync_num_envs=sync_envs, sync_steps=n, sync_steps_per_s=n / cpu, sync_steps_per_wall_s=n / wall)
    out["vector_vs_sync"] = out["vector_steps_per_s"] / out["sync_steps_per_s"]
    return out
