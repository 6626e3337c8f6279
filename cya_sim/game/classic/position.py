"""Game positions as JSON: write a :class:`~cya_sim.game.classic.state.GameState` out, read it back.

A position is the whole state of one game of the classic family (RULES.md
§3–5, §8), hidden information included: tests use it to set up exact
situations, users use it to report a bug. Reading refuses malformed or
impossible positions with a :class:`PositionError` whose message starts with
the JSON path of the offending field (``stacks[2][0].cards[1]``) and says what
is allowed.

The document (``version`` 1); fields marked *optional* may be omitted::

    {
      "format": "cya-sim-position",         # required, exactly this tag
      "version": 1,                         # required
      "rules": {"preset": "classic",        # a preset of cya_sim.game.rules.PRESETS
                "options": {"hand_size": 5},  # optional: overridden options (get_rules)
                "name": "classic+custom"},  # optional: the rule set's label
      "players": 4,                         # table size P
      "round": 1,                           # optional (1): round in progress, >= 1
      "dealer": 0,                          # optional (seat right of current_player)
      "first_dealer": 0,                    # optional (dealer): dealer of round 1
      "current_player": 1,                  # seat whose turn it is
      "totals": [0, 0, 0, 0],               # optional (zeros): dollars, >= 0 (R-SCORE)
      "round_wins": [0, 0, 0, 0],           # optional (zeros): R-GAME-END round_wins
      "round_scores": [[...P ints...], ...],  # optional ([]): one list per finished round
      "hands": [["Jewels", "Gold"], ...],   # card names per seat (order is free)
      "draw_pile": ["Home", ...],           # card names, top first
      "discard_pile": ["Stocks", ...],      # card names, top last
      "stacks": [[{"asset": "Jewels",       # per seat, sets oldest first (top set last)
                   "cards": ["Gold", "Jewels"],   # as laid; the last card is the top card
                   "known_by": [[0], [0, 1, 2, 3]]}],  # optional: seats knowing each card
                 ...],
      "challenge": null | {"challenger": 1, "defender": 3, "cards": ["Jewels"],
                           "players": [1],        # who showed each card
                           "to_act": 3,           # optional (the other side of the last card)
                           "asset": "Jewels",     # optional (the contested set's type)
                           "depth": 0,            # optional (0): 1 = the set second from the top (R-ADV-DEEP)
                           "owed": 1},            # optional (1): cards to_act must play (R-ADV-PENNY, R-ADV-DEEP)
      "removed": ["Swap"],                  # optional ([]): cards that left the game this round (§6)
      "turn": {"actions_left": 2,           # optional (a fresh turn): R-ADV-TWO's turn state
               "no_challenge": null,        #   seat the mover may not challenge again, or null
               "defenders": []},            #   seats challenged this turn, in order
      "played_this_turn": [1],              # optional ([]): seats that played a card this turn
      "gave_up": [["Jewels"], [], ...],     # optional (none): per seat, asset types over which it gave up
                                            #   a challenge and has drawn no card since (public, §10)
      "draft_piles": [["Stocks", "Jewels"], ...],  # drafts only (§7): per pile, cards bottom first (top last)
      "draft_down": [0],                    # optional ([]): piles taken from this turn, top not turned up yet
      "draft_offer": [1],                   # optional ([]): seats still to be asked whether they open the
                                            #   immediate challenge of the set just drafted, the one asked now first
      "draft_move": {"chooser": 1, "target": 0, "then": [0, 1]},  # optional (null): a Move turned up on a
                                            #   draft pile waits for chooser's choice on target's stack; then: the
                                            #   draw order (R-REFILL) once the piles are turned up (§7 with §6)
      "eligible": null | [0, 2],            # optional (null): seats still able to win (R-TIE)
      "extra_rounds": 0,                    # optional (0): R-TIE extra rounds played
      "winners": null | [2],                # optional (null): set once the game is over
      "counters": {"turns": 0, "challenges": 0, "decisions": 0, "largest_steal": 0},  # optional
      "rng": {"state": "123...", "inc": "456...",     # optional: the engine's PCG64 stream,
              "has_uint32": 0, "uinteger": 0}          # 128-bit ints as decimal strings,
           | {"seed": 7}                    #   or stream 0 of game 0 of root_key(seed)
    }

Defaults when a field is omitted: ``known_by`` of a set makes its top (last)
card public and every other card known to the owner only under
``hidden_wilds`` (R-HIDDEN-WILD), public otherwise; an omitted or null
``rng`` is ``{"seed": 0}``.

What is checked: the format tag and version, unknown fields, JSON types, the
preset and options (via :func:`cya_sim.game.rules.get_rules`), the table size,
every card name, that the cards of every type across hands, draw pile,
discard pile, stacks and challenge add up exactly to the deck in play
(R-DECK-2011, R-DECK-MULTI), hands no larger than ``hand_size``
(R-HAND-SIZE), numbers within what a game can reach (``round`` from 1 to
``max_rounds``; every total, and their sum, from $0 to ``max_rounds`` rounds of
the deck in play; a round's scores adding up to at most the deck in play;
``round_wins`` at most ``max_rounds``; ``extra_rounds`` at most
``max_extra_rounds``; ``largest_steal`` at most the deck in play; turns and
challenges within int32, decisions within int64; an RNG seed from 0 to
2**63 - 1 like every seed), seats in range, sets (R-PAIR-HAND:
at least two cards, an asset type, only cards of that type or wilds, at least
one card of that type; no set is only wilds, R-NO-WILD-PAIR), ``known_by``
(the owner knows every card of its sets; everything is public when
``hidden_wilds`` is false), and a challenge in progress (R-CH-ALLOWED: the
challenger is the current player and has a set, the defender has at least two
sets; R-CH-EXCHANGE: the cards match the contested set, the two sides
alternate starting with the challenger), draft piles (at most
``draft_pile_size`` cards; no action card face up on top, R-2P-DRAFT: it is
carried out at once), and the text itself (JSON nested at most 64 levels, no
number of more than 4,300 digits, :mod:`cya_sim.game.jsontext`). In the turn phase the current player
must hold a card (R-TURN skips empty hands). The end of the game (R-GAME-END,
R-TIE): ``eligible`` only under ``tie_break = extra_round``, with at least two
seats of equal totals and ``extra_rounds`` from 1 (and ``extra_rounds`` 0
without it); ``winners`` only outside a challenge, draft offer or Move choice,
inside ``eligible``, of equal totals, and (except under ``round_wins:K``)
exactly the seats of the highest total (a game in progress past its end
condition is accepted: it ends when the round in progress ends). Whether a position can be reached
by play (for example full hands while the draw pile lasts) is not checked, so
tests can use small hands.
"""

from __future__ import annotations

import json
from dataclasses import fields, replace
from pathlib import Path
from typing import Any

import numpy as np

from cya_sim.errors import UserInputError
from cya_sim.game.classic.rules.presets import PRESETS
from cya_sim.game.classic.state import CardSet, Challenge, GameState
from cya_sim.game.jsontext import JsonTextError, field_name, load_json, show
from cya_sim.game.limits import MAX_COUNT, MAX_DECISIONS, MAX_SEED, range_text
from cya_sim.game.rng import root_key, stream_generator
from cya_sim.game.rules import Deck, DeckError, RulesError, RuleSet, get_rules

FORMAT = "cya-sim-position"
VERSION = 1

_TOP_FIELDS = (
    "format", "version", "rules", "players", "round", "dealer", "first_dealer", "current_player",
    "totals", "round_wins", "round_scores", "hands", "draw_pile", "discard_pile", "stacks",
    "challenge", "played_this_turn", "gave_up", "eligible", "extra_rounds", "winners", "counters", "rng",
    "removed", "turn", "draft_piles", "draft_down", "draft_offer", "draft_move",
)
_REQUIRED = ("format", "version", "rules", "players", "current_player", "hands", "draw_pile", "discard_pile",
             "stacks")
_RULES_FIELDS = ("preset", "options", "name")
_SET_FIELDS = ("asset", "cards", "known_by")
_CHALLENGE_FIELDS = ("challenger", "defender", "cards", "players", "to_act", "asset", "depth", "owed")
_TURN_FIELDS = ("actions_left", "no_challenge", "defenders")
_DRAFT_MOVE_FIELDS = ("chooser", "target", "then")
_COUNTERS = ("turns", "challenges", "decisions", "largest_steal")
_RNG_FIELDS = ("state", "inc", "has_uint32", "uinteger")
_HAS_GAVE_UP = "gave_up" in {f.name for f in fields(GameState)}


class PositionError(ValueError, UserInputError):
    """A position document is malformed or impossible.

    The message starts with the JSON path of the offending field
    (``hands[1][3]``, ``stacks[2][0].cards[1]``, ``rules.options.hand_size``)
    and says what is allowed.
    """


# -- writing -------------------------------------------------------------------


def _rules_to_dict(rules: RuleSet) -> dict[str, Any]:
    """``{"preset", "options", "name"}``: the options that differ from the preset."""
    base = rules.name.split("+")[0]
    preset = base if base in PRESETS else "classic"
    ref = PRESETS[preset]
    options: dict[str, Any] = {}
    for f in fields(RuleSet):
        if f.name in ("name", "family"):
            continue
        v = getattr(rules, f.name)
        if v == getattr(ref, f.name):
            continue
        if f.name == "deck":
            v = {"name": v.name, "cards": [dict(c.__dict__) for c in v.cards]}
        elif f.name == "hand_size":
            v = {str(n): s for n, s in v}
        elif f.name == "draft_removed":
            v = {n: c for n, c in v}
        options[f.name] = v
    out: dict[str, Any] = {"preset": preset, "options": options}
    if rules.name != preset:
        out["name"] = rules.name
    return out


def _seats(mask: int, n_players: int) -> list[int]:
    return [s for s in range(n_players) if mask >> s & 1]


def state_to_dict(state: GameState) -> dict[str, Any]:
    """The position of ``state`` as a JSON-ready dict (see the module docstring).

    Every field is written, ``known_by`` and the RNG state included, so that
    ``state_from_dict(state_to_dict(s)) == s`` and play continues identically.
    Hands are written in card-type order.
    """
    names = state.rules.deck.names
    p = state.n_players

    def card_names(cards: list[int]) -> list[str]:
        """Names of card type ids."""
        return [names[c] for c in cards]

    hands = [[names[t] for t, n in enumerate(h) for _ in range(int(n))] for h in state.hands]
    stacks = [
        [
            {
                "asset": names[s.asset],
                "cards": card_names(s.cards),
                "known_by": [_seats(k, p) for k in s.known_by],
            }
            for s in stack
        ]
        for stack in state.stacks
    ]
    ch = state.challenge
    challenge = None
    if ch is not None:
        challenge = {
            "challenger": ch.challenger,
            "defender": ch.defender,
            "asset": names[ch.asset],
            "cards": card_names(ch.cards),
            "players": list(ch.players),
            "to_act": ch.to_act,
        }
        if ch.depth or ch.owed != 1:
            challenge |= {"depth": ch.depth, "owed": ch.owed}
    rng = None
    if state.rng is not None:
        st = state.rng.bit_generator.state
        if st.get("bit_generator") != "PCG64":
            raise PositionError(f"rng: bit generator {st.get('bit_generator')!r} cannot be written; only PCG64")
        rng = {
            "state": str(int(st["state"]["state"])),
            "inc": str(int(st["state"]["inc"])),
            "has_uint32": int(st["has_uint32"]),
            "uinteger": int(st["uinteger"]),
        }
    adv: dict[str, Any] = {}
    if state.rules.advanced_ids.n_action_cards:
        adv["removed"] = card_names(state.removed)
    if state.rules.actions_per_turn > 1:
        adv["turn"] = {"actions_left": state.actions_left,
                       "no_challenge": None if state.no_challenge < 0 else state.no_challenge,
                       "defenders": list(state.turn_defenders)}
    draft = {}
    if state.rules.draft != "none":
        draft = {
            "draft_piles": [card_names(pile) for pile in state.draft_piles],
            "draft_down": [j for j, down in enumerate(state.draft_down) if down],
            "draft_offer": list(state.draft_offer),
        }
        if state.draft_move:
            draft["draft_move"] = {"chooser": state.draft_move[0], "target": state.draft_move[1],
                                   "then": list(state.draft_then)}
    return {
        "format": FORMAT,
        "version": VERSION,
        "rules": _rules_to_dict(state.rules),
        "players": p,
        "round": state.round,
        "dealer": state.dealer,
        "first_dealer": state.first_dealer,
        "current_player": state.current_player,
        "totals": [int(x) for x in state.totals],
        "round_wins": [int(x) for x in state.round_wins],
        "round_scores": [[int(x) for x in r] for r in state.round_scores],
        "hands": hands,
        "draw_pile": card_names(state.draw_pile),
        "discard_pile": card_names(state.discard_pile),
        "stacks": stacks,
        "challenge": challenge,
        "played_this_turn": [s for s in range(p) if state.played_this_turn and state.played_this_turn[s]],
        "gave_up": [[names[t] for t, g in enumerate(row) if g] for row in (getattr(state, "gave_up", None)
                                                                          or [[]] * p)],
        "eligible": None if state.eligible is None else list(state.eligible),
        "extra_rounds": state.extra_rounds,
        "winners": None if state.winners is None else list(state.winners),
        "counters": {k: int(getattr(state, k)) for k in _COUNTERS},
        "rng": rng,
        **draft,
    } | adv


def dumps(state: GameState, indent: int | None = 1) -> str:
    """The position of ``state`` as JSON text (see :func:`state_to_dict`)."""
    return json.dumps(state_to_dict(state), indent=indent)


# -- reading -------------------------------------------------------------------


def _fail(path: str, msg: str) -> PositionError:
    return PositionError(f"{path}: {msg}")


def _check_fields(d: Any, path: str, allowed: tuple[str, ...], required: tuple[str, ...] = ()) -> dict:
    if not isinstance(d, dict):
        raise _fail(path, f"expected an object with fields {', '.join(allowed)}; got {type(d).__name__}")
    for k in d:
        if k not in allowed:
            where = f"{path}.{field_name(k)}" if path != "position" else field_name(k)
            raise _fail(where, f"unknown field; allowed fields: {', '.join(allowed)}")
    for k in required:
        if k not in d:
            where = f"{path}.{k}" if path != "position" else k
            raise _fail(where, "missing; it is required")
    return d


def _int(v: Any, path: str, lo: int | None = None, hi: int | None = None, why: str = "") -> int:
    """``v`` when it is an integer (not a bool) from ``lo`` to ``hi``; ``why`` names the bound's source."""
    if not isinstance(v, int) or isinstance(v, bool):
        raise _fail(path, f"expected an integer; got {show(v)}")
    if lo is not None and v < lo or hi is not None and v > hi:
        if hi is None:
            allowed = f"an integer >= {lo}"
        elif lo is None:
            allowed = f"an integer <= {hi:,}"
        else:
            allowed = f"an integer from {lo} to {hi:,}"
        raise _fail(path, f"is {show(v)}; allowed: {allowed}" + (f" ({why})" if why else ""))
    return v


def _list(v: Any, path: str, length: int | None = None) -> list:
    if not isinstance(v, list):
        raise _fail(path, f"expected a list; got {type(v).__name__}")
    if length is not None and len(v) != length:
        raise _fail(path, f"has {len(v)} entries; expected {length} (one per seat)")
    return v


def _seat(v: Any, path: str, p: int) -> int:
    return _int(v, path, 0, p - 1)


def _seat_list(v: Any, path: str, p: int) -> list[int]:
    seats = [_seat(x, f"{path}[{i}]", p) for i, x in enumerate(_list(v, path))]
    if len(set(seats)) != len(seats):
        raise _fail(path, f"lists a seat twice ({seats}); each seat at most once")
    return seats


def _rules_from_dict(d: Any) -> RuleSet:
    d = _check_fields(d, "rules", _RULES_FIELDS, ("preset",))
    preset = d["preset"]
    if not isinstance(preset, str) or preset not in PRESETS:
        raise _fail("rules.preset", f"unknown rule preset {show(preset, python_str=True)}; choose one of: {', '.join(PRESETS)}")
    options = d.get("options", {})
    if not isinstance(options, dict):
        raise _fail("rules.options", f"expected an object of option -> value; got {type(options).__name__}")
    options = dict(options)
    for k, v in options.items():
        if k == "deck" and not isinstance(v, Deck):
            dd = _check_fields(v, "rules.options.deck", ("name", "cards"), ("cards",))
            try:
                options[k] = Deck.from_entries(str(dd.get("name", "custom")), _list(dd["cards"], "rules.options.deck.cards"))
            except DeckError as e:
                raise _fail("rules.options.deck", str(e)) from None
    try:
        rules = get_rules(preset, **options)
    except RulesError as e:
        msg = str(e)
        bad = next((k for k in options if f"{k!r}" in msg), None)
        raise _fail(f"rules.options.{field_name(bad)}" if bad else "rules.options", msg) from None
    except (TypeError, ValueError) as e:
        raise _fail("rules.options", str(e)) from None
    if "name" in d:
        name = d["name"]
        if not isinstance(name, str) or not name.strip():
            raise _fail("rules.name", "expected a non-empty string")
        rules = replace(rules, name=name)
    return rules


def _card(v: Any, path: str, names: tuple[str, ...]) -> int:
    if not isinstance(v, str) or v not in names:
        raise _fail(path, f"unknown card {show(v, python_str=True)}; this deck has: {', '.join(names)}")
    return names.index(v)


def _cards(v: Any, path: str, names: tuple[str, ...]) -> list[int]:
    return [_card(x, f"{path}[{i}]", names) for i, x in enumerate(_list(v, path))]


def _rng_from_dict(v: Any) -> np.random.Generator:
    if v is None:
        v = {"seed": 0}
    if isinstance(v, dict) and "seed" in v:
        _check_fields(v, "rng", ("seed",))
        return stream_generator(root_key(_int(v["seed"], "rng.seed", 0, MAX_SEED, "a tournament seed")), 0, 0)
    d = _check_fields(v, "rng", _RNG_FIELDS, ("state", "inc"))
    vals = {}
    for k in ("state", "inc"):
        x = d[k]
        if not isinstance(x, str) or not (x.isascii() and x.isdigit()):
            raise _fail(f"rng.{k}", f"expected a decimal string of a 128-bit integer; got {show(x, python_str=True)}")
        if len(x) > 39:
            raise _fail(f"rng.{k}", f"has {len(x):,} digits; allowed: 0 to 2**128 - 1 (at most 39 digits)")
        n = int(x)
        if n >= 1 << 128:
            raise _fail(f"rng.{k}", "is out of range; allowed: 0 to 2**128 - 1")
        vals[k] = n
    if vals["inc"] % 2 == 0:
        raise _fail("rng.inc", "is even; a PCG64 increment is odd")
    has = _int(d.get("has_uint32", 0), "rng.has_uint32", 0, 1)
    uint = _int(d.get("uinteger", 0), "rng.uinteger", 0, (1 << 32) - 1)
    bg = np.random.PCG64()
    bg.state = {"bit_generator": "PCG64", "state": vals, "has_uint32": has, "uinteger": uint}
    return np.random.Generator(bg)


def _set_from_dict(v: Any, path: str, owner: int, p: int, rules: RuleSet) -> CardSet:
    deck = rules.deck
    names = deck.names
    d = _check_fields(v, path, _SET_FIELDS, ("asset", "cards"))
    asset = _card(d["asset"], f"{path}.asset", names)
    if asset >= deck.n_assets:
        kind = "a wild" if asset < deck.n_assets + deck.n_wilds else "an action card"
        raise _fail(f"{path}.asset", f"{names[asset]!r} is {kind}, not an asset; a set's type is an asset: "
                    + ", ".join(names[: deck.n_assets]))
    cards = _cards(d["cards"], f"{path}.cards", names)
    if len(cards) < 2:
        raise _fail(f"{path}.cards", f"has {len(cards)} card(s); a set has at least 2 (R-PAIR-HAND)")
    wilds = names[deck.n_assets:deck.n_assets + deck.n_wilds]
    for i, c in enumerate(cards):
        if c != asset and names[c] not in wilds:
            raise _fail(f"{path}.cards[{i}]", f"{names[c]!r} does not match the set's asset {names[asset]!r}; "
                        f"allowed: {names[asset]!r} or a wild ({', '.join(wilds)})")
    if asset not in cards:
        raise _fail(f"{path}.cards", f"holds no {names[asset]!r}; a set has at least one card of its asset type "
                    "(R-NO-WILD-PAIR)")
    public = (1 << p) - 1
    if "known_by" in d:
        kb = _list(d["known_by"], f"{path}.known_by", None)
        if len(kb) != len(cards):
            raise _fail(f"{path}.known_by", f"has {len(kb)} entries; expected {len(cards)} (one per card)")
        known = []
        for i, x in enumerate(kb):
            seats = _seat_list(x, f"{path}.known_by[{i}]", p)
            if owner not in seats:
                raise _fail(f"{path}.known_by[{i}]", f"lacks the set's owner, seat {owner}; the owner knows every "
                            "card of its sets (R-HIDDEN-WILD)")
            mask = sum(1 << s for s in seats)
            if not rules.hidden_wilds and mask != public:
                raise _fail(f"{path}.known_by[{i}]", f"is {seats}; with hidden_wilds = false every stack card is "
                            f"public: {list(range(p))}")
            known.append(mask)
    else:
        hidden = (1 << owner) if rules.hidden_wilds else public
        known = [hidden] * (len(cards) - 1) + [public]
    return CardSet(asset, cards, known)


def state_from_dict(d: Any) -> GameState:
    """The :class:`~cya_sim.game.classic.state.GameState` of a position dict (see the module docstring).

    Derived fields (``hand_size``, ``deck_counts``) come from the rules and
    the table size.

    Raises:
        PositionError: a malformed or impossible position; the message names
            the field by its JSON path and says what is allowed.
    """
    d = _check_fields(d, "position", _TOP_FIELDS, _REQUIRED)
    if d["format"] != FORMAT:
        raise _fail("format", f"is {show(d['format'], python_str=True)}; expected {FORMAT!r}")
    if d["version"] != VERSION or isinstance(d["version"], bool):
        raise _fail("version", f"is {show(d['version'], python_str=True)}; supported versions: {VERSION}")
    rules = _rules_from_dict(d["rules"])
    p = _int(d["players"], "players")
    try:
        rules.check_players(p)
    except RulesError:
        raise _fail("players", f"is {show(p)}; rules {rules.name!r} allow "
                    f"{range_text(rules.min_players, rules.max_players)} players") from None
    deck = rules.deck
    names = deck.names
    t = deck.n_types
    hand_size = rules.hand_size_for(p)
    deck_counts = rules.deck_counts(p)

    current = _seat(d["current_player"], "current_player", p)
    dealer = _seat(d.get("dealer", (current - 1) % p), "dealer", p)
    first_dealer = _seat(d.get("first_dealer", dealer), "first_dealer", p)
    # Bounds of play: a game stops after max_rounds rounds (RuleSet.max_rounds); a round scores at most the
    # deck in play (R-SCORE, round_total), so no total exceeds max_rounds of it.
    most_rounds = rules.max_rounds
    per_round = rules.round_total(p)
    most_total = most_rounds * per_round
    rnd = _int(d.get("round", 1), "round", 1, most_rounds, "option max_rounds: the game stops after that round")
    totals = [_int(x, f"totals[{i}]", 0, most_total, f"max_rounds = {most_rounds:,} rounds of ${per_round:,}, "
                   "R-SCORE")
              for i, x in enumerate(_list(d.get("totals", [0] * p), "totals", p))]
    if sum(totals) > most_total:
        raise _fail("totals", f"add up to ${sum(totals):,}; at most ${most_total:,} can be scored in a game "
                    f"(max_rounds = {most_rounds:,} rounds of ${per_round:,}, R-SCORE)")
    round_wins = [_int(x, f"round_wins[{i}]", 0, most_rounds, "option max_rounds")
                  for i, x in enumerate(_list(d.get("round_wins", [0] * p), "round_wins", p))]
    round_scores = []
    scores = _list(d.get("round_scores", []), "round_scores")
    if len(scores) > most_rounds:
        raise _fail("round_scores", f"has {len(scores):,} rounds; at most max_rounds = {most_rounds:,}")
    for r, row in enumerate(scores):
        row = _list(row, f"round_scores[{r}]", p)
        row = [_int(x, f"round_scores[{r}][{i}]", 0, per_round, "the deck in play, R-SCORE")
               for i, x in enumerate(row)]
        if sum(row) > per_round:
            raise _fail(f"round_scores[{r}]", f"adds up to ${sum(row):,}; a round scores at most the deck in play, "
                        f"${per_round:,} (R-SCORE)")
        round_scores.append(row)

    hands = []
    for s, h in enumerate(_list(d["hands"], "hands", p)):
        cards = _cards(h, f"hands[{s}]", names)
        if len(cards) > hand_size:
            raise _fail(f"hands[{s}]", f"holds {len(cards)} cards; at most hand_size = {hand_size} at {p} players "
                        "(R-HAND-SIZE)")
        counts = [0] * t
        for c in cards:
            counts[c] += 1
        hands.append(counts)
    draw_pile = _cards(d["draw_pile"], "draw_pile", names)
    discard_pile = _cards(d["discard_pile"], "discard_pile", names)
    first_action = deck.n_assets + deck.n_wilds
    for i, c in enumerate(discard_pile):
        if c >= first_action:
            raise _fail(f"discard_pile[{i}]", f"{names[c]!r} is an action card; it leaves the game instead "
                        "(R-ADV-DISCARD-ACTION): list it under 'removed'")
    removed = _cards(d.get("removed", []), "removed", names)
    for i, c in enumerate(removed):
        if c < first_action:
            raise _fail(f"removed[{i}]", f"{names[c]!r} is not an action card; only Swap and Move leave the game")
    turn = _check_fields(d.get("turn", {}), "turn", _TURN_FIELDS)
    actions_left = _int(turn.get("actions_left", rules.actions_per_turn), "turn.actions_left", 1,
                        rules.actions_per_turn)
    no_ch = turn.get("no_challenge")
    no_ch = -1 if no_ch is None else _seat(no_ch, "turn.no_challenge", p)
    defenders = [_seat(x, f"turn.defenders[{i}]", p) for i, x in enumerate(_list(turn.get("defenders", []),
                                                                                  "turn.defenders"))]
    stacks = []
    for s, stack in enumerate(_list(d["stacks"], "stacks", p)):
        stacks.append([_set_from_dict(x, f"stacks[{s}][{j}]", s, p, rules)
                       for j, x in enumerate(_list(stack, f"stacks[{s}]"))])

    draft_piles, draft_down, draft_offer = _draft_from_dict(d, p, rules, current)
    draft_move, draft_then = _draft_move_from_dict(d, p, rules, draft_down)
    challenge = None
    if d.get("challenge") is not None:
        challenge = _challenge_from_dict(d["challenge"], p, rules, stacks, current)

    played = [False] * p
    for s in _seat_list(d.get("played_this_turn", []), "played_this_turn", p):
        played[s] = True
    gave_up = [[False] * t for _ in range(p)]
    for s, row in enumerate(_list(d.get("gave_up", [[] for _ in range(p)]), "gave_up", p)):
        for i, c in enumerate(_cards(row, f"gave_up[{s}]", names)):
            if c >= deck.n_assets:
                raise _fail(f"gave_up[{s}][{i}]", f"{names[c]!r} is a wild; a challenge is over an asset type: "
                            + ", ".join(names[: deck.n_assets]))
            gave_up[s][c] = True
    extra = {"gave_up": gave_up} if _HAS_GAVE_UP else {}
    eligible = d.get("eligible")
    if eligible is not None:
        eligible = _seat_list(eligible, "eligible", p)
        if not eligible:
            raise _fail("eligible", "is empty; give null or at least one seat")
    winners = d.get("winners")
    if winners is not None:
        winners = _seat_list(winners, "winners", p)
        if not winners:
            raise _fail("winners", "is empty; give null (game in progress) or the winning seats")
    extra_rounds = _int(d.get("extra_rounds", 0), "extra_rounds", 0, rules.max_extra_rounds,
                        "option max_extra_rounds, R-TIE")
    counters = _check_fields(d.get("counters", {}), "counters", _COUNTERS)
    most = {"turns": (MAX_COUNT, "the int32 column of games.parquet"),
            "challenges": (MAX_COUNT, "the int32 column of games.parquet"),
            "decisions": (MAX_DECISIONS, "a 64-bit integer"),
            "largest_steal": (per_round, "a set is worth at most the deck in play, R-SCORE")}
    counts = {k: _int(counters.get(k, 0), f"counters.{k}", 0, *most[k]) for k in _COUNTERS}
    rng = _rng_from_dict(d.get("rng"))

    # Every card of the deck in play is in exactly one place (R-DECK-2011, R-DECK-MULTI).
    where = {
        "hands": np.array(hands, dtype=np.int64).sum(axis=0),
        "draw_pile": np.bincount(np.array(draw_pile, dtype=np.int64), minlength=t),
        "discard_pile": np.bincount(np.array(discard_pile, dtype=np.int64), minlength=t),
        "stacks": np.bincount(np.array([c for st in stacks for s in st for c in s.cards], dtype=np.int64),
                              minlength=t),
        "challenge": np.bincount(np.array(challenge.cards if challenge else [], dtype=np.int64), minlength=t),
    }
    if deck.n_types > deck.n_assets + deck.n_wilds:  # action cards (RULES.md §6)
        where["removed"] = np.bincount(np.array(removed, dtype=np.int64), minlength=t)
    if rules.draft != "none":  # §7
        where["draft_piles"] = np.bincount(np.array([c for pile in draft_piles for c in pile], dtype=np.int64),
                                           minlength=t)
    total = sum(where.values())
    for c in range(t):
        if total[c] != deck_counts[c]:
            parts = ", ".join(f"{k} {int(v[c])}" for k, v in where.items())
            raise _fail(
                "cards", f"the position holds {int(total[c])} {names[c]!r} ({parts}); the deck in play at {p} "
                f"players has exactly {int(deck_counts[c])} (R-DECK-2011, R-DECK-MULTI)"
            )

    if draft_offer and not stacks[current]:
        raise _fail("draft_offer", f"seat {current} has no set; an immediate challenge is over the set it just "
                    "drafted (R-2P-DRAFT)")
    if draft_move and (challenge is not None or draft_offer):
        raise _fail("draft_move", "a Move turned up on a draft pile is chosen after the immediate challenge is "
                    "settled; give no 'challenge' and no 'draft_offer' with it")
    if draft_move and len(stacks[draft_move[1]]) < 2:
        raise _fail("draft_move.target", f"seat {draft_move[1]} has {len(stacks[draft_move[1]])} set(s); a Move "
                    "choice is asked only for a stack of at least two sets")
    if winners is None and challenge is None and sum(hands[current]) == 0 and not draft_offer and not draft_move:
        raise _fail("current_player", f"seat {current} has an empty hand; a player with an empty hand is skipped "
                    "(R-TURN): give a seat holding cards")

    _check_game_end(rules, p, rnd, totals, round_wins, eligible, extra_rounds, winners,
                    challenge is not None or bool(draft_offer) or bool(draft_move))

    return GameState(
        rules=rules,
        n_players=p,
        hand_size=hand_size,
        deck_counts=deck_counts,
        totals=totals,
        round_wins=round_wins,
        round=rnd,
        dealer=dealer,
        first_dealer=first_dealer,
        hands=hands,
        draw_pile=draw_pile,
        discard_pile=discard_pile,
        stacks=stacks,
        current_player=current,
        challenge=challenge,
        played_this_turn=played,
        eligible=eligible,
        extra_rounds=extra_rounds,
        winners=winners,
        round_scores=round_scores,
        turns=counts["turns"],
        challenges=counts["challenges"],
        decisions=counts["decisions"],
        largest_steal=counts["largest_steal"],
        rng=rng,
        removed=removed,
        actions_left=actions_left,
        no_challenge=no_ch,
        turn_defenders=defenders,
        draft_piles=draft_piles,
        draft_down=draft_down,
        draft_offer=draft_offer,
        draft_move=draft_move,
        draft_then=draft_then,
        **extra,
    )


def _check_game_end(rules: RuleSet, p: int, rnd: int, totals: list[int], round_wins: list[int],
                    eligible: list[int] | None, extra_rounds: int, winners: list[int] | None, mid_turn: bool) -> None:
    """Refuse an end of game the rules cannot reach (R-GAME-END, R-TIE).

    Totals, ``eligible`` and ``winners`` change only at the end of a round, and the end of a round either ends
    the game (winners: the highest total among the seats that can win, ties share) or plays on; so a tie played
    off is between seats of equal totals, and a finished game is not in the middle of a turn. A game in progress
    past its end condition (a total at ``target_score``) is accepted, as hand-built test positions use it: it
    ends at the end of the round in progress, by the same rule.
    """
    if eligible is not None:
        if rules.tie_break != "extra_round":
            raise _fail("eligible", f"is {eligible}; seats are set aside only by tie_break = 'extra_round' (rules "
                        f"{rules.name!r} have {rules.tie_break!r}, R-TIE): allowed: null")
        if len(eligible) < 2:
            raise _fail("eligible", f"is {eligible}; an extra round is played between at least two tied seats (R-TIE)")
        if extra_rounds == 0:
            raise _fail("extra_rounds", "is 0 while 'eligible' is set; the tie's first extra round counts 1 (R-TIE): "
                        f"allowed: 1 to {rules.max_extra_rounds}")
    elif extra_rounds:
        raise _fail("extra_rounds", f"is {extra_rounds} while 'eligible' is null; extra rounds are played only "
                    "between tied seats (R-TIE): give them in 'eligible', or 0")
    if winners is None:
        if eligible is not None and len({totals[s] for s in eligible}) > 1:
            raise _fail("eligible", f"seats {eligible} hold totals {[totals[s] for s in eligible]}; a tie played off "
                        "is between equal totals until the extra round ends, which ends the game or keeps a tie (R-TIE)")
        return
    if mid_turn:
        raise _fail("winners", "is set while a challenge, a draft offer or a Move choice is pending; the game ends "
                    "only at the end of a round (R-GAME-END): give null, or none of those")
    pool = eligible if eligible is not None else list(range(p))
    outside = [s for s in winners if s not in pool]
    if outside:
        raise _fail("winners", f"names seat {outside[0]}, not in 'eligible' {eligible}; only the tied seats can win "
                    "(R-TIE)")
    if len({totals[s] for s in winners}) > 1:
        raise _fail("winners", f"seats {winners} hold totals {[totals[s] for s in winners]}; winners share the "
                    "highest total (R-GAME-END, R-TIE)")
    if rules.end_kind != "round_wins" or eligible is not None:
        best = max(totals[s] for s in pool)
        top = [s for s in pool if totals[s] == best]
        if sorted(winners) != top:
            raise _fail("winners", f"is {winners}; the highest total {'among the eligible seats ' if eligible else ''}"
                        f"wins and ties share: seats {top} (${best:,}; R-GAME-END, R-TIE)")


def _draft_from_dict(d: dict, p: int, rules: RuleSet, current: int) -> tuple[list[list[int]], list[bool], list[int]]:
    """(piles, face-down tops, seats to ask) of a drafting position (R-2P-DRAFT, R-3P-DRAFT); empty otherwise."""
    names = rules.deck.names
    if rules.draft == "none":
        for k in ("draft_piles", "draft_down", "draft_offer"):
            if d.get(k):
                raise _fail(k, f"rules {rules.name!r} have no draft piles (option 'draft' is 'none'); omit it")
        return [], [], []
    n = rules.draft_piles
    piles = [_cards(x, f"draft_piles[{j}]", names)
             for j, x in enumerate(_list(d.get("draft_piles", [[] for _ in range(n)]), "draft_piles", n))]
    for j, pile in enumerate(piles):
        if len(pile) > rules.draft_pile_size:
            raise _fail(f"draft_piles[{j}]", f"holds {len(pile)} cards; at most draft_pile_size = "
                        f"{rules.draft_pile_size}")
    down = [False] * n
    for i, j in enumerate(_list(d.get("draft_down", []), "draft_down")):
        j = _int(j, f"draft_down[{i}]", 0, n - 1)
        if down[j]:
            raise _fail(f"draft_down[{i}]", f"lists pile {j} twice; each pile at most once")
        down[j] = True
    first_action = rules.deck.n_assets + rules.deck.n_wilds
    for j, pile in enumerate(piles):
        if pile and not down[j] and pile[-1] >= first_action:
            raise _fail(f"draft_piles[{j}][{len(pile) - 1}]", f"{names[pile[-1]]!r} lies face up on top of pile {j}; "
                        "an action card turned up is carried out at once and leaves the game (R-2P-DRAFT): list it "
                        f"under 'removed', or give pile {j} in 'draft_down' (its top not turned up yet)")
    offer = _seat_list(d.get("draft_offer", []), "draft_offer", p)
    if current in offer:
        raise _fail("draft_offer", f"names seat {current}, the player to move; only a neighbour of the pile may "
                    "challenge a drafted set (R-2P-DRAFT, R-3P-DRAFT)")
    return piles, down, offer


def _draft_move_from_dict(d: dict, p: int, rules: RuleSet, down: list[bool]) -> tuple[list[int], list[int]]:
    """([chooser, target], draw order) of a Move turned up on a draft pile waiting for its choice; ([], [])."""
    v = d.get("draft_move")
    if v is None:
        return [], []
    if rules.draft == "none" or rules.advanced_ids.move < 0:
        raise _fail("draft_move", f"rules {rules.name!r} do not draft with Move cards; omit it")
    m = _check_fields(v, "draft_move", _DRAFT_MOVE_FIELDS, ("chooser", "target"))
    chooser, target = _seat(m["chooser"], "draft_move.chooser", p), _seat(m["target"], "draft_move.target", p)
    if chooser == target:
        raise _fail("draft_move.chooser", f"is the target, seat {target}; the other player beside the pile chooses "
                    "(R-2P-DRAFT, R-3P-DRAFT)")
    if not any(down):
        raise _fail("draft_move", "no pile is being turned up ('draft_down' is empty); the Move was turned up on "
                    "one of them")
    then = _seat_list(m.get("then", []), "draft_move.then", p)
    return [chooser, target], then


def _challenge_from_dict(v: Any, p: int, rules: RuleSet, stacks: list[list[CardSet]], current: int) -> Challenge:
    """A challenge in progress (R-CH-ALLOWED, R-CH-EXCHANGE), checked against the stacks."""
    deck = rules.deck
    names = deck.names
    d = _check_fields(v, "challenge", _CHALLENGE_FIELDS, ("challenger", "defender", "cards", "players"))
    challenger = _seat(d["challenger"], "challenge.challenger", p)
    defender = _seat(d["defender"], "challenge.defender", p)
    drafted = rules.draft != "none" and defender == current and challenger != current and stacks[defender]
    if drafted:  # the immediate challenge of a drafted set: R-CH-ALLOWED's exception (R-2P-DRAFT)
        pass
    elif challenger != current:
        raise _fail("challenge.challenger", f"is seat {challenger}; the challenger is the player whose turn it is, "
                    f"current_player = {current} (R-CHALLENGE)")
    if defender == challenger:
        raise _fail("challenge.defender", f"is the challenger, seat {challenger}; allowed: another seat")
    if drafted:
        pass
    elif len(stacks[challenger]) < 1:
        raise _fail("challenge.challenger", f"seat {challenger} has no set; a challenger needs at least one "
                    "(R-CH-ALLOWED)")
    depth = _int(d.get("depth", 0), "challenge.depth", 0, 1 if rules.advanced_actions else 0)
    if len(stacks[defender]) < 2 + depth and not drafted:  # a drafted set may be the defender's only one (§7)
        need = "two (R-CH-ALLOWED)" if depth == 0 else "three for a deep challenge (R-ADV-DEEP)"
        raise _fail("challenge.defender", f"seat {defender} has {len(stacks[defender])} set(s); a challenge needs a "
                    f"target with at least {need}")
    asset = stacks[defender][-1 - depth].asset
    if "asset" in d:
        a = _card(d["asset"], "challenge.asset", names)
        if a != asset:
            raise _fail("challenge.asset", f"is {names[a]!r}; the defender's top set is {names[asset]!r}")
    cards = _cards(d["cards"], "challenge.cards", names)
    if not cards:
        raise _fail("challenge.cards", "is empty; a challenge opens with one card (R-CH-EXCHANGE)")
    wilds = names[deck.n_assets:deck.n_assets + deck.n_wilds]
    for i, c in enumerate(cards):
        if c != asset and names[c] not in wilds:
            raise _fail(f"challenge.cards[{i}]", f"{names[c]!r} does not match the contested set; allowed: "
                        f"{names[asset]!r} or a wild ({', '.join(wilds)})")
    players = _list(d["players"], "challenge.players", len(cards))
    pay_two = rules.advanced_actions or rules.advanced_ids.penny >= 0
    run, want = 0, challenger
    for i, s in enumerate(players):
        s = _seat(s, f"challenge.players[{i}]", p)
        if s != want and run > 0 and s in (challenger, defender):
            want, run = s, 0
        run += 1
        if s != want or run > (2 if pay_two else 1):
            if not pay_two:
                want = challenger if i % 2 == 0 else defender
            how = "one or two cards a play (R-ADV-PENNY, R-ADV-DEEP)" if pay_two else f"so it must be seat {want}"
            raise _fail(f"challenge.players[{i}]", f"is seat {s}; the two sides alternate starting with the "
                        f"challenger, {how} (R-CH-EXCHANGE)")
    expected = defender if players[-1] == challenger else challenger
    to_act = _seat(d.get("to_act", expected), "challenge.to_act", p)
    if to_act != expected:
        raise _fail("challenge.to_act", f"is seat {to_act}; after seat {players[-1]} showed the last card, seat "
                    f"{expected} must answer or give up (R-CH-EXCHANGE)")
    owed = _int(d.get("owed", 1), "challenge.owed", 1, 2 if pay_two else 1)
    return Challenge(challenger, defender, asset, cards, list(players), to_act, depth, owed)


def loads(text: str) -> GameState:
    """The game state of a JSON position text.

    Raises:
        PositionError: not valid JSON, nested deeper than
            :data:`~cya_sim.game.jsontext.MAX_DEPTH`, a number of more than 4,300
            digits (:func:`~cya_sim.game.jsontext.load_json`), or any check of
            :func:`state_from_dict`.
    """
    try:
        d = load_json(text)
    except JsonTextError as e:
        raise PositionError(f"position: {e}") from None
    return state_from_dict(d)


def load_position(path: str | Path) -> GameState:
    """The game state of a JSON position file.

    Raises:
        PositionError: unreadable file (the message names the path), not UTF-8,
            bad JSON, or any check of :func:`state_from_dict`.
    """
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as e:
        raise PositionError(f"position file {str(path)!r}: cannot read it ({e.strerror or e})") from None
    except UnicodeDecodeError as e:
        raise PositionError(f"position file {str(path)!r}: not UTF-8 text (byte {e.start}); save it as UTF-8") from None
    try:
        return loads(text)
    except PositionError as e:
        raise PositionError(f"{path.name}: {e}") from None
