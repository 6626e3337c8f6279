"""A human at the terminal (``cya-sim play --human SEAT``, issue 15): a whole game driven through a
pseudo-terminal, refused input, several human seats, and what a human may see (RULES.md §10, R-HIDDEN-WILD)."""

from __future__ import annotations

import itertools
import re
import sys

import pytest

from cya_sim.cli.main import main
from cya_sim.env.terminal import PROMPT, play_human
from cya_sim.game.rules import get_rules


def test_a_whole_game_at_a_pseudo_terminal():
    pexpect = pytest.importorskip("pexpect")
    child = pexpect.spawn(sys.executable, ["-m", "cya_sim.cli", "play", "--human", "0", "--players", "2",
                                           "--agents", "random", "--seed", "4"], encoding="utf-8", timeout=60)
    child.expect(re.escape(PROMPT))
    first = child.before
    assert "your hand:" in first and "   1  " in first
    child.sendline("nonsense")  # refused with a one-line hint, then asked again
    child.expect(r"'nonsense' is not a choice: type a number from 1 to \d+ or a name such as \S+")
    child.expect(re.escape(PROMPT))
    decisions, by_name, text = 0, 0, first
    while True:
        options = re.findall(r"^\s+(\d+)  (\S.*?)\r?$", child.before, re.MULTILINE)
        if decisions % 2 and options:  # every other decision by name (any case), else by number
            child.sendline(options[-1][1].upper())
            by_name += 1
        else:
            child.sendline("1")
        decisions += 1
        i = child.expect([re.escape(PROMPT), r"game over: winner\(s\) [^\r\n]+", pexpect.EOF])
        text += child.before
        if i == 1:
            text += child.after
            break
        assert i == 0, "the game ended without its game-over line"
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    assert decisions > 10 and by_name > 5
    assert "seat 1 (random)" in text  # the other seat's moves are printed as they happen
    assert re.search(r"round \d+ ends: scores", text)
    # R-HIDDEN-WILD: the other seat's pair from hand always shows one hidden card to seat 0
    other_pairs = re.findall(r"seat 1 \(random\) lays a set from hand: [^\r\n]+", text)
    assert other_pairs and all("a hidden card" in line for line in other_pairs)
    own_pairs = re.findall(r"seat 0 \(you\) lays a set from hand: [^\r\n]+", text)
    assert all("a hidden card" not in line for line in own_pairs)


def _scripted(answers):
    it = iter(answers)

    def ask(prompt: str) -> str:
        return next(it)
    return ask


def test_several_human_seats_see_only_public_narration_and_their_own_hand():
    lines: list[str] = []
    from agents.classic.registry import make_agent

    rules = get_rules("classic")
    status = play_human(rules, [make_agent("random")] * 3, [0, 2], 3, 0, ask=_scripted(["1"] * 10_000),
                        out=lines.append)
    assert status == 0 and lines[-1].startswith("game over")
    text = "\n".join(lines)
    assert "seat 0, your decision" in text and "seat 2, your decision" in text
    # with two humans at one screen, nobody's hidden pair card is narrated
    pairs = [ln for ln in lines if "lays a set from hand" in ln]
    assert pairs and all("a hidden card" in ln for ln in pairs)


def test_input_closed_abandons_the_game_with_status_1():
    from agents.classic.registry import make_agent

    def closed(prompt: str) -> str:
        raise EOFError
    lines: list[str] = []
    assert play_human(get_rules("basic"), [make_agent("greedy")] * 2, [1], 1, ask=closed, out=lines.append) == 1
    assert lines[-1] == "input closed; the game is abandoned"


def test_a_human_seat_outside_the_table_is_refused(capsys):
    assert main(["play", "--human", "5", "--players", "3"]) == 2
    err = capsys.readouterr().err
    assert err.strip() == "cya-sim play: error: --human: seat 5; the seats are 0 to 2"


@pytest.mark.parametrize(("preset", "players"), [("advanced", 4), ("two_player_draft_advanced", 2),
                                                 ("three_player_draft_advanced", 3)])
def test_a_human_game_under_the_advanced_rules_is_narrated_to_the_end(preset, players):
    """R-ADV-TWO, R-ADV-IMPROVE, R-ADV-SWAP, R-ADV-MOVE, R-ADV-DEEP, R-ADV-PENNY at the terminal: every §6 action
    of a whole game gets its own line (the narration once read every unknown kind as a give-up and crashed)."""
    from agents.classic.registry import make_agent

    lines: list[str] = []
    answers = itertools.cycle(["1", "2", "3"])  # the human's picks vary, so it plays the §6 actions too
    for seed in range(1, 4):
        status = play_human(get_rules(preset), [make_agent("greedy")] * players, [0], seed, 0,
                            ask=lambda _prompt: next(answers), out=lines.append)
        assert status == 0 and lines[-1].startswith("game over")
    text = "\n".join(lines)
    for phrase in ("ends its turn", "improves its top set", "plays Swap", "plays Move", "second from the top"):
        assert phrase in text, phrase


@pytest.mark.parametrize("line", ["7" * 5000, "9" * 10, "٣", "-1", "0"])
def test_a_line_of_thousands_of_digits_is_refused_as_no_choice(monkeypatch, capsys, line):
    """Issue 23: a line of more than 4,300 digits ended in "internal error" (int() refuses it); now it is one more
    answer that is not a choice, and the game goes on (so do non-ASCII digits and numbers out of range)."""
    import functools

    from cya_sim.env import terminal

    answers = iter([line] + ["1"] * 10_000)
    monkeypatch.setattr(terminal, "play_human", functools.partial(terminal.play_human,
                                                                  ask=lambda prompt: next(answers)))
    status = main(["play", "--human", "0", "--players", "2", "--rules", "basic", "--agents", "greedy"])
    out, err = capsys.readouterr()
    assert status == 0, err
    shown = repr(line) if len(line) <= 40 else f"{line[:37]!r}... ({len(line):,} characters)"
    assert f"{shown} is not a choice: type a number from 1 to " in out
    assert out.rstrip().splitlines()[-1].startswith("game over")


# -- the theft game (RULES.md §9) ------------------------------------------------------------------------
def test_theft_human_game_through_the_cli_shows_only_what_the_seat_may_see(monkeypatch, capsys):
    """``cya-sim play --human 0 --rules theft``: other hands are counts, the other seats' first assets show their
    face-down card as ``a hidden card`` (and stay unseen until all are laid, R-T-SETUP), totals are points."""
    import functools

    from cya_sim.env import terminal

    answers = itertools.cycle(["1", "2", "nonsense", "3"])
    monkeypatch.setattr(terminal, "play_human", functools.partial(terminal.play_human,
                                                                  ask=lambda prompt: next(answers)))
    status = main(["play", "--human", "0", "--rules", "theft", "--players", "3", "--agents", "greedy,defender",
                   "--seed", "3", "--option", "compulsory_defence=true"])
    out, err = capsys.readouterr()
    assert status == 0, err
    lines = out.splitlines()
    assert lines[0] == "game 0: 3 players, rules theft+custom; you play seat 0"
    assert re.match(r"game over after \d+ turns: winner\(s\) seat \d .*; points seat 0 \d+, seat 1 \d+, seat 2 \d+$",
                    lines[-1])
    assert "$" not in out  # points, not dollars
    assert not re.search(r"is dealt \d+, ", out)  # never the engine's log of every hand
    assert "your decision (turn 0, setup)" in out and "'nonsense' is not a choice" in out
    for s in (1, 2):  # R-T-SETUP: another seat's first asset is unseen while seats lay them
        assert f"seat {s} ({'defender' if s == 1 else 'greedy'}) lays a first asset (unseen until" in out
    first = next(ln for ln in lines if ln.startswith("first assets: "))
    mine, *others = first.removeprefix("first assets: ").split("; ")
    assert mine.startswith("seat 0 (you) [") and "hidden" not in mine
    assert others and all("[a hidden card+" in part and " worth " in part for part in others)
    draws = [ln for ln in lines if re.match(r"turn \d+( \(a last turn, R-T-END\))?: seat", ln)]
    assert draws and all(re.search(r"draws \d cards?;", ln) for ln in draws if "(you)" not in ln)
    assert all(re.search(r"draws: ", ln) for ln in draws if "(you)" in ln)


def test_theft_several_human_seats_see_public_narration_only():
    from agents.theft.registry import make_theft_agent

    lines: list[str] = []
    status = play_human(get_rules("theft"), [make_theft_agent("greedy")] * 3, [0, 2], 5, 1,
                        ask=_scripted(itertools.cycle(["2", "1"])), out=lines.append)
    assert status == 0 and lines[-1].startswith("game over after ")
    text = "\n".join(lines)
    assert "seat 0, your decision" in text and "seat 2, your decision" in text
    first = next(ln for ln in lines if ln.startswith("first assets: "))
    assert first.count("a hidden card") == 3  # public narration: every first asset's face-down card is hidden
    assert "(you)" not in first


# -- help and quit (issue 32) ----------------------------------------------------------------------------
def make_human_agents(rules: str, spec: str, n: int) -> list:
    """n agents of ``spec`` for the game of ``rules`` (the theft game has its own agents)."""
    from cya_sim.env.games import game_interface

    kind = game_interface(get_rules(rules))
    return [kind.make_agent(spec) for _ in range(n)]


@pytest.mark.parametrize(("rules", "agent"), [("basic", "greedy"), ("theft", "greedy")])
@pytest.mark.parametrize("word", ["help", "?", "HELP"])
def test_help_lists_the_legal_actions_and_the_commands_then_asks_again(rules, agent, word):
    from cya_sim.env.terminal import COMMANDS_LINE

    answers = iter([word] + ["1"] * 10_000)
    lines: list[str] = []
    status = play_human(get_rules(rules), make_human_agents(rules, agent, 2), [0], 1, 0,
                        ask=lambda _prompt: next(answers), out=lines.append)
    assert status == 0 and lines[-1].startswith("game over")
    at = lines.index(COMMANDS_LINE)
    heading = max(i for i in range(at) if lines[i].startswith("your legal actions ("))
    listed = lines[heading + 1:at]
    n = int(re.match(r"your legal actions \((\d+)\):", lines[heading]).group(1))
    assert len(listed) == n and [int(ln.split()[0]) for ln in listed] == list(range(1, n + 1))
    # the listing repeats the one shown before the prompt, line for line
    assert lines[heading - n:heading] == listed


@pytest.mark.parametrize("rules", ["basic", "theft"])
@pytest.mark.parametrize("word", ["quit", "q", "Q"])
def test_quit_ends_the_game_with_one_line_and_status_0(rules, word):
    answers = iter(["1", word])
    lines: list[str] = []
    status = play_human(get_rules(rules), make_human_agents(rules, "greedy", 2), [1], 2, 0,
                        ask=lambda _prompt: next(answers), out=lines.append)
    assert status == 0
    assert lines[-1] == "seat 1 quit; the game is abandoned"
    assert not any(ln.startswith("game over") for ln in lines)


def test_quit_through_the_cli_exits_0_and_a_refusal_names_the_commands(monkeypatch, capsys):
    import functools

    from cya_sim.env import terminal

    answers = iter(["nonsense", "quit"])
    monkeypatch.setattr(terminal, "play_human", functools.partial(terminal.play_human,
                                                                  ask=lambda prompt: next(answers)))
    status = main(["play", "--human", "0", "--players", "2", "--rules", "basic", "--agents", "greedy"])
    out, err = capsys.readouterr()
    assert status == 0 and err == ""
    assert "'nonsense' is not a choice: type a number from 1 to " in out
    assert "(help lists the commands, quit ends the game)" in out
    assert out.rstrip().splitlines()[-1] == "seat 0 quit; the game is abandoned"


@pytest.mark.parametrize("kind", ["swap", "improve"])
def test_an_advanced_action_that_ends_the_round_is_narrated_without_the_cleared_sets(kind):
    """R-ADV-SWAP / R-ADV-IMPROVE played as the round's last card: the next round's deal has cleared every stack
    (R-SETUP) by the time the move is narrated; the narrator names the action and the round's scores instead of
    reading a set that is gone (it raised IndexError)."""
    from cya_sim.env.classic.narrator import NARRATOR
    from cya_sim.env.game import EnvGame

    game = EnvGame(get_rules("advanced"), 2, ["greedy", "greedy"])
    game.start(1, 0)
    state = game.state
    assert all(not s for s in state.stacks)  # a round just dealt
    action = next(a for a in range(game.space.size) if game.space.decode(a).kind == kind)
    lines: list[str] = []
    narrator = NARRATOR(game, -1, lines.append)
    before = dict(NARRATOR.snapshot(state), round=state.round - 1)  # the move ended the round before this one
    narrator.move(before, 0, action, state)
    assert lines[0].startswith("seat 0 (greedy) " + ("plays Swap with seat 1" if kind == "swap" else "improves"))
    assert "set" not in lines[0].split("with seat 1")[-1] if kind == "swap" else lines[0].endswith("top set")
    assert lines[1].startswith(f"round {state.round - 1} ends: scores")
