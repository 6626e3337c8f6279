"""RULES.md §5 the game: R-GAME-END, R-TIE.

Each test starts from a position where seat 0 discards its last card and so
ends the round; the rest of the deck is in the discard pile, so the round
scores are exactly the stacks given.
"""

from __future__ import annotations

from conftest import BANK, GOLD, HOME, JEWELS, POSITIONS, SILVER, STOCKS, act, cset, state_of

from cya_sim.engine.classic.reference.game import result_of
from cya_sim.game.classic.position import load_position

# stacks worth $70,000 / $45,000 / $0
STACKS = [[cset(STOCKS, STOCKS, GOLD, STOCKS)], [cset(HOME, HOME, SILVER)], []]


def _last_discard(totals, options=None, stacks=STACKS, **kw):
    s = state_of(players=3, hands=[[JEWELS], [], []], stacks=stacks, totals=totals, options=options or {}, **kw)
    act(s, "discard:Jewels")
    return s


def test_r_game_end_target_reached_highest_total_wins():
    """R-GAME-END ``target``: after a round in which some total reaches $1,000,000 the game ends and the
    highest total wins (not the first to reach the target)."""
    s = _last_discard([950_000, 990_000, 10_000])
    assert s.totals == [1_020_000, 1_035_000, 10_000]
    assert s.winners == [1] and s.to_act == -1 and s.phase == "over"
    r = result_of(s, 0)
    assert (r.winners, r.win_shares, r.rounds) == ((1,), (0.0, 1.0, 0.0), 1)


def test_r_game_end_target_not_reached_next_round():
    """R-GAME-END ``target``: below $1,000,000 a new round starts."""
    s = _last_discard([900_000, 0, 0])
    assert s.totals == [970_000, 45_000, 0] and s.winners is None and s.round == 2


def test_r_game_end_target_score_option():
    """R-GAME-END: ``target_score`` sets the target."""
    s = _last_discard([0, 0, 0], options={"target_score": 60_000})
    assert s.winners == [0]


def test_r_game_end_rounds_n_plays_exactly_n_rounds():
    """R-GAME-END ``rounds:N``: the game ends after round N whatever the totals; not before."""
    s = _last_discard([0, 0, 0], options={"end_condition": "rounds:2"}, round=2)
    assert s.winners == [0] and s.round == 2
    s = _last_discard([0, 0, 0], options={"end_condition": "rounds:2"}, round=1)
    assert s.winners is None and s.round == 2


def test_r_game_end_round_wins_first_to_k():
    """R-GAME-END ``round_wins:K``: the first player to have the round's highest score K times wins."""
    s = _last_discard([0, 500_000, 0], options={"end_condition": "round_wins:2"}, round_wins=[1, 1, 0])
    assert s.round_wins == [2, 1, 0] and s.winners == [0]
    s = _last_discard([0, 0, 0], options={"end_condition": "round_wins:2"}, round_wins=[0, 1, 1])
    assert s.round_wins == [1, 1, 1] and s.winners is None


def test_r_game_end_round_wins_ties_credit_everyone_highest_total_wins():
    """R-GAME-END ``round_wins:K``: every player tied for a round's highest score is credited; several
    reaching K after the same round: the highest total among them wins (seat 2 is not among them)."""
    stacks = [[cset(STOCKS, STOCKS, GOLD, STOCKS)], [cset(HOME, HOME, GOLD)], []]  # $70,000 each
    s = _last_discard([100_000, 50_000, 900_000], options={"end_condition": "round_wins:2"},
                      round_wins=[1, 1, 1], stacks=stacks)
    assert s.round_scores == [[70_000, 70_000, 0]]
    assert s.round_wins == [2, 2, 1] and s.winners == [0]


def test_r_tie_share_tied_players_share_the_win():
    """R-TIE ``share``: players tied on the highest total share the win (1/k each in statistics)."""
    s = _last_discard([990_000, 1_015_000, 0])
    assert s.totals == [1_060_000, 1_060_000, 0] and s.winners == [0, 1]
    assert result_of(s, 0).win_shares == (0.5, 0.5, 0.0)


def test_r_tie_share_from_position_file():
    """R-TIE ``share`` on tests/positions/round_end_tie.json: round 4 ends with seats 0 and 1 on $1,060,000."""
    s = load_position(POSITIONS / "round_end_tie.json")
    act(s, "discard:Jewels")
    assert s.round_scores[-1] == [70_000, 45_000, 10_000]
    assert s.totals == [1_060_000, 1_060_000, 410_000] and s.winners == [0, 1] and s.round == 4
    assert s.round_wins == [2, 2, 0]


def test_r_tie_extra_round_then_only_tied_players_can_win():
    """R-TIE ``extra_round``: tied players trigger one more round for everyone; only the tied players can
    win it, even if another seat's total ends higher; it repeats while they stay tied."""
    s = _last_discard([990_000, 1_015_000, 0], options={"tie_break": "extra_round"})
    assert s.winners is None and s.eligible == [0, 1] and s.extra_rounds == 1 and s.round == 2
    # the extra round: seat 2 ends far ahead, but only seats 0 and 1 can win; seat 1 scores more
    stacks = [[cset(BANK, BANK, BANK)], [cset(HOME, HOME, SILVER)], [cset(JEWELS, JEWELS, GOLD, GOLD, GOLD)]]
    s = _last_discard([1_060_000, 1_060_000, 1_050_000], options={"tie_break": "extra_round"}, stacks=stacks,
                      eligible=[0, 1], extra_rounds=1, round=2)
    assert s.totals == [1_080_000, 1_105_000, 1_215_000] and s.winners == [1]
    # still tied after the extra round: another one
    stacks = [[cset(BANK, BANK, BANK)], [cset(BANK, BANK, BANK)], [cset(JEWELS, JEWELS, GOLD)]]
    s = _last_discard([1_060_000, 1_060_000, 1_000_000], options={"tie_break": "extra_round"}, stacks=stacks,
                      eligible=[0, 1], extra_rounds=1, round=2)
    assert s.winners is None and s.eligible == [0, 1] and s.extra_rounds == 2 and s.round == 3


def test_r_tie_extra_round_cap_then_share():
    """R-TIE: after ``max_extra_rounds`` extra rounds (a simulator safeguard) the tied players share."""
    stacks = [[cset(BANK, BANK, BANK)], [cset(BANK, BANK, BANK)], []]
    s = _last_discard([1_060_000, 1_060_000, 0], options={"tie_break": "extra_round", "max_extra_rounds": 1},
                      stacks=stacks, eligible=[0, 1], extra_rounds=1, round=2)
    assert s.winners == [0, 1]
