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
    seating = "balanced"                # or "windows": each set of P agents in one order (see below)
    alias_deals = 30                    # deals of each cell's alias probe (0: no probe)
    workers = 1
    scheduler = "tcp://10.0.0.5:8786"   # optional: play the cells on this Dask cluster (default: local processes)
    [agents_by_cell]                    # optional: agents only in some cells, "preset-Pp" = [specs]
    classic-2p = ["agents.learned_models.classic_2p:decide"]
    [quick]                             # the small form (`--quick`): any of the keys above

Each *cell* (preset, P) is one experiment of the run layer (:mod:`cya_sim.runs.experiment`; the folder
``cells/<preset>-<P>p/``, resumable after a kill) with an ``explicit`` design, seats rotated; a *cycle* plays
every line-up in every rotation, each game on its own deal (the game is the sampling unit), or with
``duplicate = true`` every game of a cycle on one deal (the deal is the unit: use many cycles then, an
interval from a handful of clusters means little). Its line-ups (:func:`lineups`): every pair at P = 2; at P >= 3
the *sets* of P agents are the K cyclic windows of P consecutive agents in two orders of the pool (the written order
and a stride through it; a set already taken is not repeated), so the comparison graph is connected. With
``seating = "balanced"`` (the default) each set is seated in a family of circular orders in which every agent sits
at every distance ahead of every other agent of the set equally often (:func:`circular_orders`: 2, 6, 24, 20 and
720 orders at 3, 4, 5, 6 and 7 players), so no agent keeps the same neighbours; with ``seating = "windows"`` (the boards made before
2026-12-03) each set sits in its window's one order — a cell of K = P agents is then one line-up whose agents keep
the same two neighbours in every game, and a rating there holds what its neighbours give it (two copies of one
strategy were put 67 Elo apart that way at 6 players). Every deal is played by every line-up in every rotation.

Ratings (:func:`cya_sim.reports.ratings.bradley_terry`), two per agent and cell, on the Elo scale with the
first agent at 0 and the sandwich covariance clustered by game, or by deal under duplicate deals (Liang & Zeger
1986); the intervals are per rating (95%, normal), not simultaneous:

* the *finishing-order* rating (``rating``): Bradley–Terry (1952) over every pair of seats of a game held by
  different agents (who finished with the higher total; full rank-breaking of the finishing order, consistent
  for Plackett–Luce strengths, Azari Soufiani et al. 2014);
* the *win-based* rating (``win_rating``): each winner against every other seat of its game, co-winners a
  tie, two seats that did not win not compared — wins only. At 2 players the two are one rating; at 3 and more
  an agent that often finishes second rates higher by finishing order than by wins.

The per-game win rate of each agent with its deal-clustered Wilson interval
(:func:`cya_sim.reports.stats.summarize`) stands beside them. Per cell also
(:mod:`cya_sim.studies.board_analysis`): the *alias probe* (``aliases/<preset>-<P>p/``: ``alias_deals``
duplicated deals on which each agent in turn sits against the anchor in every other seat — deals x K x P games,
a small share of a cell of compiled agents; a board whose anchor searches may set ``alias_deals = 0``), whose
identical game records make two agents one strategy, rated once (the later a row with ``alias_of``); every
pair's rating difference with its own interval, by both orders (``head_to_head.csv``); and the deals (games)
a cell of the same design would need to resolve 25 Elo. The probe is played rather than read from the
cell's own games because a cell's line-ups need not seat two agents in exchanged seats on one deal (with
``windows`` at 4 and 6 players they never do), so the cell's games cannot show that two agents play alike.
"""

from __future__ import annotations

import itertools
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
from cya_sim.runs.experiment import Experiment, ExperimentError, RunOptions, is_scheduler_address, parse_experiment
from cya_sim.studies.board_analysis import ALIAS_DEALS
from cya_sim.tomltext import TomlTextError, load_toml

BOARD_KEYS = ("name", "description", "seed", "out", "agents", "presets", "players", "cycles", "duplicate",
              "seating", "agents_by_cell", "alias_deals", "workers", "scheduler", "quick")
#: The ``seating`` of a board's line-ups at 3 players and more (module docstring): ``balanced`` (the default) plays
#: each set of P agents in a family of circular orders in which every agent sits at every distance ahead of every
#: other equally often; ``windows`` plays each set in the one order of its window (the design of the boards made
#: before 2026-12-03, whose committed results it replays).
SEATINGS = ("balanced", "windows")
#: Most circular orders of every order (the (P - 1)! orders, used where P - 1 is not prime): all 720 of 7 seats.
#: Where P - 1 is prime the family of (P - 1)(P - 2) orders is used at any size (42 at 8 seats, 110 at 12, 156 at
#: 14); other sizes above 7 need ``windows``.
MAX_ORDERS = 720


class LeaderboardError(ValueError):
    """A refused board file; ``str(e)`` is the one line shown (exit status 2)."""


@dataclass(frozen=True)
class Board:
    """A validated board file (module docstring).

    Attributes:
        name, seed, out. agents: (K,) specs, K >= 2, the first the anchor. presets: rule presets.
        players: table sizes. cycles: per table size. duplicate: games of a cycle share a deal.
        seating: ``balanced`` or ``windows`` (:data:`SEATINGS`, :func:`lineups`).
        agents_by_cell: ``"preset-Pp"`` -> extra specs of that cell. alias_deals: deals of each cell's alias
        probe (0: none). workers: local processes.
        scheduler: a Dask distributed scheduler (``tcp://HOST:PORT``) that plays every cell and alias probe
            instead of the local processes, or None; like every ``RunOptions`` field it never changes a game, so
            it is not part of a cell's identity (a board started locally resumes on a cluster, and back).
    """

    name: str
    seed: int
    out: Path
    agents: tuple[str, ...]
    presets: tuple[str, ...]
    players: tuple[int, ...]
    cycles: dict[int, int]
    duplicate: bool = False
    seating: str = "balanced"
    agents_by_cell: dict[str, tuple[str, ...]] = field(default_factory=dict)
    alias_deals: int = ALIAS_DEALS
    workers: int = 1
    scheduler: str | None = None

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
    if "scheduler" in (overrides or {}) and "scheduler" in data:
        _scheduler(data["scheduler"])
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
    seating = d.get("seating", "balanced")
    if seating not in SEATINGS:
        raise LeaderboardError(f"seating: give one of {', '.join(repr(x) for x in SEATINGS)}; got {_shown(seating)}")
    if seating == "balanced":
        for p in players:
            try:
                circular_orders(p)
            except ValueError as e:
                raise LeaderboardError(f"seating: {e}") from None
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
    for p in players:  # per cell: the board's agents and the cell's own
        for pr in presets:
            n = len(agents) + len(by_cell.get(f"{pr}-{p}p", ()))
            if p > n:
                raise LeaderboardError(f"players: {p} seats but only {n} agents"
                                       + (f" in cell {pr}-{p}p" if by_cell else "")
                                       + "; every seat of a line-up holds a different agent")
    seed = _int_field(d, "seed", 1, 0, MAX_SEED)
    workers = _int_field(d, "workers", 1, 1, MAX_WORKERS)
    alias_deals = _int_field(d, "alias_deals", ALIAS_DEALS, 0, MAX_CYCLES)
    scheduler = _scheduler(d.get("scheduler"))
    return Board(name=name, seed=seed, out=Path(out), agents=tuple(agents),
                 presets=tuple(presets), players=tuple(players), cycles=cycles, duplicate=duplicate,
                 seating=seating, agents_by_cell=by_cell, alias_deals=alias_deals, workers=workers,
                 scheduler=scheduler)


def _scheduler(v: Any) -> str | None:
    """The ``scheduler`` key: None (absent), or a Dask scheduler address
    (:func:`cya_sim.runs.experiment.is_scheduler_address`, as the tournaments' ``run.scheduler``)."""
    if v is None or is_scheduler_address(v):
        return v
    raise LeaderboardError(f"scheduler: give a Dask scheduler address like tcp://HOST:PORT as a string (omit it "
                           f"for local worker processes); got {_shown(v)}")


def _is_prime(n: int) -> bool:
    return n >= 2 and all(n % d for d in range(2, math.isqrt(n) + 1))


def circular_orders(p: int) -> list[list[int]]:
    """Circular orders of the positions 0, ..., p - 1 of a line-up in which every position sits at every distance
    ahead of every other equally often (a design balanced for neighbours at every distance).

    With q = p - 1 prime (p = 3, 4, 6, 8, 12, ...): the q (q - 1) orders ``(q, t, t + d, t + 2d, ..., t + (q - 1)d)``
    mod q, t in 0, ..., q - 1 and d in 1, ..., q - 1 (the fixed point q and the cyclic group of order q: position
    j steps ahead of position i holds every ordered pair of positions equally often, since j d runs through every
    nonzero residue; 2, 6 and 20 orders at 3, 4 and 6 seats, each ordered pair at each distance 1, 2 and 4 times).
    Otherwise every one of the (p - 1)! circular orders (24 at 5 seats, 720 at 7). At p <= 2 the one order.

    Returns:
        the orders, each a list of p positions starting with position 0 (the first is 0, 1, ..., p - 1: the
        window's own order).

    Raises:
        ValueError: no such family of at most :data:`MAX_ORDERS` orders (p - 1 not prime and (p - 1)! > 720).
    """
    if p <= 2:
        return [list(range(p))]
    q = p - 1
    if _is_prime(q):  # each order turned to start at position 0 (the run layer plays every rotation)
        cyc = [[q] + [(t + j * d) % q for j in range(q)] for d in range(1, q) for t in range(q)]
        return [c[c.index(0):] + c[:c.index(0)] for c in cyc]
    if math.factorial(q) > MAX_ORDERS:
        raise ValueError(f"'balanced' has no design of at most {MAX_ORDERS} circular orders at {p} players (p - 1 "
                         f"= {q} is not prime and {q}! orders are too many); give seating = \"windows\" for this board")
    return [[0] + list(o) for o in itertools.permutations(range(1, p))]


def lineups(k: int, p: int, seating: str = "windows") -> list[list[int]]:
    """Line-ups (indices into the pool, in seat order) of a cell of k agents at p seats (module docstring).

    The *sets*: every pair at p = 2; at p >= 3 the k cyclic windows of p consecutive agents in two orders of the
    pool (the written order and a stride through it; a set already taken is not repeated), so the comparison
    graph is connected. ``windows`` seats each set in its window's order; ``balanced`` in every order of
    :func:`circular_orders` (so within a set no agent keeps the same neighbours: with one set of k = p agents,
    ``windows`` seats every agent between the same two neighbours in every game). Each line-up is then played in
    every rotation by the run layer.

    Returns:
        (L, p) as lists of ints in 0, ..., k - 1.

    Raises:
        ValueError: an unknown seating, or ``balanced`` at a table size :func:`circular_orders` refuses.
    """
    if seating not in SEATINGS:
        raise ValueError(f"seating: give one of {', '.join(SEATINGS)}; got {seating!r}")
    if p == 2:
        return [[i, j] for i in range(k) for j in range(i + 1, k)]
    stride = next(s for s in range(2, k + 1) if math.gcd(s, k) == 1) if k > 2 else 1
    orders = [list(range(k)), [(i * stride) % k for i in range(k)]]
    sets: list[list[int]] = []
    for order in orders:
        for i in range(k):
            lu = [order[(i + j) % k] for j in range(p)]
            if sorted(lu) not in [sorted(x) for x in sets]:
                sets.append(lu)
    if seating == "windows":
        return sets
    circ = circular_orders(p)
    return [[lu[o] for o in c] for lu in sets for c in circ]


def cell_experiment(board: Board, preset: str, p: int) -> Experiment:
    """The experiment of one cell, played by the batched engine on ``board.workers`` local processes or on the Dask
    scheduler ``board.scheduler`` (its run options, never its identity).

    Raises:
        ExperimentError: an unknown agent or preset, a table size the rules refuse (named by the run layer).
    """
    agents = board.cell_agents(preset, p)
    tables = [[agents[i] for i in lu] for lu in lineups(len(agents), p, board.seating)]
    doc = {"name": f"{board.name}-{preset}-{p}p", "seed": board.seed, "games": board.cycles[p] * len(tables) * p,
           "players": p, "agents": list(agents), "out": str(board.out / "cells" / f"{preset}-{p}p"),
           "rules": {"preset": preset}, "design": {"kind": "explicit", "tables": tables,
                                                     "duplicate": board.duplicate}}
    exp = parse_experiment(doc)
    return replace(exp, run=RunOptions(engine="batched", workers=board.workers, scheduler=board.scheduler))


def alias_probe(board: Board, preset: str, p: int) -> Experiment | None:
    """The alias probe of cell (preset, P) in ``aliases/<preset>-<P>p/`` (:func:`cya_sim.studies.board_analysis.
    alias_probe_experiment`: ``board.alias_deals`` duplicated deals, each agent of the cell against the anchor), or
    None when ``alias_deals`` is 0.

    Raises:
        ExperimentError: as :func:`cell_experiment`.
    """
    from cya_sim.studies.board_analysis import alias_probe_experiment

    if board.alias_deals == 0:
        return None
    return alias_probe_experiment(f"{board.name}-{preset}-{p}p", board.seed, board.out / "aliases" / f"{preset}-{p}p",
                                  preset, p, board.cell_agents(preset, p), deals=board.alias_deals,
                                  workers=board.workers, scheduler=board.scheduler)


#: The rating orders of a cell: ``total`` (finishing order by final total; ``rating`` in ``ratings.csv``) and ``win``
#: (wins only; ``win_rating``) (:data:`cya_sim.reports.comparisons.ORDERS`).
ORDERS = ("total", "win")


def _cell_tables(games: pd.DataFrame, agents: Sequence[str], aliases: Sequence[tuple[int, int, int]]):
    """(the cell's games as a table, the deal as unit; the same with every alias's seats given to its representative
    and the aliases dropped from the agents; the remaining agents' names)."""
    from cya_sim.studies.board_analysis import merge_aliases
    from cya_sim.studies.tournament import game_table

    t = game_table(games, list(agents))
    t = replace(t, game_index=games["deal"].to_numpy(np.int64))  # the deal is the unit (= the game without duplicates)
    gone = {b for _a, b, _n in aliases}
    keep = [i for i in range(len(agents)) if i not in gone]
    merged = _subtable(merge_aliases(t, aliases), keep, len(agents))[0] if gone else t
    return t, merged, [agents[i] for i in keep]


def rate_cell(games: pd.DataFrame, agents: Sequence[str],
              aliases: Sequence[tuple[int, int, int]] = ()) -> pd.DataFrame:
    """Bradley–Terry ratings, by finishing order and by wins, and win rates of one cell's games, the deal as the
    sampling unit (the game, when every game has its own deal).

    Args:
        games: the cell's stored games. agents: (K,) the cell's specs, the first the anchor. aliases:
            ``(representative, alias, pairs)`` of :func:`cya_sim.studies.board_analysis.probe_aliases`: an alias's
            seats count as its representative's and the alias is not rated.

    Returns:
        one row per agent: ``agent``, ``rating``, ``rating_se``, ``rating_ci_low``, ``rating_ci_high`` (the
        finishing-order rating, Elo scale, first agent 0; NaN with a ``note`` when the ratings are undefined, and for
        an alias), ``rating_bound`` (``-inf``: the agent never finished ahead of anyone, ``+inf``: never behind, so
        it is set aside and the others are rated without it; else empty), ``game_win_rate`` with
        ``game_win_rate_ci_low``/``_high`` and ``game_win_rate_fair``, ``games``, ``deals``, ``note``; then
        ``alias_of`` (the representative's spec, else empty) and the win-based rating ``win_rating``,
        ``win_rating_se``, ``win_rating_ci_low``, ``win_rating_ci_high``, ``win_rating_bound`` (``-inf``: never
        won, ``+inf``: never lost), ``win_note``.
    """
    from cya_sim.reports.stats import summarize

    t, merged, names = _cell_tables(games, agents, aliases)
    s = summarize(t, list(agents))
    fits = {order: _rate(merged, names, order) for order in ORDERS}
    out = pd.DataFrame({"agent": list(agents)}).merge(fits["total"][0], on="agent", how="left")
    out = out.merge(s[["agent", "games", "units", "game_win_rate", "game_win_rate_ci_low", "game_win_rate_ci_high",
                       "game_win_rate_fair"]], on="agent").rename(columns={"units": "deals"})
    out["rating_bound"] = out["rating_bound"].fillna("")
    out["note"] = fits["total"][1]
    out["alias_of"] = ""
    for rep, alias, _n in aliases:
        out.loc[alias, "alias_of"] = agents[rep]
    win = pd.DataFrame({"agent": list(agents)}).merge(fits["win"][0], on="agent", how="left")
    for c in ("rating", "rating_se", "rating_ci_low", "rating_ci_high", "rating_bound"):
        out["win_" + c] = win[c].fillna("").to_numpy() if c == "rating_bound" else win[c].to_numpy()
    out["win_note"] = fits["win"][1]
    return out


def alias_rows(games: pd.DataFrame, agents: Sequence[str],
               aliases: Sequence[tuple[int, int, int]]) -> list[dict[str, Any]]:
    """The aliases of one cell as reported: ``representative``, ``alias`` (specs), ``pairs_compared`` (probe games
    compared), and ``unmerged_difference``, ``unmerged_low``, ``unmerged_high``: the finishing-order rating
    difference (Elo, representative minus alias, 95% interval) the cell's own games give the two when rated as two
    agents (None when they did not both get a finite rating) — the same strategy at two places of the line-ups, so
    anything but about 0 is what the design itself adds to a rating (its seats' neighbours)."""
    from cya_sim.studies.board_analysis import differences

    t, _m, _n = _cell_tables(games, agents, ())
    sub, keep = _rateable(t, agents, "total")
    try:
        d = differences(sub, [agents[i] for i in keep]).set_index(["agent", "versus"])
    except ValueError:
        d = None
    out = []
    for a, b, n in aliases:
        row = {"representative": agents[a], "alias": agents[b], "pairs_compared": int(n), "unmerged_difference": None,
               "unmerged_low": None, "unmerged_high": None}
        if d is not None and (agents[a], agents[b]) in d.index:
            x = d.loc[(agents[a], agents[b])]
            row |= {"unmerged_difference": round(float(x["difference"]), 1), "unmerged_low": round(float(x["low"]), 1),
                    "unmerged_high": round(float(x["high"]), 1)}
        out.append(row)
    return out


def _alias_text(x: Mapping[str, Any]) -> str:
    """One alias of REPORT.md (:func:`alias_rows`)."""
    t = f"`{x['alias']}` plays as `{x['representative']}` ({x['pairs_compared']:,} pairs of games compared, all identical)"
    if x["unmerged_difference"] is not None:
        t += (f"; rated as two agents on the cell's games they would be "
              f"{_interval(x['unmerged_difference'], x['unmerged_low'], x['unmerged_high'])} Elo apart")
    return t


def head_to_head(games: pd.DataFrame, agents: Sequence[str],
                 aliases: Sequence[tuple[int, int, int]] = ()) -> pd.DataFrame:
    """Every pair's rating difference in one cell with the interval of the difference, by finishing order and by
    wins (:func:`cya_sim.studies.board_analysis.differences`; aliases merged as in :func:`rate_cell`; an agent with
    no finite rating left out, as there).

    Returns:
        one row per order and unordered pair: ``order`` (``total``, ``win``), ``agent``, ``versus``, ``difference``,
        ``se``, ``low``, ``high`` (Elo, agent minus versus), ``p``, ``units_for_delta`` (deals, or games without
        duplicate deals, a cell of this design needs to resolve 25 Elo), ``games_for_delta`` (the same in games).
    """
    from cya_sim.studies.board_analysis import differences

    _t, merged, names = _cell_tables(games, agents, aliases)
    per_unit = len(games) / max(int(games["deal"].nunique()), 1)
    parts = []
    for order in ORDERS:
        sub, keep = _rateable(merged, names, order)
        if len(keep) < 2:
            continue
        try:
            d = differences(sub, [names[i] for i in keep], order=order)
        except ValueError:  # groups that never met, or no finite rating with no single agent to blame
            continue
        parts.append(d)
    if not parts:
        return pd.DataFrame(columns=["order", "agent", "versus", "difference", "se", "low", "high", "p",
                                     "units_for_delta", "games_for_delta"])
    out = pd.concat(parts, ignore_index=True)
    out["games_for_delta"] = np.ceil(out["units_for_delta"] * per_unit).astype(np.int64)
    return out[["order", *[c for c in out.columns if c != "order"]]]


def _extremes(t, k: int, order: str = "total") -> dict[int, str]:
    """Agents of ``t`` (indices < k) that never finished ahead of (``"never finished ahead"``; by wins ``"never
    won"``), or never behind (``"never finished behind"``; ``"never lost"``), any other agent they met (ties count
    half each way); agents absent from ``t`` are not named."""
    from cya_sim.reports.comparisons import ahead_counts

    ahead, ties = ahead_counts(t, k, order)
    w = ahead + ties / 2.0
    met = (ahead + ahead.T + ties).sum(axis=1) > 0
    never = ("never finished ahead", "never finished behind") if order == "total" else ("never won", "never lost")
    out: dict[int, str] = {}
    for a in range(k):
        if met[a] and w[a].sum() == 0:
            out[a] = never[0]
        elif met[a] and w[:, a].sum() == 0:
            out[a] = never[1]
    return out


def _subtable(t, keep: Sequence[int], k: int):
    """The games of ``t`` with at least two seats held by agents of ``keep``, re-indexed ``0..len(keep) - 1``; a seat
    of any other agent becomes -1, whose comparisons the fit skips (:func:`cya_sim.reports.comparisons.ahead_counts`),
    so the comparisons among the kept agents of a game with a set-aside agent still count. Returns (the table, its
    number of games)."""
    remap = np.full(k, -1, np.int16)
    remap[list(keep)] = np.arange(len(keep))
    sa = remap[np.asarray(t.seat_agent)]
    rows = (sa >= 0).sum(axis=1) >= 2
    sub = t.take(rows)
    return replace(sub, seat_agent=sa[rows]), int(rows.sum())


def _set_aside(t, k: int, order: str):
    """(the agents kept, ``{set-aside agent: why}``, the games of the kept agents re-indexed, their count): agents
    without a finite rating (:func:`_extremes`) set aside until none is left among the rest."""
    keep, aside, sub, n_games = list(range(k)), {}, t, len(np.asarray(t.seat_agent))
    while len(keep) >= 2:
        ext = _extremes(sub, len(keep), order)
        if not ext:
            break
        aside.update({keep[i]: kind for i, kind in ext.items()})
        keep = [a for a in keep if a not in aside]
        sub, n_games = _subtable(t, keep, k)
    return keep, aside, sub, n_games


def _rateable(t, agents: Sequence[str], order: str):
    """(the games to rate, the agents rated in them): all of ``t``, or without the agents set aside when the
    ratings are not finite (:func:`_set_aside`)."""
    if not _extremes(t, len(agents), order):
        return t, list(range(len(agents)))
    keep, _aside, sub, _n = _set_aside(t, len(agents), order)
    return sub, keep


def _rate(t, agents: list[str], order: str) -> tuple[pd.DataFrame, str]:
    """The ratings of one order (:func:`cya_sim.reports.ratings.bradley_terry`), or, when they are not finite,
    those of :func:`_rate_without_extremes`; and the note."""
    from cya_sim.reports.ratings import RatingUndefinedError, bradley_terry

    try:
        return bradley_terry(t, agents, order=order).assign(rating_bound=""), ""
    except RatingUndefinedError as e:
        return _rate_without_extremes(t, agents, str(e), order)


def _rate_without_extremes(t, agents: list[str], why: str, order: str = "total") -> tuple[pd.DataFrame, str]:
    """Ratings when the maximum-likelihood estimate is not finite (Ford 1957).

    An agent that never finished ahead of anyone has the rating −∞ (never behind: +∞) at the maximum of the
    likelihood; it is set aside (rating NaN, ``rating_bound`` ``-inf`` or ``+inf``) and the others are rated on
    every comparison among themselves, those of the games it sat in included — the limit of the maximum-likelihood
    fit as its rating goes to −∞ (each comparison it lost then has probability 1, and the rest of the likelihood is
    that of the other comparisons). Setting aside repeats while the rest still has such an agent. (Before
    2026-12-03 the games it sat in were dropped whole, which at 3 players and more threw away the others'
    comparisons in them: on the quick board an agent with a 22.2% win rate was shown "never won".) When the
    anchor (the first agent) is set aside, the first remaining agent is the anchor (the note says so). By wins (``order="win"``) the same, for an agent that never won (never lost).

    Returns:
        (ratings of every agent: NaN for the set-aside ones, and for all when no two agents remain rateable;
        the note naming what was done).
    """
    from cya_sim.reports.ratings import bradley_terry

    k = len(agents)
    nan = pd.DataFrame({"agent": agents, "rating": np.nan, "rating_se": np.nan, "rating_ci_low": np.nan,
                        "rating_ci_high": np.nan, "rating_bound": ""})
    keep, aside, sub, n_games = _set_aside(t, k, order)
    if not aside:  # no single agent to blame (groups that never met both ways): no rating at all
        return nan, why
    bounds = {a: ("-inf" if kind in ("never finished ahead", "never won") else "+inf") for a, kind in aside.items()}
    nan["rating_bound"] = [bounds.get(a, "") for a in range(k)]
    names = "; ".join(f"{agents[a]}: {kind}" for a, kind in aside.items())
    head = (f"{names} (of any other agent it met), so no finite rating (its maximum-likelihood rating is "
            f"-inf, or +inf for {'never behind' if order == 'total' else 'never lost'}; Ford 1957)")
    if len(keep) < 2:
        return nan, f"{head}; fewer than two agents are left to rate"
    try:
        bt = bradley_terry(sub, [agents[a] for a in keep], order=order)
    except ValueError as e:
        return nan, f"{head}; the others: {' '.join(str(e).split())}"
    out = nan.set_index("agent")
    out.loc[bt["agent"], list(bt.columns[1:])] = bt.set_index("agent").to_numpy()
    anchor = "" if keep[0] == 0 else f"; anchor {agents[keep[0]]} = 0 (the board's anchor {agents[0]} is set aside)"
    gone = ", ".join(agents[a] for a in aside)
    return out.reset_index(), (f"{head}; the others are rated on their comparisons with one another, without "
                               f"{gone} (in {n_games:,} games){anchor}")


@dataclass
class BoardResult:
    """Ratings of every cell: ``ratings`` (one row per cell and agent, with ``preset``, ``players``), the wall
    seconds of this invocation, the first command line of the folder's run log (REPORT.md names it),
    ``head_to_head`` (:func:`head_to_head` of every cell, with ``preset``, ``players``, ``cell_games``) and
    ``aliases`` (``"preset-Pp"`` -> :func:`alias_rows` of the cell; cells without a probe absent)."""

    ratings: pd.DataFrame
    elapsed_s: float
    first_command: str | None = None
    head_to_head: pd.DataFrame | None = None
    aliases: dict[str, list[dict[str, Any]]] = field(default_factory=dict)


#: Every file and folder a leaderboard run writes into its results folder (a folder holding anything else is
#: refused). ``runs.json`` is the run log: the one file a replay with the same results changes.
OWN_FILES = frozenset({"cells", "aliases", "ratings.csv", "head_to_head.csv", "leaderboard.png", "REPORT.md",
                       "result.json", "runs.json"})


def run_board(board: Board, progress: bool = True, command: str | None = None) -> BoardResult:
    """Play (or resume) every cell and its alias probe, rate each, write ``ratings.csv``, ``head_to_head.csv``,
    ``leaderboard.png``, ``REPORT.md``, ``result.json``.

    Raises:
        LeaderboardError, ExperimentError: a refused board or folder (before any game of that cell); a scheduler
            that does not answer (:func:`check_scheduler`) before anything is written.
        FolderError: ``board.out`` holds files that are not this study's (nothing played or written).
    """
    from cya_sim.results.folder import first_command, load_games, read_runs, record_run
    from cya_sim.runs.runner import run_experiment

    t0 = time.perf_counter()
    started = datetime.now(UTC).isoformat(timespec="seconds")
    check_board(board)
    if board.scheduler:
        check_scheduler(board.scheduler)
    check_cell_folders(board)  # the board folder and every cell's, read-only, before any game
    from cya_sim.studies.board_analysis import probe_aliases

    exps = [(preset, p, cell_experiment(board, preset, p), alias_probe(board, preset, p))
            for preset in board.presets for p in board.players]
    rows, pairs, cells, found = [], [], {}, {}
    for preset, p, exp, probe in exps:
        r = run_experiment(exp, progress=progress, command=command)
        games = load_games(exp.out)
        cell = f"{preset}-{p}p"
        # milliseconds: a small cell plays in well under 0.1 s; compile_s: the kernels compiled before its games
        cells[cell] = {"games_played": r.games_played, "wall_s": round(r.elapsed_s, 3),
                       "compile_s": round(r.compile_s, 3)}
        aliases: list[tuple[int, int, int]] = []
        if probe is not None:
            pr = run_experiment(probe, progress=progress, command=command)
            aliases = probe_aliases(load_games(probe.out), exp.agents, p)
            found[cell] = alias_rows(games, exp.agents, aliases)
            cells[cell]["alias_probe"] = {"games_played": pr.games_played, "wall_s": round(pr.elapsed_s, 3),
                                          "compile_s": round(pr.compile_s, 3)}
        rated = rate_cell(games, exp.agents, aliases)
        rated.insert(0, "players", p)
        rated.insert(0, "preset", preset)
        rated.insert(rated.columns.get_loc("note") + 1, "cell_games", len(games))  # the columns of old stay first
        rows.append(rated)
        h2h = head_to_head(games, exp.agents, aliases)
        pairs.append(h2h.assign(preset=preset, players=p, cell_games=len(games)))
    ratings = pd.concat(rows, ignore_index=True)
    h2h = pd.concat(pairs, ignore_index=True)
    h2h = h2h[["preset", "players", *[c for c in h2h.columns if c not in ("preset", "players")]]]
    board.out.mkdir(parents=True, exist_ok=True)
    record_run(board.out, {"started_utc": started, "finished_utc": datetime.now(UTC).isoformat(timespec="seconds"),
                           "command": command, "cya_sim_version": __version__,
                           **({"scheduler": board.scheduler} if board.scheduler else {}),
                           "wall_s": round(time.perf_counter() - t0, 1), "cells": cells})
    res = BoardResult(ratings, time.perf_counter() - t0, first_command(read_runs(board.out)), h2h, found)
    write_outputs(board, res)
    return res


def write_outputs(board: Board, res: BoardResult) -> None:
    """Write ``ratings.csv``, ``head_to_head.csv``, ``leaderboard.png``, ``REPORT.md`` and ``result.json`` into
    ``board.out``: nothing of when or how long (that is the run log's, ``runs.json``), so a replay with the same
    games writes the same bytes."""
    res.ratings.to_csv(board.out / "ratings.csv", index=False)
    if res.head_to_head is not None:
        res.head_to_head.to_csv(board.out / "head_to_head.csv", index=False)
    figure(board, res.ratings).savefig(board.out / "leaderboard.png")
    (board.out / "REPORT.md").write_text(report_markdown(board, res, res.first_command))
    games = res.ratings.groupby(["preset", "players"], sort=False)["cell_games"].first()
    doc: dict[str, Any] = {"games": {f"{pr}-{p}p": int(n) for (pr, p), n in games.items()},
                           "seating": board.seating, "duplicate": board.duplicate}
    if res.aliases:
        doc["aliases"] = res.aliases
    if res.head_to_head is not None:
        doc["resolve_25_elo"] = {f"{pr}-{p}p": {o: _resolution(g) for o, g in c.groupby("order", sort=False)}
                                 for (pr, p), c in res.head_to_head.groupby(["preset", "players"], sort=False)}
    (board.out / "result.json").write_text(json.dumps(doc, indent=2) + "\n")


def _resolution(diffs: pd.DataFrame) -> dict[str, Any]:
    """:func:`cya_sim.studies.board_analysis.resolution` of one cell and order, with the same in games."""
    from cya_sim.studies.board_analysis import resolution

    r = resolution(diffs)
    g = diffs["games_for_delta"].to_numpy(np.int64)
    return {**r, "median_games": int(np.median(g)), "max_games": int(g[diffs["units_for_delta"].to_numpy().argmax()])}


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
    ``not in this cell``, an alias (:func:`rate_cell`) ``alias of`` its representative. Long specs are named by a key
    under the panels (:func:`agent_labels`). The finishing-order rating only (the win-based one is in REPORT.md).

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
            alias = row.get("alias_of", "")
            if a not in mine:
                ax.text((lo + hi) / 2, yy, "not in this cell", ha="center", va="center", fontsize=MIN_FONT,
                        color=grey, style="italic")
            elif isinstance(alias, str) and alias:
                ax.text((lo + hi) / 2, yy, f"alias of {labels[alias]}", ha="center", va="center", fontsize=MIN_FONT,
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
            ax.set_xlabel(f"rating (Elo, {labels[board.agents[0]]} = 0)", fontsize=9)  # short: one per panel
    for r in range(rows):
        axes[r, 0].set_yticks(y, [labels[a] for a in names], fontsize=MIN_FONT + 0.5)
    unit = "deal" if board.duplicate else "game"
    top.suptitle(f"{board.name}: Bradley–Terry ratings by finishing order, 95% {unit}-clustered intervals\n"
                 "(one axis for all panels; ◀: beyond it, value printed)", fontsize=10)
    return fig


def _cell_text(row: pd.Series | None, pre: str = "") -> str:
    """One rating of REPORT.md (``pre``: ``""`` finishing order, ``"win_"`` wins only)."""
    if row is None:
        return "-"
    if isinstance(row.get("alias_of"), str) and row["alias_of"]:
        return "alias"
    bound = row.get(pre + "rating_bound", "")
    if isinstance(bound, str) and bound in ("-inf", "+inf"):
        never = ("never ahead", "never behind") if pre == "" else ("never won", "never lost")
        return f"−∞ ({never[0]})" if bound == "-inf" else f"+∞ ({never[1]})"
    if not np.isfinite(row[pre + "rating"]):
        return "n/a"
    if not np.isfinite(row[pre + "rating_se"]):
        return f"{round(row[pre + 'rating']):d} (too few wins for an interval)"  # round: never "-0"
    return " ".join(estimate_interval(row[pre + "rating"], row[pre + "rating_ci_low"], row[pre + "rating_ci_high"],
                                      decimals=0))


def _count(units: int, games: int, duplicate: bool) -> str:
    """A resolution count of REPORT.md: ``deals (games)`` under duplicate deals, else the games alone."""
    return f"{units:,} ({games:,})" if duplicate else f"{games:,}"


def _interval(est: float, low: float, high: float) -> str:
    return " ".join(estimate_interval(est, low, high, decimals=0))


def report_markdown(board: Board, r: BoardResult, command: str | None = None) -> str:
    """REPORT.md: the finishing-order and the win-based ratings (rows agents, columns cells), win rates, aliases,
    every pair's difference with its interval and the deals (games) that would resolve 25 Elo, and how it was
    made."""
    rt = r.ratings
    cells = [(pr, p) for pr in board.presets for p in board.players]
    head = "| agent | " + " | ".join(f"{pr} {p}p" for pr, p in cells) + " |"
    unit = "deal" if board.duplicate else "game"
    counted = "deals (games)" if board.duplicate else "games"  # what the resolution columns count
    names = list(dict.fromkeys(a for pr, p in cells for a in board.cell_agents(pr, p)))

    def row_of(pr: str, p: int, a: str) -> pd.Series | None:
        m = rt[(rt["preset"] == pr) & (rt["players"] == p) & (rt["agent"] == a)]
        return m.iloc[0] if len(m) else None

    def rating_table(pre: str) -> list[str]:
        return [head, "|---|" + "---|" * len(cells)] + [
            f"| `{a}` | " + " | ".join(_cell_text(row_of(pr, p, a), pre) for pr, p in cells) + " |" for a in names]

    has_win = "win_rating" in rt.columns
    lines = [f"# {board.name}", "",
             ("**Finishing-order rating**: Bradley–Terry over every pair of seats of a game (who finished with the "
              "higher total), Elo scale, anchor "
              f"`{board.agents[0]}` = 0, with 95% {unit}-clustered intervals, per cell; seats rotated"
              + ("; duplicated deals." if board.duplicate else "; every game on its own deal.")
              + " Each interval is for one rating (not simultaneous); '-': not in that cell"
              + ("; 'alias': plays as an earlier agent (below), rated as that one." if "alias_of" in rt.columns
                 else ".")), "", *rating_table("")]
    if has_win:
        lines += ["", ("**Win-based rating**: Bradley–Terry over wins only (each game's winner against every other "
                       "seat, co-winners a tie, two seats that did not win not compared), same anchor and intervals. "
                       "At 2 players it is the finishing-order rating; at 3 and more players an agent that often "
                       "finishes second rates higher by finishing order than by wins."), "", *rating_table("win_")]
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
    if has_win:
        for n in rt.loc[rt["win_note"] != "", ["preset", "players", "win_note"]].drop_duplicates().itertuples():
            lines.append(f"\nNote ({n.preset}, {n.players}p, wins only): {n.win_note}")
    if board.alias_deals:
        lines += ["", "## Aliases", "", (f"Each cell's alias probe (`aliases/<cell>/`): {board.alias_deals} "
                  "duplicated deals on which each agent in turn sits against the anchor in every other seat, in "
                  "every rotation. Two agents whose games on the same deals have identical records (every seat's "
                  "total and win share, the decisions, rounds, turns, challenges, largest steal) are one strategy "
                  "(identity of the game records, not a proof that the policies agree in every state): the later "
                  "is rated as the earlier, once."), ""]
        for pr, p in cells:
            found = r.aliases.get(f"{pr}-{p}p", [])
            lines.append(f"- {pr} {p}p: " + ("; ".join(_alias_text(x) for x in found) if found else "none"))
    h = r.head_to_head
    if h is not None and len(h):
        lines += ["", "## Head to head", "", ("Every pair's rating difference (row agent minus column agent, Elo) "
                  f"with the 95% interval of the difference ({unit}-clustered covariance of the fit, not two "
                  "overlapping intervals), by finishing order and by wins only; and the "
                  f"{counted} a cell of the same design needs to tell 25 Elo apart (two-sided 5% test, 80% "
                  "power, finishing order; the error shrinks as one over the square root of the "
                  f"{unit}s)."), ""]
        for pr, p in cells:
            c = h[(h["preset"] == pr) & (h["players"] == p)]
            if not len(c):
                continue
            lines += [f"### {pr} {p}p", "", (f"| agent | versus | finishing order | wins only | {counted} "
                      "for 25 Elo |"), "|---|---|---|---|---|"]
            win = c[c["order"] == "win"].set_index(["agent", "versus"])
            for d in c[c["order"] == "total"].itertuples():
                w = win.loc[(d.agent, d.versus)] if (d.agent, d.versus) in win.index else None
                lines.append(f"| `{d.agent}` | `{d.versus}` | {_interval(d.difference, d.low, d.high)} | "
                             + ("-" if w is None else _interval(w["difference"], w["low"], w["high"]))
                             + f" | {_count(d.units_for_delta, d.games_for_delta, board.duplicate)} |")
            lines.append("")
        lines += ["## Resolution: 25 Elo", "", ("The games a cell of the same design would need so that two agents "
                  "25 Elo apart are told apart (two-sided 5%, 80% power), from each cell's own covariance: the "
                  "median over its pairs and the hardest pair."), "",
                  f"| cell | games played | order | median {counted} | hardest pair | its {counted} |",
                  "|---|---|---|---|---|---|"]
        for (pr, p), c in h.groupby(["preset", "players"], sort=False):
            for o, g in c.groupby("order", sort=False):
                x = _resolution(g)
                lines.append(f"| {pr} {p}p | {int(g['cell_games'].iloc[0]):,} | "
                             f"{'finishing order' if o == 'total' else 'wins only'} | "
                             f"{_count(x['median_units'], x['median_games'], board.duplicate)} | "
                             f"`{x['hardest'].replace(' vs ', '` vs `')}` | "
                             f"{_count(x['max_units'], x['max_games'], board.duplicate)} |")
    games = rt.groupby(["preset", "players"])["cell_games"].first()
    lines += ["", "Games per cell: " + ", ".join(f"{pr} {p}p {int(games[(pr, p)]):,}" for pr, p in cells)
              + f"; cycles per cell {', '.join(f'{p}p {board.cycles[p]}' for p in board.players)}"
              + (f"; alias probe {board.alias_deals} deals a cell." if board.alias_deals else "."), "",
              *([] if max(board.players) < 3 else ["Seating at 3 players and more: " + (
                  "balanced — each set of agents of a line-up sits in circular orders in which every agent is at every "
                  "distance ahead of every other equally often, so no agent keeps the same neighbours."
                  if board.seating == "balanced" else
                  "windows — each set of agents sits in one order in all its rotations, so in a cell of as many "
                  "agents as seats every agent keeps the same two neighbours in every game, and its rating holds "
                  "what those neighbours give it as well as its own strength."), ""]),
              (f"Command (the first run's): `{command or 'python'}`. Every run's command line, times and wall seconds "
              "(per cell too) are in the run log, `runs.json`; a replay with the same games adds an entry there "
              "and rewrites every other file byte for byte. `ratings.csv`: both ratings of every agent and cell "
              "(`rating*`: finishing order, `win_rating*`: wins only, `alias_of`); `head_to_head.csv`: every "
              "pair's differences."), ""]
    return "\n".join(lines)


def plan_lines(board: Board) -> list[str]:
    """One line per cell saying what it plays: its agents, line-ups (sets of agents x circular orders under balanced
    seating), games a cycle, cycles and games, and its alias probe's games — so a board's cost is seen before its
    first game (balanced seating multiplies a cycle by 2, 6 or 20 orders at 3, 4 or 6 players).

    Raises:
        ExperimentError: as :func:`cell_experiment` (an unknown agent, preset or table size), before any line.
    """
    lines = []
    for preset in board.presets:
        for p in board.players:
            exp = cell_experiment(board, preset, p)
            probe = alias_probe(board, preset, p)
            k, n_lineups = len(exp.agents), len(exp.design.tables)
            orders = len(circular_orders(p)) if board.seating == "balanced" and p >= 3 else 1
            sets = n_lineups // orders
            shape = (f"{sets} set{'s' if sets > 1 else ''} x {orders} orders" if orders > 1
                     else f"{n_lineups} line-up{'s' if n_lineups > 1 else ''}")
            c = board.cycles[p]
            lines.append(f"{preset} {p}p: {k} agents, {shape} x {p} rotations = {n_lineups * p:,} games a cycle, "
                         f"{c:,} cycle{'s' if c > 1 else ''}: {exp.games:,} games"
                         + (f" (+ alias probe {probe.games:,})" if probe is not None else ""))
    return lines


def check_cell_folders(board: Board) -> None:
    """Refuse, read-only and before anything is printed or played, a board folder that is not the board's own
    (:func:`cya_sim.results.folder.check_study_folder`) or whose cell or alias-probe folder holds another
    experiment's games (:func:`cya_sim.runs.runner.check_folder`). A cell made with the other seating is named as
    such (the run layer's message shows the two designs cut short, where the seating cannot be seen).

    Raises:
        FolderError: the board folder holds other files (:func:`~cya_sim.results.folder.check_study_folder`).
        LeaderboardError: a cell folder of another experiment, and why, in one line.
    """
    from cya_sim.results.folder import check_study_folder, read_manifest
    from cya_sim.runs.runner import check_folder, experiment_from_manifest

    check_study_folder(board.out, "cya-sim leaderboard", OWN_FILES)
    for preset in board.presets:
        for p in board.players:
            for exp in (cell_experiment(board, preset, p), alias_probe(board, preset, p)):
                if exp is None:
                    continue
                try:
                    check_folder(exp)
                except ExperimentError as e:
                    other = next(x for x in SEATINGS if x != board.seating)
                    as_other = replace(board, seating=other)
                    try:
                        stored = experiment_from_manifest(read_manifest(exp.out)).design.tables
                        made_other = p >= 3 and stored == cell_experiment(as_other, preset, p).design.tables
                    except (OSError, ValueError, KeyError, ExperimentError):
                        made_other = False
                    if made_other:
                        raise LeaderboardError(
                            f"out: cell folder {str(exp.out)!r} was made with seating = {other!r}, and this board "
                            f"has seating = {board.seating!r}; give the board's seating as it was, or a new --out"
                        ) from None
                    raise LeaderboardError(f"out: {e.detail}") from None


def check_scheduler(address: str) -> None:
    """Refuse a Dask scheduler that does not answer within :data:`cya_sim.runs.runner.SCHEDULER_TIMEOUT_S` seconds
    (:func:`cya_sim.runs.runner.connect`, the tournaments' check), before anything is played or written.

    Raises:
        LeaderboardError: ``scheduler: cannot reach the Dask scheduler at ...`` (one line).
    """
    from cya_sim.runs.runner import connect

    try:
        connect(address).close()
    except ExperimentError as e:
        raise LeaderboardError(f"scheduler: {e.detail}; start it, or omit the key scheduler and --scheduler for "
                               "local worker processes") from None


def check_board(board: Board) -> None:
    """Validate every cell's experiment before anything is played (unknown agent, preset, table size).

    Raises:
        ExperimentError: named by the run layer.
    """
    for preset in board.presets:
        for p in board.players:
            cell_experiment(board, preset, p)
            alias_probe(board, preset, p)


__all__ = ["Board", "BoardResult", "ExperimentError", "LeaderboardError", "alias_probe", "cell_experiment", "check_board",
           "check_cell_folders", "check_scheduler", "circular_orders", "head_to_head", "lineups", "load_board", "parse_board", "plan_lines",
           "rate_cell", "run_board"]
