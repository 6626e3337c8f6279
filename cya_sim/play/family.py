"""The game protocol: what a game family provides to everything above the play floor (:class:`GameFamily`).

The seeds hold two games that share no rule: the Cover Your Assets family (``classic``, ``guide``, ``basic``,
``advanced``, the drafts: one :class:`~cya_sim.game.rules.RuleSet` with presets) and seed 003's theft game
(``theft``, :class:`~cya_sim.game.theft.rules.TheftRuleSet`, RULES.md §9). A rule set names its family
(``rules.family``); :func:`cya_sim.play.families.family_of` gives the family's :class:`GameFamily`, and the runner,
the studies and the command line reach a game only through it: its agents, its batch play on either engine, its result
columns, one logged game, whether the batched engine takes the rules, and the kernels a run must compile. Each family's
subclass is in its own folder (``cya_sim/play/<family>/family.py``); ``tests/test_game_families.py`` holds every
family to this protocol, as pgx's ``api_test`` holds its games (docs/layout.md: "Adding a game").
"""

from __future__ import annotations

import functools
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from typing import Any, ClassVar

import numpy as np

from cya_sim.engine import ENGINES
from cya_sim.engine.table import ResultColumns


class GameFamily(ABC):
    """One game family's protocol (module docstring). Subclasses are stateless; :data:`cya_sim.play.families.FAMILIES` holds one each.

    Attributes:
        name: the family's name, the value of ``rules.family`` (``"classic"``, ``"theft"``).
        cap_option: the rule option of the safeguard that stops a game that runs too long, and its unit
            (``("max_rounds", "round")``, ``("max_turns", "turn")``); not a rule of the game.
        takes_deck_file: whether ``--deck FILE`` may replace the deck (the theft deck is made by options).
    """

    name: ClassVar[str]
    cap_option: ClassVar[tuple[str, str]]
    takes_deck_file: ClassVar[bool]

    @abstractmethod
    def rules_type(self) -> type:
        """The family's frozen rule-set class."""

    @abstractmethod
    def agent_names(self) -> tuple[str, ...]:
        """The registered agent names of the family (each family's agents see its own observations)."""

    @abstractmethod
    def make_agent(self, spec: str) -> Any:
        """A new agent from a spec (``greedy``, ``ismcts(iterations=200)``, ``module:Class``, ``module:decide``).

        Raises:
            ValueError: an unknown or malformed spec (``AgentSpecError``), naming the family's agents.
            TypeError: a class without ``act``.
        """

    @abstractmethod
    def result_columns(self) -> ResultColumns:
        """The family's own per-game result columns (name, dtype, unit, meaning), the unit of its totals and how
        the reports read them: what both engines fill beside the common columns of a
        :class:`~cya_sim.engine.table.GameTable`, and what ``games.parquet`` stores."""

    @abstractmethod
    def _play_games(self, engine: str) -> Callable:
        """The family's batch play on a known engine name."""

    def play_games(self, engine: str) -> Callable:
        """``play_games(rules, agents, seat_agent, key, game_indices, ...)`` on ``engine``: a per-game
        :class:`~cya_sim.engine.table.GameTable` (``(G, P)`` totals in the family's score unit), the same games
        on either engine.

        Raises:
            ValueError: an engine not in :data:`cya_sim.engine.ENGINES` (the allowed names listed).
            ImportError: the batched engine cannot be imported (numba missing).
        """
        if engine not in ENGINES:
            raise ValueError(f"unknown engine {engine!r}; choose one of: {', '.join(ENGINES)}")
        play = self._play_games(engine)

        @functools.wraps(play)  # checked.__wrapped__ is the engine's own function
        def checked(rules, agents, seat_agent, *args, **kwargs):
            # an agent made for another setting (a learned model) is refused before any game of the batch
            for spec in agents:
                if isinstance(spec, str):
                    self.check_setting(spec, rules, int(np.shape(seat_agent)[1]))
            return play(rules, agents, seat_agent, *args, **kwargs)

        return checked

    def check_setting(self, spec: str, rules: Any, players: int) -> None:
        """Refuse an agent spec that plays only some settings (a learned model trained for one rule set and table
        size) at ``players`` seats under ``rules``; every other spec passes.

        Raises:
            AgentSpecError: one line naming the agent, what it plays and what it was asked to play.
        """

    @abstractmethod
    def play_game(self, rules: Any, agents: Sequence, key: int, game_index: int = 0,
                  log: Callable[[str], None] | None = None) -> Any:
        """One game on the reference engine with agent objects, each event written to ``log`` (the readable log).

        Raises:
            the family's IllegalActionError (agent, seat, game and action named); AgentError: an agent raised.
        """

    def batched_refusal(self, rules: Any) -> str:
        """Why the batched engine cannot play these rules ("" when it can)."""
        return ""

    @abstractmethod
    def kernels(self, rules_list: Sequence, players: Sequence[int], agents: Sequence[str], engine: str) -> list:
        """The :class:`~cya_sim.play.kernels.Kernel` list a run of these rule sets, table sizes and agents needs.

        Raises:
            ValueError: an unknown agent spec, or a plug-in not importable as ``module:function``.
        """
