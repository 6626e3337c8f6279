"""Which actions are legal (R-TURN, R-NO-WILD-PAIR, R-CH-ALLOWED, R-CH-EXCHANGE)."""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from cya_sim.engine.classic.reference import advanced, draft
from cya_sim.game.classic.actions import ActionSpace
from cya_sim.game.classic.state import GameState
from cya_sim.game.rules import RuleSet


@lru_cache(maxsize=64)
def action_space(rules: RuleSet) -> ActionSpace:
    """The (cached) action space of ``rules``."""
    return ActionSpace.for_rules(rules)


def legal_action_mask(state: GameState) -> np.ndarray:
    """(A,) bool: the actions the seat to act may choose now.

    Turn phase (R-TURN): R-PAIR-HAND, R-PAIR-DISCARD, R-CHALLENGE (when
    R-CH-ALLOWED holds) and R-DISCARD of any hand card. Challenge phase
    (R-CH-EXCHANGE): play a matching asset or a wild, or give up. Two wilds
    never form a set (R-NO-WILD-PAIR). With draft piles (§7): the draft takes in the turn
    phase, and the offered neighbour's immediate challenge or decline, and the choice for a Move
    turned up on a draft pile (:mod:`cya_sim.engine.classic.reference.draft`). All False once the game is over.
    The §6 actions (R-ADV-*) are added by :mod:`.advanced`.
    """
    sp = action_space(state.rules)
    mask = np.zeros(sp.size, dtype=bool)
    seat = state.to_act
    if seat < 0:
        return mask
    hand = state.hands[seat]
    n_a, n_t = sp.n_assets, sp.n_types
    width = 1 + sp.n_wilds  # a matching asset, then each wild
    held_wilds = [k for k in range(1, width) if hand[n_a + k - 1] > 0]
    if state.challenge is not None and state.challenge.owed == 2:  # R-ADV-PENNY, R-ADV-DEEP
        advanced.challenge_mask_two(state, mask, sp)
        return mask
    if state.challenge is not None:  # R-CH-EXCHANGE
        base = sp.start["respond"]
        mask[base] = hand[state.challenge.asset] > 0
        for k in held_wilds:
            mask[base + k] = True
        mask[sp.give_up] = True
        return mask
    if state.draft_move:  # §7 with §6: the choice for a Move turned up on a draft pile
        draft.legal_move(state, mask, sp)
        return mask
    if state.draft_offer:  # R-2P-DRAFT / R-3P-DRAFT: open the immediate challenge or let the set be
        draft.legal_offer(state, mask, sp)
        return mask
    base = sp.start["pair_hand"]  # R-PAIR-HAND (the mask starts all False: only legal ids are set)
    for a in range(n_a):
        if hand[a]:
            if hand[a] >= 2:
                mask[base + a * width] = True
            for k in held_wilds:
                mask[base + a * width + k] = True
    if state.discard_pile:  # R-PAIR-DISCARD
        base = sp.start["pair_discard"]
        top = state.discard_pile[-1]
        for c in range(sp.n_assets + sp.n_wilds):  # action cards never form a set
            if hand[c] == 0:
                continue
            top_is_wild, c_is_wild = top >= n_a, c >= n_a
            if top_is_wild and c_is_wild:
                continue  # R-NO-WILD-PAIR
            if top_is_wild or c_is_wild or c == top:
                mask[base + c] = True
    base = sp.start["challenge"]  # R-CHALLENGE when R-CH-ALLOWED holds
    for offset in range(1, state.n_players):
        target = (seat + offset) % state.n_players
        if not challenge_allowed(state, seat, target):
            continue
        row = base + (offset - 1) * width
        if hand[state.stacks[target][-1].asset] > 0:
            mask[row] = True
        for k in held_wilds:
            mask[row + k] = True
    base = sp.start["discard"]  # R-DISCARD
    for c in range(n_t):
        if hand[c]:
            mask[base + c] = True
    if sp.advanced_on:  # some §6 block is enabled
        advanced.turn_mask(state, mask, sp)
    if state.draft_piles:  # R-2P-DRAFT, R-3P-DRAFT
        draft.legal_takes(state, seat, mask, sp)
    return mask


def challenge_allowed(state: GameState, challenger: int, target: int) -> bool:
    """R-CH-ALLOWED, stack part: the challenger has a set, the target at least two.

    (The card part — a matching asset or a wild in hand — is checked per action.)
    """
    return challenger != target and len(state.stacks[challenger]) >= 1 and len(state.stacks[target]) >= 2
