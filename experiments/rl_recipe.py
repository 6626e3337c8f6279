"""The learning curve of the RL page's recipe: sb3-contrib's MaskablePPO with its defaults on ``gym.make``'s environment.

The recipe is ``examples/sb3_maskable_ppo.py`` (docs/rl.md), run for several training seeds: the environment
``gym.make("cya_sim/CoverYourAssets-v0", n_players=2, opponents="greedy")`` with its defaults (or the
``--reward`` and ``--observation`` given), ``ActionMasker``, ``make_vec_env`` with 4 environments seeded with the
training seed, ``MaskablePPO("MlpPolicy", env, seed=seed)`` with sb3-contrib's default hyper-parameters (rollouts
of 4 x 2,048 steps, 10 epochs of minibatches of 64, learning rate 3e-4). Before each rollout and at the end the
policy, playing greedily, plays ``--eval-games`` held-out games against ``greedy``
(:func:`cya_sim.env.sb3.held_out_win_shares`: games 0.. of seed 10,001, never dealt in training), the game being
the unit of the 95% Wilson interval. Evaluating does not change the training (it draws on no random stream of
the model), so the point at 24,576 steps is what the example prints after ``model.learn(20_000)``; with the
environment's defaults the script checks that by running the example itself for the first seed.

Writes ``OUT.csv`` (one row per seed and point), ``OUT.png`` (the curves; not with ``--no-plot``), ``OUT.json`` (per seed, the result at
the recipe's 20,000 steps and at the end, with wall times and the machine's load) and ``OUT.md`` (the table). One
torch thread per run; ``--jobs`` runs seeds side by side::

    python experiments/rl_recipe.py --seeds 1 2 3 4 5 --steps 98304 --jobs 2
    python experiments/rl_recipe.py --observation table --reward win_share --jobs 2 --no-plot \
        --out experiments/rl_recipe_table_win_share
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import subprocess
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
#: Learner steps of the recipe (``model.learn(20_000)`` collects whole rollouts of 4 x 2,048 steps: 24,576).
RECIPE_STEPS = 20_000
EVAL_SEED = 10_001


def run_seed(seed: int, steps: int, games: int, env_kwargs: dict) -> list[dict]:
    """Train one seed to ``steps``, evaluating before every rollout and at the end; the curve's rows."""
    import gymnasium as gym
    import torch
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.wrappers import ActionMasker
    from stable_baselines3.common.callbacks import BaseCallback
    from stable_baselines3.common.env_util import make_vec_env

    import cya_sim.env  # noqa: F401  (registers the id)
    from cya_sim.env.sb3 import held_out_win_shares
    from cya_sim.reports.stats import wilson_interval

    torch.set_num_threads(1)
    kwargs = {"n_players": 2, "opponents": "greedy", **env_kwargs}
    rows: list[dict] = []
    t0 = time.perf_counter()

    def point(model) -> None:
        shares = held_out_win_shares(model, games=games, seed=EVAL_SEED, **kwargs)
        low, high = wilson_interval(shares.sum(), shares.size)
        rows.append({"seed": seed, "steps": int(model.num_timesteps), "win_share": float(shares.mean()),
                     "ci_low": float(low), "ci_high": float(high), "games": int(shares.size),
                     "wall_s": round(time.perf_counter() - t0, 1)})
        print(f"seed {seed}: {model.num_timesteps:>7,} steps, held-out win share {shares.mean():.3f} "
              f"[{low:.3f}, {high:.3f}] ({time.perf_counter() - t0:.0f} s)", flush=True)

    class Curve(BaseCallback):
        """A point before each rollout (the policy after the previous update)."""

        def _on_rollout_start(self) -> None:
            point(self.model)

        def _on_step(self) -> bool:
            return True

    def make_env():
        return ActionMasker(gym.make("cya_sim/CoverYourAssets-v0", **kwargs), "action_masks")

    env = make_vec_env(make_env, n_envs=4, seed=seed)
    model = MaskablePPO("MlpPolicy", env, seed=seed)
    model.learn(steps, callback=Curve())
    point(model)
    return rows


def example_result(seed: int) -> str:
    """The held-out win share ``examples/sb3_maskable_ppo.py`` prints for ``seed`` (one torch thread), as printed."""
    out = subprocess.run([sys.executable, str(ROOT / "examples" / "sb3_maskable_ppo.py"), str(RECIPE_STEPS), str(seed)],
                         capture_output=True, text=True, check=True, cwd=ROOT, env={**os.environ, "OMP_NUM_THREADS": "1"})
    line = out.stdout.strip().splitlines()[-1]
    return line.split("greedy: ")[1].split()[0]


def plot(df, path: Path, title: str) -> None:
    """Held-out win share against training steps, one line per seed and their mean."""
    import matplotlib

    matplotlib.use("Agg")
    import textwrap

    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(9, 4.2))
    for seed, d in df.groupby("seed"):
        ax.plot(d["steps"], d["win_share"], "o-", ms=3, lw=1, alpha=0.6, label=f"seed {seed}")
    mean = df.groupby("steps")["win_share"].agg(["mean", "count"])
    mean = mean[mean["count"] == df["seed"].nunique()]
    ax.plot(mean.index, mean["mean"], "k-", lw=2.5, label="mean of the seeds")
    ax.axhline(0.5, color="0.5", ls="--", lw=1, label="even with greedy (0.5)")
    ax.axvline(24_576, color="tab:red", ls=":", lw=1.2, label="the recipe's learn(20_000): 24,576 steps")
    ax.set_xlabel("learner steps in training (4 environments)")
    ax.set_ylabel("held-out win share against greedy")
    ax.set_ylim(-0.02, 1.02)
    ax.set_xlim(-0.02 * df["steps"].max(), df["steps"].max() * 1.02)  # the points at step 0 whole inside the frame
    ax.xaxis.set_major_formatter(matplotlib.ticker.StrMethodFormatter("{x:,.0f}"))
    ax.set_title("\n".join(textwrap.wrap(title, 90)), fontsize=9)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def summary(df, args, wall: dict, load: tuple, example: dict) -> dict:
    """Per seed, the result at the recipe's steps and at the end; their mean and standard deviation over seeds."""
    seeds = {}
    for seed, d in df.groupby("seed"):
        at = d[d["steps"] == 24_576].iloc[-1] if (d["steps"] == 24_576).any() else None
        end = d.iloc[-1]
        seeds[int(seed)] = {
            "at_24576": None if at is None else {k: round(float(at[k]), 4) for k in ("win_share", "ci_low", "ci_high")},
            "end": {"steps": int(end["steps"]), **{k: round(float(end[k]), 4) for k in ("win_share", "ci_low", "ci_high")}},
            "wall_s": wall[int(seed)]}

    def stats(key):
        v = np.array([s[key]["win_share"] for s in seeds.values() if s[key] is not None])
        if v.size == 0:
            return None
        return {"mean": round(float(v.mean()), 4), "sd": round(float(v.std(ddof=1)), 4) if v.size > 1 else None,
                "min": round(float(v.min()), 4), "max": round(float(v.max()), 4), "seeds": int(v.size)}

    import sb3_contrib
    import stable_baselines3
    import torch

    return {"command": "python experiments/rl_recipe.py " + shlex.join(sys.argv[1:]),
            "env": {"n_players": 2, "opponents": "greedy", "reward": args.reward or "(default)",
                    "observation": args.observation or "(default)"},
            "eval": {"games": args.eval_games, "seed": EVAL_SEED, "interval": "95% Wilson, the game the unit"},
            "seeds": seeds, "at_24576": stats("at_24576"), "end": stats("end"),
            "example_check": example, "load_1min": {"start": load[0], "end": load[1]}, "torch_threads": 1,
            "versions": {"torch": torch.__version__, "stable_baselines3": stable_baselines3.__version__,
                         "sb3_contrib": sb3_contrib.__version__}}


def markdown(s: dict) -> str:
    """The table of ``OUT.md``: a row per seed, then the mean and standard deviation over the seeds."""
    def cell(r: dict | None) -> str:
        return "" if r is None else f"{r['win_share']:.3f} [{r['ci_low']:.3f}, {r['ci_high']:.3f}]"

    def spread(st: dict | None) -> str:
        return "" if st is None else f"mean {st['mean']:.3f}, sd {st['sd']}, {st['min']:.3f} to {st['max']:.3f}"

    lines = ["# The RL page's recipe: held-out win share against `greedy` (2 players)", "",
             (f"Command: `{s['command']}`; environment {s['env']}; {s['eval']['games']} held-out games per point "
              f"(seed {s['eval']['seed']}), {s['eval']['interval']}; one torch thread per run; load (1 min) "
              f"{s['load_1min']['start']:.1f} at the start, {s['load_1min']['end']:.1f} at the end."), "",
             "| training seed | at 24,576 steps (`learn(20_000)`) [95% CI] | at the end [95% CI] | steps | wall s |",
             "|---|---|---|---|---|"]
    for seed, r in s["seeds"].items():
        lines.append(f"| {seed} | {cell(r['at_24576'])} | {cell(r['end'])} | {r['end']['steps']:,} | "
                     f"{r['wall_s']:.0f} |")
    lines.append(f"| all | {spread(s['at_24576'])} | {spread(s['end'])} | | |")
    if s["example_check"]:
        c = s["example_check"]
        lines += ["", (f"`examples/sb3_maskable_ppo.py` run for seed {c['seed']} printed {c['example']}; the "
                       f"curve's point at 24,576 steps is {c['curve']:.3f}.")]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    """Run the seeds, write the curve, its table and plot; 0, or 1 when the example disagrees with the curve."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3])
    p.add_argument("--steps", type=int, default=RECIPE_STEPS, help="learner steps in training (default 20,000)")
    p.add_argument("--eval-games", type=int, default=300)
    p.add_argument("--reward", default=None, help="the environment's reward (default: its default)")
    p.add_argument("--observation", default=None, help="the environment's observation (default: its default)")
    p.add_argument("--jobs", type=int, default=1)
    p.add_argument("--no-plot", action="store_true", help="write no OUT.png (the comparisons' runs)")
    p.add_argument("--out", type=Path, default=ROOT / "experiments" / "rl_recipe")
    p.add_argument("--replot", action="store_true", help="redraw OUT.png from OUT.csv (no training)")
    a = p.parse_args(argv)
    import pandas as pd

    if a.replot:
        what = ", ".join(f"{k}={v}" for k, v in (("reward", a.reward), ("observation", a.observation)) if v is not None)
        what = what or "the environment's defaults"
        df = pd.read_csv(a.out.with_suffix(".csv"))
        plot(df, a.out.with_suffix(".png"), f"MaskablePPO with sb3-contrib's defaults, gym.make ({what}), 2 players "
             f"against greedy; {int(df['games'].iloc[0])} held-out games a point")
        print(f"wrote {a.out.with_suffix('.png')}")
        return 0

    env_kwargs = {k: v for k, v in (("reward", a.reward), ("observation", a.observation)) if v is not None}
    load0 = os.getloadavg()[0]
    wall: dict[int, float] = {}
    rows: list[dict] = []
    with ProcessPoolExecutor(max_workers=a.jobs, mp_context=get_context("spawn")) as pool:
        futures = {seed: pool.submit(run_seed, seed, a.steps, a.eval_games, env_kwargs) for seed in a.seeds}
        for seed, f in futures.items():
            r = f.result()
            rows += r
            wall[seed] = r[-1]["wall_s"]
    df = pd.DataFrame(rows).sort_values(["seed", "steps"]).reset_index(drop=True)
    example = {}
    if not env_kwargs and a.steps >= RECIPE_STEPS:  # the example itself must print the curve's point at 24,576 steps
        seed = a.seeds[0]
        at = df[(df["seed"] == seed) & (df["steps"] == 24_576)]["win_share"]
        example = {"seed": seed, "example": example_result(seed), "curve": round(float(at.iloc[-1]), 4)}
    load1 = os.getloadavg()[0]
    s = summary(df, a, wall, (load0, load1), example)
    a.out.parent.mkdir(parents=True, exist_ok=True)
    df.to_csv(a.out.with_suffix(".csv"), index=False)
    what = ", ".join(f"{k}={v}" for k, v in env_kwargs.items()) or "the environment's defaults"
    if not a.no_plot:
        plot(df, a.out.with_suffix(".png"), f"MaskablePPO with sb3-contrib's defaults, gym.make ({what}), 2 players "
             f"against greedy; {a.eval_games} held-out games a point")
    a.out.with_suffix(".json").write_text(json.dumps(s, indent=2) + "\n")
    a.out.with_suffix(".md").write_text(markdown(s))
    print(markdown(s))
    if example and example["example"] != f"{example['curve']:.3f}":
        print(f"the example printed {example['example']}, the curve has {example['curve']:.4f}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
