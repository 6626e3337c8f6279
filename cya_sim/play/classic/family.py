"""The classic game family as the game protocol gives it (:class:`~cya_sim.play.family.GameFamily`, registered by its
name in :data:`cya_sim.game.registry.GAMES`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from cya_sim.engine.table import ResultColumns
from cya_sim.play.family import GameFamily


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

    def result_columns(self) -> ResultColumns:
        from cya_sim.engine.classic.results import CLASSIC_COLUMNS

        return CLASSIC_COLUMNS

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
        from cya_sim.play.classic.kernels import kernels

        return kernels(rules_list, players, agents, engine)


#: The classic family's protocol.
FAMILY = ClassicFamily()
