"""RULES.md §7 small tables: R-2P-DRAFT and R-3P-DRAFT, one hand-built position per sub-rule.

The simulator's readings where the rules are silent are listed in
:mod:`cya_sim.engine.classic.reference.draft` (set-up order, reach order, who is asked first,
when the piles turn up); the tests below pin each of them.
"""

from __future__ import annotations

import numpy as np
import pytest
from conftest import (
    AUTO,
    BANK,
    GOLD,
    HOME,
    JEWELS,
    PIGGY,
    SILVER,
    STOCKS,
    act,
    cset,
    hand,
    legal,
    sets,
    state_of,
)

from cya_sim.engine.classic.reference import apply_action, legal_action_mask, new_game
from cya_sim.engine.classic.reference.draft import leftover_value
from cya_sim.engine.classic.reference.observation import observe
from cya_sim.game.classic.position import dumps, loads
from cya_sim.game.rng import root_key
from cya_sim.game.rules import RulesError, get_rules

TWO = "two_player_draft"
THREE = "three_player_draft"


def _two(hands, piles, stacks=None, draw=None, **kw):
    """A two-player draft position: seat 0 to move; unnamed cards at the bottom of the discard pile."""
    return state_of(players=2, preset=TWO, hands=hands, stacks=stacks or [[], []], draft_piles=piles,
                    draw_pile=draw or [STOCKS] * 6, **kw)


def _three(hands, piles, current=0, stacks=None, **kw):
    return state_of(players=3, preset=THREE, hands=hands, stacks=stacks or [[], [], []], draft_piles=piles,
                    draw_pile=[STOCKS] * 6, current_player=current, **kw)


def _drafts(s):
    return [a for a in legal(s) if a.startswith("draft_")]


# -- presets and set-up -------------------------------------------------------------------------------------


def test_r_2p_draft_preset_removes_cards_and_deals_piles():
    """R-2P-DRAFT set-up: no Home, 6 Silver, 3 Gold (99 cards, $1,100,000); three piles of 10, tops face-up;
    hands of 6; a discard card; the rest is the draw pile."""
    rules = get_rules(TWO)
    names = rules.deck.names
    counts = dict(zip(names, rules.deck_counts(2).tolist(), strict=True))
    assert counts[HOME] == 0 and counts[SILVER] == 6 and counts[GOLD] == 3 and sum(counts.values()) == 99
    assert rules.round_total(2) == 1_100_000
    s = new_game(rules, 2, root_key(5), 0)
    assert [len(p) for p in s.draft_piles] == [10, 10, 10] and s.draft_down == [False] * 3
    assert [sum(h) for h in s.hands] == [6, 6] and len(s.discard_pile) == 1 and len(s.draw_pile) == 56
    assert (s.card_counts() == s.deck_counts).all()
    obs = observe(s, 0)
    assert obs.draft_tops == tuple(p[-1] for p in s.draft_piles) and obs.draft_sizes == (10, 10, 10)


def test_r_3p_draft_preset_whole_deck_hand_size_5():
    """R-3P-DRAFT set-up: the whole deck (110 cards), one pile of 10 per pair of neighbours, hands of 5."""
    rules = get_rules(THREE)
    assert rules.round_total(3) == 1_360_000
    s = new_game(rules, 3, root_key(5), 1)
    assert [len(p) for p in s.draft_piles] == [10, 10, 10]
    assert [sum(h) for h in s.hands] == [5, 5, 5] and len(s.draw_pile) == 110 - 30 - 15 - 1


def test_r_presets_draft_presets_refuse_impossible_tables():
    """R-PRESETS: the drafts are 2- and 3-player games; other sizes are refused naming the option."""
    with pytest.raises(RulesError, match="players"):
        get_rules(TWO).check_table(4)
    with pytest.raises(RulesError, match="'draft' is 'shared'.*exactly 2 players"):
        get_rules(TWO, max_players=4)
    with pytest.raises(RulesError, match="exactly 3 players"):
        get_rules(THREE, max_players=4)
    with pytest.raises(RulesError, match="draft_removed.*Cabin"):
        get_rules(TWO, draft_removed={"Cabin": 8})
    with pytest.raises(RulesError, match="draft_piles"):
        get_rules("classic", draft_piles=3)


# -- the draft take -----------------------------------------------------------------------------------------


def test_r_2p_draft_take_every_matching_face_up_top():
    """R-2P-DRAFT: a hand asset matching face-up tops takes every one of them, forming one set."""
    s = _two([[JEWELS, PIGGY], [AUTO]], [[STOCKS, JEWELS], [BANK, JEWELS], [JEWELS, STOCKS]])
    assert "draft_take:Jewels+match" in _drafts(s) and "draft_take:Piggy Bank+match" not in _drafts(s)
    act(s, "draft_take:Jewels+match")
    assert sets(s, 0) == [(JEWELS, [JEWELS, JEWELS, JEWELS])]
    assert [len(p) for p in s.draft_piles] == [1, 1, 2]
    assert s.stacks[0][0].known_by == [1, 3, 3]  # the hand card beneath is hidden (R-HIDDEN-WILD)
    assert s.current_player == 1 and not s.draft_down[0]  # seat 1 holds no Jewels nor wild: no offer


def test_r_2p_draft_wild_names_a_face_up_asset_type():
    """R-2P-DRAFT: a hand wild takes the face-up tops of an asset type it names (only a type shown)."""
    s = _two([[GOLD], [AUTO]], [[STOCKS], [JEWELS], [SILVER]])
    assert _drafts(s) == ["draft_wild:Gold=Stocks", "draft_wild:Gold=Jewels"]  # never two wilds
    act(s, "draft_wild:Gold=Jewels")
    assert sets(s, 0) == [(JEWELS, [GOLD, JEWELS])] and s.stacks[0][0].known_by == [1, 3]


def test_r_2p_draft_face_up_wild_only_with_an_asset_without_a_match():
    """R-2P-DRAFT: a face-up wild is taken only with a played asset when no face-up top is of its type."""
    s = _two([[STOCKS, PIGGY], [AUTO]], [[STOCKS], [SILVER], [GOLD]])
    d = _drafts(s)
    assert "draft_take:Stocks+match" in d and "draft_take:Stocks+pile Silver" not in d
    assert "draft_take:Piggy Bank+pile Silver" in d and "draft_take:Piggy Bank+pile Gold" in d
    act(s, "draft_take:Piggy Bank+pile Gold")
    assert sets(s, 0) == [(PIGGY, [GOLD, PIGGY])] and s.stacks[0][0].known_by == [3, 3]
    assert [len(p) for p in s.draft_piles] == [1, 1, 0]


def test_r_2p_draft_no_take_without_a_face_up_match():
    """R-2P-DRAFT: no draft take when no face-up top matches (empty piles show nothing)."""
    s = _two([[STOCKS, STOCKS], [AUTO]], [[], [JEWELS], [BANK]])
    assert _drafts(s) == []
    s = _two([[STOCKS], [AUTO]], [[], [JEWELS], [BANK]], draft_down=[1])  # pile 1 not turned up yet
    assert _drafts(s) == []


# -- the immediate challenge --------------------------------------------------------------------------------


def test_r_2p_draft_immediate_challenge_of_a_first_set_without_a_set():
    """R-2P-DRAFT, R-CH-ALLOWED exception: the opponent may challenge the new set at once, though it is the
    mover's only set and the opponent has none; the winner takes it with all the challenge cards."""
    s = _two([[JEWELS, PIGGY], [JEWELS, AUTO]], [[STOCKS, JEWELS], [BANK], [STOCKS]])
    act(s, "draft_take:Jewels+match")
    assert s.to_act == 1 and s.phase == "draft_offer"
    assert legal(s) == ["draft_challenge:match", "draft_decline"]
    assert observe(s, 1).draft_tops == (-1, BANK_ID, STOCKS_ID)  # pile 0 not turned up yet
    act(s, "draft_challenge:match")
    assert s.phase == "challenge" and s.to_act == 0 and s.challenges == 1
    assert legal(s) == ["give_up"]
    act(s, "give_up")
    assert sets(s, 0) == [] and sets(s, 1) == [(JEWELS, [JEWELS, JEWELS, JEWELS])]
    assert observe(s, 0).draft_tops == (STOCKS_ID, BANK_ID, STOCKS_ID)  # turned up after the challenge
    assert s.current_player == 1


def test_r_2p_draft_defender_wins_keeps_the_enlarged_set():
    """R-2P-DRAFT with R-CH-EXCHANGE: the mover answers and wins; the drafted set grows by the challenge cards."""
    s = _two([[JEWELS, SILVER, PIGGY], [JEWELS, AUTO]], [[STOCKS, JEWELS], [BANK], [STOCKS]])
    act(s, "draft_take:Jewels+match", "draft_challenge:match", "respond:Silver", "give_up")
    assert sets(s, 0) == [(JEWELS, [JEWELS, JEWELS, JEWELS, SILVER])] and sets(s, 1) == []


def test_r_2p_draft_decline_and_no_offer_without_a_card():
    """R-2P-DRAFT: the opponent may let the set be; an opponent with neither a match nor a wild is not asked."""
    s = _two([[JEWELS, PIGGY], [GOLD, AUTO]], [[STOCKS, JEWELS], [BANK], [STOCKS]])
    act(s, "draft_take:Jewels+match")
    assert legal(s) == ["draft_challenge:Gold", "draft_decline"]
    act(s, "draft_decline")
    assert s.current_player == 1 and s.phase == "turn" and sets(s, 0) == [(JEWELS, [JEWELS, JEWELS])]


def test_r_refill_after_a_draft_challenge_mover_first():
    """R-REFILL (mover_first) after an immediate challenge: the drafter draws first, then the challenger."""
    s = _two([[JEWELS, PIGGY], [JEWELS, AUTO]], [[STOCKS, JEWELS], [BANK], [STOCKS]], draw=[GOLD, SILVER])
    act(s, "draft_take:Jewels+match", "draft_challenge:match", "give_up")
    assert hand(s, 0) == [PIGGY, SILVER, GOLD] and hand(s, 1) == [AUTO]


def test_r_ch_allowed_classic_challenges_unchanged_in_a_draft():
    """R-CH-ALLOWED: outside the immediate challenge, challenges still need a set and a target with two."""
    s = _two([[JEWELS], [AUTO]], [[], [], []], stacks=[[], [cset(JEWELS, JEWELS, JEWELS), cset(JEWELS, JEWELS,
                                                                                             JEWELS)]])
    assert not [a for a in legal(s) if a.startswith("challenge")]


# -- three players ------------------------------------------------------------------------------------------


def test_r_3p_draft_reach_left_and_right_piles_only():
    """R-3P-DRAFT: seat 0 drafts from pile 0 (between seats 0 and 1) and pile 2 (between 2 and 0), not pile 1."""
    s = _three([[JEWELS, STOCKS, BANK], [AUTO], [AUTO]], [[JEWELS], [STOCKS], [BANK]])
    assert _drafts(s) == ["draft_take:Bank Account+match", "draft_take:Jewels+match"]
    assert observe(s, 0).draft_reach == (0, 2)


def test_r_3p_draft_other_neighbour_of_the_pile_challenges():
    """R-3P-DRAFT: a set drafted from pile 2 (between seats 2 and 0) may be challenged by seat 2 only."""
    s = _three([[BANK, PIGGY], [BANK, AUTO], [BANK, AUTO]], [[JEWELS], [STOCKS], [STOCKS, BANK]])
    act(s, "draft_take:Bank Account+match")
    assert s.draft_offer == [2] and s.to_act == 2
    act(s, "draft_challenge:match", "give_up")
    assert sets(s, 2) == [(BANK, [BANK, BANK, BANK])] and hand(s, 1) == [BANK, AUTO]


def test_r_3p_draft_both_piles_left_neighbour_asked_first():
    """R-3P-DRAFT (simulator's reading): a take from both piles may be challenged by either other player; the
    mover's left neighbour (seat 1) is asked first, then the right one (seat 2)."""
    s = _three([[JEWELS, PIGGY], [JEWELS, AUTO], [GOLD, AUTO]], [[JEWELS], [STOCKS], [STOCKS, JEWELS]])
    act(s, "draft_take:Jewels+match")
    assert sets(s, 0) == [(JEWELS, [JEWELS, JEWELS, JEWELS])] and s.draft_offer == [1, 2] and s.to_act == 1
    act(s, "draft_decline")
    assert s.to_act == 2 and legal(s) == ["draft_challenge:Gold", "draft_decline"]
    act(s, "draft_decline")
    assert s.current_player == 1 and s.draft_down == [False] * 3


def test_r_3p_draft_wild_from_the_left_pile_first():
    """R-3P-DRAFT (simulator's reading): two reachable piles show the wild taken: the left pile (the mover's
    own-numbered pile) gives it."""
    s = _three([[PIGGY, AUTO], [AUTO], [AUTO]], [[SILVER], [STOCKS], [SILVER]], current=0)
    act(s, "draft_take:Piggy Bank+pile Silver")
    assert [len(p) for p in s.draft_piles] == [0, 1, 1]


# -- leftover cards, positions, observations ----------------------------------------------------------------


@pytest.mark.parametrize(("preset", "players"), [(TWO, 2), (THREE, 3), (TWO + "_advanced", 2),
                                                   (THREE + "_advanced", 3)])
def test_r_2p_draft_leftover_cards_count_with_the_discard_pile(preset, players):
    """R-2P-DRAFT, R-SCORE: at every round end, stacks + discard pile + cards left in draft piles = the round
    total ($1,100,000 two players, $1,360,000 three; + 2 Penny Jars with §6, the Swap and Move cards that left
    the game worth $0); card conservation and legality at every step."""
    rules = get_rules(preset)
    audits = []
    for g in range(40):
        s = new_game(rules, players, root_key(11), g)
        rng = np.random.default_rng(g)

        def log(msg, s=s):  # called at round end, before the next round is dealt
            if msg.startswith("round ") and " ends:" in msg:
                audits.append(sum(s.stack_values()) + leftover_value(s)
                              + sum(int(rules.deck.values[c]) for c in s.discard_pile))

        while s.to_act >= 0:
            m = legal_action_mask(s)
            apply_action(s, int(rng.choice(np.flatnonzero(m))), log, legal_mask=m)
            assert (s.card_counts() == s.deck_counts).all()
    assert len(audits) >= 40 and set(audits) == {rules.round_total(players)}


def test_r_2p_draft_position_round_trip():
    """JSON positions carry draft piles, face-down tops and the offer; reading back gives the same state."""
    s = _two([[JEWELS, PIGGY], [JEWELS, AUTO]], [[STOCKS, JEWELS], [BANK], [STOCKS]])
    act(s, "draft_take:Jewels+match")
    t = loads(dumps(s))
    assert t.draft_piles == s.draft_piles and t.draft_down == [True, False, False] and t.draft_offer == [1]
    assert legal(t) == legal(s)


def test_r_2p_draft_observation_hides_face_down_cards():
    """§10: a seat sees the face-up tops and the pile sizes; the face-down cards are among its unseen cards."""
    s = new_game(get_rules(TWO), 2, root_key(3), 4)
    obs = observe(s, 0)
    seen_tops = np.bincount([c for c in obs.draft_tops if c >= 0], minlength=len(obs.unseen))
    hidden = np.bincount([c for p in s.draft_piles for c in p[:-1]] + s.draw_pile + [
        c for t, n in enumerate(s.hands[1]) for c in [t] * n], minlength=len(obs.unseen))
    assert (obs.unseen == hidden).all() and seen_tops.sum() == 3


BANK_ID = get_rules(TWO).deck.names.index(BANK)
STOCKS_ID = get_rules(TWO).deck.names.index(STOCKS)
