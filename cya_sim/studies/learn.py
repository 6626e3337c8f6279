"""Train a learned agent: sb3-contrib's MaskablePPO on the batched engine, its learning curve, its export as a plug-in.

One procedure serves ``experiments/train_learned.py`` (the committed models) and ``cya-sim exploit`` (a best
response to an agent, :mod:`cya_sim.studies.exploit`):

* **Environment**: :class:`cya_sim.env.classic.learner.LearnerVectorEnv` — the learner in seat 0 (the first dealer is
  drawn at random, R-SETUP) against compiled opponents, observing :func:`agents.classic.learned.features` of its view as
  the play loop builds it, under the classic or the advanced rules at any table size; reward ``dense`` (change in
  its total in $M times ``dense_weight``, plus the final win share) or ``win_share``. Every keyword is passed.
* **Learner** (Schulman et al. 2017, "Proximal Policy Optimization Algorithms", with invalid-action masking,
  Huang & Ontañón 2022): actor and critic MLPs ``hidden`` tanh, ``envs`` games side by side, 128 steps per
  rollout, batch 2,048, 4 epochs, learning rate 3e-4, gamma 0.995, GAE lambda 0.95, entropy 0.01; torch on one
  thread (``torch.set_num_threads(1)``): the same seed gives the same weights, bit for bit.
* **Imitation first** (optional, ``imitate``): the expert plays the learner's seat for ``imitate_samples``
  decisions (seed ``seed + 30_000``: deals of their own); the actor is trained to choose its actions by
  cross-entropy over the legal actions of the decisions that had a choice (behaviour cloning, the distillation
  step of expert iteration: Anthony, Tian & Barber 2017, "Thinking Fast and Slow with Deep Learning and Tree
  Search"; Silver et al. 2017) — a search agent distilled into a network that plays at a network's speed. PPO
  then continues from it for ``steps`` (0: the distilled network as it is).
* **Learning curve**: every ``eval_every`` steps the deterministic policy (arg-max over legal actions) plays
  ``eval_games`` fresh games (seed ``seed + 10_000``, never a training deal); the mean win share and its
  standard error over games (the game is the unit).
* **Export** (:func:`write_model`): the actor's weights to ``NAME.npz`` with the generated plug-in ``NAME.py``
  (:func:`agents.classic.learned.write_plugin`, recording the rules, table size and encoding), ``NAME_curve.csv``/``.png``
  and ``NAME_train.json``. No torch at play time.

torch, stable-baselines3 and sb3-contrib are the ``train`` extra (``pip install -e '.[train]'``); without them
:func:`require_train_extra` refuses in one line.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
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
        imitate: an expert agent spec (compiled, or a search agent such as ``pimc(iterations=200)``) whose
            decisions the actor first learns to copy (:func:`imitate`); "" for none.
        imitate_samples: the expert's decisions collected (learner steps). imitate_epochs: passes over them.
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
    imitate: str = ""
    imitate_samples: int = 0
    imitate_epochs: int = 12

    def env_kwargs(self, num_envs: int, reward: str) -> dict[str, Any]:
        """Every keyword of :class:`~cya_sim.env.classic.learner.LearnerVectorEnv` (none left to a default)."""
        return {"num_envs": num_envs, "rules": self.preset, "n_players": self.players, "seat": 0,
                "opponents": self.opponents, "reward": reward, "dense_weight": self.dense_weight}


@dataclass
class TrainResult:
    """A trained model: ``model`` (MaskablePPO), ``curve`` (steps, win_share, se, wall_s), ``wall_s``, ``rules``,
    ``imitation`` (:func:`imitate`'s record, empty without imitation)."""

    model: Any
    curve: pd.DataFrame
    wall_s: float
    rules: Any
    imitation: dict[str, Any] = field(default_factory=dict)


#: Offset of the imitation deals' seed from ``seed`` (training deals: ``seed``; curve: ``seed + 10_000``;
#: exploit's held-out games: ``seed + 20_000``).
IMITATION_SEED_OFFSET = 30_000


def imitate(model: Any, cfg: TrainConfig, progress: Callable[[str], None] | None = print) -> dict[str, Any]:
    """Train ``model``'s actor to copy ``cfg.imitate`` (behaviour cloning; module docstring), in place.

    The expert plays the learner's seat of ``cfg.envs`` games side by side (:meth:`LearnerVectorEnv.expert_actions
    <cya_sim.env.classic.learner.LearnerVectorEnv.expert_actions>`), its states and actions recorded until
    ``cfg.imitate_samples`` decisions; a tenth of the decisions with a choice is held out. Adam (learning rate
    1e-3, minibatches of 512, seeded by ``cfg.seed``) minimises the cross-entropy of the masked logits for
    ``cfg.imitate_epochs`` passes.

    Returns:
        the record: ``expert``, ``samples``, ``with_choice`` (decisions with more than one legal action),
        ``heldout_accuracy`` (share of held-out decisions with a choice where the actor's arg-max is the expert's
        action), ``train_cross_entropy`` (last pass).
    """
    import torch

    env = make_env(cfg, cfg.envs, "win_share")
    obs, _ = env.reset(seed=cfg.seed + IMITATION_SEED_OFFSET)
    gen = np.random.default_rng(np.random.SeedSequence([cfg.seed, IMITATION_SEED_OFFSET]))
    xs, ms, acts = [], [], []
    while len(xs) * cfg.envs < cfg.imitate_samples:
        a = env.expert_actions(cfg.imitate, gen)
        xs.append(obs)
        ms.append(env.action_masks())
        acts.append(a)
        obs, *_ = env.step(a)
        if progress and len(xs) % 500 == 0:
            progress(f"imitation: {len(xs) * cfg.envs:,} decisions of {cfg.imitate}")
    x, m, a = np.concatenate(xs), np.concatenate(ms), np.concatenate(acts)
    choice = m.sum(axis=1) > 1
    xt, mt, at = (torch.as_tensor(v[choice]) for v in (x, m, a))
    order = np.random.default_rng(cfg.seed).permutation(len(at))
    held, fit = order[: len(at) // 10], order[len(at) // 10:]
    pol = model.policy
    torch.manual_seed(cfg.seed)
    opt = torch.optim.Adam(pol.parameters(), lr=1e-3)
    rng = np.random.default_rng(cfg.seed + 1)

    def logits(idx):
        hidden, _ = pol.mlp_extractor(pol.extract_features(xt[idx]))
        return pol.action_net(hidden).masked_fill(~mt[idx], -1e8)

    ce_sum, acc = 0.0, float("nan")
    for epoch in range(cfg.imitate_epochs):
        ce_sum = 0.0
        perm = rng.permutation(fit)
        for i in range(0, len(perm), 512):
            idx = perm[i:i + 512]
            ce = torch.nn.functional.cross_entropy(logits(idx), at[idx])
            opt.zero_grad()
            ce.backward()
            opt.step()
            ce_sum += ce.item() * len(idx)
        with torch.no_grad():
            acc = float((logits(held).argmax(1) == at[held]).float().mean()) if len(held) else float("nan")
        if progress:
            progress(f"imitation epoch {epoch + 1}: cross-entropy {ce_sum / max(len(fit), 1):.4f}, held-out "
                     f"accuracy {acc:.4f}")
    return {"expert": cfg.imitate, "samples": len(a), "with_choice": int(choice.sum()),
            "heldout_accuracy": acc, "train_cross_entropy": ce_sum / max(len(fit), 1)}


def make_env(cfg: TrainConfig, num_envs: int, reward: str):
    """The :class:`~cya_sim.env.classic.learner.LearnerVectorEnv` of ``cfg``.

    Raises:
        ValueError: what the environment refuses (opponents, rules, table size), in one line.
    """
    from cya_sim.env.classic.learner import LearnerVectorEnv

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
    record: dict[str, Any] = {}
    if cfg.imitate:
        record = imitate(model, cfg, progress)

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

    if cfg.steps > 0:
        model.learn(total_timesteps=cfg.steps, callback=Curve())
    point(int(model.num_timesteps))
    return TrainResult(model, pd.DataFrame(curve), round(time.time() - t0, 1), env.rules, record)


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

    from agents.classic.learned import write_plugin

    out.parent.mkdir(parents=True, exist_ok=True)
    meta = {"command": command, "seed": cfg.seed, "steps": result.model.num_timesteps, "opponents": cfg.opponents,
            "dense_weight": cfg.dense_weight, "wall_s": result.wall_s}
    if cfg.preset != "classic" or cfg.reward != "dense" or tuple(cfg.hidden) != (64, 64) or cfg.imitate:
        meta.update(preset=cfg.preset, reward=cfg.reward, hidden=list(cfg.hidden), imitate=cfg.imitate)
    py = write_plugin(out, export_weights(result.model), cfg.players, relu=False, rules=result.rules, meta=meta)
    result.curve.to_csv(out.with_name(out.name + "_curve.csv"), index=False)
    curve_figure(result.curve, cfg).savefig(out.with_name(out.name + "_curve.png"), dpi=110)
    record = {"command": command, "seed": cfg.seed, "steps": int(result.model.num_timesteps), "players": cfg.players,
              "opponents": cfg.opponents, "dense_weight": cfg.dense_weight, "wall_s": result.wall_s,
              "torch": torch.__version__}
    if "preset" in meta:
        record.update(preset=cfg.preset, reward=cfg.reward, hidden=list(cfg.hidden), envs=cfg.envs,
                      config=asdict(cfg))
    if result.imitation:
        record["imitation"] = result.imitation
    out.with_name(out.name + "_train.json").write_text(json.dumps(record, indent=2) + "\n")
    return py


def curve_figure(curve: pd.DataFrame, cfg: TrainConfig):
    """The learning curve (a matplotlib Figure): the held-out win share (%) of the deterministic policy at each
    evaluation with its 95% interval (1.96 standard errors) against the environment steps (k/M), and the fair
    share 1/P dashed. ``curve``: columns steps, win_share, se (one row per evaluation)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FuncFormatter, PercentFormatter

    fig, ax = plt.subplots(figsize=(6.4, 3.8), layout="constrained")
    ax.errorbar(curve["steps"], 100 * curve["win_share"], yerr=196 * curve["se"], fmt="o-", ms=3, capsize=2,
                label=f"win share, {cfg.eval_games:,} fresh games per point (95% interval)")
    ax.axhline(100 / cfg.players, color="0.6", ls="--", lw=1, label=f"fair share 1/{cfg.players}")
    top = max(100 / cfg.players, float((100 * curve["win_share"] + 196 * curve["se"]).max()))
    ax.set_ylim(-0.04 * top, 1.12 * top)
    ax.yaxis.set_major_formatter(PercentFormatter(100, decimals=0))
    ax.xaxis.set_major_formatter(FuncFormatter(
        lambda x, _p: f"{x / 1e6:g}M" if x >= 1e6 else f"{x / 1e3:g}k" if x else "0"))
    ax.set_xlabel("environment steps (learner decisions)", fontsize=9)
    ax.set_ylabel(f"win share vs {cfg.opponents}", fontsize=9)
    if curve["steps"].nunique() == 1:  # a distilled network kept as it is: one point, one tick
        ax.set_xticks(curve["steps"].unique())
    rules = "" if cfg.preset == "classic" else f"{cfg.preset}, "
    how = ("MaskablePPO" if not cfg.imitate else f"{cfg.imitate} distilled" if cfg.steps == 0
           else f"{cfg.imitate} distilled, then MaskablePPO")
    ax.set_title(f"{how}, {rules}{cfg.players} players, seed {cfg.seed}: held-out win share"
                 + ("" if cfg.steps == 0 else " while training"), fontsize=9)
    ax.grid(color="0.93")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.17), fontsize=8, frameon=False)
    return fig
