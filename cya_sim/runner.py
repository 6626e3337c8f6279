"""Running an experiment: deterministic chunks, local processes or a Dask cluster, atomic files, resume.

A results folder holds:

- ``manifest.json`` — written before the first game: the experiment's
  identity (:meth:`~cya_sim.experiment.Experiment.identity`), its TOML, the
  seed, the package version, the chunk size and count. It marks the folder as
  this experiment's; a folder holding anything else is refused, never
  overwritten (:func:`prepare_folder`).
- ``games.parquet/`` — a Parquet dataset, one file ``chunk-NNNNNN.parquet``
  per finished chunk, each written to a hidden temporary name, flushed, and
  renamed into place (``os.replace``, atomic on POSIX and Windows), so a file
  under its final name is always complete. ``pandas.read_parquet`` reads the
  folder as one table (:func:`load_games`).
- ``runs.json`` — one entry per run or resume: command, engine, executor,
  chunks played and skipped, wall time, games per second, peak memory.

Running the same experiment into the same folder again plays only the chunks
whose file is missing (resume). Every game depends only on the seed, its
global game number and the schedule (:class:`~cya_sim.experiment.Schedule`),
never on the executor, the workers or the chunking, so a resumed or
clustered run writes exactly the rows of an uninterrupted local one.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import resource
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from cya_sim import __version__
from cya_sim.experiment import (
    Experiment,
    ExperimentError,
    Schedule,
    auto_chunk_size,
    default_workers,
    plan_chunks,
    resolve_engine,
)
from cya_sim.rng import root_key
from cya_sim.rules import RuleSet

MANIFEST = "manifest.json"
RUNS = "runs.json"
GAMES_DIR = "games.parquet"
MANIFEST_KIND = "cya-sim experiment results"
MANIFEST_FORMAT = 1
_TMP_PREFIX = ".tmp-"
#: Seconds to wait for a Dask scheduler to answer before refusing ``run.scheduler``.
SCHEDULER_TIMEOUT_S = 10.0
GAME_COLUMNS = ("rounds", "turns", "challenges", "decisions", "largest_steal", "capped")


def chunk_file(index: int) -> str:
    """File name of chunk ``index`` inside ``games.parquet/``."""
    return f"chunk-{index:06d}.parquet"


def games_schema(max_players: int) -> pa.Schema:
    """Arrow schema of every chunk file (one row per game), the same for every table size.

    Columns: ``game`` int64 (global game number), ``deal`` int64 (engine game
    index: the shuffles and random streams), ``players`` int8, ``cycle`` int64,
    ``lineup`` int32 (row of the design's line-ups at that size), ``rotation``
    int8, ``first_dealer`` int8 (seat), then for each seat s < ``max_players``
    ``seat_{s}_agent`` string, ``seat_{s}_total`` int64 (dollars) and
    ``seat_{s}_win_share`` float64 (1/k for each of k winners, R-TIE) — null
    for seats beyond the game's table size — then ``winner_agents`` string
    (winners' agents joined by ","), ``rounds``, ``turns``, ``challenges``
    int32, ``decisions`` int64, ``largest_steal`` int64 (dollars, the
    largest set won by a challenger) and ``capped`` bool (the game was stopped
    by the rules' ``max_rounds`` cap, not by R-GAME-END; chunks written before
    this column existed read as False).
    """
    f = [pa.field("game", pa.int64()), pa.field("deal", pa.int64()), pa.field("players", pa.int8()),
         pa.field("cycle", pa.int64()), pa.field("lineup", pa.int32()), pa.field("rotation", pa.int8()),
         pa.field("first_dealer", pa.int8())]
    f += [pa.field(f"seat_{s}_agent", pa.string()) for s in range(max_players)]
    f += [pa.field(f"seat_{s}_total", pa.int64()) for s in range(max_players)]
    f += [pa.field(f"seat_{s}_win_share", pa.float64()) for s in range(max_players)]
    f += [pa.field("winner_agents", pa.string()), pa.field("rounds", pa.int32()), pa.field("turns", pa.int32()),
          pa.field("challenges", pa.int32()), pa.field("decisions", pa.int64()), pa.field("largest_steal", pa.int64()),
          pa.field("capped", pa.bool_())]
    return pa.schema(f)


@dataclass(frozen=True)
class ChunkTask:
    """One unit of work: global games ``start..stop-1`` (picklable; sent to local or Dask workers).

    Attributes:
        index: chunk number (its file name). start, stop: game range.
        engine: ``batched`` or ``reference``. rules: the rule set.
        agents: (K,) pool names. schedule: the experiment's schedule.
        key: 64-bit root key of the seed. max_players: columns of :func:`games_schema`.
    """

    index: int
    start: int
    stop: int
    engine: str
    rules: RuleSet
    agents: tuple[str, ...]
    schedule: Schedule
    key: int
    max_players: int


def play_chunk(task: ChunkTask, progress: Callable[[int], None] | None = None) -> pa.Table:
    """Play one chunk and return its rows as an Arrow table of :func:`games_schema`.

    Raises:
        IllegalActionError: an agent returned an illegal action (from the engine).
    """
    from cya_sim.engine import get_play_games

    g = task.schedule.games_of(task.start, task.stop)
    play_games = get_play_games(task.engine)
    t = play_games(task.rules, list(task.agents), g["seat_agent"], task.key, g["deal"], progress=progress)
    n, p, pmax = len(g["game"]), g["players"], task.max_players
    names = np.array(task.agents, dtype=object)
    cols: dict[str, Any] = {
        "game": g["game"], "deal": g["deal"], "players": np.full(n, p, np.int8), "cycle": g["cycle"],
        "lineup": g["lineup"], "rotation": g["rotation"].astype(np.int8),
        "first_dealer": np.asarray(t.first_dealer, np.int8),
    }
    sa = np.asarray(t.seat_agent)
    for s in range(pmax):
        cols[f"seat_{s}_agent"] = pa.array(names[sa[:, s]], pa.string()) if s < p else pa.nulls(n, pa.string())
    for s in range(pmax):
        cols[f"seat_{s}_total"] = np.asarray(t.totals[:, s], np.int64) if s < p else pa.nulls(n, pa.int64())
    for s in range(pmax):
        cols[f"seat_{s}_win_share"] = (np.asarray(t.win_share[:, s], np.float64) if s < p
                                       else pa.nulls(n, pa.float64()))
    won = np.asarray(t.win_share) > 0
    cols["winner_agents"] = pa.array([",".join(names[row[w]]) for row, w in zip(sa, won)], pa.string())
    for k in GAME_COLUMNS:
        cols[k] = np.asarray(getattr(t, k))
    return pa.table(cols, schema=games_schema(pmax))


# -- the folder ------------------------------------------------------------------
def manifest_of(exp: Experiment, chunk_size: int, n_chunks: int) -> dict[str, Any]:
    """The manifest dict of an experiment run with a chunk size."""
    return {
        "kind": MANIFEST_KIND,
        "format": MANIFEST_FORMAT,
        "experiment": exp.identity(),
        "experiment_toml": exp.to_toml(),
        "name": exp.name,
        "description": exp.description,
        "seed": exp.seed,
        "cya_sim_version": __version__,
        "chunk_size": chunk_size,
        "n_chunks": n_chunks,
        "total_games": exp.total_games,
        "max_players": max(exp.players),
        "created_utc": datetime.now(UTC).isoformat(timespec="seconds"),
    }


def read_manifest(folder: str | Path) -> dict[str, Any]:
    """The manifest of a results folder.

    Raises:
        ExperimentError: no manifest, or not a cya-sim results manifest (field ``out``).
    """
    path = Path(folder) / MANIFEST
    try:
        m = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ExperimentError("out", f"{str(folder)!r} holds no {MANIFEST}; it is not a cya-sim results folder") \
            from None
    except (OSError, ValueError) as e:
        raise ExperimentError("out", f"{str(path)!r} cannot be read as a manifest ({e})") from None
    if not isinstance(m, dict) or m.get("kind") != MANIFEST_KIND:
        raise ExperimentError("out", f"{str(path)!r} is not a cya-sim results manifest")
    return m


def prepare_folder(exp: Experiment, engine: str) -> tuple[dict[str, Any], bool]:
    """Check the results folder before any game, and write the manifest of a new run.

    Allowed: a folder that does not exist or is empty (a new run; the
    manifest is written now), or one whose manifest has this experiment's
    identity (a resume; its chunk size is kept).

    Args:
        exp: the experiment. engine: the engine that will play (picks the
            automatic chunk size of a new run).

    Returns:
        (manifest, resumed).

    Raises:
        ExperimentError (field ``out``): ``out`` is a file, holds files that
        are not cya-sim results, or holds another experiment's results; field
        ``run.chunk_size``: a chunk size other than the folder's.
    """
    out = Path(exp.out)
    if out.exists() and not out.is_dir():
        raise ExperimentError("out", f"{str(out)!r} is a file; give a new or empty folder")
    sched = Schedule.of(exp)
    # temporary files of a run killed while writing its manifest do not make the folder foreign
    entries = [p for p in out.iterdir() if not p.name.startswith(_TMP_PREFIX)] if out.is_dir() else []
    if entries:
        if not (out / MANIFEST).exists():
            shown = ", ".join(sorted(p.name for p in entries)[:3])
            raise ExperimentError("out", f"folder {str(out)!r} holds files that are not cya-sim results ({shown}); "
                                  "give a new or empty folder")
        m = read_manifest(out)
        mine = json.loads(json.dumps(exp.identity()))
        stored = m.get("experiment") or {}
        if stored != mine:
            diff = [k for k in mine if stored.get(k) != mine[k]]
            shown = "; ".join(f"{k} {_short(stored.get(k))} there, {_short(mine[k])} here" for k in diff[:2])
            raise ExperimentError(
                "out", f"folder {str(out)!r} holds the results of another experiment ({m.get('name')!r}, seed "
                f"{m.get('seed')}; {shown}); give a new folder (results are never overwritten)")
        if exp.run.chunk_size is not None and exp.run.chunk_size != m["chunk_size"]:
            raise ExperimentError("run.chunk_size", f"{exp.run.chunk_size}, but the run in {str(out)!r} uses "
                                  f"{m['chunk_size']}; give {m['chunk_size']} or omit it to resume")
        if len(plan_chunks(sched, m["chunk_size"])) != m.get("n_chunks"):
            raise ExperimentError("out", f"manifest of {str(out)!r} does not match its experiment's chunks")
        return m, True
    chunk = exp.run.chunk_size or auto_chunk_size(exp.games, engine)
    m = manifest_of(exp, chunk, len(plan_chunks(sched, chunk)))
    out.mkdir(parents=True, exist_ok=True)
    for p in out.iterdir():  # leftovers of a run killed before its manifest was in place
        p.unlink()
    write_atomic(out / MANIFEST, lambda p: p.write_text(json.dumps(m, indent=2) + "\n", encoding="utf-8"))
    (out / GAMES_DIR).mkdir(exist_ok=True)
    return m, False


def _short(v: Any) -> str:
    t = json.dumps(v)
    return t if len(t) <= 40 else t[:37] + "..."


def write_atomic(path: Path, write: Callable[[Path], None]) -> None:
    """Write a file through a hidden temporary name in its folder, fsync it, then ``os.replace`` it into place.

    Raises:
        OSError: from writing; the temporary file is removed and ``path`` is untouched.
    """
    fd, tmp = tempfile.mkstemp(prefix=_TMP_PREFIX, dir=path.parent)
    os.close(fd)
    try:
        write(Path(tmp))
        with open(tmp, "rb+") as fh:
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def done_chunks(folder: str | Path, ranges: list[tuple[int, int]]) -> set[int]:
    """Indices of the chunks whose file is complete (expected row count in its Parquet footer).

    Args:
        folder: the results folder. ranges: the game range of every chunk (:func:`plan_chunks`).

    Leftover temporary files of a killed run are removed. A chunk file with
    the wrong row count (it cannot happen through :func:`write_atomic`, but a
    hand-edited folder can) counts as missing and is replayed.
    """
    gdir = Path(folder) / GAMES_DIR
    done: set[int] = set()
    if not gdir.is_dir():
        return done
    for p in gdir.iterdir():
        if p.name.startswith(_TMP_PREFIX):
            p.unlink(missing_ok=True)
            continue
        if not (p.name.startswith("chunk-") and p.name.endswith(".parquet")):
            continue
        try:
            i = int(p.name[6:-8])
            a, b = ranges[i]
            if pq.read_metadata(p).num_rows == b - a:
                done.add(i)
        except (ValueError, IndexError, OSError, pa.ArrowException):
            continue
    return done


def experiment_from_manifest(manifest: dict[str, Any], out: str | Path | None = None) -> Experiment:
    """The :class:`Experiment` recorded in a manifest (from its stored TOML).

    Raises:
        ExperimentError: the stored experiment no longer validates (e.g. an agent was removed).
    """
    import tomllib

    from cya_sim.experiment import apply_overrides, parse_experiment

    data = tomllib.loads(manifest["experiment_toml"])
    if out is not None:
        data = apply_overrides(data, {"out": str(out)})
    return parse_experiment(data)


def load_games(folder: str | Path, columns: list[str] | None = None) -> pd.DataFrame:
    """All stored games of a results folder, one row per game, in ``game`` order (:func:`games_schema`).

    The chunk files are read one at a time with ``pyarrow.parquet`` into
    preallocated NumPy columns, so memory stays near the size of the result
    (about 130 MB per million 4-player games) instead of holding an Arrow copy
    too. ``seat_{s}_agent`` and ``winner_agents`` are pandas categoricals;
    per-seat columns of seats that some table sizes lack are float64 with NaN
    there (as ``pandas.read_parquet`` gives them).

    Args:
        folder: a results folder.
        columns: columns to read (default all); ``game`` is always read.

    Raises:
        ExperimentError: not a results folder.
    """
    manifest = read_manifest(folder)
    schema = games_schema(int(manifest["max_players"]))
    names = schema.names if columns is None else ["game"] + [c for c in schema.names if c in columns and c != "game"]
    files = sorted(Path(folder, GAMES_DIR).glob("chunk-*.parquet"))
    rows = [pq.read_metadata(f).num_rows for f in files]
    n = int(sum(rows))
    min_p = min(manifest["experiment"]["players"])
    out: dict[str, np.ndarray] = {}
    cats: dict[str, dict[str, int]] = {}
    for name in names:
        typ = schema.field(name).type
        if pa.types.is_string(typ):
            out[name], cats[name] = np.full(n, -1, np.int32), {}
        elif name.startswith("seat_") and int(name.split("_")[1]) >= min_p:
            out[name] = np.full(n, np.nan)
        else:
            out[name] = np.empty(n, typ.to_pandas_dtype())
    at = 0
    for f, k in zip(files, rows):
        present = set(pq.read_schema(f).names)
        t = pq.read_table(f, columns=[c for c in names if c in present])
        for name in names:
            if name not in present:  # a column added later (``capped``): its default in older chunks
                out[name][at:at + k] = False
                continue
            col = t.column(name)
            if name in cats:
                codes = np.full(k, -1, np.int32)
                d = col.combine_chunks().dictionary_encode()
                vocab = [cats[name].setdefault(v, len(cats[name])) for v in d.dictionary.to_pylist()]
                idx = d.indices.to_numpy(zero_copy_only=False)
                ok = ~np.isnan(idx) if idx.dtype.kind == "f" else np.ones(k, bool)
                codes[ok] = np.asarray(vocab, np.int32)[idx[ok].astype(np.int64)] if vocab else -1
                out[name][at:at + k] = codes
            else:
                out[name][at:at + k] = col.to_numpy(zero_copy_only=False)
        at += k
        del t
    df = pd.DataFrame({
        name: (pd.Categorical.from_codes(out[name], categories=list(cats[name])) if name in cats else out[name])
        for name in names
    }, copy=False)
    if not df["game"].is_monotonic_increasing:
        df = df.sort_values("game", kind="stable").reset_index(drop=True)
    return df


# -- running ---------------------------------------------------------------------
@dataclass(frozen=True)
class RunResult:
    """What one run (or resume) did.

    Attributes:
        folder: the results folder. resumed: it continued an earlier run.
        engine: the engine that played; engine_note why it differs from the one asked for.
        executor: ``"in-process"``, ``"local processes (N)"`` or ``"dask tcp://..."``.
        chunks_played, chunks_skipped: chunk counts (skipped = already on disk).
        games_played: games played by this run. elapsed_s: wall time of playing, seconds.
        peak_rss_mb: peak resident memory of this process and its finished children, MiB.
    """

    folder: Path
    resumed: bool
    engine: str
    engine_note: str
    executor: str
    chunks_played: int
    chunks_skipped: int
    games_played: int
    elapsed_s: float
    peak_rss_mb: float

    @property
    def games_per_s(self) -> float:
        """Games played per second of wall time (all workers together)."""
        return self.games_played / self.elapsed_s if self.elapsed_s > 0 else float("nan")


def run_experiment(exp: Experiment, progress: bool = True, command: str | None = None,
                   on_chunk: Callable[[int], None] | None = None,
                   prepared: tuple[dict[str, Any], bool] | None = None) -> RunResult:
    """Play every missing chunk of an experiment into its folder (then build the report with :mod:`cya_sim.report`).

    Args:
        exp: the validated experiment (``exp.run`` says engine, workers, chunk size, scheduler).
        progress: a tqdm bar on stderr (games, games/s, ETA), also on a cluster.
        command: the command line to record in ``runs.json`` (REPORT.md shows it).
        on_chunk: called with each chunk index after its file is in place (tests use it).
        prepared: what :func:`prepare_folder` returned, when the caller already checked the folder.

    Returns:
        a :class:`RunResult`.

    Raises:
        ExperimentError: the folder or the scheduler is refused (before any game or file).
        OSError: a file cannot be written. Errors of the engine or of an agent propagate; the
        chunks already written stay, and a rerun resumes after them.
    """
    engine, note = resolve_engine(exp.run.engine, exp.rules)
    client = connect(exp.run.scheduler) if exp.run.scheduler else None  # refused before anything is written
    try:
        return _run(exp, engine, note, client, progress, command, on_chunk, prepared)
    finally:
        if client is not None:
            client.close()


def _run(exp: Experiment, engine: str, note: str, client, progress: bool, command: str | None,
         on_chunk: Callable[[int], None] | None, prepared: tuple[dict[str, Any], bool] | None) -> RunResult:
    from tqdm.auto import tqdm

    manifest, resumed = prepared if prepared is not None else prepare_folder(exp, engine)
    out = Path(exp.out)
    sched = Schedule.of(exp)
    ranges = plan_chunks(sched, manifest["chunk_size"])
    done = done_chunks(out, ranges)
    key = root_key(exp.seed)
    pmax = max(exp.players)
    tasks = [ChunkTask(i, a, b, engine, exp.rules, exp.agents, sched, key, pmax)
             for i, (a, b) in enumerate(ranges) if i not in done]
    done_games = sum(b - a for i, (a, b) in enumerate(ranges) if i in done)
    gdir = out / GAMES_DIR
    gdir.mkdir(parents=True, exist_ok=True)

    def store(task: ChunkTask, table: pa.Table) -> None:
        write_atomic(gdir / chunk_file(task.index), lambda p: pq.write_table(table, p))
        if on_chunk is not None:
            on_chunk(task.index)

    t0 = time.perf_counter()
    desc = f"{exp.name} ({engine})"
    with tqdm(total=exp.total_games, initial=done_games, unit="game", desc=desc, disable=not progress,
              dynamic_ncols=True, smoothing=0.1) as bar:
        if not tasks:
            executor = "nothing to play"
        elif exp.run.scheduler:
            executor = f"dask {exp.run.scheduler}"
            for task, table in _run_dask(tasks, client):
                store(task, table)
                bar.update(table.num_rows)
        else:
            workers = max(1, min(exp.run.workers or default_workers(), len(tasks)))
            executor = "in-process" if workers == 1 else f"local processes ({workers})"
            for task, table in _run_local(tasks, workers, bar):
                store(task, table)
                if workers > 1:
                    bar.update(table.num_rows)
    elapsed = time.perf_counter() - t0
    played = sum(t.stop - t.start for t in tasks)
    peak = max(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
               resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
    peak_mb = peak / (1024 * 1024) if sys.platform == "darwin" else peak / 1024
    result = RunResult(out, resumed, engine, note, executor, len(tasks), len(done), played, elapsed, peak_mb)
    _append_run(out, result, command)
    return result


def _run_local(tasks: list[ChunkTask], workers: int, bar) -> Iterator[tuple[ChunkTask, pa.Table]]:
    """Yield (task, table) as chunks finish: in this process (per-game progress) or in a spawn process pool."""
    if workers <= 1:
        for t in tasks:
            yield t, play_chunk(t, progress=bar.update)
        return
    ctx = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=workers, mp_context=ctx) as pool:
        futures = {pool.submit(play_chunk, t): t for t in tasks}
        try:
            for fut in as_completed(futures):
                yield futures[fut], fut.result()
        except BaseException:
            pool.shutdown(wait=False, cancel_futures=True)
            raise


def connect(address: str):
    """A ``distributed.Client`` on a Dask scheduler (waits up to :data:`SCHEDULER_TIMEOUT_S`).

    Raises:
        ExperimentError: the scheduler cannot be reached (field ``run.scheduler``).
    """
    from distributed import Client

    try:
        return Client(address, timeout=f"{SCHEDULER_TIMEOUT_S}s", set_as_default=False)
    except (OSError, TimeoutError) as e:
        raise ExperimentError("run.scheduler", f"cannot reach the Dask scheduler at {address!r} ({e})") from None


def _run_dask(tasks: list[ChunkTask], client) -> Iterator[tuple[ChunkTask, pa.Table]]:
    """Yield (task, table) as chunks finish on a Dask distributed cluster.

    The workers need ``cya_sim`` and ``agents`` importable (the same
    installation); tables come back to this process, which writes the files,
    so workers need no access to the results folder.
    """
    from distributed import as_completed as dask_completed

    keys = [f"cya-sim-chunk-{t.key:x}-{t.index}-{os.getpid()}-{time.time_ns()}" for t in tasks]
    futures = client.map(play_chunk, tasks, key=keys, pure=False)
    by_key = {f.key: t for f, t in zip(futures, tasks)}
    try:
        for fut in dask_completed(futures, loop=client.loop):
            yield by_key[fut.key], fut.result()
    except BaseException:
        client.cancel(futures)
        raise


def _append_run(out: Path, result: RunResult, command: str | None) -> None:
    path = out / RUNS
    try:
        runs = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        runs = []
    runs.append({
        "finished_utc": datetime.now(UTC).isoformat(timespec="seconds"),
        "command": command,
        "cya_sim_version": __version__,
        "resumed": result.resumed,
        "engine": result.engine,
        "engine_note": result.engine_note,
        "executor": result.executor,
        "chunks_played": result.chunks_played,
        "chunks_skipped": result.chunks_skipped,
        "games_played": result.games_played,
        "elapsed_s": round(result.elapsed_s, 3),
        "games_per_s": round(result.games_per_s, 1) if result.games_played else None,
        "peak_rss_mb": round(result.peak_rss_mb, 1),
    })
    write_atomic(path, lambda p: p.write_text(json.dumps(runs, indent=2) + "\n", encoding="utf-8"))


def read_runs(folder: str | Path) -> list[dict[str, Any]]:
    """Entries of ``runs.json`` (empty when there is none)."""
    try:
        return json.loads((Path(folder) / RUNS).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
