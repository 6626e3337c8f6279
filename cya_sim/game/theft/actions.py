"""The discrete action space of the theft game (RULES.md §9, R-T-SETUP, R-T-TURN).

One fixed action space per rule set: its size depends on ``numbers`` (N),
``max_players`` (M) and ``max_assets`` (S), never on the table size. Blocks,
in id order:

=================  =====================  ==============================================
block              size                   meaning
=================  =====================  ==============================================
``first_asset``    ``(N + 1) ** 2``       R-T-SETUP: lay asset card ``down`` face-down and
                                          ``up`` face-up (numbers and gold)
``build``          ``2 * N + 1``          R-T-TURN: a pair from hand (see *pairs* below)
``theft``          ``2 * (M - 1) * S``    R-T-TURN: a plain (k=0) or gold (k=1) theft on
                                          asset ``slot`` of the seat ``offset`` places on
``end_turn``       ``1``                  R-T-TURN: stop playing cards this turn
``discard``        ``N + 3``              R-T-TURN end of turn: discard hand card ``c``
``cancel_pair``    ``2 * N + 1``          R-T-TURN defence: a pair from hand
``give_up_asset``  ``S``                  R-T-TURN defence: give up own asset ``slot``
``let_pass``       ``1``                  R-T-TURN defence: the asset passes to the thief
``cancel_gold``    ``1`` or 0             R-T-TURN defence: one gold card from hand cancels the
                                          gold theft (``gold_theft_cancel = single_gold`` only)
=================  =====================  ==============================================

*Pairs* (``build`` and ``cancel_pair``): index ``2n`` is number ``n+1`` twice,
``2n + 1`` is number ``n+1`` with a gold card, ``2N`` is two gold cards (legal
only under ``gold_gold_pair``). Default rules, 6 seats: 121 + 21 + 520 + 1 + 13 +
21 + 52 + 1 = 750 actions (``cancel_gold`` comes last, so the other ids never move).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from cya_sim.game.theft.rules import TheftRuleSet

KINDS = ("first_asset", "build", "theft", "end_turn", "discard", "cancel_pair", "give_up_asset", "let_pass",
         "cancel_gold")


@dataclass(frozen=True)
class TheftAction:
    """A decoded action.

    kind: one of :data:`KINDS`.
    cards: the card type ids it plays from hand: ``(down, up)`` for ``first_asset``,
        the two pair cards for ``build``/``cancel_pair``, ``(theft card,)`` for
        ``theft``, ``(c,)`` for ``discard``; ``()`` otherwise.
    offset: for ``theft``, the target seat ``offset`` places on (1..M-1); else 0.
    slot: asset index for ``theft`` (the target's) and ``give_up_asset`` (own); else -1.
    """

    kind: str
    cards: tuple[int, ...] = ()
    offset: int = 0
    slot: int = -1


@dataclass(frozen=True)
class TheftActionSpace:
    """Ids, names and decoding of every action of one theft rule set.

    Attributes:
        numbers (N), max_players (M), max_assets (S): from the rule set.
        single_gold: the ``cancel_gold`` block is on (``gold_theft_cancel = single_gold``).
        size: A, the number of actions (``legal_action_mask`` is ``(A,) bool``).
        start: dict kind -> first id of its block.
    """

    numbers: int
    max_players: int
    max_assets: int
    single_gold: bool = False

    @classmethod
    def for_rules(cls, rules: TheftRuleSet) -> TheftActionSpace:
        """The action space of ``rules``."""
        return cls(rules.numbers, rules.max_players, rules.max_assets, rules.gold_theft_cancel == "single_gold")

    @property
    def gold(self) -> int:
        """Card type id of gold."""
        return self.numbers

    @cached_property
    def block_sizes(self) -> dict[str, int]:
        """Block sizes in id order."""
        n, pairs = self.numbers, 2 * self.numbers + 1
        return {
            "first_asset": (n + 1) ** 2,
            "build": pairs,
            "theft": 2 * (self.max_players - 1) * self.max_assets,
            "end_turn": 1,
            "discard": n + 3,
            "cancel_pair": pairs,
            "give_up_asset": self.max_assets,
            "let_pass": 1,
            "cancel_gold": int(self.single_gold),
        }

    @cached_property
    def start(self) -> dict[str, int]:
        """First id of each block."""
        out, s = {}, 0
        for k, n in self.block_sizes.items():
            out[k] = s
            s += n
        return out

    @cached_property
    def size(self) -> int:
        """A, the number of action ids."""
        return sum(self.block_sizes.values())

    # -- pairs -------------------------------------------------------------------
    def pair_cards(self, index: int) -> tuple[int, int]:
        """The two card type ids of pair ``index`` (see the module docstring)."""
        if index == 2 * self.numbers:
            return (self.gold, self.gold)
        n = index // 2
        return (n, n) if index % 2 == 0 else (n, self.gold)

    def pair_index(self, a: int, b: int) -> int:
        """Pair index of cards ``a`` and ``b`` (order free).

        Raises:
            ValueError: the cards are no pair shape (two different numbers, or a theft card).
        """
        a, b = sorted((a, b))
        g = self.gold
        if a == b == g:
            return 2 * self.numbers
        if a < g and b == a:
            return 2 * a
        if a < g and b == g:
            return 2 * a + 1
        raise ValueError(f"cards {a} and {b} are not a pair")

    # -- encoding ------------------------------------------------------------------
    def first_asset(self, down: int, up: int) -> int:
        """Id of R-T-SETUP: ``down`` face-down, ``up`` face-up (asset card types)."""
        return self.start["first_asset"] + down * (self.numbers + 1) + up

    def build(self, a: int, b: int) -> int:
        """Id of building cards ``a`` and ``b``."""
        return self.start["build"] + self.pair_index(a, b)

    def theft(self, gold: bool, offset: int, slot: int) -> int:
        """Id of a theft (gold theft if ``gold``) on asset ``slot`` of the seat ``offset`` places on."""
        per_card = (self.max_players - 1) * self.max_assets
        return self.start["theft"] + int(gold) * per_card + (offset - 1) * self.max_assets + slot

    @property
    def end_turn(self) -> int:
        """Id of ending the turn."""
        return self.start["end_turn"]

    def discard(self, card: int) -> int:
        """Id of discarding ``card`` at the end of a turn."""
        return self.start["discard"] + card

    def cancel_pair(self, a: int, b: int) -> int:
        """Id of cancelling a theft with cards ``a`` and ``b`` from hand."""
        return self.start["cancel_pair"] + self.pair_index(a, b)

    def give_up_asset(self, slot: int) -> int:
        """Id of cancelling a theft by giving up own asset ``slot``."""
        return self.start["give_up_asset"] + slot

    @property
    def let_pass(self) -> int:
        """Id of letting a theft succeed."""
        return self.start["let_pass"]

    @property
    def cancel_gold(self) -> int:
        """Id of cancelling the gold theft with one gold card (``single_gold`` only; else A, no such id)."""
        return self.start["cancel_gold"]

    # -- decoding ------------------------------------------------------------------
    def decode(self, action: int) -> TheftAction:
        """The :class:`TheftAction` of an id.

        Raises:
            ValueError: ``action`` outside ``0..size-1``.
        """
        a = int(action)
        if not 0 <= a < self.size:
            raise ValueError(f"action {action!r} is outside the action space 0..{self.size - 1}")
        for kind in KINDS:
            i = a - self.start[kind]
            if i < self.block_sizes[kind]:
                break
        if kind == "first_asset":
            return TheftAction(kind, cards=divmod(i, self.numbers + 1))
        if kind in ("build", "cancel_pair"):
            return TheftAction(kind, cards=self.pair_cards(i))
        if kind == "theft":
            per_card = (self.max_players - 1) * self.max_assets
            gold, rest = divmod(i, per_card)
            off, slot = divmod(rest, self.max_assets)
            return TheftAction(kind, cards=(self.numbers + 1 + gold,), offset=off + 1, slot=slot)
        if kind == "discard":
            return TheftAction(kind, cards=(i,))
        if kind == "give_up_asset":
            return TheftAction(kind, slot=i)
        if kind == "cancel_gold":
            return TheftAction(kind, cards=(self.gold,))
        return TheftAction(kind)

    def card_name(self, card: int) -> str:
        """``"1"``..``"N"``, ``"Gold"``, ``"Theft"``, ``"Gold Theft"``."""
        n = self.numbers
        return str(card + 1) if card < n else ("Gold", "Theft", "Gold Theft")[card - n]

    def name(self, action: int) -> str:
        """Readable name, e.g. ``build:7+7``, ``theft:Gold Theft:+2:#0``, ``give_up_asset:#1``."""
        d = self.decode(action)
        cards = "+".join(self.card_name(c) for c in d.cards)
        if d.kind == "first_asset":
            return f"first_asset:{self.card_name(d.cards[0])} down+{self.card_name(d.cards[1])} up"
        if d.kind in ("build", "cancel_pair", "discard"):
            return f"{d.kind}:{cards}"
        if d.kind == "theft":
            return f"theft:{cards}:+{d.offset}:#{d.slot}"
        if d.kind == "give_up_asset":
            return f"give_up_asset:#{d.slot}"
        return d.kind

    def names(self) -> list[str]:
        """Names of all ids, index = id."""
        return [self.name(a) for a in range(self.size)]
