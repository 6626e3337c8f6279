"""Train a learned agent (issues 22, 31) with sb3-contrib's MaskablePPO on the batched engine, export it as a plug-in.

    pip install -e '.[train]'
    python experiments/train_learned.py --players 2 --steps 1000000 --seed 1 --out agents/learned_models/classic_2p
    python experiments/train_learned.py --preset advanced --players 4 --steps 1500000 --seed 1 \\
        --out agents/learned_models/advanced_4p
    python experiments/train_learned.py --players 6 --imitate "pimc(iterations=200)" --imitate-samples 150000 \\
        --steps 0 --hidden 128 128 --seed 1 --out agents/learned_models/classic_6p_pimc

With ``--imitate SPEC`` the network first learns to copy an expert's decisions in its seat (behaviour cloning; a
search agent distilled into a network, :func:`cya_sim.studies.learn.imitate`), then PPO continues for ``--steps``
(0: the distilled network as it is).

The procedure is :mod:`cya_sim.studies.learn`: the learner plays seat 0 against ``--opponents`` (compiled agents)
on :class:`cya_sim.env.classic.learner.LearnerVectorEnv` (observations: :func:`agents.classic.learned.features` of its view as the
play loop builds it, classic or advanced rules; reward ``dense``: change in its total in $M plus the final win
share). Every ``--eval-every`` steps the deterministic policy plays ``--eval-games`` fresh games (seed
``seed + 10_000``, never a training deal): the learning curve (``NAME_curve.csv``, ``NAME_curve.png``). At the end
the policy network (``F -> 64 -> 64 -> A``, tanh) is exported to numpy (``NAME.npz``) with a generated plug-in
module ``NAME.py`` (:func:`agents.classic.learned.write_plugin`), named like any agent: ``agents.learned_models.NAME:decide``;
no torch at play time. The ``.npz`` records what the model was trained for (the rules' preset and digest, the
table size, the observation encoding): named at another table size or under other rules it is refused in one line
before any game (:func:`agents.classic.learned.check_setting`). torch runs on one thread: the same command gives the same
weights, bit for bit (checked for the committed ``classic_4p``: docs/strategy.md).
"""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    """Train, record the learning curve, export; returns 0."""
    from cya_sim.studies.learn import TrainConfig, train, write_model

    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--preset", default="classic", help="rule preset (classic family, no draft piles; default classic)")
    p.add_argument("--players", type=int, default=2)
    p.add_argument("--opponents", default="card_counter", help="compiled agents, comma-separated, cycled over seats")
    p.add_argument("--steps", type=int, default=1_000_000)
    p.add_argument("--envs", type=int, default=64)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--eval-every", type=int, default=100_000)
    p.add_argument("--eval-games", type=int, default=2000)
    p.add_argument("--reward", choices=("dense", "win_share"), default="dense")
    p.add_argument("--dense-weight", type=float, default=1.0,
                   help="factor of the change in total ($M) in the dense reward (default 1)")
    p.add_argument("--hidden", type=int, nargs=2, default=[64, 64], metavar=("H1", "H2"),
                   help="widths of the two hidden layers (default 64 64)")
    p.add_argument("--imitate", default="", metavar="SPEC",
                   help="first copy this expert's decisions (behaviour cloning), e.g. 'pimc(iterations=200)'")
    p.add_argument("--imitate-samples", type=int, default=0, help="expert decisions collected (default 0)")
    p.add_argument("--imitate-epochs", type=int, default=12, help="passes over them (default 12)")
    p.add_argument("--out", type=Path, default=Path("agents/learned_models/classic_2p"))
    p.add_argument("--replot", action="store_true", help="redraw NAME_curve.png from NAME_curve.csv (no training)")
    a = p.parse_args(argv)
    if a.replot:
        print(f"wrote {replot(a.out)}")
        return 0
    cfg = TrainConfig(preset=a.preset, players=a.players, opponents=a.opponents, steps=a.steps, envs=a.envs,
                      seed=a.seed, eval_every=a.eval_every, eval_games=a.eval_games, reward=a.reward,
                      dense_weight=a.dense_weight, hidden=tuple(a.hidden), imitate=a.imitate,
                      imitate_samples=a.imitate_samples, imitate_epochs=a.imitate_epochs)
    result = train(cfg, progress=lambda line: print(line, flush=True))
    command = "python experiments/train_learned.py " + shlex.join(sys.argv[1:] if argv is None else argv)
    py = write_model(a.out, result, cfg, command)
    print(f"wrote {py} and {a.out.with_suffix('.npz')}")
    return 0


def replot(out: Path) -> Path:
    """Redraw ``NAME_curve.png`` from the committed ``NAME_curve.csv`` and ``NAME_train.json`` (no training);
    returns the figure's path. Raises FileNotFoundError when either file is missing."""
    import json

    import pandas as pd

    from cya_sim.studies.learn import TrainConfig, curve_figure

    df = pd.read_csv(out.with_name(out.name + "_curve.csv"))
    train = json.loads(out.with_name(out.name + "_train.json").read_text())
    words = shlex.split(train.get("command", ""))
    games = int(words[words.index("--eval-games") + 1]) if "--eval-games" in words else 2000
    if "config" in train:  # the whole configuration, recorded since the per-cell models
        cfg = TrainConfig(**{**train["config"], "hidden": tuple(train["config"]["hidden"])})
    else:
        cfg = TrainConfig(players=train["players"], opponents=train["opponents"], seed=train["seed"], eval_games=games)
    path = out.with_name(out.name + "_curve.png")
    curve_figure(df, cfg).savefig(path, dpi=110)
    return path


if __name__ == "__main__":
    sys.exit(main())
