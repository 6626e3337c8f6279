"""Fuzz every input family of cya-sim and count how each case ends (issue 29).

Usage::

    .venv/bin/python experiments/fuzz_inputs.py                     # 40 cases per family, seed 1
    .venv/bin/python experiments/fuzz_inputs.py --cases 200 --seed 7 --families theft_position,env_args
    .venv/bin/python experiments/fuzz_inputs.py --list              # the families and what each feeds

It prints one row per family with the count of cases in each outcome:

- ``clean``: refused the way the project promises: the documented exception with a one-line message
  (Python APIs: positions, plug-in parameters, environments), or exit status 2 with one line starting
  ``cya-sim`` (commands);
- ``accepted``: accepted, and the check made after it holds (a position that is not over has a legal
  action the engine can apply; a command that would play or exits 0; an environment that resets);
- ``traceback``: any other exception, exit status 1 ("internal error"), a traceback on stderr or a refusal
  of more than one line;
- ``hang``: no answer within ``--timeout`` seconds (the case's worker is killed);
- ``crash``: the worker process died (a segmentation fault, an abort);
- ``wrong``: accepted although it must not be: a position from which the engine cannot move, a command or
  plug-in run that exits 0 with a misbehaving plug-in, an integer of more than 4,300 digits taken.

Each family runs in a worker process of its own (``--worker``), case after case; the parent reads one JSON
line per case, so a hang or a crash costs one case and a fresh worker. Cases are drawn from
``random.Random(f"{seed}:{family}:{i}")``: a case is replayed with ``--families F --start i --cases 1``.
No command plays a game unless its family says so: the strategy commands and the experiment, board and
study files run through their argument parsing and up-front checks only (the function that would play
the first game raises :class:`WouldPlay`, counted as accepted). ``agent_outputs`` plays single games on
the reference engine; ``compiled_plugins`` compiles small misbehaving plug-ins and plays them (the slowest
family: about 5-20 s a case). ``tests/test_fuzz_inputs.py`` runs the same families with Hypothesis.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import math
import os
import queue
import random
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
OUTCOMES = ("clean", "accepted", "traceback", "hang", "crash", "wrong")


class WouldPlay(BaseException):
    """Raised where a command would play its first game: its inputs were accepted."""


# -- value pools --------------------------------------------------------------------------------------------
def odd_value(rng: random.Random) -> Any:
    """A value of the kind users get wrong: wrong types, huge or negative numbers, odd strings, containers."""
    return rng.choice([
        lambda: rng.randint(-3, 12), lambda: rng.choice([0, 1, 2**31, 2**63, 2**64, 10**30, -(2**63)]),
        lambda: 10 ** rng.randint(300, 450), lambda: rng.choice([1.5, -0.5, 1e308, float("inf"), float("nan")]),
        lambda: rng.choice([True, False, None]), lambda: rng.choice(["", "x", "4", "classic", "Gold", "1e400", "\n"]),
        lambda: [rng.randint(-1, 5) for _ in range(rng.randint(0, 3))], lambda: {"a": rng.randint(0, 3)},
    ])()


def json_safe(v: Any) -> Any:
    """``v`` for the report line (huge integers shortened, NaN/inf as text)."""
    if isinstance(v, int) and not isinstance(v, bool) and v.bit_length() > 200:
        return f"<int of {len(str(v)) if v.bit_length() < 14000 else 'many'} digits>"
    if isinstance(v, float) and not math.isfinite(v):
        return repr(v)
    if isinstance(v, list | tuple):
        return [json_safe(x) for x in v]
    if isinstance(v, dict):
        return {str(k): json_safe(x) for k, x in v.items()}
    return v


def one_line_text(msg: str) -> bool:
    """A refusal's message is one non-empty line."""
    return bool(msg.strip()) and "\n" not in msg.strip()


# -- running a command in this process ------------------------------------------------------------------------
@contextlib.contextmanager
def no_games():
    """Make every command stop where it would play its first game (:class:`WouldPlay`)."""
    from cya_sim.runs import runner
    from cya_sim.studies import tune

    def stop(*_a, **_k):
        raise WouldPlay

    saved = runner.run_experiment, tune.run_trials
    runner.run_experiment = tune.run_trials = stop
    try:
        yield
    finally:
        runner.run_experiment, tune.run_trials = saved


def run_cli(argv: list[str], play: bool = False) -> tuple[str, str]:
    """Run ``cya-sim argv`` in this process; (outcome, detail). Exit 0 or WouldPlay is "accepted"."""
    from cya_sim.cli.main import main

    err, out = io.StringIO(), io.StringIO()
    try:
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out), \
                (contextlib.nullcontext() if play else no_games()):
            status = main(argv)
    except WouldPlay:
        return "accepted", "would play"
    except SystemExit as e:
        status = e.code if isinstance(e.code, int) else 2
    text = err.getvalue().strip()
    if status == 0:
        return "accepted", "exit 0"
    if status == 2 and one_line_text(text) and text.startswith("cya-sim") and "Traceback" not in text:
        return "clean", text[:160]
    return "traceback", f"exit {status}: {text[-300:]}"


def in_fresh_folder(files: dict[str, str | bytes]) -> Path:
    """A new empty folder (the current directory from now on) holding ``files``."""
    d = Path(tempfile.mkdtemp(prefix="case-", dir=os.environ.get("CYA_FUZZ_WORK")))
    os.chdir(d)
    for name, text in files.items():
        (d / name).write_bytes(text.encode("utf-8", "surrogateescape") if isinstance(text, str) else text)
    return d


# -- families -------------------------------------------------------------------------------------------------
@dataclass
class Family:
    """An input family: ``generate(rng)`` draws a case (JSON-able); ``run(case)`` gives (outcome, detail)."""

    name: str
    feeds: str
    generate: Callable[[random.Random], Any]
    run: Callable[[Any], tuple[str, str]]
    timeout_s: float = 60.0


def _mutate(d: Any, rng: random.Random, values: Callable[[random.Random], Any]) -> list[str]:
    """Replace or delete 1-3 fields of the JSON tree ``d`` in place; returns the paths changed."""
    changed = []
    for _ in range(rng.randint(1, 3)):
        node, path = d, []
        while isinstance(node, dict | list) and node and rng.random() < 0.7:
            key = rng.choice(list(node) if isinstance(node, dict) else range(len(node)))
            path.append(key)
            if not isinstance(node[key], dict | list) or not node[key]:
                break
            node = node[key]
        if not path:
            continue
        parent = d
        for k in path[:-1]:
            parent = parent[k]
        if isinstance(parent, dict) and rng.random() < 0.15:
            del parent[path[-1]]
        else:
            parent[path[-1]] = values(rng)
        changed.append(".".join(map(str, path)))
    return changed


def _position_values(rng: random.Random) -> Any:
    return rng.choice([
        lambda: odd_value(rng), lambda: rng.randint(-1, 6), lambda: rng.choice(["play", "over", "discard", "setup",
                                                                                "defence", "x"]),
        lambda: [rng.randint(0, 3) for _ in range(rng.randint(0, 3))], lambda: rng.randint(0, 3),
    ])()


def _played_state(game: str, rng: random.Random):
    """A state of ``game`` after a random number of random legal moves (any phase, the end included)."""
    import numpy as np

    from cya_sim.game.rng import root_key

    if game == "classic":
        from cya_sim.engine.classic.reference import apply_action, legal_action_mask, new_game
        from cya_sim.game.rules import get_rules

        preset = rng.choice(["classic", "classic", "advanced", "basic", "two_player_draft"])
        rules = get_rules(preset)
        p = rng.randint(rules.min_players, min(rules.max_players, 4))
        s = new_game(rules, p, root_key(rng.randint(0, 10**6)), 0)
    else:
        from cya_sim.engine.theft.legal import legal_action_mask
        from cya_sim.engine.theft.reference import apply_action, new_game
        from cya_sim.game.theft.rules import PRESETS as THEFT_PRESETS

        rules = THEFT_PRESETS["theft"].with_options(max_turns=rng.choice([1000, 3, 8]))
        s = new_game(rules, rng.randint(2, 4), root_key(rng.randint(0, 10**6)), 0)
    for _ in range(rng.choice([0, 1, 5, 20, 60, 200, 5000])):
        if s.to_act < 0:
            break
        legal = np.flatnonzero(legal_action_mask(s))
        apply_action(s, int(legal[rng.randrange(len(legal))]))
    return s


def _THEFT_FIELDS(p: int) -> dict[str, list]:
    return {"phase": ["setup", "play", "defence", "discard", "over"], "winners": [None, [], [0], [0, 0], [p - 1]],
            "final_turns_left": [None, 0, 1, p - 1, p], "trigger_seat": [-1, 0, p - 1],
            "current_player": list(range(p)), "capped": [False, True], "thefts_this_turn": [0, 1, 2],
            "theft": [None], "first_player": list(range(p))}


def _CLASSIC_FIELDS(p: int) -> dict[str, list]:
    return {"winners": [None, [0], [0, 1], [p - 1]], "eligible": [None, [0, 1], [0]], "extra_rounds": [0, 1, 2],
            "current_player": list(range(p)), "challenge": [None], "totals": [[0] * p, [1_000_000] * p,
                                                                              [5] + [0] * (p - 1)],
            "round": [1, 2, 1000], "played_this_turn": [[], [0]], "draft_offer": [[], [1 % p]]}


def _gen_position(game: str) -> Callable[[random.Random], Any]:
    def gen(rng: random.Random) -> Any:
        if game == "classic":
            from cya_sim.game.classic.position import state_to_dict
        else:
            from cya_sim.game.theft.position import state_to_dict
        d = state_to_dict(_played_state(game, rng))
        r = rng.random()
        if r < 0.5:  # plausible values in the fields that say where the game stands: mostly read, some impossible
            changed = []
            p = d["players"]
            pools = (_THEFT_FIELDS if game == "theft" else _CLASSIC_FIELDS)(p)
            for key in rng.sample(list(pools), rng.randint(1, 3)):
                d[key] = rng.choice(pools[key])
                changed.append(key)
        elif r < 0.9:
            changed = _mutate(d, rng, _position_values)
        else:
            changed = []
        return {"doc": d, "changed": changed}
    return gen


def _run_position(game: str) -> Callable[[Any], tuple[str, str]]:
    def run(case: Any) -> tuple[str, str]:
        import numpy as np

        if game == "classic":
            from cya_sim.engine.classic.reference import apply_action, legal_action_mask
            from cya_sim.game.classic.position import PositionError as Err
            from cya_sim.game.classic.position import loads
        else:
            from cya_sim.engine.theft.legal import legal_action_mask
            from cya_sim.engine.theft.reference import apply_action
            from cya_sim.game.theft.position import TheftPositionError as Err
            from cya_sim.game.theft.position import loads
        try:
            text = json.dumps(case["doc"])
        except (TypeError, ValueError):
            return "clean", "not JSON-able"
        try:
            s = loads(text)
        except Err as e:
            return ("clean", str(e)[:160]) if one_line_text(str(e)) else ("traceback", f"two lines: {e}"[:300])
        except Exception as e:  # noqa: BLE001 -- the point: anything else is a finding
            return "traceback", f"{type(e).__name__}: {e}"[:300]
        if s.to_act < 0:
            w = s.winners
            if not w or len(set(w)) != len(w):
                return "wrong", f"accepted a finished game with winners {w}"
            if game == "theft":
                scores = s.scores()
                if sorted(w) != [i for i, v in enumerate(scores) if v == max(scores)]:
                    return "wrong", f"accepted winners {w} for points {scores} (R-T-END)"
            return "accepted", "game over"
        ftl0, turns0 = getattr(s, "final_turns_left", None), s.turns
        rng = random.Random(0)
        try:
            for _ in range(3000):  # play on at random: it must keep moving, and R-T-END must end it
                if s.to_act < 0:
                    break
                legal = np.flatnonzero(legal_action_mask(s))
                if legal.size == 0:
                    return "wrong", f"accepted with no legal action for seat {s.to_act} (changed {case['changed']})"
                apply_action(s, int(legal[rng.randrange(legal.size)]))
                if ftl0 is not None and s.turns - turns0 > s.n_players:
                    return "wrong", f"accepted final_turns_left = {ftl0}; the game did not end by R-T-END"
        except Exception as e:  # noqa: BLE001
            return "wrong", f"accepted, then the engine failed: {type(e).__name__}: {e}"[:300]
        return "accepted", "play goes on from it"
    return run


def gen_position_text(rng: random.Random) -> Any:
    kind = rng.randrange(5)
    n = rng.randint(60, 100_000)
    text = [lambda: "[" * n + "]" * n, lambda: '{"a": ' * min(n, 5000), lambda: '{"players": ' + "7" * rng.randint(
        4301, 20000) + "}", lambda: "".join(chr(rng.randint(0, 300)) for _ in range(rng.randint(0, 40))),
        lambda: '{"format": "cya-sim-position", "version": 1, "rules": {"preset": "classic", "options": '
                '{"hand_size": ' + "5" * 5000 + "}}}"][kind]()
    return {"text": text, "game": rng.choice(["classic", "theft"])}


def run_position_text(case: Any) -> tuple[str, str]:
    if case["game"] == "classic":
        from cya_sim.game.classic.position import PositionError as Err
        from cya_sim.game.classic.position import loads
    else:
        from cya_sim.game.theft.position import TheftPositionError as Err
        from cya_sim.game.theft.position import loads
    try:
        loads(case["text"])
    except Err as e:
        return ("clean", str(e)[:160]) if one_line_text(str(e)) else ("traceback", str(e)[:300])
    except Exception as e:  # noqa: BLE001
        return "traceback", f"{type(e).__name__}: {e}"[:300]
    return "wrong", "accepted a text that is no position"


#: Small valid inputs of every TOML reader, each with the command that reads it without playing.
TOML_FILES = {
    "experiment": ("exp.toml", ("name = 'e'\ngames = 4\nseed = 1\nplayers = [2]\nagents = ['greedy', 'random']\n"
                   "[rules]\npreset = 'classic'\n[design]\nkind = 'round_robin'\n[run]\nengine = 'reference'\n"
                   "workers = 1\n"), ["tournament", "exp.toml", "--quiet"]),
    "deck": ("deck.toml", ("name = 'd'\n[[cards]]\nname = 'A'\nkind = 'asset'\nvalue = 10000\ncopies = 10\n"
             "[[cards]]\nname = 'B'\nkind = 'asset'\nvalue = 5000\ncopies = 10\n[[cards]]\nname = 'W'\nkind = 'wild'\n"
             "value = 0\ncopies = 2\n"), ["rules", "classic", "--deck", "deck.toml"]),
    "board": ("board.toml", ("agents = ['greedy', 'random']\npresets = ['classic']\nplayers = [2]\nseed = 1\n"
              "[deals]\n2 = 10\n[quick]\n[quick.deals]\n2 = 4\n"), ["leaderboard", "board.toml", "--out", "lb",
                                                                  "--quiet"]),
    "study": ("study.toml", ("name = 's'\nseed = 1\ndeals = 10\nplayers = [2]\n[[tip]]\nid = 'T1'\ncontrol = 'greedy'\n"
              "treatment = 'heuristic(backup=true)'\n"), ["tips", "study.toml", "--out", "tp", "--quiet"]),
}


def _toml_literal(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int | float):
        return {"nan": "nan", "inf": "inf", "-inf": "-inf"}.get(repr(v), repr(v) if isinstance(v, float) else str(v))
    if isinstance(v, str):
        return json.dumps(v)
    if v is None:
        return '""'
    if isinstance(v, list):
        return "[" + ", ".join(_toml_literal(x) for x in v) + "]"
    return "{" + ", ".join(f"{k} = {_toml_literal(x)}" for k, x in v.items()) + "}"


def gen_toml(rng: random.Random) -> Any:
    kind = rng.choice(list(TOML_FILES))
    name, text, argv = TOML_FILES[kind]
    lines = text.splitlines()
    must_refuse = False
    for _ in range(rng.randint(1, 2)):
        i = rng.randrange(len(lines))
        if "=" not in lines[i]:
            continue
        key = lines[i].split("=")[0].strip()
        r = rng.random()
        if r < 0.35:
            lines[i] = f"{key} = {'9' * rng.randint(4301, 9000)}"  # beyond the int/str limit
            must_refuse = True
        elif r < 0.45:
            depth = rng.randint(200, 3000)
            lines[i] = f"{key} = {'[' * depth}1{']' * depth}"
            must_refuse = True
        else:
            v = odd_value(rng) if rng.random() < 0.9 else 10**rng.randint(20, 400)
            lines[i] = f"{key} = {_toml_literal(v)}"
            # no integer field takes 10**20 or more (seeds stop at 2**63 - 1, target_score at 10**15)
            must_refuse |= isinstance(v, int) and not isinstance(v, bool) and abs(v) >= 10**20
    return {"kind": kind, "file": name, "text": "\n".join(lines) + "\n", "argv": argv, "must_refuse": must_refuse}


def run_toml(case: Any) -> tuple[str, str]:
    in_fresh_folder({case["file"]: case["text"]})
    outcome, detail = run_cli(case["argv"])
    if outcome == "accepted" and case["must_refuse"]:
        return "wrong", "accepted a file with an integer of 10**20 or more, or nested too deep"
    return outcome, detail


def gen_option_flags(rng: random.Random) -> Any:
    key = rng.choice(["hand_size", "target_score", "max_rounds", "tie_break", "end_condition", "max_extra_rounds",
                      "hidden_wilds", "nosuch", "max_turns", "copies_per_number"])
    value = rng.choice([lambda: "9" * rng.randint(4301, 6000), lambda: str(10 ** rng.randint(10, 400)),
                        lambda: _toml_literal(odd_value(rng)), lambda: "[" * 2000 + "1" + "]" * 2000,
                        lambda: rng.choice(["5", "true", "{2 = 5}", "keep", "rounds:3"])])()
    rules = rng.choice(["classic", "advanced", "theft"])
    return {"argv": ["rules", rules, "--option", f"{key}={value}"], "must_refuse": len(value) > 4300}


def run_option_flags(case: Any) -> tuple[str, str]:
    in_fresh_folder({})
    outcome, detail = run_cli(case["argv"])
    if outcome == "accepted" and case["must_refuse"]:
        return "wrong", "accepted an option value of more than 4,300 digits"
    return outcome, detail


def gen_plugin_params(rng: random.Random) -> Any:
    params = {f"p{i}": odd_value(rng) for i in range(rng.randint(0, 3))}
    return {"params": params, "spec": rng.random() < 0.3}


def run_plugin_params(case: Any) -> tuple[str, str]:
    import math

    from agents.plugin import plugin_params
    from agents.spec import AgentSpecError, normalise_spec

    params = case["params"]
    if case["spec"]:  # the same values written into a spec string
        spec = "m:decide(" + ", ".join(f"{k}={_toml_literal(v)}" for k, v in params.items()) + ")"
        try:
            normalise_spec(spec)
        except AgentSpecError as e:
            return ("clean", str(e)[:160]) if one_line_text(str(e)) else ("traceback", str(e)[:300])
        except Exception as e:  # noqa: BLE001
            return "traceback", f"{type(e).__name__}: {e}"[:300]
    try:
        out = plugin_params("m:decide", params)
    except ValueError as e:
        return ("clean", str(e)[:160]) if one_line_text(str(e)) else ("traceback", str(e)[:300])
    except Exception as e:  # noqa: BLE001
        return "traceback", f"{type(e).__name__}: {e}"[:300]
    for i, v in enumerate(params.values()):
        if not math.isfinite(out[i]) or out[i] != float(v):
            return "wrong", f"parameter {i} = {json_safe(v)} became {out[i]}"
    return "accepted", "packed as float64"


ENV_ARGS = {
    "aec": ("rules", "n_players", "reward", "render_mode", "seat_names", "stack_depth"),
    "gym": ("rules", "n_players", "seat", "opponents", "reward", "observation", "illegal_action", "render_mode",
            "stack_depth"),
    "pettingzoo": ("rules", "n_players", "reward", "render_mode", "seat_names", "stack_depth", "illegal_action"),
    "vector": ("num_envs", "rules", "n_players", "seat", "opponents", "reward", "observation", "stack_depth",
               "render_mode"),
    "sb3": ("num_envs", "rules", "n_players", "seat", "opponents", "reward", "dense_weight"),
    "openspiel": ("players", "rules", "rounds", "max_rounds", "options"),
}


def gen_env_args(rng: random.Random) -> Any:
    kind = rng.choice(list(ENV_ARGS))
    names = list(ENV_ARGS[kind]) + ["nosuch"]
    good = {"rules": rng.choice(["classic", "theft", "basic"]), "n_players": rng.randint(2, 4), "players": 2,
            "num_envs": 2, "seat": 0}
    kwargs = {}
    for n in rng.sample(names, rng.randint(1, 3)):
        kwargs[n] = odd_value(rng) if rng.random() < 0.8 else good.get(n, 1)
    if kind in ("vector", "sb3"):
        kwargs.setdefault("num_envs", 2)
    return {"kind": kind, "kwargs": kwargs}


def run_env_args(case: Any) -> tuple[str, str]:
    import warnings

    from cya_sim.game.errors import RulesError

    warnings.filterwarnings("ignore")
    kind, kwargs = case["kind"], case["kwargs"]
    try:
        if kind == "aec":
            from cya_sim.env import CoverYourAssetsAEC as ctor
        elif kind == "gym":
            from cya_sim.env import CoverYourAssetsGym as ctor
        elif kind == "pettingzoo":
            from cya_sim.env.cover_your_assets_v0 import env as ctor
        elif kind == "vector":
            from cya_sim.env import CoverYourAssetsVectorEnv as ctor
        elif kind == "sb3":
            from cya_sim.env.sb3 import ViewFeatureVectorEnv as ctor
        else:
            from cya_sim.env.openspiel import CoverYourAssetsGame as ctor
        e = ctor(kwargs) if kind == "openspiel" else ctor(**kwargs)
    except (ValueError, TypeError, RulesError) as err:
        msg = str(err)
        if "unexpected keyword argument" in msg or "object has no attribute" in msg or "cannot be interpreted" in msg:
            return "traceback", f"{type(err).__name__} from inside: {msg}"[:300]
        return ("clean", msg[:160]) if one_line_text(msg) else ("traceback", msg[:300])
    except Exception as err:  # noqa: BLE001
        return "traceback", f"{type(err).__name__}: {err}"[:300]
    if kind in ("aec", "gym", "pettingzoo"):
        try:
            e.reset(seed=0)
        except Exception as err:  # noqa: BLE001
            return "wrong", f"accepted, then reset failed: {type(err).__name__}: {err}"[:300]
    if kind == "openspiel":
        try:
            e.new_initial_state()
        except Exception as err:  # noqa: BLE001
            return "wrong", f"accepted, then new_initial_state failed: {type(err).__name__}: {err}"[:300]
    return "accepted", "constructed"


def _flag_value(rng: random.Random, kind: str) -> str:
    return rng.choice([
        lambda: str(rng.randint(-2, 6)), lambda: str(10 ** rng.randint(18, 420)), lambda: "9" * rng.randint(4301, 5000),
        lambda: rng.choice(["1e300", "nan", "inf", "-1", "0", "1.5", "x", "", "1e-300"]),
        lambda: rng.choice(["greedy,random", "greedy", "greedy,greedy", "heuristic,greedy", "nosuch", "random,",
                            "heuristic(backup=true),greedy"]) if kind == "specs" else str(rng.randint(0, 3)),
    ])()


#: Absurd values: a command that accepts one of them should have refused it.
ABSURD = ("nan", "inf", "1e300")


def gen_strategy_flags(rng: random.Random) -> Any:
    cmd = rng.choice(["tune", "metagame", "leaderboard"])
    if cmd == "tune":
        argv = ["tune", "--agent", rng.choice(["heuristic", "heuristic(backup=true)", "greedy", "nosuch"]),
                "--field", rng.choice(["random", "greedy,random", "random,random,random,random", ""]), "--out", "tu"]
        flags = ["--players", "--trials", "--trial-deals", "--heldout-deals", "--seed", "--workers", "--space",
                 "--fix", "--compare", "--sampler", "--option", "--rules"]
    elif cmd == "metagame":
        argv = ["metagame", "--pool", rng.choice(["greedy,random", "greedy,random,card_counter", "greedy", ""]),
                "--out", "mg"]
        flags = ["--players", "--deals", "--seed", "--bootstrap", "--alpha", "--population", "--workers", "--option",
                 "--rules"]
    else:
        argv = ["leaderboard", "board.toml", "--out", "lb"]
        flags = ["--workers", "--quick"]
    values = []
    for f in rng.sample(flags, rng.randint(1, min(3, len(flags)))):
        if f == "--quick":
            argv.append(f)
            continue
        v = _flag_value(rng, "specs" if f in ("--compare",) else "n")
        if f == "--space":
            v = rng.choice(["backup=bool", f"count=0:{v}", f"k={v}:1", "x"])
        if f == "--option":
            v = f"hand_size={v}"
        argv += [f, v]
        values.append(v)
    return {"argv": argv, "absurd": any(v in ABSURD or len(v) > 4300 for v in values)}


def run_strategy_flags(case: Any) -> tuple[str, str]:
    in_fresh_folder({"board.toml": TOML_FILES["board"][1]})
    outcome, detail = run_cli(case["argv"])
    if outcome == "accepted" and case["absurd"]:
        return "wrong", f"accepted {case['argv']}"[:300]
    return outcome, detail


def gen_tournament_flags(rng: random.Random) -> Any:
    argv = ["tournament", "--out", "t", "--quiet", "--engine", "reference"]
    for f in rng.sample(["--games", "--players", "--agents", "--seed", "--rules", "--workers", "--chunk-size",
                         "--option", "--design"], rng.randint(1, 4)):
        v = _flag_value(rng, "specs" if f == "--agents" else "n")
        if f == "--rules":
            v = rng.choice(["classic", "theft", "clasic", "advanced", v])
        if f == "--option":
            v = f"hand_size={v}"
        argv += [f, v]
    return {"argv": argv}


def run_tournament_flags(case: Any) -> tuple[str, str]:
    in_fresh_folder({})
    return run_cli(case["argv"])


SCRIPT_AGENT = '''
import numpy as np
SCRIPT = {script!r}
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
        if v == "write-mask":
            obs.legal_action_mask[:] = True
            return int(obs.legal_action_mask.size - 1)
        return v
'''


def gen_agent_outputs(rng: random.Random) -> Any:
    pool = ["legal", "legal", "legal", "raise", "write-mask", None, True, 2.5, "3", -1, 10**20, [1], 10**5]
    return {"script": [rng.choice(pool) for _ in range(rng.randint(1, 4))], "seed": rng.randint(0, 50),
            "rules": rng.choice(["classic", "theft"])}


def run_agent_outputs(case: Any) -> tuple[str, str]:
    d = in_fresh_folder({})
    mod = f"fuzz_agent_{abs(hash(json.dumps(case, default=str))) % 10**9}"
    (d / f"{mod}.py").write_text(SCRIPT_AGENT.format(script=case["script"]))
    sys.path.insert(0, str(d))
    try:
        outcome, detail = run_cli(["play", "--rules", case["rules"], "--agents", f"{mod}:Scripted,greedy", "--seed",
                                   str(case["seed"])], play=True)
    finally:
        sys.path.remove(str(d))
    if outcome == "clean" and not ("at seat" in detail and "in game" in detail):
        return "traceback", f"a refusal that does not name agent, seat and game: {detail}"
    return outcome, detail


#: Misbehaviours of a compiled plug-in (the body of decide after ``legal``, the first legal action, is known).
PLUGIN_BEHAVIOURS = {
    "legal": "return legal",
    "raise": "raise ValueError('plug-in failure')",
    "minus_one": "return -1",
    "out_of_range": "return 100000",
    "illegal": "return illegal",
    "write_mask": "mask[:] = True\n    return mask.shape[0] - 1",
}
PLUGIN = '''
from numba import njit

@njit(cache=False)
def decide(params, hdr, hand, values, unseen, seats, gave_up, mask, rng):
    legal = -1
    illegal = -1
    for a in range(mask.shape[0]):
        if mask[a] and legal < 0:
            legal = a
        if not mask[a] and illegal < 0:
            illegal = a
    {body}
'''


def gen_compiled_plugins(rng: random.Random) -> Any:
    return {"behaviour": rng.choice(list(PLUGIN_BEHAVIOURS)),
            "role": rng.choice(["player_reference", "player_batched", "rollout_ismcts", "rollout_pimc"]),
            "seed": rng.randint(0, 20)}


def run_compiled_plugins(case: Any) -> tuple[str, str]:
    d = in_fresh_folder({})
    mod = f"fuzz_plugin_{case['behaviour']}"
    (d / f"{mod}.py").write_text(PLUGIN.format(body=PLUGIN_BEHAVIOURS[case["behaviour"]]))
    sys.path.insert(0, str(d))
    spec = f"{mod}:decide"
    role = case["role"]
    if role.startswith("rollout"):
        algo = role.split("_")[1]
        spec = f'{algo}(iterations=30, rollout="{spec}")'
    if role == "player_batched":
        argv = ["tournament", "--agents", f"{spec},greedy", "--players", "2", "--games", "2", "--engine", "batched",
                "--workers", "1", "--seed", str(case["seed"]), "--out", "t", "--quiet"]
    else:
        argv = ["play", "--agents", f"{spec},greedy", "--seed", str(case["seed"])]
    try:
        outcome, detail = run_cli(argv, play=True)
    finally:
        sys.path.remove(str(d))
    if outcome == "accepted" and case["behaviour"] != "legal":
        return "wrong", f"a plug-in that does '{case['behaviour']}' {role}: exit 0"
    return outcome, detail


FAMILIES = {f.name: f for f in [
    Family("classic_position", "mutated classic positions of played games (cya_sim.game.classic.position)",
           _gen_position("classic"), _run_position("classic")),
    Family("theft_position", "mutated theft positions of played games (cya_sim.game.theft.position)",
           _gen_position("theft"), _run_position("theft")),
    Family("position_text", "texts that are no position: deep nesting, integers of thousands of digits, bytes",
           gen_position_text, run_position_text),
    Family("toml_files", "experiment, deck, board and tip-study files with huge, deep or wrong-typed values",
           gen_toml, run_toml),
    Family("option_flags", "--option KEY=VALUE values (huge, deep, wrong-typed) of cya-sim rules", gen_option_flags,
           run_option_flags),
    Family("plugin_params", "compiled plug-in parameters (plugin_params and spec strings)", gen_plugin_params,
           run_plugin_params),
    Family("env_args", "environment constructor arguments and OpenSpiel game parameters", gen_env_args, run_env_args),
    Family("strategy_flags", "tune, metagame and leaderboard flags, checked up front (no game played)",
           gen_strategy_flags, run_strategy_flags),
    Family("tournament_flags", "tournament flags, checked up front (no game played)", gen_tournament_flags,
           run_tournament_flags),
    Family("agent_outputs", "what a Python agent returns, raises or writes into its mask (one game, reference)",
           gen_agent_outputs, run_agent_outputs),
    Family("compiled_plugins", "misbehaving compiled plug-ins as players (both engines) and as search rollouts",
           gen_compiled_plugins, run_compiled_plugins, timeout_s=180.0),
]}


def _self_test_hang(case: Any) -> tuple[str, str]:
    time.sleep(3600)
    return "clean", ""


def _self_test_crash(case: Any) -> tuple[str, str]:
    os.abort()


#: Families that test the harness itself (tests/test_fuzz_inputs.py); not run by default.
FAMILIES |= {f.name: f for f in [Family("_hang", "a case that never answers", lambda rng: None, _self_test_hang, 1),
                                 Family("_crash", "a case that kills its worker", lambda rng: None, _self_test_crash)]}


# -- worker and parent ----------------------------------------------------------------------------------------
def case_rng(seed: int, family: str, i: int) -> random.Random:
    """The random stream of case ``i`` of ``family`` (replayable on its own)."""
    return random.Random(f"{seed}:{family}:{i}")


def classify(family: Family, case: Any) -> tuple[str, str]:
    """(outcome, detail) of one case run in this process; an exception escaping ``run`` is a traceback."""
    cwd = os.getcwd()
    try:
        return family.run(case)
    except Exception as e:  # noqa: BLE001 -- a finding, not a failure of the harness
        return "traceback", f"{type(e).__name__}: {e}"[:300]
    finally:
        os.chdir(cwd)


def describe(case: Any) -> str:
    """A short form of a case for the report (a position by its changed fields, a text by its length)."""
    if isinstance(case, dict) and "doc" in case:
        short: Any = {"changed": case["changed"]}
    elif isinstance(case, dict) and "text" in case:
        short = {k: (f"<{len(v):,} characters>" if k == "text" else v) for k, v in case.items()}
    else:
        short = case
    short = json_safe(short)
    if isinstance(short, dict) and "argv" in short:
        short["argv"] = [a if len(a) <= 40 else f"{a[:12]}...<{len(a):,} characters>" for a in short["argv"]]
    try:
        text = json.dumps(short)
    except (TypeError, ValueError):
        text = repr(short)
    return text if len(text) <= 240 else text[:237] + "..."


def worker(name: str, seed: int, start: int, n: int) -> None:
    """Run cases ``start .. start + n - 1`` of family ``name``, one JSON line per case on stdout."""
    fam = FAMILIES[name]
    os.environ.setdefault("CYA_FUZZ_WORK", tempfile.mkdtemp(prefix=f"cya-fuzz-{name}-"))
    for i in range(start, start + n):
        print(json.dumps({"start": i}), flush=True)
        case = fam.generate(case_rng(seed, name, i))
        outcome, detail = classify(fam, case)
        if outcome not in ("clean", "accepted"):
            detail = f"{detail} [case {describe(case)}]"
        print(json.dumps({"i": i, "outcome": outcome, "detail": " ".join(str(detail).split())[:600]}), flush=True)


def _pump(proc: subprocess.Popen, lines: queue.Queue) -> None:
    """Copy the worker's stdout lines into ``lines``; None at its end."""
    for x in proc.stdout:
        lines.put(x)
    lines.put(None)


def run_family(name: str, seed: int, start: int, n: int, timeout_s: float | None, show: bool) -> dict[str, int]:
    """Counts of outcomes of ``n`` cases of ``name``, each in a worker process, hangs and crashes included."""
    fam = FAMILIES[name]
    limit = timeout_s or fam.timeout_s
    counts = dict.fromkeys(OUTCOMES, 0)
    i, end = start, start + n
    while i < end:
        proc = subprocess.Popen([sys.executable, __file__, "--worker", name, "--seed", str(seed), "--start", str(i),
                                 "--cases", str(end - i)], stdout=subprocess.PIPE, text=True, cwd=ROOT,
                                start_new_session=True)
        lines: queue.Queue = queue.Queue()
        threading.Thread(target=_pump, args=(proc, lines), daemon=True).start()
        deadline = time.monotonic() + limit + 60  # the worker's imports and first compile
        while i < end:
            try:
                line = lines.get(timeout=max(0.1, deadline - time.monotonic()))
            except queue.Empty:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
                counts["hang"] += 1
                if show:
                    print(f"  {name}[{i}]: hang (no answer in {limit:.0f} s) [case "
                          f"{describe(fam.generate(case_rng(seed, name, i)))}]", file=sys.stderr)
                i += 1
                break
            if line is None:
                code = proc.wait()
                counts["crash"] += 1
                if show:
                    print(f"  {name}[{i}]: crash (worker exit {code}) [case "
                          f"{describe(fam.generate(case_rng(seed, name, i)))}]", file=sys.stderr)
                i += 1
                break
            msg = json.loads(line)
            if "start" in msg:
                deadline = time.monotonic() + limit
                continue
            counts[msg["outcome"]] += 1
            if show and msg["outcome"] not in ("clean", "accepted"):
                print(f"  {name}[{msg['i']}]: {msg['outcome']}: {msg['detail']}", file=sys.stderr)
            i = msg["i"] + 1
        else:
            proc.wait()
    return counts


def table(rows: dict[str, dict[str, int]]) -> str:
    """A Markdown table of the counts: one row per family."""
    head = "| family | cases | " + " | ".join(OUTCOMES) + " |"
    out = [head, "|" + "---|" * (len(OUTCOMES) + 2)]
    for name, c in rows.items():
        out.append(f"| {name} | {sum(c.values())} | " + " | ".join(str(c[o]) for o in OUTCOMES) + " |")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    """Parse the flags; run the families; print the table (exit 1 when a case hung, crashed or was misread)."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--cases", type=int, default=40, help="cases per family (default 40)")
    p.add_argument("--seed", type=int, default=1, help="seed of the cases (default 1)")
    p.add_argument("--start", type=int, default=0, help="index of the first case (replay one with --cases 1)")
    p.add_argument("--families", default="", help="comma-separated families (default: all)")
    p.add_argument("--timeout", type=float, default=None, help="seconds a case may take (default: per family)")
    p.add_argument("--quiet", action="store_true", help="only the table (not each finding)")
    p.add_argument("--list", action="store_true", help="list the families")
    p.add_argument("--worker", default=None, help=argparse.SUPPRESS)
    a = p.parse_args(argv)
    if a.worker:
        worker(a.worker, a.seed, a.start, a.cases)
        return 0
    if a.list:
        print("\n".join(f"{f.name}: {f.feeds}" for f in FAMILIES.values() if not f.name.startswith("_")))
        return 0
    names = [x for x in a.families.split(",") if x] or [f for f in FAMILIES if not f.startswith("_")]
    unknown = [x for x in names if x not in FAMILIES]
    if unknown:
        p.error(f"--families: unknown {', '.join(unknown)}; choose from: {', '.join(FAMILIES)}")
    t0 = time.perf_counter()
    rows = {}
    for name in names:
        rows[name] = run_family(name, a.seed, a.start, a.cases, a.timeout, not a.quiet)
        if not a.quiet:
            print(f"{name}: {rows[name]}", file=sys.stderr)
    print(table(rows))
    print(f"\n{a.cases} cases per family, seed {a.seed}; {time.perf_counter() - t0:.0f} s wall")
    bad = sum(c[o] for c in rows.values() for o in ("traceback", "hang", "crash", "wrong"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    sys.exit(main())
