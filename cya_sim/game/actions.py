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
=================  ===================  =================================================

``D`` is 1 when the rule set has draft piles (``rules.draft != "none"``) and 0
otherwise: the classic presets keep exactly their ids and size. An immediate
challenge, once opened, goes on with ``respond``/``give_up``.

For the 2011 deck and 12 players: 30 + 12 + 33 + 12 + 3 + 1 = 91 actions; with
draft piles (2 players): 30 + 12 + 3 + 12 + 3 + 1 + 30 + 20 + 3 + 1 = 115.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from cya_sim.game.rules import RuleSet

KINDS = ("pair_hand", "pair_discard", "challenge", "discard", "respond", "give_up",
         "draft_take", "draft_wild", "draft_challenge", "draft_decline")


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
    offset: for ``challenge``: the target is the seat ``offset`` places to the
        left of the challenger (1..max_players-1); 0 otherwise.
    """

    kind: str
    card: int = -1
    partner: int = -1
    offset: int = 0


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
    draft: bool = False

    @classmethod
    def for_rules(cls, rules: RuleSet) -> ActionSpace:
        """The action space of ``rules`` (depends on its deck, max_players and whether it drafts)."""
        return cls(rules.deck.n_assets, rules.deck.n_wilds, rules.max_players, rules.deck.names,
                   rules.draft != "none")

    @property
    def n_types(self) -> int:
        """T, card types."""
        return self.n_assets + self.n_wilds

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
            "draft_take": d * self.n_assets * w,
            "draft_wild": d * self.n_wilds * self.n_assets,
            "draft_challenge": d * w,
            "draft_decline": d,
        }

    @cached_property
    def start(self) -> dict[str, int]:
        """First id of each block."""
        out, s = {}, 0
        for k, n in self.block_sizes.items():
            out[k] = s
            s += n
        return out

    @property
    def size(self) -> int:
        """A, the number of action ids."""
        return sum(self.block_sizes.values())

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

    # -- decoding --------------------------------------------------------------
    def decode(self, action: int) -> Action:
        """The :class:`Action` of an id.

        Raises:
            ValueError: ``action`` outside ``0..size-1``.
        """
        a = int(action)
        if not 0 <= a < self.size:
            raise ValueError(f"action {action!r} is outside the action space 0..{self.size - 1}")
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
        return d.kind

    def names(self) -> list[str]:
        """Names of all ids, index = id."""
        return [self.name(a) for a in range(self.size)]
