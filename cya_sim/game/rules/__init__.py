"""Rules as data: decks, the rule set and its presets (RULES.md §1, §3–5, §8)."""

from cya_sim.game.rules.deck import CardType, Deck, DeckError, deck_2011, load_deck
from cya_sim.game.rules.presets import FAMILY_PRESETS, PRESETS, get_rules, preset_names, rule_option_names
from cya_sim.game.rules.ruleset import RulesError, RuleSet, option_names

__all__ = [
    "FAMILY_PRESETS",
    "PRESETS",
    "CardType",
    "Deck",
    "DeckError",
    "RuleSet",
    "RulesError",
    "deck_2011",
    "get_rules",
    "load_deck",
    "option_names",
    "preset_names",
    "rule_option_names",
]
