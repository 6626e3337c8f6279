"""RULES.md §4 challenges: R-CH-ALLOWED, R-CH-EXCHANGE, R-CH-ONE, R-HIDDEN-WILD."""

from __future__ import annotations

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
    names_of,
    sets,
    state_of,
)


def _duel(**kw):
    """Two players (classic, hand size 5): seat 0 has one set, seat 1 a Home set under a Jewels set whose
    Gold is hidden."""
    args = {
        "hands": [[JEWELS, SILVER, GOLD, STOCKS, PIGGY], [JEWELS, SILVER, AUTO, AUTO, PIGGY]],
        "stacks": [[cset(BANK, BANK, BANK)], [cset(HOME, HOME, HOME), cset(JEWELS, GOLD, JEWELS)]],
        "draw_pile": [STOCKS] * 6,
    }
    args.update(kw)
    return state_of(**args)


def _challenges(s):
    return [a for a in legal(s) if a.startswith("challenge")]


# -- R-CH-ALLOWED -----------------------------------------------------------------------------------


def test_r_ch_allowed_bottom_set_cannot_be_challenged():
    """R-CH-ALLOWED: a target with only one set (its bottom set) cannot be challenged."""
    s = _duel(stacks=[[cset(BANK, BANK, BANK)], [cset(JEWELS, GOLD, JEWELS)]])
    assert _challenges(s) == []


def test_r_ch_allowed_challenger_needs_a_set():
    """R-CH-ALLOWED: a challenger with no set of its own cannot challenge."""
    s = _duel(stacks=[[], [cset(HOME, HOME, HOME), cset(JEWELS, GOLD, JEWELS)]])
    assert _challenges(s) == []


def test_r_ch_allowed_needs_matching_asset_or_wild_in_hand():
    """R-CH-ALLOWED: the challenger needs an asset of the top set's type or a wild; each is a separate opening."""
    s = _duel()
    assert _challenges(s) == ["challenge:+1:match", "challenge:+1:Silver", "challenge:+1:Gold"]
    s = _duel(hands=[[STOCKS, PIGGY, PIGGY, AUTO, HOME], [JEWELS, SILVER, AUTO, AUTO, PIGGY]])
    assert _challenges(s) == []
    s = _duel(hands=[[STOCKS, PIGGY, PIGGY, AUTO, SILVER], [JEWELS, SILVER, AUTO, AUTO, PIGGY]])
    assert _challenges(s) == ["challenge:+1:Silver"]


def test_r_ch_allowed_only_the_top_set_type_counts():
    """R-CH-ALLOWED: only the top set can be challenged: a Home in hand does not open against a Jewels top set
    with a Home set beneath."""
    s = _duel(hands=[[HOME, PIGGY, PIGGY, AUTO, STOCKS], [JEWELS, SILVER, AUTO, AUTO, PIGGY]])
    assert _challenges(s) == []


def test_r_ch_allowed_discard_pile_card_never_used():
    """R-CH-ALLOWED: the discard pile card can never be used in a challenge, to open or to answer."""
    s = _duel(hands=[[STOCKS, PIGGY, PIGGY, AUTO, HOME], [AUTO, AUTO, PIGGY]], discard_pile=[GOLD])
    assert _challenges(s) == []
    s = _duel(hands=[[JEWELS, PIGGY, PIGGY, AUTO, HOME], [AUTO, AUTO, PIGGY]], discard_pile=[GOLD])
    act(s, "challenge:+1:match")
    assert legal(s) == ["give_up"]  # the defender has no Jewels or wild; the Gold on the pile does not count


def test_r_ch_allowed_each_target_judged_on_its_own():
    """R-CH-ALLOWED: at a table of 4, only targets with two or more sets whose top type the challenger can
    match are open; offsets count seats to the left."""
    s = state_of(
        players=4,
        hands=[[STOCKS, HOME, PIGGY, PIGGY], [PIGGY], [PIGGY], [PIGGY]],
        stacks=[[cset(BANK, BANK, BANK)],
                [cset(AUTO, AUTO, AUTO), cset(STOCKS, STOCKS, STOCKS)],
                [cset(JEWELS, JEWELS, JEWELS)],
                [cset(AUTO, AUTO, AUTO), cset(HOME, HOME, HOME)]],
    )
    assert _challenges(s) == ["challenge:+1:match", "challenge:+3:match"]


# -- R-CH-EXCHANGE ----------------------------------------------------------------------------------


def test_r_ch_exchange_back_and_forth_defender_wins_and_set_grows():
    """R-CH-EXCHANGE: the sides alternate with a matching asset or a wild; the challenger gives up with cards
    left; the defender played last, so its top set grows by every challenge card."""
    s = _duel()
    act(s, "challenge:+1:match")
    assert s.to_act == 1 and legal(s) == ["respond:match", "respond:Silver", "give_up"]
    act(s, "respond:Silver")
    assert s.to_act == 0 and legal(s) == ["respond:Silver", "respond:Gold", "give_up"]
    act(s, "respond:Gold")
    assert s.to_act == 1 and legal(s) == ["respond:match", "give_up"]
    act(s, "respond:match")
    assert s.to_act == 0 and legal(s) == ["respond:Silver", "give_up"]
    act(s, "give_up")
    assert s.challenge is None
    assert sets(s, 0) == [(BANK, [BANK, BANK])]
    assert sets(s, 1) == [(HOME, [HOME, HOME]), (JEWELS, [GOLD, JEWELS, JEWELS, SILVER, GOLD, JEWELS])]
    assert s.stacks[1][1].known_by == [0b10, 0b11, 0b11, 0b11, 0b11, 0b11]
    assert s.stack_values() == [20_000, 40_000 + 50_000 + 15_000 + 15_000 + 25_000 + 50_000 + 15_000]
    assert s.largest_steal == 0
    assert (s.turns, s.challenges, s.decisions, s.current_player) == (1, 1, 5, 1)


def test_r_ch_exchange_challenger_wins_takes_set_on_own_stack():
    """R-CH-EXCHANGE: whoever played the last card wins: the challenger takes the contested set plus every
    challenge card as one set on top of its own stack, keeping the asset type."""
    s = _duel()
    act(s, "challenge:+1:Silver", "respond:match", "respond:match")
    assert legal(s) == ["respond:Silver", "give_up"]
    act(s, "give_up")
    assert sets(s, 0) == [(BANK, [BANK, BANK]), (JEWELS, [GOLD, JEWELS, SILVER, JEWELS, JEWELS])]
    assert sets(s, 1) == [(HOME, [HOME, HOME])]
    assert s.largest_steal == 50_000 + 15_000 + 25_000 + 15_000 + 15_000
    assert s.stack_values() == [20_000 + 120_000, 40_000]


def test_r_ch_exchange_defender_may_give_up_at_once():
    """R-CH-EXCHANGE: either side may give up even with cards left: the defender gives up at once."""
    s = _duel()
    act(s, "challenge:+1:match")
    assert "respond:match" in legal(s)
    act(s, "give_up")
    assert sets(s, 0) == [(BANK, [BANK, BANK]), (JEWELS, [GOLD, JEWELS, JEWELS])]
    assert hand(s, 1) == [PIGGY, JEWELS, AUTO, AUTO, SILVER]


def test_r_ch_exchange_answers_must_match_the_contested_type():
    """R-CH-EXCHANGE: an answer is a matching asset or a wild; other assets cannot answer."""
    s = _duel(hands=[[JEWELS, SILVER, GOLD, STOCKS, PIGGY], [HOME, HOME, AUTO, AUTO, PIGGY]])
    act(s, "challenge:+1:match")
    assert legal(s) == ["give_up"]


# -- R-CH-ONE ---------------------------------------------------------------------------------------


def test_r_ch_one_challenge_ends_the_turn_and_both_draw():
    """R-CH-ONE: a challenge is one action: afterwards the turn ends (the seat left of the challenger moves
    next, not the defender) and R-REFILL applies to both players (classic: the loser first)."""
    s = state_of(
        players=3,
        hands=[[JEWELS, GOLD, STOCKS, PIGGY], [JEWELS, AUTO, PIGGY, PIGGY], [JEWELS, HOME, BANK, BANK]],
        stacks=[[cset(BANK, BANK, BANK)], [], [cset(HOME, HOME, HOME), cset(JEWELS, SILVER, JEWELS)]],
        draw_pile=[AUTO, AUTO, STOCKS, STOCKS, STOCKS],
    )
    act(s, "challenge:+2:match", "respond:match", "respond:Gold", "give_up")
    assert s.phase == "turn" and s.current_player == 1 and s.turns == 1
    assert sets(s, 0) == [(BANK, [BANK, BANK]), (JEWELS, [SILVER, JEWELS, JEWELS, JEWELS, GOLD])]
    assert sets(s, 2) == [(HOME, [HOME, HOME])]
    assert hand(s, 2) == [BANK, BANK, AUTO, HOME]  # the loser drew first: one card
    assert hand(s, 0) == [PIGGY, STOCKS, STOCKS, AUTO]  # then the winner: two
    assert names_of(s, s.draw_pile) == [STOCKS, STOCKS]


# -- R-HIDDEN-WILD ----------------------------------------------------------------------------------


def test_r_hidden_wild_card_beneath_known_only_to_owner():
    """R-HIDDEN-WILD: a set laid from hand shows only its top asset; the card beneath is known to the owner."""
    s = state_of(players=3, hands=[[JEWELS, GOLD, PIGGY], [HOME], [HOME]])
    act(s, "pair_hand:Jewels+Gold")
    assert s.stacks[0][0].known_by == [0b001, 0b111]


def test_r_hidden_wild_discard_pile_card_is_public():
    """R-HIDDEN-WILD: a card that was face-up on the discard pile is public; the hand card beneath an asset
    from the pile is hidden; a hand asset put on a wild from the pile is its public top card."""
    s = state_of(players=3, hands=[[SILVER, PIGGY], [HOME, STOCKS], [HOME]], discard_pile=[GOLD, JEWELS])
    act(s, "pair_discard:Silver")
    assert s.stacks[0][0].known_by == [0b001, 0b111]
    act(s, "pair_discard:Home")
    assert sets(s, 1) == [(HOME, [GOLD, HOME])]
    assert s.stacks[1][0].known_by == [0b111, 0b111]


def test_r_hidden_wild_challenge_cards_public_and_new_owner_learns_all():
    """R-HIDDEN-WILD: every card shown in a challenge is public; a new owner learns all of a set's cards
    (the old owner still knows them)."""
    s = state_of(
        players=3,
        hands=[[JEWELS, PIGGY], [SILVER, PIGGY], [PIGGY]],
        stacks=[[cset(BANK, BANK, BANK)], [cset(HOME, HOME, HOME), cset(JEWELS, GOLD, JEWELS)], []],
    )
    assert s.stacks[1][1].known_by == [0b010, 0b111]
    act(s, "challenge:+1:match", "respond:Silver", "give_up")
    assert s.stacks[1][1].known_by == [0b010, 0b111, 0b111, 0b111]
    s = state_of(
        players=3,
        hands=[[JEWELS, PIGGY], [SILVER, PIGGY], [PIGGY]],
        stacks=[[cset(BANK, BANK, BANK)], [cset(HOME, HOME, HOME), cset(JEWELS, GOLD, JEWELS)], []],
    )
    act(s, "challenge:+1:match", "give_up")
    assert s.stacks[0][1].known_by == [0b011, 0b111, 0b111]


def test_r_hidden_wild_off_every_card_public():
    """R-HIDDEN-WILD: with ``hidden_wilds = false`` every card in every stack is public."""
    s = state_of(players=3, hands=[[JEWELS, GOLD, PIGGY], [HOME], [HOME]], options={"hidden_wilds": False})
    act(s, "pair_hand:Jewels+Gold")
    assert s.stacks[0][0].known_by == [0b111, 0b111]
    assert names_of(s, s.stacks[0][0].cards) == [GOLD, JEWELS]
