"""``cya-sim rules theft`` and ``cya-sim play --rules theft``: the options, a complete game log checked line by
line against RULES.md §9 by an independent reader, a pinned playthrough, and refused input (exit 2, one line)."""

from __future__ import annotations

from pathlib import Path

import pytest
from theft_log_check import check_log

from cya_sim.cli.main import main
from cya_sim.game.rules import get_rules

PLAYTHROUGH = Path(__file__).parent / "positions" / "theft_playthrough_seed1.txt"
DONE_WHEN = ["play", "--rules", "theft", "--players", "4", "--agents", "greedy,random", "--seed", "1"]


def test_rules_theft_lists_every_option_with_its_default(capsys):
    assert main(["rules", "theft"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("rules theft (game family theft, RULES.md §9, seed 003)")
    for name, value in get_rules("theft").to_dict().items():
        if name not in ("name", "family"):
            assert f"  {name} " in out and str(value) in out.split(f"  {name} ")[1].split("\n")[0]
    assert "end_of_turn                  discard_down" in out and "deck: 112 cards" in out


def test_play_theft_prints_a_game_every_line_checked_against_section_9(capsys):
    """The issue's command: a complete game whose every line the independent reader accepts (R-T-SETUP,
    R-T-TURN, R-T-END), identical to the pinned playthrough."""
    assert main(DONE_WHEN) == 0
    out = capsys.readouterr().out
    summary = check_log(out.splitlines())
    assert summary["players"] == 4 and summary["turns"] >= 4
    assert out == PLAYTHROUGH.read_text(encoding="utf-8"), "the game changed; regenerate the playthrough if meant"


@pytest.mark.parametrize("seed", range(2, 14))
def test_play_theft_many_seeds_and_agents_checked(seed, capsys):
    """Every line of games at 2–6 players, all three agents, is accepted by the independent reader."""
    players = 2 + seed % 5
    names = ["greedy", "random", "defender"]
    agents = ",".join((names[seed % 3:] + names[: seed % 3])[: min(players, 3)])
    assert main(["play", "--rules", "theft", "--players", str(players), "--agents", agents, "--seed", str(seed)]) == 0
    check_log(capsys.readouterr().out.splitlines())


@pytest.mark.parametrize(("argv", "expected"), [
    (["play", "--rules", "theft", "--agents", "mcts"], ("--agents: unknown agent 'mcts'; choose one of: random, "
                                                       "greedy, defender, ismcts, pimc")),
    (["play", "--rules", "theft", "--agents", "ismcts(iterations=0)"], ("--agents: iterations 0: give an integer from 1 "
                                                                        "to 10,000,000 (or time_s in seconds)")),
    (["tournament", "--rules", "theft", "--agents", "pimc(rollout='oracle')"], ("--agents: rollout 'oracle' is not "
                                                                               "known; choose one of: random, greedy, "
                                                                               "defender")),
    (["play", "--rules", "theft", "--deck", "x.toml"], "--deck: rules 'theft' have their own deck"),
    (["play", "--rules", "theft", "--option", "end_of_turn=never"], ("--option: option 'end_of_turn' is 'never'; "
                                                                     "choose one of: discard_down, discard_and_draw_up, "
                                                                     "keep")),
    (["rules", "theft", "--option", "hand_size=4", "--option", "challenge_draw_order=mover_first"],
     "--option: unknown rule option 'challenge_draw_order'; choose from: numbers,"),
    (["play", "--rules", "theft", "--players", "7"], "--players: 7; rules 'theft' allow 2 to 6"),
])
def test_refused_one_line_exit_2(argv, expected, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and expected in err, err


def test_tournament_theft_writes_the_usual_outputs(tmp_path, capsys):
    """``cya-sim tournament --rules theft`` runs through the one run pipeline on the theft game's batched engine
    (``--engine reference`` on its reference engine) and writes the usual files; per-game points match
    play_theft_games, the reference play, on both."""
    import numpy as np
    import pandas as pd

    from cya_sim.game.rng import root_key
    from cya_sim.play.theft.reference import play_theft_games

    out = tmp_path / "t"
    assert main(["tournament", "--rules", "theft", "--agents", "greedy,defender", "--players", "3", "--games", "24",
                 "--workers", "1", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "engine: batched" in text and "no compiled engine" not in text
    for name in ("summary.csv", "win_rates.png", "REPORT.md", "experiment.toml", "games.parquet"):
        assert (out / name).exists(), name
    assert "the theft game, RULES.md §9" in (out / "REPORT.md").read_text()
    games = pd.read_parquet(out / "games.parquet").sort_values("game")
    assert len(games) == 24 and set(games["seat_0_agent"]) == {"greedy", "defender"}
    seat_agent = np.array([[0 if games[f"seat_{s}_agent"].iloc[i] == "greedy" else 1 for s in range(3)]
                           for i in range(24)])
    t = play_theft_games(get_rules("theft"), ["greedy", "defender"], seat_agent, root_key(1), np.arange(24))
    assert np.array_equal(games[[f"seat_{s}_total" for s in range(3)]].to_numpy(), t.totals)
    ref = tmp_path / "r"
    assert main(["tournament", "--rules", "theft", "--agents", "greedy,defender", "--players", "3", "--games", "24",
                 "--workers", "1", "--engine", "reference", "--out", str(ref)]) == 0
    assert "engine: reference" in capsys.readouterr().out
    again = pd.read_parquet(ref / "games.parquet").sort_values("game")
    cols = ["deal", "first_player", "turns", "thefts", "cancelled", "decisions", "largest_steal"] + [
        f"seat_{s}_{c}" for s in range(3) for c in ("agent", "total", "win_share")]
    assert games[cols].reset_index(drop=True).equals(again[cols].reset_index(drop=True))


def test_experiment_file_with_theft_rules(tmp_path, capsys):
    """An experiment file with ``preset = "theft"`` and theft options; a classic agent or a deck is refused."""
    exp = tmp_path / "theft.toml"
    exp.write_text('name = "theft_small"\nseed = 3\ngames = 12\nplayers = 2\nagents = ["greedy", "random"]\n'
                   f'out = "{(tmp_path / "r").as_posix()}"\n[rules]\npreset = "theft"\n[rules.options]\n'
                   'max_thefts_per_turn = 1\n[design]\nkind = "round_robin"\n[run]\nworkers = 1\n')
    assert main(["tournament", str(exp), "--quiet"]) == 0
    capsys.readouterr()
    assert "max_thefts_per_turn = 1" in (tmp_path / "r" / "experiment.toml").read_text()
    assert main(["tournament", str(exp), "--set", 'agents=["card_counter", "greedy"]', "--out",
                 str(tmp_path / "x")]) == 2
    assert "unknown agent 'card_counter'; choose one of: random, greedy, defender" in capsys.readouterr().err
    assert main(["tournament", str(exp), "--set", "run.engine=batched", "--quiet", "--out", str(tmp_path / "y")]) == 0
    capsys.readouterr()
    import json

    import pandas as pd

    for folder in ("r", "y"):  # the default engine (auto) and run.engine = batched: the batched theft engine plays
        assert json.loads((tmp_path / folder / "runs.json").read_text())[-1]["engine"] == "batched"
    assert pd.read_parquet(tmp_path / "r" / "games.parquet").equals(pd.read_parquet(tmp_path / "y" / "games.parquet"))
