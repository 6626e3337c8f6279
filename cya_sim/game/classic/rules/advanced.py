"""The advanced cards as data (RULES.md R-DECK-ACTION, §6).

The later edition's advanced rules add three cards to the deck: **Swap** and
**Move** (action cards: kind ``action``, no value, R-ADV-SWAP, R-ADV-MOVE) and
the **Penny Jar** (a wild that weighs two in a challenge, R-ADV-PENNY). Their
copies come from the rule option ``action_card_counts`` = (Swap, Move, Penny
Jar) and the Penny Jar's dollar value from ``penny_jar_value`` (default
$1,000: the value is not public, R-DECK-ACTION). :func:`with_advanced_cards`
builds the deck a rule set plays with; the advanced cards of a deck are always
the ones these options give (a deck's own cards of these names are replaced),
so the same options always give the same deck.
"""

from __future__ import annotations

from dataclasses import dataclass

from cya_sim.game.classic.rules.deck import RESERVED_CARD_NAMES, CardType, Deck

SWAP = "Swap"
MOVE = "Move"
PENNY_JAR = "Penny Jar"
ADVANCED_CARD_NAMES = (SWAP, MOVE, PENNY_JAR)
assert ADVANCED_CARD_NAMES == RESERVED_CARD_NAMES  # the names a deck file may not use (load_deck)
#: Action cards the engines know how to carry out (by name, R-ADV-SWAP, R-ADV-MOVE).
ACTION_CARD_NAMES = (SWAP, MOVE)


def with_advanced_cards(deck: Deck, counts: tuple[int, int, int], penny_value: int) -> Deck:
    """``deck`` with the advanced cards of the options (R-DECK-ACTION).

    Args:
        deck: a deck; its cards named Swap, Move or Penny Jar are dropped first.
        counts: copies of (Swap, Move, Penny Jar); a 0 leaves the card out.
        penny_value: dollars, the Penny Jar's face value.

    Returns:
        the deck in canonical order: assets, wilds (Penny Jar last), actions
        (Swap, then Move). The same object when nothing changes (no advanced
        cards before or after).
    """
    base = tuple(c for c in deck.cards if c.name not in ADVANCED_CARD_NAMES)
    if len(base) == len(deck.cards) and not any(counts):
        return deck
    extra = []
    if counts[2]:
        extra.append(CardType(PENNY_JAR, "wild", penny_value, counts[2]))
    if counts[0]:
        extra.append(CardType(SWAP, "action", 0, counts[0]))
    if counts[1]:
        extra.append(CardType(MOVE, "action", 0, counts[1]))
    entries = [c.__dict__ for c in base + tuple(extra)]
    return Deck.from_entries(deck.name, entries)


@dataclass(frozen=True)
class AdvancedIds:
    """Card type ids of the advanced cards in a deck (-1: not in the deck).

    swap, move: action card ids (R-ADV-SWAP, R-ADV-MOVE). penny: the Penny
    Jar's wild id (R-ADV-PENNY). n_action_cards: how many card types are
    action cards (ids ``n_assets + n_wilds ..``).
    """

    swap: int
    move: int
    penny: int
    n_action_cards: int

    @classmethod
    def of(cls, deck: Deck) -> AdvancedIds:
        """The ids of ``deck``'s advanced cards."""
        names = deck.names

        def idx(name: str) -> int:
            return names.index(name) if name in names else -1

        return cls(idx(SWAP), idx(MOVE), idx(PENNY_JAR), sum(c.kind == "action" for c in deck.cards))
