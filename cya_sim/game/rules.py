"""The rules API of every game family: presets by name, option names, and the rule-set types (RULES.md R-PRESETS).

Each game keeps its rule set and presets in its own folder (``cya_sim/game/<family>/rules``: a frozen rule set
and ``PRESETS``, a dict of them by name, and ``option_names()``); :func:`get_rules` finds a preset in the games
of :data:`cya_sim.game.registry.GAMES`, in that order. The classic family's rule set, decks and presets are
named here too (``RuleSet``, ``load_deck``, ``PRESETS``), as the command line and the runs use them.
"""

from __future__ import annotations

from typing import Any

from cya_sim.game.classic.rules import (
    PRESETS,
    CardType,
    Deck,
    DeckError,
    RuleSet,
    deck_2011,
    load_deck,
    option_names,
)
from cya_sim.game.errors import RulesError
from cya_sim.game.registry import GAMES, game_part
from cya_sim.game.theft.rules import TheftRuleSet

__all__ = [
    "PRESETS",
    "CardType",
    "Deck",
    "DeckError",
    "RuleSet",
    "RulesError",
    "TheftRuleSet",
    "deck_2011",
    "get_rules",
    "load_deck",
    "option_names",
    "preset_names",
    "rule_option_names",
]


def _presets() -> dict[str, Any]:
    """Every preset of every game by name, the games in the order of :data:`GAMES`."""
    out: dict[str, Any] = {}
    for name in GAMES:
        out.update(game_part("game.rules", name).PRESETS)
    return out


def preset_names() -> tuple[str, ...]:
    """Every preset name, the classic family's first, then the other games' (``theft``)."""
    return tuple(_presets())


def rule_option_names(rules: Any) -> tuple[str, ...]:
    """The overridable option names of a rule set of any family (its game's ``option_names()``)."""
    return game_part("game.rules", getattr(rules, "family", "classic")).option_names()


def get_rules(preset: str = "classic", **options: Any) -> RuleSet | TheftRuleSet:
    """The rule set of a preset, with options overridden.

    Args:
        preset: one of :func:`preset_names` (``theft`` gives a
            :class:`~cya_sim.game.theft.rules.TheftRuleSet`, §9).
        **options: any option of the preset's rule set (``hand_size=5``,
            ``end_condition="rounds:3"``, ``deck=load_deck(path)``, ...).

    Raises:
        RulesError: unknown preset (the presets listed), unknown option, bad value.
    """
    presets = _presets()
    if preset not in presets:
        raise RulesError(f"unknown rule preset {preset!r}; choose one of: {', '.join(presets)}")
    rules = presets[preset]
    return rules.with_options(**options) if options else rules
