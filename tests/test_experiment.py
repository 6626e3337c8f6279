"""Experiment files: validation of every field, overrides, line-up designs, seat rotation and duplicate deals."""

from __future__ import annotations

import tomllib
from pathlib import Path

import numpy as np
import pytest

from cya_sim.runs.experiment import ExperimentError, apply_overrides, load_experiment, parse_experiment
from cya_sim.runs.schedule import Schedule, auto_chunk_size, plan_chunks

EXPERIMENTS = Path(__file__).resolve().parents[1] / "experiments"


def base(**changes) -> dict:
    """A valid experiment document; ``changes`` are dotted overrides (None removes a key)."""
    d = {"name": "t", "seed": 1, "games": 40, "players": 4, "agents": ["random", "greedy"],
         "rules": {"preset": "classic"}, "design": {"kind": "round_robin", "repeats": True}}
    return apply_overrides(d, changes)


# -- every validation error names its field ---------------------------------------
BAD = [
    ({"colour": "red"}, "colour", "unknown field"),
    ({"name": None}, "name", "give a name"),
    ({"name": "a b"}, "name", "letters, digits"),
    ({"description": 5}, "description", "string"),
    ({"rules": "classic"}, "rules", "table"),
    ({"rules.preset": "clasic"}, "rules.preset", "choose one of: classic"),
    ({"rules.preset": 3}, "rules.preset", "preset name"),
    ({"rules.colour": 1}, "rules.colour", "unknown field"),
    ({"rules.options": 3}, "rules.options", "table of rule options"),
    ({"rules.options.hand_sise": 5}, "rules.options.hand_sise", "choose from:"),
    ({"rules.options.hand_size": 0}, "rules.options.hand_size", ">= 1"),
    ({"rules.options.end_condition": "forever"}, "rules.options.end_condition", "end_condition"),
    ({"rules.deck": 3}, "rules.deck", "path"),
    ({"rules.deck": "no/such/deck.toml"}, "rules.deck", "deck.toml"),
    ({"agents": None}, "agents", "non-empty list"),
    ({"agents": []}, "agents", "non-empty list"),
    ({"agents": ["random", "grredy"]}, "agents[1]", "unknown agent 'grredy'"),
    ({"agents": ["random", 3]}, "agents[1]", "agent name"),
    ({"agents": ["random", "random"]}, "agents", "listed twice"),
    ({"players": None}, "players", "missing"),
    ({"players": 13}, "players", "from 2 to 12"),
    ({"players": "4"}, "players", "integer"),
    ({"players": [4, 1]}, "players[1]", "from 2 to 12"),
    ({"players": [4, 4]}, "players", "twice"),
    ({"players": []}, "players", "empty list"),
    ({"design": "rr"}, "design", "table"),
    ({"design.kind": "swiss"}, "design.kind", "round_robin, one_vs_field, explicit"),
    ({"design.candidates": ["greedy"]}, "design.candidates", "unknown field for kind 'round_robin'"),
    ({"design.repeats": "yes"}, "design.repeats", "true or false"),
    ({"design.repeats": False}, "design.repeats", "2 agents for 4 seats"),
    ({"design.duplicate": 1}, "design.duplicate", "true or false"),
    ({"agents": ["greedy"]}, "agents", "at least 2 agents"),
    ({"design": {"kind": "one_vs_field", "field": "random"}}, "design.candidates", "non-empty list"),
    ({"design": {"kind": "one_vs_field", "candidates": ["heuristic"], "field": "random"}},
     "design.candidates[0]", "not in the pool"),
    ({"design": {"kind": "one_vs_field", "candidates": ["greedy", "greedy"], "field": "random"}},
     "design.candidates", "twice"),
    ({"design": {"kind": "one_vs_field", "candidates": ["greedy"]}}, "design.field", "baseline agent"),
    ({"design": {"kind": "one_vs_field", "candidates": ["greedy"], "field": "greedy"}}, "design.field",
     "also a candidate"),
    ({"design": {"kind": "explicit"}}, "design.tables", "non-empty list"),
    ({"design": {"kind": "explicit", "tables": ["greedy"]}}, "design.tables[0]", "list of agent names"),
    ({"design": {"kind": "explicit", "tables": [["greedy", "random"]]}}, "design.tables[0]", "has 2 seats"),
    ({"design": {"kind": "explicit", "tables": [["greedy", "random", "x", "random"]]}}, "design.tables[0][2]",
     "not in the pool"),
    ({"players": [3, 4], "design": {"kind": "explicit", "tables": [["greedy", "random", "random"]]}},
     "design.tables", "no line-up of 4 seats"),
    ({"games": 0}, "games", "integer from 1 to 100,000,000"),
    ({"games": 2.5}, "games", "integer from 1 to 100,000,000"),
    ({"games": True}, "games", "integer from 1 to 100,000,000"),
    ({"seed": -1}, "seed", "integer from 0 to"),
    ({"seed": "1"}, "seed", "integer from 0 to"),
    ({"out": ""}, "out", "folder path"),
    ({"out": 3}, "out", "folder path"),
    ({"run": 1}, "run", "table"),
    ({"run.speed": 1}, "run.speed", "unknown field"),
    ({"run.engine": "fast"}, "run.engine", "auto, batched, reference"),
    ({"run.workers": 0}, "run.workers", "integer from 1 to 1,024"),
    ({"run.workers": 10**165}, "run.workers", "integer from 1 to 1,024"),
    ({"run.chunk_size": -5}, "run.chunk_size", "integer from 1 to 100,000,000"),
    ({"run.chunk_size": 10**30}, "run.chunk_size", "integer from 1 to 100,000,000"),
    ({"run.scheduler": "localhost:8786"}, "run.scheduler", "tcp://HOST:PORT"),
]


@pytest.mark.parametrize(("changes", "field", "words"), BAD, ids=[b[1] + ":" + repr(b[0])[:30] for b in BAD])
def test_every_invalid_field_is_refused_with_its_name(changes, field, words):
    with pytest.raises(ExperimentError) as e:
        parse_experiment(base(**changes))
    assert e.value.field == field
    assert words in e.value.detail
    assert str(e.value).startswith(f"field {field!r}: ")
    assert "\n" not in str(e.value)


def test_unreadable_and_malformed_files_are_refused(tmp_path):
    with pytest.raises(ExperimentError, match="cannot read") as e:
        load_experiment(tmp_path / "missing.toml")
    assert e.value.field == "file"
    bad = tmp_path / "bad.toml"
    bad.write_text("name = [unclosed\n")
    with pytest.raises(ExperimentError, match="not valid TOML"):
        load_experiment(bad)


def test_override_through_a_scalar_field_is_refused():
    with pytest.raises(ExperimentError) as e:
        apply_overrides(base(), {"games.x": 1})
    assert e.value.field == "games"


def test_shipped_experiments_are_valid():
    for path in sorted(EXPERIMENTS.glob("*.toml")):
        if path.name.startswith("tips"):
            continue  # tip study files (cya-sim tips), checked by tests/test_tips.py and test_later_presets.py
        if "presets" in tomllib.loads(path.read_text()):  # leaderboard.toml, champion_board_*.toml
            from cya_sim.studies.leaderboard import load_board

            assert load_board(path).agents, path  # a board file (cya-sim leaderboard), not an experiment
            continue
        exp = load_experiment(path)
        assert exp.total_games >= 1, path
    baseline = load_experiment(EXPERIMENTS / "baseline.toml")
    assert baseline.players == (4,) and baseline.games == 1_000_000
    assert baseline.rules.name == "classic" and baseline.design.kind == "round_robin"


def test_overrides_and_defaults(tmp_path):
    path = tmp_path / "e.toml"
    path.write_text('name = "e"\nseed = 3\ngames = 10\nplayers = 3\nagents = ["random", "greedy"]\n'
                    '[design]\nrepeats = true\n')
    exp = load_experiment(path, {"games": 24, "design.duplicate": True, "run.workers": 2,
                                 "rules.options.end_condition": "rounds:2"})
    assert exp.games == 24 and exp.design.duplicate and exp.run.workers == 2
    assert exp.rules.end_condition == "rounds:2" and exp.rules.name == "classic+custom"
    assert exp.out == Path("results/e") and exp.run.engine == "auto" and exp.design.kind == "round_robin"


def test_experiment_toml_round_trip_keeps_identity(tmp_path):
    exp = parse_experiment(base(**{"rules.options": {"hand_size": 5, "end_condition": "rounds:3"},
                                   "players": [3, 4], "design.duplicate": True, "run.chunk_size": 7}))
    again = parse_experiment(tomllib.loads(exp.to_toml()))
    assert again.identity() == exp.identity()
    assert again.run == exp.run


def test_custom_deck_is_read_relative_to_the_experiment_file(tmp_path):
    from cya_sim.game.rules import deck_2011

    deck = deck_2011()
    lines = ['name = "mine"\n']
    for c in deck.cards:
        lines.append(f'[[cards]]\nname = "{c.name}"\nkind = "{c.kind}"\nvalue = {c.value * 2}\ncopies = {c.copies}\n')
    (tmp_path / "decks").mkdir()
    (tmp_path / "decks" / "mine.toml").write_text("".join(lines))
    path = tmp_path / "e.toml"
    path.write_text('name = "e"\nseed = 1\ngames = 8\nplayers = 4\nagents = ["random", "greedy"]\n'
                    '[rules]\ndeck = "decks/mine.toml"\n[design]\nrepeats = true\n')
    exp = load_experiment(path)
    assert exp.rules.deck.total_value == 2 * deck.total_value
    assert parse_experiment(tomllib.loads(exp.to_toml())).identity() == exp.identity()


# -- line-up designs ---------------------------------------------------------------
def test_round_robin_lineups():
    exp = parse_experiment(base(agents=["random", "greedy"], **{"design.repeats": True}))
    assert exp.lineups(4).tolist() == [[0, 0, 0, 1], [0, 0, 1, 1], [0, 1, 1, 1]]
    exp3 = parse_experiment(base(players=3, **{"design.repeats": True}))
    assert exp3.lineups(3).tolist() == [[0, 0, 1], [0, 1, 1]]


def test_round_robin_without_repeats_uses_every_subset(monkeypatch):
    from agents.classic import registry

    for extra in ("x1", "x2", "x3"):
        monkeypatch.setitem(registry.REGISTRY, extra, registry.REGISTRY["random"])
    exp = parse_experiment(base(agents=["random", "greedy", "x1", "x2", "x3"], **{"design.repeats": False}))
    lu = exp.lineups(4)
    assert lu.shape == (5, 4)  # C(5, 4)
    assert {tuple(r) for r in lu} == {(0, 1, 2, 3), (0, 1, 2, 4), (0, 1, 3, 4), (0, 2, 3, 4), (1, 2, 3, 4)}


def test_one_vs_field_and_explicit_lineups():
    exp = parse_experiment(base(design={"kind": "one_vs_field", "candidates": ["greedy"], "field": "random"}))
    assert exp.lineups(4).tolist() == [[1, 0, 0, 0]]
    exp = parse_experiment(base(players=[3, 4], design={"kind": "explicit", "tables": [
        ["greedy", "random", "random"], ["greedy", "greedy", "random", "random"], ["random", "greedy", "random"]]}))
    assert exp.lineups(3).tolist() == [[1, 0, 0], [0, 1, 0]]
    assert exp.lineups(4).tolist() == [[1, 1, 0, 0]]


def test_explicit_design_takes_its_table_sizes_from_the_tables():
    d = base(design={"kind": "explicit", "tables": [["greedy", "random", "random"]]})
    del d["players"]
    assert parse_experiment(d).players == (3,)


# -- schedule: rotation balance and duplicate deals --------------------------------
@pytest.mark.parametrize("duplicate", [False, True])
def test_every_agent_sits_in_every_seat_equally_often(duplicate):
    exp = parse_experiment(base(games=4 * 3 * 5, **{"design.duplicate": duplicate}))
    sched = Schedule.of(exp)
    g = sched.games_of(0, sched.total_games)
    sa = g["seat_agent"]
    for a in range(2):
        per_seat = (sa == a).sum(axis=0)
        assert len(set(per_seat.tolist())) == 1, per_seat
    # every block of P games is one line-up in its P rotations: each position in each seat once
    for b in range(sa.shape[0] // 4):
        block = sa[4 * b: 4 * b + 4]
        lu = exp.lineups(4)[g["lineup"][4 * b]]
        for r in range(4):
            assert block[r].tolist() == [int(lu[(s - r) % 4]) for s in range(4)]
    # rotation balance holds for any multiple of P, not only whole cycles
    g2 = sched.games_of(0, 8)
    assert ((g2["seat_agent"] == 1).sum(axis=0) == (g2["seat_agent"] == 1).sum(axis=0)[0]).all()


def test_duplicate_deals_replay_one_deal_per_cycle_and_plain_deals_never_repeat():
    exp = parse_experiment(base(games=24, **{"design.duplicate": True}))
    g = Schedule.of(exp).games_of(0, 24)
    assert g["deal"].tolist() == [0] * 12 + [1] * 12  # 3 line-ups x 4 rotations per cycle
    plain = Schedule.of(parse_experiment(base(games=24))).games_of(0, 24)
    assert plain["deal"].tolist() == list(range(24))
    two = Schedule.of(parse_experiment(base(games=24, players=[3, 4], **{"design.duplicate": True})))
    d3, d4 = two.games_of(0, 24)["deal"], two.games_of(24, 48)["deal"]
    assert set(d3.tolist()).isdisjoint(d4.tolist())
    assert two.games_of(24, 48)["game"].tolist() == list(range(24, 48))


def test_chunks_are_fixed_ranges_that_never_span_table_sizes():
    sched = Schedule.of(parse_experiment(base(games=25, players=[3, 4])))
    chunks = plan_chunks(sched, 10)
    assert chunks == [(0, 10), (10, 20), (20, 25), (25, 35), (35, 45), (45, 50)]
    with pytest.raises(ValueError, match="spans two table sizes"):
        sched.games_of(20, 30)
    assert auto_chunk_size(1_000_000, "batched") == 31_250
    assert auto_chunk_size(100, "reference") == 10 and auto_chunk_size(5, "reference") == 5
    assert auto_chunk_size(10_000_000, "batched") == 50_000
    # a seat that searches: the reference engine's bounds, so a small cell is shared by the workers
    assert auto_chunk_size(720, "batched") == 720 and auto_chunk_size(720, "batched", search=True) == 23
    assert auto_chunk_size(1_000_000, "batched", search=True) == 200


def test_a_run_with_a_search_agent_gets_small_chunks_and_one_without_keeps_its_own():
    from cya_sim.runs.runner import searches

    for agents, want in ((["ismcts(iterations=5)", "greedy"], True), (["pimc(iterations=5)", "card_counter"], True),
                         (["greedy", "card_counter"], False)):
        exp = parse_experiment(base(agents=agents, players=[2]))
        assert searches(exp, "batched") is want and not searches(exp, "reference")


def test_schedule_is_the_same_for_any_chunking():
    sched = Schedule.of(parse_experiment(base(games=60, **{"design.duplicate": True})))
    whole = sched.games_of(0, 60)
    parts = [sched.games_of(a, b) for a, b in plan_chunks(sched, 7)]
    for k in ("game", "deal", "lineup", "rotation", "seat_agent"):
        assert np.array_equal(whole[k], np.concatenate([p[k] for p in parts]))


@pytest.mark.parametrize("duplicate", [False, True])
def test_schedule_computed_in_pieces_is_the_schedule_of_each_game(monkeypatch, duplicate):
    """games_of fills a long range piece by piece (SCHEDULE_PIECE games at a time, so a 50,000,000-game chunk sees
    Ctrl-C and keeps no (G, P) int64 temporaries); each game's columns are the module docstring's formulas."""
    from cya_sim.runs import schedule

    monkeypatch.setattr(schedule, "SCHEDULE_PIECE", 7)
    exp = parse_experiment(base(games=60, players=[3, 4], **{"design.duplicate": duplicate}))
    sched = Schedule.of(exp)
    for i, p in enumerate(sched.players):
        g = sched.games_of(i * 60 + 5, i * 60 + 53)
        lus = exp.lineups(p)
        for j, n in enumerate(range(i * 60 + 5, i * 60 + 53)):
            m = n - i * 60
            block, rot = divmod(m, p)
            lineup, cycle = block % lus.shape[0], block // lus.shape[0]
            assert (g["game"][j], g["lineup"][j], g["rotation"][j], g["cycle"][j]) == (n, lineup, rot, cycle)
            assert g["deal"][j] == sched.deal_offset(i) + (cycle if duplicate else m)
            assert g["seat_agent"][j].tolist() == [int(lus[lineup][(s - rot) % p]) for s in range(p)]
    assert {k: v.dtype.name for k, v in g.items() if k != "players"} == {
        "game": "int64", "deal": "int64", "lineup": "int32", "rotation": "int16", "cycle": "int64",
        "seat_agent": "int16"}
