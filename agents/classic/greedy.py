"""``greedy``: lay the best set, else challenge for the best set, else discard the cheapest card."""

from __future__ import annotations

import numpy as np

from agents.classic.heuristic import HeuristicAgent
from cya_sim.engine.classic.reference.observation import Observation


class GreedyAgent:
    """A one-step greedy policy; deterministic (it never uses ``rng``).

    Decision rules, in order (ties go to the lowest action id):

    1. **Lay the highest-value set it can** (R-PAIR-HAND, R-PAIR-DISCARD): the
       legal pair action whose two cards have the highest face value in dollars.
    2. **Challenge for the most valuable set it can reach** (R-CHALLENGE): among
       the targets it may challenge, the one whose top set has the highest
       ``value_seen`` (hidden cards counted at the asset's value); it opens
       with a matching asset when it has one, else with its lowest-value wild.
    3. **Discard its lowest-value card, keeping wilds** (R-DISCARD): the
       cheapest asset; only when it holds nothing but wilds, the cheapest wild.

    In a challenge (R-CH-EXCHANGE), as defender or challenger, it **answers
    while it can**: a matching asset first, else its lowest-value wild; it
    gives up only when it holds neither.

    Draft piles (R-2P-DRAFT, R-3P-DRAFT): a draft take counts as laying a set
    in rule 1, worth its hand card plus every face-up card it takes (pairs win
    ties, having lower ids). Asked about the immediate challenge of a drafted
    set, it opens it whenever it can, as it answers a challenge: a matching
    asset first, else its lowest-value wild.
    """

    name = "greedy"

    def act(self, obs: Observation, rng: np.random.Generator) -> int:
        """The greedy action id for this observation.

        Under the advanced rules (RULES.md §6) ``greedy`` is ``heuristic`` with its
        default switches (the same decisions as the rules above) inside the §6
        layer of :mod:`agents.classic.advanced` (Swap, Move, improve, deep challenges,
        two-card answers, ``end_turn`` instead of a second-action discard).
        """
        sp = obs.action_space
        if sp.advanced_on:
            return _ADVANCED_GREEDY.act(obs, rng)
        mask = obs.legal_action_mask
        values = obs.rules.deck.values
        wilds = sorted(range(sp.n_assets, sp.n_types), key=lambda w: (values[w], w))
        if obs.phase == "challenge":
            for partner in [-1] + wilds:
                if mask[sp.respond(partner)]:
                    return sp.respond(partner)
            return sp.give_up
        if obs.phase == "draft_offer":
            for partner in [-1] + wilds:
                if mask[sp.draft_challenge(partner)]:
                    return sp.draft_challenge(partner)
            return sp.draft_decline

        best, best_value = -1, -1
        for act in np.flatnonzero(mask[: sp.start["challenge"]]):  # pair_hand, then pair_discard ids
            d = sp.decode(act)
            if d.kind == "pair_hand":
                v = values[d.card] + values[d.card if d.partner < 0 else d.partner]
            else:
                v = values[obs.top_discard] + values[d.card]
            if v > best_value:  # ids ascend, so ties keep the lowest id
                best, best_value = int(act), v
        if obs.draft_tops:
            lo = sp.start["draft_take"]
            for act in lo + np.flatnonzero(mask[lo: sp.start["draft_challenge"]]):
                v = draft_take_value(obs, int(act))
                if v > best_value:
                    best, best_value = int(act), v
        if best >= 0:
            return best

        best_offset, best_target = 0, -1
        for offset in range(1, obs.n_players):
            if not any(mask[sp.challenge(offset, k)] for k in [-1] + wilds):
                continue
            v = obs.stacks[obs.seat_at(offset)][-1].value_seen
            if v > best_target:
                best_offset, best_target = offset, v
        if best_offset:
            for partner in [-1] + wilds:
                if mask[sp.challenge(best_offset, partner)]:
                    return sp.challenge(best_offset, partner)

        cheapest = sorted(range(sp.n_types), key=lambda c: (c >= sp.n_assets, values[c], c))
        for c in cheapest:
            if obs.hand[c] > 0:
                return sp.discard(c)
        raise AssertionError("greedy: no legal action")  # the engine never asks an empty hand


def draft_take_value(obs: Observation, action: int) -> int:
    """Dollars of the set a legal draft take ``action`` forms: its hand card plus every face-up card it takes.

    R-2P-DRAFT, R-3P-DRAFT: with a matching asset or a wild, every face-up top of the asset's type
    within reach (``obs.draft_reach``); with an asset taking a face-up wild, that one wild.
    """
    sp = obs.action_space
    values = obs.rules.deck.values
    d = sp.decode(action)
    if d.kind == "draft_take" and d.partner >= 0:
        return int(values[d.card] + values[d.partner])
    n = sum(1 for j in obs.draft_reach if obs.draft_tops[j] == d.card)
    hand_card = d.card if d.kind == "draft_take" else d.partner
    return int(values[hand_card] + n * values[d.card])
#: ``greedy`` under the advanced rules: the heuristic's defaults are greedy's rules (agents/classic/heuristic.py).
_ADVANCED_GREEDY = HeuristicAgent()
