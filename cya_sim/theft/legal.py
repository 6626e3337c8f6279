"""The legal action mask of a theft game state (RULES.md §9, R-T-SETUP, R-T-TURN)."""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from cya_sim.theft.actions import TheftActionSpace
from cya_sim.theft.rules import TheftRuleSet
from cya_sim.theft.state import DEFENCE, DISCARD, PLAY, SETUP, TheftState


@lru_cache(maxsize=64)
def action_space(rules: TheftRuleSet) -> TheftActionSpace:
    """The (cached) action space of ``rules``."""
    return TheftActionSpace.for_rules(rules)


def holds_pair(hand: list[int], a: int, b: int) -> bool:
    """Whether ``hand`` (T counts) holds cards ``a`` and ``b`` (two copies when ``a == b``)."""
    return hand[a] >= 2 if a == b else hand[a] >= 1 and hand[b] >= 1


def pair_allowed(rules: TheftRuleSet, a: int, b: int) -> bool:
    """R-T-TURN: equal numbers or a number with a gold card; two gold cards only under ``gold_gold_pair``."""
    return not (a == b == rules.gold) or rules.gold_gold_pair


def theft_targets(state: TheftState, seat: int) -> list[tuple[int, int]]:
    """(target seat, asset slot) pairs ``seat`` may put a theft card on (R-T-TURN).

    Any asset of another player; under ``protect_last_asset`` not a player's only asset.
    """
    out = []
    p = state.n_players
    for off in range(1, p):
        target = (seat + off) % p
        n = len(state.assets[target])
        if state.rules.protect_last_asset and n == 1:
            continue
        out.extend((target, slot) for slot in range(n))
    return out


def cancel_assets(state: TheftState) -> list[int]:
    """Slots of the target's own assets that may cancel the pending theft (R-T-TURN).

    Under ``defend_with_asset``: any own asset (the targeted one only under
    ``defend_with_targeted_asset``); against a gold theft only an asset with a gold card.
    """
    r, th = state.rules, state.theft
    if not r.defend_with_asset:
        return []
    out = []
    for slot, a in enumerate(state.assets[th.target]):
        if slot == th.slot and not r.defend_with_targeted_asset:
            continue
        if th.card == r.gold_theft and r.gold not in a.cards:
            continue
        out.append(slot)
    return out


def legal_action_mask(state: TheftState) -> np.ndarray:
    """(A,) bool: the actions the seat to act may take now (R-T-SETUP, R-T-TURN).

    All False when the game is over.
    """
    r = state.rules
    sp = action_space(r)
    mask = np.zeros(sp.size, dtype=bool)
    seat = state.to_act
    if seat < 0:
        return mask
    hand = state.hands[seat]
    pairs = [i for i in range(2 * r.numbers + 1) if pair_allowed(r, *sp.pair_cards(i))
             and holds_pair(hand, *sp.pair_cards(i))]
    if state.phase == SETUP:
        for d in range(r.n_asset_types):
            for u in range(r.n_asset_types):
                if holds_pair(hand, d, u):
                    mask[sp.first_asset(d, u)] = True
    elif state.phase == PLAY:
        for i in pairs:
            mask[sp.start["build"] + i] = True
        if r.max_thefts_per_turn == 0 or state.thefts_this_turn < r.max_thefts_per_turn:
            for card, gold in ((r.theft, False), (r.gold_theft, True)):
                if hand[card] > 0:
                    for target, slot in theft_targets(state, seat):
                        mask[sp.theft(gold, (target - seat) % state.n_players, slot)] = True
        mask[sp.end_turn] = True
    elif state.phase == DISCARD:
        for c in range(r.n_types):
            if hand[c] > 0:
                mask[sp.discard(c)] = True
    elif state.phase == DEFENCE:
        gold_theft = state.theft.card == r.gold_theft
        for i in pairs:
            if not gold_theft or r.gold in sp.pair_cards(i):
                mask[sp.start["cancel_pair"] + i] = True
        for slot in cancel_assets(state):
            mask[sp.give_up_asset(slot)] = True
        mask[sp.let_pass] = True
    return mask
