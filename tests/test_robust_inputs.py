"""Issue 14, kinds 4-7: games that never end, one error boundary, actions checked not coerced, messages.

Every refused input ends with exit status 2 and one line naming the flag, file,
field, agent, seat or game; ``--debug`` adds the traceback; nothing is written.
"""

from __future__ import annotations

import errno
import re
import sys
import textwrap

import numpy as np
import pytest

from agents.classic.registry import make_agent
from cya_sim.cli.main import describe_error, main
from cya_sim.engine.agent_calls import AgentError
from cya_sim.engine.classic.reference import IllegalActionError, apply_action, new_game, play_game
from cya_sim.game.classic.rules.ruleset import DEFAULT_MAX_ROUNDS, MAX_TARGET_SCORE
from cya_sim.game.rng import root_key
from cya_sim.game.rules import Deck, DeckError, RulesError, get_rules, load_deck
from cya_sim.play.classic.reference import play_games

AGENTS = '''
import numpy as np

def _legal(obs):
    return np.flatnonzero(obs.legal_action_mask)

class Raises:
    name = "raises"
    def act(self, obs, rng):
        raise KeyError("boom")

class ReturnsFloat:
    name = "float"
    def act(self, obs, rng):
        return float(_legal(obs)[0])

class ReturnsStr:
    name = "str"
    def act(self, obs, rng):
        return str(_legal(obs)[0])

class ReturnsFraction:
    name = "fraction"
    def act(self, obs, rng):
        return 1.7

class ReturnsTrue:
    name = "true"
    def act(self, obs, rng):
        return True

class ReturnsNone:
    name = "none"
    def act(self, obs, rng):
        return None

class ReturnsHuge:
    name = "huge"
    def act(self, obs, rng):
        return 10**30

class ReturnsIllegal:
    name = "illegal"
    def act(self, obs, rng):
        return int(np.flatnonzero(~obs.legal_action_mask)[0])

class ReturnsNumpy:
    name = "numpy"
    def act(self, obs, rng):
        return np.int16(_legal(obs)[0])

class BadConstructor:
    def __init__(self):
        raise RuntimeError("no config file")
    def act(self, obs, rng):
        return 0

class Discarder:
    """Only ever discards (or gives up): under a target the game never ends by itself."""
    name = "discarder"
    def act(self, obs, rng):
        legal = _legal(obs)
        for a in legal:
            if obs.action_space.decode(a).kind in ("discard", "give_up"):
                return int(a)
        return int(legal[-1])
'''


@pytest.fixture
def user_agents(tmp_path, monkeypatch):
    """A module ``robust_agents`` of misbehaving agents, and two modules that fail to import."""
    d = tmp_path / "agentmods"
    d.mkdir()
    (d / "robust_agents.py").write_text(AGENTS)
    (d / "robust_syntax.py").write_text("x = (\n")
    (d / "robust_raising.py").write_text("raise ImportError('a dependency is missing')\n")
    monkeypatch.syspath_prepend(str(d))
    monkeypatch.chdir(tmp_path)
    yield "robust_agents"
    for m in ("robust_agents", "robust_syntax", "robust_raising"):
        sys.modules.pop(m, None)


def one_line(capsys) -> str:
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert "Traceback" not in err
    return lines[0]


# -- kind 4: games that never end ------------------------------------------------------------------
def test_max_rounds_default_is_far_above_real_games():
    """The default cap is stated and large; real games are measured far below it (see README)."""
    assert get_rules("classic").max_rounds == DEFAULT_MAX_ROUNDS == 1000


def test_discarding_agents_stop_at_the_round_cap_and_are_flagged(user_agents):
    """Agents that only discard never score: the game stops after max_rounds, flagged ``capped``."""
    from robust_agents import Discarder

    rules = get_rules("classic", max_rounds=7)
    r = play_game(rules, [Discarder(), Discarder(), Discarder()], root_key(3))
    assert r.capped and r.rounds == 7 and r.totals == (0, 0, 0)
    assert r.winners == (0, 1, 2)  # everyone tied at $0 shares the win (R-TIE share)
    normal = play_game(rules, [make_agent("greedy")] * 3, root_key(3))
    assert not normal.capped


def test_round_cap_same_games_on_both_engines():
    """The cap is one rule implemented twice: the batched engine stops and flags the very same games."""
    from cya_sim.play.classic.batched import play_games as batched_games

    rules = get_rules("classic", max_rounds=2)
    seat = np.array([[(g + s) % 2 for s in range(4)] for g in range(24)], np.int16)
    ref = play_games(rules, ["greedy", "random"], seat, root_key(5), np.arange(24))
    fast = batched_games(rules, ["greedy", "random"], seat, root_key(5), np.arange(24))
    assert ref.equals(fast)
    assert ref.capped.any() and not ref.capped.all()
    assert (ref.rounds[ref.capped] == 2).all()
    assert (ref.rounds <= 2).all()


def test_round_cap_flag_reaches_the_results_folder_report_and_console(tmp_path, capsys):
    """The capped flag goes through the run pipeline: games.parquet column, REPORT.md line, console note."""
    from cya_sim.results.folder import load_games

    out = tmp_path / "capped"
    assert main(["tournament", "--option", "max_rounds=1", "--games", "8", "--engine", "reference",
                 "--workers", "1", "--quiet", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    games = load_games(out)
    n = int(games["capped"].sum())
    assert len(games) == 8 and n >= 1 and (games["rounds"] == 1).all()  # $1,000,000 is not reached in one round
    assert f"{n:,} of 8 games were stopped by the round cap (option max_rounds = 1)" in printed
    assert f"**{n:,} of 8 games were stopped by the round cap**" in (out / "REPORT.md").read_text(encoding="utf-8")


def test_round_cap_during_tie_extra_rounds_ends_with_the_tied_seats():
    """R-TIE extra rounds count toward the cap; a capped game's winners come from the eligible seats."""
    rules = get_rules("classic", tie_break="extra_round", end_condition="rounds:1", max_rounds=1)
    for g in range(30):
        r = play_game(rules, [make_agent("greedy")] * 4, root_key(9), g)
        assert r.rounds == 1
        best = max(r.totals)
        assert set(r.winners) == {s for s, t in enumerate(r.totals) if t == best}


ZERO_DECK = """
name = "zero"
[[cards]]
name = "Dust"
kind = "asset"
value = 0
copies = 20
[[cards]]
name = "Nothing"
kind = "wild"
value = 0
copies = 4
"""


def test_all_zero_deck_under_a_target_is_refused(tmp_path):
    """A target no total can reach (every card worth $0) is refused up front, naming target_score."""
    path = tmp_path / "zero.toml"
    path.write_text(ZERO_DECK)
    deck = load_deck(path)
    with pytest.raises(RulesError, match=r"option 'target_score': every card of deck 'zero' is worth \$0"):
        get_rules("classic", deck=deck)
    rules = get_rules("classic", deck=deck, end_condition="rounds:2", max_players=4)  # a fixed number of rounds ends
    assert play_game(rules, [make_agent("greedy")] * 4, root_key(1)).rounds == 2


@pytest.mark.parametrize("options, message", [
    ({"target_score": MAX_TARGET_SCORE + 1}, r"option 'target_score' is .*from 1 to 1,000,000,000,000,000"),
    ({"target_score": 0}, r"option 'target_score' is 0"),
    ({"max_rounds": 0}, r"option 'max_rounds' is 0; it must be an integer from 1 to 100,000"),
    ({"max_rounds": 10**9}, r"option 'max_rounds' is 1000000000"),
    ({"max_rounds": True}, r"option 'max_rounds' is True"),
    ({"max_extra_rounds": 10**7}, r"option 'max_extra_rounds' is 10000000"),
])
def test_upper_bounds_of_options(options, message):
    with pytest.raises(RulesError, match=message):
        get_rules("classic", **options)


def test_target_beyond_reach_within_the_cap_is_refused_at_the_table_size():
    rules = get_rules("classic", target_score=10**12, max_rounds=100)
    with pytest.raises(RulesError, match=r"option 'target_score' is \$1,000,000,000,000: at 4 players .*"
                                         r"100 rounds \(option 'max_rounds'\) reach at most \$136,000,000"):
        rules.check_table(4)


@pytest.mark.parametrize("value, copies, message", [
    (9 * 10**18, 4, r"field 'value' is 9000000000000000000; it must be an integer from 0 to 1,000,000,000,000"),
    (5, 41, r"field 'copies' is 41; it must be an integer from 1 to 40"),
    (5, 10**6, r"field 'copies' is 1000000"),
])
def test_card_values_and_copies_bounded(value, copies, message):
    """Values near 9e18 used to wrap the batched engine's totals negative; now refused naming the entry."""
    with pytest.raises(DeckError, match=message):
        Deck.from_entries("big", [{"name": "A", "kind": "asset", "value": value, "copies": copies}])


def test_totals_that_could_overflow_are_refused():
    deck = Deck.from_entries("rich", [{"name": "A", "kind": "asset", "value": 10**12, "copies": 40},
                                      {"name": "B", "kind": "asset", "value": 10**12, "copies": 40}])
    with pytest.raises(RulesError, match=r"option 'deck': deck 'rich' is worth \$80,000,000,000,000; .*integer range"):
        get_rules("classic", deck=deck, max_rounds=100_000)
    get_rules("classic", deck=deck, max_rounds=100, target_score=10**15)  # fits: accepted


@pytest.mark.parametrize("argv, flag", [
    (["--games", str(10**13)], "--games"),
    (["--seed", str(2**70)], "--seed"),
    (["--option", "target_score=99999999999999999999"], "--option"),
])
def test_cli_upper_bounds(tmp_path, capsys, argv, flag):
    out = tmp_path / "out"
    assert main(["tournament", *argv, "--out", str(out), "--quiet"]) == 2
    line = one_line(capsys)
    assert line.startswith("cya-sim tournament: error: ") and flag in line and ("from" in line or "1 to" in line)
    assert not out.exists()


# -- kind 5: one error boundary ------------------------------------------------------------------------
@pytest.mark.parametrize("agent, message", [
    ("robust_agents:Raises", r"agent 'raises' at seat 0 in game 0 raised KeyError: 'boom' in act\(\)"),
    ("robust_agents:BadConstructor",
     r"--agents: agent 'robust_agents:BadConstructor': its constructor raised RuntimeError: no config file"),
    ("robust_syntax:Agent", (r"--agents: agent 'robust_syntax:Agent': importing module 'robust_syntax' failed "
                            r"\(SyntaxError at .*robust_syntax.py:1")),
    ("robust_raising:Agent", (r"--agents: agent 'robust_raising:Agent': importing module 'robust_raising' failed "
                             r"\(ImportError: a dependency is missing\)")),
    ("robust_agents:ReturnsIllegal", r"agent 'illegal' at seat 0 in game 0 returned illegal action \d+ \("),
])
def test_agent_failures_are_one_line_naming_agent_seat_game(user_agents, capsys, agent, message):
    assert main(["play", "--agents", f"{agent},greedy", "--seed", "1"]) == 2
    line = one_line(capsys)
    assert line.startswith("cya-sim play: error: ")
    import re
    assert re.search(message, line), line


def test_debug_flag_shows_the_traceback(user_agents, capsys):
    assert main(["play", "--agents", "robust_agents:Raises,greedy", "--debug"]) == 2
    err = capsys.readouterr().err
    assert "Traceback" in err and "KeyError: 'boom'" in err
    assert err.strip().splitlines()[-1].startswith("cya-sim play: error: agent 'raises' at seat 0 in game 0")


def test_agent_raising_in_a_tournament_is_one_line(user_agents, capsys, tmp_path):
    out = tmp_path / "t"
    argv = ["tournament", "--agents", "robust_agents:Raises,greedy", "--players", "2", "--games", "2",
            "--engine", "reference", "--workers", "1", "--quiet", "--out", str(out)]
    assert main(argv) == 2
    line = one_line(capsys)
    assert "agent 'raises' at seat" in line and "in game" in line and "KeyError" in line


def test_out_under_a_file_and_read_only_folder(tmp_path, capsys):
    f = tmp_path / "file"
    f.write_text("x")
    assert main(["tournament", "--games", "2", "--engine", "reference", "--quiet", "--out", str(f / "sub")]) == 2
    line = one_line(capsys)
    assert "--out" in line or "file" in line
    assert f.read_text() == "x"


@pytest.mark.parametrize("exc, expected", [
    (OSError(errno.ENOSPC, "No space left on device", "results/x/games.parquet"),
     "no space left on device writing 'results/x/games.parquet'; free some space"),
    (PermissionError(errno.EACCES, "Permission denied", "/ro/out"), "cannot write or read '/ro/out': Permission denied"),
    (OSError(errno.EROFS, "Read-only file system", "/ro"), "cannot write or read '/ro': Read-only file system"),
    (NotADirectoryError(errno.ENOTDIR, "Not a directory", "f/sub"), "'f/sub': a part of the path is a file"),
    (MemoryError(), "out of memory"),
    (UnicodeDecodeError("utf-8", b"\xff", 0, 1, "invalid start byte"), "not UTF-8 text"),
])
def test_describe_error_user_caused(exc, expected):
    line, status = describe_error(exc, "tournament")
    assert status == 2 and expected in line and "\n" not in line
    assert line.startswith("cya-sim tournament: error: ")


def test_describe_error_bug_is_exit_1_and_points_to_debug():
    line, status = describe_error(ZeroDivisionError("division by zero"), "play")
    assert status == 1 and "internal error" in line and "--debug" in line


def test_disk_full_while_writing_results_is_one_line(tmp_path, capsys, monkeypatch):
    """A disk that fills while the results are written: one line, exit 2 (simulated: writes raise ENOSPC)."""
    import pandas as pd

    def full(*a, **k):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(pd.DataFrame, "to_csv", full)
    out = tmp_path / "full"
    assert main(["tournament", "--games", "4", "--engine", "reference", "--workers", "1", "--quiet",
                 "--out", str(out)]) == 2
    line = one_line(capsys)
    assert "no space left on device" in line


def test_dev_full_really_fails_with_one_line(capsys):
    """/dev/full: every write fails with ENOSPC; writing a deck description there ends in one line."""
    from pathlib import Path

    if not Path("/dev/full").exists():
        pytest.skip("no /dev/full on this system")
    with pytest.raises(OSError) as e:
        Path("/dev/full").write_text("x" * 100_000)
    line, status = describe_error(e.value, "rules")
    assert status == 2 and "no space left on device" in line


@pytest.mark.parametrize("name, data", [
    ("deck.toml", b'name = "caf\xe9"\n'),
])
def test_non_utf8_deck_file_names_the_file(tmp_path, capsys, name, data):
    (tmp_path / name).write_bytes(data)
    assert main(["rules", "--deck", str(tmp_path / name)]) == 2
    line = one_line(capsys)
    assert "--deck" in line and name in line and "not UTF-8" in line


def test_non_utf8_experiment_file_names_the_file(tmp_path, capsys):
    path = tmp_path / "exp.toml"
    path.write_bytes(b'name = "caf\xe9"\n')
    assert main(["tournament", str(path), "--quiet"]) == 2
    line = one_line(capsys)
    assert "exp.toml" in line or "UTF-8" in line


def test_non_utf8_and_odd_position_files():
    from cya_sim.game.classic.position import PositionError, load_position, loads

    with pytest.raises(PositionError, match="not UTF-8"):
        import tempfile
        with tempfile.NamedTemporaryFile("wb", suffix=".json", delete=False) as f:
            f.write(b'{"format": "caf\xe9"}')
        load_position(f.name)
    for text in ("[]", "null", '{"format": []}', '"x"', "1e999", '{"format": "cya-sim-position", "version": true}'):
        with pytest.raises(PositionError):
            loads(text)


# -- kind 6: actions checked, not coerced --------------------------------------------------------------
@pytest.mark.parametrize("agent, shown", [
    ("robust_agents:ReturnsFloat", r"returned \d+\.0 \(float\), not an action id"),
    ("robust_agents:ReturnsStr", r"returned '\d+' \(str\), not an action id"),
    ("robust_agents:ReturnsTrue", r"returned True \(bool\), not an action id"),
    ("robust_agents:ReturnsNone", r"returned None \(NoneType\), not an action id"),
    ("robust_agents:ReturnsHuge", r"returned illegal action 10{30} \(outside the action space\)"),
])
@pytest.mark.parametrize("engine", ["reference", "batched"])
def test_non_integer_actions_refused_on_both_engines(user_agents, agent, shown, engine):
    import re

    from cya_sim.play import get_play_games

    seat = np.array([[0, 1]], np.int16)
    with pytest.raises(ValueError) as e:
        get_play_games(engine)(get_rules("classic"), [agent, "greedy"], seat, root_key(1), np.array([4]))
    msg = str(e.value)
    assert re.search(r"agent '[^']+' at seat 0 in game 4 " + shown, msg), msg  # by name or by spec
    assert type(e.value).__name__ == "IllegalActionError"


def test_numpy_integer_actions_are_accepted(user_agents):
    r = play_game(get_rules("classic"), [make_agent("robust_agents:ReturnsNumpy"), make_agent("greedy")], root_key(2))
    assert sum(r.win_shares) == pytest.approx(1.0)


@pytest.mark.parametrize("action", [2.0, "3", True, None, np.float64(1.0), np.bool_(True)])
def test_reference_step_refuses_non_integers(action):
    state = new_game(get_rules("classic"), 4, root_key(1))
    before = repr(state)
    with pytest.raises(IllegalActionError, match=r"seat \d chose .*not an action id"):
        apply_action(state, action)
    assert repr(state) == before


def test_batched_step_refuses_float_actions():
    from cya_sim.engine.classic.batched import init, step

    state = init(get_rules("classic"), 4, 2, root_key(1), agents=("random",))
    with pytest.raises(ValueError, match="integer action ids; got dtype float64"):
        step(state, np.array([1.0, 2.0]))


def test_agent_error_is_a_runtime_error_with_cause(user_agents):
    with pytest.raises(AgentError) as e:
        play_game(get_rules("classic"), [make_agent("robust_agents:Raises"), make_agent("greedy")], root_key(1))
    assert isinstance(e.value.__cause__, KeyError)


@pytest.mark.parametrize("agent, message", [
    ("robust_agents:Raises", r"agent 'raises' at seat 0 in game 3 raised KeyError: 'boom' in act\(\)"),
    ("robust_agents:ReturnsFraction", (r"agent 'fraction' at seat 0 in game 3 returned 1\.7 \(float\), not an action "
     r"id; allowed: an integer from 0 to \d+ where legal_action_mask is true")),
    ("robust_agents:ReturnsFloat", r"agent 'float' at seat 0 in game 3 returned \d+\.0 \(float\), not an action id"),
    ("robust_agents:ReturnsStr", r"agent 'str' at seat 0 in game 3 returned '\d+' \(str\), not an action id"),
    ("robust_agents:ReturnsTrue", r"agent 'true' at seat 0 in game 3 returned True \(bool\), not an action id"),
    ("robust_agents:ReturnsNone", r"agent 'none' at seat 0 in game 3 returned None \(NoneType\)"),
    ("robust_agents:ReturnsHuge", r"agent 'huge' at seat 0 in game 3 returned illegal action 10{30} \(outside"),
    ("robust_agents:ReturnsIllegal", r"agent 'illegal' at seat 0 in game 3 returned illegal action \d+ \(.+\)$"),
])
def test_theft_agent_failures_name_agent_seat_and_game(user_agents, capsys, agent, message):
    """Issue 23: a theft agent that raised ended in "internal error", and one returning 1.7 was played as 1; the
    theft play loop now checks like the classic family's (cya_sim.engine.agent_calls)."""
    assert main(["play", "--rules", "theft", "--agents", f"{agent},random", "--game", "3"]) == 2
    line = one_line(capsys)
    assert line.startswith("cya-sim play: error: agent "), line
    import re

    assert re.search(message, line), line
    capsys.readouterr()
    assert main(["tournament", "--rules", "theft", "--agents", f"{agent},random", "--games", "4", "--players", "2",
                 "--out", "theft-out", "--quiet"]) == 2
    line = one_line(capsys)
    assert line.startswith("cya-sim tournament: error: agent "), line
    assert "internal error" not in line


def test_theft_agent_returning_numpy_integers_plays():
    """The checks refuse only non-integers: NumPy integers are ids (as in the classic family)."""
    from agents.theft.registry import make_theft_agent
    from cya_sim.game.theft.rules import PRESETS as THEFT_PRESETS
    from cya_sim.play.theft.reference import play_game as play_theft

    class Numpy:
        name = "numpy"

        def __init__(self):
            self.inner = make_theft_agent("greedy")

        def act(self, obs, rng):
            return np.int16(self.inner.act(obs, rng))

    a = play_theft(THEFT_PRESETS["theft"], [Numpy(), make_theft_agent("greedy")], root_key(5), 2)
    b = play_theft(THEFT_PRESETS["theft"], [make_theft_agent("greedy"), make_theft_agent("greedy")], root_key(5), 2)
    assert a == b


# -- kind 7: messages that mislead ---------------------------------------------------------------------
def test_hand_size_blamed_on_hand_size_at_the_table_size(capsys):
    assert main(["play", "--option", "hand_size=1000", "--players", "4"]) == 2
    line = one_line(capsys)
    assert "--option: option 'hand_size' is 1000 at 4 players" in line and "at 2 players" not in line


def test_unknown_heuristic_switch_lists_the_switches(capsys):
    assert main(["play", "--agents", "heuristic(nosuch=1)"]) == 2
    line = one_line(capsys)
    assert "unknown switch(es) nosuch; heuristic takes: fast_first" in line and "keyword" not in line


def test_agents_errors_have_no_stray_suffix(capsys):
    assert main(["play", "--agents", "greedy,nosuch"]) == 2
    line = one_line(capsys)
    assert not line.endswith("(comma-separated)") and "unknown agent 'nosuch'" in line
    assert main(["play", "--agents", "greedy,,random"]) == 2
    assert "entry 2 of 'greedy,,random' is empty" in one_line(capsys)


def test_odd_copies_do_not_refuse_a_four_player_run(tmp_path, capsys):
    deck = tmp_path / "odd.toml"
    deck.write_text(textwrap.dedent("""
        name = "odd"
        [[cards]]
        name = "A"
        kind = "asset"
        value = 1000
        copies = 21
        [[cards]]
        name = "W"
        kind = "wild"
        value = 5000
        copies = 3
    """))
    assert main(["play", "--deck", str(deck), "--players", "4"]) == 0
    capsys.readouterr()
    assert main(["play", "--deck", str(deck), "--players", "7"]) == 2
    line = one_line(capsys)
    assert "needs an even number of copies" in line and "(needed at 7 players)" in line


def test_two_spellings_of_one_spec_are_one_agent(tmp_path, capsys):
    out = tmp_path / "t"
    argv = ["tournament", "--agents", "heuristic(backup=true),heuristic( backup = true )", "--players", "2",
            "--games", "2", "--engine", "reference", "--workers", "1", "--quiet", "--out", str(out)]
    assert main(argv) == 0
    import pandas as pd

    summary = pd.read_csv(out / "summary.csv")
    assert list(summary["agent"]) == ["heuristic(backup=true)"]


# -- issue 29: integers beyond CPython's 4,300-digit limit in every TOML input, and plug-in parameters -------------
HUGE = "9" * 5000
DEEP = "[" * 3000 + "1" + "]" * 3000


@pytest.mark.parametrize(("files", "argv", "message"), [
    ({"exp.toml": f"name = 'e'\ngames = {HUGE}\n"}, ["tournament", "exp.toml"],
     r"^cya-sim tournament: error: field 'file': 'exp\.toml': an integer of more than 4,300 digits; no field"),
    ({"exp.toml": f"name = 'e'\nplayers = {DEEP}\n"}, ["tournament", "exp.toml"],
     r"^cya-sim tournament: error: field 'file': 'exp\.toml': arrays or tables nested deeper than Python can read"),
    ({"deck.toml": f"name = 'd'\n[[cards]]\nname = 'A'\nkind = 'asset'\nvalue = {HUGE}\ncopies = 2\n"},
     ["play", "--deck", "deck.toml"], r"^cya-sim play: error: --deck: deck file 'deck\.toml': an integer of more "),
    ({}, ["play", "--option", f"hand_size={HUGE}"],
     r"^cya-sim play: error: --option hand_size: an integer of more than 4,300 digits"),
    ({"exp.toml": "name = 'e'\n"}, ["tournament", "exp.toml", "--games", HUGE],
     r"^cya-sim tournament: error: field 'games' \(--games\): an integer of more than 4,300 digits"),
    ({"exp.toml": "name = 'e'\n"}, ["tournament", "exp.toml", "--set", f"design.duplicate={HUGE}"],
     r"^cya-sim tournament: error: field 'design\.duplicate' \(--duplicate\): an integer of more than 4,300 digits"),
    ({"board.toml": f"agents = ['greedy']\nplayers = [{HUGE}]\n"}, ["leaderboard", "board.toml", "--out", "lb"],
     r"^cya-sim leaderboard: error: 'board\.toml': an integer of more than 4,300 digits"),
    ({"study.toml": f"seed = {HUGE}\n"}, ["tips", "study.toml", "--out", "tp"],
     r"^cya-sim tips: error: field 'file': 'study\.toml': an integer of more than 4,300 digits"),
    ({}, ["tune", "--agent", "heuristic", "--field", "random", "--option", f"hand_size={HUGE}", "--out", "tu"],
     r"^cya-sim tune: error: --option hand_size: an integer of more than 4,300 digits"),
    ({}, ["metagame", "--pool", "greedy,random", "--option", f"hand_size={HUGE}", "--out", "mg"],
     r"^cya-sim metagame: error: --option hand_size: an integer of more than 4,300 digits"),
], ids=["experiment", "experiment_deep", "deck", "play_option", "games_flag", "set_flag", "board", "tip_study",
        "tune_option", "metagame_option"])
def test_toml_integers_beyond_4300_digits_are_one_line_naming_the_file_or_flag(tmp_path, monkeypatch, capsys, files,
                                                                               argv, message):
    """Issue 29: tomllib's ``ValueError: Exceeds the limit (4300 digits)`` (and a RecursionError for deep arrays)
    escaped as "internal error" from every TOML reader; now one line, exit 2, the file or flag named, nothing
    written (cya_sim.tomltext)."""
    monkeypatch.chdir(tmp_path)
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    before = sorted(p.name for p in tmp_path.iterdir())
    assert main(argv) == 2
    line = one_line(capsys)
    assert re.match(message, line), line
    assert len(line) < 400 and "internal error" not in line
    assert sorted(p.name for p in tmp_path.iterdir()) == before


def test_toml_value_reads_flags_and_refuses_huge_integers():
    """The one reading of ``--option KEY=VALUE`` values: TOML when it parses, else the text; huge integers refused."""
    from cya_sim.tomltext import TomlTextError, load_toml, toml_value

    assert toml_value("5") == 5 and toml_value("true") is True and toml_value("{2 = 5}") == {"2": 5}
    assert toml_value("keep") == "keep" and toml_value("9" * 4300) == int("9" * 4300)
    with pytest.raises(TomlTextError, match=r"^an integer of more than 4,300 digits"):
        toml_value("9" * 4301)
    with pytest.raises(TomlTextError, match=r"^not valid TOML \(.*line 1"):
        load_toml("a = = 1")
    assert load_toml("a = 1\n") == {"a": 1}


@pytest.mark.parametrize(("value", "shown"), [
    (10**400, "an integer of about 401 digits"), (-(10**400), "an integer of about 401 digits"),
    (float("nan"), "NaN"), (float("inf"), "Infinity"),
])
def test_plugin_parameters_beyond_float64_are_refused_naming_the_parameter_and_range(value, shown):
    """Issue 29: ``agents.x:decide(k=1000…000)`` with 400 digits ended in "internal error: OverflowError" (float()
    of the int); NaN and infinities compare false in every threshold. One line naming the parameter and the range."""
    from agents.plugin import plugin_params

    with pytest.raises(ValueError, match=(rf"^agent 'm:decide': parameter k is {re.escape(shown)}; allowed: a finite "
                                          r"number from -1\.798e\+308 to 1\.798e\+308 \(float64")):
        plugin_params("m:decide", {"k": value})
    assert plugin_params("m:decide", {"a": 2**63, "b": -1.5, "c": 10**308})[:3].tolist() == [2.0**63, -1.5, 1e308]


@pytest.mark.parametrize("name", ["1" + "0" * 300, "true", "['a']", '""'])
def test_r_deck_custom_a_deck_name_that_is_not_a_string_is_refused_naming_the_field(tmp_path, name):
    """Found by the fuzz run of toml_files: ``name = 10**300`` was taken as the deck's name."""
    path = tmp_path / "deck.toml"
    path.write_text(f"name = {name}\n[[cards]]\nname = 'A'\nkind = 'asset'\nvalue = 5000\ncopies = 10\n"
                    "[[cards]]\nname = 'W'\nkind = 'wild'\nvalue = 0\ncopies = 2\n")
    with pytest.raises(DeckError, match=r"field 'name' is .*; it must be a non-empty string") as e:
        load_deck(path)
    assert "\n" not in str(e.value) and len(str(e.value)) < 240
