"""``cya-sim leaderboard`` (issue 22): the board file, the line-ups, ratings (with an agent that never finishes
ahead), the quick board end to end, and one-line errors."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from cya_sim.cli.leaderboard import leaderboard_main
from cya_sim.reports.ratings import bradley_terry
from cya_sim.results.folder import load_games
from cya_sim.studies.leaderboard import (
    LeaderboardError,
    cell_experiment,
    circular_orders,
    lineups,
    load_board,
    parse_board,
    rate_cell,
)
from cya_sim.studies.tournament import game_table

BOARD = Path(__file__).resolve().parents[1] / "experiments" / "leaderboard.toml"


def test_lineups_are_pairs_at_two_players_and_connected_windows_beyond():
    assert len(lineups(5, 2)) == 10
    for k, p in ((11, 4), (11, 6), (4, 3), (6, 4)):
        lus = lineups(k, p)
        assert all(len(set(lu)) == p for lu in lus)
        seen = np.zeros((k, k), bool)
        for lu in lus:
            seen[np.ix_(lu, lu)] = True
        # every agent is linked to every other through the line-ups (a connected comparison graph)
        reach = seen.copy()
        for _ in range(k):
            reach = reach | (reach.astype(int) @ seen.astype(int) > 0)
        assert reach.all()
        assert len({tuple(sorted(lu)) for lu in lus}) == len(lus)


@pytest.mark.parametrize("p, n_orders", [(3, 2), (4, 6), (5, 24), (6, 20), (7, 720), (8, 42)])
def test_balanced_seating_puts_every_agent_at_every_distance_ahead_of_every_other_equally_often(p, n_orders):
    """The circular orders of a balanced line-up (module docstring of cya_sim.studies.leaderboard): each ordered
    pair of positions at each distance 1, ..., P - 1 equally often; with the run layer's rotations, each position in
    each seat equally often."""
    orders = circular_orders(p)
    assert len(orders) == n_orders and all(sorted(o) == list(range(p)) and o[0] == 0 for o in orders)
    assert orders[0] == list(range(p)) and len({tuple(o) for o in orders}) == n_orders
    count = np.zeros((p, p, p), int)  # [position, position d seats ahead, d]
    for o in orders:
        for s in range(p):
            for d in range(1, p):
                count[o[s], o[(s + d) % p], d] += 1
    off = ~np.eye(p, dtype=bool)
    assert len({int(c) for d in range(1, p) for c in count[:, :, d][off]}) == 1
    assert (count[np.arange(p), np.arange(p), :] == 0).all()


def test_balanced_seating_keeps_the_windows_sets_and_seats_each_in_every_order():
    for k, p in ((11, 4), (11, 6), (4, 3), (6, 6), (5, 2)):
        windows, balanced = lineups(k, p), lineups(k, p, "balanced")
        n = len(circular_orders(p))
        assert len(balanced) == n * len(windows)
        for i, w in enumerate(windows):  # the same sets, each in every order of circular_orders
            group = balanced[i * n:(i + 1) * n]
            assert all(sorted(lu) == sorted(w) for lu in group) and group == [[w[o] for o in c]
                                                                              for c in circular_orders(p)]
    with pytest.raises(ValueError, match="seating: give one of balanced, windows"):
        lineups(4, 3, "random")


@pytest.mark.parametrize("extra, message", [
    ({"seating": "random"}, "seating: give one of 'balanced', 'windows'; got 'random'"),
    ({"players": [2, 9], "seating": "balanced"}, "seating: 'balanced' has no design of at most 720 circular orders"),
])
def test_seating_is_checked_in_one_line(extra, message):
    doc = {"agents": [f"heuristic(cover_min={i * 5000})" for i in range(9)], "players": [2], "cycles": 1, **extra}
    with pytest.raises(LeaderboardError, match=message) as e:
        parse_board(doc)
    assert "\n" not in str(e.value)
    assert parse_board({**doc, "seating": "windows"}).seating == "windows"
    assert parse_board({"agents": ["greedy", "random", "card_counter"], "players": [3]}).seating == "balanced"


@pytest.mark.parametrize("seating", ["windows", "balanced"])
def test_two_copies_of_one_strategy_rate_equal_only_when_neighbours_are_balanced(tmp_path, seating):
    """greedy and the default heuristic play alike (one strategy). At 4 players with 4 agents, `windows` seats them
    between the same neighbours in every game, so the cell's games rate them apart; `balanced` seats the set in all
    6 circular orders on every duplicated deal, so each game has its twin with the two exchanged and the fit rates
    them exactly equal (the neighbour effect the windows put in a rating; docs/strategy.md)."""
    f = tmp_path / "b.toml"
    f.write_text(f'name = "t"\nseed = 5\nagents = ["greedy", "heuristic", "card_counter", "wild_hoarder"]\n'
                 f'players = [4]\ncycles = 30\nduplicate = true\nalias_deals = 0\nseating = "{seating}"\n')
    out = tmp_path / "o"
    assert leaderboard_main([str(f), "--out", str(out), "--quiet"]) == 0
    r = pd.read_csv(out / "ratings.csv").set_index("agent")
    assert r["cell_games"].iloc[0] == 30 * 4 * (6 if seating == "balanced" else 1)
    gap = abs(r.loc["heuristic", "rating"] - r.loc["greedy", "rating"])
    if seating == "balanced":
        assert gap < 1e-6 and r.loc["heuristic", "game_win_rate"] == r.loc["greedy", "game_win_rate"]
    else:
        assert gap > 5  # Elo; the windows' neighbour effect (seen: 67 Elo at 6 players on the classic board)
    assert ("Seating at 3 players and more: " + seating) in (out / "REPORT.md").read_text()


def test_the_plan_of_every_cell_is_printed_before_the_games_and_a_refused_board_prints_nothing(tmp_path, capsys):
    from cya_sim.studies.leaderboard import plan_lines

    lines = plan_lines(load_board(BOARD.parent / "champion_board_classic.toml"))
    assert lines[2] == ("classic 4p: 4 agents, 1 set x 6 orders x 4 rotations = 24 games a cycle, 417 cycles: "
                        "10,008 games (+ alias probe 480)")
    assert lines[3].startswith("classic 6p: 6 agents, 1 set x 20 orders x 6 rotations = 120 games a cycle")
    f = tmp_path / "b.toml"
    f.write_text('agents = ["greedy", "random", "card_counter"]\nplayers = [3]\ncycles = 1\n')
    assert leaderboard_main([str(f), "--out", str(tmp_path / "o")]) == 0
    out = capsys.readouterr().out
    assert "seating balanced" in out and "classic 3p: 3 agents, 1 set x 2 orders x 3 rotations = 6 games a cycle" in out
    f.write_text('agents = ["greedy", "nobody"]\nplayers = [2]\ncycles = 1\n')
    assert leaderboard_main([str(f), "--out", str(tmp_path / "p")]) == 2
    out, err = capsys.readouterr()
    assert out == "" and len(err.strip().splitlines()) == 1


def test_a_cell_folder_made_with_the_other_seating_is_refused_naming_it_and_nothing_is_printed(tmp_path, capsys):
    import json

    f = tmp_path / "b.toml"
    f.write_text('agents = ["greedy", "random", "card_counter"]\nplayers = [3]\ncycles = 2\nalias_deals = 0\n'
                 'seating = "windows"\n')
    out = tmp_path / "o"
    assert leaderboard_main([str(f), "--out", str(out), "--quiet"]) == 0
    assert json.loads((out / "result.json").read_text())["seating"] == "windows"
    before = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    capsys.readouterr()
    f.write_text(f.read_text().replace("windows", "balanced"))
    assert leaderboard_main([str(f), "--out", str(out)]) == 2
    o, err = capsys.readouterr()
    assert o == "" and len(err.strip().splitlines()) == 1
    assert "made with seating = 'windows', and this board has seating = 'balanced'" in err
    assert {p: p.read_bytes() for p in out.rglob("*") if p.is_file()} == before


def test_the_committed_board_parses():
    b = load_board(BOARD)
    assert b.players == (2, 4, 6) and b.presets == ("classic", "advanced") and len(b.agents) == 11
    assert b.cell_agents("classic", 2)[-1] == "agents.learned_models.classic_2p:decide"
    assert b.cell_agents("advanced", 2) == b.agents and not b.duplicate
    q = load_board(BOARD, quick=True)
    assert q.players == (2, 3) and q.cycles == {2: 4, 3: 3} and not q.agents_by_cell


def test_quick_board_end_to_end(tmp_path):
    b = load_board(BOARD, quick=True, overrides={"out": str(tmp_path / "lb")})
    assert leaderboard_main([str(BOARD), "--quick", "--out", str(tmp_path / "lb"), "--quiet"]) == 0
    r = pd.read_csv(tmp_path / "lb" / "ratings.csv")
    assert set(zip(r["preset"], r["players"], strict=True)) == {("classic", 2), ("classic", 3)}
    assert (r.loc[r["agent"] == "greedy", "rating"] == 0).all()
    for f in ("REPORT.md", "leaderboard.png", "result.json"):
        assert (tmp_path / "lb" / f).exists()
    md = (tmp_path / "lb" / "REPORT.md").read_text(encoding="utf-8")
    assert "| -0 " not in md and "| -0 (" not in md  # a rating of -1.5e-10 reads 0 (a new user's finding)
    assert "never won" not in md.split("| `greedy` |")[2].split("\n")[0]  # greedy wins beside random: finite
    # the 2-player cell's ratings are bradley_terry on its games with the deal as the unit
    games = load_games(tmp_path / "lb" / "cells" / "classic-2p")
    t = game_table(games, list(b.agents))
    t.game_index = games["deal"].to_numpy(np.int64)
    mine = rate_cell(games, b.agents).set_index("agent")
    if not mine["note"].iloc[0]:
        want = bradley_terry(t, list(b.agents)).set_index("agent")
        assert mine["rating_se"].to_numpy() == pytest.approx(want["rating_se"].to_numpy())
    # rerunning resumes: nothing is replayed and the table is the same
    assert leaderboard_main([str(BOARD), "--quick", "--out", str(tmp_path / "lb"), "--quiet"]) == 0
    pd.testing.assert_frame_equal(r, pd.read_csv(tmp_path / "lb" / "ratings.csv"))


def test_an_agent_that_never_finishes_ahead_is_set_aside():
    # 3 agents, 2 seats; agent 2 loses every comparison, 0 and 1 split
    rows = []
    for d in range(20):
        rows += [(d, 0, 1, 10 + d % 2, 10 + (d + 1) % 2), (d, 0, 2, 5, 1), (d, 1, 2, 5, 1)]
    games = pd.DataFrame(rows, columns=["deal", "a0", "a1", "t0", "t1"])
    names = ["x", "y", "z"]
    df = pd.DataFrame({"game": np.arange(len(games)), "deal": games["deal"], "players": 2, "first_dealer": 0,
                       "seat_0_agent": [names[i] for i in games["a0"]], "seat_1_agent": [names[i] for i in games["a1"]],
                       "seat_0_total": games["t0"], "seat_1_total": games["t1"],
                       "seat_0_win_share": (games["t0"] > games["t1"]).astype(float),
                       "seat_1_win_share": (games["t1"] > games["t0"]).astype(float),
                       **{k: 1 for k in ("rounds", "turns", "challenges", "decisions", "largest_steal")}})
    r = rate_cell(df, names).set_index("agent")
    assert np.isnan(r.loc["z", "rating"]) and r.loc["y", "rating"] == pytest.approx(0.0, abs=1e-6)
    assert "z: never finished ahead" in r["note"].iloc[0]


@pytest.mark.parametrize("doc, message", [
    ({"agents": []}, "non-empty list"),
    ({"agents": ["greedy"]}, "at least two"),
    ({"agents": ["greedy", "greedy"]}, "given twice"),
    ({"agents": ["greedy", "random"], "players": [4]}, "only 2 agents"),
    ({"agents": ["greedy", "random"], "players": [2], "cycles": 0}, "cycles.2"),
    ({"agents": ["greedy", "random"], "players": [2], "cycles": 1, "duplicate": True}, "sampling unit"),
    ({"agents": ["greedy", "random"], "players": [2], "agents_by_cell": {"classic-4p": ["card_counter"]}},
     "not a cell"),
    ({"agents": ["greedy", "random"], "players": [2], "agents_by_cell": {"classic-2p": ["greedy"]}}, "already"),
    ({"agents": ["greedy", "random"], "bogus": 1}, "unknown key 'bogus'"),
    ({"agents": ["greedy", "random"], "presets": ["classic", "advanced"], "players": [3],
      "agents_by_cell": {"classic-3p": ["card_counter"]}}, "players: 3 seats but only 2 agents in cell advanced-3p"),
])
def test_board_refusals(doc, message):
    with pytest.raises(LeaderboardError, match=message):
        parse_board(doc)


def test_a_cells_own_agents_count_toward_its_seats():
    """A 3-seat cell of a 2-agent board is accepted when the cell adds a third agent (its line-up: all three)."""
    b = parse_board({"agents": ["greedy", "random"], "players": [2, 3],
                     "agents_by_cell": {"classic-3p": ["card_counter"]}})
    assert b.cell_agents("classic", 3) == ("greedy", "random", "card_counter")
    assert cell_experiment(b, "classic", 3).design.tables == (("greedy", "random", "card_counter"),
                                                              ("greedy", "card_counter", "random"))  # balanced


def test_cli_refuses_an_unknown_agent_in_one_line(tmp_path, capsys):
    f = tmp_path / "b.toml"
    f.write_text('agents = ["greedy", "grredy"]\nplayers = [2]\ncycles = 1\n')
    assert leaderboard_main([str(f), "--out", str(tmp_path / "o"), "--quiet"]) == 2
    err = capsys.readouterr().err.strip()
    assert "grredy" in err and "\n" not in err
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("extra, message", [
    ({"out": 5}, "out: give a folder path as a string; got 5"),
    ({"quick": "x"}, "quick: give a table of board keys"),
    ({"quick": {"player": [2]}}, "quick.player: unknown key of \\[quick\\]; allowed: name, description"),
    ({"quick": {"players": [3]}}, "quick: the \\[quick\\] form is refused: players: 3 seats but only 2 agents"),
    ({"quick": {"cycles": "many"}}, "quick: the \\[quick\\] form is refused: cycles: give an integer"),
    ({"name": 3}, "name: give a non-empty string"),
    ({"description": ["x"]}, "description: give a string"),
    ({"agents": ["greedy", 7]}, "agents: every entry must be an agent spec string"),
    ({"presets": ["classic", "classic"]}, "presets: 'classic' is given twice"),
    ({"players": True}, "players: give table sizes from 2 to 64"),
    ({"players": [2, 2]}, "players: 2 is given twice"),
    ({"players": [2], "cycles": {"two": 3}}, "cycles.two: not a table size"),
    ({"players": [2], "cycles": 10**400}, "cycles.2: .* got an integer of about 401 digits"),
    ({"players": [2], "cycles": 2.5}, "cycles: give an integer >= 1"),
    ({"seed": 10**5000}, "seed: give an integer from 0 to 9,223,372,036,854,775,807; got an integer of about 5,001 digits"),
    ({"seed": -1}, "seed: give an integer from 0"),
    ({"workers": 0}, "workers: give an integer from 1 to 1,024"),
    ({"duplicate": "yes"}, "duplicate: give true or false; got 'yes'"),
])
def test_every_board_field_is_checked_by_type_and_range_with_a_one_line_message(extra, message):
    doc = {"agents": ["greedy", "random"], "players": [2], "cycles": 1, **extra}
    with pytest.raises(LeaderboardError, match=message) as e:
        parse_board(doc)
    assert "\n" not in str(e.value)


def test_a_valid_quick_table_is_still_checked_but_the_full_board_is_what_runs():
    doc = {"agents": ["greedy", "random", "card_counter"], "players": [2, 3], "cycles": {"2": 2, "3": 1},
           "quick": {"players": [2], "cycles": 1, "out": "q"}}
    full, small = parse_board(doc), parse_board(doc, quick=True)
    assert full.players == (2, 3) and full.cycles == {2: 2, 3: 1}
    assert small.players == (2,) and small.cycles == {2: 1} and small.out == Path("q")


@pytest.mark.parametrize("text, message", [
    ('agents = ["greedy", "random"]\nout = 5\n', "out: give a folder path as a string; got 5"),
    ('agents = ["greedy", "random"]\nquick = "x"\n', "quick: give a table"),
    ('agents = ["greedy", "random"]\nplayers = [2]\n[quick]\ncycle = 1\n', "quick.cycle: unknown key"),
    ('agents = ["greedy", "random"]\nseed = ' + "9" * 4400 + "\n", "an integer of more than 4,300 digits"),
])
def test_cli_refuses_a_bad_board_file_in_one_line_before_playing(tmp_path, capsys, text, message):
    f = tmp_path / "b.toml"
    f.write_text(text)
    assert leaderboard_main([str(f), "--out", str(tmp_path / "o"), "--quiet"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("cya-sim leaderboard: error: ") and "\n" not in err and len(err) < 400
    assert __import__("re").search(message, err), err
    assert not (tmp_path / "o").exists()


def _play_cell(tmp_path, agents, cycles=6):
    from cya_sim.runs.runner import run_experiment
    from cya_sim.studies.leaderboard import cell_experiment

    board = parse_board({"agents": agents, "players": [2], "cycles": cycles, "seed": 5, "out": str(tmp_path / "lb")})
    exp = cell_experiment(board, "classic", 2)
    run_experiment(exp, progress=False)
    return load_games(exp.out), list(exp.agents)


def test_random_as_anchor_never_wins_at_two_players_and_the_others_keep_the_fit_without_it(tmp_path):
    games, agents = _play_cell(tmp_path, ["random", "greedy", "card_counter"])
    r = rate_cell(games, agents).set_index("agent")
    seat = games[["seat_0_agent", "seat_1_agent"]].to_numpy()
    with_random = (seat == "random").any(axis=1)
    assert games.loc[with_random, "seat_0_win_share"].where(seat[with_random, 0] == "random",
                                                            games.loc[with_random, "seat_1_win_share"]).sum() == 0
    assert np.isnan(r.loc["random", "rating"]) and r.loc["random", "rating_bound"] == "-inf"
    # the others: finite, and exactly the Bradley–Terry fit of the games without random, greedy the anchor
    rest = games[~with_random].astype({"seat_0_agent": str, "seat_1_agent": str})
    t = game_table(rest, ["greedy", "card_counter"])
    t.game_index = rest["deal"].to_numpy(np.int64)
    want = bradley_terry(t, ["greedy", "card_counter"]).set_index("agent")
    assert np.isfinite(r.loc[["greedy", "card_counter"], "rating"]).all()
    for col in ("rating", "rating_se", "rating_ci_low", "rating_ci_high"):
        assert r.loc[["greedy", "card_counter"], col].to_numpy() == pytest.approx(want[col].to_numpy())
    assert r.loc["greedy", "rating"] == 0.0
    note = r["note"].iloc[0]
    assert "random: never finished ahead" in note and f"without random (in {len(rest):,} games)" in note
    assert "anchor greedy = 0 (the board's anchor random is set aside)" in note


def _mm_ratings(wins: np.ndarray, iterations: int = 20_000) -> np.ndarray:
    """Bradley–Terry by Hunter's (2004) MM algorithm from a (K, K) matrix of wins, Elo, first agent 0: an
    independent fit to check the GLM's."""
    k = wins.shape[0]
    n = wins + wins.T
    g = np.ones(k)
    for _ in range(iterations):
        g = wins.sum(axis=1) / np.array([sum(n[i, j] / (g[i] + g[j]) for j in range(k) if j != i) for i in range(k)])
        g /= g[0]
    return 400 * np.log10(g)


def test_an_agent_set_aside_at_three_players_keeps_the_others_comparisons_in_its_games(tmp_path):
    """random never wins; greedy wins only in games random sits in. Set aside, random's comparisons go and the
    others' stay (the limit of the fit as random's rating goes to -inf): greedy keeps a finite win-based rating,
    equal to an independent MM fit of the pairs without random (before, greedy's games with random were dropped
    whole and it was shown 'never won' beside its wins)."""
    from cya_sim.reports.comparisons import ahead_counts

    agents = ["greedy", "random", "card_counter", "heuristic(count=true)"]
    board = parse_board({"agents": agents, "players": [3], "cycles": 3, "seed": 2027, "out": str(tmp_path / "lb"),
                         "seating": "windows"})
    from cya_sim.runs.runner import run_experiment

    exp = cell_experiment(board, "classic", 3)
    run_experiment(exp, progress=False)
    games = load_games(exp.out)
    r = rate_cell(games, list(exp.agents)).set_index("agent")
    assert r.loc["random", "win_rating_bound"] == "-inf"
    assert np.isfinite(r.loc[["greedy", "card_counter", "heuristic(count=true)"], "win_rating"]).all()
    t = game_table(games.astype({f"seat_{s}_agent": str for s in range(3)}), list(exp.agents))
    for order, pre in (("total", ""), ("win", "win_")):
        ahead, ties = ahead_counts(t, 4, order)
        w = (ahead + ties / 2.0)[np.ix_([0, 2, 3], [0, 2, 3])]  # every comparison without random
        assert r.loc[["greedy", "card_counter", "heuristic(count=true)"], pre + "rating"].to_numpy() == pytest.approx(
            _mm_ratings(w), abs=1e-3)
    rest = ~(games[[f"seat_{s}_agent" for s in range(3)]].astype(str) == "random").any(axis=1)
    greedy_wins_without_random = sum(((games[f"seat_{s}_agent"].astype(str) == "greedy")
                                      & (games[f"seat_{s}_win_share"] > 0) & rest).sum() for s in range(3))
    assert greedy_wins_without_random == 0  # the case the old rule got wrong: all of greedy's wins are beside random


def test_two_agents_where_one_never_wins_get_bounds_not_nan_everywhere_unexplained(tmp_path):
    from cya_sim.studies.leaderboard import BoardResult, report_markdown

    games, agents = _play_cell(tmp_path, ["greedy", "random"], cycles=3)
    r = rate_cell(games, agents).set_index("agent")
    assert r.loc["random", "rating_bound"] == "-inf" and r.loc["greedy", "rating_bound"] == "+inf"
    assert "fewer than two agents are left to rate" in r["note"].iloc[0]
    board = parse_board({"agents": agents, "players": [2], "cycles": 3})
    rt = r.reset_index().assign(preset="classic", players=2, cell_games=len(games))
    md = report_markdown(board, BoardResult(rt, 0.0))
    assert "| `random` | −∞ (never ahead) |" in md and "| `greedy` | +∞ (never behind) |" in md


def test_a_learned_model_in_a_cell_it_was_not_trained_for_is_refused_before_any_game(tmp_path, capsys):
    f = tmp_path / "b.toml"
    f.write_text('agents = ["greedy", "random", "card_counter"]\nplayers = [2, 3]\ncycles = 1\n'
                 '[agents_by_cell]\nclassic-3p = ["agents.learned_models.classic_2p:decide"]\n')
    assert leaderboard_main([str(f), "--out", str(tmp_path / "o"), "--quiet"]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "agents.learned_models.classic_2p:decide" in err
    assert "trained for rules classic" in err and "3 players (other table size)" in err
    assert not (tmp_path / "o").exists()


def test_the_full_board_is_checked_when_the_quick_form_runs():
    doc = {"agents": ["greedy", "random", "card_counter"], "players": "x", "quick": {"players": [2], "cycles": 1}}
    with pytest.raises(LeaderboardError, match=r"^the full board \(without \[quick\]\) is refused: players: give"):
        parse_board(doc, quick=True)


def test_the_figure_shares_one_axis_clips_an_outlier_with_its_value_and_marks_what_is_missing():
    """random at -1,044 Elo squashed every other panel: one axis for all panels, random at the edge with its
    rating printed, -inf for an agent never ahead, 'not in this cell' for an agent a cell does not hold, and a
    key for a long spec; every text at least 8 pt inside the figure."""
    import sys

    from cya_sim.studies.leaderboard import figure

    sys.path.insert(0, str(Path(__file__).parent))
    from test_console_and_plots import check_figure

    long = "heuristic(cover_min=70000, pair_first=false, count=true, save_wild=true, wild_first=true)"
    board = parse_board({"agents": ["greedy", "random", "card_counter", long], "presets": ["classic"],
                         "players": [2, 3], "cycles": 1, "agents_by_cell": {"classic-2p": ["pimc(iterations=50)"]}})
    rows = []
    for p, random_rating in ((2, np.nan), (3, -1044.0)):
        agents = board.cell_agents("classic", p)
        for a, r in zip(agents, (0.0, random_rating, 120.0, -60.0, 30.0)):
            rows.append({"preset": "classic", "players": p, "agent": a, "rating": r, "rating_se": 40.0,
                         "rating_ci_low": r - 80, "rating_ci_high": r + 80,
                         "rating_bound": "-inf" if a == "random" and p == 2 else "", "cell_games": 100,
                         "note": ""})
    fig = figure(board, pd.DataFrame(rows))
    check_figure(fig)
    axes = [ax for ax in fig.axes if ax.get_title()]
    assert len(axes) == 2 and len({ax.get_xlim() for ax in axes}) == 1
    lo, hi = axes[0].get_xlim()
    assert -300 < lo < -140 and 200 < hi < 300  # the others' intervals, not random's -1,044
    texts = [[t.get_text() for t in ax.texts] for ax in axes]
    assert "−∞ (never ahead)" in texts[0] and "-1044 [-1124, -964]" in texts[1]
    assert "not in this cell" in texts[1]  # pimc plays only at 2 players
    labels = [t.get_text() for t in axes[0].get_yticklabels()]
    assert "heuristic [a]" in labels and any(t.get_text() == f"[a] {long}" for t in fig.findobj(
        __import__("matplotlib.text", fromlist=["Text"]).Text))


def test_alias_deals_is_checked_and_zero_plays_no_probe():
    with pytest.raises(LeaderboardError, match="alias_deals: give an integer from 0 to 1,000,000; got -1"):
        parse_board({"agents": ["greedy", "random"], "players": [2], "cycles": 1, "alias_deals": -1})
    from cya_sim.studies.leaderboard import alias_probe

    b = parse_board({"agents": ["greedy", "random"], "players": [2], "cycles": 1, "alias_deals": 0})
    assert alias_probe(b, "classic", 2) is None
    assert parse_board({"agents": ["greedy", "random"], "players": [2], "cycles": 1}).alias_deals == 30


def test_a_board_reports_both_ratings_the_head_to_head_the_alias_once_and_the_games_to_resolve_25_elo(tmp_path):
    """A 3-player board of duplicated deals with greedy and the default heuristic (one strategy): the heuristic is
    found by the probe and rated as greedy; the win-based rating and every pair's difference are those of
    board_analysis.differences / bradley_terry on the cell's games with the heuristic's seats given to greedy."""
    import json

    from cya_sim.studies.board_analysis import differences, resolution

    f = tmp_path / "b.toml"
    f.write_text('name = "t"\nseed = 9\nagents = ["greedy", "card_counter", "heuristic", "wild_hoarder"]\n'
                 'players = [3]\ncycles = 12\nduplicate = true\nalias_deals = 6\n')
    out = tmp_path / "o"
    assert leaderboard_main([str(f), "--out", str(out), "--quiet"]) == 0
    r = pd.read_csv(out / "ratings.csv", keep_default_na=False, na_values=[""])
    r = r.set_index("agent")
    old = ["preset", "players", "rating", "rating_se", "rating_ci_low", "rating_ci_high", "rating_bound", "games",
           "deals", "game_win_rate", "game_win_rate_ci_low", "game_win_rate_ci_high", "game_win_rate_fair", "note",
           "cell_games"]
    assert list(r.columns[:len(old)]) == old  # the columns of before come first, in their order
    assert r.loc["heuristic", "alias_of"] == "greedy" and np.isnan(r.loc["heuristic", "rating"])
    assert np.isnan(r.loc["heuristic", "win_rating"]) and r["alias_of"].fillna("").tolist().count("greedy") == 1
    # the expected fits: the cell's games, deal as unit, heuristic's seats given to greedy, heuristic dropped
    games = load_games(out / "cells" / "classic-3p")
    kept = ["greedy", "card_counter", "wild_hoarder"]
    seats = {f"seat_{s}_agent": games[f"seat_{s}_agent"].astype(str).replace("heuristic", "greedy") for s in range(3)}
    t = game_table(games.assign(**seats), kept)
    t.game_index = games["deal"].to_numpy(np.int64)
    for order, pre in (("total", ""), ("win", "win_")):
        want = bradley_terry(t, kept, order=order).set_index("agent")
        for col in ("rating", "rating_se", "rating_ci_low", "rating_ci_high"):
            assert r.loc[kept, pre + col].to_numpy(float) == pytest.approx(want[col].to_numpy(), abs=1e-9)
        d = differences(t, kept, order=order)
        assert r.loc["card_counter", pre + "rating"] == pytest.approx(
            -d.loc[(d["agent"] == "greedy") & (d["versus"] == "card_counter"), "difference"].item())
    assert not np.allclose(r.loc[kept, "win_rating"], r.loc[kept, "rating"])  # at 3 players they differ
    h = pd.read_csv(out / "head_to_head.csv")
    assert list(h.columns[:3]) == ["preset", "players", "order"] and "heuristic" not in set(h["agent"]) | set(h["versus"])
    for order in ("total", "win"):
        d = differences(t, kept, order=order)
        mine = h[h["order"] == order].reset_index(drop=True)
        assert list(zip(mine["agent"], mine["versus"])) == list(zip(d["agent"], d["versus"]))
        for col in ("difference", "low", "high", "units_for_delta"):
            assert mine[col].to_numpy() == pytest.approx(d[col].to_numpy())
        assert (mine["games_for_delta"] == np.ceil(mine["units_for_delta"] * len(games) / 12)).all()
    res = json.loads((out / "result.json").read_text())
    x = res["aliases"]["classic-3p"][0]
    assert x["alias"] == "heuristic" and x["representative"] == "greedy" and x["pairs_compared"] >= 6 * 3
    assert x["unmerged_low"] <= x["unmerged_difference"] <= x["unmerged_high"]  # the two rated apart, for the record
    assert res["resolve_25_elo"]["classic-3p"]["total"]["max_units"] == resolution(
        differences(t, kept))["max_units"]
    md = (out / "REPORT.md").read_text()
    for label in ("**Finishing-order rating**", "**Win-based rating**", "wins only", "## Head to head",
                  "## Resolution: 25 Elo", "- classic 3p: `heuristic` plays as `greedy`"):
        assert label in md
    assert "| `heuristic` | alias |\n" in md and md.count("plays as `") == 1
