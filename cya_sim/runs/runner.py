"""Running an experiment: deterministic chunks, local processes or a Dask cluster, atomic files, resume.

Both forms of ``cya-sim tournament`` run here: an experiment file, and a
flags-only tournament (:mod:`cya_sim.studies.tournament` turns its flags into an
experiment with one explicit line-up). The runner plays and stores; the results
folder's files (manifest, ``games.parquet/`` chunks, ``chunks.json``,
``runs.json``, the lock), their checks and atomic writes are
:mod:`cya_sim.results.folder`'s.

Running the same experiment into the same folder again plays only the chunks
whose file is missing or damaged (resume). Every game depends only on the
seed, its global game number and the schedule
(:class:`~cya_sim.runs.schedule.Schedule`), never on the executor, the workers or
the chunking, so a resumed or clustered run writes exactly the rows of an
uninterrupted local one. Files follow the umask (like any file the user
writes). Worker processes end within a second when the main process dies, and
within :data:`STOP_GRACE_S` seconds of Ctrl-C whatever the chunk size (every
chunk already finished stays written; the run is recorded ``interrupted``).
"""

from __future__ import annotations

import json
import multiprocessing
import os
import queue as _queue
import resource
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from contextlib import closing
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa

from cya_sim import __version__
from cya_sim.engine.table import GameTable
from cya_sim.game.rng import root_key
from cya_sim.game.rules import RuleSet
from cya_sim.results.folder import (
    GAMES_DIR,
    MANIFEST,
    MANIFEST_FORMAT,
    MANIFEST_KIND,
    TMP_PREFIX,
    check_chunks,
    chunk_file,
    folder_entries,
    folder_lock,
    games_schema,
    read_chunk_index,
    read_manifest,
    read_runs,
    refuse_foreign,
    remove_temporary,
    short_json,
    store_chunk,
    write_manifest,
    write_runs,
)
from cya_sim.results.upgrade import manifest_family, refusal
from cya_sim.runs.experiment import Experiment, ExperimentError, check_settings, resolve_engine
from cya_sim.runs.schedule import Schedule, auto_chunk_size, plan_chunks, worker_count
from cya_sim.runs.warmup import WarmUp, warm_up

#: Seconds to wait for a Dask scheduler to answer before refusing ``run.scheduler``.
SCHEDULER_TIMEOUT_S = 10.0
#: Seconds between a worker's checks that the main process still lives.
PARENT_POLL_S = 0.5


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
    from cya_sim.play.families import family_of

    g = task.schedule.games_of(task.start, task.stop)
    play_games = family_of(task.rules).play_games(task.engine)
    return play_games(task.rules, list(task.agents), g["seat_agent"], task.key, g["deal"], progress=progress)


def chunk_table(task: ChunkTask, t: GameTable) -> pa.Table:
    """The rows of one played chunk as an Arrow table of :func:`games_schema`: the common columns and the
    family's own (``t.family``), at the current results schema version.

    ``winner_agents`` is built once per distinct (seat map, winners) pattern
    (a few dozen per chunk), not once per game.
    """
    g = task.schedule.games_of(task.start, task.stop)
    n, p, pmax = len(g["game"]), g["players"], task.max_players
    names = np.array(task.agents, dtype=object)
    cols: dict[str, Any] = {
        "game": g["game"], "deal": g["deal"], "players": np.full(n, p, np.int8), "cycle": g["cycle"],
        "lineup": g["lineup"], "rotation": g["rotation"].astype(np.int8),
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
    cols["decisions"], cols["capped"] = t.decisions, t.capped
    cols.update(t.columns)  # the family's own, as it declares them (t.family)
    return pa.table(cols, schema=games_schema(pmax, t.family))


def play_chunk(task: ChunkTask, progress: Callable[[int], None] | None = None) -> pa.Table:
    """Play one chunk and return its rows as an Arrow table of :func:`games_schema`.

    Raises:
        IllegalActionError: an agent returned an illegal action (from the engine).
    """
    return chunk_table(task, play_chunk_games(task, progress))


# -- the folder ------------------------------------------------------------------
def manifest_of(exp: Experiment, chunk_size: int, n_chunks: int) -> dict[str, Any]:
    """The manifest dict of an experiment run with a chunk size, at the current results schema version."""
    from cya_sim.play.families import family_of

    return {
        "kind": MANIFEST_KIND,
        "format": MANIFEST_FORMAT,
        "family": family_of(exp.rules).name,
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


def check_folder(exp: Experiment) -> dict[str, Any] | None:
    """Check the results folder of an experiment without writing anything.

    Allowed: a folder that does not exist or is empty (returns None: a new
    run), or one whose manifest is valid and has this experiment's identity
    and chunk size (returns the manifest: a resume).

    Raises:
        ExperimentError (field ``out``): ``out`` is a file, holds files that
        are not cya-sim results, holds another experiment's results, has a
        damaged manifest (the key is named), a ``runs.json`` that is not a
        list of runs, or games this cya-sim cannot read (:func:`cya_sim.results.upgrade.refusal`: a newer
        schema version, the theft game's games of versions 1 and 2); field ``run.chunk_size``: a chunk size
        other than the folder's.
    """
    out = Path(exp.out)
    if out.exists() and not out.is_dir():
        raise ExperimentError("out", f"{str(out)!r} is a file; give a new or empty folder")
    entries = folder_entries(out)
    if not entries:
        return None
    if not (out / MANIFEST).exists():
        shown = ", ".join(sorted(p.name for p in entries)[:3])
        raise ExperimentError("out", f"folder {str(out)!r} holds files that are not cya-sim results ({shown}); "
                              "give a new or empty folder")
    m = read_manifest(out)
    why = refusal(m["format"], manifest_family(m), out.as_posix())
    if why:  # games this cya-sim cannot read: a resume would mix them with games it can
        raise ExperimentError("out", f"folder {str(out)!r}: {why}")
    mine = json.loads(json.dumps(exp.identity()))
    stored = m["experiment"]
    if stored != mine:
        diff = [k for k in mine if stored.get(k) != mine[k]]
        shown = "; ".join(f"{k} {short_json(stored.get(k))} there, {short_json(mine[k])} here" for k in diff[:2])
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
        ExperimentError: see :func:`check_folder`; also field ``out`` when another run holds the folder, and
            field ``agents[i]`` for an agent seated where it does not play (a learned model elsewhere than it was
            trained for), before anything is written.
    """
    check_settings(exp.rules, exp.agents, exp.design, exp.players)
    check_folder(exp)  # read-only: a refused folder gets no lock file
    out = Path(exp.out)
    with folder_lock(out, command):
        m = check_folder(exp)
        if m is not None:
            return m, True
        chunk = exp.run.chunk_size or auto_chunk_size(exp.games, engine, searches(exp, engine))
        m = manifest_of(exp, chunk, len(plan_chunks(Schedule.of(exp), chunk)))
        for p in out.iterdir():  # temporary files of a run killed before its manifest was in place
            if p.name.startswith(TMP_PREFIX):
                p.unlink(missing_ok=True)
        write_manifest(out, m)
        return m, False


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

    Errors of the engine or of an agent propagate; the chunks already written stay, and a rerun resumes
    after them.

    Raises:
        ExperimentError: the scheduler or the experiment's folder is refused (before any game or file).
        FolderError: the folder is damaged or in use by another run (before any game).
        OSError: a file cannot be written.
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


#: A local run with at most this many games to play, every agent a built-in compiled policy on the batched engine
#: (no search, plug-in or Python agent), plays in the calling process when no worker count is asked for: starting a
#: worker process (numba's import and the cache load, about a second) costs more than it saves. The default
#: tournament (4,000 games, greedy and random), measured warm on 2 cores: 4.0 and 4.7 s wall on 2 workers, 2.9 s on 1.
SMALL_RUN_GAMES = 20_000
#: The kernels (``Kernel.kind``) of the built-in compiled policies (:func:`run_workers`).
_BUILT_IN_KINDS = frozenset({"play loop", "theft play loop", "heuristic", "card_counter", "oracle", "heuristic (row)",
                             "card_counter (row)"})


def searches(exp: Experiment, engine: str) -> bool:
    """Whether a seat of the run searches (``ismcts``, ``pimc``) on the batched engine: its kernels include the search
    kernels. Its games take 0.1-1 s, so it picks the smaller automatic chunks
    (:func:`~cya_sim.runs.schedule.auto_chunk_size`). A Python plug-in does not count: at about 5 ms a game, two
    worker processes of 13-game chunks played the README's 400-game example in 4.6 s against 4.3 s in one chunk
    (2026-12-03).

    Raises:
        ValueError: an unknown agent spec (:func:`cya_sim.runs.warmup.kernels_for`).
    """
    if engine != "batched":
        return False
    from cya_sim.runs.warmup import kernels_for

    return any(k.kind == "search" for k in kernels_for([exp.rules], exp.players, exp.agents, engine))


def run_workers(exp: Experiment, engine: str, tasks: Sequence[ChunkTask]) -> int:
    """Worker processes of a local run: :func:`~cya_sim.runs.schedule.worker_count` of ``run.workers``, but 1 when
    ``run.workers`` is not set and the run is small (:data:`SMALL_RUN_GAMES`). Workers never change a game.

    Raises:
        ValueError: an unknown agent spec (:func:`cya_sim.runs.warmup.kernels_for`).
    """
    n = worker_count(exp.run.workers, len(tasks))
    if n == 1 or exp.run.workers is not None or engine != "batched" \
            or sum(t.stop - t.start for t in tasks) > SMALL_RUN_GAMES:
        return n
    from cya_sim.runs.warmup import kernels_for

    kinds = {k.kind for k in kernels_for([exp.rules], exp.players, exp.agents, engine)}
    return 1 if kinds <= _BUILT_IN_KINDS else n


def _run(exp: Experiment, engine: str, note: str, client, progress: bool, command: str | None,
         on_chunk: Callable[[int], None] | None, prepared: tuple[dict[str, Any], bool]) -> RunResult:
    from tqdm.auto import tqdm

    manifest, resumed = prepared
    out = Path(exp.out)
    sched = Schedule.of(exp)
    ranges = plan_chunks(sched, manifest["chunk_size"])
    check = check_chunks(out, ranges)
    refuse_foreign(out, check)
    remove_temporary(out, check)
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
    workers = run_workers(exp, engine, tasks)
    executor = ("nothing to play" if not tasks else f"dask {exp.run.scheduler}" if exp.run.scheduler
                else f"local processes ({workers})" if workers > 1
                else "local process (1: a compiled plug-in plays)" if _runs_compiled_plugin(tasks) else "in-process")
    entry = _start_run(out, command, resumed, engine, note, executor, len(tasks), len(done))

    def store(task: ChunkTask, table: pa.Table) -> None:
        store_chunk(out, index, task.index, task.start, task.stop, table)
        if on_chunk is not None:
            on_chunk(task.index)

    warm = WarmUp()
    t0 = time.perf_counter()
    played = 0
    status = "interrupted"  # a Ctrl-C in the warm-up too: the run's entry never stays "running"
    desc = f"{exp.name} ({engine})"
    try:
        if tasks and not exp.run.scheduler:  # compile once here, before the workers start; they only load the cache
            warm = warm_up([exp.rules], exp.players, exp.agents, engine, say=_say if progress else None)
        t0 = time.perf_counter()
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

    A line-up with a compiled plug-in (:func:`cya_sim.play.families.calls_compiled_plugin`, as a player or a search's
    rollout) is played in a worker process even at one worker: compiled user code that loops for ever never
    returns to Python, where Ctrl-C is seen, but a worker is ended from here (:func:`_stop_workers`).

    Args:
        tasks: the chunks to play. workers: processes (:func:`~cya_sim.runs.schedule.worker_count`); 1 plays here
            (unless a compiled plug-in plays).
        bar: a tqdm bar, updated here as games finish: in this process per game; from worker processes
            as they report finished games through a queue (so a slow agent's rate shows within seconds),
            and each chunk is counted exactly once when it is done.
        play: a picklable function of a task (:func:`play_chunk` for Arrow rows, :func:`play_chunk_games`).
    """
    if workers <= 1 and not _runs_compiled_plugin(tasks):
        for t in tasks:
            yield t, play(t, progress=bar.update)
        return
    workers = max(1, workers)
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
        pool.shutdown(wait=False)  # every chunk is in: the idle workers exit on their own while the caller goes on
    except BaseException:  # KeyboardInterrupt, GeneratorExit (the caller stopped), a chunk's error
        _stop_workers(pool)
        raise
    finally:
        stop.set()
        reader.join()


def _runs_compiled_plugin(tasks: list[ChunkTask]) -> bool:
    """Whether the tasks' line-up holds a compiled plug-in (:func:`cya_sim.play.families.calls_compiled_plugin`)."""
    from cya_sim.play.families import calls_compiled_plugin

    return bool(tasks) and calls_compiled_plugin([a for t in tasks for a in t.agents])


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
    write_runs(out, runs)
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
    write_runs(out, runs)


