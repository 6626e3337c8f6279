"""Every game family by name (:data:`FAMILIES`, :func:`family_of`): the games of :data:`cya_sim.game.registry.GAMES`,
each with its :class:`~cya_sim.play.family.GameFamily` (the protocol) found in its folder,
``cya_sim/play/<family>/family.py`` (``FAMILY``).

The RL environments reach a game through the same registry on their floor (:func:`cya_sim.env.games.game_interface`:
``cya_sim/env/<family>/interface.py``), so a new game registers once, in :data:`cya_sim.game.registry.GAMES`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from cya_sim.game.registry import GAMES, game_part
from cya_sim.play.family import GameFamily

__all__ = ["FAMILIES", "GameFamily", "calls_compiled_plugin", "family_of", "is_rule_set"]

#: Every game family by name, in the order of :data:`cya_sim.game.registry.GAMES` (its ``FAMILY``).
FAMILIES: dict[str, GameFamily] = {name: game_part("play.family", name).FAMILY for name in GAMES}


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
