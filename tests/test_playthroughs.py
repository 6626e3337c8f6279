"""The playthroughs of every rule preset are unchanged, and the batched engine plays their games (issue 30, item 5).

``tests/playthroughs/<preset>.txt`` (written by ``python -m tests.playthroughs.generate``, see
:mod:`playthroughs.generate`) records a few seeded games of each preset on the reference engine, one decision at a
time: the acting seat's view, its legal actions, the action, the log. Each test here regenerates a file and
compares it with the committed one: a difference fails with the first lines of the unified diff and the command
that rewrites the file, so a deliberate change of the rules or of an agent is reviewed as that diff. A second test
plays the same games on the compiled batched engine (the family's ``play_games("batched")``) and requires the
same action ids, totals and winners, game by game; the differential tests (``tests/test_batched_differential.py``,
``tests/test_theft_differential.py``) prove this over thousands of games, this one for the games a reader sees.

The action-log hashes (``tests/test_action_log_hashes.py``) cover many more games, agents and the plug-in path but
say only "changed"; the playthroughs say where and how.
"""

from __future__ import annotations

import difflib
import functools

import numpy as np
import pytest
from playthroughs.generate import COMMAND, FOLDER, SEED, path_of, playthrough

from cya_sim.env.games import game_interface
from cya_sim.game.rng import root_key
from cya_sim.game.rules import get_rules, preset_names
from cya_sim.play.families import family_of

#: Lines of the unified diff shown in a failure message.
DIFF_LINES = 60


@functools.cache
def generated(preset: str):
    """``preset``'s playthrough (text, games), played once per test process."""
    return playthrough(preset)


def diff_message(preset: str, expected: str, actual: str) -> str:
    """The failure message of a changed playthrough: the first :data:`DIFF_LINES` lines of the unified diff of the
    committed text (``expected``) against the regenerated one (``actual``), and the command that rewrites it."""
    name = f"tests/playthroughs/{preset}.txt"
    old, new = expected.splitlines(), actual.splitlines()
    diff = list(difflib.unified_diff(old, new, f"{name} (committed)", f"{name} (the code now)", n=3, lineterm=""))
    shown = diff[:DIFF_LINES] + ([f"... {len(diff) - DIFF_LINES:,} more diff lines"] if len(diff) > DIFF_LINES else [])
    first = next((i for i, (a, b) in enumerate(zip(old, new)) if a != b), min(len(old), len(new)))
    game = decision = ""
    for line in old[:first + 1]:  # the game and decision that the first changed line belongs to
        if line.startswith("=== game"):
            game, decision = line.strip("= "), ""
        elif line.startswith("--- decision"):
            decision = line.strip("- ")
    where = " of ".join(w for w in (decision, game) if w)
    return (f"the playthrough of preset {preset!r} changed: the games play differently from line {first + 1}"
            + (f" ({where})" if where else "") + ". If the change is deliberate (a rule or an agent changed), "
            f"rewrite it with `{COMMAND} {preset}` and review its diff; the first {min(len(diff), DIFF_LINES)} "
            f"lines of {len(diff):,}:\n" + "\n".join(shown))


@pytest.mark.parametrize("preset", preset_names())
def test_playthrough_unchanged(preset):
    """Every decision of the preset's playthrough games (view, legal actions, action, log) and the results are the
    committed ones (R-PRESETS; RULES.md §1–§9)."""
    path = path_of(preset)
    assert path.exists(), f"{path} is missing; write it with `{COMMAND} {preset}`"
    expected = path.read_text(encoding="utf-8")
    text, games = generated(preset)
    assert len(games) >= 2 and all(g.actions for g in games)
    if text != expected:
        pytest.fail(diff_message(preset, expected, text), pytrace=False)


def _named(space, actions, step: int) -> str:
    """``actions[step]`` as ``id name``, or the game's end when the list is shorter."""
    return f"{actions[step]} {space.name(actions[step])}" if step < len(actions) else "none (the game is over)"


@pytest.mark.parametrize("preset", preset_names())
def test_playthrough_games_same_on_batched_engine(preset):
    """The compiled batched engine plays each playthrough game with the same action ids, totals and winners as the
    reference engine (its compiled agents choose as the Python ones)."""
    rules = get_rules(preset)
    family = family_of(rules)
    refusal = family.batched_refusal(rules)
    if refusal:
        pytest.skip(f"the batched engine does not play {preset}: {refusal}")
    play = family.play_games("batched")
    space = game_interface(rules).space
    for game in generated(preset)[1]:
        specs = list(dict.fromkeys(game.seats))
        seat_agent = np.array([[specs.index(s) for s in game.seats]], np.int16)
        table, state = play(rules, specs, seat_agent, root_key(SEED), np.array([game.index], np.int64),
                            log_cap=len(game.actions) + 64, return_state=True)
        batched = [int(a) for a in state.log_actions[0, : state.log_len[0]]]
        if batched != list(game.actions):
            step = next((i for i, (a, b) in enumerate(zip(batched, game.actions)) if a != b),
                        min(len(batched), len(game.actions)))
            pytest.fail(f"{preset} game {game.index} ({', '.join(game.seats)}), decision {step + 1} (numbered as in "
                        f"the file): the batched engine plays {_named(space, batched, step)}, the playthrough "
                        f"{_named(space, game.actions, step)}", pytrace=False)
        assert table.totals[0].tolist() == list(game.totals)
        assert np.flatnonzero(table.win_share[0]).tolist() == list(game.winners)


def test_every_playthrough_file_is_a_preset():
    """No file is left behind by a renamed or removed preset."""
    assert sorted(p.stem for p in FOLDER.glob("*.txt")) == sorted(preset_names())


def test_a_changed_playthrough_shows_a_readable_diff():
    """The failure message of a change: the lines that changed, with their context, and the command to rewrite."""
    text = generated("theft")[0]
    changed = text.replace("seat 3 (greedy) lays its first asset: 7 face-down, 4 face-up (worth 11)",
                           "seat 3 (greedy) lays its first asset: 7 face-down, 4 face-up (worth 12)", 1)
    assert changed != text
    msg = diff_message("theft", text, changed)
    assert f"`{COMMAND} theft`" in msg
    assert "differently from line 25 (decision 1: seat 3 (greedy) of game 0: 4 players" in msg
    assert "--- tests/playthroughs/theft.txt (committed)" in msg
    assert "-log: seat 3 (greedy) lays its first asset: 7 face-down, 4 face-up (worth 11)" in msg
    assert "+log: seat 3 (greedy) lays its first asset: 7 face-down, 4 face-up (worth 12)" in msg
    long = diff_message("theft", text, text.replace("seat", "place"))
    assert long.count("\n") == DIFF_LINES + 1 and "more diff lines" in long
