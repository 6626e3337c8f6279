"""Train a learned agent: sb3-contrib's MaskablePPO on the batched engine, its learning curve, its export as a plug-in.

One procedure serves ``experiments/train_learned.py`` (the committed models) and ``cya-sim exploit`` (a best
response to an agent, :mod:`cya_sim.studies.exploit`):

* **Environment**: :class:`cya_sim.env.learner.LearnerVectorEnv` — the learner in seat 0 (the first dealer is
  drawn at random, R-SETUP) against compiled opponents, observing :func:`agents.learned.features` of its view as
  the play loop builds it, under the classic or the advanced rules at any table size; reward ``dense`` (change in
  its total in $M times ``dense_weight``, plus the final win share) or ``win_share``. Every keyword is passed.
* **Learner** (Schulman et al. 2017, "Proximal Policy Optimization Algorithms", with invalid-action masking,
  Huang & Ontañón 2022): actor and critic MLPs ``hidden`` tanh, ``envs`` games side by side, 128 steps per
  rollout, batch 2,048, 4 epochs, learning rate 3e-4, gamma 0.995, GAE lambda 0.95, entropy 0.01; torch on one
  thread (``torch.set_num_threads(1)``): the same seed gives the same weights, bit for bit.
* **Learning curve**: every ``eval_every`` steps the deterministic policy (arg-max over legal actions) plays
  ``eval_games`` fresh games (seed ``seed + 10_000``, never a training deal); the mean win share and its
  standard error over games (the game is the unit).
* **Export** (:func:`write_model`): the actor's weights to ``NAME.npz`` with the generated plug-in ``NAME.py``
  (:func:`agents.learned.write_plugin`, recording the rules, table size and encoding), ``NAME_curve.csv``/``.png``
  and ``NAME_train.json``. No torch at play time.

torch, stable-baselines3 and sb3-contrib are the ``train`` extra (``pip install -e '.[train]'``); without them
:func:`require_train_extra` refuses in one line.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

#: Steps per rollout and per environment of the committed recipe.
N_STEPS = 128


class TrainExtraMissing(ValueError):
    """torch / stable-baselines3 / sb3-contrib are not installed; ``str(e)`` is the one line shown (exit 2)."""


def require_train_extra() -> None:
    """Refuse, in one line, when the ``train`` extra is missing.

    Raises:
        TrainExtraMissing: naming the missing module and ``pip install -e '.[train]'``.
    """
    for mod in ("torch", "stable_baselines3", "sb3_contrib"):
        try:
            __import__(mod)
        except ModuleNotFoundError:
            raise TrainExtraMissing(f"training needs {mod} (the train extra): pip install -e '.[train]' "
                                    "(torch 2.13.0, CPU wheel)") from None


@dataclass(frozen=True)
class TrainConfig:
    """One training run (module docstring).

    Attributes:
        preset: rule preset (classic family, no draft piles). players: table size P.
        opponents: compiled agent specs, comma-separated, cycled over seats 1 .. P - 1.
        steps: environment steps (learner decisions), rounded up to whole rollouts of ``envs * 128``.
        envs: games side by side. seed: seed of the games, the network's initialisation and the sampling.
        eval_every: steps between learning-curve points (0: only the first and last). eval_games: games a point.
        reward: ``dense`` or ``win_share``. dense_weight: factor of the change in total ($M) of ``dense``.
        hidden: the two hidden layers' widths of actor and critic.
    """

    preset: str = "classic"
    players: int = 2
    opponents: str = "card_counter"
    steps: int = 1_000_000
    envs: int = 64
    seed: int = 1
    eval_every: int = 100_000
    eval_games: int = 2000
    reward: str = "dense"
    dense_weight: float = 1.0
    hidden: tuple[int, int] = (64, 64)

    def env_kwargs(self, num_envs: int, reward: str) -> dict[str, Any]:
        """Every keyword of :class:`~cya_sim.env.learner.LearnerVectorEnv` (none left to a default)."""
        return {"num_envs": num_envs, "rules": self.preset, "n_players": self.players, "seat": 0,
                "opponents": self.opponents, "reward": reward, "dense_weight": self.dense_weight}


@dataclass
class TrainResult:
    """A trained model: ``model`` (MaskablePPO), ``curve`` (steps, win_share, se, wall_s), ``wall_s``, ``rules``."""

    model: Any
    curve: pd.DataFrame
    wall_s: float
    rules: Any


def make_env(cfg: TrainConfig, num_envs: int, reward: str):
    """The :class:`~cya_sim.env.learner.LearnerVectorEnv` of ``cfg``.

    Raises:
        ValueError: what the environment refuses (opponents, rules, table size), in one line.
    """
    from cya_sim.env.learner import LearnerVectorEnv

    return LearnerVectorEnv(**cfg.env_kwargs(num_envs, reward))


def evaluate(model: Any, cfg: TrainConfig, games: int, seed: int, num_envs: int = 64) -> np.ndarray:
    """(games,) float64 win shares of the deterministic policy in ``games`` fresh games of seed ``seed``.

    The first ``games`` games to finish are kept (the learner's seat 0, first dealer at random, R-SETUP).
    """
    env = make_env(cfg, min(num_envs, games), "win_share")
    obs, _ = env.reset(seed=seed)
    shares: list[float] = []
    while len(shares) < games:
        act, _ = model.predict(obs, deterministic=True, action_masks=env.action_masks())
        obs, r, term, trunc, _ = env.step(act)
        shares += [float(x) for x in r[term | trunc]]
    return np.array(shares[:games])


def train(cfg: TrainConfig, progress: Callable[[str], None] | None = print) -> TrainResult:
    """Train MaskablePPO as the module docstring says, with the learning curve.

    Raises:
        TrainExtraMissing: without the train extra. ValueError: what the environment refuses.
    """
    require_train_extra()
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.callbacks import BaseCallback

    from cya_sim.env.sb3 import make_sb3_vec_env

    torch.set_num_threads(1)
    env = make_env(cfg, cfg.envs, cfg.reward)
    venv = make_sb3_vec_env(env, seed=cfg.seed)
    model = MaskablePPO("MlpPolicy", venv, n_steps=N_STEPS, batch_size=2048, n_epochs=4, learning_rate=3e-4,
                        gamma=0.995, gae_lambda=0.95, ent_coef=0.01, seed=cfg.seed, verbose=0, device="cpu",
                        policy_kwargs={"net_arch": {"pi": list(cfg.hidden), "vf": list(cfg.hidden)},
                                       "activation_fn": torch.nn.Tanh})
    curve: list[dict] = []
    t0 = time.time()

    def point(steps: int) -> None:
        s = evaluate(model, cfg, cfg.eval_games, cfg.seed + 10_000)
        m, se = float(s.mean()), float(s.std(ddof=1) / np.sqrt(s.size))
        curve.append({"steps": steps, "win_share": m, "se": se, "wall_s": round(time.time() - t0, 1)})
        if progress:
            progress(f"{steps:>9,} steps  win share {m:.3f} ± {1.96 * se:.3f}  ({time.time() - t0:.0f} s)")

    class Curve(BaseCallback):
        """Evaluates the deterministic policy every ``eval_every`` steps."""

        def __init__(self) -> None:
            super().__init__()
            self.next = 0

        def _on_step(self) -> bool:
            if self.num_timesteps >= self.next:
                point(int(self.num_timesteps))
                self.next += cfg.eval_every if cfg.eval_every > 0 else cfg.steps + 1
            return True

    model.learn(total_timesteps=cfg.steps, callback=Curve())
    point(int(model.num_timesteps))
    return TrainResult(model, pd.DataFrame(curve), round(time.time() - t0, 1), env.rules)


def export_weights(model: Any) -> dict[str, np.ndarray]:
    """``W1, b1, W2, b2, W3, b3`` float64 (``x @ W + b``) of a MaskablePPO MlpPolicy's actor (two hidden layers).

    Raises:
        ValueError: an actor without exactly two hidden layers.
    """
    import torch

    pn = [m for m in model.policy.mlp_extractor.policy_net if isinstance(m, torch.nn.Linear)]
    if len(pn) != 2:
        raise ValueError(f"the actor has {len(pn)} hidden layers; the plug-in expects 2")
    out = {}
    for i, lin in enumerate([*pn, model.policy.action_net], start=1):
        out[f"W{i}"] = lin.weight.detach().cpu().numpy().T.astype(np.float64)
        out[f"b{i}"] = lin.bias.detach().cpu().numpy().astype(np.float64)
    return out


def write_model(out: Path, result: TrainResult, cfg: TrainConfig, command: str) -> Path:
    """Write ``NAME.npz``, ``NAME.py``, ``NAME_curve.csv``, ``NAME_curve.png`` and ``NAME_train.json`` (``out`` is
    ``.../NAME``); returns the plug-in module's path."""
    import torch

    from agents.learned import write_plugin

    out.parent.mkdir(parents=True, exist_ok=True)
    meta = {"command": command, "seed": cfg.seed, "steps": result.model.num_timesteps, "opponents": cfg.opponents,
            "dense_weight": cfg.dense_weight, "wall_s": result.wall_s}
    if cfg.preset != "classic" or cfg.reward != "dense" or tuple(cfg.hidden) != (64, 64):
        meta.update(preset=cfg.preset, reward=cfg.reward, hidden=list(cfg.hidden))
    py = write_plugin(out, export_weights(result.model), cfg.players, relu=False, rules=result.rules, meta=meta)
    result.curve.to_csv(out.with_name(out.name + "_curve.csv"), index=False)
    curve_figure(result.curve, cfg).savefig(out.with_name(out.name + "_curve.png"), dpi=100)
    record = {"command": command, "seed": cfg.seed, "steps": int(result.model.num_timesteps), "players": cfg.players,
              "opponents": cfg.opponents, "dense_weight": cfg.dense_weight, "wall_s": result.wall_s,
              "torch": torch.__version__}
    if "preset" in meta:
        record.update(preset=cfg.preset, reward=cfg.reward, hidden=list(cfg.hidden), envs=cfg.envs,
                      config=asdict(cfg))
    out.with_name(out.name + "_train.json").write_text(json.dumps(record, indent=2) + "\n")
    return py


def curve_figure(curve: pd.DataFrame, cfg: TrainConfig):
    """The learning curve: win share ± 1.96 SE against steps, the fair share 1/P dashed (a matplotlib Figure)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 3.6))
    ax.errorbar(curve["steps"], curve["win_share"], yerr=1.96 * curve["se"], fmt="o-", ms=3, capsize=2)
    ax.axhline(1 / cfg.players, color="0.6", ls="--", lw=1, label=f"fair share 1/{cfg.players}")
    ax.set_xlabel("environment steps (learner decisions)")
    ax.set_ylabel(f"win share vs {cfg.opponents}")
    rules = "" if cfg.preset == "classic" else f"{cfg.preset}, "
    ax.set_title(f"MaskablePPO, {rules}{cfg.players} players, seed {cfg.seed} ({cfg.eval_games} fresh games per point)",
                 fontsize=9)
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig
