"""The play layer: the loop that joins an engine and its agents (above both), one folder per game.

* :mod:`.families` — the game protocol: a rule set's game family (:func:`~cya_sim.play.families.family_of`)
  gives its agents, its batch play on either engine and its kernels; :mod:`.kernels` lists what a run
  compiles; :mod:`.refusals` words what a compiled policy did wrong.
* :mod:`.classic` — the classic family's ``play_games`` on the reference engine (:mod:`.classic.reference`) and on
  the batched engine (:mod:`.classic.batched`: compiled policies in the compiled loop :mod:`.classic.loop`,
  compiled once; view policies and plug-ins by C address; Python agents through the reference observation of a
  row).
* :mod:`.theft` — the same for the theft game (RULES.md §9).

:func:`get_play_games` picks one by engine name (each is imported when first asked for, so that the
reference engine runs where numba is missing or not yet compiled; not to dodge an import cycle).
"""

from __future__ import annotations

from collections.abc import Callable

from cya_sim.engine import ENGINES


def get_play_games(engine: str) -> Callable:
    """The classic family's ``play_games`` function of an engine by name (any family: :func:`~cya_sim.play.families.family_of`).

    Raises:
        ValueError: unknown engine; the message lists the allowed names.
    """
    if engine == "reference":
        from cya_sim.play.classic.reference import play_games
    elif engine == "batched":
        from cya_sim.play.classic.batched import play_games
    else:
        raise ValueError(f"unknown engine {engine!r}; choose one of: {', '.join(ENGINES)}")
    return play_games
