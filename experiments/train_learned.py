"""Train the learned agent (issue 22) with sb3-contrib's MaskablePPO on the batched engine, export it as a plug-in.

    pip install -e '.[train]'
    python experiments/train_learned.py --players 2 --steps 1000000 --seed 1 --out agents/learned_models/classic_2p

The learner plays one seat against ``--opponents`` (compiled agents) on :class:`cya_sim.env.sb3.ViewFeatureVectorEnv`
(observations: :func:`agents.classic.learned.features` of its agent view; reward ``dense``: change in its total in $M plus
the final win share), wrapped as a Stable-Baselines3 VecEnv (:func:`cya_sim.env.sb3.make_sb3_vec_env`). Every
``--eval-every`` steps the deterministic policy (arg-max over legal actions) plays ``--eval-games`` fresh games in
a separate environment (seed ``seed + 10_000``, never a training deal); the win shares make the learning curve
(``NAME_curve.csv``, ``NAME_curve.png``). At the end the policy network (``F -> 64 -> 64 -> A``, tanh) is
exported to numpy (``NAME.npz``) with a generated plug-in module ``NAME.py`` (:func:`agents.classic.learned.write_plugin`),
named like any agent: ``agents.learned_models.NAME:decide``; no torch at play time. The ``.npz`` records what the
model was trained for (the rules' preset and digest, the table size, the observation encoding): named at another
table size or under other rules it is refused in one line before any game (:func:`agents.classic.learned.check_setting`).
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
import time
from pathlib import Path

import numpy as np


def export_weights(model) -> dict[str, np.ndarray]:
    """``W1, b1, W2, b2, W3, b3`` (x @ W + b convention) of a MaskablePPO MlpPolicy's actor (two hidden layers)."""
    import torch

    pn = [m for m in model.policy.mlp_extractor.policy_net if isinstance(m, torch.nn.Linear)]
    an = model.policy.action_net
    if len(pn) != 2:
        raise ValueError(f"the actor has {len(pn)} hidden layers; the plug-in expects 2")
    out = {}
    for i, lin in enumerate([*pn, an], start=1):
        out[f"W{i}"] = lin.weight.detach().cpu().numpy().T.astype(np.float64)
        out[f"b{i}"] = lin.bias.detach().cpu().numpy().astype(np.float64)
    return out


def evaluate(model, players: int, opponents: str, games: int, seed: int) -> tuple[float, float]:
    """(mean win share, its standard error) of the deterministic policy over ``games`` fresh games."""
    from cya_sim.env.sb3 import ViewFeatureVectorEnv

    n = min(64, games)
    env = ViewFeatureVectorEnv(num_envs=n, n_players=players, opponents=opponents, reward="win_share")
    obs, _ = env.reset(seed=seed)
    shares: list[float] = []
    while len(shares) < games:
        act, _ = model.predict(obs, deterministic=True, action_masks=env.action_masks())
        obs, r, term, _trunc, _ = env.step(act)
        shares += [float(x) for x in r[term]]
    s = np.array(shares[:games])
    return float(s.mean()), float(s.std(ddof=1) / np.sqrt(s.size))


def main(argv: list[str] | None = None) -> int:
    """Train, record the learning curve, export; returns 0."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--players", type=int, default=2)
    p.add_argument("--opponents", default="card_counter")
    p.add_argument("--steps", type=int, default=1_000_000)
    p.add_argument("--envs", type=int, default=64)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--eval-every", type=int, default=100_000)
    p.add_argument("--eval-games", type=int, default=2000)
    p.add_argument("--dense-weight", type=float, default=1.0,
                   help="factor of the change in total ($M) in the dense reward (default 1)")
    p.add_argument("--out", type=Path, default=Path("agents/learned_models/classic_2p"))
    p.add_argument("--replot", action="store_true", help="redraw NAME_curve.png from NAME_curve.csv (no training)")
    a = p.parse_args(argv)
    if a.replot:
        print(f"wrote {replot(a.out)}")
        return 0

    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.callbacks import BaseCallback

    from agents.classic.learned import write_plugin
    from cya_sim.env.sb3 import ViewFeatureVectorEnv, make_sb3_vec_env

    torch.set_num_threads(1)
    env = ViewFeatureVectorEnv(num_envs=a.envs, n_players=a.players, opponents=a.opponents, reward="dense",
                               dense_weight=a.dense_weight)
    venv = make_sb3_vec_env(env, seed=a.seed)
    model = MaskablePPO("MlpPolicy", venv, n_steps=128, batch_size=2048, n_epochs=4, learning_rate=3e-4,
                        gamma=0.995, gae_lambda=0.95, ent_coef=0.01, seed=a.seed, verbose=0, device="cpu",
                        policy_kwargs={"net_arch": {"pi": [64, 64], "vf": [64, 64]}, "activation_fn": torch.nn.Tanh})
    curve: list[dict] = []
    t0 = time.time()

    class Curve(BaseCallback):
        """Evaluates the deterministic policy every ``--eval-every`` steps (the learning curve)."""

        def __init__(self) -> None:
            super().__init__()
            self.next = 0

        def _on_step(self) -> bool:
            if self.num_timesteps >= self.next:
                m, se = evaluate(self.model, a.players, a.opponents, a.eval_games, a.seed + 10_000)
                curve.append({"steps": int(self.num_timesteps), "win_share": m, "se": se,
                              "wall_s": round(time.time() - t0, 1)})
                print(f"{self.num_timesteps:>9,} steps  win share {m:.3f} ± {1.96 * se:.3f}  "
                      f"({time.time() - t0:.0f} s)", flush=True)
                self.next += a.eval_every
            return True

    cb = Curve()
    model.learn(total_timesteps=a.steps, callback=cb)
    m, se = evaluate(model, a.players, a.opponents, a.eval_games, a.seed + 10_000)
    curve.append({"steps": int(model.num_timesteps), "win_share": m, "se": se, "wall_s": round(time.time() - t0, 1)})
    print(f"{model.num_timesteps:>9,} steps  win share {m:.3f} ± {1.96 * se:.3f}  ({time.time() - t0:.0f} s)")
    command = "python experiments/train_learned.py " + shlex.join(sys.argv[1:] if argv is None else argv)
    a.out.parent.mkdir(parents=True, exist_ok=True)
    # the model records the rules, table size and encoding it was trained for; elsewhere it is refused
    py = write_plugin(a.out, export_weights(model), a.players, relu=False, rules=env.kind.rules,
                      meta={"command": command, "seed": a.seed, "steps": model.num_timesteps,
                            "opponents": a.opponents, "dense_weight": a.dense_weight,
                            "wall_s": round(time.time() - t0, 1)})
    import pandas as pd

    df = pd.DataFrame(curve)
    df.to_csv(a.out.with_name(a.out.name + "_curve.csv"), index=False)
    _plot(df, a, a.out.with_name(a.out.name + "_curve.png"))
    (a.out.with_name(a.out.name + "_train.json")).write_text(json.dumps(
        {"command": command, "seed": a.seed, "steps": int(model.num_timesteps), "players": a.players,
         "opponents": a.opponents, "dense_weight": a.dense_weight, "wall_s": round(time.time() - t0, 1),
         "torch": torch.__version__}, indent=2) + "\n")
    print(f"wrote {py} and {a.out.with_suffix('.npz')}")
    return 0


def _plot(df, a, path: Path) -> None:
    """The learning curve: the held-out win share (%) of the deterministic policy at each evaluation with its 95%
    interval (1.96 standard errors), against the environment steps (thousands), and the fair share 1/P."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FuncFormatter, PercentFormatter

    fig, ax = plt.subplots(figsize=(6.4, 3.8), layout="constrained")
    ax.errorbar(df["steps"], 100 * df["win_share"], yerr=196 * df["se"], fmt="o-", ms=3, capsize=2,
                label=f"win share, {a.eval_games:,} fresh games per point (95% interval)")
    ax.axhline(100 / a.players, color="0.6", ls="--", lw=1, label=f"fair share 1/{a.players}")
    top = max(100 / a.players, float((100 * df["win_share"] + 196 * df["se"]).max()))
    ax.set_ylim(-0.04 * top, 1.12 * top)
    ax.yaxis.set_major_formatter(PercentFormatter(100, decimals=0))
    ax.xaxis.set_major_formatter(FuncFormatter(lambda x, _p: f"{x / 1e6:g}M" if x >= 1e6 else f"{x / 1e3:g}k" if x else "0"))
    ax.set_xlabel("environment steps (learner decisions)", fontsize=9)
    ax.set_ylabel(f"win share vs {a.opponents}", fontsize=9)
    ax.set_title(f"MaskablePPO, {a.players} players, seed {a.seed}: held-out win share while training", fontsize=9)
    ax.grid(color="0.93")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.17), fontsize=8, frameon=False)
    fig.savefig(path, dpi=110)
    plt.close(fig)


def replot(out: Path) -> Path:
    """Redraw ``NAME_curve.png`` from the committed ``NAME_curve.csv`` and ``NAME_train.json`` (no training)."""
    import pandas as pd

    df = pd.read_csv(out.with_name(out.name + "_curve.csv"))
    train = json.loads(out.with_name(out.name + "_train.json").read_text())
    words = shlex.split(train.get("command", ""))
    games = int(words[words.index("--eval-games") + 1]) if "--eval-games" in words else 2000
    a = argparse.Namespace(players=train["players"], opponents=train["opponents"], seed=train["seed"], eval_games=games)
    path = out.with_name(out.name + "_curve.png")
    _plot(df, a, path)
    return path


if __name__ == "__main__":
    sys.exit(main())
