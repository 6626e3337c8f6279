"""The discrete action space of the classic game family (R-TURN, §4).

One fixed action space per rule set: its size depends on the deck (number of
asset and wild types) and on ``rules.max_players``, never on the table size.
With ``nA`` asset types, ``nW`` wild types, ``T = nA + nW`` card types and
``M = max_players`` the ids are laid out in blocks, in this order:

=================  ===================  =================================================
block              size                 meaning
=================  ===================  =================================================
``pair_hand``      ``nA * (1 + nW)``    R-PAIR-HAND: asset ``a`` with a second ``a`` (k=0)
                                        or with wild ``k-1`` beneath it
``pair_discard``   ``T``                R-PAIR-DISCARD: the top discard card with hand card ``c``
``challenge``      ``(M - 1) * (1+nW)`` R-CHALLENGE: the seat ``o`` places to the left
                                        (o = 1..M-1), opening with a matching asset (k=0)
                                        or wild ``k-1``
``discard``        ``T``                R-DISCARD: hand card ``c``
``respond``        ``1 + nW``           R-CH-EXCHANGE: play a matching asset (k=0) or wild ``k-1``
``give_up``        ``1``                R-CH-EXCHANGE: stop; the other side wins
``end_turn``       ``1`` or 0           R-ADV-TWO: stop after the first of two actions
``improve``        ``1`` or 0           R-ADV-IMPROVE: add a matching asset to the own top set
``swap``           ``M - 1`` or 0       R-ADV-SWAP: play Swap with the seat ``o`` places left
``move``           ``2 * M`` or 0       R-ADV-MOVE: play Move on the seat ``o`` places left
                                        (o = 0..M-1, 0 = self): top set to the bottom (d=0)
                                        or bottom set to the top (d=1), id ``2*o + d``
``deep_challenge`` ``(M-1) * (Q+1)``    R-ADV-DEEP: challenge the set second from the top of
                   or 0                 seat ``o``, opening with pay-two ``q`` (below) or, at
                                        ``q = Q``, with a Penny Jar alone
``respond_two``    ``Q`` or 0           R-ADV-PENNY / R-ADV-DEEP: a two-card play ``q``
``draft_take``     ``D * nA * (1+nW)``  R-2P-DRAFT / R-3P-DRAFT: play hand asset ``a`` and take
                                        every face-up draft-pile top of type ``a`` within
                                        reach (k=0), or, when none is, one face-up wild
                                        ``k-1`` (the reachable pile nearest the mover's left)
``draft_wild``     ``D * nW * nA``      the same with hand wild ``w`` naming asset ``a``: take
                                        every face-up top of type ``a`` within reach
``draft_challenge`` ``D * (1 + nW)``    the offered neighbour opens the immediate challenge of
                                        the freshly drafted set with a matching asset (k=0)
                                        or wild ``k-1`` (R-CH-ALLOWED's draft exception)
``draft_decline``  ``D``                the offered neighbour lets the drafted set be
``draft_move``     ``2`` or 0           R-2P-DRAFT / R-3P-DRAFT with the Move card: a Move
                                        turned up on a draft pile; the seat that chooses
                                        (2p: the mover's opponent; 3p: the mover) moves the
                                        target's top set to the bottom (d=0) or its bottom
                                        set to the top (d=1)
=================  ===================  =================================================

The ``end_turn`` .. ``respond_two`` blocks are the advanced rules (§6); each has
size 0 when the rule set does not enable it (``end_turn``: ``actions_per_turn`` = 2;
``improve`` and ``deep_challenge``: ``advanced_actions``; ``swap``/``move``: Swap/Move
cards in the deck; ``respond_two``: a Penny Jar in the deck or ``advanced_actions``).
A **pay-two** ``q`` is an unordered pair of cards, each a matching asset (k=0) or
wild ``k-1``: the pairs ``(k1, k2)`` with ``k1 <= k2`` in lexicographic order,
``Q = (1+nW)(2+nW)/2`` of them.

The ``draft_*`` blocks come last (§7): ``D`` is 1 when the rule set has draft piles
(``rules.draft != "none"``) and 0 otherwise. An immediate challenge, once opened,
goes on with ``respond``/``give_up``. So the classic presets keep exactly their ids
and size. ``draft_move`` (size 2 when the rule set drafts and has Move cards, else 0) is
appended after every other block, so no earlier preset's ids move.

For the 2011 deck and 12 players: 30 + 12 + 33 + 12 + 3 + 1 = 91 actions; with
draft piles (2 players): 30 + 12 + 3 + 12 + 3 + 1 + 30 + 20 + 3 + 1 = 115. For
``advanced`` (nW = 3 with the Penny Jar, T = 15, M = 6): 40 + 15 + 20 + 15 + 4 + 1
+ 1 + 1 + 5 + 12 + 55 + 10 = 179 actions. For ``two_player_draft_advanced`` (M = 2):
40 + 15 + 4 + 15 + 4 + 1 + 1 + 1 + 1 + 4 + 11 + 10 + 40 + 30 + 4 + 1 + 2 = 184.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from cya_sim.game.rules import RuleSet

KINDS = ("pair_hand", "pair_discard", "challenge", "discard", "respond", "give_up",
         "end_turn", "improve", "swap", "move", "deep_challenge", "respond_two",
         "draft_take", "draft_wild", "draft_challenge", "draft_decline", "draft_move")
#: Move directions (R-ADV-MOVE), index = ``d`` of the move block.
MOVE_DIRECTIONS = ("top_to_bottom", "bottom_to_top")


@dataclass(frozen=True)
class Action:
    """A decoded action.

    kind: one of :data:`KINDS`.
    card: card type id — the asset of ``pair_hand``, the hand card of
        ``pair_discard`` and ``discard``, the hand asset of ``draft_take``, the
        asset type named by ``draft_wild``; -1 otherwise.
    partner: for ``pair_hand``/``challenge``/``respond``/``draft_challenge``:
        -1 = a matching asset, else the wild type id played; for
        ``draft_take``: -1 = the face-up tops of the asset's type, else the
        face-up wild type taken; for ``draft_wild``: the wild played from the
        hand; -1 otherwise.
    offset: for ``challenge``, ``swap``, ``deep_challenge``: the target is the
        seat ``offset`` places to the left (1..max_players-1); for ``move``
        0..max_players-1 (0 = the mover's own stack); 0 otherwise.
    second: for the pay-two kinds ``deep_challenge`` and ``respond_two``: the
        second card (-1 a matching asset, else a wild type id; ``partner`` is
        the first); -2 when one card is played (a Penny Jar alone: ``partner``
        is its id).
    direction: for ``move`` and ``draft_move``: one of :data:`MOVE_DIRECTIONS`; "" otherwise.
    """

    kind: str
    card: int = -1
    partner: int = -1
    offset: int = 0
    second: int = -2
    direction: str = ""


@dataclass(frozen=True)
class ActionSpace:
    """Ids, names and decoding of every action of one rule set.

    Attributes:
        n_assets, n_wilds, max_players: from the rule set.
        draft: whether the draft blocks are present (RULES.md §7).
        size: A, the number of actions (``legal_action_mask`` is ``(A,) bool``).
        start: dict kind -> first id of its block.
    """

    n_assets: int
    n_wilds: int
    max_players: int
    card_names: tuple[str, ...]
    n_action_cards: int = 0
    two_actions: bool = False
    improve_on: bool = False
    swap_on: bool = False
    move_on: bool = False
    deep_on: bool = False
    pay_two_on: bool = False
    penny: int = -1
    draft: bool = False

    @classmethod
    def for_rules(cls, rules: RuleSet) -> ActionSpace:
        """The action space of ``rules`` (depends on its deck, max_players, the §6 options and
        whether it drafts, §7)."""
        d = rules.deck
        ids = rules.advanced_ids
        adv = rules.advanced_actions
        return cls(d.n_assets, d.n_wilds, rules.max_players, d.names, ids.n_action_cards,
                   rules.actions_per_turn == 2, adv, ids.swap >= 0, ids.move >= 0, adv,
                   adv or ids.penny >= 0, ids.penny, rules.draft != "none")

    @property
    def n_types(self) -> int:
        """T, card types (assets, wilds, action cards)."""
        return self.n_assets + self.n_wilds + self.n_action_cards

    @cached_property
    def pay_two_pairs(self) -> tuple[tuple[int, int], ...]:
        """The Q pay-two pairs ``(k1, k2)``, ``k1 <= k2``, each 0 (a matching asset) or 1 + wild index."""
        w = 1 + self.n_wilds
        return tuple((a, b) for a in range(w) for b in range(a, w))

    @cached_property
    def block_sizes(self) -> dict[str, int]:
        """Block sizes in id order."""
        w = 1 + self.n_wilds
        d = int(self.draft)
        return {
            "pair_hand": self.n_assets * w,
            "pair_discard": self.n_types,
            "challenge": (self.max_players - 1) * w,
            "discard": self.n_types,
            "respond": w,
            "give_up": 1,
            "end_turn": int(self.two_actions),
            "improve": int(self.improve_on),
            "swap": (self.max_players - 1) if self.swap_on else 0,
            "move": 2 * self.max_players if self.move_on else 0,
            "deep_challenge": (self.max_players - 1) * (len(self.pay_two_pairs) + 1) if self.deep_on else 0,
            "respond_two": len(self.pay_two_pairs) if self.pay_two_on else 0,
            "draft_take": d * self.n_assets * w,
            "draft_wild": d * self.n_wilds * self.n_assets,
            "draft_challenge": d * w,
            "draft_decline": d,
            "draft_move": 2 * d if self.move_on else 0,
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

    @property
    def advanced_on(self) -> bool:
        """Whether some §6 block (``end_turn`` .. ``respond_two``) is enabled (has size > 0)."""
        return self.start["draft_take"] > self.start["end_turn"]

    # -- encoding --------------------------------------------------------------
    def _partner_index(self, partner: int) -> int:
        return 0 if partner < 0 else partner - self.n_assets + 1

    def pair_hand(self, asset: int, partner: int = -1) -> int:
        """Id of R-PAIR-HAND: ``asset`` with a second one (partner=-1) or wild ``partner``."""
        return self.start["pair_hand"] + asset * (1 + self.n_wilds) + self._partner_index(partner)

    def pair_discard(self, hand_card: int) -> int:
        """Id of R-PAIR-DISCARD with hand card ``hand_card``."""
        return self.start["pair_discard"] + hand_card

    def challenge(self, offset: int, partner: int = -1) -> int:
        """Id of R-CHALLENGE of the seat ``offset`` to the left, opening with a
        matching asset (partner=-1) or wild ``partner``."""
        return self.start["challenge"] + (offset - 1) * (1 + self.n_wilds) + self._partner_index(partner)

    def discard(self, card: int) -> int:
        """Id of R-DISCARD of ``card``."""
        return self.start["discard"] + card

    def respond(self, partner: int = -1) -> int:
        """Id of a challenge play: a matching asset (partner=-1) or wild ``partner``."""
        return self.start["respond"] + self._partner_index(partner)

    @property
    def give_up(self) -> int:
        """Id of giving up a challenge."""
        return self.start["give_up"]

    def _need(self, kind: str) -> None:
        if not self.block_sizes[kind]:
            raise ValueError(f"action kind {kind!r} is not enabled by these rules")

    @property
    def end_turn(self) -> int:
        """Id of stopping after the first of two actions (R-ADV-TWO).

        Raises:
            ValueError: the rules play one action a turn.
        """
        self._need("end_turn")
        return self.start["end_turn"]

    @property
    def improve(self) -> int:
        """Id of R-ADV-IMPROVE (a matching asset onto the own top set).

        Raises:
            ValueError: the rules do not enable it.
        """
        self._need("improve")
        return self.start["improve"]

    def swap(self, offset: int) -> int:
        """Id of R-ADV-SWAP with the seat ``offset`` (1..M-1) places to the left.

        Raises:
            ValueError: no Swap card in these rules.
        """
        self._need("swap")
        return self.start["swap"] + offset - 1

    def move(self, offset: int, direction: str) -> int:
        """Id of R-ADV-MOVE on the seat ``offset`` (0..M-1, 0 = self) places left, ``direction`` in
        :data:`MOVE_DIRECTIONS`.

        Raises:
            ValueError: no Move card in these rules, or an unknown direction.
        """
        self._need("move")
        return self.start["move"] + 2 * offset + MOVE_DIRECTIONS.index(direction)

    def pay_two_index(self, first: int, second: int) -> int:
        """Index q of the pay-two pair of cards ``first``, ``second`` (each -1 = a matching asset, else a wild id)."""
        a, b = sorted((self._partner_index(first), self._partner_index(second)))
        return self.pay_two_pairs.index((a, b))

    def deep_challenge(self, offset: int, first: int, second: int = -2) -> int:
        """Id of R-ADV-DEEP against the seat ``offset`` places left, opening with ``first`` and ``second``
        (-1 = a matching asset, else a wild id) or, with ``second=-2``, the Penny Jar ``first`` alone.

        Raises:
            ValueError: the rules do not enable deep challenges.
        """
        self._need("deep_challenge")
        q = len(self.pay_two_pairs) if second == -2 else self.pay_two_index(first, second)
        return self.start["deep_challenge"] + (offset - 1) * (len(self.pay_two_pairs) + 1) + q

    def respond_two(self, first: int, second: int) -> int:
        """Id of a two-card challenge play (R-ADV-PENNY, R-ADV-DEEP): ``first`` and ``second``
        (-1 = a matching asset, else a wild id).

        Raises:
            ValueError: the rules have no two-card plays.
        """
        self._need("respond_two")
        return self.start["respond_two"] + self.pay_two_index(first, second)
    def draft_take(self, asset: int, wild: int = -1) -> int:
        """Id of a draft take with hand asset ``asset``: the face-up tops of its type (wild=-1) or
        face-up wild ``wild`` (R-2P-DRAFT)."""
        return self.start["draft_take"] + asset * (1 + self.n_wilds) + self._partner_index(wild)

    def draft_wild(self, wild: int, asset: int) -> int:
        """Id of a draft take with hand wild ``wild`` naming asset type ``asset`` (R-2P-DRAFT)."""
        return self.start["draft_wild"] + (wild - self.n_assets) * self.n_assets + asset

    def draft_challenge(self, partner: int = -1) -> int:
        """Id of opening the immediate challenge of a drafted set with a matching asset (partner=-1)
        or wild ``partner`` (R-2P-DRAFT, R-3P-DRAFT)."""
        return self.start["draft_challenge"] + self._partner_index(partner)

    @property
    def draft_decline(self) -> int:
        """Id of letting a freshly drafted set be (no immediate challenge)."""
        return self.start["draft_decline"]

    def draft_move(self, direction: str) -> int:
        """Id of the choice for a Move turned up on a draft pile (R-2P-DRAFT, R-3P-DRAFT with §6): the target's
        top set to the bottom or its bottom set to the top (``direction`` in :data:`MOVE_DIRECTIONS`).

        Raises:
            ValueError: the rules do not draft with Move cards, or an unknown direction.
        """
        self._need("draft_move")
        return self.start["draft_move"] + MOVE_DIRECTIONS.index(direction)

    # -- decoding --------------------------------------------------------------
    def decode(self, action: int) -> Action:
        """The :class:`Action` of an id (looked up in a table decoded once, :meth:`_decode`).

        Raises:
            ValueError: ``action`` outside ``0..size-1``.
        """
        a = int(action)
        if not 0 <= a < self.size:
            raise ValueError(f"action {action!r} is outside the action space 0..{self.size - 1}")
        return self._decoded[a]

    @cached_property
    def _decoded(self) -> tuple[Action, ...]:
        """:meth:`_decode` of every id, index = id (the reference engine decodes every action it applies)."""
        return tuple(self._decode(a) for a in range(self.size))

    def _decode(self, a: int) -> Action:
        """The :class:`Action` of id ``a`` (``0 <= a < size``), from the block layout."""
        w = 1 + self.n_wilds

        def partner(k: int) -> int:
            return -1 if k == 0 else self.n_assets + k - 1

        for kind in KINDS:
            i = a - self.start[kind]
            if i < self.block_sizes[kind]:
                break
        if kind == "pair_hand":
            return Action(kind, card=i // w, partner=partner(i % w))
        if kind in ("pair_discard", "discard"):
            return Action(kind, card=i)
        if kind == "challenge":
            return Action(kind, partner=partner(i % w), offset=i // w + 1)
        if kind in ("respond", "draft_challenge"):
            return Action(kind, partner=partner(i))
        if kind == "swap":
            return Action(kind, offset=i + 1)
        if kind == "move":
            return Action(kind, offset=i // 2, direction=MOVE_DIRECTIONS[i % 2])
        if kind == "draft_move":
            return Action(kind, direction=MOVE_DIRECTIONS[i])
        if kind == "deep_challenge":
            q_all = len(self.pay_two_pairs) + 1
            off, q = i // q_all + 1, i % q_all
            if q == q_all - 1:
                return Action(kind, partner=self.penny, offset=off)
            k1, k2 = self.pay_two_pairs[q]
            return Action(kind, partner=partner(k1), offset=off, second=partner(k2))
        if kind == "respond_two":
            k1, k2 = self.pay_two_pairs[i]
            return Action(kind, partner=partner(k1), second=partner(k2))
        if kind == "draft_take":
            return Action(kind, card=i // w, partner=partner(i % w))
        if kind == "draft_wild":
            return Action(kind, card=i % self.n_assets, partner=self.n_assets + i // self.n_assets)
        return Action(kind)

    def name(self, action: int) -> str:
        """Readable name, e.g. ``pair_hand:Jewels+Gold``, ``challenge:+2:match``."""
        d = self.decode(action)
        nm = self.card_names
        p = "match" if d.partner < 0 else nm[d.partner]
        if d.kind == "pair_hand":
            return f"pair_hand:{nm[d.card]}+{nm[d.card] if d.partner < 0 else p}"
        if d.kind in ("pair_discard", "discard"):
            return f"{d.kind}:{nm[d.card]}"
        if d.kind == "challenge":
            return f"challenge:+{d.offset}:{p}"
        if d.kind in ("respond", "draft_challenge"):
            return f"{d.kind}:{p}"
        if d.kind == "draft_take":
            return f"draft_take:{nm[d.card]}+{'match' if d.partner < 0 else 'pile ' + p}"
        if d.kind == "draft_wild":
            return f"draft_wild:{p}={nm[d.card]}"
        if d.kind == "swap":
            return f"swap:+{d.offset}"
        if d.kind == "move":
            return f"move:+{d.offset}:{d.direction}"
        if d.kind == "draft_move":
            return f"draft_move:{d.direction}"
        if d.kind in ("deep_challenge", "respond_two"):
            pay = (nm[d.partner] if d.partner >= 0 else "Penny Jar") if d.second == -2 else \
                p + "+" + ("match" if d.second < 0 else nm[d.second])
            return f"deep_challenge:+{d.offset}:{pay}" if d.kind == "deep_challenge" else f"respond_two:{pay}"
        return d.kind

    def names(self) -> list[str]:
        """Names of all ids, index = id."""
        return [self.name(a) for a in range(self.size)]
