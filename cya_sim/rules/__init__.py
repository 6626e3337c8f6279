"""Rules as data: decks, the rule set and its presets (RULES.md §1, §3–5, §8)."""

from cya_sim.rules.deck import CardType, Deck, DeckError, deck_2011, load_deck
from cya_sim.rules.presets import PRESETS, get_rules
from cya_sim.rules.ruleset import RulesError, RuleSet, option_names

__all__ = [
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
]
