"""Rules of the theft game as data: one frozen :class:`TheftRuleSet` and its preset (RULES.md §9).

Every number RULES.md §9 marks *(option)* and every reading it marks
*(choice)* is a field here, with the seed's reading (seed 003) as default.
Readings the seed and §9 leave open that the engine still has to make are
fields too, each saying so in :class:`TheftRuleSet`'s docstring. Engines read
fields; they never branch on a preset's name.

Card type ids (``T = numbers + 3``): ``0..numbers-1`` are the number cards
1..numbers, then ``gold``, ``theft`` and ``gold_theft``.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from typing import Any

import numpy as np

from cya_sim.game.errors import RulesError
from cya_sim.game.jsontext import show
from cya_sim.game.limits import range_text

END_OF_TURN = ("discard_down", "discard_and_draw_up", "keep")
#: What cancels a gold theft (R-T-TURN *choice*): a pair from hand that includes a gold card, or one gold card.
GOLD_THEFT_CANCEL = ("pair_with_gold", "single_gold")
#: Which pairs from hand cancel a theft (R-T-TURN *choice*): any pair, or one whose points equal the target's.
CANCEL_PAIR_VALUE = ("any", "target_value")
#: Upper bounds of the options (no option may overflow the engine's 64-bit counts or make a
#: game that cannot be stored; the seed's values are far below them).
MAX_THEFT_COPIES = 100        # copies of one card type (the default deck: 10 of each number)
MAX_THEFT_COUNT = 10_000      # hand sizes, cards drawn, assets to end, thefts per turn
MAX_THEFT_TURNS = 10_000_000  # max_turns: a 32-bit turn count with room to spare
MAX_GOLD_VALUE = 10**12       # points of a gold card (the classic family's largest card value)


@dataclass(frozen=True)
class TheftRuleSet:
    """All options of the theft game (RULES.md §9, seed 003).

    Attributes:
        name: ``"theft"``, or ``"theft+custom"`` once an option is overridden.
        family: ``"theft"`` (the game family; engines and agents are chosen by it).
        numbers: number cards run 1..numbers (R-T-DECK, *option*, 10).
        copies_per_number: copies of each number (R-T-DECK, *choice, option*, 10).
        gold_cards: gold cards (R-T-DECK, *choice, option*, 4): value ``gold_value``,
            any number when building or cancelling.
        gold_value: points a gold card counts (R-T-END, 1).
        plain_thefts, gold_thefts: theft cards (R-T-DECK, *choice, option*, 7 and 1).
        min_players, max_players: table sizes (the seed gives none; a simulator choice, 2–6).
        hand_size: cards dealt to each player (R-T-SETUP, *option*, 5).
        draw_per_turn: cards drawn at the start of a turn (R-T-TURN, *option*, 2).
        end_of_turn: R-T-TURN *choice*: ``discard_down`` (default: discard down to
            ``hand_limit``, no drawing up), ``discard_and_draw_up`` (discard down,
            then draw up to ``hand_limit``: "bring your hand to 5" read both ways) or
            ``keep`` (no end-of-turn limit).
        hand_limit: the end-of-turn hand size (R-T-TURN, *option*, 5).
        assets_to_end: assets that end the game (R-T-END, *option*, 3).
        max_thefts_per_turn: R-T-TURN, the seed sets no limit on theft: 0 = any
            number (default); k >= 1 allows k theft cards per turn.
        protect_last_asset: R-T-TURN limit on theft: a player's only asset cannot
            be targeted (default false: "a plain theft may target any asset").
        defend_with_asset: R-T-TURN: the target may cancel by giving up one of its
            own assets (default true, the seed's reading).
        defend_with_targeted_asset: R-T-TURN *choice*: the asset given up to cancel
            may be the targeted asset itself ("one of their own assets" excludes
            none; default true). False: only another asset.
        gold_gold_pair: two gold cards form a pair for building and cancelling
            (R-T-TURN: "two gold cards do not build"; default false).
        compulsory_defence: R-T-TURN *choice*: the seed's target "must immediately put a pair … to
            cancel the theft"; default false (defending is optional); true: letting the asset pass is
            legal only when no defence is.
        give_up_pair_only: R-T-TURN *choice*: the asset given up to cancel must itself be a pair ("a
            pair of same-number cards (which can also be from his assets)"): two equal numbers, or a
            number and a gold card (two gold cards under ``gold_gold_pair``); default false (any own
            asset, a first asset such as 3+5 included).
        gold_theft_cancel: R-T-TURN *choice* of what cancels the gold theft ("cannot be defended except
            with a gold card"): ``pair_with_gold`` (default: a pair from hand that includes a gold card,
            or an own asset holding one) or ``single_gold`` (one gold card from the hand, action
            ``cancel_gold``; pairs from hand then do not cancel it; an own asset holding a gold card
            still does).
        cancel_pair_value: R-T-TURN *choice* of the pairs from hand that cancel a theft (the seed's
            example "to steal a 12 asset … any pair whose sum is 12" contradicts its rule): ``any``
            (default) or ``target_value`` (only a pair whose points equal the targeted asset's points).
        max_turns: turn cap, a simulator safeguard and not a rule: the game stops
            after this many turns, scored as it stands, and the result says so
            (``capped``). Default 1000.

    Raises:
        RulesError: on construction, an option outside its allowed values (the
            upper bounds :data:`MAX_THEFT_COPIES`, :data:`MAX_THEFT_COUNT`,
            :data:`MAX_THEFT_TURNS`, :data:`MAX_GOLD_VALUE`); the message names the
            option and the allowed values.
    """

    name: str = "theft"
    family: str = "theft"
    numbers: int = 10
    copies_per_number: int = 10
    gold_cards: int = 4
    gold_value: int = 1
    plain_thefts: int = 7
    gold_thefts: int = 1
    min_players: int = 2
    max_players: int = 6
    hand_size: int = 5
    draw_per_turn: int = 2
    end_of_turn: str = "discard_down"
    hand_limit: int = 5
    assets_to_end: int = 3
    max_thefts_per_turn: int = 0
    protect_last_asset: bool = False
    defend_with_asset: bool = True
    defend_with_targeted_asset: bool = True
    gold_gold_pair: bool = False
    compulsory_defence: bool = False
    give_up_pair_only: bool = False
    gold_theft_cancel: str = "pair_with_gold"
    cancel_pair_value: str = "any"
    max_turns: int = 1000

    def __post_init__(self) -> None:
        def bad(opt: str, allowed: str) -> RulesError:
            return RulesError(f"option {opt!r} is {show(getattr(self, opt), python_str=True)}; {allowed}")

        def need_int(opt: str, lo: int, hi: int | None = None) -> None:
            v = getattr(self, opt)
            if not isinstance(v, int) or isinstance(v, bool) or v < lo or (hi is not None and v > hi):
                raise bad(opt, f"it must be an integer >= {lo}" + (f" and <= {hi}" if hi is not None else ""))

        if self.family != "theft":
            raise bad("family", "the theft rule set's family is 'theft'")
        need_int("numbers", 1, 60)
        for opt in ("copies_per_number", "gold_cards", "plain_thefts", "gold_thefts"):
            need_int(opt, 0, MAX_THEFT_COPIES)
        for opt in ("max_thefts_per_turn", "draw_per_turn"):
            need_int(opt, 0, MAX_THEFT_COUNT)
        need_int("gold_value", 0, MAX_GOLD_VALUE)
        need_int("min_players", 2, 12)
        need_int("max_players", 2, 12)
        if self.min_players > self.max_players:
            raise RulesError(f"option 'min_players' ({self.min_players}) exceeds 'max_players' ({self.max_players})")
        need_int("hand_size", 2, MAX_THEFT_COUNT)
        need_int("hand_limit", 0, MAX_THEFT_COUNT)
        need_int("assets_to_end", 1, MAX_THEFT_COUNT)
        need_int("max_turns", 1, MAX_THEFT_TURNS)
        if self.end_of_turn not in END_OF_TURN:
            raise bad("end_of_turn", f"choose one of: {', '.join(END_OF_TURN)}")
        for opt in ("protect_last_asset", "defend_with_asset", "defend_with_targeted_asset", "gold_gold_pair",
                    "compulsory_defence", "give_up_pair_only"):
            if not isinstance(getattr(self, opt), bool):
                raise bad(opt, "choose one of: true, false")
        if self.gold_theft_cancel not in GOLD_THEFT_CANCEL:
            raise bad("gold_theft_cancel", f"choose one of: {', '.join(GOLD_THEFT_CANCEL)}")
        if self.cancel_pair_value not in CANCEL_PAIR_VALUE:
            raise bad("cancel_pair_value", f"choose one of: {', '.join(CANCEL_PAIR_VALUE)}")
        if self.numbers * self.copies_per_number + self.gold_cards < 2:
            raise RulesError("options 'copies_per_number', 'gold_cards': the deck needs at least 2 asset cards")
        need = self.max_players * self.hand_size
        if self.n_cards < need:
            raise RulesError(f"options 'copies_per_number', 'gold_cards', 'plain_thefts', 'gold_thefts': "
                             f"{self.n_cards} cards cannot deal {self.hand_size} to {self.max_players} players")

    @property
    def score_unit(self) -> str:
        """``"points"``: the theft game's totals are points (R-T-END), never dollars."""
        return "points"

    # -- card types -----------------------------------------------------------
    @property
    def gold(self) -> int:
        """Card type id of a gold card."""
        return self.numbers

    @property
    def theft(self) -> int:
        """Card type id of a plain theft card."""
        return self.numbers + 1

    @property
    def gold_theft(self) -> int:
        """Card type id of the gold theft card."""
        return self.numbers + 2

    @property
    def n_types(self) -> int:
        """T, card types: the numbers, gold, theft, gold theft."""
        return self.numbers + 3

    @property
    def n_asset_types(self) -> int:
        """Card types that can lie in an asset: the numbers and gold."""
        return self.numbers + 1

    @property
    def card_names(self) -> tuple[str, ...]:
        """(T,) names: ``"1"``..``"10"``, ``"Gold"``, ``"Theft"``, ``"Gold Theft"``."""
        return tuple(str(n + 1) for n in range(self.numbers)) + ("Gold", "Theft", "Gold Theft")

    @property
    def values(self) -> np.ndarray:
        """(T,) int64 points of each card type (R-T-END: numbers at face value, gold ``gold_value``, thefts 0)."""
        return np.array([n + 1 for n in range(self.numbers)] + [self.gold_value, 0, 0], dtype=np.int64)

    @property
    def counts(self) -> np.ndarray:
        """(T,) int64 copies of each card type in the deck (R-T-DECK)."""
        return np.array([self.copies_per_number] * self.numbers + [self.gold_cards, self.plain_thefts,
                                                                    self.gold_thefts], dtype=np.int64)

    @property
    def n_cards(self) -> int:
        """Cards in the deck (112 by default: 104 asset cards and 8 thefts)."""
        return int(self.counts.sum())

    @property
    def max_assets(self) -> int:
        """Most assets one player can hold at once: every asset card in pairs (sizes the action space)."""
        return (self.numbers * self.copies_per_number + self.gold_cards) // 2

    # -- table sizes and changes -------------------------------------------------
    def check_players(self, n_players: int) -> None:
        """Raise :class:`RulesError` unless ``n_players`` is an allowed table size."""
        if (not isinstance(n_players, int) or isinstance(n_players, bool)
                or not self.min_players <= n_players <= self.max_players):
            raise RulesError(f"option 'players' is {n_players!r}; rules {self.name!r} allow "
                             f"{range_text(self.min_players, self.max_players)} players")

    def check_table(self, n_players: int) -> None:
        """Raise :class:`RulesError` unless a game at ``n_players`` seats can be set up (R-T-SETUP).

        The deck's size for the largest table is checked when the rule set is made.
        """
        self.check_players(n_players)

    def with_options(self, **options: Any) -> TheftRuleSet:
        """A copy with some options overridden (validated again).

        Raises:
            RulesError: unknown option name (lists the allowed ones) or a bad value.
        """
        allowed = option_names()
        for k in options:
            if k not in allowed:
                raise RulesError(f"unknown rule option {k!r}; choose from: {', '.join(allowed)}")
        name = self.name if self.name.endswith("+custom") or not options else f"{self.name}+custom"
        return replace(self, name=name, **options)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict of every option."""
        return {f.name: getattr(self, f.name) for f in fields(self)}

    def describe(self) -> str:
        """Readable listing of every option with its value and the deck (``cya-sim rules theft``)."""
        lines = [f"rules {self.name} (game family theft, RULES.md §9, seed 003)"]
        for f in fields(self):
            if f.name in ("name", "family"):
                continue
            lines.append(f"  {f.name:28s} {getattr(self, f.name)!s:14s} {OPTION_HELP[f.name]}")
        lines.append(f"deck: {self.n_cards} cards")
        lines.append(f"  {'card':12s} {'points':>6s} {'copies':>6s}")
        for name, v, c in zip(self.card_names, self.values, self.counts):
            lines.append(f"  {name:12s} {int(v):6d} {int(c):6d}")
        return "\n".join(lines)


#: One line per option for ``cya-sim rules theft``: the rule it belongs to and whether it is a choice.
OPTION_HELP: dict[str, str] = {
    "numbers": "R-T-DECK option: number cards 1..N",
    "copies_per_number": "R-T-DECK choice: copies of each number",
    "gold_cards": "R-T-DECK choice: gold cards (any number when building)",
    "gold_value": "R-T-END: points of a gold card",
    "plain_thefts": "R-T-DECK choice: plain theft cards",
    "gold_thefts": "R-T-DECK choice: gold theft cards",
    "min_players": "choice (seed gives no table size): fewest players",
    "max_players": "choice (seed gives no table size): most players",
    "hand_size": "R-T-SETUP option: cards dealt",
    "draw_per_turn": "R-T-TURN option: cards drawn at the start of a turn",
    "end_of_turn": "R-T-TURN choice: discard_down | discard_and_draw_up | keep",
    "hand_limit": "R-T-TURN option: end-of-turn hand size",
    "assets_to_end": "R-T-END option: assets that start the last turns",
    "max_thefts_per_turn": "R-T-TURN choice (seed sets no limit): 0 = any number",
    "protect_last_asset": "R-T-TURN choice: a player's only asset cannot be targeted",
    "defend_with_asset": "R-T-TURN: cancel by giving up one of one's own assets",
    "defend_with_targeted_asset": "R-T-TURN choice: the asset given up may be the targeted one",
    "gold_gold_pair": "R-T-TURN choice: two gold cards form a pair",
    "compulsory_defence": "R-T-TURN choice: a target that can cancel must (let_pass only when it cannot)",
    "give_up_pair_only": "R-T-TURN choice: only an asset that is itself a pair may be given up",
    "gold_theft_cancel": "R-T-TURN choice: pair_with_gold | single_gold (what cancels the gold theft)",
    "cancel_pair_value": "R-T-TURN choice: any | target_value (pairs whose points equal the target's)",
    "max_turns": "safeguard, not a rule: turn cap (reported when hit)",
}


def option_names() -> tuple[str, ...]:
    """Names of every overridable option of :class:`TheftRuleSet`."""
    return tuple(f.name for f in fields(TheftRuleSet) if f.name not in ("name", "family"))


#: The presets of the theft game family (looked up by name in :mod:`cya_sim.game.rules`).
PRESETS: dict[str, TheftRuleSet] = {"theft": TheftRuleSet()}
