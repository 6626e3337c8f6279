"""The results folder: its files, their checks, the lock, atomic writes and loading the games.

The one module that knows the folder's layout, below both the runner (:mod:`cya_sim.runs.runner`, which plays
and stores) and the reports (:mod:`cya_sim.reports.report`, which read). A results folder holds:

- ``manifest.json`` — written before the first game, after every value is validated: the experiment's
  identity, its TOML, the game family, the results schema version (``format``), the seed, the package version,
  the chunk size and count. It marks the folder as one experiment's; a folder holding anything else is refused,
  never overwritten. Every key is checked when it is read (:func:`validate_manifest`); folders of older schema
  versions are read through :mod:`cya_sim.results.upgrade`, and a newer version is refused in one line.
- ``games.parquet/`` — a Parquet dataset, one file ``chunk-NNNNNN.parquet`` per finished chunk
  (:func:`games_schema`: the common columns and the family's own), each written to a hidden temporary name,
  flushed and renamed into place (:func:`write_atomic`; ``os.replace`` is atomic on POSIX and Windows), so a file
  under its final name is always complete. ``pandas.read_parquet`` reads the folder as one table;
  :func:`load_games` reads it with every chunk checked.
- ``chunks.json`` — per written chunk: its game range, row count, size and SHA-256, recorded when it was
  written (:func:`store_chunk`). Every chunk file is checked against it and against the plan
  (:func:`check_chunks`): a file that is not a planned chunk is named and refused; a damaged one (other bytes,
  other games, not recorded) is named, and a resume replays it.
- ``runs.json`` — one entry per run or resume (:func:`read_runs`, :func:`write_runs`).
- ``.cya-sim.lock`` — held (``fcntl.flock``) by the run writing into the folder; a second run into the same
  folder is refused naming the first's process (:func:`folder_lock`).

Files follow the umask, like any file the user writes. Every refusal is a :class:`FolderError` naming the file
and what to do.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import socket
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from cya_sim import __version__
from cya_sim.engine.table import ResultColumns
from cya_sim.errors import FieldError
from cya_sim.play.families import FAMILIES
from cya_sim.results.upgrade import (
    FAMILY_KEY,
    READ_VERSIONS,
    SCHEMA_VERSION,
    VERSION_KEY,
    chunk_version,
    manifest_family,
    refusal,
    upgrade_chunk,
    versions_text,
)
from cya_sim.tomltext import TomlTextError, load_toml

try:
    import fcntl
except ImportError:  # not POSIX: runs into one folder are not locked
    fcntl = None  # type: ignore[assignment]


class FolderError(FieldError):
    """A results folder is refused: not one, damaged, another experiment's, or in use (field ``out``).

    ``str(e)`` is one line: ``field 'out': 'runs/x/manifest.json': key 'seed' is ...; ...``.
    """

    def __init__(self, detail: str, field: str = "out") -> None:
        super().__init__(field, detail)


MANIFEST = "manifest.json"


RUNS = "runs.json"


GAMES_DIR = "games.parquet"


CHUNKS = "chunks.json"


LOCK = ".cya-sim.lock"


MANIFEST_KIND = "cya-sim experiment results"


#: The results schema version written (:mod:`cya_sim.results.upgrade`: 2 added ``chunks.json``, 3 the family and
#: its own result columns); folders of versions 1 and 2 are read, their unrecorded chunks replayed.
MANIFEST_FORMAT = SCHEMA_VERSION


TMP_PREFIX = ".tmp-"


_CHUNK_RE = re.compile(r"^chunk-([0-9]{6,})\.parquet$")


#: A package version (PEP 440 public and local forms: 0.1.0, 1.2.3rc1, 0.2.0.dev3+g1a2b).
_VERSION_RE = re.compile(r"^[0-9]+(\.[0-9]+)*([a-z]+[0-9]*)?(\.(post|dev)[0-9]+)*(\+[a-z0-9.]+)?$")


def chunk_file(index: int) -> str:
    """File name of chunk ``index`` inside ``games.parquet/``."""
    return f"chunk-{index:06d}.parquet"


def games_schema(max_players: int, family: ResultColumns) -> pa.Schema:
    """Arrow schema of every chunk file of a family's results (one row per game), the same for every table size.

    The common columns: ``game`` int64 (global game number), ``deal`` int64 (engine game index: the shuffles and
    random streams), ``players`` int8, ``cycle`` int64, ``lineup`` int32 (row of the design's line-ups at that
    size), ``rotation`` int8, then for each seat s < ``max_players`` ``seat_{s}_agent`` string,
    ``seat_{s}_total`` int64 (in ``family.score_unit``: dollars, points) and ``seat_{s}_win_share`` float64 (1/k
    for each of k winners, R-TIE, R-T-END) — null for seats beyond the game's table size — then
    ``winner_agents`` string (winners' agents joined by ","), ``decisions`` int64 and ``capped`` bool (the
    family's cap stopped the game, not its end rule); then the family's own columns in its words, with their
    declared dtypes (``family.columns``: the classic game's ``first_dealer``, ``rounds``, ``turns``,
    ``challenges``, ``largest_steal`` in dollars; the theft game's ``first_player``, ``turns``, ``thefts``,
    ``cancelled``, ``largest_steal`` in points). The schema's metadata records the schema version and the family
    (:mod:`cya_sim.results.upgrade`).
    """
    f = [pa.field("game", pa.int64()), pa.field("deal", pa.int64()), pa.field("players", pa.int8()),
         pa.field("cycle", pa.int64()), pa.field("lineup", pa.int32()), pa.field("rotation", pa.int8())]
    f += [pa.field(f"seat_{s}_agent", pa.string()) for s in range(max_players)]
    f += [pa.field(f"seat_{s}_total", pa.int64()) for s in range(max_players)]
    f += [pa.field(f"seat_{s}_win_share", pa.float64()) for s in range(max_players)]
    f += [pa.field("winner_agents", pa.string()), pa.field("decisions", pa.int64()), pa.field("capped", pa.bool_())]
    f += [pa.field(c.name, pa.from_numpy_dtype(np.dtype(c.dtype))) for c in family.columns]
    return pa.schema(f, metadata={VERSION_KEY: str(SCHEMA_VERSION).encode(), FAMILY_KEY: family.family.encode()})


def result_columns_of(manifest: dict[str, Any]) -> ResultColumns:
    """The result columns of a results folder's game family (:func:`cya_sim.results.upgrade.manifest_family`).

    Raises:
        FolderError: a family this cya-sim does not know (the known ones named).
    """
    name = manifest_family(manifest)
    if name not in FAMILIES:
        raise FolderError(f"the results are of game family {name!r}, which this cya-sim does not know; known: "
                          f"{', '.join(FAMILIES)}")
    return FAMILIES[name].result_columns()


def family_of_games(games: pd.DataFrame, family: str | None = None) -> ResultColumns:
    """The result columns of a frame of stored games' family: ``family`` when given, else the one
    :func:`load_games` names (``games.attrs["family"]``), else the one family whose own columns the frame holds.

    Raises:
        ValueError: a family no module provides, or none found (the known ones listed).
    """
    name = family if family is not None else games.attrs.get("family")
    if name is None:
        held = [f for f, fam in FAMILIES.items() if set(fam.result_columns().names) <= set(games.columns)]
        name = held[0] if len(held) == 1 else None
    if name not in FAMILIES:
        raise ValueError(f"family is {name!r}; give the game family of the games, one of: {', '.join(FAMILIES)}")
    return FAMILIES[name].result_columns()


def read_manifest(folder: str | Path) -> dict[str, Any]:
    """The manifest of a results folder, every key validated (:func:`validate_manifest`).

    Raises:
        FolderError: no manifest, not a cya-sim results manifest, or a key
            missing, of the wrong type or inconsistent with the others (one line naming the key).
    """
    path = Path(folder) / MANIFEST
    if not Path(folder).exists():
        raise FolderError(f"{str(folder)!r} does not exist; give a cya-sim results folder (one a run wrote with --out)")
    if not Path(folder).is_dir():
        raise FolderError(f"{str(folder)!r} is a file, not a folder; give a cya-sim results folder (one a run wrote "
                          f"with --out)")
    try:
        m = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise FolderError(f"{str(folder)!r} holds no {MANIFEST}; it is not a cya-sim results folder") \
            from None
    except (OSError, ValueError) as e:
        raise FolderError(f"{str(path)!r} cannot be read as a manifest ({' '.join(str(e).split())})") \
            from None
    if not isinstance(m, dict) or m.get("kind") != MANIFEST_KIND:
        raise FolderError(f"{str(path)!r} is not a cya-sim results manifest")
    validate_manifest(m, path)
    runs = read_runs(folder)
    first = runs[0].get("cya_sim_version") if runs else None
    if first is not None and first != m["cya_sim_version"]:  # both are written by the run that made the folder
        raise FolderError(f"{str(path)!r}: key 'cya_sim_version' is {short_json(m['cya_sim_version'])}, but "
                              f"the run that wrote the folder was cya-sim {short_json(first)} ({RUNS}); the manifest was "
                              "changed by hand or damaged (restore it, or give a new folder)")
    return m


def _is_count(v: Any, lo: int = 0) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and v >= lo


def validate_manifest(m: dict[str, Any], path: str | Path = MANIFEST) -> None:
    """Check every key of a manifest and that they agree with each other and with its stored TOML.

    Checked: ``format`` (the results schema version: 1, 2 or 3; a newer one is refused naming it and the versions
    read), ``family`` (version 3: a known game family, the experiment's rules'), ``experiment`` (a dict with
    ``players``, a non-empty list of ints >= 2; ``games`` >= 1; ``seed`` >= 0; ``agents``, a
    non-empty list of strings), ``experiment_toml`` (TOML whose seed, games,
    players and agents are the experiment's), ``seed`` (= the experiment's),
    ``chunk_size`` >= 1, ``n_chunks`` (= the plan's count), ``total_games``
    (= games x table sizes), ``max_players`` (= the largest table size),
    ``cya_sim_version`` (a version string such as ``0.1.0``; :func:`read_manifest`
    also checks it against the first run recorded in ``runs.json``, written by the
    same process).

    Raises:
        FolderError: one line naming the manifest and the first key at fault.
    """

    def bad(key: str, why: str) -> FolderError:
        return FolderError(f"{str(path)!r}: key {key!r} {why}; the manifest was changed by hand or "
                               "damaged (restore it, or give a new folder)")

    fmt = m.get("format")
    if _is_count(fmt, 1) and fmt not in READ_VERSIONS:
        raise FolderError(f"{str(path)!r}: key 'format' is {fmt}: {refusal(fmt, 'classic', '')}")
    if fmt not in READ_VERSIONS:
        raise bad("format", f"is {short_json(fmt)}; expected a results schema version ({versions_text()})")
    e = m.get("experiment")
    if not isinstance(e, dict):
        raise bad("experiment", "is missing or not a table")
    players = e.get("players")
    if not isinstance(players, list) or not players or not all(_is_count(p, 2) for p in players):
        raise bad("experiment.players", f"is {short_json(players)}; expected a list of table sizes")
    for k, lo in (("games", 1), ("seed", 0)):
        if not _is_count(e.get(k), lo):
            raise bad(f"experiment.{k}", f"is {short_json(e.get(k))}; expected an integer >= {lo}")
    agents = e.get("agents")
    if not isinstance(agents, list) or not agents or not all(isinstance(a, str) for a in agents):
        raise bad("experiment.agents", f"is {short_json(agents)}; expected a list of agent names")
    toml = m.get("experiment_toml")
    if not isinstance(toml, str):
        raise bad("experiment_toml", "is missing or not text")
    try:
        stored = load_toml(toml)
    except TomlTextError as err:
        raise bad("experiment_toml", f"is {err}") from None
    for k in ("seed", "games", "agents", "players"):
        v = stored.get(k)
        if k == "players" and isinstance(v, int):
            v = [v]
        if v != e.get(k):
            raise bad("experiment_toml", f"has {k} = {short_json(v)}, but key experiment.{k} is {short_json(e.get(k))}")
    if m.get("seed") != e["seed"]:
        raise bad("seed", f"is {short_json(m.get('seed'))}, but the experiment's seed is {e['seed']}")
    if not _is_count(m.get("chunk_size"), 1):
        raise bad("chunk_size", f"is {short_json(m.get('chunk_size'))}; expected an integer >= 1")
    total = e["games"] * len(players)
    if m.get("total_games") != total:
        raise bad("total_games", f"is {short_json(m.get('total_games'))}, but the experiment has {total:,} games")
    n = len(plan_of(m))
    if m.get("n_chunks") != n:
        raise bad("n_chunks", f"is {short_json(m.get('n_chunks'))}, but chunks of {m['chunk_size']} games make {n}")
    if m.get("max_players") != max(players):
        raise bad("max_players", f"is {short_json(m.get('max_players'))}, but the largest table size is {max(players)}")
    rules_family = manifest_family({"experiment": e})
    if fmt >= 3 and m.get("family") != rules_family:
        raise bad("family", f"is {short_json(m.get('family'))}, but the experiment's rules are of family "
                  f"{short_json(rules_family)}")
    version = m.get("cya_sim_version")
    if not isinstance(version, str) or not _VERSION_RE.match(version):
        raise bad("cya_sim_version", f"is {short_json(version)}; expected the version of cya-sim that wrote the folder, "
                  "such as " + json.dumps(__version__))


def chunk_ranges(table_sizes: int, games: int, chunk_size: int) -> list[tuple[int, int]]:
    """Half-open global game ranges ``[start, stop)``, at most ``chunk_size`` long, never spanning table sizes.

    Games ``i * games .. (i + 1) * games - 1`` are table size ``i`` of the schedule. Chunk ``k`` of a given
    (table sizes, games, chunk size) is always the same range, so a chunk file's name fixes its games.
    """
    out = []
    for i in range(table_sizes):
        lo, hi = i * games, (i + 1) * games
        out += [(s, min(s + chunk_size, hi)) for s in range(lo, hi, chunk_size)]
    return out


def plan_of(manifest: dict[str, Any]) -> list[tuple[int, int]]:
    """Game ranges of every chunk of a results folder, from its manifest (:func:`chunk_ranges`)."""
    e = manifest["experiment"]
    return chunk_ranges(len(e["players"]), int(e["games"]), int(manifest["chunk_size"]))


def folder_entries(out: Path) -> list[Path]:
    """Files of a results folder that are not a run's own temporary or lock files."""
    return [p for p in out.iterdir() if not p.name.startswith(TMP_PREFIX) and p.name != LOCK] if out.is_dir() else []


def short_json(v: Any) -> str:
    t = json.dumps(v)
    return t if len(t) <= 40 else t[:37] + "..."


_HELD: dict[str, list[int]] = {}  # real path of a locked folder -> [fd, depth] (re-entrant in one process)


def _in_use(folder: Path, fd: int) -> FolderError:
    """The refusal of a folder whose lock (open as ``fd``) another run holds, naming that run from the lock file."""
    who = os.pread(fd, 4096, 0).decode("utf-8", "replace").strip() or "a process that has not said which"
    return FolderError(f"folder {str(folder)!r} is in use by another run ({who}); wait for it to end, or give "
                       "another folder")


@contextmanager
def folder_lock(folder: str | Path, command: str | None = None) -> Iterator[None]:
    """Hold a results folder's lock (``.cya-sim.lock``, ``fcntl.flock``) for the duration; re-entrant.

    The folder is created when missing. The lock file records this run's
    process, host, start time and command, which a refused second run shows.
    The operating system releases the lock when the process ends, however it
    ends, so a killed run never leaves a stale lock. Without ``fcntl`` (not
    POSIX) nothing is locked.

    Raises:
        FolderError: another run holds the folder.
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
            raise _in_use(folder, fd) from None
        finally:
            os.close(fd)
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


def check_not_in_use(folder: str | Path) -> None:
    """Refuse a results folder that another run holds (:func:`folder_lock`), writing nothing: a read-only probe of
    its lock file, so a command can refuse before it prints anything (the lock itself is taken later; a run that
    starts in between is still refused by :func:`folder_lock`). A folder without a lock file, or this process's own,
    is free.

    Raises:
        FolderError: another run holds the folder (the message of :func:`folder_lock`).
    """
    folder = Path(folder)
    path = folder / LOCK
    if fcntl is None or os.path.realpath(folder) in _HELD or not path.is_file():
        return
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            raise _in_use(folder, fd) from None
        fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


def write_atomic(path: Path, write: Callable[[Path], None]) -> None:
    """Write a file through a hidden temporary name in its folder, fsync it, then ``os.replace`` it into place.

    The file's mode follows the umask (``0o666 & ~umask``, like any file the
    user writes), not ``mkstemp``'s 0600.

    Raises:
        OSError: from writing; the temporary file is removed and ``path`` is untouched.
    """
    fd, tmp = tempfile.mkstemp(prefix=TMP_PREFIX, dir=path.parent)
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
        FolderError: the file is not such a record (it is never silently replaced).
    """
    path = Path(folder) / CHUNKS
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as e:
        raise FolderError(f"{str(path)!r} cannot be read ({' '.join(str(e).split())}); it records "
                              "which chunks were written: restore it, or delete it to replay every chunk") from None
    try:
        return {int(k): {f: v[f] for f in ("start", "stop", "rows", "bytes", "sha256")} for k, v in data.items()}
    except (AttributeError, TypeError, ValueError, KeyError):
        raise FolderError(f"{str(path)!r} is not a record of chunks; restore it, or delete it to replay "
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
        FolderError: ``chunks.json`` unreadable (:func:`read_chunk_index`).
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
        if p.name.startswith(TMP_PREFIX):
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


def refuse_foreign(folder: Path, check: ChunkCheck) -> None:
    if check.foreign:
        shown = ", ".join(check.foreign[:3]) + (f" and {len(check.foreign) - 3} more" if len(check.foreign) > 3 else "")
        raise FolderError(f"{str(folder / GAMES_DIR)!r} holds files that are no planned chunk of this "
                              f"run ({shown}); move them out (they would be counted as games)")


def done_chunks(folder: str | Path, ranges: list[tuple[int, int]]) -> set[int]:
    """Indices of the chunks whose file is good (:func:`check_chunks`).

    Raises:
        FolderError: a file in ``games.parquet/`` is no planned chunk.
    """
    check = check_chunks(folder, ranges)
    refuse_foreign(Path(folder), check)
    return set(check.good)


def load_games(folder: str | Path, columns: list[str] | None = None) -> pd.DataFrame:
    """All stored games of a results folder, one row per game, in ``game`` order, at the current schema
    (:func:`games_schema` of the folder's family; ``df.attrs["family"]`` names the family).

    The chunk files are read one at a time with ``pyarrow.parquet`` into
    preallocated NumPy columns, so memory stays near the size of the result
    (about 130 MB per million 4-player games) instead of holding an Arrow copy
    too. ``seat_{s}_agent`` and ``winner_agents`` are pandas categoricals;
    per-seat columns of seats that some table sizes lack are float64 with NaN
    there (as ``pandas.read_parquet`` gives them). A chunk of an older schema version is read through
    :func:`cya_sim.results.upgrade.upgrade_chunk`.

    Args:
        folder: a results folder.
        columns: columns to read (default all); ``game`` is always read.

    Only chunks that :func:`check_chunks` finds good are read.

    Raises:
        FolderError: not a results folder; a damaged manifest; a file in ``games.parquet/`` that is
            no planned chunk, or a damaged chunk (named; a resume replays it); a chunk this cya-sim cannot read
            (a newer schema version, or an older one it cannot upgrade: :func:`cya_sim.results.upgrade.refusal`).
    """
    manifest = read_manifest(folder)
    family = result_columns_of(manifest)
    schema = games_schema(int(manifest["max_players"]), family)
    names = schema.names if columns is None else ["game"] + [c for c in schema.names if c in columns and c != "game"]
    ranges = plan_of(manifest)
    check = check_chunks(folder, ranges)
    refuse_foreign(Path(folder), check)
    if check.damaged:
        i, why = min(check.damaged.items())
        more = f" (and {len(check.damaged) - 1} more)" if len(check.damaged) > 1 else ""
        raise FolderError(f"{str(Path(folder, GAMES_DIR, chunk_file(i)))!r} is damaged: {why}{more}; "
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
        stored = pq.read_schema(f)
        try:
            version = chunk_version(stored)
        except ValueError as e:
            raise FolderError(f"{str(f)!r} {e}; it was changed by hand or damaged") from None
        why = refusal(version, family.family, Path(folder).as_posix())
        if why:
            raise FolderError(f"{str(f)!r}: {why}")
        t = upgrade_chunk(pq.read_table(f, columns=[c for c in names if c in stored.names]), version)
        lacking = [c for c in names if c not in t.column_names]
        if lacking:
            raise FolderError(f"{str(f)!r} lacks the column(s) {', '.join(lacking[:3])} of the {family.family} game's "
                              "results; it was changed by hand or copied from another folder")
        for name in names:
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
    df.attrs["family"] = family.family
    return df


def write_runs(out: Path, runs: list[dict[str, Any]]) -> None:
    write_atomic(out / RUNS, lambda p: p.write_text(json.dumps(runs, indent=2) + "\n", encoding="utf-8"))


def read_runs(folder: str | Path, strict: bool = False) -> list[dict[str, Any]]:
    """Entries of ``runs.json`` (empty when there is none).

    Args:
        strict: raise instead of returning [] when the file is not a list of runs (a run never replaces it).

    Raises:
        FolderError: ``strict`` and the file is unreadable or not a JSON list of objects.
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
            raise FolderError(f"{str(path)!r} cannot be read ({' '.join(str(e).split())[:120]}); it "
                                  "records the runs into this folder and is never replaced: restore it or move "
                                  "it away") from None
        return []


def first_command(runs: list[dict[str, Any]]) -> str | None:
    """The command line of the first entry of a run log (:func:`read_runs`) that recorded one; None when none did.

    Later runs (a resume, a replay) append to the log and do not change it, so a report that names it stays byte
    for byte the same when the results are.
    """
    return next((r["command"] for r in runs if r.get("command")), None)


def record_run(folder: str | Path, entry: dict[str, Any]) -> None:
    """Append ``entry`` (command line, times, wall seconds...) to the run log ``runs.json`` of a study's folder.

    The run log is the one file of a folder that a replay with the same results changes; tables, plots and
    REPORT.md keep no time or command line of their own (they name :func:`first_command` at most).

    Raises:
        FolderError: the run log is there but is not a list of runs (it is never replaced). OSError: from writing.
    """
    out = Path(folder)
    write_runs(out, read_runs(out, strict=True) + [entry])


def write_manifest(folder: str | Path, manifest: dict[str, Any]) -> None:
    """Write ``manifest.json`` atomically (:func:`write_atomic`) and create ``games.parquet/``.

    Raises:
        OSError: from writing; a manifest already there is untouched.
    """
    out = Path(folder)
    write_atomic(out / MANIFEST, lambda p: p.write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8"))
    (out / GAMES_DIR).mkdir(exist_ok=True)


def remove_temporary(folder: str | Path, check: ChunkCheck | None = None) -> None:
    """Delete a killed run's half-written files (hidden temporary names) in the folder and in ``games.parquet/``."""
    out = Path(folder)
    for p in (*(check.temporary if check else ()), *out.glob(TMP_PREFIX + "*")):
        p.unlink(missing_ok=True)


def store_chunk(folder: str | Path, index: dict[int, dict[str, Any]], chunk: int, start: int, stop: int,
                table: pa.Table) -> None:
    """Write one finished chunk's games, then record it in ``chunks.json`` (both atomic, in that order).

    Args:
        folder: the results folder. index: the chunk record so far (:func:`read_chunk_index`), updated in place.
        chunk: the chunk's number. start, stop: its half-open global game range. table: its rows
            (:func:`games_schema`), one per game ``start .. stop - 1`` in order.

    Raises:
        RuntimeError: the table holds other games than ``start .. stop - 1`` (a bug; nothing is written).
        OSError: from writing; a chunk file without its record is found and replayed by the next resume.
    """
    if not np.array_equal(table.column("game").to_numpy(), np.arange(start, stop)):
        raise RuntimeError(f"chunk {chunk} holds other games than {start}..{stop - 1}")
    out = Path(folder)
    rec: dict[str, Any] = {}

    def write(p: Path) -> None:
        pq.write_table(table, p)
        rec.update(start=start, stop=stop, rows=table.num_rows, bytes=p.stat().st_size, sha256=file_digest(p))

    write_atomic(out / GAMES_DIR / chunk_file(chunk), write)
    index[chunk] = rec
    write_atomic(out / CHUNKS, lambda p: p.write_text(
        json.dumps({str(i): index[i] for i in sorted(index)}, indent=0) + "\n", encoding="utf-8"))


def check_study_folder(folder: str | Path, study: str, own: frozenset[str]) -> None:
    """Refuse a study's output folder (``cya-sim tune``, ``metagame``, ``leaderboard``) that holds anything but
    that study's own files, before anything is written; nothing is changed.

    Allowed: a folder that does not exist, an empty one, or one whose every entry is a name in ``own`` (the
    files and folders that study writes: a resume). Hidden temporary files and the lock do not count.

    Raises:
        FolderError: ``folder`` is a file, or holds other entries (up to three named): a tournament's results,
            another study's, or files of the user's (they would be overwritten or mixed up).
    """
    out = Path(folder)
    if out.exists() and not out.is_dir():
        raise FolderError(f"{str(out)!r} is a file; give a new or empty folder for the {study} results")
    foreign = sorted(p.name for p in folder_entries(out) if p.name not in own)
    if foreign:
        shown = ", ".join(foreign[:3]) + (f" and {len(foreign) - 3} more" if len(foreign) > 3 else "")
        raise FolderError(f"folder {str(out)!r} holds files that are not {study} results ({shown}); give a new or "
                          f"empty folder (results are never overwritten), or the folder of the same {study} to resume")
