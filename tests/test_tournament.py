"""Flags-only tournaments: seat rotation, determinism across workers and chunks, one run pipeline with experiments."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from cya_sim.game.rules import get_rules
from cya_sim.reports.stats import SUMMARY_COLUMNS
from cya_sim.results.folder import CHUNKS, GAMES_DIR, MANIFEST, RUNS, load_games, read_manifest, read_runs
from cya_sim.runs.experiment import resolve_engine
from cya_sim.runs.schedule import Schedule, plan_chunks
from cya_sim.studies.tournament import (
    TournamentConfig,
    TournamentError,
    check_out_folder,
    lineup_of,
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
    parts = np.concatenate([seat_assignment(lineup, np.arange(a, b))
                            for a, b in plan_chunks(Schedule((4,), 20, False, ()), 7)])
    assert np.array_equal(whole, parts)


def test_the_experiment_of_a_tournament_seats_and_deals_every_game_like_seat_assignment():
    cfg = config(agents=["greedy", "random", "random"], games=12)
    exp = cfg.experiment()
    names, lineup = lineup_of(cfg.agents, cfg.n_players)
    assert exp.agents == names and exp.design.kind == "explicit" and exp.players == (4,)
    g = Schedule.of(exp).games_of(0, 12)
    assert np.array_equal(g["seat_agent"], seat_assignment(lineup, np.arange(12)))
    assert np.array_equal(g["deal"], np.arange(12))


def test_plan_chunks_cover_every_game_once():
    for games, size in [(1, 1), (10, 3), (10, 10), (10, 100), (1000, 7)]:
        chunks = plan_chunks(Schedule((4,), games, False, ()), size)
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


# -- output files: the experiment folder layout -------------------------------------
def test_output_folder_is_an_experiment_results_folder(tmp_path):
    out = tmp_path / "res"
    r = run_tournament(config(games=8, out=out), progress=False, command="cya-sim tournament --games 8")
    names = {p.name for p in out.iterdir()}
    assert {MANIFEST, GAMES_DIR, CHUNKS, RUNS, "REPORT.md", "summary.csv", "win_rates.png"} <= names
    assert set(r.files) <= {out / n for n in names} and out / "REPORT.md" in r.files
    assert sorted(p.name for p in (out / GAMES_DIR).iterdir()) == ["chunk-000000.parquet"]

    games = load_games(out)
    p = 4
    assert games["game"].tolist() == list(range(8)) and games["deal"].tolist() == list(range(8))
    assert "capped" in games.columns and not games["capped"].any()  # the round cap (max_rounds) flag
    assert games.loc[0, [f"seat_{s}_agent" for s in range(p)]].tolist() == ["greedy", "random", "greedy", "random"]
    assert games.loc[1, [f"seat_{s}_agent" for s in range(p)]].tolist() == ["random", "greedy", "random", "greedy"]
    assert np.array_equal(games[[f"seat_{s}_total" for s in range(p)]].to_numpy(), r.table.totals)
    assert r.table.equals(run_tournament(config(games=8), progress=False).table)  # same games as in memory

    summary = pd.read_csv(out / "summary.csv")
    assert tuple(r.summary.columns) == SUMMARY_COLUMNS
    assert summary["agent"].tolist() == ["greedy", "random"]
    assert summary["seat_games"].tolist() == [16, 16] and summary["games"].tolist() == [8, 8]
    assert summary["wins"].sum() == pytest.approx(8.0)
    for key in ("seat_share", "game_win_rate"):
        assert (summary[f"{key}_ci_low"] <= summary[key]).all()
        assert (summary[key] <= summary[f"{key}_ci_high"]).all()
    # two seats of four each: per-game win rate = 2 x per-seat share; fair values 1/2 and 1/4
    assert summary["game_win_rate"].to_numpy() == pytest.approx(2 * summary["seat_share"].to_numpy())
    assert summary["game_win_rate_fair"].tolist() == [0.5, 0.5] and summary["seat_share_fair"].tolist() == [0.25, 0.25]
    assert (out / "win_rates.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    m = read_manifest(out)
    assert m["experiment"]["games"] == 8 and m["seed"] == 3 and m["experiment"]["design"]["kind"] == "explicit"
    runs = read_runs(out)
    assert [x["status"] for x in runs] == ["finished"] and runs[0]["engine"] == "reference"
    assert runs[0]["command"] == "cya-sim tournament --games 8"


def test_out_none_writes_nothing(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    r = run_tournament(config(games=2, out=None), progress=False)
    assert r.files == () and list(tmp_path.iterdir()) == []


def test_rerun_same_tournament_into_same_folder_gives_identical_files(tmp_path):
    out = tmp_path / "res"
    r = run_tournament(config(games=4, out=out), progress=False)
    before = load_games(out)
    again = run_tournament(config(games=4, out=out), progress=False)  # a resume with nothing to play
    pd.testing.assert_frame_equal(before, load_games(out))
    assert again.table.equals(r.table) and [x["chunks_played"] for x in read_runs(out)] == [1, 0]
    with pytest.raises(TournamentError, match="uses 4") as e:  # another chunk size would change the files
        run_tournament(config(games=4, out=out, chunk_size=1), progress=False)
    assert e.value.field == "chunk_size"


def test_folder_of_another_tournament_or_other_files_is_refused_and_kept(tmp_path):
    out = tmp_path / "res"
    run_tournament(config(games=4, out=out), progress=False)
    before = snapshot(tmp_path)
    for other in (config(games=8, out=out), config(games=4, seed=9, out=out),
                  config(games=4, out=out, rules=get_rules("classic", target_score=500_000))):
        with pytest.raises(TournamentError, match="another experiment") as e:
            run_tournament(other, progress=False)
        assert e.value.field == "out"
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "draft.txt").write_text("mine")
    (tmp_path / "file").write_text("mine")
    before = snapshot(tmp_path)
    with pytest.raises(TournamentError, match="not cya-sim results"):
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
    import cya_sim.play as eng

    assert config().run_engine == "reference" and config(engine="batched").run_engine == "auto"
    assert resolve_engine("reference") == ("reference", "")
    real = eng.get_play_games

    def missing(name):
        if name == "batched":
            raise ImportError("not built yet")
        return real(name)

    monkeypatch.setattr(eng, "get_play_games", missing)
    engine, note = resolve_engine(config(engine="batched").run_engine)
    assert engine == "reference" and "not available" in note
    r = run_tournament(config(games=2, engine="batched"), progress=False)
    assert r.engine == "reference" and "not available" in r.engine_note


def test_short_game_options_reach_the_engine():
    r = run_tournament(config(games=4, rules=get_rules("classic", end_condition="rounds:1")), progress=False)
    assert (r.table.rounds == 1).all()


@pytest.mark.slow
@pytest.mark.parametrize("rules, p", [("classic", 4), ("guide", 3), ("basic", 5)])
def test_batched_tournament_equals_reference_for_any_workers(rules, p):
    """Both engines, any workers and chunk sizes: the same games (needs the batched engine)."""
    if resolve_engine("auto")[0] != "batched":
        pytest.skip("the batched engine is not available")
    ref = run_tournament(config(rules=rules, n_players=p, games=60, workers=1, chunk_size=60), progress=False)
    one = run_tournament(config(rules=rules, n_players=p, games=60, engine="batched", workers=1, chunk_size=7),
                         progress=False)
    two = run_tournament(config(rules=rules, n_players=p, games=60, engine="batched", workers=2, chunk_size=11),
                         progress=False)
    assert one.engine == two.engine == "batched"
    assert ref.table.equals(one.table)
    assert ref.table.equals(two.table)
