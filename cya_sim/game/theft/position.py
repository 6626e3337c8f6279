"""Theft game positions as JSON: write a :class:`~cya_sim.game.theft.state.TheftState` out, read it back.

A position is the whole state of one theft game (RULES.md §9), hidden
information included: tests build exact situations from it; users report bugs
with it. Reading refuses a malformed or impossible position with a
:class:`TheftPositionError` whose message starts with the JSON path of the
offending field (``assets[2][0].cards[1]``) and says what is allowed.

The document (``version`` 1); fields marked *optional* may be omitted::

    {
      "format": "cya-sim-theft-position",   # required, exactly this tag
      "version": 1,                          # required
      "rules": {"preset": "theft", "options": {"max_thefts_per_turn": 1}},  # options optional
      "players": 4,                          # table size P
      "phase": "play",                       # setup | play | defence | discard | over
      "current_player": 1,                   # whose turn it is (in setup: the seat laying)
      "first_player": 0,                     # optional (current_player)
      "hands": [["3", "3", "Gold", "Theft"], ...],   # card names per seat
      "draw_pile": ["7", ...],               # top first
      "discard_pile": ["2", ...],            # top last
      "assets": [[{"cards": ["4", "9"],      # per seat, oldest first; two cards each, as laid
                   "known_by": [[0], [0, 1, 2, 3]]}],  # optional (public): seats knowing each card
                 ...],
      "theft": null | {"thief": 1, "target": 2, "slot": 0, "card": "Theft"},  # required in defence
      "thefts_this_turn": 0,                 # optional (0)
      "final_turns_left": null | 2,          # optional (null)
      "trigger_seat": -1,                    # optional (-1)
      "winners": null | [2],                 # optional (null); required when phase is over
      "capped": false,                       # optional (false)
      "counters": {"turns": 0, "thefts": 0, "cancelled": 0, "decisions": 0, "largest_steal": 0},  # optional
      "rng": {"seed": 7} | {"state": "...", "inc": "...", "has_uint32": 0, "uinteger": 0}  # optional
    }

Checked: the tag and version, unknown fields, JSON types, the preset and
options, seats in range, card names, that every card type adds up exactly to
the deck (R-T-DECK), assets of exactly two asset cards (numbers or gold), a
pending theft exactly in the defence phase, on an existing asset of another
seat, winners exactly when the game is over, numbers within what a game can
reach (turns at most ``max_turns``; thefts this turn at most
``max_thefts_per_turn``, or every theft card; ``largest_steal`` at most an
asset of two of the highest cards; other counters within 32 and 64 bits; an RNG
seed from 0 to 2**63 - 1, a PCG64 state of 128-bit decimal strings), and the
text (JSON nested at most 64 levels, no number of more than 4,300 digits).
Refused as states the rules cannot reach (each would leave a game that never
ends or a seat to act with no legal action): in phase over, winners empty,
repeated or not the seats of the highest total (R-T-END); ``capped`` outside
phase over or before ``max_turns``; ``final_turns_left`` and ``trigger_seat``
not set together; in setup, a final-turn count, counted turns or thefts, a
current player that already has an asset or holds fewer than two asset cards
(R-T-SETUP); ``final_turns_left = 0`` before the game is over (R-T-END); a
discard phase under ``end_of_turn = keep`` or with a mover holding no more than
``hand_limit`` cards (R-T-TURN).
Not checked otherwise: whether play can reach it.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from cya_sim.errors import UserInputError
from cya_sim.game.errors import RulesError
from cya_sim.game.jsontext import JsonTextError, field_name, load_json, show
from cya_sim.game.limits import MAX_COUNT, MAX_DECISIONS, MAX_SEED
from cya_sim.game.rng import root_key, stream_generator
from cya_sim.game.theft.rules import PRESETS, TheftRuleSet
from cya_sim.game.theft.state import DEFENCE, DISCARD, OVER, PHASES, SETUP, Asset, PendingTheft, TheftState

FORMAT = "cya-sim-theft-position"
VERSION = 1
_TOP = ("format", "version", "rules", "players", "phase", "current_player", "first_player", "hands", "draw_pile",
        "discard_pile", "assets", "theft", "thefts_this_turn", "final_turns_left", "trigger_seat", "winners",
        "capped", "counters", "rng")
_REQUIRED = ("format", "version", "rules", "players", "phase", "current_player", "hands", "draw_pile",
             "discard_pile", "assets")
_COUNTERS = ("turns", "thefts", "cancelled", "decisions", "largest_steal")


class TheftPositionError(ValueError, UserInputError):
    """A theft position is malformed or impossible; the message starts with the field's JSON path."""


def _fail(path: str, msg: str) -> TheftPositionError:
    return TheftPositionError(f"{path}: {msg}")


# -- writing -----------------------------------------------------------------------------
def state_to_dict(state: TheftState) -> dict[str, Any]:
    """The position of ``state`` as a JSON-ready dict (every field, ``known_by`` and the RNG included)."""
    r = state.rules
    names = r.card_names
    p = state.n_players
    base = PRESETS["theft"]
    options = {k: v for k, v in r.to_dict().items() if k not in ("name", "family") and v != getattr(base, k)}
    rng = None
    if state.rng is not None:
        st = state.rng.bit_generator.state
        rng = {"state": str(int(st["state"]["state"])), "inc": str(int(st["state"]["inc"])),
               "has_uint32": int(st["has_uint32"]), "uinteger": int(st["uinteger"])}
    th = state.theft
    return {
        "format": FORMAT, "version": VERSION,
        "rules": {"preset": "theft", "options": options},
        "players": p, "phase": state.phase, "current_player": state.current_player,
        "first_player": state.first_player,
        "hands": [[names[t] for t, n in enumerate(h) for _ in range(n)] for h in state.hands],
        "draw_pile": [names[c] for c in state.draw_pile],
        "discard_pile": [names[c] for c in state.discard_pile],
        "assets": [[{"cards": [names[c] for c in a.cards],
                     "known_by": [[s for s in range(p) if k >> s & 1] for k in a.known_by]} for a in assets]
                   for assets in state.assets],
        "theft": None if th is None else {"thief": th.thief, "target": th.target, "slot": th.slot,
                                          "card": names[th.card]},
        "thefts_this_turn": state.thefts_this_turn, "final_turns_left": state.final_turns_left,
        "trigger_seat": state.trigger_seat,
        "winners": None if state.winners is None else list(state.winners),
        "capped": state.capped,
        "counters": {k: int(getattr(state, k)) for k in _COUNTERS},
        "rng": rng,
    }


def dumps(state: TheftState, indent: int | None = 1) -> str:
    """The position of ``state`` as JSON text."""
    return json.dumps(state_to_dict(state), indent=indent)


# -- reading -----------------------------------------------------------------------------
def _int(v: Any, path: str, lo: int | None = None, hi: int | None = None, why: str = "") -> int:
    """``v`` when it is an integer (not a bool) from ``lo`` to ``hi``; ``why`` names the bound's source."""
    if not isinstance(v, int) or isinstance(v, bool):
        raise _fail(path, f"expected an integer; got {show(v, python_str=True)}")
    if (lo is not None and v < lo) or (hi is not None and v > hi):
        allowed = f"an integer from {lo} to {hi:,}" if hi is not None else f"an integer >= {lo}"
        raise _fail(path, f"is {show(v)}; allowed: {allowed}" + (f" ({why})" if why else ""))
    return v


def _list(v: Any, path: str, length: int | None = None) -> list:
    if not isinstance(v, list):
        raise _fail(path, f"expected a list; got {type(v).__name__}")
    if length is not None and len(v) != length:
        raise _fail(path, f"has {len(v)} entries; expected {length}")
    return v


def _card(v: Any, path: str, names: tuple[str, ...]) -> int:
    if not isinstance(v, str) or v not in names:
        raise _fail(path, f"unknown card {show(v, python_str=True)}; this deck has: {', '.join(names)}")
    return names.index(v)


def _fields(d: Any, path: str, allowed: tuple[str, ...], required: tuple[str, ...] = ()) -> dict:
    if not isinstance(d, dict):
        raise _fail(path, f"expected an object with fields {', '.join(allowed)}")
    for k in d:
        if k not in allowed:
            name = field_name(k)
            raise _fail(name if path == "position" else f"{path}.{name}", f"unknown field; allowed: {', '.join(allowed)}")
    for k in required:
        if k not in d:
            raise _fail(k if path == "position" else f"{path}.{k}", "missing; it is required")
    return d


def _rules(d: Any) -> TheftRuleSet:
    d = _fields(d, "rules", ("preset", "options", "name"), ("preset",))
    if not isinstance(d["preset"], str) or d["preset"] not in PRESETS:
        raise _fail("rules.preset", f"unknown theft preset {show(d['preset'], python_str=True)}; choose one of: "
                    f"{', '.join(PRESETS)}")
    options = d.get("options", {})
    if not isinstance(options, dict):
        raise _fail("rules.options", "expected an object of option -> value")
    try:
        return PRESETS[d["preset"]].with_options(**options) if options else PRESETS[d["preset"]]
    except (RulesError, TypeError, ValueError, OverflowError) as e:
        raise _fail("rules.options", " ".join(str(e).split())[:300]) from None


def state_from_dict(d: Any) -> TheftState:
    """A :class:`TheftState` from a position dict (see the module docstring).

    Raises:
        TheftPositionError: the first problem found, with its JSON path.
    """
    d = _fields(d, "position", _TOP, _REQUIRED)
    if d["format"] != FORMAT:
        raise _fail("format", f"is {show(d['format'], python_str=True)}; expected {FORMAT!r}")
    if d["version"] != VERSION or isinstance(d["version"], bool):
        raise _fail("version", f"is {show(d['version'], python_str=True)}; this reader knows version {VERSION}")
    r = _rules(d["rules"])
    p = _int(d["players"], "players", r.min_players, r.max_players)
    names = r.card_names
    if not isinstance(d["phase"], str) or d["phase"] not in PHASES:
        raise _fail("phase", f"is {show(d['phase'], python_str=True)}; choose one of: {', '.join(PHASES)}")
    phase = d["phase"]
    cur = _int(d["current_player"], "current_player", 0, p - 1)
    first = _int(d.get("first_player", cur), "first_player", 0, p - 1)
    counts = np.zeros(r.n_types, dtype=np.int64)
    hands = []
    for s, h in enumerate(_list(d["hands"], "hands", p)):
        row = [0] * r.n_types
        for i, c in enumerate(_list(h, f"hands[{s}]")):
            row[_card(c, f"hands[{s}][{i}]", names)] += 1
        hands.append(row)
        counts += row
    piles = {}
    for key in ("draw_pile", "discard_pile"):
        piles[key] = [_card(c, f"{key}[{i}]", names) for i, c in enumerate(_list(d[key], key))]
        for c in piles[key]:
            counts[c] += 1
    full = (1 << p) - 1
    assets = []
    for s, row in enumerate(_list(d["assets"], "assets", p)):
        out = []
        for j, a in enumerate(_list(row, f"assets[{s}]")):
            path = f"assets[{s}][{j}]"
            a = _fields(a, path, ("cards", "known_by"), ("cards",))
            cards = [_card(c, f"{path}.cards[{i}]", names) for i, c in enumerate(_list(a["cards"], f"{path}.cards", 2))]
            for i, c in enumerate(cards):
                if c >= r.n_asset_types:
                    raise _fail(f"{path}.cards[{i}]", f"{names[c]!r} cannot lie in an asset; numbers or Gold only")
                counts[c] += 1
            known = [full, full]
            if "known_by" in a:
                kb = _list(a["known_by"], f"{path}.known_by", 2)
                known = []
                for i, seats in enumerate(kb):
                    m = 0
                    for k, x in enumerate(_list(seats, f"{path}.known_by[{i}]")):
                        m |= 1 << _int(x, f"{path}.known_by[{i}][{k}]", 0, p - 1)
                    if not m >> s & 1:
                        raise _fail(f"{path}.known_by[{i}]", f"the owner, seat {s}, must know its own asset's cards")
                    known.append(m)
            out.append(Asset(cards, known))
        assets.append(out)
    theft = None
    if d.get("theft") is not None:
        t = _fields(d["theft"], "theft", ("thief", "target", "slot", "card"), ("thief", "target", "slot", "card"))
        thief = _int(t["thief"], "theft.thief", 0, p - 1)
        target = _int(t["target"], "theft.target", 0, p - 1)
        if target == thief:
            raise _fail("theft.target", "a theft targets another player's asset")
        slot = _int(t["slot"], "theft.slot", 0, max(0, len(assets[target]) - 1))
        if not assets[target]:
            raise _fail("theft.slot", f"seat {target} has no asset")
        card = _card(t["card"], "theft.card", names)
        if card not in (r.theft, r.gold_theft):
            raise _fail("theft.card", "must be 'Theft' or 'Gold Theft'")
        counts[card] += 1
        theft = PendingTheft(thief, target, slot, card)
    if (theft is not None) != (phase == DEFENCE):
        raise _fail("theft", "a pending theft is given exactly in the defence phase")
    if theft is not None and theft.thief != cur:
        raise _fail("theft.thief", f"is seat {theft.thief}; the thief is the current player, seat {cur}")
    bad = np.flatnonzero(counts != r.counts)
    if bad.size:
        c = int(bad[0])
        raise _fail("position", f"{int(counts[c])} cards {names[c]!r} in play; the deck has {int(r.counts[c])} "
                                "(R-T-DECK: every card is in a hand, a pile, an asset or the pending theft)")
    winners = d.get("winners")
    if winners is not None:
        winners = [_int(x, f"winners[{i}]", 0, p - 1) for i, x in enumerate(_list(winners, "winners"))]
    if (winners is not None) != (phase == OVER):
        raise _fail("winners", "winners are given exactly when the phase is over")
    counters = _fields(d.get("counters", {}), "counters", _COUNTERS)
    # Bounds of play: the game stops after max_turns turns (a safeguard); an asset is two cards (R-T-SETUP);
    # within one turn at most max_thefts_per_turn thefts, or every theft card of the deck (R-T-TURN).
    most = {"turns": (r.max_turns, "option max_turns: the game stops after that turn"),
            "thefts": (MAX_COUNT, "a 32-bit count"), "cancelled": (MAX_COUNT, "a 32-bit count"),
            "decisions": (MAX_DECISIONS, "a 64-bit integer"),
            "largest_steal": (2 * int(r.values.max()), "an asset is two cards, R-T-SETUP")}
    per_turn = r.max_thefts_per_turn or r.plain_thefts + r.gold_thefts
    ftl = d.get("final_turns_left")
    capped = d.get("capped", False)
    if not isinstance(capped, bool):
        raise _fail("capped", "expected true or false")
    state = TheftState(
        rules=r, n_players=p, hands=hands, draw_pile=piles["draw_pile"], discard_pile=piles["discard_pile"],
        assets=assets, phase=phase, current_player=cur, first_player=first, theft=theft,
        thefts_this_turn=_int(d.get("thefts_this_turn", 0), "thefts_this_turn", 0, per_turn,
                              "option max_thefts_per_turn, or every theft card of the deck (R-T-TURN)"),
        final_turns_left=None if ftl is None else _int(ftl, "final_turns_left", 0, p - 1),
        trigger_seat=_int(d.get("trigger_seat", -1), "trigger_seat", -1, p - 1),
        winners=winners, capped=capped,
        **{k: _int(counters.get(k, 0), f"counters.{k}", 0, *most[k]) for k in _COUNTERS},
        rng=_rng(d.get("rng")),
    )
    _check_reachable(state)
    return state


def _check_reachable(state: TheftState) -> None:
    """Refuse what the rules cannot reach, above all a game not over in which the seat to act has no legal action.

    The legal mask lives above this layer (:mod:`cya_sim.engine.theft.legal`); these are the conditions it needs,
    checked here field by field, and ``tests/test_fuzz_inputs.py`` holds the reader to "accepted and not over
    implies a legal action exists" on mutated positions.
    """
    r, p, phase, cur = state.rules, state.n_players, state.phase, state.current_player
    ftl, trig = state.final_turns_left, state.trigger_seat
    if phase == OVER:
        w = state.winners
        if not w:
            raise _fail("winners", "is empty; a game over has at least one winner (R-T-END: ties share the win)")
        if len(set(w)) != len(w):
            raise _fail("winners", f"lists a seat twice ({w}); each seat at most once")
        scores = state.scores()
        best = [s for s, v in enumerate(scores) if v == max(scores)]
        if sorted(w) != best:
            raise _fail("winners", f"is {w}; R-T-END: the highest total of asset values wins, ties share the win: "
                        f"seats {best} (points {', '.join(map(str, scores))})")
    if state.capped and phase != OVER:
        raise _fail("capped", f"is true in phase {phase}; the turn cap ends the game (phase over)")
    if state.capped and state.turns != r.max_turns:
        raise _fail("capped", f"is true after {state.turns} turns; the game stops at max_turns = {r.max_turns}")
    if (ftl is None) != (trig == -1):
        raise _fail("trigger_seat", f"is {trig} with final_turns_left = {'null' if ftl is None else ftl}; both are "
                    "set together when R-T-END triggers (a seat from 0 and 1 or more turns), else -1 and null")
    if phase == SETUP:
        if ftl is not None:
            raise _fail("final_turns_left", f"is {ftl} in phase setup; R-T-END triggers only at the end of a turn: "
                        "allowed: null")
        if state.turns or state.thefts_this_turn:
            which = "counters.turns" if state.turns else "thefts_this_turn"
            raise _fail(which, "is not 0 in phase setup; turns start after every first asset is laid (R-T-SETUP)")
        if state.assets[cur]:
            raise _fail(f"assets[{cur}]", f"seat {cur} lays its first asset now (phase setup) and has none yet; "
                        "allowed: []")
        if sum(state.hands[cur][: r.n_asset_types]) < 2:
            raise _fail(f"hands[{cur}]", f"seat {cur} holds fewer than two asset cards in phase setup; such a seat lays no "
                        "first asset and is skipped (R-T-SETUP): it would have no legal action")
    elif phase != OVER and ftl == 0:
        raise _fail("final_turns_left", f"is 0 in phase {phase}; the game ends when it reaches 0, so it would never "
                    f"end (R-T-END): allowed: null or 1 to {p - 1}")
    if phase == DISCARD:
        held = state.hand_count(cur)
        if r.end_of_turn == "keep":
            raise _fail("phase", "is discard under end_of_turn = 'keep'; no discarding at the end of a turn "
                        "(R-T-TURN): allowed: setup, play, defence, over")
        if held <= r.hand_limit:
            raise _fail("phase", f"is discard, but seat {cur} holds {held} card(s); the discard phase is entered only "
                        f"with more than hand_limit = {r.hand_limit} (R-T-TURN): seat {cur} would have no legal "
                        "action")


def _rng(v: Any) -> np.random.Generator:
    """The engine's PCG64 stream: ``{"seed": s}`` (0 to 2**63 - 1) or its state, 128-bit decimal strings."""
    if v is None:
        v = {"seed": 0}
    if isinstance(v, dict) and set(v) == {"seed"}:
        return stream_generator(root_key(_int(v["seed"], "rng.seed", 0, MAX_SEED, "a tournament seed")), 0, 0)
    v = _fields(v, "rng", ("state", "inc", "has_uint32", "uinteger"), ("state", "inc"))
    vals = {}
    for k in ("state", "inc"):
        x = v[k]
        if not isinstance(x, str) or not (x.isascii() and x.isdigit()):
            raise _fail(f"rng.{k}", f"expected a decimal string of a 128-bit integer; got {show(x, python_str=True)}")
        if len(x) > 39 or int(x) >= 1 << 128:
            raise _fail(f"rng.{k}", "is out of range; allowed: 0 to 2**128 - 1")
        vals[k] = int(x)
    if vals["inc"] % 2 == 0:
        raise _fail("rng.inc", "is even; a PCG64 increment is odd")
    bg = np.random.PCG64()
    bg.state = {"bit_generator": "PCG64", "state": vals,
                "has_uint32": _int(v.get("has_uint32", 0), "rng.has_uint32", 0, 1),
                "uinteger": _int(v.get("uinteger", 0), "rng.uinteger", 0, (1 << 32) - 1)}
    return np.random.Generator(bg)


def loads(text: str) -> TheftState:
    """A :class:`TheftState` from JSON text.

    Raises:
        TheftPositionError: invalid JSON, JSON nested deeper than
            :data:`~cya_sim.game.jsontext.MAX_DEPTH` or a number of more than 4,300
            digits (:func:`~cya_sim.game.jsontext.load_json`), or an invalid position.
    """
    try:
        d = load_json(text)
    except JsonTextError as e:
        raise _fail("position", str(e)) from None
    return state_from_dict(d)
