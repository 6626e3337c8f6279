"""ISMCTS and PIMC on the later edition's decisions (RULES.md §6, §7): hand-built positions with one clearly best choice.

The search agents search over the legal actions the rules give (Cowling, Powley & Whitehouse, IEEE TCIAIG
4(2), 2012, SO-ISMCTS), so Swap, Move, improve, deep challenges, Penny Jar answers and draft takes are moves
like any other; these positions check that a modest budget finds the move that is clearly best. Every card a
test does not name lies face up in the discard pile (``conftest.position``), so the unseen cards are only
the opponent's hand and the draw pile, and the best move is best in every determinization.
"""

from __future__ import annotations

from conftest import (
    AUTO,
    BANK,
    CASH,
    GOLD,
    HOME,
    JEWELS,
    MOVE,
    PIGGY,
    SILVER,
    STAMPS,
    STOCKS,
    SWAP,
    act,
    cset,
    state_of,
)

from cya_sim.engine.classic.reference.legal import action_space
from cya_sim.engine.classic.reference.observation import observe
from cya_sim.search.classic import ismcts_search, pimc_search

ITERATIONS = 400


def _best(state, search=ismcts_search) -> str:
    obs = observe(state, state.to_act)
    res = search(obs, iterations=ITERATIONS, seed=3)
    assert obs.legal_action_mask[res.action]
    return action_space(state.rules).name(res.action)


def _adv(**kw):
    args = {"players": 2, "preset": "advanced", "draw_pile": [STAMPS, BANK, STOCKS, CASH],
            "hands": [[SWAP, CASH, STAMPS], [BANK, STOCKS, JEWELS]], "discard_pile": [AUTO]}
    args.update(kw)
    return state_of(**args)


def test_ismcts_swaps_a_small_top_set_for_a_big_one():
    """R-ADV-SWAP: its $15,000 Piggy Bank set for the opponent's $110,000 Home set, which nobody can take back
    (every other Home and every wild is face up)."""
    s = _adv(stacks=[[cset(PIGGY, PIGGY, PIGGY, PIGGY)], [cset(AUTO, AUTO, AUTO), cset(HOME, HOME, HOME, GOLD)]])
    assert "swap:+1" in _legal_names(s)
    assert _best(s) == "swap:+1"
    assert _best(s, pimc_search) == "swap:+1"


def test_ismcts_improves_a_freshly_laid_set():
    """R-ADV-IMPROVE, R-ADV-TWO: after laying Jewels + Jewels, the second action adds the third Jewels
    (+$15,000, and no Jewels or wild is left to challenge it) rather than ending the turn or discarding."""
    s = _adv(hands=[[JEWELS, JEWELS, JEWELS, STAMPS], [BANK, STOCKS, CASH]],
             stacks=[[cset(PIGGY, PIGGY, PIGGY)], [cset(AUTO, AUTO, AUTO)]])
    act(s, "pair_hand:Jewels+Jewels")
    assert {"improve", "end_turn"} <= set(_legal_names(s))
    assert _best(s) == "improve"


def test_ismcts_moves_its_big_top_set_out_of_reach():
    """R-ADV-MOVE, R-CH-ALLOWED: its $60,000 Home set is on top and the opponent holds every unseen Home and wild
    (a Home, Gold and Silver); moving it to the bottom, where no challenge reaches, keeps it."""
    s = _adv(hands=[[MOVE, CASH, STAMPS], [HOME, GOLD, SILVER]],
             stacks=[[cset(PIGGY, PIGGY, PIGGY), cset(HOME, HOME, HOME)], [cset(AUTO, AUTO, AUTO)]],
             draw_pile=[STAMPS, BANK, STOCKS, CASH])
    assert "move:+0:top_to_bottom" in _legal_names(s)
    assert _best(s) == "move:+0:top_to_bottom"


def test_ismcts_takes_a_valuable_face_up_draft():
    """R-2P-DRAFT: a hand Jewels with the two face-up Jewels ($45,000) beats the Piggy Bank pair ($10,000)."""
    s = state_of(players=2, preset="two_player_draft", hands=[[JEWELS, PIGGY, PIGGY], [STOCKS, BANK]],
                 stacks=[[], []], draft_piles=[[JEWELS], [JEWELS], [STOCKS]], draw_pile=[STOCKS] * 4,
                 discard_pile=[AUTO])
    assert _best(s) == "draft_take:Jewels+match"


def _legal_names(state) -> list[str]:
    obs = observe(state, state.to_act)
    sp = action_space(state.rules)
    return [sp.name(a) for a in range(len(obs.legal_action_mask)) if obs.legal_action_mask[a]]
