"""The theft game family as the game protocol gives it (:class:`~cya_sim.play.family.GameFamily`, registered by its
name in :data:`cya_sim.game.registry.GAMES`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from cya_sim.engine.table import ResultColumns
from cya_sim.play.family import GameFamily


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

    def result_columns(self) -> ResultColumns:
        from cya_sim.engine.theft.results import THEFT_COLUMNS

        return THEFT_COLUMNS

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
        from cya_sim.play.theft.kernels import kernels

        return kernels(rules_list, players, agents, engine)


#: The theft game's protocol.
FAMILY = TheftFamily()
