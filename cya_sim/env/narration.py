"""What every game's narrator of the terminal (``cya-sim play --human SEAT``) gives, and the part they share.

:mod:`cya_sim.env.terminal` plays a game at the terminal with no knowledge of the game: it finds the game's
narrator by the name of its family (``NARRATOR`` of ``cya_sim/env/<family>/narrator.py``, through
:func:`cya_sim.game.registry.game_part`) and asks it for lines to print. A narrator reads the full state to decide
what is public, and writes only what its viewer may know (RULES.md §10): one seat, or -1 for public information only
(several humans sharing one screen). The classic family's is
:class:`~cya_sim.env.classic.narrator.ClassicNarrator`, the theft game's (RULES.md §9)
:class:`~cya_sim.env.theft.narrator.TheftNarrator`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import Any

from cya_sim.env.game import EnvGame


class Narrator(ABC):
    """Readable lines of one game as seen by ``viewer`` (a seat, or -1 for public information only), sent to ``out``.

    ``viewer`` may change between moves: with several human seats the terminal sets it to the seat deciding,
    then back to -1. The terminal calls :meth:`opening` once, then for each action :meth:`snapshot` of the state
    before it and :meth:`move` after it, :meth:`decision_lines` at a human's decision, and :meth:`closing` at the
    end.

    Attributes:
        game: the :class:`~cya_sim.env.game.EnvGame` being played (its ``state``, ``rules``, ``space``,
            ``seat_names``). viewer: the seat whose view is narrated, or -1. out: prints one line.
    """

    def __init__(self, game: EnvGame, viewer: int, out: Callable[[str], None]) -> None:
        self.game, self.viewer, self.out = game, viewer, out

    def who(self, seat: int) -> str:
        """``seat 2 (greedy)`` or ``seat 1 (you)``."""
        return f"seat {seat} ({'you' if seat == self.viewer else self.game.seat_names[seat]})"

    @abstractmethod
    def opening(self) -> list[str]:
        """The lines after the table line: the deal as the viewer may know it."""
        raise NotImplementedError

    @staticmethod
    @abstractmethod
    def snapshot(state: Any) -> dict:
        """What :meth:`move` needs from the state just before a move (the state changes in place)."""
        raise NotImplementedError

    @abstractmethod
    def move(self, before: dict, seat: int, action: int, state: Any) -> None:
        """Send to :attr:`out` the lines of ``seat``'s ``action`` and what followed it; ``before`` is
        :meth:`snapshot` of the state just before it, ``state`` the state after it."""
        raise NotImplementedError

    @abstractmethod
    def decision_lines(self, obs: Any) -> list[str]:
        """What a human sees at its decision, from its observation ``obs`` (RULES.md §10)."""
        raise NotImplementedError

    @abstractmethod
    def closing(self) -> list[str]:
        """The game-over lines: the winners and the final totals."""
        raise NotImplementedError
