"""Every game of cya-sim, by name: the one place a game registers.

A game family is named by its rule set's ``family`` (``classic``, ``theft``), and that name is the name of its
folder on every floor it has parts on: ``cya_sim/game/<name>/`` (rules and presets, state, actions, positions),
``cya_sim/engine/<name>/``, ``cya_sim/render/<name>/`` (its states as a picture's table), ``agents/<name>/``,
``cya_sim/search/<name>/``, ``cya_sim/play/<name>/`` (its :class:`~cya_sim.play.family.GameFamily`) and
``cya_sim/env/<name>/`` (its environment interface and the terminal's narrator). Each floor finds a game's part there by
the name listed in :data:`GAMES` (:func:`game_part`), so adding a game is writing its folders and one line here
(docs/layout.md, "Adding a game").
"""

from __future__ import annotations

import importlib
from types import ModuleType

#: The game families, by the name of their folders, in the order the command line lists their presets.
GAMES: tuple[str, ...] = ("classic", "theft")


def game_part(floor: str, name: str) -> ModuleType:
    """The module of game ``name`` on ``floor``: ``cya_sim.<floor>.<name>`` (floor ``game.rules`` gives
    ``cya_sim.game.<name>.rules``; the floors are ``game``, ``engine``, ``render``, ``search``, ``play``, ``env``).

    A floor calls this for its own floor only, so that imports still run downward (``tests/test_layers.py``).

    Raises:
        ValueError: ``name`` is not in :data:`GAMES` (the known games listed).
    """
    if name not in GAMES:
        raise ValueError(f"unknown game family {name!r}; known: {', '.join(GAMES)}")
    head, _, tail = floor.partition(".")
    return importlib.import_module(f"cya_sim.{head}.{name}" + (f".{tail}" if tail else ""))
