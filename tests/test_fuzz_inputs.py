"""Property-based fuzz of every user input (issue 14): CLI flags, experiment TOML, deck TOML, positions, agent outputs.

Every generated input must end with exit status 0, or with exit status 2 and
exactly one line on stderr — never a traceback, an internal error (exit 1), a
hang (each run is bounded by an alarm) or a file changed by a refused run.
Positions (a Python API, not a command) must load or raise ``PositionError``.

The default run keeps to a few dozen examples per property (well under a
minute); ``make test-slow`` runs the same properties with many more examples.
Games are kept small (at most 6 per run, the reference engine, one worker) so
that a valid input finishes quickly; the batched engine is fuzzed only in the
slow run.
"""

from __future__ import annotations

import json
import math
import os
import re
import signal
import sys
import tempfile
from contextlib import contextmanager
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from cya_sim.cli.main import main

DEFAULT = settings(max_examples=15, deadline=None, derandomize=True,
                   suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
SLOW = settings(max_examples=300, deadline=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
#: Seconds one command may take before it counts as a hang.
TIMEOUT_S = 60

FUZZ_AGENTS = '''
import numpy as np

#: What Scripted.act returns, in turn (cycled); set by the test before each run.
SCRIPT = [0]

class Scripted:
    name = "scripted"
    def __init__(self):
        self.i = 0
    def act(self, obs, rng):
        v = SCRIPT[self.i % len(SCRIPT)]
        self.i += 1
        if v == "legal":
            return int(np.flatnonzero(obs.legal_action_mask)[0])
        if v == "raise":
            raise RuntimeError("scripted failure")
        if v == "np-legal":
            return np.int32(np.flatnonzero(obs.legal_action_mask)[-1])
        return v

class Ctor:
    def __init__(self, fail=True):
        if fail:
            raise ValueError("constructor refused")
    def act(self, obs, rng):
        return int(np.flatnonzero(obs.legal_action_mask)[0])
'''


@contextmanager
def alarm(seconds: int):
    """Fail (TimeoutError) when the block runs longer than ``seconds`` (a hang)."""
    def on_alarm(signum, frame):
        raise TimeoutError(f"no answer within {seconds} s")

    old = signal.signal(signal.SIGALRM, on_alarm)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def snapshot(folder: Path) -> dict:
    return {p.relative_to(folder).as_posix(): (p.read_bytes() if p.is_file() else None)
            for p in sorted(folder.rglob("*")) if "__pycache__" not in p.parts}


def check_cli(argv: list[str], folder: Path, capsys) -> int:
    """Run ``cya-sim argv`` in-process; assert exit 0, or exit 2 with one line and ``folder`` unchanged."""
    capsys.readouterr()
    before = snapshot(folder)
    with alarm(TIMEOUT_S):
        status = main(argv)
    err = capsys.readouterr().err
    if os.environ.get("CYA_FUZZ_SHOW"):  # see what the fuzz reaches: CYA_FUZZ_SHOW=1 pytest -s ...
        print(status, argv[:2], err.strip()[:150], file=sys.__stderr__)
    assert "Traceback" not in err, (argv, err)
    assert status in (0, 2), (argv, status, err)
    if status == 2:
        lines = err.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("cya-sim"), (argv, err)
        after = snapshot(folder)
        assert {k: v for k, v in after.items() if k in before} == before, (argv, "a refused run changed files")
        if not re.search(r"agent '.*' at seat \d+ in game \d+", lines[0]):  # refused before any game was played
            assert after == before, (argv, "a refused run wrote files")
    return status


@contextmanager
def fresh(work: Path, deck: str = ""):
    """A new, empty folder under ``work`` (the current directory inside the block) with the input files.

    Each example starts from the same state, so Hypothesis can replay and shrink it.
    """
    d = Path(tempfile.mkdtemp(dir=work))
    old = os.getcwd()
    os.chdir(d)
    try:
        prepare(d, deck)
        yield d
    finally:
        os.chdir(old)


@pytest.fixture
def work(tmp_path, monkeypatch):
    """An empty working folder with the fuzz agents importable."""
    mods = tmp_path / "mods"
    mods.mkdir()
    (mods / "fuzz_agents.py").write_text(FUZZ_AGENTS)
    monkeypatch.syspath_prepend(str(mods))
    w = tmp_path / "work"
    w.mkdir()
    monkeypatch.chdir(w)
    yield w
    sys.modules.pop("fuzz_agents", None)


# -- value pools ---------------------------------------------------------------------------------------
def mostly(valid, invalid, tenths: int = 8):
    """``valid`` in ``tenths`` of 10 draws, else ``invalid``: most inputs get past the first check."""
    return st.integers(0, 9).flatmap(lambda i: valid if i < tenths else invalid)


ints = st.one_of(st.integers(-3, 12), st.sampled_from([0, 1, 2**31, 2**63, 2**64, 10**30, -(2**63)]))
words = st.one_of(st.sampled_from(["", " ", "x", "classic", "guide", "basic", "advanced", "true", "1.5", "-1",
                                   "{2 = 5, default = 4}", "[1, 2]", "rounds:3", "round_wins:2", "rounds:0",
                                   "target", "share", "extra_round", "pack", "full", "mover_first", "loser_first",
                                   "\u00e9", "a=b", "'quoted'", "\"q\"", "nan", "inf", "1e400"]),
                  st.text(max_size=8))
int_text = st.one_of(ints.map(str), words)
option_keys = st.sampled_from(["min_players", "max_players", "hand_size", "challenge_draw_order", "actions_per_turn",
                               "hidden_wilds", "end_condition", "target_score", "tie_break", "max_extra_rounds",
                               "extra_deck_unit", "max_rounds", "deck", "name", "nosuch", ""])
good_specs = st.sampled_from(["greedy", "random", "heuristic(backup=true)", "heuristic( backup = true )",
                              "wild_hoarder", "fuzz_agents:Scripted", "fuzz_agents:Ctor(fail=false)"])
agent_specs = st.sampled_from([
    "greedy", "random", "card_counter", "wild_hoarder", "heuristic(backup=true)", "heuristic( backup = true )",
    "heuristic(nosuch=1)", "heuristic(backup=2)", "ismcts(iterations=0)", "oracle", "nosuch", "", "greedy(",
    "fuzz_agents:Scripted", "fuzz_agents:Ctor", "fuzz_agents:Ctor(fail=false)", "fuzz_agents:Nope", "no_module:X",
    "os:getcwd", "(", ",", "a b",
])
scripts = st.lists(st.one_of(st.sampled_from(["legal", "legal", "legal", "raise", "np-legal", None, True, 2.5, "3",
                                               -1, 10**20, [1]]), st.integers(-5, 200)), min_size=1, max_size=4)


def option_args():
    good = st.sampled_from(["hand_size=5", "tie_break=extra_round", "end_condition=rounds:2", "hidden_wilds=false",
                            "challenge_draw_order=mover_first", "target_score=500000", "max_players=6",
                            "extra_deck_unit=full"])
    bad = st.tuples(option_keys, words | ints.map(str)).map(lambda kv: f"{kv[0]}={kv[1]}") | words
    return st.lists(mostly(good, bad, 6), max_size=2).map(lambda xs: [a for x in xs for a in ("--option", x)])


def agent_list():
    return mostly(st.lists(good_specs, min_size=1, max_size=3), st.lists(agent_specs, min_size=1, max_size=3), 7)


def card():
    return st.fixed_dictionaries({}, optional={
        "name": st.one_of(st.sampled_from(["A", "B", "W", "Gold", "A", "Penny Jar", "Swap"]), st.text(max_size=4), ints),
        "kind": st.sampled_from(["asset", "asset", "wild", "action", "gem", ""]),
        "value": st.one_of(st.integers(0, 50_000), ints, st.sampled_from([1.5, "5", True])),
        "copies": st.one_of(st.integers(1, 30), ints, st.sampled_from([2.0, "4", False])),
        "extra": st.just(1),
    })


def toml_value(v) -> str:
    """A value in TOML syntax (bool, int, float, str, list, inline table)."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int | float):
        return repr(v) if not isinstance(v, float) or not math.isnan(v) else "nan"
    if isinstance(v, str):
        return json.dumps(v)
    if isinstance(v, list):
        return "[" + ", ".join(toml_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{json.dumps(str(k))} = {toml_value(x)}" for k, x in v.items()) + "}"
    raise TypeError(v)


def deck_text(name, cards) -> str:
    out = [f"name = {toml_value(name)}"] if name is not None else []
    for c in cards:
        out.append("[[cards]]")
        out += [f"{k} = {toml_value(v)}" for k, v in c.items()]
    return "\n".join(out) + "\n"


decks = st.one_of(
    st.builds(deck_text, st.one_of(st.none(), st.text(max_size=5), ints), st.lists(card(), max_size=4)),
    st.sampled_from(["", "name = \n[[cards", "cards = 5", "[[cards]]\nname = 'A'\n"]),
    st.binary(max_size=20).map(lambda b: b.decode("latin-1")),
)
GOOD_DECK = deck_text("good", [{"name": "A", "kind": "asset", "value": 1000, "copies": 20},
                               {"name": "B", "kind": "asset", "value": 2000, "copies": 20},
                               {"name": "W", "kind": "wild", "value": 5000, "copies": 6}])


# -- CLI flags --------------------------------------------------------------------------------------------
@st.composite
def play_argv(draw):
    argv = ["play"]
    if draw(st.booleans()):
        argv += ["--rules", draw(st.sampled_from(["classic", "guide", "basic"]) | words)]
    argv += draw(option_args())
    small = st.sampled_from(["2", "3", "4"])
    if draw(st.booleans()):
        argv += ["--players", draw(mostly(small, int_text))]
    if draw(st.booleans()):
        argv += ["--agents", ",".join(draw(agent_list()))]
    if draw(st.booleans()):
        argv += ["--seed", draw(mostly(st.integers(0, 2**63 - 1).map(str), int_text))]
    if draw(st.booleans()):
        argv += ["--game", draw(mostly(st.integers(0, 10**6).map(str), int_text))]
    if draw(st.integers(0, 3)) == 3:
        argv += ["--deck", "deck.toml"]
    argv += ["--option", "max_rounds=30"]  # a game with agents that never score stops quickly
    return argv


@st.composite
def tournament_argv(draw):
    argv = ["tournament", "--engine", "reference", "--workers", "1", "--quiet"]
    argv += draw(option_args())
    argv += ["--players", draw(mostly(st.sampled_from(["2", "3", "4"]), int_text))]
    argv += ["--agents", ",".join(draw(agent_list()))]
    argv += ["--games", draw(mostly(st.sampled_from(["1", "2", "4", "6"]),
                                    st.sampled_from(["0", "-1", "x", str(10**9), str(10**20), ""])))]
    if draw(st.booleans()):
        argv += ["--seed", draw(mostly(st.integers(0, 2**63 - 1).map(str), int_text))]
    if draw(st.integers(0, 3)) == 3:
        argv += ["--chunk-size", draw(mostly(st.integers(1, 5).map(str), int_text))]
    if draw(st.integers(0, 3)) == 3:
        argv += ["--deck", "deck.toml"]
    argv += ["--out", draw(mostly(st.sampled_from(["out", "out2"]),
                                  st.sampled_from(["file.txt/sub", "file.txt", "ro/sub", "out/../out2", ""])))]
    argv += ["--option", "max_rounds=30"]
    return argv


def prepare(work: Path, deck: str = "") -> None:
    (work / "deck.toml").write_text(deck, encoding="utf-8", errors="surrogateescape")
    (work / "file.txt").write_text("not a folder")
    ro = work / "ro"
    ro.mkdir(exist_ok=True)
    ro.chmod(0o555)


def _fuzz_cli(work, capsys, argv, deck, script):
    """Run ``argv`` in a fresh folder; an accepted tournament run again must be accepted again (same results)."""
    import fuzz_agents

    with fresh(work, deck) as d:
        fuzz_agents.SCRIPT[:] = script
        status = check_cli(argv, d, capsys)
        if status == 0 and argv[0] == "tournament":
            fuzz_agents.SCRIPT[:] = script
            assert check_cli(argv, d, capsys) == 0, argv  # the same command again: same tournament, accepted


@DEFAULT
@given(argv=play_argv(), deck=st.one_of(st.just(GOOD_DECK), decks), script=scripts)
def test_fuzz_play_flags(work, capsys, argv, deck, script):
    _fuzz_cli(work, capsys, argv, deck, script)


@settings(DEFAULT, max_examples=8)  # each accepted run writes results and a plot, twice
@given(argv=tournament_argv(), deck=st.one_of(st.just(GOOD_DECK), decks), script=scripts)
def test_fuzz_tournament_flags(work, capsys, argv, deck, script):
    _fuzz_cli(work, capsys, argv, deck, script)


@DEFAULT
@given(argv=st.lists(words | st.sampled_from(["--rules", "--option", "--deck", "deck.toml", "--debug", "-h"]),
                     max_size=4), deck=decks)
def test_fuzz_rules_command(work, capsys, argv, deck):
    with fresh(work, deck) as d:
        check_cli(["rules", *[a for a in argv if a not in ("-h", "--debug")]], d, capsys)


# -- experiment TOML ---------------------------------------------------------------------------------------
@st.composite
def experiment_text(draw):
    doc: dict = {}
    field = st.one_of(words, ints, st.booleans(), st.lists(ints, max_size=2))
    if draw(st.integers(0, 9)) < 9:
        doc["name"] = draw(mostly(st.sampled_from(["fz", "fz-1"]), words, 9))
    doc["games"] = draw(mostly(st.sampled_from([2, 4, 6]), ints | words, 9))
    if draw(st.booleans()):
        doc["seed"] = draw(mostly(st.integers(0, 2**63 - 1), ints | words, 9))
    doc["players"] = draw(mostly(st.sampled_from([2, 3, [2, 3]]), ints | st.lists(ints, max_size=2), 9))
    doc["agents"] = draw(mostly(st.lists(good_specs, min_size=2, max_size=3, unique=True),
                                st.lists(agent_specs, min_size=0, max_size=3) | field, 8))
    doc["out"] = draw(mostly(st.sampled_from(["out", "out2"]),
                             st.sampled_from(["file.txt", "file.txt/sub", "ro/x", ""]) | words, 9))
    rules = {"preset": draw(mostly(st.sampled_from(["classic", "basic", "guide"]), words, 9))}
    rules["options"] = {"max_rounds": 30}
    if draw(st.integers(0, 3)) == 3:
        rules["options"][draw(option_keys)] = draw(field)
    if draw(st.integers(0, 3)) == 3:
        rules["deck"] = draw(st.sampled_from(["deck.toml", "deck.toml", "missing.toml", "file.txt"]))
    design = {"kind": draw(mostly(st.just("round_robin"), st.sampled_from(["one_vs_field", "explicit", "swiss"]), 8))}
    if design["kind"] == "round_robin":
        design["repeats"] = True
    if draw(st.integers(0, 3)) == 3:
        design[draw(st.sampled_from(["repeats", "duplicate", "candidates", "baseline", "tables", "x"]))] = draw(field)
    run = {"engine": "reference", "workers": 1}
    if draw(st.integers(0, 3)) == 3:
        run[draw(st.sampled_from(["chunk_size", "scheduler", "x", "engine", "workers"]))] = draw(field)
    lines = [f"{k} = {toml_value(v)}" for k, v in doc.items()]
    if draw(st.integers(0, 9)) == 9:
        lines.append(f"extra_key = {toml_value(draw(field))}")
    for table, body in (("rules", rules), ("design", design), ("run", run)):
        lines.append(f"[{table}]")
        lines += [f"{json.dumps(str(k))} = {toml_value(v)}" for k, v in body.items()]
    text = "\n".join(lines) + "\n"
    if draw(st.integers(0, 14)) == 14:
        text = text[: draw(st.integers(0, len(text)))]  # cut short: often invalid TOML
    return text


VALID_EXPERIMENT = """name = "fz"
games = 4
seed = 3
players = [2, 3]
agents = ["greedy", "heuristic( backup = true )", "fuzz_agents:Scripted"]
out = "out"
[rules]
preset = "classic"
deck = "deck.toml"
options = {max_rounds = 30, hand_size = 3}
[design]
kind = "round_robin"
repeats = true
[run]
engine = "reference"
workers = 1
"""


@DEFAULT
@example(text=VALID_EXPERIMENT, deck=GOOD_DECK, flags=[])
@example(text=VALID_EXPERIMENT, deck=GOOD_DECK, flags=[("--games", "2"), ("--set", "design.duplicate=true")])
@given(text=experiment_text(), deck=st.one_of(st.just(GOOD_DECK), decks),
       flags=st.lists(st.sampled_from(["--games", "--seed", "--players", "--set"]).flatmap(
           lambda f: st.tuples(st.just(f), int_text if f != "--set" else st.sampled_from(
               ["games=2", "design.duplicate=true", "x", "rules.options.hand_size=50", "seed=-1"]))), max_size=2))
def test_fuzz_experiment_toml(work, capsys, text, deck, flags):
    with fresh(work, deck) as d:
        (d / "exp.toml").write_text(text, encoding="utf-8", errors="surrogateescape")
        argv = ["tournament", "exp.toml", "--quiet", "--no-report", *[a for kv in flags for a in kv]]
        if check_cli([*argv, "--engine", "reference"], d, capsys) == 0:  # the compiled engine only in the slow run
            assert check_cli([*argv, "--engine", "reference"], d, capsys) == 0  # resuming a finished run


@DEFAULT
@given(data=st.binary(max_size=60))
def test_fuzz_experiment_bytes(work, capsys, data):
    """Arbitrary bytes (often not UTF-8) as an experiment file: one line, exit 2."""
    with fresh(work) as d:
        (d / "exp.toml").write_bytes(data)
        assert check_cli(["tournament", "exp.toml", "--quiet"], d, capsys) == 2


# -- positions ------------------------------------------------------------------------------------------------
def _valid_position() -> dict:
    from cya_sim.engine.classic.reference import new_game
    from cya_sim.game.classic.position import state_to_dict
    from cya_sim.game.rng import root_key
    from cya_sim.game.rules import get_rules

    return state_to_dict(new_game(get_rules("classic"), 3, root_key(1)))


json_values = st.recursive(st.none() | st.booleans() | st.integers(-3, 2**70) | st.floats(allow_nan=False)
                           | st.text(max_size=6) | st.sampled_from(["Jewels", "Gold", "classic"]),
                           lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner,
                                                                                        max_size=3), max_leaves=6)


def _valid_theft_position() -> dict:
    from cya_sim.engine.theft.reference import new_game
    from cya_sim.game.rng import root_key
    from cya_sim.game.theft.position import state_to_dict
    from cya_sim.game.theft.rules import PRESETS as THEFT_PRESETS

    return state_to_dict(new_game(THEFT_PRESETS["theft"], 3, root_key(1), 0))


@st.composite
def mutated_position(draw, family: str = "classic"):
    d = _valid_position() if family == "classic" else _valid_theft_position()
    for _ in range(draw(st.integers(1, 3))):
        node = d
        path = []
        while isinstance(node, dict | list) and node and draw(st.integers(0, 2)):
            key = draw(st.sampled_from(list(node) if isinstance(node, dict) else list(range(len(node)))))
            path.append(key)
            node = node[key]
        target = d
        for k in path[:-1]:
            target = target[k]
        if path:
            if draw(st.integers(0, 4)) == 4 and isinstance(target, dict):
                del target[path[-1]]
            else:
                target[path[-1]] = draw(json_values)
        elif isinstance(d, dict):
            d[draw(st.text(max_size=5))] = draw(json_values)
    return d


@DEFAULT
@given(doc=mutated_position())
def test_fuzz_positions_load_or_position_error(doc):
    _position_loads_or_refuses(doc)


def _position_loads_or_refuses(doc) -> None:
    from cya_sim.game.classic.position import PositionError, loads

    try:
        text = json.dumps(doc)
    except (TypeError, ValueError):
        return
    with alarm(TIMEOUT_S):
        try:
            loads(text)
        except PositionError as e:
            assert "\n" not in str(e)


#: Texts that are no position: short text, bytes, and (issue 23) deep nesting and integers of thousands of digits.
position_texts = st.one_of(
    st.text(max_size=40), st.binary(max_size=40).map(lambda b: b.decode("latin-1")),
    st.tuples(st.sampled_from(["[", "{\"a\": ", "[{\"b\": "]), st.integers(60, 200_000)).map(lambda t: t[0] * t[1]),
    st.integers(4_301, 20_000).map(lambda n: '{"players": ' + "7" * n + "}"),
    st.integers(4_301, 6_000).map(lambda n: "[" + "1" * n + "]"),
)


@DEFAULT
@given(text=position_texts)
def test_fuzz_position_text(text):
    from cya_sim.game.classic.position import PositionError, loads

    with alarm(TIMEOUT_S), pytest.raises(PositionError):
        loads(text)


@DEFAULT
@given(doc=mutated_position("theft"))
def test_fuzz_theft_positions_load_or_position_error(doc):
    """Issue 23: the theft reader, fuzzed like the classic one: it loads or raises TheftPositionError (one line)."""
    _theft_position_loads_or_refuses(doc)


def _theft_position_loads_or_refuses(doc) -> None:
    from cya_sim.game.theft.position import TheftPositionError, loads

    try:
        text = json.dumps(doc)
    except (TypeError, ValueError):
        return
    with alarm(TIMEOUT_S):
        try:
            loads(text)
        except TheftPositionError as e:
            assert "\n" not in str(e)


@DEFAULT
@given(text=position_texts)
def test_fuzz_theft_position_text(text):
    from cya_sim.game.theft.position import TheftPositionError, loads

    with alarm(TIMEOUT_S), pytest.raises(TheftPositionError):
        loads(text)


# -- agent outputs ----------------------------------------------------------------------------------------------
@DEFAULT
@given(script=scripts, seed=st.integers(0, 50))
def test_fuzz_agent_outputs(work, capsys, script, seed):
    """Whatever an agent returns or raises: a finished game (exit 0) or one line naming agent, seat and game."""
    import fuzz_agents

    fuzz_agents.SCRIPT[:] = script
    argv = ["play", "--agents", "fuzz_agents:Scripted,greedy", "--seed", str(seed)]
    with fresh(work) as d:
        if check_cli(argv, d, capsys) == 0:
            return
    fuzz_agents.SCRIPT[:] = script
    capsys.readouterr()
    main(argv)
    line = capsys.readouterr().err
    assert "at seat" in line and "in game" in line and "'scripted'" in line, line


@DEFAULT
@given(script=scripts, seed=st.integers(0, 50))
def test_fuzz_theft_agent_outputs(work, capsys, script, seed):
    """Issue 23: a theft agent's returns and exceptions: a finished game or one line naming agent, seat and game."""
    import fuzz_agents

    fuzz_agents.SCRIPT[:] = script
    argv = ["play", "--rules", "theft", "--agents", "fuzz_agents:Scripted,greedy", "--seed", str(seed)]
    with fresh(work) as d:
        if check_cli(argv, d, capsys) == 0:
            return
    fuzz_agents.SCRIPT[:] = script
    capsys.readouterr()
    main(argv)
    line = capsys.readouterr().err
    assert "at seat" in line and "in game" in line and "'scripted'" in line, line


# -- the long run (make test-slow) ------------------------------------------------------------------------------
@pytest.mark.slow
@SLOW
@given(argv=tournament_argv(), deck=st.one_of(st.just(GOOD_DECK), decks), script=scripts,
       batched=st.booleans())
def test_fuzz_tournament_flags_long(work, capsys, argv, deck, script, batched):
    if batched:
        argv = [("batched" if a == "reference" else a) for a in argv]
    _fuzz_cli(work, capsys, argv, deck, script)


@pytest.mark.slow
@SLOW
@given(argv=play_argv(), deck=st.one_of(st.just(GOOD_DECK), decks), script=scripts)
def test_fuzz_play_flags_long(work, capsys, argv, deck, script):
    _fuzz_cli(work, capsys, argv, deck, script)


@pytest.mark.slow
@SLOW
@given(text=experiment_text(), deck=st.one_of(st.just(GOOD_DECK), decks))
def test_fuzz_experiment_toml_long(work, capsys, text, deck):
    with fresh(work, deck) as d:
        (d / "exp.toml").write_text(text, encoding="utf-8", errors="surrogateescape")
        check_cli(["tournament", "exp.toml", "--quiet"], d, capsys)


@pytest.mark.slow
@SLOW
@given(doc=mutated_position())
def test_fuzz_positions_long(doc):
    _position_loads_or_refuses(doc)


@pytest.mark.slow
@SLOW
@given(doc=mutated_position("theft"))
def test_fuzz_theft_positions_long(doc):
    _theft_position_loads_or_refuses(doc)



# -- issue 29: the families of experiments/fuzz_inputs.py, run here with Hypothesis -------------------------------
def _fuzz_script():
    """experiments/fuzz_inputs.py as a module (it is part of the repository, so a clone has it)."""
    import importlib.util

    if "cya_fuzz_inputs" not in sys.modules:
        path = Path(__file__).resolve().parents[1] / "experiments" / "fuzz_inputs.py"
        spec = importlib.util.spec_from_file_location("cya_fuzz_inputs", path)
        mod = importlib.util.module_from_spec(spec)
        sys.modules["cya_fuzz_inputs"] = mod  # before running it: its dataclass looks its module up there
        spec.loader.exec_module(mod)
    return sys.modules["cya_fuzz_inputs"]


def _family_case(tmp_path, monkeypatch, family: str, i: int) -> tuple[str, str]:
    fz = _fuzz_script()
    monkeypatch.setenv("CYA_FUZZ_WORK", str(tmp_path))
    fam = fz.FAMILIES[family]
    case = fam.generate(fz.case_rng(29, family, i))
    with alarm(TIMEOUT_S):
        return fz.classify(fam, case)


#: The new families whose every case must end cleanly refused or correctly accepted (no game is played).
NEW_FAMILIES = ["classic_position", "theft_position", "position_text", "toml_files", "option_flags", "plugin_params",
                "env_args", "strategy_flags", "tournament_flags"]


@pytest.mark.parametrize("family", NEW_FAMILIES)
@settings(DEFAULT, max_examples=6)
@given(i=st.integers(0, 10**6))
def test_fuzz_family_ends_in_a_clean_refusal_or_a_correct_acceptance(tmp_path, monkeypatch, family, i):
    """Issue 29: mutated positions of played games of both readers (accepted means the engine can move on from
    them, R-T-END ends them, and a finished game's winners are the highest total), TOML files with integers of
    more than 4,300 digits or wrong types, plug-in parameters, environment arguments, and the strategy commands'
    flags (checked up front; no game played): never a traceback, a hang or a wrong acceptance."""
    outcome, detail = _family_case(tmp_path, monkeypatch, family, i)
    assert outcome in ("clean", "accepted"), (family, i, outcome, detail)


@pytest.mark.parametrize(("family", "i", "expected"), [
    ("theft_position", 0, "clean"), ("position_text", 0, "clean"), ("toml_files", 1, "clean"),
])
def test_fuzz_script_cases_replay_the_same(tmp_path, monkeypatch, family, i, expected):
    """A case is a function of (seed, family, index): the lead's table can be replayed case by case."""
    first = _family_case(tmp_path, monkeypatch, family, i)
    assert first == _family_case(tmp_path, monkeypatch, family, i)
    assert first[0] == expected, first


def test_fuzz_script_counts_a_hang_and_a_crash_in_a_worker():
    """The script's parent counts a worker that stops answering as a hang and one that dies as a crash (its
    self-test families ``_hang`` and ``_crash``), and prints the counts as a Markdown table."""
    fz = _fuzz_script()
    hang = fz.run_family("_hang", 1, 0, 1, timeout_s=0.5, show=False)
    crash = fz.run_family("_crash", 1, 0, 2, timeout_s=5, show=False)
    assert hang == dict.fromkeys(fz.OUTCOMES, 0) | {"hang": 1}
    assert crash == dict.fromkeys(fz.OUTCOMES, 0) | {"crash": 2}
    assert fz.table({"_crash": crash}).splitlines()[2] == "| _crash | 2 | 0 | 0 | 0 | 0 | 2 | 0 |"


@pytest.mark.slow
@pytest.mark.parametrize("family", NEW_FAMILIES)
@settings(SLOW, max_examples=100)
@given(i=st.integers(0, 10**9))
def test_fuzz_family_long(tmp_path, monkeypatch, family, i):
    outcome, detail = _family_case(tmp_path, monkeypatch, family, i)
    assert outcome in ("clean", "accepted"), (family, i, outcome, detail)


@pytest.mark.slow
@pytest.mark.parametrize("family", ["agent_outputs", "compiled_plugins"])
@settings(SLOW, max_examples=20)
@given(i=st.integers(0, 10**9))
def test_fuzz_misbehaving_agents_long(tmp_path, monkeypatch, family, i):
    outcome, detail = _family_case(tmp_path, monkeypatch, family, i)
    assert outcome in ("clean", "accepted"), (family, i, outcome, detail)
