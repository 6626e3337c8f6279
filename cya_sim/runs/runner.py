"""Running an experiment: deterministic chunks, local processes or a Dask cluster, atomic files, resume.

Both forms of ``cya-sim tournament`` run here: an experiment file, and a
flags-only tournament (:mod:`cya_sim.runs.tournament` turns its flags into an
experiment with one explicit line-up). A results folder holds:

- ``manifest.json`` — written before the first game, after every value is
  validated: the experiment's identity
  (:meth:`~cya_sim.runs.experiment.Experiment.identity`), its TOML, the seed, the
  package version, the chunk size and count. It marks the folder as this
  experiment's; a folder holding anything else is refused, never overwritten
  (:func:`prepare_folder`). Every key is checked when it is read
  (:func:`validate_manifest`).
- ``games.parquet/`` — a Parquet dataset, one file ``chunk-NNNNNN.parquet``
  per finished chunk, each written to a hidden temporary name, flushed, and
  renamed into place (``os.replace``, atomic on POSIX and Windows), so a file
  under its final name is always complete. ``pandas.read_parquet`` reads the
  folder as one table (:func:`load_games`).
- ``chunks.json`` — per written chunk: its game range, row count, size and
  SHA-256 of the file, recorded when it was written. Resume and report check
  every chunk file against it and against the plan (:func:`check_chunks`): a
  file that is not a planned chunk is named and refused; a damaged one (other
  bytes, other games, not recorded) is named, and replayed by a resume.
- ``runs.json`` — one entry per run or resume, added when it starts
  (``status`` ``running``) and completed when it ends: command, engine,
  executor, chunks played and skipped, wall time, games per second, peak
  memory. A run killed outright keeps ``running``; the next run marks it
  ``killed``.
- ``.cya-sim.lock`` — held (``fcntl.flock``) by the run writing into the
  folder; a second run into the same folder is refused naming the first's
  process (:func:`folder_lock`).

Running the same experiment into the same folder again plays only the chunks
whose file is missing or damaged (resume). Every game depends only on the
seed, its global game number and the schedule
(:class:`~cya_sim.runs.experiment.Schedule`), never on the executor, the workers or
the chunking, so a resumed or clustered run writes exactly the rows of an
uninterrupted local one. Files follow the umask (like any file the user
writes). Worker processes end within a second when the main process dies, and
within :data:`STOP_GRACE_S` seconds of Ctrl-C whatever the chunk size (every
chunk already finished stays written; the run is recorded ``interrupted``).
"""

from __future__ import annotations

import hashlib
import json
import multiprocessing
import os
import queue as _queue
import re
import resource
import signal
import socket
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor, as_completed
from contextlib import closing, contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from cya_sim import __version__
from cya_sim.engine.table import GameTable
from cya_sim.game.rng import root_key
from cya_sim.game.rules import RuleSet
from cya_sim.runs.experiment import (
    Experiment,
    ExperimentError,
    Schedule,
    auto_chunk_size,
    plan_chunks,
    resolve_engine,
    worker_count,
)
from cya_sim.runs.warmup import WarmUp, warm_up

try:
    import fcntl
except ImportError:  # not POSIX: runs into one folder are not locked
    fcntl = None  # type: ignore[assignment]

MANIFEST = "manifest.json"
RUNS = "runs.json"
GAMES_DIR = "games.parquet"
CHUNKS = "chunks.json"
LOCK = ".cya-sim.lock"
MANIFEST_KIND = "cya-sim experiment results"
#: 2 added ``chunks.json``; folders of format 1 are read, their unrecorded chunks replayed.
MANIFEST_FORMAT = 2
_TMP_PREFIX = ".tmp-"
_CHUNK_RE = re.compile(r"^chunk-([0-9]{6,})\.parquet$")
#: A package version (PEP 440 public and local forms: 0.1.0, 1.2.3rc1, 0.2.0.dev3+g1a2b).
_VERSION_RE = re.compile(r"^[0-9]+(\.[0-9]+)*([a-z]+[0-9]*)?(\.(post|dev)[0-9]+)*(\+[a-z0-9.]+)?$")
#: Seconds to wait for a Dask scheduler to answer before refusing ``run.scheduler``.
SCHEDULER_TIMEOUT_S = 10.0
#: Seconds between a worker's checks that the main process still lives.
PARENT_POLL_S = 0.5
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


def play_chunk_games(task: ChunkTask, progress: Callable[[int], None] | None = None) -> GameTable:
    """Play the games of one chunk: the one place a run calls an engine (picklable; runs in workers).

    Returns:
        a :class:`~cya_sim.engine.table.GameTable` of ``task.stop - task.start``
        rows in game order; ``game_index`` is each game's deal.

    Raises:
        IllegalActionError: an agent returned an illegal action (from the engine).
    """
    from cya_sim.play import play_games_for

    g = task.schedule.games_of(task.start, task.stop)
    play_games = play_games_for(task.rules, task.engine)
    return play_games(task.rules, list(task.agents), g["seat_agent"], task.key, g["deal"], progress=progress)


def chunk_table(task: ChunkTask, t: GameTable) -> pa.Table:
    """The rows of one played chunk as an Arrow table of :func:`games_schema`.

    ``winner_agents`` is built once per distinct (seat map, winners) pattern
    (a few dozen per chunk), not once per game.
    """
    g = task.schedule.games_of(task.start, task.stop)
    n, p, pmax = len(g["game"]), g["players"], task.max_players
    names = np.array(task.agents, dtype=object)
    cols: dict[str, Any] = {
        "game": g["game"], "deal": g["deal"], "players": np.full(n, p, np.int8), "cycle": g["cycle"],
        "lineup": g["lineup"], "rotation": g["rotation"].astype(np.int8),
        "first_dealer": np.asarray(t.first_dealer, np.int8),
    }
    sa = np.asarray(t.seat_agent)
    for s in range(pmax):
        if s < p:
            codes = sa[:, s].astype(np.int32)
            cols[f"seat_{s}_agent"] = pa.DictionaryArray.from_arrays(codes, pa.array(list(task.agents), pa.string())) \
                .cast(pa.string())
        else:
            cols[f"seat_{s}_agent"] = pa.nulls(n, pa.string())
    for s in range(pmax):
        cols[f"seat_{s}_total"] = np.asarray(t.totals[:, s], np.int64) if s < p else pa.nulls(n, pa.int64())
    for s in range(pmax):
        cols[f"seat_{s}_win_share"] = (np.asarray(t.win_share[:, s], np.float64) if s < p
                                       else pa.nulls(n, pa.float64()))
    won = np.asarray(t.win_share) > 0
    key = np.hstack([sa.astype(np.int64), won.astype(np.int64)])
    patterns, inverse = np.unique(key, axis=0, return_inverse=True)
    text = np.array([",".join(names[row[:p][row[p:] > 0]]) for row in patterns], dtype=object)
    cols["winner_agents"] = pa.array(text[inverse.reshape(-1)], pa.string())
    for k in GAME_COLUMNS:
        cols[k] = np.asarray(getattr(t, k))
    return pa.table(cols, schema=games_schema(pmax))


def play_chunk(task: ChunkTask, progress: Callable[[int], None] | None = None) -> pa.Table:
    """Play one chunk and return its rows as an Arrow table of :func:`games_schema`.

    Raises:
        IllegalActionError: an agent returned an illegal action (from the engine).
    """
    return chunk_table(task, play_chunk_games(task, progress))


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
    """The manifest of a results folder, every key validated (:func:`validate_manifest`).

    Raises:
        ExperimentError (field ``out``): no manifest, not a cya-sim results manifest, or a key
            missing, of the wrong type or inconsistent with the others (one line naming the key).
    """
    path = Path(folder) / MANIFEST
    try:
        m = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ExperimentError("out", f"{str(folder)!r} holds no {MANIFEST}; it is not a cya-sim results folder") \
            from None
    except (OSError, ValueError) as e:
        raise ExperimentError("out", f"{str(path)!r} cannot be read as a manifest ({' '.join(str(e).split())})") \
            from None
    if not isinstance(m, dict) or m.get("kind") != MANIFEST_KIND:
        raise ExperimentError("out", f"{str(path)!r} is not a cya-sim results manifest")
    validate_manifest(m, path)
    runs = read_runs(folder)
    first = runs[0].get("cya_sim_version") if runs else None
    if first is not None and first != m["cya_sim_version"]:  # both are written by the run that made the folder
        raise ExperimentError("out", f"{str(path)!r}: key 'cya_sim_version' is {_short(m['cya_sim_version'])}, but "
                              f"the run that wrote the folder was cya-sim {_short(first)} ({RUNS}); the manifest was "
                              "changed by hand or damaged (restore it, or give a new folder)")
    return m


def _is_count(v: Any, lo: int = 0) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and v >= lo


def validate_manifest(m: dict[str, Any], path: str | Path = MANIFEST) -> None:
    """Check every key of a manifest and that they agree with each other and with its stored TOML.

    Checked: ``format`` (1 or 2), ``experiment`` (a dict with ``players``, a
    non-empty list of ints >= 2; ``games`` >= 1; ``seed`` >= 0; ``agents``, a
    non-empty list of strings), ``experiment_toml`` (TOML whose seed, games,
    players and agents are the experiment's), ``seed`` (= the experiment's),
    ``chunk_size`` >= 1, ``n_chunks`` (= the plan's count), ``total_games``
    (= games x table sizes), ``max_players`` (= the largest table size),
    ``cya_sim_version`` (a version string such as ``0.1.0``; :func:`read_manifest`
    also checks it against the first run recorded in ``runs.json``, written by the
    same process).

    Raises:
        ExperimentError (field ``out``): one line naming the manifest and the first key at fault.
    """
    import tomllib

    def bad(key: str, why: str) -> ExperimentError:
        return ExperimentError("out", f"{str(path)!r}: key {key!r} {why}; the manifest was changed by hand or "
                               "damaged (restore it, or give a new folder)")

    if m.get("format") not in (1, 2):
        raise bad("format", f"is {_short(m.get('format'))}; this version reads 1 and 2")
    e = m.get("experiment")
    if not isinstance(e, dict):
        raise bad("experiment", "is missing or not a table")
    players = e.get("players")
    if not isinstance(players, list) or not players or not all(_is_count(p, 2) for p in players):
        raise bad("experiment.players", f"is {_short(players)}; expected a list of table sizes")
    for k, lo in (("games", 1), ("seed", 0)):
        if not _is_count(e.get(k), lo):
            raise bad(f"experiment.{k}", f"is {_short(e.get(k))}; expected an integer >= {lo}")
    agents = e.get("agents")
    if not isinstance(agents, list) or not agents or not all(isinstance(a, str) for a in agents):
        raise bad("experiment.agents", f"is {_short(agents)}; expected a list of agent names")
    toml = m.get("experiment_toml")
    if not isinstance(toml, str):
        raise bad("experiment_toml", "is missing or not text")
    try:
        stored = tomllib.loads(toml)
    except tomllib.TOMLDecodeError as err:
        raise bad("experiment_toml", f"is not valid TOML ({err})") from None
    for k in ("seed", "games", "agents", "players"):
        v = stored.get(k)
        if k == "players" and isinstance(v, int):
            v = [v]
        if v != e.get(k):
            raise bad("experiment_toml", f"has {k} = {_short(v)}, but key experiment.{k} is {_short(e.get(k))}")
    if m.get("seed") != e["seed"]:
        raise bad("seed", f"is {_short(m.get('seed'))}, but the experiment's seed is {e['seed']}")
    if not _is_count(m.get("chunk_size"), 1):
        raise bad("chunk_size", f"is {_short(m.get('chunk_size'))}; expected an integer >= 1")
    total = e["games"] * len(players)
    if m.get("total_games") != total:
        raise bad("total_games", f"is {_short(m.get('total_games'))}, but the experiment has {total:,} games")
    n = len(plan_of(m))
    if m.get("n_chunks") != n:
        raise bad("n_chunks", f"is {_short(m.get('n_chunks'))}, but chunks of {m['chunk_size']} games make {n}")
    if m.get("max_players") != max(players):
        raise bad("max_players", f"is {_short(m.get('max_players'))}, but the largest table size is {max(players)}")
    version = m.get("cya_sim_version")
    if not isinstance(version, str) or not _VERSION_RE.match(version):
        raise bad("cya_sim_version", f"is {_short(version)}; expected the version of cya-sim that wrote the folder, "
                  "such as " + json.dumps(__version__))


def plan_of(manifest: dict[str, Any]) -> list[tuple[int, int]]:
    """Game ranges of every chunk of a results folder, from its manifest (:func:`~cya_sim.runs.experiment.plan_chunks`)."""
    e = manifest["experiment"]
    return plan_chunks(Schedule(tuple(e["players"]), int(e["games"]), False, ()), int(manifest["chunk_size"]))


def _entries(out: Path) -> list[Path]:
    """Files of a results folder that are not a run's own temporary or lock files."""
    return [p for p in out.iterdir() if not p.name.startswith(_TMP_PREFIX) and p.name != LOCK] if out.is_dir() else []


def check_folder(exp: Experiment) -> dict[str, Any] | None:
    """Check the results folder of an experiment without writing anything.

    Allowed: a folder that does not exist or is empty (returns None: a new
    run), or one whose manifest is valid and has this experiment's identity
    and chunk size (returns the manifest: a resume).

    Raises:
        ExperimentError (field ``out``): ``out`` is a file, holds files that
        are not cya-sim results, holds another experiment's results, has a
        damaged manifest (the key is named) or a ``runs.json`` that is not a
        list of runs; field ``run.chunk_size``: a chunk size other than the folder's.
    """
    out = Path(exp.out)
    if out.exists() and not out.is_dir():
        raise ExperimentError("out", f"{str(out)!r} is a file; give a new or empty folder")
    entries = _entries(out)
    if not entries:
        return None
    if not (out / MANIFEST).exists():
        shown = ", ".join(sorted(p.name for p in entries)[:3])
        raise ExperimentError("out", f"folder {str(out)!r} holds files that are not cya-sim results ({shown}); "
                              "give a new or empty folder")
    m = read_manifest(out)
    mine = json.loads(json.dumps(exp.identity()))
    stored = m["experiment"]
    if stored != mine:
        diff = [k for k in mine if stored.get(k) != mine[k]]
        shown = "; ".join(f"{k} {_short(stored.get(k))} there, {_short(mine[k])} here" for k in diff[:2])
        raise ExperimentError(
            "out", f"folder {str(out)!r} holds the results of another experiment ({m.get('name')!r}, seed "
            f"{m.get('seed')}; {shown}); give a new folder (results are never overwritten)")
    if exp.run.chunk_size is not None and exp.run.chunk_size != m["chunk_size"]:
        raise ExperimentError("run.chunk_size", f"{exp.run.chunk_size}, but the run in {str(out)!r} uses "
                              f"{m['chunk_size']}; give {m['chunk_size']} or omit it to resume")
    read_runs(out, strict=True)
    read_chunk_index(out)
    return m


def prepare_folder(exp: Experiment, engine: str, command: str | None = None) -> tuple[dict[str, Any], bool]:
    """Check the results folder before any game, and write the manifest of a new run (under the folder's lock).

    Args:
        exp: the validated experiment (the manifest is written only after every value was validated).
        engine: the engine that will play (picks the automatic chunk size of a new run).
        command: shown to a second run refused by the lock.

    Returns:
        (manifest, resumed).

    Raises:
        ExperimentError: see :func:`check_folder`; also field ``out`` when another run holds the folder.
    """
    check_folder(exp)  # read-only: a refused folder gets no lock file
    out = Path(exp.out)
    with folder_lock(out, command):
        m = check_folder(exp)
        if m is not None:
            return m, True
        chunk = exp.run.chunk_size or auto_chunk_size(exp.games, engine)
        m = manifest_of(exp, chunk, len(plan_chunks(Schedule.of(exp), chunk)))
        for p in out.iterdir():  # temporary files of a run killed before its manifest was in place
            if p.name.startswith(_TMP_PREFIX):
                p.unlink(missing_ok=True)
        write_atomic(out / MANIFEST, lambda p: p.write_text(json.dumps(m, indent=2) + "\n", encoding="utf-8"))
        (out / GAMES_DIR).mkdir(exist_ok=True)
        return m, False


def _short(v: Any) -> str:
    t = json.dumps(v)
    return t if len(t) <= 40 else t[:37] + "..."


_HELD: dict[str, list[int]] = {}  # real path of a locked folder -> [fd, depth] (re-entrant in one process)


@contextmanager
def folder_lock(folder: str | Path, command: str | None = None) -> Iterator[None]:
    """Hold a results folder's lock (``.cya-sim.lock``, ``fcntl.flock``) for the duration; re-entrant.

    The folder is created when missing. The lock file records this run's
    process, host, start time and command, which a refused second run shows.
    The operating system releases the lock when the process ends, however it
    ends, so a killed run never leaves a stale lock. Without ``fcntl`` (not
    POSIX) nothing is locked.

    Raises:
        ExperimentError (field ``out``): another run holds the folder.
    """
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    key = os.path.realpath(folder)
    if fcntl is None or key in _HELD:
        if key in _HELD:
            _HELD[key][1] += 1
        try:
            yield
        finally:
            if key in _HELD:
                _HELD[key][1] -= 1
        return
    fd = os.open(folder / LOCK, os.O_RDWR | os.O_CREAT, 0o666)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        try:
            who = os.pread(fd, 4096, 0).decode("utf-8", "replace").strip() or "a process that has not said which"
        finally:
            os.close(fd)
        raise ExperimentError("out", f"folder {str(folder)!r} is in use by another run ({who}); wait for it to "
                              "end, or give another folder") from None
    try:
        os.ftruncate(fd, 0)
        since = datetime.now(UTC).isoformat(timespec="seconds")
        os.pwrite(fd, f"process {os.getpid()} on {socket.gethostname()} since {since}: {command or 'python'}\n"
                  .encode(), 0)
        _HELD[key] = [fd, 1]
        yield
    finally:
        _HELD.pop(key, None)
        os.close(fd)  # releases the lock; the file stays (removing it would race with the next run's open)


def write_atomic(path: Path, write: Callable[[Path], None]) -> None:
    """Write a file through a hidden temporary name in its folder, fsync it, then ``os.replace`` it into place.

    The file's mode follows the umask (``0o666 & ~umask``, like any file the
    user writes), not ``mkstemp``'s 0600.

    Raises:
        OSError: from writing; the temporary file is removed and ``path`` is untouched.
    """
    fd, tmp = tempfile.mkstemp(prefix=_TMP_PREFIX, dir=path.parent)
    os.close(fd)
    try:
        write(Path(tmp))
        with open(tmp, "rb+") as fh:
            os.fsync(fh.fileno())
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def file_digest(path: Path) -> str:
    """SHA-256 of a file's bytes, hex."""
    with open(path, "rb") as fh:
        return hashlib.file_digest(fh, "sha256").hexdigest()


def read_chunk_index(folder: str | Path) -> dict[int, dict[str, Any]]:
    """``chunks.json`` of a results folder: chunk index -> ``{"start", "stop", "rows", "bytes", "sha256"}``.

    Empty when there is none (a new run, or a folder of format 1).

    Raises:
        ExperimentError (field ``out``): the file is not such a record (it is never silently replaced).
    """
    path = Path(folder) / CHUNKS
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as e:
        raise ExperimentError("out", f"{str(path)!r} cannot be read ({' '.join(str(e).split())}); it records "
                              "which chunks were written: restore it, or delete it to replay every chunk") from None
    try:
        return {int(k): {f: v[f] for f in ("start", "stop", "rows", "bytes", "sha256")} for k, v in data.items()}
    except (AttributeError, TypeError, ValueError, KeyError):
        raise ExperimentError("out", f"{str(path)!r} is not a record of chunks; restore it, or delete it to replay "
                              "every chunk") from None


@dataclass(frozen=True)
class ChunkCheck:
    """What :func:`check_chunks` found in ``games.parquet/``.

    Attributes:
        good: indices of chunks whose file is the one recorded for its planned games.
        damaged: chunk index -> why its file cannot be trusted (replayed by a resume).
        foreign: names of files that are no planned chunk (refused).
        temporary: leftover temporary files of a killed run.
    """

    good: frozenset[int]
    damaged: dict[int, str]
    foreign: tuple[str, ...]
    temporary: tuple[Path, ...]


def check_chunks(folder: str | Path, ranges: list[tuple[int, int]]) -> ChunkCheck:
    """Check every file of ``games.parquet/`` against the plan and ``chunks.json`` (nothing is changed).

    A chunk is good when its name is a planned chunk's, ``chunks.json``
    records it for that chunk's game range, and its size and SHA-256 are the
    ones recorded when it was written. This catches a copy under another
    name, a chunk beyond the plan, a chunk overwritten by another, a
    corrupted page, and a file never recorded (a run killed between the two
    writes).

    Args:
        folder: the results folder. ranges: every chunk's game range (:func:`plan_of`).

    Raises:
        ExperimentError: ``chunks.json`` unreadable (:func:`read_chunk_index`).
    """
    gdir = Path(folder) / GAMES_DIR
    good: set[int] = set()
    damaged: dict[int, str] = {}
    foreign: list[str] = []
    tmp: list[Path] = []
    if not gdir.is_dir():
        return ChunkCheck(frozenset(), {}, (), ())
    index = read_chunk_index(folder)
    for p in sorted(gdir.iterdir()):
        if p.name.startswith(_TMP_PREFIX):
            tmp.append(p)
            continue
        match = _CHUNK_RE.match(p.name)
        i = int(match.group(1)) if match else -1
        if not match or i >= len(ranges) or p.name != chunk_file(i) or not p.is_file():
            foreign.append(p.name)
            continue
        rec = index.get(i)
        a, b = ranges[i]
        if rec is None:
            damaged[i] = "not recorded as written (a run stopped before recording it, or it was copied in)"
        elif (rec["start"], rec["stop"], rec["rows"]) != (a, b, b - a):
            damaged[i] = f"recorded for games {rec['start']}..{rec['stop'] - 1}, but the plan has {a}..{b - 1}"
        elif p.stat().st_size != rec["bytes"] or file_digest(p) != rec["sha256"]:
            damaged[i] = "its bytes differ from the ones recorded when it was written (SHA-256)"
        else:
            good.add(i)
    return ChunkCheck(frozenset(good), damaged, tuple(foreign), tuple(tmp))


def _refuse_foreign(folder: Path, check: ChunkCheck) -> None:
    if check.foreign:
        shown = ", ".join(check.foreign[:3]) + (f" and {len(check.foreign) - 3} more" if len(check.foreign) > 3 else "")
        raise ExperimentError("out", f"{str(folder / GAMES_DIR)!r} holds files that are no planned chunk of this "
                              f"run ({shown}); move them out (they would be counted as games)")


def done_chunks(folder: str | Path, ranges: list[tuple[int, int]]) -> set[int]:
    """Indices of the chunks whose file is good (:func:`check_chunks`).

    Raises:
        ExperimentError: a file in ``games.parquet/`` is no planned chunk.
    """
    check = check_chunks(folder, ranges)
    _refuse_foreign(Path(folder), check)
    return set(check.good)


def experiment_from_manifest(manifest: dict[str, Any], out: str | Path | None = None) -> Experiment:
    """The :class:`Experiment` recorded in a manifest (from its stored TOML).

    Raises:
        ExperimentError: the stored experiment no longer validates (e.g. an agent was removed).
    """
    import tomllib

    from cya_sim.runs.experiment import apply_overrides, parse_experiment

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

    Only chunks that :func:`check_chunks` finds good are read.

    Raises:
        ExperimentError: not a results folder; a damaged manifest; a file in ``games.parquet/`` that is
            no planned chunk, or a damaged chunk (named; a resume replays it).
    """
    manifest = read_manifest(folder)
    schema = games_schema(int(manifest["max_players"]))
    names = schema.names if columns is None else ["game"] + [c for c in schema.names if c in columns and c != "game"]
    ranges = plan_of(manifest)
    check = check_chunks(folder, ranges)
    _refuse_foreign(Path(folder), check)
    if check.damaged:
        i, why = min(check.damaged.items())
        more = f" (and {len(check.damaged) - 1} more)" if len(check.damaged) > 1 else ""
        raise ExperimentError("out", f"{str(Path(folder, GAMES_DIR, chunk_file(i)))!r} is damaged: {why}{more}; "
                              "run the same tournament command to replay it")
    files = [Path(folder, GAMES_DIR, chunk_file(i)) for i in sorted(check.good)]
    rows = [b - a for a, b in (ranges[i] for i in sorted(check.good))]
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
        games_played: games played by this run. elapsed_s: wall time of playing, seconds (the compile
            before it excluded: ``compile_s``).
        peak_rss_mb: peak resident memory of this process and its finished children, MiB.
        workers: local worker processes used (1 = in this process; 0 = nothing played or a Dask cluster).
        compile_s: wall seconds spent compiling numba kernels before the games (0.0: all loaded from the
            disk cache; :func:`cya_sim.runs.warmup.warm_up`). compiled: the kernels compiled.
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
    workers: int = 1
    compile_s: float = 0.0
    compiled: tuple[str, ...] = ()

    @property
    def games_per_s(self) -> float:
        """Games played per second of wall time (all workers together)."""
        return self.games_played / self.elapsed_s if self.elapsed_s > 0 else float("nan")


def run_experiment(exp: Experiment, progress: bool = True, command: str | None = None,
                   on_chunk: Callable[[int], None] | None = None,
                   prepared: tuple[dict[str, Any], bool] | None = None) -> RunResult:
    """Play every missing chunk of an experiment into its folder (then build the report with :mod:`cya_sim.reports.report`).

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
        if prepared is None:
            prepared = prepare_folder(exp, engine, command)
        with folder_lock(exp.out, command):
            return _run(exp, engine, note, client, progress, command, on_chunk, prepared)
    finally:
        if client is not None:
            client.close()


def _run(exp: Experiment, engine: str, note: str, client, progress: bool, command: str | None,
         on_chunk: Callable[[int], None] | None, prepared: tuple[dict[str, Any], bool]) -> RunResult:
    from tqdm.auto import tqdm

    manifest, resumed = prepared
    out = Path(exp.out)
    sched = Schedule.of(exp)
    ranges = plan_chunks(sched, manifest["chunk_size"])
    check = check_chunks(out, ranges)
    _refuse_foreign(out, check)
    for p in (*check.temporary, *out.glob(_TMP_PREFIX + "*")):  # a killed run's half-written files
        p.unlink(missing_ok=True)
    for i, why in sorted(check.damaged.items()):
        print(f"cya-sim: {out / GAMES_DIR / chunk_file(i)} is damaged ({why}); playing it again", file=sys.stderr)
    done = check.good
    index = {i: r for i, r in read_chunk_index(out).items() if i in done}
    key = root_key(exp.seed)
    pmax = max(exp.players)
    tasks = [ChunkTask(i, a, b, engine, exp.rules, exp.agents, sched, key, pmax)
             for i, (a, b) in enumerate(ranges) if i not in done]
    done_games = sum(b - a for i, (a, b) in enumerate(ranges) if i in done)
    gdir = out / GAMES_DIR
    gdir.mkdir(parents=True, exist_ok=True)
    workers = worker_count(exp.run.workers, len(tasks))
    executor = ("nothing to play" if not tasks else f"dask {exp.run.scheduler}" if exp.run.scheduler
                else "in-process" if workers == 1 else f"local processes ({workers})")
    entry = _start_run(out, command, resumed, engine, note, executor, len(tasks), len(done))

    def store(task: ChunkTask, table: pa.Table) -> None:
        if not np.array_equal(table.column("game").to_numpy(), np.arange(task.start, task.stop)):
            raise RuntimeError(f"chunk {task.index} holds other games than {task.start}..{task.stop - 1}")
        path = gdir / chunk_file(task.index)
        rec: dict[str, Any] = {}

        def write(p: Path) -> None:
            pq.write_table(table, p)
            rec.update(start=task.start, stop=task.stop, rows=table.num_rows, bytes=p.stat().st_size,
                       sha256=file_digest(p))

        write_atomic(path, write)
        index[task.index] = rec
        write_atomic(out / CHUNKS, lambda p: p.write_text(
            json.dumps({str(i): index[i] for i in sorted(index)}, indent=0) + "\n", encoding="utf-8"))
        if on_chunk is not None:
            on_chunk(task.index)

    warm = WarmUp()
    if tasks and not exp.run.scheduler:  # compile once here, before the workers start; they only load the cache
        warm = warm_up([exp.rules], exp.players, exp.agents, engine, say=_say if progress else None)
    t0 = time.perf_counter()
    played = 0
    status = "interrupted"
    desc = f"{exp.name} ({engine})"
    try:
        with tqdm(total=exp.total_games, initial=done_games, unit="game", desc=desc, disable=not progress,
                  dynamic_ncols=True, smoothing=0.1) as bar:
            if tasks and exp.run.scheduler:
                warm = _warm_dask(client, exp, engine)
                for task, table in _run_dask(tasks, client):
                    store(task, table)
                    played += table.num_rows
                    bar.update(table.num_rows)
            elif tasks:
                with closing(run_tasks(tasks, workers, bar, play_chunk)) as finished:  # stops the workers on exit
                    for task, table in finished:
                        store(task, table)
                        played += table.num_rows
        status = "finished"
    except Exception as e:
        status = f"failed: {' '.join(str(e).split())[:200]}"
        raise
    finally:
        elapsed = time.perf_counter() - t0
        result = RunResult(out, resumed, engine, note, executor, sum(1 for t in tasks if t.index in index),
                           len(done), played, elapsed, _peak_rss_mb(),
                           0 if not tasks or exp.run.scheduler else workers, warm.compile_s, tuple(warm.compiled))
        _end_run(out, entry, result, status)
    return result


def _say(line: str) -> None:
    print(f"cya-sim: {line}", file=sys.stderr, flush=True)


def _warm_worker(rules, players, agents, engine) -> tuple[float, list[str]]:
    """A Dask worker's warm-up (:func:`cya_sim.runs.warmup.warm_up`, silent): (compile seconds, kernels compiled)."""
    w = warm_up([rules], players, agents, engine)
    return w.compile_s, w.compiled


def _warm_dask(client, exp: Experiment, engine: str) -> WarmUp:
    """Compile once on every Dask worker before the chunks are sent (workers of one machine share its lock)."""
    per_worker = client.run(_warm_worker, exp.rules, list(exp.players), list(exp.agents), engine)
    out = WarmUp()
    for secs, names in per_worker.values():
        out.compile_s = max(out.compile_s, secs)
        out.compiled += [n for n in names if n not in out.compiled]
    return out


def _peak_rss_mb() -> float:
    """Peak resident memory of this process and of its largest finished child, MiB."""
    peak = max(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
               resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
    return peak / (1024 * 1024) if sys.platform == "darwin" else peak / 1024


def _watch_parent(parent: int) -> None:
    """Worker initializer: end this worker (``os._exit``) within :data:`PARENT_POLL_S` of the main process's death.

    A killed main process (the out-of-memory killer, ``kill -9``) cannot stop
    its pool; without this its workers and the resource tracker would run on.
    The worker also ignores SIGINT: a terminal's Ctrl-C reaches the whole
    process group, and the main process alone decides what it means (it ends
    the workers, :func:`_stop_workers`); a worker would otherwise print a
    ``KeyboardInterrupt`` traceback or, inside a compiled kernel, play on.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)

    def watch() -> None:
        while True:
            time.sleep(PARENT_POLL_S)
            if os.getppid() != parent:
                os._exit(1)

    threading.Thread(target=watch, name="cya-sim-watch-parent", daemon=True).start()


#: Seconds a worker gets to end after SIGTERM before it is sent SIGKILL (:func:`_stop_workers`).
STOP_GRACE_S = 2.0


def _stop_workers(pool: ProcessPoolExecutor) -> None:
    """End a pool at once: cancel what has not started, SIGTERM every worker, SIGKILL those alive after the grace.

    A running chunk is never waited for: a compiled kernel does not return to
    Python until its chunk is done (a minute or more of one core), so
    ``shutdown(wait=True)`` would keep every core busy that long after Ctrl-C.
    The chunks already yielded are the caller's (written or kept); the ones
    killed mid-way were never written, so a resume replays them.
    """
    procs = list((getattr(pool, "_processes", None) or {}).values())  # CPython's pool keeps its workers there
    pool.shutdown(wait=False, cancel_futures=True)
    for p in procs:
        if p.is_alive():
            p.terminate()
    deadline = time.monotonic() + STOP_GRACE_S
    for p in procs:
        p.join(max(0.0, deadline - time.monotonic()))
        if p.is_alive():
            p.kill()
            p.join(1.0)


def run_tasks(tasks: list[ChunkTask], workers: int, bar, play: Callable[..., Any] = play_chunk
              ) -> Iterator[tuple[ChunkTask, Any]]:
    """Yield ``(task, play(task))`` as chunks finish: in this process (per-game progress) or in a spawn pool.

    The one local executor of every run (experiment, flags tournament, in-memory tournament).
    When the caller stops early (Ctrl-C, an error, or closing the generator),
    every worker is ended within :data:`STOP_GRACE_S` seconds and the chunks
    still running are dropped (:func:`_stop_workers`).

    Args:
        tasks: the chunks to play. workers: processes (:func:`~cya_sim.runs.experiment.worker_count`); 1 plays here.
        bar: a tqdm bar, updated here as games finish: in this process per game; from worker processes
            as they report finished games through a queue (so a slow agent's rate shows within seconds),
            and each chunk is counted exactly once when it is done.
        play: a picklable function of a task (:func:`play_chunk` for Arrow rows, :func:`play_chunk_games`).
    """
    if workers <= 1:
        for t in tasks:
            yield t, play(t, progress=bar.update)
        return
    ctx = multiprocessing.get_context("spawn")
    queue = ctx.Queue()
    seen: dict[int, int] = {}
    done: set[int] = set()
    lock = threading.Lock()
    stop = threading.Event()

    def drain() -> None:
        while not stop.is_set():
            try:
                index, n = queue.get(timeout=0.2)
            except (EOFError, OSError, ValueError, _queue.Empty):  # nothing yet, or the queue closed at the end
                continue
            with lock:
                if index not in done:
                    seen[index] = seen.get(index, 0) + n
                    bar.update(n)

    reader = threading.Thread(target=drain, daemon=True, name="cya-sim-progress")
    reader.start()
    pool = ProcessPoolExecutor(max_workers=workers, mp_context=ctx, initializer=_init_worker,
                               initargs=(os.getpid(), queue))
    try:
        futures = {pool.submit(_play_reporting, play, t): t for t in tasks}
        for fut in as_completed(futures):
            task, result = futures[fut], fut.result()
            with lock:
                done.add(task.index)
                rest = (task.stop - task.start) - seen.get(task.index, 0)
                if rest > 0:
                    bar.update(rest)
            yield task, result
        pool.shutdown(wait=True)
    except BaseException:  # KeyboardInterrupt, GeneratorExit (the caller stopped), a chunk's error
        _stop_workers(pool)
        raise
    finally:
        stop.set()
        reader.join()


#: A worker process's queue of (chunk index, games finished) messages to the main process (:func:`run_tasks`).
_PROGRESS_QUEUE = None


def _init_worker(parent: int, queue) -> None:
    """Worker initializer: :func:`_watch_parent` (SIGINT ignored, end with the parent), and the progress queue of
    :func:`run_tasks`."""
    global _PROGRESS_QUEUE
    _PROGRESS_QUEUE = queue
    _watch_parent(parent)


def _play_reporting(play: Callable[..., Any], task: ChunkTask):
    """``play(task)`` in a worker, reporting finished games to the main process as they finish."""
    q = _PROGRESS_QUEUE

    def report(n: int) -> None:
        if n > 0 and q is not None:
            q.put((task.index, int(n)))

    return play(task, progress=report)


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


def _start_run(out: Path, command: str | None, resumed: bool, engine: str, note: str, executor: str,
               to_play: int, skipped: int) -> int:
    """Add this run's entry to ``runs.json`` (status ``running``) and return its position.

    Entries still ``running`` belong to runs killed outright (this run holds
    the folder's lock, so none is alive); they become ``killed``.
    """
    runs = read_runs(out, strict=True)
    for r in runs:
        if r.get("status") == "running":
            r["status"] = "killed"
    runs.append({
        "started_utc": datetime.now(UTC).isoformat(timespec="seconds"),
        "finished_utc": None,
        "status": "running",
        "command": command,
        "cya_sim_version": __version__,
        "pid": os.getpid(),
        "resumed": resumed,
        "engine": engine,
        "engine_note": note,
        "executor": executor,
        "chunks_to_play": to_play,
        "chunks_skipped": skipped,
    })
    _write_runs(out, runs)
    return len(runs) - 1


def _end_run(out: Path, at: int, result: RunResult, status: str) -> None:
    runs = read_runs(out, strict=True)
    runs[at].update({
        "finished_utc": datetime.now(UTC).isoformat(timespec="seconds"),
        "status": status,
        "chunks_played": result.chunks_played,
        "chunks_skipped": result.chunks_skipped,
        "games_played": result.games_played,
        "elapsed_s": round(result.elapsed_s, 3),
        "games_per_s": round(result.games_per_s, 1) if result.games_played else None,
        "peak_rss_mb": round(result.peak_rss_mb, 1),
    })
    _write_runs(out, runs)


def _write_runs(out: Path, runs: list[dict[str, Any]]) -> None:
    write_atomic(out / RUNS, lambda p: p.write_text(json.dumps(runs, indent=2) + "\n", encoding="utf-8"))


def read_runs(folder: str | Path, strict: bool = False) -> list[dict[str, Any]]:
    """Entries of ``runs.json`` (empty when there is none).

    Args:
        strict: raise instead of returning [] when the file is not a list of runs (a run never replaces it).

    Raises:
        ExperimentError (field ``out``): ``strict`` and the file is unreadable or not a JSON list of objects.
    """
    path = Path(folder) / RUNS
    try:
        runs = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(runs, list) or not all(isinstance(r, dict) for r in runs):
            raise ValueError("not a list of runs")
        return runs
    except FileNotFoundError:
        return []
    except (OSError, ValueError) as e:
        if strict:
            raise ExperimentError("out", f"{str(path)!r} cannot be read ({' '.join(str(e).split())[:120]}); it "
                                  "records the runs into this folder and is never replaced: restore it or move "
                                  "it away") from None
        return []
