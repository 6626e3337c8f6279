"""The classic family's rules as data: decks, the rule set and its presets (RULES.md §1, §3–5, §8).

Every family's presets by name, and the family-neutral rules API: :mod:`cya_sim.game.rules`.
"""

from cya_sim.game.classic.rules.deck import CardType, Deck, DeckError, deck_2011, load_deck
from cya_sim.game.classic.rules.presets import PRESETS
from cya_sim.game.classic.rules.ruleset import RulesError, RuleSet, option_names

__all__ = [
    "PRESETS",
    "CardType",
    "Deck",
    "DeckError",
    "RuleSet",
    "RulesError",
    "deck_2011",
    "load_deck",
    "option_names",
]
