"""The results schema version (issue 30, item 3): new folders name their family and version, older folders are read
and reported as they were, and a folder or chunk of a version this cya-sim does not read is refused in one line.

``results/example`` is a real folder of version 2 written by an earlier cya-sim: its report is rebuilt and compared
with the committed files. Other old folders are made here from new ones by :func:`downgrade`, which writes the
layout versions 1 and 2 used (the classic game's column names and narrower integers, no version in the chunks, the
theft game's stand-ins), so the upgrade of both families is tested.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from cya_sim.cli.experiment import report_main, tournament_main
from cya_sim.engine.classic.results import CLASSIC_COLUMNS
from cya_sim.engine.theft.results import THEFT_COLUMNS
from cya_sim.reports.report import build_report
from cya_sim.results.folder import (
    CHUNKS,
    GAMES_DIR,
    MANIFEST,
    FolderError,
    chunk_file,
    games_schema,
    load_games,
    plan_of,
    read_manifest,
    store_chunk,
    write_manifest,
)
from cya_sim.results.upgrade import SCHEMA_VERSION, VERSION_KEY, chunk_version, upgrade_chunk
from cya_sim.runs.experiment import ExperimentError, apply_overrides, parse_experiment
from cya_sim.runs.runner import run_experiment

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "results" / "example"

DOCS = {
    "classic": {"name": "schema", "seed": 5, "games": 12, "players": [3, 4], "agents": ["random", "greedy"],
                "design": {"kind": "round_robin", "repeats": True},
                "run": {"engine": "reference", "workers": 1, "chunk_size": 6}},
    "theft": {"name": "schema", "seed": 5, "games": 12, "players": [3], "agents": ["greedy", "defender"],
              "rules": {"preset": "theft"}, "design": {"kind": "round_robin", "repeats": True},
              "run": {"engine": "reference", "workers": 1, "chunk_size": 6}},
}


def experiment(family: str, out: Path):
    return parse_experiment(apply_overrides(DOCS[family], {"out": str(out)}))


@pytest.fixture(scope="module")
def folders(tmp_path_factory) -> dict[str, Path]:
    """One new folder per family (the current schema), played once."""
    out = {}
    for family in DOCS:
        out[family] = tmp_path_factory.mktemp(family) / "res"
        run_experiment(experiment(family, out[family]), progress=False)
    return out


def legacy_table(t: pa.Table, family: str) -> pa.Table:
    """A chunk as versions 1 and 2 wrote it: the classic column names in their order, ``first_dealer`` int8, the
    counts int32, no version; the theft game's stand-ins (the seat before the first player as ``first_dealer``,
    ``rounds`` = 1, thefts as ``challenges``, no cancelled thefts)."""
    d = t.to_pandas()
    p = d["players"].to_numpy(np.int64)
    if family == "theft":
        d["first_dealer"] = (d["first_player"].to_numpy(np.int64) - 1) % p
        d["rounds"] = 1
        d["challenges"] = d["thefts"]
    seats = [c for c in d.columns if c.startswith("seat_")]
    cols = {"game": pa.int64(), "deal": pa.int64(), "players": pa.int8(), "cycle": pa.int64(), "lineup": pa.int32(),
            "rotation": pa.int8(), "first_dealer": pa.int8(), **{c: t.schema.field(c).type for c in seats},
            "winner_agents": pa.string(), "rounds": pa.int32(), "turns": pa.int32(), "challenges": pa.int32(),
            "decisions": pa.int64(), "largest_steal": pa.int64(), "capped": pa.bool_()}
    schema = pa.schema([pa.field(c, typ) for c, typ in cols.items()])
    return pa.Table.from_pandas(d[list(cols)], schema=schema, preserve_index=False).replace_schema_metadata(None)


def downgrade(folder: Path, family: str) -> None:
    """Rewrite a new folder in the layout of version 2: its manifest (``format`` 2, no ``family``) and every chunk
    (:func:`legacy_table`), recorded in ``chunks.json`` as version 2 recorded them."""
    m = json.loads((folder / MANIFEST).read_text())
    m["format"] = 2
    del m["family"]
    write_manifest(folder, m)
    (folder / CHUNKS).unlink()
    index: dict = {}
    for i, (a, b) in enumerate(plan_of(m)):
        old = legacy_table(pq.read_table(folder / GAMES_DIR / chunk_file(i)), family)
        assert old.schema.metadata is None
        store_chunk(folder, index, i, a, b, old)


@pytest.fixture
def old(folders, tmp_path, request) -> Path:
    family = request.param
    out = tmp_path / f"old-{family}"
    shutil.copytree(folders[family], out)
    downgrade(out, family)
    return out


def assert_same_table(path: Path, expected: Path) -> None:
    """The CSV at ``path`` has ``expected``'s header, rows and text cells, and its numbers to 1e-9 relative."""
    a, b = pd.read_csv(path), pd.read_csv(expected)
    assert list(a.columns) == list(b.columns) and len(a) == len(b), path.name
    for col in a.columns:
        if pd.api.types.is_numeric_dtype(b[col]):
            np.testing.assert_allclose(a[col].to_numpy(np.float64), b[col].to_numpy(np.float64), rtol=1e-9,
                                       atol=0, equal_nan=True, err_msg=f"{path.name}: {col}")
        else:
            assert a[col].astype(str).tolist() == b[col].astype(str).tolist(), f"{path.name}: {col}"


def test_results_example_of_version_2_is_read_and_reported_unchanged(tmp_path):
    """The committed results/example (version 2, written by an earlier cya-sim) rebuilds every committed table
    (the same rows, columns and text; numbers to 1e-9 relative: the last digits of long sums and of tail
    probabilities follow the numpy/scipy build, and the builds of 2026-12-03 move them by about 1e-15, a p-value
    near 1e-218 by 1e-12), the same REPORT.md and the same plots; its manifest is not rewritten."""
    assert json.loads((EXAMPLE / MANIFEST).read_text())["format"] == 2
    copy = tmp_path / "example"
    shutil.copytree(EXAMPLE, copy)
    manifest = (copy / MANIFEST).read_bytes()
    rep = build_report(copy)
    assert rep.games_stored == 4800 and rep.score_unit == "dollars"
    for name in ("summary.csv", "pairwise.csv", "seats.csv", "lengths.csv", "rounds.csv", "variance.csv"):
        assert_same_table(copy / name, EXAMPLE / name)
    for name in ("win_rates.png", "pairwise.png", "totals.png", "seats.png", "rounds.png"):
        assert (copy / name).read_bytes() == (EXAMPLE / name).read_bytes(), name
    assert (copy / "REPORT.md").read_text().replace(copy.as_posix(), "results/example") == \
        (EXAMPLE / "REPORT.md").read_text()
    assert (copy / MANIFEST).read_bytes() == manifest
    games = load_games(copy)
    assert games.attrs["family"] == "classic" and games["first_dealer"].dtype == np.int16
    assert games["rounds"].dtype == np.int64 and not games["capped"].any()


@pytest.mark.parametrize("family", sorted(DOCS))
def test_a_new_folder_is_written_at_the_current_version_with_its_family(folders, family):
    m = read_manifest(folders[family])
    assert (m["format"], m["family"]) == (SCHEMA_VERSION, family)
    own = {"classic": CLASSIC_COLUMNS, "theft": THEFT_COLUMNS}[family]
    for f in sorted((folders[family] / GAMES_DIR).glob("chunk-*.parquet")):
        schema = pq.read_schema(f)
        assert chunk_version(schema) == SCHEMA_VERSION and schema.metadata[b"cya_sim.family"] == family.encode()
        assert schema.names == games_schema(m["max_players"], own).names
        assert schema.names[-len(own.names):] == list(own.names)
    games = load_games(folders[family])
    assert games.attrs["family"] == family and len(games) == m["total_games"]
    for c in own.columns:
        assert games[c.name].dtype == np.dtype(c.dtype), c.name
    stand_ins = {"first_dealer", "rounds", "challenges"} if family == "theft" else {"first_player", "thefts"}
    assert not stand_ins & set(games.columns)


@pytest.mark.parametrize("old", ["classic"], indirect=True)
def test_a_classic_folder_of_version_2_reads_as_the_same_games_and_resumes(old, folders, tmp_path):
    """The upgrade gives the games of the new folder, column for column; a resume of the old folder replays a
    missing chunk at the current version, and the folder of mixed chunks still reads and reports the same."""
    new = load_games(folders["classic"])
    pd.testing.assert_frame_equal(load_games(old), new)
    assert chunk_version(pq.read_schema(old / GAMES_DIR / chunk_file(0))) == 2
    (old / GAMES_DIR / chunk_file(1)).unlink()
    run_experiment(experiment("classic", old), progress=False)
    assert chunk_version(pq.read_schema(old / GAMES_DIR / chunk_file(1))) == SCHEMA_VERSION
    assert read_manifest(old)["format"] == 2
    pd.testing.assert_frame_equal(load_games(old), new)
    new_copy = tmp_path / "new"
    shutil.copytree(folders["classic"], new_copy)
    build_report(old)
    build_report(new_copy)
    for name in ("summary.csv", "pairwise.csv", "seats.csv", "lengths.csv", "rounds.csv", "variance.csv"):
        assert (old / name).read_bytes() == (new_copy / name).read_bytes(), name


@pytest.mark.parametrize("old", ["theft"], indirect=True)
def test_a_theft_folder_of_version_2_is_refused_in_one_line_naming_the_replay(old, capsys):
    """Its chunks hold stand-ins and no cancelled thefts: reading, reporting and resuming are refused, naming the
    command that replays the same games; nothing is written."""
    before = {p: p.read_bytes() for p in old.rglob("*") if p.is_file()}
    with pytest.raises(FolderError, match=r"schema version 2, with stand-ins .* no cancelled thefts; replay them into "
                                          r"a new folder \(cya-sim tournament .*/experiment.toml --out NEW_FOLDER") as e:
        load_games(old)
    assert "\n" not in str(e.value)
    assert report_main([str(old), "--quiet"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "no cancelled thefts" in err[0], err
    with pytest.raises(ExperimentError, match="no cancelled thefts"):
        run_experiment(experiment("theft", old), progress=False)
    assert {p: p.read_bytes() for p in old.rglob("*") if p.is_file() and p.name != ".cya-sim.lock"} == \
        {p: b for p, b in before.items() if p.name != ".cya-sim.lock"}


def test_a_folder_of_a_future_version_is_refused_in_one_line_naming_the_versions(folders, tmp_path, capsys):
    out = tmp_path / "future"
    shutil.copytree(folders["classic"], out)
    m = json.loads((out / MANIFEST).read_text())
    m["format"] = SCHEMA_VERSION + 1
    (out / MANIFEST).write_text(json.dumps(m))
    want = f"results schema version {SCHEMA_VERSION + 1}; this cya-sim reads versions 1, 2 and 3"
    with pytest.raises(FolderError, match=want) as e:
        load_games(out)
    assert "\n" not in str(e.value) and "upgrade cya-sim" in str(e.value)
    assert report_main([str(out), "--quiet"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and want in err[0], err
    toml = tmp_path / "x.toml"
    toml.write_text(experiment("classic", out).to_toml())
    assert tournament_main([str(toml), "--quiet"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and want in err[0], err


def test_a_chunk_of_a_future_version_is_refused_in_one_line(folders, tmp_path):
    out = tmp_path / "chunk"
    shutil.copytree(folders["classic"], out)
    m = read_manifest(out)
    index = json.loads((out / CHUNKS).read_text())
    index = {int(k): v for k, v in index.items()}
    t = pq.read_table(out / GAMES_DIR / chunk_file(2))
    t = t.replace_schema_metadata({**t.schema.metadata, VERSION_KEY: str(SCHEMA_VERSION + 1).encode()})
    a, b = plan_of(m)[2]
    store_chunk(out, index, 2, a, b, t)
    with pytest.raises(FolderError, match=rf"chunk-000002\.parquet': results schema version {SCHEMA_VERSION + 1}; "
                                          "this cya-sim reads versions 1, 2 and 3"):
        load_games(out)


def test_a_chunk_lacking_a_column_of_its_family_is_refused_in_one_line(folders, tmp_path):
    """A chunk recorded in chunks.json but without one of the family's columns (copied from elsewhere, edited)."""
    out = tmp_path / "lacking"
    shutil.copytree(folders["classic"], out)
    index = {int(k): v for k, v in json.loads((out / CHUNKS).read_text()).items()}
    t = pq.read_table(out / GAMES_DIR / chunk_file(1))
    a, b = plan_of(read_manifest(out))[1]
    store_chunk(out, index, 1, a, b, t.drop_columns(["challenges"]))
    with pytest.raises(FolderError, match=r"chunk-000001\.parquet' lacks the column\(s\) challenges of the classic") as e:
        load_games(out)
    assert "\n" not in str(e.value)


def test_the_upgrade_of_an_old_chunk_adds_only_what_it_lacked():
    """Version 1 chunks written before ``capped`` existed read as never capped; a version 3 chunk is untouched."""
    t = pa.table({"game": [0, 1], "rounds": pa.array([2, 3], pa.int32())})
    assert chunk_version(t.schema) == 2
    up = upgrade_chunk(t, 2)
    assert up.column("capped").to_pylist() == [False, False] and up.column("rounds").to_pylist() == [2, 3]
    assert upgrade_chunk(t, SCHEMA_VERSION) is t
    with pytest.raises(ValueError, match="not an integer"):
        chunk_version(t.schema.with_metadata({VERSION_KEY: b"three"}))


def test_a_theft_report_speaks_of_turns_and_thefts(folders):
    """The theft game's report: its length table is turns, thefts, cancelled thefts and the largest asset stolen in
    points; the games are counted by turns (turns.csv, turns.png); nothing of rounds or challenges."""
    out = folders["theft"]
    rep = build_report(out)
    assert rep.score_unit == "points"
    names = {p.name for p in rep.files}
    assert {"turns.csv", "turns.png", "lengths.csv"} <= names and not {"rounds.csv", "rounds.png"} & names
    lengths = pd.read_csv(out / "lengths.csv")
    assert lengths["metric"].tolist() == ["turns", "thefts", "cancelled", "largest_steal"]
    games = load_games(out)
    assert lengths["mean"].tolist() == pytest.approx(
        [games[c].mean() for c in ("turns", "thefts", "cancelled", "largest_steal")])
    turns = pd.read_csv(out / "turns.csv")
    assert list(turns.columns) == ["players", "turns", "games", "share"] and turns["games"].sum() == len(games)
    text = (out / "REPORT.md").read_text()
    assert "Turns per game: " in text and "largest_steal is in points: the largest asset a thief took" in text
    assert "### Game length, thefts and largest asset stolen" in text and "![turns](turns.png)" in text
    for word in ("Rounds per game", "rounds.csv", "challenges", "largest_steal is in dollars"):
        assert word not in text, word
    # turn order 0 is the first player (R-T-SETUP): the seats table's turn-order rows count from it
    seats = pd.read_csv(out / "seats.csv")
    order = seats[(seats["position"] == "turn_order") & (seats["agent"] == "(all)")]
    first = games["first_player"].to_numpy(np.int64)
    share = np.array([games[f"seat_{s}_win_share"].to_numpy()[first == s] for s in range(3)], dtype=object)
    assert order["win_rate"].iloc[0] == pytest.approx(np.concatenate(share).mean())


def test_the_docs_games_table_is_every_family_declaration():
    """docs/tournaments.md lists each family's own columns as the family declares them: name, dtype and unit."""
    from cya_sim.play.families import FAMILIES

    text = (ROOT / "docs" / "tournaments.md").read_text()
    for name, fam in FAMILIES.items():
        head = f"| {name} column | type | unit | what |"
        assert head in text, head
        rows = text.split(head, 1)[1].split("\n\n", 1)[0].strip().splitlines()[1:]
        shown = [tuple(c.strip().strip("`") for c in r.strip("|").split("|")[:3]) for r in rows]
        assert shown == [(c.name, c.dtype, c.unit) for c in fam.result_columns().columns], name
