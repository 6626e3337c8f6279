"""What a leaderboard cell says beyond its ratings: agents that play alike, every rating difference with its own
interval, and the games that would tell two agents 25 Elo apart.

* **Aliases** — two agents that play identically are one strategy; rated twice, sampling noise "separates" them
  (the committed board rated default ``heuristic``, whose defaults are greedy's rules, −73 [−128, −17] against
  ``greedy``). A cell's *alias probe* (:func:`alias_probe_experiment`) seats each agent in turn against the
  anchor (the board's first agent) in every other seat, on the same duplicated deals in every rotation; two agents
  whose games on every deal have the same record are aliases (:func:`cya_sim.studies.metagame.find_aliases`, the
  metagame's test: identity of the game records, not a proof that the policies agree in every state). Their seats
  are then one agent in the ratings (:func:`merge_aliases`).
* **Differences** — the rating difference of every pair with the interval of the difference, from the fitted
  covariance (:func:`cya_sim.reports.ratings.rating_differences`), not two overlapping intervals.
* **Resolution** — how many games (deals) a cell of the same design needs so that a difference of 25 Elo is told
  apart (two-sided 5% test, 80% power), derived from the cell's own clustered covariance (:func:`resolution`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd

from cya_sim.engine.table import GameTable
from cya_sim.runs.experiment import Experiment, RunOptions, parse_experiment

#: Duplicated deals of an alias probe (each played by every agent's table in every rotation).
ALIAS_DEALS = 30
#: The difference a board should resolve (Elo), and the power it should do so with.
RESOLVE_ELO = 25.0
RESOLVE_POWER = 0.8


def alias_probe_experiment(name: str, seed: int, out: Path, preset: str, players: int, agents: Sequence[str],
                           deals: int = ALIAS_DEALS, workers: int = 1, scheduler: str | None = None) -> Experiment:
    """The alias probe of a cell: table k seats ``agents[k]`` against ``agents[0]`` in the P - 1 other seats; every
    table plays every one of ``deals`` duplicated deals in every rotation (an ``explicit`` design with
    ``duplicate = true``), so two agents' games differ only by which of them holds the probed seat.

    Raises:
        ExperimentError: a preset, table size or agent the run layer refuses.
    """
    tables = [[a] + [agents[0]] * (players - 1) for a in agents]
    doc = {"name": f"{name}-aliases", "seed": seed, "games": deals * len(tables) * players, "players": players,
           "agents": list(agents), "out": str(out), "rules": {"preset": preset},
           "design": {"kind": "explicit", "tables": tables, "duplicate": True}}
    exp = parse_experiment(doc)
    return replace(exp, run=RunOptions(engine="batched", workers=workers, scheduler=scheduler))


def probe_aliases(games: pd.DataFrame, agents: Sequence[str], players: int) -> list[tuple[int, int, int]]:
    """``(representative, alias, pairs compared)`` of the agents the probe's ``games`` show playing alike
    (:func:`cya_sim.studies.metagame.find_aliases`)."""
    from cya_sim.studies.metagame import find_aliases

    return find_aliases(games, list(agents), players)


def merge_aliases(table: GameTable, aliases: Sequence[tuple[int, int, int]]) -> GameTable:
    """``table`` with every alias's seats given to its representative (the games are unchanged)."""
    sa = np.asarray(table.seat_agent).copy()
    for rep, alias, _n in aliases:
        sa[sa == alias] = rep
    return replace(table, seat_agent=sa.astype(np.asarray(table.seat_agent).dtype))


def differences(table: GameTable, agents: Sequence[str], order: str = "total", confidence: float = 0.95
                ) -> pd.DataFrame:
    """Every pair's Bradley–Terry rating difference (Elo) with its interval, its p-value and the units (games, or
    deals) a cell of this design needs to resolve :data:`RESOLVE_ELO` (:func:`cya_sim.reports.ratings.rating_differences`).

    Args:
        table: the cell's games (``game_index``: the sampling unit). agents: (K,) names. order: ``"total"`` or
            ``"win"`` (:func:`cya_sim.reports.ratings.bradley_terry`).

    Raises:
        ValueError, RatingUndefinedError: as :func:`cya_sim.reports.ratings.bradley_terry`.
    """
    from cya_sim.reports.ratings import bradley_terry_fit, rating_differences

    beta, cov = bradley_terry_fit(table, agents, order)
    units = int(pd.unique(np.asarray(table.game_index)).size)
    d = rating_differences(beta, cov, agents, units, confidence, RESOLVE_ELO, RESOLVE_POWER)
    return d.assign(order=order)


def resolution(diffs: pd.DataFrame) -> dict[str, object]:
    """The units a cell needs to resolve :data:`RESOLVE_ELO` Elo: over its pairs, the median and the most (the
    hardest pair, named).

    Returns:
        dict ``median_units``, ``max_units``, ``hardest`` ("a vs b"), ``pairs``.
    """
    u = diffs["units_for_delta"].to_numpy(np.int64)
    i = int(np.argmax(u))
    return {"median_units": int(np.median(u)), "max_units": int(u[i]),
            "hardest": f"{diffs['agent'].iloc[i]} vs {diffs['versus'].iloc[i]}", "pairs": int(u.size)}
