"""A leaderboard cell's extra analyses (cya_sim.studies.board_analysis): the alias probe finds greedy and the default
heuristic to be one strategy and nothing else; merged seats are one agent; differences and resolution."""

from __future__ import annotations

import numpy as np
import pytest

from cya_sim.results.folder import load_games
from cya_sim.runs.runner import run_experiment
from cya_sim.studies.board_analysis import alias_probe_experiment, differences, merge_aliases, probe_aliases, resolution


@pytest.mark.parametrize("preset, players", [("classic", 4), ("advanced", 3)])
def test_the_alias_probe_finds_greedy_and_default_heuristic_to_be_one_strategy(tmp_path, preset, players):
    agents = ["greedy", "card_counter", "heuristic", "random", "heuristic(count=true)"]
    exp = alias_probe_experiment("board", 5, tmp_path / "probe", preset, players, agents, deals=12)
    run_experiment(exp, progress=False)
    games = load_games(exp.out)
    assert len(games) == 12 * len(agents) * players
    found = probe_aliases(games, agents, players)
    assert [(agents[a], agents[b]) for a, b, _n in found] == [("greedy", "heuristic")]
    assert found[0][2] >= 12 * players  # every deal in every rotation compared (more: the anchor's own rotations)


def test_merged_aliases_are_one_agent_in_the_table():
    from tests.test_analysis import table

    t = table([[0, 1, 2], [2, 0, 1]], [[3, 2, 1], [1, 2, 3]])
    m = merge_aliases(t, [(0, 2, 5)])
    assert np.asarray(m.seat_agent).tolist() == [[0, 1, 0], [0, 0, 1]]
    np.testing.assert_array_equal(m.totals, t.totals)


def test_differences_name_every_pair_and_the_hardest_one_to_resolve():
    from tests.test_analysis import table

    rng = np.random.default_rng(2)
    sa = np.array([rng.permutation(3) for _ in range(600)])
    tot = ((np.array([0.0, 0.4, 0.1])[sa] + rng.gumbel(size=sa.shape)) * 1000).astype(np.int64)
    d = differences(table(sa, tot), ["A", "B", "C"])
    assert list(zip(d["agent"], d["versus"], strict=True)) == [("A", "B"), ("A", "C"), ("B", "C")]
    assert (d["low"] < d["difference"]).all() and (d["difference"] < d["high"]).all()
    r = resolution(d)
    assert r["pairs"] == 3 and r["max_units"] == d["units_for_delta"].max()
    assert r["hardest"] in {"A vs B", "A vs C", "B vs C"} and r["median_units"] <= r["max_units"]
    w = differences(table(sa, tot), ["A", "B", "C"], order="win")
    assert (w["order"] == "win").all() and not np.allclose(w["difference"], d["difference"])
