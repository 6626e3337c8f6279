"""The game protocol: what a game family provides to everything above the play floor.

The seeds hold two games that share no rule: the Cover Your Assets family (``classic``, ``guide``, ``basic``,
``advanced``, the drafts: one :class:`~cya_sim.game.rules.RuleSet` with presets) and seed 003's theft game
(``theft``, :class:`~cya_sim.game.theft.rules.TheftRuleSet`, RULES.md §9). A rule set names its family
(``rules.family``); :func:`family_of` gives the family's :class:`GameFamily`, and the runner, the studies and
the command line reach a game only through it: its agents, its batch play on either engine, one logged game,
whether the batched engine takes the rules, and the kernels a run must compile. A family's own parts stay on
the floors of their jobs (``cya_sim/game/<family>``, ``cya_sim/engine/<family>``, ``cya_sim/play``,
``agents/``); the RL environments have their own per-family interface on the env floor
(:func:`cya_sim.env.games.game_interface`). ``tests/test_game_families.py`` holds every family to this
protocol, as pgx's ``api_test`` holds its games (docs/layout.md: "Adding a game").
"""

from __future__ import annotations

import functools
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from typing import Any, ClassVar

import numpy as np

from cya_sim.engine import ENGINES


class GameFamily(ABC):
    """One game family's protocol (module docstring). Subclasses are stateless; :data:`FAMILIES` holds one each.

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


class ClassicFamily(GameFamily):
    """The Cover Your Assets family (RULES.md §1-§8, §10): presets ``classic`` … ``three_player_draft_advanced``."""

    name = "classic"
    cap_option = ("max_rounds", "round")
    takes_deck_file = True

    def rules_type(self) -> type:
        from cya_sim.game.rules import RuleSet

        return RuleSet

    def agent_names(self) -> tuple[str, ...]:
        from agents.classic.registry import agent_names

        return agent_names()

    def make_agent(self, spec: str) -> Any:
        from agents.classic.registry import make_agent

        return make_agent(spec)

    def _play_games(self, engine: str) -> Callable:
        import cya_sim.play

        return cya_sim.play.get_play_games(engine)

    def play_game(self, rules: Any, agents: Sequence, key: int, game_index: int = 0,
                  log: Callable[[str], None] | None = None) -> Any:
        from cya_sim.engine.classic.reference import play_game

        for a in agents:  # a learned model (a plug-in agent named by its spec) elsewhere than it was trained for
            name = a if isinstance(a, str) else getattr(a, "name", None)
            if isinstance(name, str):
                self.check_setting(name, rules, len(agents))
        return play_game(rules, agents, key, game_index, log=log)

    def batched_refusal(self, rules: Any) -> str:
        from cya_sim.engine.classic.layout import batched_refusal

        return batched_refusal(rules)

    def check_setting(self, spec: str, rules: Any, players: int) -> None:
        from agents.classic.learned import check_setting

        check_setting(spec, rules, players)

    def kernels(self, rules_list: Sequence, players: Sequence[int], agents: Sequence[str], engine: str) -> list:
        from cya_sim.play.kernels import classic_kernels

        return classic_kernels(rules_list, players, agents, engine)


class TheftFamily(GameFamily):
    """The theft game of seed 003 (RULES.md §9): preset ``theft``; totals are points."""

    name = "theft"
    cap_option = ("max_turns", "turn")
    takes_deck_file = False

    def rules_type(self) -> type:
        from cya_sim.game.theft.rules import TheftRuleSet

        return TheftRuleSet

    def agent_names(self) -> tuple[str, ...]:
        from agents.theft.registry import theft_agent_names

        return theft_agent_names()

    def make_agent(self, spec: str) -> Any:
        from agents.theft.registry import make_theft_agent

        return make_theft_agent(spec)

    def _play_games(self, engine: str) -> Callable:
        if engine == "reference":
            from cya_sim.play.theft.reference import play_theft_games

            return play_theft_games
        from cya_sim.play.theft.batched import play_theft_games_batched

        return play_theft_games_batched

    def play_game(self, rules: Any, agents: Sequence, key: int, game_index: int = 0,
                  log: Callable[[str], None] | None = None) -> Any:
        from cya_sim.play.theft.reference import play_game

        return play_game(rules, agents, key, game_index, log=log)

    def kernels(self, rules_list: Sequence, players: Sequence[int], agents: Sequence[str], engine: str) -> list:
        from cya_sim.play.kernels import theft_kernels

        return theft_kernels(rules_list, players, agents, engine)


#: Every game family by name: the one place a family is registered above the game floor.
FAMILIES: dict[str, GameFamily] = {f.name: f for f in (ClassicFamily(), TheftFamily())}


def family_of(rules: Any) -> GameFamily:
    """The :class:`GameFamily` of a rule set (``classic`` when it names none).

    Raises:
        ValueError: a family no module provides (the known ones listed).
    """
    name = getattr(rules, "family", "classic")
    if name not in FAMILIES:
        raise ValueError(f"rules {getattr(rules, 'name', rules)!r}: unknown game family {name!r}; known: "
                         f"{', '.join(FAMILIES)}")
    return FAMILIES[name]


def is_rule_set(obj: Any) -> bool:
    """Whether ``obj`` is a rule set of a known game family (a :class:`~cya_sim.game.rules.RuleSet`, a
    :class:`~cya_sim.game.theft.rules.TheftRuleSet`)."""
    return any(isinstance(obj, f.rules_type()) for f in FAMILIES.values())


def calls_compiled_plugin(agents: Sequence[str]) -> bool:
    """Whether a line-up (agent specs of any family) holds a compiled plug-in, as a player or as a search's rollout
    (:func:`agents.plugin.calls_compiled_plugin`): user code that runs compiled, where Python never sees Ctrl-C,
    so the runner plays it in a worker process (:func:`cya_sim.runs.runner.run_tasks`)."""
    from agents.plugin import calls_compiled_plugin as one

    return any(one(a) for a in dict.fromkeys(agents))
