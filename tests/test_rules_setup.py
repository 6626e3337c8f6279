"""RULES.md §3 set-up and §8: R-PRESETS, R-HAND-SIZE, R-SETUP, R-NEW-ROUND, the guide variant."""

from __future__ import annotations

import pytest
from conftest import BANK, GOLD, JEWELS, STOCKS, act, cset, hand, sets, state_of

from cya_sim.engine.classic.reference import legal_action_mask, new_game
from cya_sim.game.rng import root_key, shuffle_in_place, stream_generator
from cya_sim.game.rules import RulesError, deck_2011, get_rules

EXPECTED_PRESETS = {
    # preset: (min, max players, hand sizes 2..6, challenge_draw_order)
    "classic": (2, 12, [5, 4, 4, 4, 4], "loser_first"),
    "guide": (2, 12, [5, 5, 4, 4, 4], "mover_first"),
    "basic": (2, 6, [5, 5, 5, 5, 5], "mover_first"),
}


@pytest.mark.parametrize("preset", EXPECTED_PRESETS)
def test_r_presets_options(preset):
    """R-PRESETS: players, hand size, draw order, one action a turn, hidden wilds; every preset plays to
    $1,000,000 with shared ties on the 2011 deck."""
    lo, hi, sizes, order = EXPECTED_PRESETS[preset]
    r = get_rules(preset)
    assert (r.name, r.min_players, r.max_players) == (preset, lo, hi)
    assert [r.hand_size_for(p) for p in range(2, 7)] == sizes
    assert r.challenge_draw_order == order
    assert r.actions_per_turn == 1 and r.hidden_wilds is True
    assert (r.end_condition, r.target_score, r.tie_break) == ("target", 1_000_000, "share")
    assert r.deck == deck_2011()


def test_r_presets_advanced_options():
    """R-PRESETS, §6: ``advanced`` plays 2–6 players (4–6 in the seed), 6 cards, mover_first, two actions a turn,
    hidden wilds, improve and deep challenges (two_for_one), 2 Swap, 2 Move, 2 Penny Jars of $1,000, to
    $1,000,000 with shared ties."""
    r = get_rules("advanced")
    assert (r.name, r.min_players, r.max_players) == ("advanced", 2, 6)
    assert [r.hand_size_for(p) for p in range(2, 7)] == [6] * 5
    assert (r.challenge_draw_order, r.actions_per_turn, r.hidden_wilds) == ("mover_first", 2, True)
    assert (r.action_card_counts, r.penny_jar_value, r.deep_challenge_costs, r.advanced_actions) == (
        (2, 2, 2), 1_000, "two_for_one", True)
    assert (r.end_condition, r.target_score, r.tie_break) == ("target", 1_000_000, "share")
    assert r.deck.cards[: deck_2011().n_types] == deck_2011().cards


def test_r_presets_any_option_can_be_overridden():
    """R-PRESETS: any option can be overridden; the result is validated and named ``<preset>+custom``."""
    r = get_rules("classic", hand_size=6, challenge_draw_order="mover_first", hidden_wilds=False,
                  end_condition="rounds:3", target_score=500_000, tie_break="extra_round")
    assert r.name == "classic+custom"
    assert (r.hand_size_for(2), r.hand_size_for(12), r.challenge_draw_order, r.hidden_wilds) == (6, 6, "mover_first",
                                                                                                False)
    assert (r.end_kind, r.end_param, r.target_score, r.tie_break) == ("rounds", 3, 500_000, "extra_round")


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"challenge_draw_order": "winner_first"},
         r"option 'challenge_draw_order' is 'winner_first'; choose one of: loser_first, mover_first"),
        ({"end_condition": "rounds:0"},
         r"option 'end_condition' is 'rounds:0'; choose one of: target, rounds:N, round_wins:K"),
        ({"tie_break": "coin"}, r"option 'tie_break' is 'coin'; choose one of: share, extra_round"),
        ({"hand_size": 0}, r"option 'hand_size' for 2 players is 0; it must be an integer >= 1"),
        ({"colour": "red"}, r"unknown rule option 'colour'; choose from: deck, min_players"),
    ],
)
def test_r_presets_bad_options_refused(kwargs, message):
    """R-PRESETS: a bad or unknown option is refused, naming the option and the allowed values."""
    with pytest.raises(RulesError, match=message):
        get_rules("classic", **kwargs)


def test_r_presets_unknown_preset_refused():
    """R-PRESETS: an unknown preset is refused, listing the presets."""
    with pytest.raises(RulesError, match=r"unknown rule preset 'clasic'; choose one of: classic, guide, basic"):
        get_rules("clasic")


def test_r_presets_table_size_checked():
    """R-PRESETS: basic plays 2-6 players; classic 2-12."""
    with pytest.raises(RulesError, match=r"option 'players' is 7; rules 'basic' allow 2 to 6 players"):
        new_game(get_rules("basic"), 7, root_key(0))
    with pytest.raises(RulesError, match=r"option 'players' is 1; rules 'classic' allow 2 to 12 players"):
        new_game(get_rules("classic"), 1, root_key(0))


@pytest.mark.parametrize("preset", EXPECTED_PRESETS)
@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_r_hand_size_dealt(preset, players):
    """R-HAND-SIZE: classic 5 for two players else 4; guide 5 for 2-3 else 4; basic 5."""
    s = new_game(get_rules(preset), players, root_key(11))
    want = EXPECTED_PRESETS[preset][2][players - 2]
    assert s.hand_size == want
    assert [sum(h) for h in s.hands] == [want] * players


def test_r_hand_size_refill_draws_up_to_hand_size_by_name():
    """R-HAND-SIZE: after discarding, a guide 3-player hand is back at 5 with the top draw card."""
    s = state_of(players=3, preset="guide", hands=[[STOCKS, JEWELS, BANK, BANK, GOLD], [JEWELS], [JEWELS]],
                 draw_pile=[STOCKS, STOCKS, STOCKS], rest="draw")
    act(s, "discard:Jewels")
    assert hand(s, 0) == [BANK, BANK, STOCKS, STOCKS, GOLD]


def _expected_deal(rules, players, key, game_index):
    rng = stream_generator(key, game_index, 0)
    dealer = int(rng.random() * players)
    cards = [t for t, n in enumerate(rules.deck_counts(players)) for _ in range(int(n))]
    shuffle_in_place(cards, rng)
    return dealer, cards


@pytest.mark.parametrize("players", [2, 4, 6, 7])
def test_r_setup_deal_one_at_a_time_left_of_dealer(players):
    """R-SETUP: the first dealer comes from the seed; cards are dealt one at a time starting left of the
    dealer; the next card starts the discard pile; the player left of the dealer moves first."""
    rules = get_rules("classic")
    key = root_key(2024)
    dealer, cards = _expected_deal(rules, players, key, 3)
    s = new_game(rules, players, key, 3)
    h = rules.hand_size_for(players)
    assert s.dealer == s.first_dealer == dealer
    assert s.round == 1 and s.current_player == (dealer + 1) % players
    for i in range(players):
        seat = (dealer + 1 + i) % players
        got = [cards[k * players + i] for k in range(h)]
        want = [0] * rules.deck.n_types
        for c in got:
            want[c] += 1
        assert s.hands[seat] == want
    assert s.discard_pile == [cards[players * h]]
    assert s.draw_pile == cards[players * h + 1:]
    assert s.stacks == [[] for _ in range(players)]
    assert s.totals == [0] * players


def test_r_setup_first_dealer_varies_with_the_seed():
    """R-SETUP: the first dealer is chosen by the game's random seed (all four seats occur)."""
    rules = get_rules("classic")
    dealers = {new_game(rules, 4, root_key(9), g).first_dealer for g in range(40)}
    assert dealers == {0, 1, 2, 3}


def test_r_setup_dealer_moves_left_each_round():
    """R-SETUP: the dealer of round k+1 is the player left of the dealer of round k, who then moves first."""
    # Seat 1 discards its last card: every hand is empty, round 1 (dealer 3) ends, round 2 is dealt by seat 0.
    s = state_of(players=4, hands=[[], [JEWELS], [], []], current_player=1, dealer=3, first_dealer=3,
                 stacks=[[], [cset(STOCKS, STOCKS, STOCKS)], [], []])
    act(s, "discard:Jewels")
    assert (s.round, s.dealer, s.first_dealer, s.current_player) == (2, 0, 3, 1)


def test_r_new_round_gathers_every_card_and_keeps_only_totals():
    """R-NEW-ROUND: at the next round all cards are gathered and shuffled, stacks start empty, only the
    totals carry over; the deal uses the engine stream (R-SETUP)."""
    # the draw pile and the discard pile are empty: every card but one Jewels is in a stack
    s = state_of(players=2, hands=[[JEWELS], []], current_player=0, dealer=1, totals=[100_000, 200_000],
                 stacks=[[cset(STOCKS, STOCKS, GOLD, STOCKS)], []], rest=("stack", 1), rng={"seed": 4},
                 options={"target_score": 5_000_000})
    top_before = s.discard_pile
    assert top_before == []
    act(s, "discard:Jewels")
    # round 1 scored: seat 0 has $70,000; seat 1 the rest less the discarded Jewels
    assert s.round_scores == [[70_000, 1_360_000 - 70_000 - 15_000]]
    assert s.totals == [170_000, 200_000 + 1_275_000]
    assert s.round == 2 and s.dealer == 0 and s.current_player == 1
    assert s.stacks == [[], []]
    assert [sum(h) for h in s.hands] == [5, 5]
    assert len(s.discard_pile) == 1 and len(s.draw_pile) == 110 - 11
    assert list(s.card_counts()) == list(s.deck_counts)
    # the deal is the engine stream's next shuffle of the whole deck, dealt from seat 1
    rng = stream_generator(root_key(4), 0, 0)
    cards = [t for t, n in enumerate(s.deck_counts) for _ in range(int(n))]
    shuffle_in_place(cards, rng)
    assert s.discard_pile == [cards[10]] and s.draw_pile == cards[11:]
    h1 = [0] * 12
    for c in cards[0:10:2]:
        h1[c] += 1
    assert s.hands[1] == h1


def test_guide_variant_section_8_preset():
    """§8 (R-PRESETS, R-HAND-SIZE, R-REFILL): the guide preset is classic play with guide hand sizes and
    ``challenge_draw_order = mover_first``."""
    g, c = get_rules("guide"), get_rules("classic")
    differing = [k for k in g.to_dict() if k != "name" and g.to_dict()[k] != c.to_dict()[k]]
    assert differing == ["hand_size", "challenge_draw_order"]
    assert [g.hand_size_for(p) for p in range(2, 13)] == [5, 5] + [4] * 9
    assert g.challenge_draw_order == "mover_first"


def test_legal_mask_shape_and_dtype():
    """R-TURN: the legal mask is (A,) bool with A fixed by the rule set (91 for the 2011 deck, 12 seats)."""
    s = new_game(get_rules("classic"), 3, root_key(1))
    m = legal_action_mask(s)
    assert m.shape == (91,) and m.dtype == bool
    assert sets(s, 0) == []
