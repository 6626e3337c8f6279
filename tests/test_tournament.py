"""The tournament runner: seat rotation, determinism across workers and chunks, output files."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from cya_sim.rules import get_rules
from cya_sim.stats import SUMMARY_COLUMNS
from cya_sim.tournament import (
    GAMES_FILE,
    MANIFEST,
    OUTPUT_FILES,
    PLOT_FILE,
    SUMMARY_FILE,
    TournamentConfig,
    TournamentError,
    check_out_folder,
    lineup_of,
    plan_chunks,
    resolve_engine,
    run_tournament,
    seat_assignment,
)


def config(**kw) -> TournamentConfig:
    base = {"rules": "classic", "agents": ["greedy", "random"], "n_players": 4, "games": 8, "seed": 3,
            "engine": "reference", "workers": 1}
    return TournamentConfig(**(base | kw))


def snapshot(folder) -> dict:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


# -- seat rotation -----------------------------------------------------------------
@pytest.mark.parametrize("agents, p", [
    (["greedy", "random"], 4),
    (["greedy", "random"], 2),
    (["greedy", "random", "greedy"], 3),
    (["greedy", "random", "random"], 4),  # line-up greedy, random, random, greedy
    (["greedy"], 5),
])
def test_seat_rotation_every_agent_in_every_seat_equally_often(agents, p):
    names, lineup = lineup_of(agents, p)
    g = 6 * p
    sa = seat_assignment(lineup, np.arange(g))
    assert sa.shape == (g, p) and sa.dtype == np.int16
    for a in range(len(names)):
        per_seat = (sa == a).sum(axis=0)
        assert np.all(per_seat == per_seat[0]), (a, per_seat)
        # each agent holds as many seats per game as it has line-up places
        assert per_seat.sum() == g * int((lineup == a).sum())


def test_lineup_cycles_agents_and_rotation_shifts_seats():
    names, lineup = lineup_of(["greedy", "random"], 4)
    assert names == ("greedy", "random") and lineup.tolist() == [0, 1, 0, 1]
    names, lineup = lineup_of(["random", "greedy", "greedy"], 4)
    assert names == ("random", "greedy") and lineup.tolist() == [0, 1, 1, 0]
    sa = seat_assignment(np.array([0, 1, 2]), np.array([0, 1, 2, 3]))
    assert sa.tolist() == [[0, 1, 2], [2, 0, 1], [1, 2, 0], [0, 1, 2]]


def test_seat_assignment_depends_only_on_game_index():
    lineup = np.array([0, 1, 2, 3])
    whole = seat_assignment(lineup, np.arange(20))
    parts = np.concatenate([seat_assignment(lineup, np.arange(a, b)) for a, b in plan_chunks(20, 7)])
    assert np.array_equal(whole, parts)


def test_plan_chunks_cover_every_game_once():
    for games, size in [(1, 1), (10, 3), (10, 10), (10, 100), (1000, 7)]:
        chunks = plan_chunks(games, size)
        idx = np.concatenate([np.arange(a, b) for a, b in chunks])
        assert np.array_equal(idx, np.arange(games))
        assert all(b - a <= size for a, b in chunks)


def test_tournament_table_is_seat_balanced():
    r = run_tournament(config(games=8), progress=False)
    t = r.table
    assert t.game_index.tolist() == list(range(8))
    for a in range(2):
        assert np.all((t.seat_agent == a).sum(axis=0) == 4)
    assert np.allclose(t.win_share.sum(axis=1), 1.0)  # R-TIE: shares of one game add to 1


# -- determinism -----------------------------------------------------------------
def test_same_results_for_any_workers_and_chunk_size():
    one = run_tournament(config(games=10, workers=1, chunk_size=10), progress=False)
    small = run_tournament(config(games=10, workers=1, chunk_size=3), progress=False)
    two = run_tournament(config(games=10, workers=2, chunk_size=4), progress=False)
    assert two.workers == 2
    assert one.table.equals(small.table)
    assert one.table.equals(two.table)
    pd.testing.assert_frame_equal(one.summary, two.summary)


def test_different_seed_gives_different_games():
    a = run_tournament(config(games=4, seed=1), progress=False)
    b = run_tournament(config(games=4, seed=2), progress=False)
    assert not np.array_equal(a.table.totals, b.table.totals)


# -- output files ------------------------------------------------------------------
def test_output_files_and_columns(tmp_path):
    out = tmp_path / "res"
    r = run_tournament(config(games=8, out=out), progress=False)
    assert sorted(p.name for p in out.iterdir()) == sorted(OUTPUT_FILES)
    assert tuple(r.files) == tuple(out / f for f in OUTPUT_FILES)

    games = pd.read_parquet(out / GAMES_FILE)
    assert len(games) == 8
    p = 4
    want = (["game_index", "seed", "rules", "first_dealer"]
            + [f"seat_{s}_agent" for s in range(p)] + [f"seat_{s}_total" for s in range(p)]
            + [f"seat_{s}_win_share" for s in range(p)]
            + ["winners", "winner_agents", "rounds", "turns", "challenges", "decisions", "largest_steal", "capped"])
    assert list(games.columns) == want
    assert games["game_index"].tolist() == list(range(8))
    assert (games["seed"] == 3).all() and (games["rules"] == "classic").all()
    assert games.loc[0, [f"seat_{s}_agent" for s in range(p)]].tolist() == ["greedy", "random", "greedy", "random"]
    assert games.loc[1, [f"seat_{s}_agent" for s in range(p)]].tolist() == ["random", "greedy", "random", "greedy"]
    shares = games[[f"seat_{s}_win_share" for s in range(p)]].to_numpy()
    for row, winners in zip(shares, games["winners"]):
        assert sorted(np.flatnonzero(row > 0).tolist()) == list(winners)
    assert np.array_equal(games[[f"seat_{s}_total" for s in range(p)]].to_numpy(), r.table.totals)
    assert (games["rounds"] >= 1).all() and (games["largest_steal"] >= 0).all()

    summary = pd.read_csv(out / SUMMARY_FILE)
    assert tuple(summary.columns) == SUMMARY_COLUMNS
    assert summary["agent"].tolist() == ["greedy", "random"]
    assert summary["games"].tolist() == [16, 16]
    assert summary["wins"].sum() == pytest.approx(8.0)
    assert (summary["win_rate_ci_low"] <= summary["win_rate"]).all()
    assert (summary["win_rate"] <= summary["win_rate_ci_high"]).all()

    assert (out / PLOT_FILE).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    manifest = json.loads((out / MANIFEST).read_text())
    assert manifest["tournament"]["games"] == 8 and manifest["tournament"]["seed"] == 3
    assert manifest["engine"] == "reference"


def test_out_none_writes_nothing(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    r = run_tournament(config(games=2, out=None), progress=False)
    assert r.files == () and list(tmp_path.iterdir()) == []


def test_rerun_same_tournament_into_same_folder_gives_identical_files(tmp_path):
    out = tmp_path / "res"
    run_tournament(config(games=4, out=out), progress=False)
    before = pd.read_parquet(out / GAMES_FILE)
    run_tournament(config(games=4, out=out, chunk_size=1), progress=False)  # chunks do not change results
    pd.testing.assert_frame_equal(before, pd.read_parquet(out / GAMES_FILE))


def test_folder_of_another_tournament_or_other_files_is_refused_and_kept(tmp_path):
    out = tmp_path / "res"
    run_tournament(config(games=4, out=out), progress=False)
    before = snapshot(tmp_path)
    for other in (config(games=8, out=out), config(games=4, seed=9, out=out),
                  config(games=4, out=out, rules=get_rules("classic", target_score=500_000))):
        with pytest.raises(TournamentError, match="another tournament") as e:
            run_tournament(other, progress=False)
        assert e.value.field == "out"
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "draft.txt").write_text("mine")
    (tmp_path / "file").write_text("mine")
    before = snapshot(tmp_path)
    with pytest.raises(TournamentError, match="not this tournament's results"):
        run_tournament(config(games=4, out=tmp_path / "notes"), progress=False)
    with pytest.raises(TournamentError, match="is a file"):
        run_tournament(config(games=4, out=tmp_path / "file"), progress=False)
    assert snapshot(tmp_path) == before


def test_check_out_folder_accepts_new_and_empty(tmp_path):
    check_out_folder(config(out=tmp_path / "new" / "deeper"))
    (tmp_path / "empty").mkdir()
    check_out_folder(config(out=tmp_path / "empty"))
    assert not (tmp_path / "new").exists()


# -- configuration -----------------------------------------------------------------
@pytest.mark.parametrize("kw, field", [
    ({"rules": "clasic"}, "rules"),
    ({"agents": ["greedy", "nobody"]}, "agents"),
    ({"agents": []}, "agents"),
    ({"agents": ["greedy"] * 5}, "agents"),
    ({"n_players": 13}, "n_players"),
    ({"n_players": 1}, "n_players"),
    ({"rules": "basic", "n_players": 7}, "n_players"),
    ({"games": 0}, "games"),
    ({"games": 2.5}, "games"),
    ({"seed": -1}, "seed"),
    ({"engine": "fast"}, "engine"),
    ({"workers": 0}, "workers"),
    ({"chunk_size": 0}, "chunk_size"),
])
def test_config_refuses_bad_fields_naming_them(kw, field):
    with pytest.raises(TournamentError) as e:
        config(**kw)
    assert e.value.field == field
    assert field in str(e.value)


def test_config_accepts_preset_name_or_ruleset():
    assert config(rules="guide").rules.name == "guide"
    rs = get_rules("classic", end_condition="rounds:1")
    assert config(rules=rs).rules is rs
    assert config(agents="greedy").agents == ("greedy",)


def test_engine_falls_back_to_reference_only_when_batched_cannot_be_imported(monkeypatch):
    import cya_sim.tournament as tm

    assert resolve_engine("reference") == ("reference", "")
    real = tm.get_play_games

    def missing(name):
        if name == "batched":
            raise ImportError("No module named 'cya_sim.engine.batched'")
        return real(name)

    monkeypatch.setattr(tm, "get_play_games", missing)
    engine, note = resolve_engine("batched")
    assert engine == "reference" and "batched engine not available" in note


def test_fallback_is_recorded_in_result(monkeypatch):
    import cya_sim.tournament as tm

    real = tm.get_play_games

    def missing(name):
        if name == "batched":
            raise ImportError("not built yet")
        return real(name)

    monkeypatch.setattr(tm, "get_play_games", missing)
    r = run_tournament(config(games=2, engine="batched"), progress=False)
    assert r.engine == "reference" and "not built yet" in r.engine_note


def test_short_game_options_reach_the_engine():
    r = run_tournament(config(games=4, rules=get_rules("classic", end_condition="rounds:1")), progress=False)
    assert (r.table.rounds == 1).all()


@pytest.mark.slow
@pytest.mark.parametrize("rules, p", [("classic", 4), ("guide", 3), ("basic", 5)])
def test_batched_tournament_equals_reference_for_any_workers(rules, p):
    """Both engines, any workers and chunk sizes: the same games (needs the batched engine)."""
    if resolve_engine("batched")[0] != "batched":
        pytest.skip("the batched engine is not available")
    ref = run_tournament(config(rules=rules, n_players=p, games=60, workers=1, chunk_size=60), progress=False)
    one = run_tournament(config(rules=rules, n_players=p, games=60, engine="batched", workers=1, chunk_size=7),
                         progress=False)
    two = run_tournament(config(rules=rules, n_players=p, games=60, engine="batched", workers=2, chunk_size=11),
                         progress=False)
    assert one.engine == two.engine == "batched"
    assert ref.table.equals(one.table)
    assert ref.table.equals(two.table)
