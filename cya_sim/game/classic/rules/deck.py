"""Decks as data (R-DECK-2011, R-DECK-ACTION, R-DECK-CUSTOM, R-DECK-MULTI).

A deck is a tuple of card types. Card types are indexed in a canonical order,
assets first, then wilds, then action cards (each group in file order), so an
engine can use ``t < n_assets`` to mean "asset" and
``n_assets <= t < n_assets + n_wilds`` to mean "wild".
"""

from __future__ import annotations

import math
import tomllib
from dataclasses import dataclass
from functools import cached_property
from importlib import resources
from pathlib import Path

import numpy as np

from cya_sim.errors import UserInputError
from cya_sim.game.jsontext import show
from cya_sim.tomltext import TomlTextError, load_toml

CARD_KINDS = ("asset", "wild", "action")
#: Kinds a deck file may hold (R-DECK-CUSTOM): the action cards come from rule options (R-DECK-ACTION).
FILE_CARD_KINDS = ("asset", "wild")
#: Names of the advanced cards (R-DECK-ACTION), which a rule set builds from its options and so replaces
#: in any deck (:func:`cya_sim.game.classic.rules.advanced.with_advanced_cards`): a deck file may not use them.
RESERVED_CARD_NAMES = ("Swap", "Move", "Penny Jar")
#: Upper bounds of a card's ``value`` (dollars) and ``copies``: with them every count fits the
#: batched engine's 8-bit card counts (at most 3 decks in play, R-DECK-MULTI) and every total its
#: 64-bit integers (see also ``RuleSet``'s ``max_rounds`` check).
MAX_CARD_VALUE = 10**12
MAX_COPIES = 40


class DeckError(ValueError, UserInputError):
    """A deck file or deck entry is invalid (R-DECK-CUSTOM)."""


@dataclass(frozen=True)
class CardType:
    """One kind of card in a deck.

    name: unique card name, e.g. ``"Jewels"``.
    kind: ``"asset"``, ``"wild"`` or ``"action"`` (R-DECK-ACTION, not playable yet).
    value: face value in dollars (int, >= 0; action cards 0).
    copies: number of copies in one full deck (int, >= 1).
    """

    name: str
    kind: str
    value: int
    copies: int


@dataclass(frozen=True)
class Deck:
    """A deck of card types in canonical order (assets, wilds, actions).

    Attributes:
        name: a label for reports, e.g. ``"2011"``.
        cards: tuple of :class:`CardType`; index = card type id used everywhere.

    Raises:
        DeckError: on construction, for values outside 0..MAX_CARD_VALUE,
            copies outside 1..MAX_COPIES, no asset, two cards with one name or
            an unknown kind (R-DECK-CUSTOM); the message names the entry.
    """

    name: str
    cards: tuple[CardType, ...]

    def __post_init__(self) -> None:
        if not self.cards:
            raise DeckError(f"deck {self.name!r}: no cards")
        seen: set[str] = set()
        for i, c in enumerate(self.cards):
            where = f"deck {self.name!r}, card {i} ({c.name!r})"
            if not isinstance(c.name, str) or not c.name.strip():
                raise DeckError(f"{where}: field 'name' must be a non-empty string")
            if c.name in seen:
                raise DeckError(f"{where}: two cards are named {c.name!r}; names must be unique")
            seen.add(c.name)
            if c.kind not in CARD_KINDS:
                raise DeckError(f"{where}: field 'kind' is {c.kind!r}; choose one of: {', '.join(CARD_KINDS)}")
            if not isinstance(c.value, int) or isinstance(c.value, bool) or not 0 <= c.value <= MAX_CARD_VALUE:
                raise DeckError(f"{where}: field 'value' is {c.value!r}; it must be an integer from 0 to "
                                f"{MAX_CARD_VALUE:,} (dollars)")
            if not isinstance(c.copies, int) or isinstance(c.copies, bool) or not 1 <= c.copies <= MAX_COPIES:
                raise DeckError(f"{where}: field 'copies' is {c.copies!r}; it must be an integer from 1 to "
                                f"{MAX_COPIES}")
        if not any(c.kind == "asset" for c in self.cards):
            raise DeckError(f"deck {self.name!r}: no asset card; a deck needs at least one asset")
        order = [c.kind for c in self.cards]
        if order != sorted(order, key=CARD_KINDS.index):
            raise DeckError(
                f"deck {self.name!r}: cards must be in canonical order (assets, wilds, actions); "
                "use Deck.from_entries to sort them"
            )

    @classmethod
    def from_entries(cls, name: str, entries: list[dict]) -> Deck:
        """Build a deck from dicts with keys name, kind, value, copies.

        Entries are stably sorted into canonical order (assets, wilds, actions).

        Raises:
            DeckError: a missing or extra field, or any check of :class:`Deck`.
        """
        cards = []
        for i, e in enumerate(entries):
            if not isinstance(e, dict):
                raise DeckError(f"deck {name!r}, card {i}: expected a table with name, kind, value, copies")
            missing = {"name", "kind", "value", "copies"} - set(e)
            extra = set(e) - {"name", "kind", "value", "copies"}
            if missing:
                raise DeckError(f"deck {name!r}, card {i}: missing field(s) {', '.join(sorted(missing))}")
            if extra:
                raise DeckError(
                    f"deck {name!r}, card {i}: unknown field(s) {', '.join(sorted(extra))}; "
                    "allowed: name, kind, value, copies"
                )
            cards.append(CardType(e["name"], e["kind"], e["value"], e["copies"]))
        kinds_ok = [c for c in cards if c.kind in CARD_KINDS]
        if len(kinds_ok) == len(cards):
            cards.sort(key=lambda c: CARD_KINDS.index(c.kind))
        return cls(name=name, cards=tuple(cards))

    # -- derived views -------------------------------------------------------
    @property
    def n_types(self) -> int:
        """Number of card types T."""
        return len(self.cards)

    @cached_property  # read on every step of the reference engine; a deck never changes
    def n_assets(self) -> int:
        """Number of asset types; asset type ids are ``0 .. n_assets-1``."""
        return sum(c.kind == "asset" for c in self.cards)

    @cached_property  # read on every step of the reference engine; a deck never changes
    def n_wilds(self) -> int:
        """Number of wild types; wild ids are ``n_assets .. n_assets+n_wilds-1``."""
        return sum(c.kind == "wild" for c in self.cards)

    @cached_property  # read on every step of the reference engine; a deck never changes
    def names(self) -> tuple[str, ...]:
        """Card names in type-id order."""
        return tuple(c.name for c in self.cards)

    @cached_property
    def values(self) -> np.ndarray:
        """(T,) int64 face values in dollars (read-only)."""
        v = np.array([c.value for c in self.cards], dtype=np.int64)
        v.flags.writeable = False
        return v

    @cached_property
    def copies(self) -> np.ndarray:
        """(T,) int64 copies of each type in one full deck (read-only)."""
        v = np.array([c.copies for c in self.cards], dtype=np.int64)
        v.flags.writeable = False
        return v

    @property
    def total_value(self) -> int:
        """Dollar value of one full deck ($1,360,000 for R-DECK-2011)."""
        return sum(c.value * c.copies for c in self.cards)

    def type_id(self, name: str) -> int:
        """Type id of the card called ``name``.

        Raises:
            KeyError: unknown card name; the message lists the deck's cards.
        """
        try:
            return self.names.index(name)
        except ValueError:
            raise KeyError(f"unknown card {name!r}; this deck has: {', '.join(self.names)}") from None

    def counts_for_players(self, n_players: int, extra_deck_unit: str = "pack") -> np.ndarray:
        """(T,) int64 copies of each type in play at a table of ``n_players``.

        R-DECK-MULTI: beyond six players, add one extra unit per three players
        (rounding up); a unit is a 55-card ``pack`` (half of every card) or a
        ``full`` deck.

        Raises:
            ValueError: unknown ``extra_deck_unit``, or ``pack`` with a card of
                odd copies (a pack would hold half a card).
        """
        if extra_deck_unit not in ("pack", "full"):
            raise ValueError(f"option 'extra_deck_unit' is {extra_deck_unit!r}; choose one of: pack, full")
        extra = max(0, math.ceil((n_players - 6) / 3))
        copies = self.copies
        if extra == 0:
            return copies.copy()
        if extra_deck_unit == "full":
            return copies * (1 + extra)
        odd = [c.name for c in self.cards if c.copies % 2]
        if odd:
            raise ValueError(
                f"option 'extra_deck_unit' = 'pack' needs an even number of copies of every card; "
                f"{', '.join(odd)} have odd copies (use extra_deck_unit='full')"
            )
        return copies + extra * (copies // 2)


def load_deck(path: str | Path) -> Deck:
    """Load a deck from a TOML file (R-DECK-CUSTOM).

    The file holds ``name = "..."`` and one ``[[cards]]`` table per card type
    with ``name``, ``kind`` (asset | wild), ``value`` (dollars) and ``copies``.
    See ``cya_sim/game/classic/data/deck_2011.toml``. Action cards and the names
    Swap, Move and Penny Jar are refused: the advanced rules build those
    cards from their options (R-DECK-ACTION), so a file's own would be
    replaced without a word.

    Raises:
        DeckError: unreadable file, not UTF-8, bad TOML, or an invalid entry (named), a card of kind
            ``action`` or named Swap, Move or Penny Jar (the entry, the field and the allowed values named).
    """
    path = Path(path)
    try:
        data = load_toml(path.read_text(encoding="utf-8"))
    except OSError as e:
        raise DeckError(f"deck file {str(path)!r}: cannot read it ({e.strerror or e})") from None
    except UnicodeDecodeError as e:
        raise DeckError(f"deck file {str(path)!r}: not UTF-8 text (byte {e.start}); save it as UTF-8") from None
    except TomlTextError as e:
        raise DeckError(f"deck file {str(path)!r}: {e}") from None
    if "cards" not in data or not isinstance(data["cards"], list):
        raise DeckError(f"deck file {str(path)!r}: needs a list of [[cards]] tables")
    name = data.get("name", path.stem)
    if not isinstance(name, str) or not name.strip():
        raise DeckError(f"deck file {str(path)!r}: field 'name' is {show(name, python_str=True)}; it must be a "
                        "non-empty string (or left out for the file's name)")
    deck = Deck.from_entries(name, data["cards"])
    for i, e in enumerate(data["cards"]):  # valid tables now (from_entries checked them), in file order
        where = f"deck file {str(path)!r}, card {i} ({e['name']!r})"
        if e["kind"] not in FILE_CARD_KINDS:
            raise DeckError(f"{where}: field 'kind' is {e['kind']!r}; choose one of: {', '.join(FILE_CARD_KINDS)} "
                            "(a deck file holds no action cards: Swap and Move come from option action_card_counts, "
                            "R-DECK-ACTION)")
        if e["name"] in RESERVED_CARD_NAMES:
            raise DeckError(f"{where}: field 'name' is {e['name']!r}, a card the advanced rules add themselves "
                            f"(options action_card_counts and penny_jar_value, R-DECK-ACTION); give a name other "
                            f"than {', '.join(RESERVED_CARD_NAMES)}")
    return deck


def deck_2011() -> Deck:
    """The classic 110-card deck, $1,360,000 (R-DECK-2011), from package data."""
    text = resources.files("cya_sim.game.classic.data").joinpath("deck_2011.toml").read_text(encoding="utf-8")
    data = tomllib.loads(text)
    return Deck.from_entries(data["name"], data["cards"])
