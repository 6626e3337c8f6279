"""Tournaments: many games with rotated seats, played in deterministic chunks, summarised.

A tournament is fixed by its :class:`TournamentConfig` (rules, agents, table
size, number of games, seed). Game ``g`` depends only on the root key of the
seed, its global index ``g`` and its seat assignment (:func:`seat_assignment`),
never on which worker plays it or how games are grouped into chunks, so the
results are identical for any ``workers`` and ``chunk_size`` (and for either
engine: the batched engine reproduces the reference engine game by game).

Experiment files (issue 5) build on the same ideas in :mod:`cya_sim.experiment`
(line-up designs, duplicate deals, a schedule of global game numbers),
:mod:`cya_sim.runner` (one Parquet file per chunk, manifest, resume, local
processes or a Dask cluster) and :mod:`cya_sim.report` (every statistic and
plot, REPORT.md). This module stays the flags-only ``cya-sim tournament`` and
the in-memory API (``out=None``) that the benchmark uses.
"""

from __future__ import annotations

import json
import math
import multiprocessing
import os
import tempfile
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
import pandas as pd

from cya_sim import __version__
from cya_sim.engine import ENGINES, batched_refusal, get_play_games
from cya_sim.engine.table import GameTable
from cya_sim.limits import MAX_GAMES, MAX_SEED
from cya_sim.rng import root_key
from cya_sim.rules import RulesError, RuleSet, get_rules

#: Files a tournament writes into its ``out`` folder.
GAMES_FILE = "games.parquet"
SUMMARY_FILE = "summary.csv"
PLOT_FILE = "win_rates.png"
#: What was played, by which version, and how fast; it marks a folder as this tournament's.
MANIFEST = "tournament.json"
OUTPUT_FILES = (GAMES_FILE, SUMMARY_FILE, PLOT_FILE, MANIFEST)
_TMP_PREFIX = ".cya-sim-tmp-"
#: Largest automatic chunk, in games, per engine (a chunk is the unit of work and of progress).
_MAX_AUTO_CHUNK = {"reference": 100, "batched": 25_000}


class TournamentError(ValueError):
    """A tournament setting is outside what is allowed.

    Attributes:
        field: the :class:`TournamentConfig` field at fault (``"games"``,
            ``"n_players"``, ``"out"``, ...).
        detail: what was wrong and what is allowed.
    """

    def __init__(self, field: str, detail: str) -> None:
        super().__init__(f"option {field!r}: {detail}")
        self.field = field
        self.detail = detail


def _is_int(v: object) -> bool:
    return isinstance(v, (int, np.integer)) and not isinstance(v, bool)


@dataclass(frozen=True)
class TournamentConfig:
    """What to play. Validated on construction.

    Attributes:
        rules: a :class:`~cya_sim.rules.RuleSet`, or a preset name (turned
            into ``get_rules(name)``).
        agents: registered agent names (``agents.agent_names()``), at most
            ``n_players`` of them, repeats allowed. The line-up cycles them
            to fill the seats: ``agents=("greedy", "random")`` at 4 players
            is greedy, random, greedy, random.
        n_players: table size P, allowed by the rules.
        games: number of games G >= 1. With G a multiple of P every agent
            sits in every seat equally often.
        seed: tournament seed, an int >= 0 (:func:`cya_sim.rng.root_key`).
        engine: ``"batched"`` (default; falls back to ``"reference"`` with a
            note while the batched engine cannot be imported) or ``"reference"``.
        workers: local worker processes; None means every core this process
            may use (:func:`default_workers`).
            1 plays in this process.
        chunk_size: games per chunk (the unit of work); None picks one from
            G, the workers and the engine. Results do not depend on it.
        out: folder for the result files, or None to write nothing.

    Raises:
        TournamentError: a field outside its allowed values; the message
            names the field and what is allowed.
    """

    rules: RuleSet | str
    agents: Sequence[str]
    n_players: int = 4
    games: int = 2000
    seed: int = 1
    engine: str = "batched"
    workers: int | None = None
    chunk_size: int | None = None
    out: Path | str | None = None

    def __post_init__(self) -> None:
        from agents import agent_names, make_agent
        rules = self.rules
        if isinstance(rules, str):
            try:
                rules = get_rules(rules)
            except RulesError as e:
                raise TournamentError("rules", str(e)) from None
        if not isinstance(rules, RuleSet):
            raise TournamentError("rules", f"{rules!r} is not a RuleSet or a preset name")
        object.__setattr__(self, "rules", rules)
        agents = (self.agents,) if isinstance(self.agents, str) else tuple(self.agents)
        object.__setattr__(self, "agents", agents)
        known = agent_names()
        if not agents:
            raise TournamentError("agents", f"no agents given; choose from: {', '.join(known)}")
        for a in agents:
            try:
                make_agent(a)  # names, specs with parameters, module:Class paths (agents.spec)
            except (ValueError, TypeError) as e:
                raise TournamentError("agents", str(e)) from None
        if not _is_int(self.n_players) or not rules.min_players <= self.n_players <= rules.max_players:
            raise TournamentError(
                "n_players",
                f"{self.n_players!r} players; rules {rules.name!r} allow {rules.min_players} to {rules.max_players}",
            )
        try:
            rules.check_table(self.n_players)  # enough cards at this size (hand_size, deck, R-DECK-MULTI)
        except RulesError as e:
            raise TournamentError("rules", str(e)) from None
        if len(agents) > self.n_players:
            raise TournamentError(
                "agents",
                f"{len(agents)} agents for {self.n_players} seats; give 1 to {self.n_players} agents "
                "(they are cycled to fill the seats)",
            )
        if not _is_int(self.games) or not 1 <= self.games <= MAX_GAMES:
            raise TournamentError("games", f"{self.games!r}; it must be an integer from 1 to {MAX_GAMES:,}")
        if not _is_int(self.seed) or not 0 <= self.seed <= MAX_SEED:
            raise TournamentError("seed", f"{self.seed!r}; it must be an integer from 0 to {MAX_SEED:,}")
        if self.engine not in ENGINES:
            raise TournamentError("engine", f"{self.engine!r}; choose one of: {', '.join(ENGINES)}")
        if self.workers is not None and (not _is_int(self.workers) or self.workers < 1):
            raise TournamentError("workers", f"{self.workers!r}; it must be an integer >= 1 (or None for all cores)")
        if self.chunk_size is not None and (not _is_int(self.chunk_size) or self.chunk_size < 1):
            raise TournamentError("chunk_size", f"{self.chunk_size!r}; it must be an integer >= 1 (or None for auto)")
        if self.out is not None:
            object.__setattr__(self, "out", Path(self.out))

    def identity(self) -> dict:
        """JSON-ready dict of everything that fixes the results (rules, agents, P, G, seed).

        ``engine``, ``workers``, ``chunk_size`` and ``out`` are left out: they
        do not change a single game.
        """
        return {
            "rules": self.rules.to_dict(),
            "agents": list(self.agents),
            "n_players": int(self.n_players),
            "games": int(self.games),
            "seed": int(self.seed),
        }


@dataclass(frozen=True)
class TournamentResult:
    """What a tournament produced.

    Attributes:
        config: the configuration played.
        agent_names: (K,) distinct agent names; ``table.seat_agent`` indexes them.
        lineup: (P,) int16, the line-up before rotation (indices into ``agent_names``).
        table: the games, one row per game, ordered by game index.
        summary: per-agent table of :func:`cya_sim.stats.summarize`.
        engine: the engine that played (``"batched"`` or ``"reference"``).
        engine_note: why the engine differs from the one asked for, else "".
        workers: worker processes used (1 = in this process).
        chunk_size: games per chunk.
        elapsed_s: wall time of playing, in seconds (worker start-up included,
            writing files excluded).
        files: paths written (empty when ``config.out`` is None).
    """

    config: TournamentConfig
    agent_names: tuple[str, ...]
    lineup: np.ndarray
    table: GameTable
    summary: pd.DataFrame
    engine: str
    engine_note: str
    workers: int
    chunk_size: int
    elapsed_s: float
    files: tuple[Path, ...] = field(default=())

    @property
    def games_per_s(self) -> float:
        """Games per second of wall time (all workers together)."""
        return len(self.table) / self.elapsed_s if self.elapsed_s > 0 else float("inf")


# -- line-up design ------------------------------------------------------------
def lineup_of(agents: Sequence[str], n_players: int) -> tuple[tuple[str, ...], np.ndarray]:
    """The rotated-seat design's line-up: agents cycled to fill P seats.

    Returns:
        (names, lineup): ``names`` the distinct agent names in order of first
        appearance; ``lineup`` (P,) int16 with ``names[lineup[s]]`` the agent
        of seat s before rotation.
    """
    names = tuple(dict.fromkeys(agents))
    lineup = np.array([names.index(agents[s % len(agents)]) for s in range(n_players)], dtype=np.int16)
    return names, lineup


def seat_assignment(lineup: np.ndarray, game_indices: np.ndarray) -> np.ndarray:
    """Seat-to-agent map of each game: game g uses rotation ``g % P`` of the line-up.

    ``seat_agent[i, s] = lineup[(s - g_i) % P]``: rotation r moves every agent
    r seats to the left of the line-up's seat. Over any P consecutive game
    indices each line-up position sits in each seat exactly once, so every
    agent sits in every seat equally often when G is a multiple of P.

    Args:
        lineup: (P,) int agent indices. game_indices: (G,) int global indices.

    Returns:
        (G, P) int16 agent indices.
    """
    lineup = np.asarray(lineup, dtype=np.int16)
    p = lineup.shape[0]
    g = np.asarray(game_indices, dtype=np.int64)
    return lineup[(np.arange(p)[None, :] - g[:, None]) % p].astype(np.int16)


# -- execution -------------------------------------------------------------------
def resolve_engine(name: str, rules: RuleSet | None = None) -> tuple[str, str]:
    """The engine that will actually play, and a note when it differs.

    ``"batched"`` falls back to ``"reference"`` when ``rules`` has a deck the
    batched engine does not take (more than ``MAX_BATCHED_CARD_TYPES`` card
    types) or when ``cya_sim.engine.batched`` cannot be imported; any other
    error of the batched engine propagates.

    Raises:
        ValueError: unknown engine name.
    """
    why = batched_refusal(rules) if name == "batched" and rules is not None else ""
    if why:
        return "reference", f"{why}; using the reference engine"
    if name == "batched":
        try:
            get_play_games("batched")
        except ImportError as e:
            return "reference", f"batched engine not available ({e}); using the reference engine"
    else:
        get_play_games(name)
    return name, ""


def default_workers() -> int:
    """Worker processes when ``workers`` is None: the CPU cores this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def plan_chunks(games: int, chunk_size: int) -> list[tuple[int, int]]:
    """Half-open ranges ``[start, stop)`` of global game indices, in order, covering ``0..games-1``."""
    return [(s, min(s + chunk_size, games)) for s in range(0, games, chunk_size)]


def auto_chunk_size(games: int, workers: int, engine: str) -> int:
    """About 16 chunks per worker, capped per engine so progress stays smooth (games)."""
    return max(1, min(math.ceil(games / (16 * workers)), _MAX_AUTO_CHUNK[engine]))


def play_chunk(engine: str, rules: RuleSet, names: tuple[str, ...], lineup: np.ndarray, key: int,
               start: int, stop: int, progress: Callable[[int], None] | None = None) -> GameTable:
    """Play global games ``start..stop-1`` of a tournament on one engine (a picklable unit of work).

    Returns:
        a :class:`GameTable` of ``stop - start`` rows in game-index order.
    """
    idx = np.arange(start, stop, dtype=np.int64)
    play_games = get_play_games(engine)
    return play_games(rules, list(names), seat_assignment(lineup, idx), key, idx, progress=progress)


def _run_chunks(tasks: list[tuple], workers: int, bar) -> list[GameTable]:
    """Run ``play_chunk(*task)`` for every task; results in task order.

    One worker plays in this process (per-game progress); more use a spawn-
    context process pool (per-chunk progress), safe on every platform.
    """
    if workers <= 1:
        return [play_chunk(*t, progress=bar.update) for t in tasks]
    out: list[GameTable | None] = [None] * len(tasks)
    ctx = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=workers, mp_context=ctx) as pool:
        futures = {pool.submit(play_chunk, *t): i for i, t in enumerate(tasks)}
        try:
            for fut in as_completed(futures):
                i = futures[fut]
                out[i] = fut.result()
                bar.update(len(out[i]))
        except BaseException:
            pool.shutdown(wait=False, cancel_futures=True)
            raise
    return out  # type: ignore[return-value]


# -- output ----------------------------------------------------------------------
def check_out_folder(config: TournamentConfig) -> None:
    """Refuse an ``out`` folder that would lose or mix up files, before any game is played.

    Allowed: no ``out``; a folder that does not exist; an empty folder; a
    folder holding only the result files of this very tournament (same
    :meth:`TournamentConfig.identity`), which are then replaced by identical
    results.

    Raises:
        TournamentError: ``out`` is a file, cannot be created or written, or
            its folder holds other files or another tournament's results
            (field ``"out"``).
    """
    out = config.out
    if out is None:
        return
    if out.exists() and not out.is_dir():
        raise TournamentError("out", f"{str(out)!r} is a file; give a new or empty folder")
    if not out.is_dir():
        base = out.absolute().parent
        while not base.exists():
            base = base.parent
        if not base.is_dir():
            raise TournamentError("out", f"{str(base)!r} is a file, so {str(out)!r} cannot be made; give another folder")
        if not os.access(base, os.W_OK | os.X_OK):
            raise TournamentError("out", f"cannot create {str(out)!r}: {str(base)!r} is not writable; give another folder")
        return
    if not os.access(out, os.W_OK | os.X_OK):
        raise TournamentError("out", f"folder {str(out)!r} is not writable; give another folder")
    entries = sorted(p.name for p in out.iterdir() if not p.name.startswith(_TMP_PREFIX))
    if not entries:
        return
    foreign = [e for e in entries if e not in OUTPUT_FILES]
    if foreign or MANIFEST not in entries:
        shown = ", ".join((foreign or entries)[:3]) + (", ..." if len(foreign or entries) > 3 else "")
        raise TournamentError(
            "out", f"folder {str(out)!r} holds files that are not this tournament's results ({shown}); "
            "give a new or empty folder"
        )
    try:
        stored = json.loads((out / MANIFEST).read_text(encoding="utf-8")).get("tournament")
    except (OSError, ValueError, AttributeError):
        stored = None
    if stored != json.loads(json.dumps(config.identity())):
        raise TournamentError(
            "out", f"folder {str(out)!r} holds the results of another tournament; give a new or empty folder"
        )


def games_frame(result: TournamentResult) -> pd.DataFrame:
    """One row per game (``games.parquet``).

    Columns: ``game_index`` (int64), ``seed`` (int64, the tournament seed),
    ``rules`` (str, rule-set name), ``first_dealer`` (seat),
    ``seat_{s}_agent`` (str), ``seat_{s}_total`` (int64 dollars) and
    ``seat_{s}_win_share`` (float64, 1/k for each of k winners, R-TIE) for
    every seat s, ``winners`` (list of seats), ``winner_agents`` (str, the
    winners' agents joined by ","), ``rounds``, ``turns``, ``challenges``,
    ``decisions`` (int64 counts), ``largest_steal`` (int64 dollars, the
    largest set won by a challenger) and ``capped`` (bool: stopped by the
    rules' ``max_rounds`` cap, not by R-GAME-END).
    """
    t, names, cfg = result.table, result.agent_names, result.config
    p = t.seat_agent.shape[1]
    cols: dict[str, object] = {
        "game_index": t.game_index.astype(np.int64),
        "seed": np.full(len(t), cfg.seed, dtype=np.int64),
        "rules": np.full(len(t), cfg.rules.name, dtype=object),
        "first_dealer": t.first_dealer.astype(np.int16),
    }
    name_arr = np.array(names, dtype=object)
    for s in range(p):
        cols[f"seat_{s}_agent"] = name_arr[t.seat_agent[:, s]]
    for s in range(p):
        cols[f"seat_{s}_total"] = t.totals[:, s].astype(np.int64)
    for s in range(p):
        cols[f"seat_{s}_win_share"] = t.win_share[:, s].astype(np.float64)
    # Few distinct (seat map, winners) patterns exist; build each one's values once.
    won = t.win_share > 0
    inverse, first = _row_patterns(np.hstack([t.seat_agent.astype(np.int64), won]))
    patterns = np.hstack([t.seat_agent.astype(np.int64), won])[first]
    seats_of = [np.flatnonzero(row[p:]).tolist() for row in patterns]
    agents_of = [",".join(name_arr[row[:p][row[p:] > 0]]) for row in patterns]
    cols["winners"] = [seats_of[i] for i in inverse]
    cols["winner_agents"] = np.array(agents_of, dtype=object)[inverse]
    for k in ("rounds", "turns", "challenges", "decisions", "largest_steal"):
        cols[k] = getattr(t, k).astype(np.int64)
    cols["capped"] = np.asarray(t.capped, bool)
    return pd.DataFrame(cols)


def _row_patterns(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Distinct rows of a (G, C) array of non-negative ints: (G,) pattern id per row, and the first row of each.

    Column by column, the codes so far and the next column are combined and
    factorised again, so codes stay below G and never overflow.
    """
    code = np.zeros(rows.shape[0], dtype=np.int64)
    for col in rows.T:
        code = pd.factorize(code * (int(col.max(initial=0)) + 1) + col)[0].astype(np.int64)
    _, first = np.unique(code, return_index=True)
    return code, first


def _write_atomic(path: Path, write: Callable[[Path], None]) -> None:
    fd, tmp = tempfile.mkstemp(prefix=_TMP_PREFIX, dir=path.parent)
    os.close(fd)
    try:
        write(Path(tmp))
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp makes 0600; results are ordinary files
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_results(result: TournamentResult, out: Path) -> tuple[Path, ...]:
    """Write ``games.parquet``, ``summary.csv``, ``win_rates.png`` and ``tournament.json`` into ``out``.

    Each file is written to a temporary name and renamed into place; the
    manifest comes last, so a folder with a manifest holds complete results.

    Raises:
        OSError: the folder or a file cannot be written.
    """
    from cya_sim.plots import save_win_rates

    cfg = result.config
    out.mkdir(parents=True, exist_ok=True)
    games = games_frame(result)
    _write_atomic(out / GAMES_FILE, lambda p: games.to_parquet(p, index=False, engine="pyarrow"))
    _write_atomic(out / SUMMARY_FILE, lambda p: result.summary.to_csv(p, index=False))
    title = (f"{cfg.rules.name}, {cfg.n_players} players, {cfg.games:,} games, seed {cfg.seed}")
    _write_atomic(out / PLOT_FILE, lambda p: save_win_rates(result.summary, cfg.n_players, p, title))
    manifest = {
        "kind": "cya-sim tournament",
        "cya_sim_version": __version__,
        "tournament": cfg.identity(),
        "agent_names": list(result.agent_names),
        "lineup": result.lineup.tolist(),
        "engine": result.engine,
        "engine_note": result.engine_note,
        "workers": result.workers,
        "chunk_size": result.chunk_size,
        "elapsed_s": round(result.elapsed_s, 3),
        "games_per_s": round(result.games_per_s, 1),
        "files": [GAMES_FILE, SUMMARY_FILE, PLOT_FILE],
    }
    _write_atomic(out / MANIFEST, lambda p: p.write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8"))
    return tuple(out / f for f in OUTPUT_FILES)


def run_tournament(config: TournamentConfig, progress: bool = True) -> TournamentResult:
    """Play a tournament, summarise it, and write its files when ``config.out`` is set.

    Seats rotate (:func:`seat_assignment`); games run in chunks of global game
    indices on ``workers`` local processes; the table is reassembled in game
    order, so results are identical for any workers and chunk size. Wins are
    win shares (R-TIE ``share``).

    Args:
        config: what to play.
        progress: show a tqdm bar (games, games/s, ETA) on stderr.

    Returns:
        a :class:`TournamentResult`.

    Raises:
        TournamentError: ``out`` refused by :func:`check_out_folder` (checked
            before any game is played; nothing is written).
        IllegalActionError: an agent returned an illegal action.
        OSError: result files cannot be written.
    """
    from tqdm.auto import tqdm

    from cya_sim.stats import summarize

    check_out_folder(config)
    engine, note = resolve_engine(config.engine, config.rules)
    names, lineup = lineup_of(config.agents, config.n_players)
    want = config.workers or default_workers()
    chunk = config.chunk_size or auto_chunk_size(config.games, want, engine)
    chunks = plan_chunks(config.games, chunk)
    workers = max(1, min(want, len(chunks)))
    key = root_key(config.seed)
    tasks = [(engine, config.rules, names, lineup, key, a, b) for a, b in chunks]
    t0 = time.perf_counter()
    with tqdm(total=config.games, unit="game", desc=engine, disable=not progress, dynamic_ncols=True) as bar:
        tables = _run_chunks(tasks, workers, bar)
    elapsed = time.perf_counter() - t0
    table = GameTable.concat(tables)
    result = TournamentResult(config, names, lineup, table, summarize(table, names), engine, note, workers, chunk,
                              elapsed)
    if config.out is not None:
        files = write_results(result, config.out)
        result = replace(result, files=files)
    return result
