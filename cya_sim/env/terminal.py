"""A human at the terminal: ``cya-sim play --human SEAT`` (RULES.md §10 decides what is shown).

The game runs on its reference engine (:class:`~cya_sim.env.game.EnvGame`, the deal of ``cya-sim play --seed S
--game G``), for every game of :data:`cya_sim.game.registry.GAMES`; what is said of it comes from the game's
narrator (``cya_sim/env/<family>/narrator.py``, a :class:`~cya_sim.env.narration.Narrator`: the classic family's
:class:`~cya_sim.env.classic.narrator.ClassicNarrator`, the theft game's
:class:`~cya_sim.env.theft.narrator.TheftNarrator`), found by the family's name. Every move is narrated as it
happens, but only with what the viewer may know: with one human seat the viewer is that seat (its own hidden
cards are shown), with several human seats (players sharing one screen) only public information is narrated, and
each human's hand and own cards are shown at that human's decision.

At a decision the legal actions are listed with numbers and short names (the action space's ``name``, e.g.
:meth:`cya_sim.game.classic.actions.ActionSpace.name`); the player types a number or a name (any case), ``help``
or ``?`` (lists the legal actions and the commands again) or ``quit`` or ``q`` (ends the game: one line, exit
status 0). Anything else gets a one-line hint and the question again.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from cya_sim.engine.agent_calls import call_agent
from cya_sim.env.game import EnvGame
from cya_sim.game.registry import game_part

PROMPT = "your move (number or name): "


class InputClosed(Exception):
    """The terminal's input ended (EOF) before the game did."""


class Quit(Exception):
    """The human typed ``quit`` or ``q`` (:data:`QUIT_WORDS`) at a decision."""


#: Words that list the legal actions and the commands again at a decision.
HELP_WORDS = ("help", "?")
#: Words that end the game at a decision (``cya-sim play`` exits with status 0).
QUIT_WORDS = ("quit", "q")
COMMANDS_LINE = "commands: a number or a name plays that action; help or ? lists them again; quit or q ends the game"


def choose(obs: Any, ask: Callable[[str], str], out: Callable[[str], None]) -> int:
    """List the legal actions, read a number or a name until one is legal; return its action id.

    ``help`` / ``?`` (:data:`HELP_WORDS`) list the legal actions and the commands again; ``quit`` / ``q``
    (:data:`QUIT_WORDS`) raise :class:`Quit`. An action name equal to a command word would win (none is).

    Raises:
        InputClosed: the input ended.
        Quit: the human typed ``quit`` or ``q``.
    """
    sp = obs.action_space
    legal = [int(a) for a in np.flatnonzero(obs.legal_action_mask)]
    names = [sp.name(a) for a in legal]

    def listing() -> None:
        for i, n in enumerate(names, 1):
            out(f"  {i:2d}  {n}")

    listing()
    by_name = {n.lower(): a for n, a in zip(names, legal)}
    while True:
        try:
            text = ask(PROMPT).strip()
        except EOFError:
            raise InputClosed() from None
        # at most 9 digits: int() of a line of more than 4,300 digits raises ValueError
        number = int(text) if text.isascii() and text.isdigit() and len(text) <= 9 else 0
        if 1 <= number <= len(legal):
            return legal[number - 1]
        if text.lower() in by_name:
            return by_name[text.lower()]
        if text.lower() in HELP_WORDS:
            out(f"your legal actions ({len(legal)}):")
            listing()
            out(COMMANDS_LINE)
            continue
        if text.lower() in QUIT_WORDS:
            raise Quit()
        shown = repr(text) if len(text) <= 40 else f"{text[:37]!r}... ({len(text):,} characters)"
        out(f"{shown} is not a choice: type a number from 1 to {len(legal)} or a name such as {names[0]} "
            "(help lists the commands, quit ends the game)")


def play_human(rules: Any, agents: Sequence, humans: Sequence[int], key_seed: int, game_index: int = 0,
               ask: Callable[[str], str] = input, out: Callable[[str], None] | None = None) -> int:
    """Play one game with humans at ``humans`` and ``agents[s]`` elsewhere; return 0, or 1 if input ended.

    A human who types ``quit`` or ``q`` ends the game there: one line (``seat S quit; the game is abandoned``)
    and status 0.

    Args:
        rules: the rule set (the classic family or the theft game, RULES.md §9). agents: one agent per seat
            of the rules' game (P = len(agents)); human seats' entries are ignored.
        humans: seats played at the terminal. key_seed: the seed (``cya-sim play --seed``).
        game_index: the game under the seed (``--game``). ask: reads one line (``input``).
        out: prints one line (default ``print`` with flush).
    """
    out = out or (lambda line: print(line, flush=True))
    p = len(agents)
    names = ["human" if s in humans else getattr(agents[s], "name", type(agents[s]).__name__) for s in range(p)]
    game = EnvGame(rules, p, names)
    game.start(key_seed, game_index)
    viewer = humans[0] if len(set(humans)) == 1 else -1
    narrator = game_part("env.narrator", game.kind.family).NARRATOR(game, viewer, out)
    out(f"game {game_index}: {p} players, rules {rules.name}; you play seat{'s' if len(humans) > 1 else ''} "
        + ", ".join(map(str, sorted(set(humans)))))
    for line in narrator.opening():
        out(line)
    while not game.over:
        seat = game.to_act
        obs = game.observe(seat)
        if seat in humans:
            if viewer < 0:
                narrator.viewer = seat
            for line in narrator.decision_lines(obs):
                out(line)
            try:
                action = choose(obs, ask, out)
            except InputClosed:
                out("input closed; the game is abandoned")
                return 1
            except Quit:
                out(f"seat {seat} quit; the game is abandoned")
                return 0
        else:
            action = call_agent(agents[seat], names[seat], seat, game.game_index, obs, game.seat_rngs[seat])
        before = narrator.snapshot(game.state)
        game.step(action, who=f"agent {names[seat]!r}")
        if viewer < 0:
            narrator.viewer = -1
        narrator.move(before, seat, action, game.state)
    for line in narrator.closing():
        out(line)
    return 0
