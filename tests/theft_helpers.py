"""Helpers for the theft game's tests: small JSON positions and readable actions (RULES.md §9).

:func:`tposition` takes only the cards that matter and puts every other card
of the deck at the bottom of the discard pile (``rest="discard"``, default) or
of the draw pile (``rest="draw"``), so a test names only what it is about.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from cya_sim.engine.theft.legal import action_space, legal_action_mask
from cya_sim.engine.theft.reference import apply_action
from cya_sim.game.theft.position import FORMAT, VERSION, state_from_dict
from cya_sim.game.theft.rules import TheftRuleSet
from cya_sim.game.theft.state import TheftState


def asset(*cards: str, known_by: list[list[int]] | None = None) -> dict[str, Any]:
    """An asset entry: ``asset("7", "7")`` (cards as laid)."""
    d: dict[str, Any] = {"cards": list(cards)}
    if known_by is not None:
        d["known_by"] = known_by
    return d


def tposition(players: int = 3, hands: list[list[str]] | None = None, assets: list[list[dict]] | None = None,
              draw_pile: list[str] | None = None, discard_pile: list[str] | None = None, phase: str = "play",
              current_player: int = 0, options: dict[str, Any] | None = None, rest: str = "discard",
              **fields: Any) -> dict[str, Any]:
    """A complete theft position dict; the cards not named go where ``rest`` says."""
    rules = TheftRuleSet().with_options(**(options or {}))
    names = rules.card_names
    hands = hands if hands is not None else [[] for _ in range(players)]
    assets = assets if assets is not None else [[] for _ in range(players)]
    draw_pile = list(draw_pile or [])
    discard_pile = list(discard_pile or [])
    used = np.zeros(rules.n_types, dtype=np.int64)
    named = [c for h in hands for c in h] + draw_pile + discard_pile
    named += [c for row in assets for a in row for c in a["cards"]]
    if fields.get("theft"):
        named.append(fields["theft"]["card"])
    for c in named:
        used[names.index(c)] += 1
    left = rules.counts - used
    assert (left >= 0).all(), f"test position uses too many cards: {dict(zip(names, left))}"
    rest_cards = [names[t] for t, n in enumerate(left) for _ in range(int(n))]
    if rest == "discard":
        discard_pile = rest_cards + discard_pile
    else:
        draw_pile = draw_pile + rest_cards
    d = {"format": FORMAT, "version": VERSION, "rules": {"preset": "theft", "options": dict(options or {})},
         "players": players, "phase": phase, "current_player": current_player, "hands": hands,
         "draw_pile": draw_pile, "discard_pile": discard_pile, "assets": assets}
    d.update(fields)
    return d


def tstate(**kw: Any) -> TheftState:
    """The state of :func:`tposition` ``(**kw)``."""
    return state_from_dict(tposition(**kw))


def tact(state: TheftState, *names: str, log=None) -> TheftState:
    """Apply the named actions in order (each must be legal); returns ``state``."""
    sp = action_space(state.rules)
    all_names = sp.names()
    for name in names:
        apply_action(state, all_names.index(name), log)
    return state


def tlegal(state: TheftState) -> list[str]:
    """Names of the legal actions of the seat to act, in id order."""
    sp = action_space(state.rules)
    return [sp.name(a) for a in np.flatnonzero(legal_action_mask(state))]


def thand(state: TheftState, seat: int) -> list[str]:
    """Card names in ``seat``'s hand, in card-type order."""
    names = state.rules.card_names
    return [names[t] for t, n in enumerate(state.hands[seat]) for _ in range(n)]


def tassets(state: TheftState, seat: int) -> list[list[str]]:
    """``seat``'s assets as lists of card names, oldest first."""
    names = state.rules.card_names
    return [[names[c] for c in a.cards] for a in state.assets[seat]]


def tnames(state: TheftState, cards: list[int]) -> list[str]:
    """Card names of card ids."""
    return [state.rules.card_names[c] for c in cards]
