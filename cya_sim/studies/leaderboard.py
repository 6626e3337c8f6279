"""The leaderboard (``cya-sim leaderboard experiments/leaderboard.toml``): every agent rated at every table size and
rule preset, Bradley–Terry with deal-clustered intervals, as one reproducible command.

A *board file* names the agents, the rule presets, the table sizes and the duplicated deals per table size::

    name = "leaderboard"
    seed = 2027
    out = "results/leaderboard"
    agents = ["greedy", "random", "card_counter", "ismcts(iterations=50)"]   # the first is the anchor (0)
    presets = ["classic", "advanced"]
    players = [2, 4, 6]
    cycles = {2 = 8, 4 = 5, 6 = 5}      # per table size (or one int): each plays every line-up in every rotation
    duplicate = false                   # true: the games of a cycle share one deal (then the deal is the unit)
    workers = 1
    [agents_by_cell]                    # optional: agents only in some cells, "preset-Pp" = [specs]
    classic-2p = ["agents.learned_models.classic_2p:decide"]
    [quick]                             # the small form (`--quick`): any of the keys above

Each *cell* (preset, P) is one experiment of the run layer (:mod:`cya_sim.runs.experiment`; the folder
``cells/<preset>-<P>p/``, resumable after a kill) with an ``explicit`` design, seats rotated; a *cycle* plays
every line-up in every rotation, each game on its own deal (the game is the sampling unit), or with
``duplicate = true`` every game of a cycle on one deal (the deal is the unit: use many cycles then, an
interval from a handful of clusters means little). Its line-ups: every pair at P = 2; at P >= 3 the K cyclic windows of P consecutive agents in two
orders of the pool (the written order and a stride through it; a window already taken is not repeated), so
every agent sits in up to 2P line-ups against up to 2(P - 1) different neighbours and the comparison graph is
connected; every deal is played by every line-up in every rotation.

Ratings (:func:`cya_sim.reports.ratings.bradley_terry`): Bradley–Terry (1952) over every pair of seats of
a game held by different agents (who finished with the higher total; full rank-breaking of the finishing
order, consistent for Plackett–Luce strengths, Azari Soufiani et al. 2014), on the Elo scale with the
first agent at 0, and the sandwich covariance clustered by game, or by deal under duplicate deals
(Liang & Zeger 1986). The intervals are
per rating (95%, normal), not simultaneous. The per-game win rate of each agent with its deal-clustered
Wilson interval (:func:`cya_sim.reports.stats.summarize`) stands beside it.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from cya_sim.runs.experiment import Experiment, ExperimentError, RunOptions, parse_experiment
from cya_sim.tomltext import TomlTextError, load_toml

BOARD_KEYS = ("name", "description", "seed", "out", "agents", "presets", "players", "cycles", "duplicate",
              "agents_by_cell", "workers", "quick")


class LeaderboardError(ValueError):
    """A refused board file; ``str(e)`` is the one line shown (exit status 2)."""


@dataclass(frozen=True)
class Board:
    """A validated board file (module docstring).

    Attributes:
        name, seed, out. agents: (K,) specs, K >= 2, the first the anchor. presets: rule presets.
        players: table sizes. cycles: per table size. duplicate: games of a cycle share a deal.
        agents_by_cell: ``"preset-Pp"`` -> extra specs of that cell. workers: local processes.
    """

    name: str
    seed: int
    out: Path
    agents: tuple[str, ...]
    presets: tuple[str, ...]
    players: tuple[int, ...]
    cycles: dict[int, int]
    duplicate: bool = False
    agents_by_cell: dict[str, tuple[str, ...]] = field(default_factory=dict)
    workers: int = 1

    def cell_agents(self, preset: str, p: int) -> tuple[str, ...]:
        """The agents of cell (preset, P): the board's, then the cell's own."""
        return self.agents + self.agents_by_cell.get(f"{preset}-{p}p", ())


def load_board(path: str | Path, quick: bool = False, overrides: Mapping[str, Any] | None = None) -> Board:
    """Read and validate a board file; ``quick`` applies its ``[quick]`` table.

    Raises:
        LeaderboardError: an unreadable file or an invalid key, named (``agents``, ``deals.4``...).
    """
    path = Path(path)
    try:
        data = load_toml(path.read_text(encoding="utf-8"))
    except OSError as e:
        raise LeaderboardError(f"cannot read {str(path)!r} ({e.strerror or e}); give a board TOML file") from None
    except TomlTextError as e:
        raise LeaderboardError(f"{str(path)!r}: {e}") from None
    return parse_board(data, quick, overrides)


def parse_board(data: Mapping[str, Any], quick: bool = False, overrides: Mapping[str, Any] | None = None) -> Board:
    """Validate a parsed board document (see :func:`load_board`)."""
    from agents.spec import AgentSpecError, normalise_spec

    d = dict(data)
    unknown = sorted(set(d) - set(BOARD_KEYS))
    if unknown:
        raise LeaderboardError(f"unknown key {unknown[0]!r}; allowed: {', '.join(BOARD_KEYS)}")
    q = d.pop("quick", {}) or {}
    if quick:
        d.update(q)
    d.update(overrides or {})
    agents = d.get("agents")
    if not isinstance(agents, list) or not agents:
        raise LeaderboardError("agents: give a non-empty list of agent specs")
    try:
        agents = [normalise_spec(a) for a in agents]
    except AgentSpecError as e:
        raise LeaderboardError(f"agents: {e}") from None
    if len(agents) < 2:
        raise LeaderboardError("agents: a rating needs at least two agents")
    dup = [a for i, a in enumerate(agents) if a in agents[:i]]
    if dup:
        raise LeaderboardError(f"agents: {dup[0]!r} is given twice")
    presets = d.get("presets", ["classic"])
    if not isinstance(presets, list) or not presets or not all(isinstance(p, str) for p in presets):
        raise LeaderboardError("presets: give a non-empty list of rule presets")
    players = d.get("players", [4])
    players = [players] if isinstance(players, int) else players
    if not isinstance(players, list) or not players or not all(isinstance(p, int) and p >= 2 for p in players):
        raise LeaderboardError("players: give table sizes >= 2")
    for p in players:
        if p > len(agents):
            raise LeaderboardError(f"players: {p} seats but only {len(agents)} agents; every seat of a line-up "
                                   "holds a different agent")
    duplicate = d.get("duplicate", False)
    if not isinstance(duplicate, bool):
        raise LeaderboardError("duplicate: give true or false")
    raw = d.get("cycles", 5)
    cycles: dict[int, int] = {}
    for p in players:
        v = raw.get(str(p)) if isinstance(raw, dict) else raw
        lo = 2 if duplicate else 1
        if not isinstance(v, int) or isinstance(v, bool) or v < lo:
            raise LeaderboardError(f"cycles.{p}: give the cycles of {p}-player cells, an integer >= {lo}"
                                   + (" (with duplicate deals a cycle is one sampling unit)" if duplicate else ""))
        cycles[p] = v
    by_cell_raw = d.get("agents_by_cell", {}) or {}
    if not isinstance(by_cell_raw, dict):
        raise LeaderboardError('agents_by_cell: give a table "preset-Pp" = [agent specs]')
    by_cell: dict[str, tuple[str, ...]] = {}
    cells = {f"{pr}-{p}p" for pr in presets for p in players}
    for k, v in by_cell_raw.items():
        if k not in cells:
            raise LeaderboardError(f"agents_by_cell.{k}: not a cell of this board; cells: {', '.join(sorted(cells))}")
        if not isinstance(v, list):
            raise LeaderboardError(f"agents_by_cell.{k}: give a list of agent specs")
        try:
            extra = tuple(normalise_spec(a) for a in v)
        except AgentSpecError as e:
            raise LeaderboardError(f"agents_by_cell.{k}: {e}") from None
        both = [a for a in extra if a in agents]
        if both:
            raise LeaderboardError(f"agents_by_cell.{k}: {both[0]!r} is already in agents")
        by_cell[k] = extra
    seed = d.get("seed", 1)
    if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
        raise LeaderboardError("seed: give an integer >= 0")
    workers = d.get("workers", 1)
    if not isinstance(workers, int) or isinstance(workers, bool) or workers < 1:
        raise LeaderboardError("workers: give an integer >= 1")
    name = str(d.get("name", "leaderboard"))
    return Board(name=name, seed=seed, out=Path(d.get("out", f"results/{name}")), agents=tuple(agents),
                 presets=tuple(presets), players=tuple(players), cycles=cycles, duplicate=duplicate,
                 agents_by_cell=by_cell, workers=workers)


def lineups(k: int, p: int) -> list[list[int]]:
    """Line-ups (indices into the pool) of a cell (module docstring)."""
    if p == 2:
        return [[i, j] for i in range(k) for j in range(i + 1, k)]
    stride = next(s for s in range(2, k + 1) if math.gcd(s, k) == 1) if k > 2 else 1
    orders = [list(range(k)), [(i * stride) % k for i in range(k)]]
    out: list[list[int]] = []
    for order in orders:
        for i in range(k):
            lu = [order[(i + j) % k] for j in range(p)]
            if sorted(lu) not in [sorted(x) for x in out]:
                out.append(lu)
    return out


def cell_experiment(board: Board, preset: str, p: int) -> Experiment:
    """The experiment of one cell.

    Raises:
        ExperimentError: an unknown agent or preset, a table size the rules refuse (named by the run layer).
    """
    agents = board.cell_agents(preset, p)
    tables = [[agents[i] for i in lu] for lu in lineups(len(agents), p)]
    doc = {"name": f"{board.name}-{preset}-{p}p", "seed": board.seed, "games": board.cycles[p] * len(tables) * p,
           "players": p, "agents": list(agents), "out": str(board.out / "cells" / f"{preset}-{p}p"),
           "rules": {"preset": preset}, "design": {"kind": "explicit", "tables": tables,
                                                     "duplicate": board.duplicate}}
    exp = parse_experiment(doc)
    return replace(exp, run=RunOptions(engine="batched", workers=board.workers))


def rate_cell(games: pd.DataFrame, agents: Sequence[str]) -> pd.DataFrame:
    """Bradley–Terry ratings and win rates of one cell's games, the deal as the sampling unit (the game, when
    every game has its own deal).

    Returns:
        one row per agent: ``agent``, ``rating``, ``rating_se``, ``rating_ci_low``, ``rating_ci_high`` (Elo scale,
        first agent 0; NaN with a ``note`` when the ratings are undefined), ``game_win_rate`` with
        ``game_win_rate_ci_low``/``_high`` and ``game_win_rate_fair``, ``games``, ``deals``.
    """
    from cya_sim.reports.ratings import RatingUndefinedError, bradley_terry
    from cya_sim.reports.stats import summarize
    from cya_sim.studies.tournament import game_table

    t = game_table(games, list(agents))
    t = replace(t, game_index=games["deal"].to_numpy(np.int64))  # the deal is the unit (= the game without duplicates)
    s = summarize(t, list(agents))
    note = ""
    try:
        bt = bradley_terry(t, list(agents))
    except RatingUndefinedError as e:
        bt, note = _rate_without_extremes(t, list(agents), str(e))
    out = bt.merge(s[["agent", "games", "units", "game_win_rate", "game_win_rate_ci_low", "game_win_rate_ci_high",
                      "game_win_rate_fair"]], on="agent")
    out = out.rename(columns={"units": "deals"})
    out["note"] = note
    return out


def _extreme_agents(t, agents: Sequence[str]) -> list[int]:
    """Agents that never finished ahead of, or never behind, any other agent (ties count half each way)."""
    from cya_sim.reports.comparisons import ahead_counts

    ahead, ties = ahead_counts(t, len(agents))
    w = ahead + ties / 2.0
    return [a for a in range(len(agents)) if w[a].sum() == 0 or w[:, a].sum() == 0]


def _rate_without_extremes(t, agents: list[str], why: str) -> tuple[pd.DataFrame, str]:
    """Ratings when the maximum-likelihood estimate is not finite (Ford 1957): the agents that never finished
    ahead of (or behind) anyone get no rating, and the others are rated on the games without them.

    Returns:
        (ratings of every agent, NaN for the set-aside ones and for all when the rest still has no finite
        rating; the note naming what was done).
    """
    from dataclasses import fields

    from cya_sim.engine.table import GameTable
    from cya_sim.reports.ratings import bradley_terry

    nan = pd.DataFrame({"agent": agents, "rating": np.nan, "rating_se": np.nan, "rating_ci_low": np.nan,
                        "rating_ci_high": np.nan})
    drop = _extreme_agents(t, agents)
    if not drop or 0 in drop:  # nothing to set aside, or the anchor itself
        return nan, why
    keep = [a for a in range(len(agents)) if a not in drop]
    rows = ~np.isin(np.asarray(t.seat_agent), drop).any(axis=1)
    remap = np.full(len(agents), -1, np.int16)
    remap[keep] = np.arange(len(keep))
    sub = GameTable(**{f.name: getattr(t, f.name)[rows] for f in fields(t)})
    sub = replace(sub, seat_agent=remap[np.asarray(sub.seat_agent)])
    names = ", ".join(agents[a] for a in drop)
    try:
        bt = bradley_terry(sub, [agents[a] for a in keep])
    except ValueError as e:
        return nan, f"{why}; without {names}: {e}"
    out = nan.set_index("agent")
    out.loc[bt["agent"], bt.columns[1:]] = bt.set_index("agent").to_numpy()
    return out.reset_index(), (f"{names}: never finished ahead of (or behind) any other agent, so no finite "
                               f"rating (Ford 1957); the others are rated on the {int(rows.sum()):,} games "
                               f"without {names}")


@dataclass
class BoardResult:
    """Ratings of every cell: ``ratings`` (one row per cell and agent, with ``preset``, ``players``) and the wall
    seconds of this invocation."""

    ratings: pd.DataFrame
    elapsed_s: float


#: Every file and folder a leaderboard run writes into its results folder (a folder holding anything else is
#: refused).
OWN_FILES = frozenset({"cells", "ratings.csv", "leaderboard.png", "REPORT.md", "result.json"})


def run_board(board: Board, progress: bool = True, command: str | None = None) -> BoardResult:
    """Play (or resume) every cell, rate each, write ``ratings.csv``, ``leaderboard.png``, ``REPORT.md``.

    Raises:
        LeaderboardError, ExperimentError: a refused board or folder (before any game of that cell).
        FolderError: ``board.out`` holds files that are not this study's (nothing played or written).
    """
    from cya_sim.results.folder import check_study_folder, load_games
    from cya_sim.runs.runner import run_experiment

    t0 = time.perf_counter()
    check_board(board)
    check_study_folder(board.out, "cya-sim leaderboard", OWN_FILES)
    exps = [(preset, p, cell_experiment(board, preset, p)) for preset in board.presets for p in board.players]
    rows = []
    for preset, p, exp in exps:
        r = run_experiment(exp, progress=progress, command=command)
        games = load_games(exp.out)
        rated = rate_cell(games, exp.agents)
        rated.insert(0, "players", p)
        rated.insert(0, "preset", preset)
        rated["cell_games"] = len(games)
        rated["cell_wall_s"] = round(r.elapsed_s, 1)
        rows.append(rated)
    ratings = pd.concat(rows, ignore_index=True)
    res = BoardResult(ratings, time.perf_counter() - t0)
    board.out.mkdir(parents=True, exist_ok=True)
    ratings.to_csv(board.out / "ratings.csv", index=False)
    figure(board, ratings).savefig(board.out / "leaderboard.png", dpi=100)
    (board.out / "REPORT.md").write_text(report_markdown(board, res, command))
    (board.out / "result.json").write_text(json.dumps({"command": command, "wall_s": round(res.elapsed_s, 1),
                                                       "games": {f"{pr}-{p}p": int(e.games) for pr, p, e in exps}},
                                                      indent=2) + "\n")
    return res


def figure(board: Board, ratings: pd.DataFrame):
    """One panel per cell: every agent's rating with its 95% interval, agents in the board's order."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    cells = [(pr, p) for pr in board.presets for p in board.players]
    cols = len(board.players)
    rows = len(board.presets)
    names = list(dict.fromkeys(a for pr, p in cells for a in board.cell_agents(pr, p)))
    fig, axes = plt.subplots(rows, cols, figsize=(3.6 * cols, 0.32 * len(names) * rows + 1.2 * rows),
                             squeeze=False, sharey=True)
    y = np.arange(len(names))[::-1]
    for ax, (pr, p) in zip(axes.ravel(), cells, strict=False):
        c = ratings[(ratings["preset"] == pr) & (ratings["players"] == p)].set_index("agent").reindex(names)
        ax.errorbar(c["rating"], y, xerr=[c["rating"] - c["rating_ci_low"], c["rating_ci_high"] - c["rating"]],
                    fmt="o", ms=4, capsize=2)
        ax.axvline(0, color="0.7", lw=0.8)
        ax.set_title(f"{pr}, {p} players", fontsize=9)
        ax.set_xlabel("Bradley–Terry (Elo scale)", fontsize=8)
    for r in range(rows):
        axes[r, 0].set_yticks(y)
        axes[r, 0].set_yticklabels([_short(a) for a in names], fontsize=7)
    fig.suptitle(f"{board.name}: Bradley–Terry ratings with 95% clustered intervals (anchor {board.agents[0]} = 0)",
                 fontsize=9)
    fig.tight_layout()
    return fig


def _short(a: str) -> str:
    """A label that fits a plot's axis: long parameter lists cut, plug-in paths to their module's last part."""
    if ":" in a:
        a = a.split(":")[0].split(".")[-1]
    return a if len(a) <= 34 else a[:31] + "..."


def _cell_text(row: pd.Series | None) -> str:
    if row is None:
        return "-"
    if not np.isfinite(row["rating"]):
        return "n/a"
    return f"{row['rating']:.0f} [{row['rating_ci_low']:.0f}, {row['rating_ci_high']:.0f}]"


def report_markdown(board: Board, r: BoardResult, command: str | None = None) -> str:
    """REPORT.md: a table of ratings (rows agents, columns cells), win rates, and how it was made."""
    rt = r.ratings
    cells = [(pr, p) for pr in board.presets for p in board.players]
    head = "| agent | " + " | ".join(f"{pr} {p}p" for pr, p in cells) + " |"
    unit = "deal" if board.duplicate else "game"
    names = list(dict.fromkeys(a for pr, p in cells for a in board.cell_agents(pr, p)))
    lines = [f"# {board.name}", "",
             ("Bradley–Terry ratings (Elo scale, anchor "
              f"`{board.agents[0]}` = 0) with 95% {unit}-clustered intervals, per cell; seats rotated"
              + ("; duplicated deals." if board.duplicate else "; every game on its own deal.")
              + " Each interval is for one rating (not simultaneous); '-': not in that cell."), "",
             head, "|---|" + "---|" * len(cells)]

    def row_of(pr: str, p: int, a: str) -> pd.Series | None:
        m = rt[(rt["preset"] == pr) & (rt["players"] == p) & (rt["agent"] == a)]
        return m.iloc[0] if len(m) else None

    for a in names:
        lines.append(f"| `{a}` | " + " | ".join(_cell_text(row_of(pr, p, a)) for pr, p in cells) + " |")
    lines += ["", (f"Per-game win rate with its {unit}-clustered 95% interval in brackets (every agent holds one "
                   "seat of P, so the fair rate is 1/P):"), "", head, "|---|" + "---|" * len(cells)]
    for a in names:
        vals = []
        for pr, p in cells:
            row = row_of(pr, p, a)
            vals.append("-" if row is None else f"{100 * row['game_win_rate']:.1f}% "
                        f"[{100 * row['game_win_rate_ci_low']:.1f}, {100 * row['game_win_rate_ci_high']:.1f}]")
        lines.append(f"| `{a}` | " + " | ".join(vals) + " |")
    notes = rt.loc[rt["note"] != "", ["preset", "players", "note"]].drop_duplicates()
    for n in notes.itertuples():
        lines.append(f"\nNote ({n.preset}, {n.players}p): {n.note}")
    games = rt.groupby(["preset", "players"])["cell_games"].first()
    wall = rt.groupby(["preset", "players"])["cell_wall_s"].first()
    lines += ["", "Games per cell (wall seconds of its last run): "
              + ", ".join(f"{pr} {p}p {int(games[(pr, p)]):,} ({wall[(pr, p)]:.0f} s)" for pr, p in cells)
              + f"; cycles per cell {', '.join(f'{p}p {board.cycles[p]}' for p in board.players)}.", "",
              f"Command: `{command or 'python'}`; wall time of this invocation {r.elapsed_s:.0f} s.", ""]
    return "\n".join(lines)


def check_board(board: Board) -> None:
    """Validate every cell's experiment before anything is played (unknown agent, preset, table size).

    Raises:
        ExperimentError: named by the run layer.
    """
    for preset in board.presets:
        for p in board.players:
            cell_experiment(board, preset, p)


__all__ = ["Board", "BoardResult", "ExperimentError", "LeaderboardError", "cell_experiment", "check_board", "lineups", "load_board",
           "parse_board", "rate_cell", "run_board"]
