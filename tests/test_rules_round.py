"""RULES.md §3 drawing and the end of a round: R-REFILL, R-ROUND-END, R-SCORE."""

from __future__ import annotations

from conftest import (
    AUTO,
    BANK,
    CASH,
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


def _duel(preset="classic", draw_pile=(HOME,)):
    """Two players, hand size 5 in both presets; seat 1's top set is Jewels over a hidden Gold."""
    return state_of(
        preset=preset,
        hands=[[JEWELS, SILVER, GOLD, STOCKS, PIGGY], [JEWELS, SILVER, AUTO, AUTO, PIGGY]],
        stacks=[[cset(BANK, BANK, BANK)], [cset(HOME, HOME, HOME), cset(JEWELS, GOLD, JEWELS)]],
        draw_pile=list(draw_pile),
    )


# -- R-REFILL ---------------------------------------------------------------------------------------


def test_r_refill_mover_draws_up_to_hand_size_from_the_top():
    """R-REFILL: at the end of the turn the player who played draws up to hand_size from the top of the pile."""
    s = state_of(hands=[[JEWELS, JEWELS, STOCKS, BANK, PIGGY], [HOME] * 5], draw_pile=[AUTO, GOLD, CASH])
    act(s, "pair_hand:Jewels+Jewels")
    assert hand(s, 0) == [PIGGY, BANK, STOCKS, AUTO, GOLD]
    assert names_of(s, s.draw_pile) == [CASH]
    assert hand(s, 1) == [HOME] * 5


def test_r_refill_loser_first_when_pile_runs_out():
    """R-REFILL ``loser_first`` (classic): the loser of a challenge draws first; with one card left, the
    losing challenger gets it and the winning defender none."""
    s = _duel("classic")
    act(s, "challenge:+1:match", "respond:Silver", "give_up")
    assert s.draw_pile == []
    assert hand(s, 0) == [PIGGY, STOCKS, HOME, SILVER, GOLD]
    assert hand(s, 1) == [PIGGY, JEWELS, AUTO, AUTO]


def test_r_refill_loser_first_losing_defender_draws_first():
    """R-REFILL ``loser_first``: when the challenger wins, the losing defender draws the last card."""
    s = _duel("classic")
    act(s, "challenge:+1:match", "respond:Silver", "respond:Gold", "give_up")
    assert hand(s, 1) == [PIGGY, JEWELS, AUTO, AUTO, HOME]
    assert hand(s, 0) == [PIGGY, STOCKS, SILVER]


def test_r_refill_mover_first_when_pile_runs_out():
    """R-REFILL ``mover_first`` (guide): the player whose turn it is draws first, win or lose."""
    s = _duel("guide")
    act(s, "challenge:+1:match", "respond:Silver", "give_up")  # the mover lost
    assert hand(s, 0) == [PIGGY, STOCKS, HOME, SILVER, GOLD]
    assert hand(s, 1) == [PIGGY, JEWELS, AUTO, AUTO]
    s = _duel("guide")
    act(s, "challenge:+1:match", "respond:Silver", "respond:Gold", "give_up")  # the mover won
    assert hand(s, 0) == [PIGGY, STOCKS, HOME, SILVER]
    assert hand(s, 1) == [PIGGY, JEWELS, AUTO, AUTO]


def test_r_refill_only_players_who_played_draw():
    """R-REFILL: a defender who gave up without playing a card does not draw, nor does anyone else."""
    s = state_of(
        players=3,
        hands=[[JEWELS, PIGGY, PIGGY, PIGGY], [JEWELS, AUTO], [HOME]],
        stacks=[[cset(BANK, BANK, BANK)], [cset(HOME, HOME, HOME), cset(JEWELS, GOLD, JEWELS)], []],
        draw_pile=[STOCKS] * 8,
    )
    act(s, "challenge:+1:match", "give_up")
    assert hand(s, 1) == [JEWELS, AUTO]
    assert hand(s, 2) == [HOME]
    assert hand(s, 0) == [PIGGY, PIGGY, PIGGY, STOCKS]
    assert len(s.draw_pile) == 7


# -- R-ROUND-END ------------------------------------------------------------------------------------


def test_r_round_end_play_goes_on_without_drawing():
    """R-ROUND-END: with the draw pile empty, play goes on and nobody draws."""
    s = state_of(hands=[[JEWELS, JEWELS, STOCKS], [HOME, PIGGY]])
    assert s.draw_pile == []
    act(s, "pair_hand:Jewels+Jewels")
    assert hand(s, 0) == [STOCKS]
    assert s.current_player == 1 and s.round == 1


def test_r_round_end_must_discard_when_nothing_else():
    """R-ROUND-END: a player who can neither pair nor challenge must discard (there is no pass)."""
    s = state_of(hands=[[JEWELS, STOCKS], [HOME, PIGGY]], discard_pile=[BANK])
    assert legal(s) == ["discard:Stocks", "discard:Jewels"]


def test_r_round_end_when_every_hand_is_empty():
    """R-ROUND-END: the round ends only when every hand is empty; players with cards left keep playing."""
    s = state_of(hands=[[JEWELS], [HOME, PIGGY]], options={"target_score": 10_000_000})
    act(s, "discard:Jewels")
    assert s.round == 1 and s.current_player == 1
    act(s, "discard:Home")
    assert s.round == 1 and s.current_player == 1  # seat 0 is empty and skipped
    act(s, "discard:Piggy Bank")
    assert s.round == 2 and s.round_scores == [[0, 0]]


def test_r_round_end_empty_hand_can_still_be_challenged():
    """R-ROUND-END: a player with an empty hand can still be challenged (and can only give up)."""
    s = state_of(
        hands=[[JEWELS, PIGGY], []],
        stacks=[[cset(BANK, BANK, BANK)], [cset(HOME, HOME, HOME), cset(JEWELS, GOLD, JEWELS)]],
    )
    act(s, "challenge:+1:match")
    assert s.to_act == 1 and legal(s) == ["give_up"]
    act(s, "give_up")
    assert sets(s, 0) == [(BANK, [BANK, BANK]), (JEWELS, [GOLD, JEWELS, JEWELS])]
    assert s.current_player == 0  # seat 1 still has no card: skipped


# -- R-SCORE ----------------------------------------------------------------------------------------


def test_r_score_stack_values_added_discard_scores_nothing():
    """R-SCORE: at round end each total grows by the face value of its stack; the discard pile scores nothing;
    stacks + discard pile = $1,360,000."""
    s = state_of(
        players=3,
        hands=[[JEWELS], [], []],
        stacks=[[cset(STOCKS, STOCKS, GOLD, STOCKS)], [cset(HOME, HOME, SILVER), cset(PIGGY, PIGGY, PIGGY)], []],
        totals=[100_000, 200_000, 300_000],
        options={"target_score": 10_000_000},
    )
    discard_before = sum(int(s.rules.deck.values[c]) for c in s.discard_pile)
    act(s, "discard:Jewels")
    assert s.round_scores == [[70_000, 55_000, 0]]
    assert s.totals == [170_000, 255_000, 300_000]
    assert 70_000 + 55_000 + discard_before + 15_000 == 1_360_000
    assert s.round_wins == [1, 0, 0]
    assert s.round == 2 and s.winners is None
