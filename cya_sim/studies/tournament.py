"""Flags-only tournaments: one rotated line-up, played through the experiment runner, summarised.

A tournament is fixed by its :class:`TournamentConfig` (rules, agents, table
size, number of games, seed). It is an experiment with one explicit line-up
(:meth:`TournamentConfig.experiment`): the agents cycled to fill the seats,
seats rotated (game g uses rotation ``g % P``, :func:`seat_assignment`), a new
deal per game. Game ``g`` depends only on the root key of the seed, its
global index ``g`` and its seat assignment, never on which worker plays it or
how games are grouped into chunks, so the results are identical for any
``workers`` and ``chunk_size`` (and for either engine: the batched engine
reproduces the reference engine game by game).

With ``out`` set, the run goes through :mod:`cya_sim.runs.runner` exactly like an
experiment file: the same folder layout (``manifest.json``,
``games.parquet/``, ``chunks.json``, ``runs.json``, then the report of
:mod:`cya_sim.reports.report`), the same lock, and the same resume after a kill.
With ``out=None`` (the in-memory API the benchmark uses) the same chunks are
played by the same executor and nothing is written.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
import pandas as pd

from cya_sim.engine import ENGINES
from cya_sim.engine.table import GameTable
from cya_sim.errors import FieldError, UserInputError
from cya_sim.game.limits import MAX_GAMES, MAX_SEED, range_text
from cya_sim.game.rng import root_key
from cya_sim.game.rules import RulesError, RuleSet, get_rules
from cya_sim.runs.experiment import Design, Experiment, RunOptions, resolve_engine
from cya_sim.runs.schedule import Schedule, auto_chunk_size, plan_chunks

#: Name of the experiment a flags-only tournament runs (it is part of the folder's identity).
EXPERIMENT_NAME = "tournament"


class TournamentError(ValueError, UserInputError):
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
        rules: a :class:`~cya_sim.game.rules.RuleSet`, or a preset name (turned
            into ``get_rules(name)``).
        agents: registered agent names (``agents.classic.registry.agent_names()``), at most
            ``n_players`` of them, repeats allowed. The line-up cycles them
            to fill the seats: ``agents=("greedy", "random")`` at 4 players
            is greedy, random, greedy, random.
        n_players: table size P, allowed by the rules.
        games: number of games G >= 1. With G a multiple of P every agent
            sits in every seat equally often.
        seed: tournament seed, an int >= 0 (:func:`cya_sim.game.rng.root_key`).
        engine: ``"batched"`` (default; falls back to ``"reference"`` with a
            note while the batched engine cannot be imported) or ``"reference"``.
        workers: local worker processes; None means every core this process
            may use (:func:`cya_sim.runs.schedule.default_workers`).
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
        from cya_sim.play.families import family_of, is_rule_set

        rules = self.rules
        if isinstance(rules, str):
            try:
                rules = get_rules(rules)
            except RulesError as e:
                raise TournamentError("rules", str(e)) from None
        if not is_rule_set(rules):
            raise TournamentError("rules", f"{rules!r} is not a RuleSet or a preset name")
        object.__setattr__(self, "rules", rules)
        agents = (self.agents,) if isinstance(self.agents, str) else tuple(self.agents)
        object.__setattr__(self, "agents", agents)
        family = family_of(rules)  # the rules' game family's agents
        known, make_agent = family.agent_names(), family.make_agent
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
                f"{self.n_players!r} players; rules {rules.name!r} allow {range_text(rules.min_players, rules.max_players)}",
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

    @property
    def run_engine(self) -> str:
        """The experiment engine choice of :attr:`engine`: ``batched`` becomes ``auto`` (falls back with a note)."""
        return "auto" if self.engine == "batched" else self.engine

    def experiment(self) -> Experiment:
        """This tournament as an experiment: one explicit line-up (:func:`lineup_of`), one table size.

        The agents of the pool are the distinct names in order of first
        appearance; the design's single table is the line-up before rotation.
        The experiment's schedule seats game g exactly as :func:`seat_assignment`
        does, with deal g.
        """
        names, lineup = lineup_of(self.agents, self.n_players)
        return Experiment(
            name=EXPERIMENT_NAME, rules=self.rules, players=(int(self.n_players),), agents=names,
            design=Design("explicit", tables=(tuple(names[i] for i in lineup),)), games=int(self.games),
            seed=int(self.seed), out=Path(self.out) if self.out is not None else Path("."),
            run=RunOptions(engine=self.run_engine, workers=self.workers, chunk_size=self.chunk_size),
            description=f"{len(names)} agents, {self.n_players} players, one line-up with seats rotated")


@dataclass(frozen=True)
class TournamentResult:
    """What a tournament produced.

    Attributes:
        config: the configuration played.
        agent_names: (K,) distinct agent names; ``table.seat_agent`` indexes them.
        lineup: (P,) int16, the line-up before rotation (indices into ``agent_names``).
        table: the games, one row per game, ordered by game index.
        summary: per-agent table of :func:`cya_sim.reports.stats.summarize`.
        engine: the engine that played (``"batched"`` or ``"reference"``).
        engine_note: why the engine differs from the one asked for, else "".
        workers: worker processes used (1 = in this process).
        chunk_size: games per chunk.
        elapsed_s: wall time of playing, in seconds (worker start-up included,
            writing files and compiling excluded).
        files: paths written (empty when ``config.out`` is None).
        compile_s: wall seconds spent compiling numba kernels before the games, once for the machine
            (0.0 when the disk cache held them; :func:`cya_sim.runs.warmup.warm_up`). compiled: their names.
        games_played: games played by this run (fewer than ``len(table)`` when it resumed a folder).
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
    compile_s: float = 0.0
    compiled: tuple[str, ...] = ()
    games_played: int = -1

    @property
    def games_per_s(self) -> float:
        """Games played by this run per second of wall time (all workers together)."""
        n = len(self.table) if self.games_played < 0 else self.games_played
        return n / self.elapsed_s if self.elapsed_s > 0 else float("inf")


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


# -- running ---------------------------------------------------------------------
def check_out_folder(config: TournamentConfig) -> None:
    """Refuse an ``out`` folder that would lose or mix up files, before any game is played (nothing is written).

    Allowed: no ``out``; a folder that does not exist (its nearest existing
    parent writable); an empty folder; a folder holding this very
    tournament's results (same :meth:`TournamentConfig.identity`), which the
    run then resumes (:func:`cya_sim.runs.runner.check_folder`).

    Raises:
        TournamentError: ``out`` is a file, cannot be created or written, or
            holds other files, another tournament's results or damaged
            results (field ``"out"``, or ``"chunk_size"`` for another chunk size).
    """
    from cya_sim.results.folder import check_not_in_use
    from cya_sim.runs.runner import check_folder

    out = config.out
    if out is None:
        return
    if not out.exists():
        base = out.absolute().parent
        while not base.exists():
            base = base.parent
        if not base.is_dir():
            raise TournamentError("out", f"{str(base)!r} is a file, so {str(out)!r} cannot be made; give another folder")
        if not os.access(base, os.W_OK | os.X_OK):
            raise TournamentError("out", f"cannot create {str(out)!r}: {str(base)!r} is not writable; give another folder")
        return
    if out.is_dir() and not os.access(out, os.W_OK | os.X_OK):
        raise TournamentError("out", f"folder {str(out)!r} is not writable; give another folder")
    with _as_tournament_error():
        check_not_in_use(out)  # before the header is printed (a new user's finding)
        check_folder(config.experiment())


_FIELD_OF = {"run.chunk_size": "chunk_size", "run.engine": "engine", "run.workers": "workers"}


@contextmanager
def _as_tournament_error() -> Iterator[None]:
    """An :class:`ExperimentError` or a results folder's :class:`FolderError` becomes a :class:`TournamentError` of the same field."""
    try:
        yield
    except TournamentError:
        raise
    except FieldError as e:  # an ExperimentError, or the results folder's FolderError
        raise TournamentError(_FIELD_OF.get(e.field, e.field), e.detail) from None


def game_table(games: pd.DataFrame, names: Sequence[str], family: str | None = None) -> GameTable:
    """A :class:`GameTable` of stored games (:func:`cya_sim.results.folder.load_games` of one table size).

    Args:
        games: rows of :func:`cya_sim.results.folder.games_schema`, in game order, all of one table size P.
        names: (K,) agent names; ``seat_agent`` indexes them.
        family: the games' family; default the one the frame names or holds
            (:func:`cya_sim.results.folder.family_of_games`).

    Raises:
        ValueError: no known family (:func:`cya_sim.results.folder.family_of_games`).
    """
    from cya_sim.results.folder import family_of_games

    fam = family_of_games(games, family)
    p = int(games["players"].iloc[0]) if len(games) else 0
    idx = {n: i for i, n in enumerate(names)}

    def agent_codes(col: pd.Series) -> np.ndarray:
        cat = col.astype("category").cat
        return np.asarray([idx[c] for c in cat.categories], np.int16)[cat.codes.to_numpy()]

    seat = np.stack([agent_codes(games[f"seat_{s}_agent"]) for s in range(p)], axis=1).astype(np.int16)
    return GameTable(
        game_index=games["game"].to_numpy(np.int64),
        seat_agent=seat,
        totals=np.stack([games[f"seat_{s}_total"].to_numpy(np.int64) for s in range(p)], axis=1),
        win_share=np.stack([games[f"seat_{s}_win_share"].to_numpy(np.float64) for s in range(p)], axis=1),
        decisions=games["decisions"].to_numpy(np.int64),
        family=fam,
        columns={c.name: games[c.name].to_numpy(c.dtype) for c in fam.columns},
        capped=(games["capped"].to_numpy(bool) if "capped" in games else None),
    )


def run_tournament(config: TournamentConfig, progress: bool = True, command: str | None = None) -> TournamentResult:
    """Play a tournament, summarise it, and with ``config.out`` store it like an experiment run (resumable).

    Seats rotate (:func:`seat_assignment`); games run in the chunks of
    :func:`cya_sim.runs.schedule.plan_chunks` on ``workers`` local processes
    (:func:`cya_sim.runs.runner.run_tasks`); the table is in game order, so results
    are identical for any workers and chunk size. Wins are win shares (R-TIE
    ``share``). With ``out``: :func:`cya_sim.runs.runner.run_experiment` plays every
    missing chunk into the folder (a rerun after a kill resumes), then
    :func:`cya_sim.reports.report.build_report` writes the report files.

    Args:
        config: what to play.
        progress: show a tqdm bar (games, games/s, ETA) on stderr.
        command: the command line recorded in the folder's ``runs.json``.

    Returns:
        a :class:`TournamentResult` (``elapsed_s``: wall time of playing, seconds).

    Raises:
        TournamentError: ``out`` refused (checked before any game is played;
            nothing is written), or another run holds the folder.
        IllegalActionError: an agent returned an illegal action.
        OSError: result files cannot be written.
    """
    from cya_sim.reports.stats import SUMMARY_COLUMNS, summarize

    exp = config.experiment()
    names = exp.agents
    _, lineup = lineup_of(config.agents, config.n_players)
    with _as_tournament_error():
        engine, note = resolve_engine(exp.run.engine, exp.rules)
    if config.out is None:
        from cya_sim.runs.runner import searches

        chunk = config.chunk_size or auto_chunk_size(config.games, engine, searches(exp, engine))
        table, workers, elapsed, warm = _play_in_memory(exp, engine, chunk, progress)
        files: tuple[Path, ...] = ()
        compile_s, compiled, played = warm.compile_s, tuple(warm.compiled), len(table)
        summary = summarize(table, names)
    else:
        check_out_folder(config)
        from cya_sim.reports.report import build_report, report_columns
        from cya_sim.results.folder import folder_lock, load_games, read_manifest
        from cya_sim.runs.experiment import check_settings
        from cya_sim.runs.runner import prepare_folder, run_experiment

        with _as_tournament_error():  # before the lock: a refused line-up leaves no folder behind
            check_settings(exp.rules, exp.agents, exp.design, exp.players)
        with _as_tournament_error(), folder_lock(config.out, command):
            manifest, resumed = prepare_folder(exp, engine, command)
            run = run_experiment(exp, progress=progress, command=command, prepared=(manifest, resumed))
            games = load_games(config.out, columns=report_columns(read_manifest(config.out)))  # once: table, report
            table = game_table(games, names)  # the family named by load_games
            report = build_report(config.out, games=games)
            files = tuple(report.files)
        chunk, elapsed = int(manifest["chunk_size"]), run.elapsed_s
        workers = max(1, run.workers)
        compile_s, compiled, played = run.compile_s, run.compiled, run.games_played
        # the report's per-agent rows are summarize() of these games (one table size; every agent of the line-up
        # sits; deal = game): taken from it rather than computed twice
        summary = report.analysis.summary.loc[:, list(SUMMARY_COLUMNS)].reset_index(drop=True)
    result = TournamentResult(config, names, lineup, table, summary, engine, note, workers, chunk, elapsed)
    return replace(result, files=files, compile_s=compile_s, compiled=compiled, games_played=played)


def _play_in_memory(exp: Experiment, engine: str, chunk: int, progress: bool):
    """Every chunk of a one-size experiment through :func:`cya_sim.runs.runner.run_tasks`; nothing is written.

    Returns:
        (table in game order, workers used, wall time of playing in seconds, the
        :class:`~cya_sim.runs.warmup.WarmUp` of the compile before it).
    """
    from tqdm.auto import tqdm

    from cya_sim.runs.runner import ChunkTask, _say, play_chunk_games, run_tasks, run_workers
    from cya_sim.runs.warmup import warm_up

    sched = Schedule.of(exp)
    key = root_key(exp.seed)
    tasks = [ChunkTask(i, a, b, engine, exp.rules, exp.agents, sched, key, max(exp.players))
             for i, (a, b) in enumerate(plan_chunks(sched, chunk))]
    workers = run_workers(exp, engine, tasks)
    parts: dict[int, GameTable] = {}
    warm = warm_up([exp.rules], exp.players, exp.agents, engine, say=_say if progress else None)
    t0 = time.perf_counter()
    with tqdm(total=exp.total_games, unit="game", desc=engine, disable=not progress, dynamic_ncols=True) as bar:
        for task, t in run_tasks(tasks, workers, bar, play_chunk_games):
            parts[task.index] = t
    elapsed = time.perf_counter() - t0
    return GameTable.concat([parts[i] for i in sorted(parts)]), workers, elapsed, warm
