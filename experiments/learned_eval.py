"""Held-out evaluation of a learned plug-in (issue 22): fresh duplicated deals, the statistics layer's paired intervals.

    python experiments/learned_eval.py --model classic_2p --players 2 --deals 20000 --seed 2026

The learned spec ``agents.learned_models.MODEL:decide``, ``card_counter`` and ``greedy`` each sit against the
same ``--field`` (default ``card_counter``) on the same fresh deals (seed ``--seed``, never a training or
learning-curve deal: those used seeds 1 and 10,001), every rotation — the held-out design of ``cya-sim tune``
(:func:`cya_sim.studies.tune.heldout_experiment`, an explicit experiment of the run layer in
``results/learned-MODEL/heldout/``, resumable). The gains of the learned agent over each other arm are paired
per deal (Student t on deals - 1 df) with Holm's adjustment over them (two, plus one per ``--compare`` arm: another
model on the same deals, e.g. a retrain against the committed model); at 2 players against a
``card_counter`` field the ``card_counter`` arm is exactly 1/2, so the gain over it is the head-to-head
margin. Writes ``agents/learned_models/MODEL_heldout.json``.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    """Run the held-out games (or resume them) and write the JSON record; returns 0."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--model", default="classic_2p")
    p.add_argument("--players", type=int, default=2)
    p.add_argument("--field", default="card_counter")
    p.add_argument("--deals", type=int, default=20_000)
    p.add_argument("--seed", type=int, default=2026)
    p.add_argument("--workers", type=int, default=1)
    p.add_argument("--compare", action="append", default=[], metavar="SPEC",
                   help="another arm on the same deals (repeatable), e.g. a committed model to compare a retrain with")
    a = p.parse_args(argv)

    from cya_sim.results.folder import first_command, load_games, read_runs
    from cya_sim.runs.runner import run_experiment
    from cya_sim.studies.tune import TuneConfig, arms_of, heldout_experiment, paired_gains, per_deal_wins

    spec = f"agents.learned_models.{a.model}:decide"
    cfg = TuneConfig(agent="card_counter", field=(a.field,), players=a.players, out=Path(f"results/learned-{a.model}"),
                     heldout_deals=a.deals, compare=("greedy", *a.compare), seed=a.seed, workers=a.workers)
    exp = heldout_experiment(cfg, spec)
    run_experiment(exp, progress=True, command="python experiments/learned_eval.py " + shlex.join(argv or sys.argv[1:]))
    games = load_games(exp.out, columns=["lineup", "deal", "rotation"]
                       + [f"seat_{s}_win_share" for s in range(a.players)])
    arms = arms_of(cfg, spec)
    _d, wins = per_deal_wins(games, a.players, len(arms))
    arm_t, gains = paired_gains(wins, arms)
    # the first run's command: this run's command line, times and wall seconds are in the held-out folder's run log
    # (runs.json), so a replay with the same games rewrites this record byte for byte
    doc = {"command": first_command(read_runs(exp.out)), "field": a.field, "players": a.players,
           "deals": int(wins.shape[1]), "seed": a.seed, "arms": arm_t.to_dict("records"),
           "gains": gains.to_dict("records"), "adjustment": "Holm (1979) over the gains"}
    out = Path("agents/learned_models") / f"{a.model}_heldout.json"
    out.write_text(json.dumps(doc, indent=2, default=float) + "\n")
    for r in arm_t.itertuples():
        print(f"{r.arm}: {100 * r.win_rate:.2f}% ({100 * r.low:.2f} to {100 * r.high:.2f})")
    for g in gains.itertuples():
        print(f"gain over {g.versus}: {100 * g.gain:+.2f} points ({100 * g.low:+.2f} to {100 * g.high:+.2f}), "
              f"p_holm {g.p_holm:.3g}")
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
