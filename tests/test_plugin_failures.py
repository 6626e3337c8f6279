"""Every agent failure is named, never played (issue 29, item 3): a compiled plug-in that raises, returns an id
outside the action space or an illegal one, or an agent that writes into the ``legal_action_mask`` it was handed,
is refused in one line naming the agent, the seat and the game (exit status 2) — on both engines, for both games,
as a player and as a search rollout; no game of the refused batch is stored, and a rerun after the plug-in is
fixed plays.

Before: on the batched engine numba's C entry swallowed the plug-in's exception and returned 0 (the run exited 0
with games in which the plug-in "played" action 0); a rollout plug-in's bad id made the search spin for ever or
crash; a mask writer on the reference engine had its illegal action applied.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from cya_sim.cli.main import main
from cya_sim.results.folder import GAMES_DIR

CLASSIC = '''
from numba import njit


@njit(cache=True)
def raiser(params, hdr, hand, values, unseen, seats, gave_up, mask, rng):
    if hdr[0] >= 0:
        raise ValueError("boom")
    return 0


@njit(cache=True)
def out_of_range(params, hdr, hand, values, unseen, seats, gave_up, mask, rng):
    return 10 ** 9


@njit(cache=True)
def illegal(params, hdr, hand, values, unseen, seats, gave_up, mask, rng):
    for a in range(mask.shape[0]):
        if not mask[a]:
            return a
    return -1


@njit(cache=True)
def mask_writer(params, hdr, hand, values, unseen, seats, gave_up, mask, rng):
    for a in range(mask.shape[0]):  # its own copy: the engine checks against its own mask
        mask[a] = True
    return mask.shape[0] - 1 if hdr[0] >= 0 else 0


@njit(cache=True)
def t_raiser(params, hdr, hand, values, unseen, assets, mask, rng):
    if hdr[0] >= 0:
        raise ValueError("boom")
    return 0


@njit(cache=True)
def t_out_of_range(params, hdr, hand, values, unseen, assets, mask, rng):
    return -7


@njit(cache=True)
def t_illegal(params, hdr, hand, values, unseen, assets, mask, rng):
    for a in range(mask.shape[0]):
        if not mask[a]:
            return a
    return -1
'''

PYTHON = '''
from pathlib import Path

import numpy as np


class MaskWriter:
    """Writes True into the mask it is handed, then plays the first id that was not legal."""

    def act(self, obs, rng):
        illegal = int(np.flatnonzero(~obs.legal_action_mask)[0])
        obs.legal_action_mask[:] = True
        return illegal


class SneakyMaskWriter:
    """Makes the mask it is handed writeable again first (NumPy allows it on an array owning its data)."""

    def act(self, obs, rng):
        m = obs.legal_action_mask
        illegal = int(np.flatnonzero(~m)[0])
        m.flags.writeable = True
        m[:] = True
        return illegal
'''

FIXED = '''
from numba import njit


@njit(cache=True)
def raiser(params, hdr, hand, values, unseen, seats, gave_up, mask, rng):
    for a in range(mask.shape[0]):  # fixed: the first legal id
        if mask[a]:
            return a
    return -1
'''


@pytest.fixture(scope="module")
def plugins(tmp_path_factory):
    """The module names of the misbehaving agents, importable (one module each per test session: compiled once)."""
    d = tmp_path_factory.mktemp("misbehaving")
    tag = d.name.replace("-", "_")
    (d / f"bad_plugins_{tag}.py").write_text(CLASSIC)
    (d / f"bad_agents_{tag}.py").write_text(PYTHON)
    mp = pytest.MonkeyPatch()
    mp.syspath_prepend(str(d))
    yield f"bad_plugins_{tag}", f"bad_agents_{tag}"
    mp.undo()


def run(tmp_path, capsys, agents, *extra) -> tuple[int, list[str], object]:
    out = tmp_path / "out"
    code = main(["tournament", "--quiet", "--agents", agents, "--games", "4", "--players", "2", "--workers", "1",
                 "--out", str(out), *extra])
    return code, capsys.readouterr().err.strip().splitlines(), out


def stored_games(out) -> list:
    """The chunk files (and any temporary file) of a results folder's games."""
    return sorted((out / GAMES_DIR).glob("*")) if (out / GAMES_DIR).is_dir() else []


def assert_refused(code, err, agent, words):
    assert code == 2, err
    assert len(err) == 1, err
    # the batched engine names an agent by its spec, the reference engine a Python agent by its class
    assert re.search(rf"agent '(\w+:)?{re.escape(agent)}' at seat \d in game \d+ ", err[0]), err
    assert re.search(words, err[0]), err
    assert "internal error" not in err[0] and "Traceback" not in err[0]


RAISED = r"raised (ValueError: boom|an exception \(compiled code keeps no message)"


@pytest.mark.parametrize("engine", ["batched", "reference"])
def test_a_classic_plugin_that_raises_is_refused_naming_agent_seat_and_game_and_stores_no_game(
        plugins, tmp_path, capsys, engine):
    mod = plugins[0]
    code, err, out = run(tmp_path, capsys, f"{mod}:raiser,greedy", "--engine", engine)
    assert_refused(code, err, f"{mod}:raiser", RAISED)
    assert stored_games(out) == []


@pytest.mark.parametrize("engine", ["batched", "reference"])
def test_a_theft_plugin_that_raises_is_refused_naming_agent_seat_and_game(plugins, tmp_path, capsys, engine):
    mod = plugins[0]
    code, err, out = run(tmp_path, capsys, f"{mod}:t_raiser,greedy", "--rules", "theft", "--engine", engine)
    assert_refused(code, err, f"{mod}:t_raiser", RAISED)
    assert stored_games(out) == []


@pytest.mark.slow
@pytest.mark.parametrize("func, words", [("out_of_range", r"illegal action 1000000000 \(outside the action space\)"),
                                         ("illegal", r"illegal action 0 \("),
                                         ("mask_writer", r"illegal action \d+ \(")])
@pytest.mark.parametrize("engine", ["batched", "reference"])
def test_a_classic_plugin_with_a_bad_id_is_refused_on_both_engines(plugins, tmp_path, capsys, engine, func, words):
    mod = plugins[0]
    code, err, out = run(tmp_path, capsys, f"{mod}:{func},greedy", "--engine", engine)
    assert_refused(code, err, f"{mod}:{func}", words)
    assert stored_games(out) == []


@pytest.mark.slow
@pytest.mark.parametrize("func, words", [("t_out_of_range", r"illegal action -7 \(outside the action space\)"),
                                         ("t_illegal", r"illegal action 0 \(")])
@pytest.mark.parametrize("engine", ["batched", "reference"])
def test_a_theft_plugin_with_a_bad_id_is_refused_on_both_engines(plugins, tmp_path, capsys, engine, func, words):
    mod = plugins[0]
    code, err, out = run(tmp_path, capsys, f"{mod}:{func},greedy", "--rules", "theft", "--engine", engine)
    assert_refused(code, err, f"{mod}:{func}", words)
    assert stored_games(out) == []


def cli(tmp_path, *args) -> subprocess.CompletedProcess:
    """``cya-sim ARGS`` in a new process (each run a process, as from a shell), the plug-ins' folder importable."""
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    return subprocess.run([sys.executable, "-m", "cya_sim.cli.main", *args], env=env, cwd=tmp_path,
                          capture_output=True, text=True, timeout=600, check=False)


@pytest.mark.slow
def test_a_refused_plugin_once_fixed_plays_into_the_same_folder(tmp_path):
    name = f"fixable_{tmp_path.name.replace('-', '_')}"
    (tmp_path / f"{name}.py").write_text(CLASSIC)
    args = ["tournament", "--quiet", "--agents", f"{name}:raiser,greedy", "--games", "4", "--players", "2",
            "--workers", "1", "--out", str(tmp_path / "out")]
    first = cli(tmp_path, *args)
    assert_refused(first.returncode, first.stderr.strip().splitlines(), f"{name}:raiser", RAISED)
    assert stored_games(tmp_path / "out") == []
    (tmp_path / f"{name}.py").write_text(FIXED)
    second = cli(tmp_path, *args)
    assert second.returncode == 0, second.stderr
    assert len(stored_games(tmp_path / "out")) == 1


PLUGIN_WITH_HELPER = '''
from numba import njit

from {helper} import choose


@njit(cache=True)
def decide(params, hdr, hand, values, unseen, seats, gave_up, mask, rng):
    return choose(mask)
'''

HELPER = '''
from numba import njit


@njit(cache=True)
def choose(mask):
    for a in range(mask.shape[0]):
        if mask[a]:
            return a + {shift}
    return -1
'''


@pytest.mark.slow
@pytest.mark.parametrize("engine", ["batched", "reference"])
def test_an_edited_helper_module_of_a_plugin_is_played_at_the_next_run(tmp_path, engine):
    """The entry's hash and numba's caches cover the modules of the user's own tree the plug-in imports (issue 29,
    item 4): before, the next run replayed the helper's old code (the cache was keyed on the plug-in's file)."""
    tag = tmp_path.name.replace("-", "_")
    plugin, helper = f"uses_helper_{tag}", f"helper_{tag}"
    (tmp_path / f"{plugin}.py").write_text(PLUGIN_WITH_HELPER.format(helper=helper))
    (tmp_path / f"{helper}.py").write_text(HELPER.format(shift=0))
    args = ["tournament", "--quiet", "--engine", engine, "--agents", f"{plugin}:decide,greedy", "--games", "2",
            "--players", "2", "--workers", "1", "--out"]
    first = cli(tmp_path, *args, str(tmp_path / "one"))
    assert first.returncode == 0, first.stderr
    (tmp_path / f"{helper}.py").write_text(HELPER.format(shift=10 ** 9))  # the plug-in's own file is unchanged
    second = cli(tmp_path, *args, str(tmp_path / "two"))
    assert second.returncode == 2, second.stderr
    assert re.search(rf"agent '{plugin}:decide' at seat \d in game \d+ returned illegal action 10000000\d\d ",
                     second.stderr), second.stderr


def test_user_modules_follow_the_plugins_imports_into_the_users_tree_only(tmp_path, monkeypatch):
    from agents.plugin import user_modules, user_tree_digest

    tag = tmp_path.name.replace("-", "_")
    pkg = tmp_path / f"pkg_{tag}"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "policy.py").write_text("import numpy as np\nimport json\nfrom numba import njit\nfrom . import util\n"
                                   "from agents.classic.view import uniform\n")
    (pkg / "util.py").write_text(f"from pkg_{tag}.deep import K\n")
    (pkg / "deep.py").write_text("K = 1\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    found = user_modules(f"pkg_{tag}.policy")
    assert sorted(found) == sorted(f"pkg_{tag}{s}" for s in ("", ".policy", ".util", ".deep"))
    before = user_tree_digest(f"pkg_{tag}.policy")
    (pkg / "deep.py").write_text("K = 2\n")
    assert user_tree_digest(f"pkg_{tag}.policy") != before


def test_a_plugin_of_cya_sims_own_packages_gets_a_new_entry_when_it_or_what_it_imports_of_them_changes(monkeypatch):
    """The committed learned models live in the agents package, which user_tree_digest leaves out: the entry's name
    hashes the model's file and the cya-sim modules it imports (agents.classic.learned), so a regenerated model or a
    change of the network's code is never played by the C entry compiled for the old one (issue 33)."""
    from pathlib import Path

    from agents import plugin

    model = "agents.learned_models.classic_4p"
    before = plugin.own_package_digest(model)
    assert before and before != plugin.own_package_digest("agents.learned_models.classic_2p")
    assert plugin.own_package_digest("pkg_of_a_user.policy") == ""
    learned = Path(plugin._source("agents.classic.learned")).resolve()
    real = Path.read_bytes
    monkeypatch.setattr(Path, "read_bytes", lambda self: real(self) + b"#" if self.resolve() == learned else real(self))
    assert plugin.own_package_digest(model) != before


@pytest.mark.parametrize("rules", ["classic", "theft"])
@pytest.mark.parametrize("agent", ["MaskWriter", "SneakyMaskWriter"])
@pytest.mark.parametrize("engine", ["reference", "batched"])
def test_an_agent_that_writes_into_its_legal_action_mask_is_refused_not_played(plugins, tmp_path, capsys, rules,
                                                                               agent, engine):
    """The mask handed out is read-only (the write raises); one made writeable again cannot change the engine's."""
    mod = plugins[1]
    code, err, out = run(tmp_path, capsys, f"{mod}:{agent},greedy", "--rules", rules, "--engine", engine)
    words = r"raised ValueError: assignment destination is read-only" if agent == "MaskWriter" else \
        r"illegal action \d+ \("
    assert_refused(code, err, agent, words)
    assert stored_games(out) == []


def test_the_observation_mask_is_read_only_on_every_engine_path():
    from cya_sim.engine.classic.adapter import reference_observation
    from cya_sim.engine.classic.batched import init
    from cya_sim.engine.classic.reference import new_game
    from cya_sim.engine.classic.reference.observation import observe
    from cya_sim.engine.theft.observation import observe as theft_observe
    from cya_sim.engine.theft.reference import new_game as theft_new_game
    from cya_sim.game.rng import root_key
    from cya_sim.game.rules import get_rules

    rules = get_rules("classic")
    st = new_game(rules, 3, root_key(1), 0)
    masks = [observe(st, st.to_act).legal_action_mask]
    ts = theft_new_game(get_rules("theft"), 3, root_key(1), 0)
    masks.append(theft_observe(ts, ts.to_act).legal_action_mask)
    bs = init(rules, 3, 1, 1, np.zeros(1, np.int64), np.zeros((1, 3), np.int16), ["random"])
    masks.append(reference_observation(bs, 0).legal_action_mask)
    for m in masks:
        assert m.any() and not m.flags.writeable
        with pytest.raises(ValueError, match="read-only"):
            m[0] = True


@pytest.mark.parametrize("func", ["out_of_range", "illegal", "raiser"])
@pytest.mark.parametrize("search", ["ismcts", "pimc"])
def test_a_classic_rollout_plugin_with_a_bad_decision_is_refused_naming_it_as_rollout(plugins, func, search):
    from cya_sim.engine.classic.reference import new_game
    from cya_sim.engine.classic.reference.observation import observe
    from cya_sim.game.rng import root_key
    from cya_sim.game.rules import get_rules
    from cya_sim.search.classic.search import ismcts_search, pimc_search
    from cya_sim.search.tree import RolloutError

    st = new_game(get_rules("classic"), 3, root_key(4), 0)
    obs = observe(st, st.to_act)
    spec = f"{plugins[0]}:{func}"
    what = {"out_of_range": r"returned illegal action 1000000000 \(outside the action space\)",
            "illegal": r"returned illegal action 0 \(not legal in that position\)", "raiser": "raised an exception"}[func]
    with pytest.raises(RolloutError, match=rf"rollout policy {re.escape(repr(spec))} \(used as the search's rollout\) "
                                           rf"at seat \d of a simulated game {what}"):
        (ismcts_search if search == "ismcts" else pimc_search)(obs, iterations=20, rollout=spec)


@pytest.mark.parametrize("func", ["t_out_of_range", "t_illegal", "t_raiser"])
@pytest.mark.parametrize("search", ["ismcts", "pimc"])
def test_a_theft_rollout_plugin_with_a_bad_decision_is_refused_naming_it_as_rollout(plugins, func, search):
    from cya_sim.engine.theft.observation import observe
    from cya_sim.engine.theft.reference import new_game
    from cya_sim.game.rng import root_key
    from cya_sim.game.rules import get_rules
    from cya_sim.search.theft.search import theft_ismcts_search, theft_pimc_search
    from cya_sim.search.tree import RolloutError

    st = new_game(get_rules("theft"), 3, root_key(4), 0)
    obs = observe(st, st.to_act)
    spec = f"{plugins[0]}:{func}"
    what = {"t_out_of_range": r"returned illegal action -7 \(outside the action space\)",
            "t_illegal": r"returned illegal action 0 \(not legal in that position\)", "t_raiser": "raised an exception"}[func]
    with pytest.raises(RolloutError, match=rf"rollout policy {re.escape(repr(spec))} \(used as the search's rollout\) "
                                           rf"at seat \d of a simulated game {what}"):
        (theft_ismcts_search if search == "ismcts" else theft_pimc_search)(obs, iterations=20, rollout=spec)


def test_a_rollout_plugin_refusal_reaches_the_command_line_in_one_line(plugins, tmp_path, capsys):
    spec = f"{plugins[0]}:illegal"
    code, err, _ = run(tmp_path, capsys, f'ismcts(iterations=20, rollout="{spec}"),greedy', "--engine", "reference",
                       "--games", "1")
    assert_refused(code, err, "ismcts", rf"RolloutError: rollout policy {re.escape(repr(spec))} \(used as the "
                                        r"search's rollout\) at seat \d")


#: Seconds from SIGINT to the last process of the run being gone (as tests/test_interrupt.py).
STOP_WITHIN_S = 10.0


def group_processes(pgid: int) -> dict[int, float]:
    """Live (not zombie) processes of process group ``pgid``: pid -> CPU seconds used (Linux ``/proc``)."""
    tick = os.sysconf("SC_CLK_TCK")
    found: dict[int, float] = {}
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            stat = (d / "stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2:].split()
        if int(fields[2]) == pgid and fields[0] not in ("Z", "X"):
            found[int(d.name)] = (int(fields[11]) + int(fields[12])) / tick
    return found


FOREVER = '''
from numba import njit


@njit(cache=True)
def forever(params, hdr, hand, values, unseen, seats, gave_up, mask, rng):
    n = 0
    while hdr[0] >= 0:  # never returns: compiled code, Python never runs again in this thread
        n += 1
    return n
'''


def _ctrl_c_once_a_child_loops(tmp_path, args: list[str], started=lambda: True) -> tuple[int, str, float, dict]:
    """Run ``cya-sim ARGS`` (the looping plug-in :data:`FOREVER` importable as ``loops_<tmp>:forever``, which
    ``args`` name as ``{plugin}``) in its own process group; once ``started()`` and a child process of the group has
    spent 3 CPU seconds in the loop, send SIGINT to the group as a terminal's Ctrl-C does. Returns (exit status,
    stderr, seconds from SIGINT until every process of the group was gone, the processes still alive then)."""
    import signal
    import time

    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:  # started as a background job: the run would ignore it too
        signal.signal(signal.SIGINT, signal.default_int_handler)
    name = f"loops_{tmp_path.name.replace('-', '_')}"
    (tmp_path / f"{name}.py").write_text(FOREVER)
    cmd = [sys.executable, "-m", "cya_sim.cli.main", *(a.format(plugin=f"{name}:forever") for a in args)]
    proc = subprocess.Popen(cmd, start_new_session=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONPATH": str(tmp_path)}, cwd=tmp_path)
    left: dict[int, float] = {}
    stopped_after = float("inf")
    try:
        deadline = time.monotonic() + 240
        busy: dict[int, float] = {}
        while time.monotonic() < deadline and proc.poll() is None and not busy:
            time.sleep(0.5)
            if started():
                busy = {p: t for p, t in group_processes(proc.pid).items() if p != proc.pid and t >= 3.0}
        assert proc.poll() is None, proc.communicate()[1]
        assert busy, "the plug-in did not start looping in a child process"
        t0 = time.monotonic()
        os.killpg(proc.pid, signal.SIGINT)
        _, stderr = proc.communicate(timeout=STOP_WITHIN_S)
        left = group_processes(proc.pid)
        while left and time.monotonic() - t0 < STOP_WITHIN_S:
            time.sleep(0.1)
            left = group_processes(proc.pid)
        stopped_after = time.monotonic() - t0
    finally:
        if proc.poll() is None or group_processes(proc.pid):
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=30)
    return proc.returncode, stderr, stopped_after, left


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc").is_dir() or not hasattr(os, "killpg"), reason="needs Linux /proc and process groups")
@pytest.mark.parametrize("engine", ["batched", "reference"])
def test_ctrl_c_ends_a_one_worker_run_whose_compiled_plugin_loops_for_ever_within_10_s(tmp_path, engine):
    """Before, only SIGKILL ended it: the compiled loop never returned to Python. Now a line-up with a compiled
    plug-in plays in a worker process even at ``--workers 1``, which the main process ends (issue 29, item 7)."""
    from cya_sim.results.folder import read_runs

    out = tmp_path / "out"

    def running() -> bool:
        runs = read_runs(out) if (out / "runs.json").exists() else []
        return bool(runs) and runs[-1].get("status") == "running"

    code, stderr, stopped_after, left = _ctrl_c_once_a_child_loops(
        tmp_path, ["tournament", "--engine", engine, "--agents", "{plugin},greedy", "--games", "10", "--players", "2",
                   "--workers", "1", "--out", str(out)], running)
    assert not left and stopped_after < STOP_WITHIN_S, (stopped_after, left)
    assert code == 130, stderr
    lines = [x for x in stderr.splitlines() if x.strip() and "game/s" not in x and "%|" not in x]
    assert lines[-1] == "interrupted" and "Traceback" not in stderr, stderr
    assert [r["status"] for r in read_runs(out)] == ["interrupted"]
    assert stored_games(out) == []


@pytest.mark.parametrize("rules", ["classic", "theft"])
def test_a_mask_writing_opponent_in_the_gym_env_is_named_not_played(plugins, rules):
    from cya_sim.engine.agent_calls import AgentError
    from cya_sim.env.gym import CoverYourAssetsGym

    env = CoverYourAssetsGym(rules=rules, n_players=2, seat=0, opponents=f"{plugins[1]}:MaskWriter")
    with pytest.raises(AgentError, match=rf"agent '{plugins[1]}:MaskWriter' at seat 1 in game \d+ raised ValueError: "
                                         "assignment destination is read-only"):
        for s in range(20):  # the opponent acts in the first reset or the first steps
            env.reset(seed=s)
            for _ in range(50):
                if env.step(int(np.flatnonzero(env.action_masks())[0]))[2]:
                    break


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc").is_dir() or not hasattr(os, "killpg"), reason="needs Linux /proc and process groups")
def test_ctrl_c_ends_cya_sim_play_whose_compiled_plugin_loops_for_ever_within_10_s(tmp_path):
    """``cya-sim play`` with a compiled plug-in plays its game in a forked child, which the command stops on Ctrl-C
    (before, only SIGKILL ended it: the plug-in never returned to Python; issue 29, item 7)."""
    code, stderr, stopped_after, left = _ctrl_c_once_a_child_loops(
        tmp_path, ["play", "--agents", "{plugin},greedy", "--players", "2", "--seed", "1"])
    assert not left and stopped_after < STOP_WITHIN_S, (stopped_after, left)
    assert code == 130, stderr
    assert stderr.strip().splitlines() == ["interrupted"], stderr
