"""The legal action mask of a theft game state (RULES.md §9, R-T-SETUP, R-T-TURN)."""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from cya_sim.game.theft.actions import TheftActionSpace
from cya_sim.game.theft.rules import TheftRuleSet
from cya_sim.game.theft.state import DEFENCE, DISCARD, PLAY, SETUP, TheftState


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


def is_pair_asset(rules: TheftRuleSet, cards: list[int]) -> bool:
    """Whether an asset is itself a pair (R-T-TURN ``give_up_pair_only``): two cards, equal numbers or a
    number with a gold card (two gold cards only under ``gold_gold_pair``)."""
    if len(cards) != 2:
        return False
    a, b = sorted(cards)
    g = rules.gold
    return (a == b < g) or (a < g and b == g) or (a == b == g and rules.gold_gold_pair)


def cancel_assets(state: TheftState) -> list[int]:
    """Slots of the target's own assets that may cancel the pending theft (R-T-TURN).

    Under ``defend_with_asset``: any own asset (the targeted one only under
    ``defend_with_targeted_asset``; only an asset that is itself a pair under ``give_up_pair_only``);
    against a gold theft only an asset with a gold card.
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
        if r.give_up_pair_only and not is_pair_asset(r, a.cards):
            continue
        out.append(slot)
    return out


def cancel_pairs(state: TheftState, pairs: list[int]) -> list[int]:
    """The pair indices (of those the target holds) that cancel the pending theft from hand (R-T-TURN).

    Against a gold theft a pair must include a gold card (``gold_theft_cancel = pair_with_gold``; under
    ``single_gold`` no pair cancels it, one gold card does); under ``cancel_pair_value = target_value`` the
    pair's points must equal the targeted asset's.
    """
    r, th = state.rules, state.theft
    sp = action_space(r)
    gold_theft = th.card == r.gold_theft
    if gold_theft and r.gold_theft_cancel == "single_gold":
        return []
    target_points = state.assets[th.target][th.slot].value(r.values)
    out = []
    for i in pairs:
        cards = sp.pair_cards(i)
        if gold_theft and r.gold not in cards:
            continue
        if r.cancel_pair_value == "target_value" and int(r.values[cards[0]] + r.values[cards[1]]) != target_points:
            continue
        out.append(i)
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
        can_cancel = False
        for i in cancel_pairs(state, pairs):
            mask[sp.start["cancel_pair"] + i] = True
            can_cancel = True
        for slot in cancel_assets(state):
            mask[sp.give_up_asset(slot)] = True
            can_cancel = True
        if sp.single_gold and state.theft.card == r.gold_theft and hand[r.gold] > 0:
            mask[sp.cancel_gold] = True
            can_cancel = True
        mask[sp.let_pass] = not (r.compulsory_defence and can_cancel)
    return mask
