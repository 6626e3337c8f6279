"""The play layer: the loop that joins an engine and its agents (above both).

* :mod:`.reference` — ``play_games`` on the reference engine (Python agents made from specs).
* :mod:`.batched` — ``play_games`` on the batched engine: compiled policies in the compiled
  loop (:mod:`.loop`, compiled once; view policies and plug-ins by C address), Python agents
  through the reference observation of a row.

:func:`get_play_games` picks one by engine name (each is imported when first asked for, so that the
reference engine runs where numba is missing or not yet compiled; not to dodge an import cycle).
"""

from __future__ import annotations

from collections.abc import Callable

from cya_sim.engine import ENGINES


def get_play_games(engine: str) -> Callable:
    """The ``play_games`` function of an engine by name.

    Raises:
        ValueError: unknown engine; the message lists the allowed names.
    """
    if engine == "reference":
        from cya_sim.play.reference import play_games
    elif engine == "batched":
        from cya_sim.play.batched import play_games
    else:
        raise ValueError(f"unknown engine {engine!r}; choose one of: {', '.join(ENGINES)}")
    return play_games


def play_games_for(rules, engine: str) -> Callable:
    """The ``play_games`` of the rules' game family on an engine.

    The classic family plays on ``engine`` (:func:`get_play_games`); the theft game
    (RULES.md §9, ``rules.family == "theft"``) on its batched engine,
    :func:`cya_sim.play.theft_batched.play_theft_games_batched` (``engine == "batched"``), or on its
    reference engine, :func:`cya_sim.play.theft_reference.play_theft_games` (``engine == "reference"``); both give
    the same games.

    Raises:
        ValueError: unknown engine; the message lists the allowed names.
    """
    if getattr(rules, "family", "classic") == "theft":
        if engine == "batched":
            from cya_sim.play.theft_batched import play_theft_games_batched

            return play_theft_games_batched
        if engine == "reference":
            from cya_sim.play.theft_reference import play_theft_games

            return play_theft_games
        raise ValueError(f"unknown engine {engine!r}; choose one of: {', '.join(ENGINES)}")
    return get_play_games(engine)
