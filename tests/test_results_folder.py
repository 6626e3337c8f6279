"""Results folders that check themselves (issue 14, kinds 1, 2, 3 and 8).

Kind 1: every chunk file is checked against the plan and the SHA-256 recorded
when it was written; anything else is named and refused; a damaged chunk is
named and replayed; a hand-edited manifest is refused in one line naming the
key. Kind 2: two runs into one folder — the second is refused naming the
first's process. Kind 3: a killed run's workers end with it; the same command
completes. Kind 8: files follow the umask; a corrupt runs.json is refused,
never replaced.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from cya_sim.cli.experiment import tournament_main
from cya_sim.results.folder import (
    CHUNKS,
    GAMES_DIR,
    MANIFEST,
    RUNS,
    FolderError,
    chunk_file,
    load_games,
    read_manifest,
    read_runs,
)
from cya_sim.runs.experiment import apply_overrides, parse_experiment
from cya_sim.runs.runner import run_experiment

DOC = {"name": "checked", "seed": 5, "games": 24, "players": 4, "agents": ["random", "greedy"],
       "design": {"kind": "round_robin", "repeats": True},
       "run": {"engine": "reference", "workers": 1, "chunk_size": 6}}


def experiment(out, **changes):
    return parse_experiment(apply_overrides(DOC, {"out": str(out), **changes}))


@pytest.fixture(scope="module")
def pristine(tmp_path_factory) -> tuple[Path, pd.DataFrame]:
    """One uninterrupted run of DOC (4 chunks of 6 games) and its games."""
    out = tmp_path_factory.mktemp("pristine") / "res"
    run_experiment(experiment(out), progress=False)
    return out, load_games(out)


@pytest.fixture
def copy(pristine, tmp_path) -> Path:
    out = tmp_path / "res"
    shutil.copytree(pristine[0], out)
    return out


def chunk(out: Path, i: int) -> Path:
    return out / GAMES_DIR / chunk_file(i)


def refused(out: Path, match: str) -> FolderError:
    """load_games and a resume both refuse the folder with one line matching ``match``; nothing changes."""
    kept = (RUNS, ".cya-sim.lock")
    before = {p: p.read_bytes() for p in out.rglob("*") if p.is_file() and p.name not in kept}
    with pytest.raises(FolderError, match=match) as e:
        load_games(out)
    assert "\n" not in str(e.value)
    with pytest.raises(FolderError, match=match):
        run_experiment(experiment(out), progress=False)
    assert {p: p.read_bytes() for p in out.rglob("*") if p.is_file() and p.name not in kept} == before
    return e.value


def replayed(out: Path, expected: pd.DataFrame, match: str, capsys) -> None:
    """load_games names the damaged chunk; a resume replays it (naming it) and the games equal the pristine run's."""
    with pytest.raises(FolderError, match=match):
        load_games(out)
    capsys.readouterr()
    r = run_experiment(experiment(out), progress=False)
    assert r.chunks_played >= 1 and "playing it again" in capsys.readouterr().err
    pd.testing.assert_frame_equal(load_games(out), expected)


# -- kind 1: the folder cannot lie -----------------------------------------------------
def test_a_copy_of_a_chunk_under_another_name_is_named_and_refused(copy):
    shutil.copy(chunk(copy, 1), copy / GAMES_DIR / "chunk-000001 (copy).parquet")
    e = refused(copy, r"no planned chunk of this run \(chunk-000001 \(copy\)\.parquet\)")
    assert e.field == "out"


def test_a_chunk_number_beyond_the_plan_is_named_and_refused(copy):
    shutil.copy(chunk(copy, 3), chunk(copy, 4))  # 24 games in chunks of 6: chunks 0..3
    refused(copy, r"no planned chunk of this run \(chunk-000004\.parquet\)")


def test_a_stray_file_or_folder_in_games_is_named_and_refused(copy):
    (copy / GAMES_DIR / "notes.txt").write_text("mine")
    refused(copy, "notes.txt")


def test_a_chunk_overwritten_by_another_is_named_and_replayed(copy, pristine, capsys):
    shutil.copy(chunk(copy, 0), chunk(copy, 2))  # same row count, other games
    replayed(copy, pristine[1], "chunk-000002.parquet.*damaged", capsys)


def test_report_of_a_damaged_folder_is_one_line_naming_the_chunk(copy, capsys):
    from cya_sim.cli.experiment import report_main

    shutil.copy(chunk(copy, 0), chunk(copy, 3))
    assert report_main([str(copy), "--quiet"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "chunk-000003.parquet" in err[0] and "replay" in err[0], err


def test_a_chunk_corrupted_in_a_data_page_with_intact_footer_is_named_and_replayed(copy, pristine, capsys):
    p = chunk(copy, 1)
    data = bytearray(p.read_bytes())
    for k in range(40, 60):  # inside the first column chunk's pages; the footer at the end is intact
        data[k] ^= 0xFF
    p.write_bytes(bytes(data))
    replayed(copy, pristine[1], "chunk-000001.parquet.*damaged.*SHA-256", capsys)


def test_a_truncated_chunk_and_an_unrecorded_chunk_are_replayed(copy, pristine, capsys):
    p = chunk(copy, 3)
    p.write_bytes(p.read_bytes()[:-100])
    index = json.loads((copy / CHUNKS).read_text())
    del index["0"]  # as if the run was killed between writing chunk 0 and recording it
    (copy / CHUNKS).write_text(json.dumps(index))
    replayed(copy, pristine[1], "damaged.*and 1 more", capsys)


@pytest.mark.parametrize("edit, key", [
    (lambda m: m.update(seed=6), "seed"),
    (lambda m: m.update(total_games=25), "total_games"),
    (lambda m: m.pop("chunk_size"), "chunk_size"),
    (lambda m: m.update(chunk_size="6"), "chunk_size"),
    (lambda m: m.update(n_chunks=5), "n_chunks"),
    (lambda m: m["experiment"].update(seed=6), "experiment_toml"),
    (lambda m: m["experiment"].pop("players"), "experiment.players"),
    (lambda m: m.update(experiment_toml=m["experiment_toml"].replace("seed = 5", "seed = 7")), "experiment_toml"),
    (lambda m: m.update(format=99), "format"),
    (lambda m: m.update(cya_sim_version="9.9.9"), "cya_sim_version"),  # issue 23: runs.json's first run says 0.1.0
    (lambda m: m.update(cya_sim_version=1), "cya_sim_version"),
    (lambda m: m.pop("cya_sim_version"), "cya_sim_version"),
    (lambda m: m.update(cya_sim_version="0.1.0; rm -rf"), "cya_sim_version"),
])
def test_a_hand_edited_manifest_is_refused_in_one_line_naming_the_key(copy, edit, key, capsys):
    m = json.loads((copy / MANIFEST).read_text())
    edit(m)
    (copy / MANIFEST).write_text(json.dumps(m))
    with pytest.raises(FolderError, match=f"key '{key}'") as e:
        read_manifest(copy)
    assert "\n" not in str(e.value) and e.value.field == "out"
    toml = copy.parent / "x.toml"
    toml.write_text(experiment(copy).to_toml())
    assert tournament_main([str(toml), "--quiet"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and f"key '{key}'" in err[0]


def test_a_resume_removes_the_temporary_files_of_a_killed_run(copy):
    for p in (copy / ".tmp-runs", copy / ".tmp-chunks", copy / GAMES_DIR / ".tmp-chunk"):
        p.write_text("half")
    assert run_experiment(experiment(copy), progress=False).chunks_played == 0
    assert not list(copy.rglob(".tmp-*"))


def test_a_corrupt_chunk_record_is_refused_not_replaced(copy):
    (copy / CHUNKS).write_text("{not json")
    refused(copy, "chunks.json")
    assert (copy / CHUNKS).read_text() == "{not json"


# -- kind 2: two runs into one folder ------------------------------------------------
HOLD = """
import sys, time
from cya_sim.results.folder import folder_lock
with folder_lock(sys.argv[1], "cya-sim tournament holder.toml"):
    print("held", flush=True)
    time.sleep(60)
"""


def test_a_second_run_into_a_folder_in_use_is_refused_naming_the_first(copy, capsys):
    holder = subprocess.Popen([sys.executable, "-c", HOLD, str(copy)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        before = {p: p.read_bytes() for p in copy.rglob("*") if p.is_file() and p.name != ".cya-sim.lock"}
        with pytest.raises(FolderError, match=f"in use by another run \\(process {holder.pid} .*holder.toml"):
            run_experiment(experiment(copy), progress=False)
        toml = copy.parent / "x.toml"
        toml.write_text(experiment(copy).to_toml())
        assert tournament_main([str(toml), "--quiet"]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and f"process {holder.pid}" in err[0], err
        from cya_sim.studies.tournament import TournamentConfig, TournamentError, run_tournament
        flags_out = copy.parent / "flags"
        flags_out.mkdir()
        holder2 = subprocess.Popen([sys.executable, "-c", HOLD, str(flags_out)], stdout=subprocess.PIPE, text=True)
        try:
            assert holder2.stdout.readline().strip() == "held"
            with pytest.raises(TournamentError, match=f"process {holder2.pid}"):
                run_tournament(TournamentConfig("classic", ["greedy"], games=2, engine="reference", workers=1,
                                                out=flags_out), progress=False)
            # the command: one line on stderr and nothing before it (the header once came first; a new user's
            # finding), and the probe writes nothing
            from cya_sim.cli.main import main

            capsys.readouterr()
            assert main(["tournament", "--games", "8", "--out", str(flags_out)]) == 2
            out, err = capsys.readouterr()
            assert out == "" and len(err.strip().splitlines()) == 1 and f"process {holder2.pid}" in err
            assert sorted(p.name for p in flags_out.iterdir()) == [".cya-sim.lock"]
        finally:
            holder2.kill()
            holder2.wait()
        assert {p: p.read_bytes() for p in copy.rglob("*")
                if p.is_file() and p.name != ".cya-sim.lock"} == before
    finally:
        holder.kill()
        holder.wait()
    # the holder is gone: its lock went with it, and a run goes ahead
    assert run_experiment(experiment(copy), progress=False).chunks_played == 0


# -- kind 3: workers end with their parent; kind 8: permissions and history ------------
KILLABLE = {"name": "orphans", "seed": 1, "games": 4000, "players": 4, "agents": ["random", "greedy"],
            "design": {"kind": "round_robin", "repeats": True},
            "run": {"engine": "reference", "workers": 2, "chunk_size": 40}}


def _children(pid: int) -> list[int]:
    kids = []
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                if int((d / "stat").read_text().rsplit(")", 1)[1].split()[1]) == pid:
                    kids.append(int(d.name))
            except (OSError, IndexError, ValueError):
                pass
    return kids


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")
def test_killing_only_the_main_process_ends_its_workers(tmp_path):
    out = tmp_path / "res"
    exp = parse_experiment(apply_overrides(KILLABLE, {"out": str(out)}))
    toml = tmp_path / "orphans.toml"
    toml.write_text(exp.to_toml())
    cmd = [sys.executable, "-m", "cya_sim.cli", "tournament", str(toml), "--quiet", "--no-report"]
    main = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while not list((out / GAMES_DIR).glob("chunk-*.parquet")) and time.monotonic() < deadline:
        time.sleep(0.05)
    kids = _children(main.pid)
    assert kids, "no worker processes"
    main.send_signal(signal.SIGKILL)  # only the main process, as the out-of-memory killer does
    main.wait()
    deadline = time.monotonic() + 15
    while any(Path(f"/proc/{k}").exists() and "Z" not in Path(f"/proc/{k}/stat").read_text().split()[2]
              for k in kids if Path(f"/proc/{k}/stat").exists()) and time.monotonic() < deadline:
        time.sleep(0.1)
    alive = [k for k in kids if Path(f"/proc/{k}/stat").exists()
             and Path(f"/proc/{k}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"]
    assert not alive, f"workers {alive} outlived their parent"
    assert read_runs(out)[-1]["status"] == "running"  # the killed run left its entry (the soak test resumes such runs)


@pytest.mark.parametrize("umask, mode", [(0o022, 0o644), (0o077, 0o600), (0o002, 0o664)])
def test_result_files_follow_the_umask(tmp_path, umask, mode):
    old = os.umask(umask)
    try:
        out = tmp_path / "res"
        run_experiment(experiment(out, games=6), progress=False)
    finally:
        os.umask(old)
    files = [p for p in out.rglob("*") if p.is_file()]
    assert files and all(p.stat().st_mode & 0o777 == mode for p in files), \
        {p.name: oct(p.stat().st_mode & 0o777) for p in files}


def test_a_corrupt_runs_json_is_refused_and_kept(copy, capsys):
    (copy / RUNS).write_text("[{broken")
    with pytest.raises(FolderError, match="runs.json.*never replaced"):
        run_experiment(experiment(copy), progress=False)
    assert (copy / RUNS).read_text() == "[{broken"
