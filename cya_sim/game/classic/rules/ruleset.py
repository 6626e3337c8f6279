"""The rule set: every option of RULES.md §3–8 as one frozen object.

The drafts (§7) combine with any of the advanced options (§6): R-2P-DRAFT and R-3P-DRAFT say how an
action card turned up in a draft pile is carried out (:mod:`cya_sim.engine.classic.reference.draft`).

Rules are data: engines read fields of :class:`RuleSet`; they never branch on
a preset's name. Presets live in :mod:`cya_sim.game.classic.rules.presets`.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field, fields, replace
from typing import Any

from cya_sim.game.classic.rules.advanced import ACTION_CARD_NAMES, AdvancedIds, with_advanced_cards
from cya_sim.game.classic.rules.deck import MAX_CARD_VALUE, MAX_COPIES, Deck, deck_2011
from cya_sim.game.errors import RulesError
from cya_sim.game.jsontext import show
from cya_sim.game.limits import range_text

CHALLENGE_DRAW_ORDERS = ("loser_first", "mover_first")
TIE_BREAKS = ("share", "extra_round")
EXTRA_DECK_UNITS = ("pack", "full")
#: Draft layouts (RULES.md §7): ``none``; ``shared`` (R-2P-DRAFT: every pile is reachable by both
#: players, the opponent may challenge); ``neighbours`` (R-3P-DRAFT: one pile between each pair of
#: neighbouring seats, a seat uses the two piles beside it, the other neighbour may challenge).
DRAFT_LAYOUTS = ("none", "shared", "neighbours")
DEEP_CHALLENGE_COSTS = ("two_for_one", "one_for_one")
GAME_FAMILIES = ("classic",)  # the drafts (§7) are classic rule sets with draft options; theft (§9) is its own
__all__ = ["RuleSet", "RulesError", "option_names"]

_END_RE = re.compile(r"^(target|rounds:([1-9][0-9]*)|round_wins:([1-9][0-9]*))$")

#: Default cap on rounds per game (``max_rounds``). Real games end far sooner: over 1,000,000
#: classic, guide and basic games at 2 to 12 players with the built-in agents the longest took
#: MEASURED_LONGEST rounds (see tests/test_robust_limits.py); only a game that cannot end (cards
#: worth $0, agents that only discard) reaches it.
DEFAULT_MAX_ROUNDS = 1000
#: Upper bounds that keep every total inside the engines' 64-bit integers (R-SCORE).
MAX_ROUNDS_LIMIT = 100_000
MAX_TARGET_SCORE = 10**15
MAX_EXTRA_ROUNDS_LIMIT = 10_000
#: Largest total a game may reach: ``max_rounds`` rounds of every card in play must stay below it.
TOTAL_LIMIT = 2**62


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _hand_size_table(spec: Any, min_players: int, max_players: int) -> tuple[tuple[int, int], ...]:
    """Normalise a ``hand_size`` option (R-HAND-SIZE) to ((players, size), ...).

    Accepts an int (every table size), a dict ``{players: size}`` with an
    optional ``"default"`` key, or the normalised tuple itself.
    """
    if isinstance(spec, bool):
        raise RulesError(f"option 'hand_size' is {show(spec, python_str=True)}; give an integer >= 1 or a mapping players -> size")
    if isinstance(spec, int):
        table = {n: spec for n in range(min_players, max_players + 1)}
    elif isinstance(spec, tuple):
        table = dict(spec)
        for n in range(min_players, max_players + 1):
            if n not in table:
                raise RulesError(f"option 'hand_size' has no size for {n} players")
    elif isinstance(spec, dict):
        default = spec.get("default")
        table = {}
        for n in range(min_players, max_players + 1):
            v = spec.get(n, spec.get(str(n), default))
            if v is None:
                raise RulesError(f"option 'hand_size' has no size for {n} players and no 'default'")
            table[n] = v
    else:
        raise RulesError(f"option 'hand_size' is {show(spec, python_str=True)}; give an integer >= 1 or a mapping players -> size")
    for n, v in table.items():
        if not isinstance(v, int) or isinstance(v, bool) or v < 1:
            raise RulesError(f"option 'hand_size' for {n} players is {show(v, python_str=True)}; it must be an integer >= 1")
    return tuple(sorted((int(n), int(v)) for n, v in table.items() if min_players <= int(n) <= max_players))


@dataclass(frozen=True)
class RuleSet:
    """All options of one way to play (RULES.md R-PRESETS).

    Attributes:
        name: preset name, or ``"<preset>+custom"`` once an option is overridden.
        family: game family; only ``"classic"`` (§3–5, §7, §8) is built.
        deck: the card types (R-DECK-2011 unless overridden, R-DECK-CUSTOM).
        min_players, max_players: allowed table sizes (R-PRESETS).
        hand_size: ((players, cards), ...) for every allowed table size (R-HAND-SIZE).
        challenge_draw_order: ``loser_first`` | ``mover_first`` (R-REFILL).
        actions_per_turn: 1 (R-TURN) or 2 (R-ADV-TWO: up to two actions a turn).
        hidden_wilds: the card beneath a set's top asset is hidden (R-HIDDEN-WILD).
        end_condition: ``target`` | ``rounds:N`` | ``round_wins:K`` (R-GAME-END).
        target_score: dollars that end a ``target`` game (R-GAME-END).
        tie_break: ``share`` | ``extra_round`` (R-TIE).
        max_extra_rounds: cap on R-TIE extra rounds, after which the tied
            players share the win (a simulator safeguard, not a printed rule).
        extra_deck_unit: ``pack`` | ``full`` (R-DECK-MULTI).
        draft: ``none`` | ``shared`` | ``neighbours`` (:data:`DRAFT_LAYOUTS`, R-2P-DRAFT, R-3P-DRAFT).
        draft_piles: number of draft piles: ``shared`` any number >= 1 (3 in R-2P-DRAFT);
            ``neighbours`` one per pair of neighbours, so it must equal the table size (3 in
            R-3P-DRAFT); 0 when ``draft`` is ``none``.
        draft_pile_size: cards dealt face-down to each draft pile (10 in both drafts).
        draft_removed: ((card name, copies), ...) taken out of the deck before shuffling
            (R-2P-DRAFT: the eight 8-copy assets — Home in R-DECK-2011 —, 2 Silver, 1 Gold;
            R-3P-DRAFT removes nothing). Cards removed score nothing and are not in play.
        max_rounds: cap on the rounds of one game, R-TIE extra rounds included
            (a simulator safeguard, not a printed rule): a game still going
            after round ``max_rounds`` ends there, the highest total among the
            seats that could still win wins (ties share, R-TIE), and the game
            is flagged ``capped`` in the results. The default
            (:data:`DEFAULT_MAX_ROUNDS`) is far above any real game.
        action_card_counts: copies of (Swap, Move, Penny Jar) added to the deck
            (R-DECK-ACTION; ``advanced``: 2 each, the later edition's card list);
            (0, 0, 0) plays without them. Given as a 3-sequence or a mapping
            ``{"Swap": 2, "Move": 2, "Penny Jar": 2}``.
        penny_jar_value: dollars, the Penny Jar's face value (R-DECK-ACTION;
            not public, default $1,000). Only used when Penny Jars are in play.
        deep_challenge_costs: R-ADV-DEEP's later plays: ``two_for_one`` (the
            challenger keeps paying two cards, the defender one) or
            ``one_for_one`` (after the two-card opening and the first answer,
            plays cost one card, a Penny Jar asking for two as in R-ADV-PENNY).
        advanced_actions: the advanced actions improve (R-ADV-IMPROVE) and deep
            challenge (R-ADV-DEEP) are allowed.

    ``deck`` holds the deck played with: the given deck plus the advanced cards
    of ``action_card_counts`` (:func:`cya_sim.game.classic.rules.advanced.with_advanced_cards`).

    Checked on construction: every option's type and range, ``target_score``
    at most :data:`MAX_TARGET_SCORE` and reachable (some card is worth more
    than $0), ``max_rounds`` rounds of every card in play below
    :data:`TOTAL_LIMIT` dollars. Checked per table size by
    :meth:`check_players` (so a size the run does not use never refuses it):
    enough cards to deal and turn up a discard (R-SETUP), R-DECK-MULTI packs.

    Raises:
        RulesError: on construction, when an option is outside its allowed
            values; the message names the option and the allowed values.
    """

    name: str = "classic"
    family: str = "classic"
    deck: Deck = field(default_factory=deck_2011)
    min_players: int = 2
    max_players: int = 12
    hand_size: Any = ((2, 5),) + tuple((n, 4) for n in range(3, 13))
    challenge_draw_order: str = "loser_first"
    actions_per_turn: int = 1
    hidden_wilds: bool = True
    end_condition: str = "target"
    target_score: int = 1_000_000
    tie_break: str = "share"
    max_extra_rounds: int = 50
    extra_deck_unit: str = "pack"
    max_rounds: int = DEFAULT_MAX_ROUNDS
    draft: str = "none"
    draft_piles: int = 0
    draft_pile_size: int = 0
    draft_removed: tuple[tuple[str, int], ...] = ()
    action_card_counts: Any = (0, 0, 0)
    penny_jar_value: int = 1_000
    deep_challenge_costs: str = "two_for_one"
    advanced_actions: bool = False

    def __post_init__(self) -> None:
        def bad(opt: str, allowed: str) -> RulesError:
            return RulesError(f"option {opt!r} is {show(getattr(self, opt), python_str=True)}; {allowed}")

        if self.family not in GAME_FAMILIES:
            raise bad("family", f"choose one of: {', '.join(GAME_FAMILIES)}")
        if not isinstance(self.deck, Deck):
            raise bad("deck", "give a Deck (see cya_sim.game.rules.load_deck)")
        for opt in ("min_players", "max_players"):
            v = getattr(self, opt)
            if not isinstance(v, int) or isinstance(v, bool) or not 2 <= v <= 12:
                raise bad(opt, "it must be an integer from 2 to 12")
        if self.min_players > self.max_players:
            raise RulesError(f"option 'min_players' ({self.min_players}) exceeds 'max_players' ({self.max_players})")
        object.__setattr__(self, "hand_size", _hand_size_table(self.hand_size, self.min_players, self.max_players))
        if self.challenge_draw_order not in CHALLENGE_DRAW_ORDERS:
            raise bad("challenge_draw_order", f"choose one of: {', '.join(CHALLENGE_DRAW_ORDERS)}")
        if not _is_int(self.actions_per_turn) or self.actions_per_turn not in (1, 2):
            raise bad("actions_per_turn", "choose one of: 1, 2 (R-ADV-TWO)")
        if self.actions_per_turn == 2 and self.challenge_draw_order != "mover_first":
            raise RulesError("option 'actions_per_turn' is 2 with challenge_draw_order 'loser_first'; R-REFILL's "
                             "loser_first order is defined for one challenge a turn: use mover_first")
        object.__setattr__(self, "action_card_counts", _action_counts(self.action_card_counts))
        if not _is_int(self.penny_jar_value) or not 0 <= self.penny_jar_value <= MAX_CARD_VALUE:
            raise bad("penny_jar_value", f"it must be an integer from 0 to {MAX_CARD_VALUE:,} (dollars)")
        if self.deep_challenge_costs not in DEEP_CHALLENGE_COSTS:
            raise bad("deep_challenge_costs", f"choose one of: {', '.join(DEEP_CHALLENGE_COSTS)}")
        if not isinstance(self.advanced_actions, bool):
            raise bad("advanced_actions", "choose one of: true, false")
        if not isinstance(self.hidden_wilds, bool):
            raise bad("hidden_wilds", "choose one of: true, false")
        if not isinstance(self.end_condition, str) or not _END_RE.match(self.end_condition):
            raise bad("end_condition", "choose one of: target, rounds:N, round_wins:K (N, K integers >= 1)")
        if not _is_int(self.target_score) or not 1 <= self.target_score <= MAX_TARGET_SCORE:
            raise bad("target_score", f"it must be an integer from 1 to {MAX_TARGET_SCORE:,} (dollars)")
        if self.tie_break not in TIE_BREAKS:
            raise bad("tie_break", f"choose one of: {', '.join(TIE_BREAKS)}")
        if not _is_int(self.max_extra_rounds) or not 0 <= self.max_extra_rounds <= MAX_EXTRA_ROUNDS_LIMIT:
            raise bad("max_extra_rounds", f"it must be an integer from 0 to {MAX_EXTRA_ROUNDS_LIMIT:,}")
        if self.extra_deck_unit not in EXTRA_DECK_UNITS:
            raise bad("extra_deck_unit", f"choose one of: {', '.join(EXTRA_DECK_UNITS)}")
        if not _is_int(self.max_rounds) or not 1 <= self.max_rounds <= MAX_ROUNDS_LIMIT:
            raise bad("max_rounds", f"it must be an integer from 1 to {MAX_ROUNDS_LIMIT:,} (rounds per game)")
        if isinstance(self.deck, Deck):
            object.__setattr__(
                self, "deck", with_advanced_cards(self.deck, self.action_card_counts, self.penny_jar_value)
            )
        odd = [c.name for c in self.deck.cards if c.kind == "action" and c.name not in ACTION_CARD_NAMES]
        if odd:
            raise RulesError(f"option 'deck': action card(s) {', '.join(odd)} of deck {self.deck.name!r} are not "
                             f"built; the built action cards are {', '.join(ACTION_CARD_NAMES)} "
                             "(option action_card_counts)")
        self._check_draft()
        if self.end_kind == "target" and int(self.deck.values.max()) == 0:
            raise RulesError(
                f"option 'target_score': every card of deck {self.deck.name!r} is worth $0, so no total can reach "
                f"${self.target_score:,}; give some card a value > 0 or use end_condition rounds:N"
            )
        # The most cards in play at any allowed size (R-DECK-MULTI with full extra decks bounds packs).
        extra = max(0, math.ceil((self.max_players - 6) / 3))
        most = (1 + extra) * self.deck.total_value
        if most * self.max_rounds >= TOTAL_LIMIT:
            raise RulesError(
                f"option 'deck': deck {self.deck.name!r} is worth ${self.deck.total_value:,}; {self.max_rounds:,} "
                f"rounds (option 'max_rounds') of it at {self.max_players} players could exceed ${TOTAL_LIMIT:,}, "
                "the engines' integer range; use smaller card values or a lower max_rounds"
            )

    def _check_draft(self) -> None:
        """Validate the draft options (R-2P-DRAFT, R-3P-DRAFT); normalise ``draft_removed`` to a tuple."""
        def bad(opt: str, allowed: str) -> RulesError:
            return RulesError(f"option {opt!r} is {show(getattr(self, opt), python_str=True)}; {allowed}")

        if self.draft not in DRAFT_LAYOUTS:
            raise bad("draft", f"choose one of: {', '.join(DRAFT_LAYOUTS)}")
        removed = self.draft_removed
        if isinstance(removed, dict):
            removed = tuple(removed.items())
        if not isinstance(removed, tuple | list) or not all(
            isinstance(e, tuple | list) and len(e) == 2 and isinstance(e[0], str) and _is_int(e[1]) for e in removed
        ):
            raise bad("draft_removed", "give ((card name, copies), ...) or a mapping card name -> copies")
        removed = tuple((str(n), int(c)) for n, c in removed)
        object.__setattr__(self, "draft_removed", removed)
        names = self.deck.names
        for n, c in removed:
            if n not in names:
                raise RulesError(f"option 'draft_removed' names {n!r}, not a card of deck {self.deck.name!r}; "
                                 f"choose from: {', '.join(names)}")
            have = self.deck.cards[names.index(n)].copies
            if not 1 <= c <= have:
                raise RulesError(f"option 'draft_removed' removes {c} {n}; deck {self.deck.name!r} has {have} "
                                 f"(give 1 to {have})")
        if len({n for n, _ in removed}) != len(removed):
            raise bad("draft_removed", "name each card once")
        if self.draft == "none":
            for opt in ("draft_piles", "draft_pile_size"):
                if getattr(self, opt) != 0:
                    raise bad(opt, "it must be 0 when option 'draft' is 'none' (no draft piles)")
            if removed:
                raise bad("draft_removed", "it must be empty when option 'draft' is 'none'")
            return
        if not _is_int(self.draft_pile_size) or not 1 <= self.draft_pile_size <= 40:
            raise bad("draft_pile_size", "it must be an integer from 1 to 40 (cards per draft pile)")
        if self.draft == "shared":
            if not _is_int(self.draft_piles) or not 1 <= self.draft_piles <= 12:
                raise bad("draft_piles", "it must be an integer from 1 to 12 under draft 'shared'")
            if self.min_players != 2 or self.max_players != 2:
                raise RulesError(
                    f"option 'draft' is 'shared' (R-2P-DRAFT: the opponent challenges a drafted set), which needs "
                    f"exactly 2 players; min_players/max_players are {self.min_players}/{self.max_players}"
                )
        else:  # neighbours: one pile between each pair of neighbours
            if not _is_int(self.draft_piles) or not 3 <= self.draft_piles <= 12:
                raise bad("draft_piles", "it must be the table size (3 to 12) under draft 'neighbours'")
            if self.min_players != self.draft_piles or self.max_players != self.draft_piles:
                raise RulesError(
                    f"option 'draft' is 'neighbours' with draft_piles {self.draft_piles} (one pile between each pair "
                    f"of neighbours, R-3P-DRAFT), which needs exactly {self.draft_piles} players; "
                    f"min_players/max_players are {self.min_players}/{self.max_players}"
                )

    @property
    def score_unit(self) -> str:
        """``"dollars"``: the classic family's totals are dollars (R-SCORE); the theft game's are points."""
        return "dollars"

    @property
    def draft_cards(self) -> int:
        """Cards dealt to the draft piles each round (R-2P-DRAFT, R-3P-DRAFT); 0 without a draft."""
        return self.draft_piles * self.draft_pile_size if self.draft != "none" else 0

    def check_table(self, n_players: int) -> None:
        """Raise :class:`RulesError` unless a game at ``n_players`` seats can be set up (R-SETUP, R-DECK-MULTI).

        Checks that ``n_players`` is allowed, that the cards in play can deal
        ``hand_size`` to every seat and turn up a discard, and that the extra
        decks of R-DECK-MULTI can be formed; the message names the option at
        fault (``hand_size``, ``deck``, ``extra_deck_unit``) and the table size.
        """
        self.check_players(n_players)
        try:
            counts = self.deck_counts(n_players)
        except ValueError as e:  # a pack of odd copies (R-DECK-MULTI)
            raise RulesError(f"{e} (needed at {n_players} players)") from None
        hand = dict(self.hand_size)[n_players]
        ids = self.advanced_ids
        n_act = sum(int(counts[i]) for i in (ids.swap, ids.move) if i >= 0)
        # R-ADV-SETUP: action cards turned up are set aside, so they are not counted as dealable
        need = n_players * hand + 1 + self.draft_cards + n_act
        have = int(counts.sum())
        if have < need:
            most = (have - 1 - self.draft_cards - n_act) // n_players
            besides = "the draft piles and a discard" if self.draft_cards else "and a discard"
            raise RulesError(
                f"option 'hand_size' is {hand} at {n_players} players: deck {self.deck.name!r} has {have} cards in "
                f"play, enough for at most {most} each {besides} ({need} needed); lower hand_size, "
                "play fewer players or use a larger deck"
            )
        if self.end_kind == "target":
            most = self.max_rounds * self.round_total(n_players)
            if self.target_score > most:
                raise RulesError(
                    f"option 'target_score' is ${self.target_score:,}: at {n_players} players every card in play is "
                    f"worth ${self.round_total(n_players):,} a round, so {self.max_rounds:,} rounds (option "
                    f"'max_rounds') reach at most ${most:,}; lower target_score or raise max_rounds"
                )

    def __hash__(self) -> int:
        # Rule sets key caches on hot paths; hash the fields once.
        h = self.__dict__.get("_hash")
        if h is None:
            h = hash(tuple(getattr(self, f.name) for f in fields(self)))
            object.__setattr__(self, "_hash", h)
        return h

    # -- derived values -------------------------------------------------------
    def hand_size_for(self, n_players: int) -> int:
        """Cards dealt and drawn up to at a table of ``n_players`` (R-HAND-SIZE).

        Raises:
            RulesError: ``n_players`` outside ``min_players..max_players``.
        """
        self.check_players(n_players)
        return dict(self.hand_size)[n_players]

    def check_players(self, n_players: int) -> None:
        """Raise :class:`RulesError` unless ``n_players`` is an allowed table size (see also :meth:`check_table`)."""
        if (
            not isinstance(n_players, int)
            or isinstance(n_players, bool)
            or not self.min_players <= n_players <= self.max_players
        ):
            raise RulesError(
                f"option 'players' is {show(n_players, python_str=True)}; rules {self.name!r} allow "
                f"{range_text(self.min_players, self.max_players)} players"
            )

    def deck_counts(self, n_players: int):
        """(T,) int64 copies of each card type in play (R-DECK-MULTI), less ``draft_removed`` (R-2P-DRAFT)."""
        counts = self.deck.counts_for_players(n_players, self.extra_deck_unit)
        for name, c in self.draft_removed:
            counts[self.deck.type_id(name)] -= c
        return counts

    def round_total(self, n_players: int) -> int:
        """Dollar value of every card in play: stacks + discard pile (+ leftover draft cards, R-2P-DRAFT) each round (R-SCORE).

        R-2P-DRAFT's reduced deck (99 cards): $1,360,000 - 8 x $20,000 - 2 x $25,000 - $50,000 = $1,100,000.
        """
        return int((self.deck_counts(n_players) * self.deck.values).sum())

    @property
    def advanced_ids(self) -> AdvancedIds:
        """Card type ids of Swap, Move and the Penny Jar in :attr:`deck` (-1: absent; R-DECK-ACTION)."""
        ids = self.__dict__.get("_advanced_ids")
        if ids is None:
            ids = AdvancedIds.of(self.deck)
            object.__setattr__(self, "_advanced_ids", ids)
        return ids

    @property
    def end_kind(self) -> str:
        """``target``, ``rounds`` or ``round_wins`` (R-GAME-END)."""
        return self.end_condition.split(":")[0]

    @property
    def end_param(self) -> int:
        """N of ``rounds:N`` or K of ``round_wins:K``; 0 for ``target``."""
        parts = self.end_condition.split(":")
        return int(parts[1]) if len(parts) > 1 else 0

    # -- changes and views -----------------------------------------------------
    def with_options(self, **options: Any) -> RuleSet:
        """A copy with some options overridden (validated again).

        Raises:
            RulesError: unknown option name (lists the allowed ones) or a bad value.
        """
        allowed = option_names()
        for k in options:
            if k not in allowed:
                raise RulesError(f"unknown rule option {k!r}; choose from: {', '.join(allowed)}")
        if "hand_size" not in options and ("min_players" in options or "max_players" in options):
            options["hand_size"] = dict(self.hand_size) | {"default": dict(self.hand_size)[self.max_players]}
        name = self.name if self.name.endswith("+custom") or not options else f"{self.name}+custom"
        return replace(self, name=name, **options)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict of every option (deck as a list of cards)."""
        out: dict[str, Any] = {}
        for f in fields(self):
            v = getattr(self, f.name)
            if f.name == "deck":
                v = {"name": v.name, "cards": [c.__dict__ for c in v.cards]}
            elif f.name == "hand_size":
                v = {str(n): s for n, s in v}
            elif f.name == "draft_removed":
                v = {n: c for n, c in v}
            out[f.name] = v
        return out

    def describe(self) -> str:
        """Readable listing of the options and the deck (``cya-sim rules``)."""
        lines = [f"rules {self.name}"]
        for f in fields(self):
            if f.name in ("name", "deck"):
                continue
            v = getattr(self, f.name)
            if f.name == "hand_size":
                v = ", ".join(f"{n}p: {s}" for n, s in v)
            elif f.name == "draft_removed":
                v = ", ".join(f"{c} {n}" for n, c in v) or "nothing"
            lines.append(f"  {f.name:22s} {v}")
        d = self.deck
        lines.append(f"deck {d.name}: {int(d.copies.sum())} cards, ${d.total_value:,}")
        if self.draft_removed:
            counts = self.deck_counts(self.min_players)
            lines.append(f"  in play after draft_removed: {int(counts.sum())} cards, "
                         f"${self.round_total(self.min_players):,} a round")
        lines.append(f"  {'card':26s} {'kind':6s} {'value':>9s} {'copies':>6s}")
        for c in d.cards:
            lines.append(f"  {c.name:26s} {c.kind:6s} {'$' + format(c.value, ','):>9s} {c.copies:>6d}")
        return "\n".join(lines)


def _action_counts(spec: Any) -> tuple[int, int, int]:
    """Normalise ``action_card_counts`` (R-DECK-ACTION) to (Swap, Move, Penny Jar) copies."""
    names = ("Swap", "Move", "Penny Jar")
    if isinstance(spec, dict):
        extra = set(spec) - set(names)
        if extra:
            raise RulesError(f"option 'action_card_counts' names {', '.join(sorted(map(str, extra)))}; "
                             f"give copies of: {', '.join(names)}")
        spec = tuple(spec.get(n, 0) for n in names)
    if not isinstance(spec, tuple | list) or len(spec) != 3 or not all(_is_int(v) for v in spec):
        raise RulesError(f"option 'action_card_counts' is {show(spec, python_str=True)}; give copies of (Swap, Move, Penny Jar), "
                         "three integers from 0 to 40")
    if not all(0 <= v <= MAX_COPIES for v in spec):
        raise RulesError(f"option 'action_card_counts' is ({', '.join(show(x) for x in spec)}); each count must be from 0 to {MAX_COPIES}")
    return tuple(int(v) for v in spec)


def option_names() -> tuple[str, ...]:
    """Names of every overridable option of :class:`RuleSet`."""
    return tuple(f.name for f in fields(RuleSet) if f.name not in ("name", "family"))
