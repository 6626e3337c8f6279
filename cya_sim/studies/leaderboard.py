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
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from cya_sim import __version__
from cya_sim.game.limits import MAX_SEED
from cya_sim.reports.numbers import estimate_interval, percent_interval
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
        LeaderboardError: an unreadable file, invalid TOML (an integer of more than 4,300 digits included) or an
            invalid key, named (``agents``, ``cycles.4``, ``quick.players``...).
    """
    path = Path(path)
    try:
        data = load_toml(path.read_text(encoding="utf-8"))
    except OSError as e:
        raise LeaderboardError(f"cannot read {str(path)!r} ({e.strerror or e}); give a board TOML file") from None
    except UnicodeDecodeError:
        raise LeaderboardError(f"{str(path)!r} is not UTF-8 text; give a board TOML file") from None
    except TomlTextError as e:
        raise LeaderboardError(f"{str(path)!r}: {e}") from None
    return parse_board(data, quick, overrides)


#: Largest table size a board may ask for (the rules' own limit is checked per cell by the run layer).
MAX_PLAYERS = 64
#: Largest ``cycles`` of a cell and ``workers``: beyond, a board is a typo, not a plan.
MAX_CYCLES = 1_000_000
MAX_WORKERS = 1024


def _int_field(d: Mapping[str, Any], key: str, default: int, lo: int, hi: int, label: str | None = None) -> int:
    """An integer field in ``lo..hi`` (booleans and floats refused)."""
    v = d.get(key, default)
    if not isinstance(v, int) or isinstance(v, bool) or not lo <= v <= hi:
        raise LeaderboardError(f"{label or key}: give an integer from {lo:,} to {hi:,}; got {_shown(v)}")
    return v


def _shown(v: Any) -> str:
    """A value as the user wrote it, cut to one short line (a 5,000-digit integer is not echoed)."""
    if isinstance(v, int) and not isinstance(v, bool) and abs(v) >= 10**30:  # str() of > 4,300 digits raises
        return f"an integer of about {int(abs(v).bit_length() * math.log10(2)) + 1:,} digits"
    t = repr(v)
    return t if len(t) <= 60 else t[:57] + "..."


def _string_list(v: Any, label: str) -> list[str]:
    if not isinstance(v, list) or not v or not all(isinstance(x, str) for x in v):
        raise LeaderboardError(f"{label}: give a non-empty list of strings; got {_shown(v)}")
    return v


def parse_board(data: Mapping[str, Any], quick: bool = False, overrides: Mapping[str, Any] | None = None) -> Board:
    """Validate a parsed board document (see :func:`load_board`): every key's type and range, unknown keys (also
    inside ``[quick]``) refused with the allowed list, before anything is played.

    Raises:
        LeaderboardError: the first invalid key, named, with what is allowed.
    """
    from agents.spec import AgentSpecError, normalise_spec

    d = dict(data)
    unknown = sorted(set(d) - set(BOARD_KEYS))
    if unknown:
        raise LeaderboardError(f"unknown key {unknown[0]!r}; allowed: {', '.join(BOARD_KEYS)}")
    q = d.pop("quick", {})
    if not isinstance(q, dict):
        raise LeaderboardError(f"quick: give a table of board keys ([quick] with any of: "
                               f"{', '.join(k for k in BOARD_KEYS if k != 'quick')}); got {_shown(q)}")
    q_unknown = sorted(set(q) - set(BOARD_KEYS) | ({"quick"} & set(q)))
    if q_unknown:
        raise LeaderboardError(f"quick.{q_unknown[0]}: unknown key of [quick]; allowed: "
                               f"{', '.join(k for k in BOARD_KEYS if k != 'quick')}")
    if quick:
        d.update(q)
    for k in set(overrides or {}) & {"out", "workers"}:  # the file's own value is checked even when a flag replaces it
        if k in data and not (isinstance(data[k], str) if k == "out" else isinstance(data[k], int)):
            raise LeaderboardError(f"{k}: give {'a folder path as a string' if k == 'out' else 'an integer'}; "
                                   f"got {_shown(data[k])}")
    d.update(overrides or {})
    if q and not quick:  # the small form is checked with the full one: a mistake in [quick] is found at once
        try:
            parse_board({**{k: v for k, v in data.items() if k != "quick"}, **q})
        except LeaderboardError as e:
            raise LeaderboardError(f"quick: the [quick] form is refused: {e}") from None
    if q and quick:  # and the full form with the small one: a key [quick] replaces is still checked
        try:
            parse_board({k: v for k, v in data.items() if k != "quick"})
        except LeaderboardError as e:
            raise LeaderboardError(f"the full board (without [quick]) is refused: {e}") from None
    name = d.get("name", "leaderboard")
    if not isinstance(name, str) or not name.strip() or len(name) > 200:
        raise LeaderboardError(f"name: give a non-empty string (at most 200 characters); got {_shown(name)}")
    desc = d.get("description", "")
    if not isinstance(desc, str):
        raise LeaderboardError(f"description: give a string; got {_shown(desc)}")
    out = d.get("out", f"results/{name}")
    if not isinstance(out, (str, Path)) or not str(out).strip():
        raise LeaderboardError(f"out: give a folder path as a string; got {_shown(out)}")
    agents = d.get("agents")
    if not isinstance(agents, list) or not agents:
        raise LeaderboardError("agents: give a non-empty list of agent specs")
    if not all(isinstance(a, str) for a in agents):
        raise LeaderboardError(f"agents: every entry must be an agent spec string; got {_shown(agents)}")
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
    if len(set(presets)) < len(presets):
        raise LeaderboardError(f"presets: {next(p for i, p in enumerate(presets) if p in presets[:i])!r} is given twice")
    players = d.get("players", [4])
    players = [players] if isinstance(players, int) and not isinstance(players, bool) else players
    if (not isinstance(players, list) or not players
            or not all(isinstance(p, int) and not isinstance(p, bool) and 2 <= p <= MAX_PLAYERS for p in players)):
        raise LeaderboardError(f"players: give table sizes from 2 to {MAX_PLAYERS} (an integer or a list); "
                               f"got {_shown(players)}")
    if len(set(players)) < len(players):
        raise LeaderboardError(f"players: {next(p for i, p in enumerate(players) if p in players[:i])} is given twice")
    for p in players:
        if p > len(agents):
            raise LeaderboardError(f"players: {p} seats but only {len(agents)} agents; every seat of a line-up "
                                   "holds a different agent")
    duplicate = d.get("duplicate", False)
    if not isinstance(duplicate, bool):
        raise LeaderboardError(f"duplicate: give true or false; got {_shown(duplicate)}")
    raw = d.get("cycles", 5)
    lo = 2 if duplicate else 1
    if isinstance(raw, dict):
        bad = sorted(k for k in raw if not (k.isdigit() and 2 <= int(k) <= MAX_PLAYERS))
        if bad:
            raise LeaderboardError(f"cycles.{bad[0]}: not a table size; give one entry per table size "
                                   f"(2 to {MAX_PLAYERS}), e.g. cycles = {{2 = 8, 4 = 5}}")
    elif not isinstance(raw, int) or isinstance(raw, bool):
        raise LeaderboardError(f"cycles: give an integer >= {lo} or a table {{2 = 8, 4 = 5}}; got {_shown(raw)}")
    cycles: dict[int, int] = {}
    for p in players:
        v = raw.get(str(p)) if isinstance(raw, dict) else raw
        if not isinstance(v, int) or isinstance(v, bool) or not lo <= v <= MAX_CYCLES:
            raise LeaderboardError(f"cycles.{p}: give the cycles of {p}-player cells, an integer from {lo} to "
                                   f"{MAX_CYCLES:,}; got {_shown(v)}"
                                   + (" (with duplicate deals a cycle is one sampling unit)" if duplicate else ""))
        cycles[p] = v
    by_cell_raw = d.get("agents_by_cell", {})
    if not isinstance(by_cell_raw, dict):
        raise LeaderboardError('agents_by_cell: give a table "preset-Pp" = [agent specs]')
    by_cell: dict[str, tuple[str, ...]] = {}
    cells = {f"{pr}-{p}p" for pr in presets for p in players}
    for k, v in by_cell_raw.items():
        if k not in cells:
            raise LeaderboardError(f"agents_by_cell.{k}: not a cell of this board; cells: {', '.join(sorted(cells))}")
        if not isinstance(v, list) or not all(isinstance(a, str) for a in v):
            raise LeaderboardError(f"agents_by_cell.{k}: give a list of agent spec strings")
        try:
            extra_specs = tuple(normalise_spec(a) for a in v)
        except AgentSpecError as e:
            raise LeaderboardError(f"agents_by_cell.{k}: {e}") from None
        both = [a for a in extra_specs if a in agents]
        if both:
            raise LeaderboardError(f"agents_by_cell.{k}: {both[0]!r} is already in agents")
        by_cell[k] = extra_specs
    seed = _int_field(d, "seed", 1, 0, MAX_SEED)
    workers = _int_field(d, "workers", 1, 1, MAX_WORKERS)
    return Board(name=name, seed=seed, out=Path(out), agents=tuple(agents),
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
        first agent 0; NaN with a ``note`` when the ratings are undefined), ``rating_bound`` (``-inf``: the agent
        never finished ahead of anyone, ``+inf``: never behind, so it is set aside and the others are rated without
        it; else empty), ``game_win_rate`` with
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
        bt = bradley_terry(t, list(agents)).assign(rating_bound="")
    except RatingUndefinedError as e:
        bt, note = _rate_without_extremes(t, list(agents), str(e))
    out = bt.merge(s[["agent", "games", "units", "game_win_rate", "game_win_rate_ci_low", "game_win_rate_ci_high",
                      "game_win_rate_fair"]], on="agent")
    out = out.rename(columns={"units": "deals"})
    out["note"] = note
    return out


def _extremes(t, k: int) -> dict[int, str]:
    """Agents of ``t`` (indices < k) that never finished ahead of (``"never finished ahead"``), or never behind
    (``"never finished behind"``), any other agent they met (ties count half each way); agents absent from ``t`` are
    not named."""
    from cya_sim.reports.comparisons import ahead_counts

    ahead, ties = ahead_counts(t, k)
    w = ahead + ties / 2.0
    met = (ahead + ahead.T + ties).sum(axis=1) > 0
    out: dict[int, str] = {}
    for a in range(k):
        if met[a] and w[a].sum() == 0:
            out[a] = "never finished ahead"
        elif met[a] and w[:, a].sum() == 0:
            out[a] = "never finished behind"
    return out


def _subtable(t, keep: Sequence[int], k: int):
    """The games of ``t`` whose every seat holds an agent of ``keep``, re-indexed ``0..len(keep) - 1``."""
    sa = np.asarray(t.seat_agent)
    rows = np.isin(sa, list(keep)).all(axis=1)
    remap = np.full(k, -1, np.int16)
    remap[list(keep)] = np.arange(len(keep))
    sub = t.take(rows)
    return replace(sub, seat_agent=remap[np.asarray(sub.seat_agent)]), int(rows.sum())


def _rate_without_extremes(t, agents: list[str], why: str) -> tuple[pd.DataFrame, str]:
    """Ratings when the maximum-likelihood estimate is not finite (Ford 1957).

    An agent that never finished ahead of anyone has the rating −∞ (never behind: +∞) at the maximum of the
    likelihood; it is set aside (rating NaN, ``rating_bound`` ``-inf`` or ``+inf``) and the others are rated on
    the games without it — the very fit of a board without that agent. Setting aside repeats while the rest still
    has such an agent. When the anchor (the first agent) is set aside, the first remaining agent is the anchor
    (the note says so).

    Returns:
        (ratings of every agent: NaN for the set-aside ones, and for all when no two agents remain rateable;
        the note naming what was done).
    """
    from cya_sim.reports.ratings import bradley_terry

    k = len(agents)
    nan = pd.DataFrame({"agent": agents, "rating": np.nan, "rating_se": np.nan, "rating_ci_low": np.nan,
                        "rating_ci_high": np.nan, "rating_bound": ""})
    keep, aside, sub, n_games = list(range(k)), {}, t, len(np.asarray(t.seat_agent))
    while len(keep) >= 2:
        ext = _extremes(sub, len(keep))
        if not ext:
            break
        aside.update({keep[i]: kind for i, kind in ext.items()})
        keep = [a for a in keep if a not in aside]
        sub, n_games = _subtable(t, keep, k)
    if not aside:  # no single agent to blame (groups that never met both ways): no rating at all
        return nan, why
    bounds = {a: ("-inf" if kind == "never finished ahead" else "+inf") for a, kind in aside.items()}
    nan["rating_bound"] = [bounds.get(a, "") for a in range(k)]
    names = "; ".join(f"{agents[a]}: {kind}" for a, kind in aside.items())
    head = (f"{names} (of any other agent it met), so no finite rating (its maximum-likelihood rating is "
            "-inf, or +inf for never behind; Ford 1957)")
    if len(keep) < 2:
        return nan, f"{head}; fewer than two agents are left to rate"
    try:
        bt = bradley_terry(sub, [agents[a] for a in keep])
    except ValueError as e:
        return nan, f"{head}; the others: {' '.join(str(e).split())}"
    out = nan.set_index("agent")
    out.loc[bt["agent"], list(bt.columns[1:])] = bt.set_index("agent").to_numpy()
    anchor = "" if keep[0] == 0 else f"; anchor {agents[keep[0]]} = 0 (the board's anchor {agents[0]} is set aside)"
    return out.reset_index(), (f"{head}; the others are rated on the {n_games:,} games without "
                               f"{', '.join(agents[a] for a in aside)}{anchor}")


@dataclass
class BoardResult:
    """Ratings of every cell: ``ratings`` (one row per cell and agent, with ``preset``, ``players``), the wall
    seconds of this invocation, and the first command line of the folder's run log (REPORT.md names it)."""

    ratings: pd.DataFrame
    elapsed_s: float
    first_command: str | None = None


#: Every file and folder a leaderboard run writes into its results folder (a folder holding anything else is
#: refused). ``runs.json`` is the run log: the one file a replay with the same results changes.
OWN_FILES = frozenset({"cells", "ratings.csv", "leaderboard.png", "REPORT.md", "result.json", "runs.json"})


def run_board(board: Board, progress: bool = True, command: str | None = None) -> BoardResult:
    """Play (or resume) every cell, rate each, write ``ratings.csv``, ``leaderboard.png``, ``REPORT.md``.

    Raises:
        LeaderboardError, ExperimentError: a refused board or folder (before any game of that cell).
        FolderError: ``board.out`` holds files that are not this study's (nothing played or written).
    """
    from cya_sim.results.folder import check_study_folder, first_command, load_games, read_runs, record_run
    from cya_sim.runs.runner import run_experiment

    t0 = time.perf_counter()
    started = datetime.now(UTC).isoformat(timespec="seconds")
    check_board(board)
    check_study_folder(board.out, "cya-sim leaderboard", OWN_FILES)
    exps = [(preset, p, cell_experiment(board, preset, p)) for preset in board.presets for p in board.players]
    rows, cells = [], {}
    for preset, p, exp in exps:
        r = run_experiment(exp, progress=progress, command=command)
        games = load_games(exp.out)
        rated = rate_cell(games, exp.agents)
        rated.insert(0, "players", p)
        rated.insert(0, "preset", preset)
        rated["cell_games"] = len(games)
        rows.append(rated)
        cells[f"{preset}-{p}p"] = {"games_played": r.games_played, "wall_s": round(r.elapsed_s, 1)}
    ratings = pd.concat(rows, ignore_index=True)
    board.out.mkdir(parents=True, exist_ok=True)
    record_run(board.out, {"started_utc": started, "finished_utc": datetime.now(UTC).isoformat(timespec="seconds"),
                           "command": command, "cya_sim_version": __version__,
                           "wall_s": round(time.perf_counter() - t0, 1), "cells": cells})
    res = BoardResult(ratings, time.perf_counter() - t0, first_command(read_runs(board.out)))
    write_outputs(board, res)
    return res


def write_outputs(board: Board, res: BoardResult) -> None:
    """Write ``ratings.csv``, ``leaderboard.png``, ``REPORT.md`` and ``result.json`` into ``board.out``: nothing
    of when or how long (that is the run log's, ``runs.json``), so a replay with the same games writes the same
    bytes."""
    res.ratings.to_csv(board.out / "ratings.csv", index=False)
    figure(board, res.ratings).savefig(board.out / "leaderboard.png")
    (board.out / "REPORT.md").write_text(report_markdown(board, res, res.first_command))
    games = res.ratings.groupby(["preset", "players"], sort=False)["cell_games"].first()
    (board.out / "result.json").write_text(json.dumps({"games": {f"{pr}-{p}p": int(n) for (pr, p), n in
                                                                 games.items()}}, indent=2) + "\n")


def _axis_range(ratings: pd.DataFrame) -> tuple[float, float]:
    """The x range shared by every panel: every interval except those of outlying ratings (beyond 2 interquartile
    ranges of the quartiles of all the board's ratings; they are drawn clipped, with their numbers), padded."""
    r = ratings["rating"].to_numpy(float)
    ok = np.isfinite(r)
    if not ok.any():
        return -100.0, 100.0
    q1, q3 = np.percentile(r[ok], [25, 75])
    iqr = max(q3 - q1, 50.0)
    inside = ok & (r >= q1 - 2 * iqr) & (r <= q3 + 2 * iqr)
    lo = float(np.nanmin(np.append(ratings["rating_ci_low"].to_numpy(float)[inside], 0.0)))
    hi = float(np.nanmax(np.append(ratings["rating_ci_high"].to_numpy(float)[inside], 0.0)))
    pad = 0.06 * (hi - lo)
    return lo - pad, hi + pad


def figure(board: Board, ratings: pd.DataFrame):
    """One panel per cell (rows: presets, columns: table sizes): every agent's rating with its 95% interval, agents
    in the board's order, on one Elo axis shared by every panel (so a difference reads the same in each).

    An outlying rating (``random``: hundreds of Elo below the rest) would squash the others: the shared axis covers
    every other interval (:func:`_axis_range`), and an outlier is a triangle on the frame's edge pointing to it,
    with its rating and interval printed; an agent that never finished ahead (behind) of anyone has no finite
    rating (Ford 1957) and reads ``−∞ (never ahead)`` (``+∞``) at the edge; an agent that is not in a cell reads
    ``not in this cell``. Long specs are named by a key under the panels (:func:`agent_labels`).

    Returns:
        a matplotlib ``Figure`` on an Agg canvas.
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    from cya_sim.reports.plots import DPI, MIN_FONT, agent_labels, with_key

    cells = [(pr, p) for pr in board.presets for p in board.players]
    cols, rows = len(board.players), len(board.presets)
    names = list(dict.fromkeys(a for pr, p in cells for a in board.cell_agents(pr, p)))
    labels, key = agent_labels(names)
    lo, hi = _axis_range(ratings)
    width = 3.3 * cols + 1.6
    fig = Figure(dpi=DPI, layout="constrained")
    FigureCanvasAgg(fig)
    top = with_key(fig, key, width, 0.27 * len(names) * rows + 1.2 * rows + 0.5)
    axes = top.subplots(rows, cols, squeeze=False, sharex=True, sharey=True)
    y = np.arange(len(names))[::-1]
    grey = "0.45"
    for ax, (pr, p) in zip(axes.ravel(), cells, strict=False):
        c = ratings[(ratings["preset"] == pr) & (ratings["players"] == p)].set_index("agent").reindex(names)
        mine = set(board.cell_agents(pr, p))
        for yy, a in zip(y, names):
            row = c.loc[a]
            r, rl, rh = (float(row[k]) for k in ("rating", "rating_ci_low", "rating_ci_high"))
            bound = row.get("rating_bound", "") if isinstance(row.get("rating_bound", ""), str) else ""
            if a not in mine:
                ax.text((lo + hi) / 2, yy, "not in this cell", ha="center", va="center", fontsize=MIN_FONT,
                        color=grey, style="italic")
            elif bound in ("-inf", "+inf") or (not np.isfinite(r) and "never finished ahead" in str(row.get("note"))
                                               and a in str(row.get("note")).split(":")[0]):
                left = bound != "+inf"
                ax.plot([lo if left else hi], [yy], marker="<" if left else ">", ms=7, color="C3", clip_on=False)
                ax.text(lo + 0.03 * (hi - lo) if left else hi - 0.03 * (hi - lo), yy,
                        "−∞ (never ahead)" if left else "+∞ (never behind)", ha="left" if left else "right",
                        va="center", fontsize=MIN_FONT, color="C3")
            elif not np.isfinite(r):
                ax.text((lo + hi) / 2, yy, "n/a (no rating)", ha="center", va="center", fontsize=MIN_FONT, color=grey)
            elif r < lo or r > hi:
                left = r < lo
                ax.plot([lo if left else hi], [yy], marker="<" if left else ">", ms=7, color="C3", clip_on=False)
                est, ci = estimate_interval(r, rl, rh, decimals=0)
                ax.text(lo + 0.03 * (hi - lo) if left else hi - 0.03 * (hi - lo), yy, f"{est} {ci}",
                        ha="left" if left else "right", va="center", fontsize=MIN_FONT, color="C3")
            else:
                ax.errorbar([r], [yy], xerr=[[r - rl], [rh - r]], fmt="o", ms=4, capsize=2, color="C0",
                            ecolor="C0", elinewidth=1.4)
        ax.axvline(0, color="0.7", lw=0.8, zorder=0)
        ax.set_xlim(lo, hi)
        ax.set_ylim(-0.7, len(names) - 0.3)
        ax.grid(axis="x", color="0.92", zorder=0)
        ax.set_title(f"{pr}, {p} players ({int(c['cell_games'].dropna().iloc[0]):,} games)"
                     if c["cell_games"].notna().any() else f"{pr}, {p} players", fontsize=9)
        ax.tick_params(labelsize=MIN_FONT + 0.5)
        if ax in axes[-1]:
            ax.set_xlabel(f"Bradley–Terry rating (Elo scale, {board.agents[0]} = 0)", fontsize=9)
    for r in range(rows):
        axes[r, 0].set_yticks(y, [labels[a] for a in names], fontsize=MIN_FONT + 0.5)
    unit = "deal" if board.duplicate else "game"
    top.suptitle(f"{board.name}: Bradley–Terry ratings with 95% {unit}-clustered intervals\n(one axis for all "
                 "panels; ◀: beyond it, value printed)", fontsize=10)
    return fig


def _cell_text(row: pd.Series | None) -> str:
    if row is None:
        return "-"
    bound = row.get("rating_bound", "")
    if isinstance(bound, str) and bound in ("-inf", "+inf"):
        return "−∞ (never ahead)" if bound == "-inf" else "+∞ (never behind)"
    if not np.isfinite(row["rating"]):
        return "n/a"
    return " ".join(estimate_interval(row["rating"], row["rating_ci_low"], row["rating_ci_high"], decimals=0))


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
            vals.append("-" if row is None else " ".join(percent_interval(
                row["game_win_rate"], row["game_win_rate_ci_low"], row["game_win_rate_ci_high"])))
        lines.append(f"| `{a}` | " + " | ".join(vals) + " |")
    notes = rt.loc[rt["note"] != "", ["preset", "players", "note"]].drop_duplicates()
    for n in notes.itertuples():
        lines.append(f"\nNote ({n.preset}, {n.players}p): {n.note}")
    games = rt.groupby(["preset", "players"])["cell_games"].first()
    lines += ["", "Games per cell: " + ", ".join(f"{pr} {p}p {int(games[(pr, p)]):,}" for pr, p in cells)
              + f"; cycles per cell {', '.join(f'{p}p {board.cycles[p]}' for p in board.players)}.", "",
              (f"Command (the first run's): `{command or 'python'}`. Every run's command line, times and wall seconds "
              "(per cell too) are in the run log, `runs.json`; a replay with the same games adds an entry there "
              "and rewrites every other file byte for byte."), ""]
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
