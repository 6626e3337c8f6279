"""Shared helpers for the rule-by-rule tests: small JSON positions and readable actions.

Positions are written as dicts in the :mod:`cya_sim.game.classic.position` format. Writing
all 110 cards by hand would hide what a test is about, so :func:`position`
takes only the cards that matter and puts every other card of the deck in
play, in card-type order, at the bottom of the discard pile (``rest="discard"``,
the default: the top discard card stays the one the test gives) or at the
bottom of the draw pile (``rest="draw"``) or in a set at the bottom of a
seat's stack (``rest=("stack", seat)``: one set per asset type).
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from cya_sim.engine.classic.reference import apply_action, legal_action_mask
from cya_sim.engine.classic.reference.legal import action_space
from cya_sim.game.classic.position import FORMAT, VERSION, state_from_dict
from cya_sim.game.classic.state import GameState
from cya_sim.game.rules import get_rules

POSITIONS = Path(__file__).parent / "positions"
#: The project's own rules specification and tip list (at the repository's root).
RULES_MD = Path(__file__).resolve().parents[1] / "RULES.md"
TIPS_MD = Path(__file__).resolve().parents[1] / "TIPS.md"
#: The copies the project was started from, beside the repository when present (a clone has none); the tests
#: that compare with them skip, naming the path, when they are absent.
SHARED_RULES_MD = Path(__file__).resolve().parents[2] / "shared" / "RULES.md"
SHARED_TIPS_MD = Path(__file__).resolve().parents[2] / "shared" / "TIPS.md"

# Card names of the 2011 deck (R-DECK-2011), short for tests.
PIGGY = "Piggy Bank"
BASEBALL = "Baseball Cards"
STAMPS = "Stamp Collection"
CASH = "Cash Under the Mattress"
BANK = "Bank Account"
COINS = "Coin Collection"
STOCKS = "Stocks"
JEWELS = "Jewels"
AUTO = "Classic Auto"
HOME = "Home"
SILVER = "Silver"
GOLD = "Gold"
PENNY = "Penny Jar"
SWAP = "Swap"
MOVE = "Move"


def cset(asset: str, *cards: str, known_by: list[list[int]] | None = None) -> dict[str, Any]:
    """A set entry of a position: ``cset(JEWELS, GOLD, JEWELS)`` (cards as laid, top last)."""
    d: dict[str, Any] = {"asset": asset, "cards": list(cards)}
    if known_by is not None:
        d["known_by"] = known_by
    return d


def position(
    players: int = 2,
    hands: list[list[str]] | None = None,
    stacks: list[list[dict]] | None = None,
    draw_pile: list[str] | None = None,
    discard_pile: list[str] | None = None,
    current_player: int = 0,
    preset: str = "classic",
    options: dict[str, Any] | None = None,
    rest: Any = "discard",
    **fields: Any,
) -> dict[str, Any]:
    """A complete position dict; the cards not named go where ``rest`` says (module docstring).

    ``fields`` are any other top-level fields of the format (``totals``,
    ``challenge``, ``round``, ``dealer``, ...).
    """
    rules = get_rules(preset, **(options or {}))
    names = rules.deck.names
    hands = hands if hands is not None else [[] for _ in range(players)]
    stacks = stacks if stacks is not None else [[] for _ in range(players)]
    stacks = [list(s) for s in stacks]
    draw_pile = list(draw_pile or [])
    discard_pile = list(discard_pile or [])
    used = np.zeros(len(names), dtype=np.int64)
    for card in [c for h in hands for c in h] + draw_pile + discard_pile:
        used[names.index(card)] += 1
    for st in stacks:
        for s in st:
            for card in s["cards"]:
                used[names.index(card)] += 1
    for card in (fields.get("challenge") or {}).get("cards", []) + fields.get("removed", []):
        used[names.index(card)] += 1
    for pile in fields.get("draft_piles") or []:
        for card in pile:
            used[names.index(card)] += 1
    left = rules.deck_counts(players) - used
    assert (left >= 0).all(), f"test position uses too many cards: {dict(zip(names, left))}"
    first_action = rules.deck.n_assets + rules.deck.n_wilds  # action cards not named: out of the game (§6)
    if first_action < len(names):
        fields["removed"] = list(fields.get("removed", [])) + [
            names[t] for t in range(first_action, len(names)) for _ in range(int(left[t]))]
        left[first_action:] = 0
    rest_cards = [names[t] for t, n in enumerate(left) for _ in range(int(n))]
    if rest == "discard":
        discard_pile = rest_cards + discard_pile
    elif rest == "draw":
        draw_pile = draw_pile + rest_cards
    else:
        kind, seat = rest
        assert kind == "stack"
        n_assets = rules.deck.n_assets
        wilds = [c for c in rest_cards if names.index(c) >= n_assets]  # no action card is left here
        bottom = []
        for a in range(n_assets):
            cards = [c for c in rest_cards if c == names[a]]
            if a == 0:
                cards = wilds + cards
            if cards:
                bottom.append(cset(names[a], *cards))
        stacks[seat] = bottom + stacks[seat]
    d = {
        "format": FORMAT,
        "version": VERSION,
        "rules": {"preset": preset, "options": dict(options or {})},
        "players": players,
        "current_player": current_player,
        "hands": hands,
        "draw_pile": draw_pile,
        "discard_pile": discard_pile,
        "stacks": stacks,
    }
    d.update(fields)
    return d


def state_of(**kw: Any) -> GameState:
    """The game state of :func:`position` ``(**kw)``."""
    return state_from_dict(position(**kw))


def action_id(state: GameState, name: str) -> int:
    """The id of the action named ``name`` (e.g. ``"pair_hand:Jewels+Gold"``)."""
    return action_space(state.rules).names().index(name)


def act(state: GameState, *names: str) -> GameState:
    """Apply the named actions in order (each must be legal); returns ``state``."""
    for name in names:
        apply_action(state, action_id(state, name))
    return state


def legal(state: GameState) -> list[str]:
    """Names of the legal actions of the seat to act, in id order."""
    sp = action_space(state.rules)
    return [sp.name(a) for a in np.flatnonzero(legal_action_mask(state))]


def hand(state: GameState, seat: int) -> list[str]:
    """Card names in ``seat``'s hand, in card-type order."""
    names = state.rules.deck.names
    return [names[t] for t, n in enumerate(state.hands[seat]) for _ in range(n)]


def sets(state: GameState, seat: int) -> list[tuple[str, list[str]]]:
    """``seat``'s stack as (asset, cards) pairs, oldest first."""
    names = state.rules.deck.names
    return [(names[s.asset], [names[c] for c in s.cards]) for s in state.stacks[seat]]


def names_of(state: GameState, cards: list[int]) -> list[str]:
    """Card names of card ids."""
    return [state.rules.deck.names[c] for c in cards]


@pytest.fixture
def rules_classic():
    """The classic preset (R-PRESETS)."""
    return get_rules("classic")


@pytest.hookimpl(tryfirst=True)
def pytest_sessionstart(session):
    """One warm-up compile shared by the whole suite (issue 21), before ``pytest -n`` starts its workers.

    On a run of the whole suite (no file or folder named on the command line), the main pytest process
    compiles or loads every shared kernel once (:func:`cya_sim.runs.warmup.warm_up`: the play loop,
    the view policies, the search kernels, the reference agents' decision functions; two processes on
    two cores), so the workers only load numba's disk cache instead of compiling the same kernels side
    by side. ``CYA_TEST_WARMUP=0`` skips it, ``=1`` forces it.
    """
    config = session.config
    if hasattr(config, "workerinput"):
        return
    flag = os.environ.get("CYA_TEST_WARMUP")
    tests = (config.rootpath / "tests").resolve()
    whole = all(Path(config.rootpath, a).resolve() == tests for a in config.args)
    if flag == "0" or (flag != "1" and not whole):
        return
    from cya_sim.runs.warmup import warm_up

    rules = get_rules("classic")
    agents = ["greedy", "random", "card_counter", "heuristic", "oracle(cheats=true)", "ismcts"]
    t0 = time.perf_counter()
    batched = warm_up([rules], [4], agents, "batched")
    reference = warm_up([rules], [4], agents, "reference")
    compiled = batched.compiled + reference.compiled
    print(f"\ncya-sim test warm-up: {time.perf_counter() - t0:.1f} s"
          + (f" (compiled {', '.join(compiled)})" if compiled else " (all loaded from numba's disk cache)"))
