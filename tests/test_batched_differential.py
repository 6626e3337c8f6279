"""Differential test: the batched engine plays the very games of the reference engine (issue 3).

For every preset (classic, guide, basic) and table size 2–6, the same root key, game indices
and seatings of ``random`` and ``greedy`` agents (all-random, all-greedy and mixed tables) must
give, game by game, the same deal (R-SETUP), the same action sequence, the same totals (R-SCORE),
the same winners (R-GAME-END, R-TIE) and the same counters (rounds, turns, challenges,
decisions, largest steal) in both engines.

Default run: ``CYA_DIFF_GAMES`` games in total (default 10,000; 20,000 took half of the 10-minute CI budget), split into 30 cases so that
``pytest -n 2`` shares them; most of the time goes to the reference engine. On a mismatch the
message gives the key, the game index, the step and the reference position at the first
differing step as JSON (:func:`cya_sim.game.position.dumps`).

The draft presets (§7: ``two_player_draft`` at 2 players, ``three_player_draft`` at 3) are
compared the same way on ``CYA_DIFF_DRAFT_GAMES`` games each (default 600, not 20,000: the
reference engine plays about 40 two-player and 20 three-player draft games per CPU second, so
20,000 each would take about 25 CPU minutes, far above the default suite's budget; 600 each take
about 45 s; the slow suite plays 1,000,000 each on the batched engine, one in 250 also on the
reference).

The slow test (``pytest -m slow``) plays 1,000,000 games on the batched engine; see its docstring
for what is compared.

The advanced rules (``advanced``, RULES.md §6) have their own cases: the reference engine plays
them at about 10 games a second, so the default run compares ``CYA_DIFF_ADV_GAMES`` games (default
500, about a minute of CPU) instead of 20,000; ``-m slow`` compares 20,000 game by game and plays
1,000,000 on the batched engine (batch-size independence, one in 250 also on the reference).
"""

from __future__ import annotations

import math
import os

import numpy as np
import pytest

from agents import make_agent
from cya_sim.engine.batched import init
from cya_sim.engine.reference import apply_action, new_game, play_game
from cya_sim.engine.table import GameTable
from cya_sim.game.rng import root_key
from cya_sim.game.rules import get_rules
from cya_sim.play.batched import play_games as batched_play_games

PRESETS = ("classic", "guide", "basic")
SIZES = (2, 3, 4, 5, 6)
CHUNKS = 2
TOTAL_GAMES = int(os.environ.get("CYA_DIFF_GAMES", "10000"))
PER_CASE = math.ceil(TOTAL_GAMES / (len(PRESETS) * len(SIZES) * CHUNKS))
AGENTS = ["random", "greedy"]
KEY = root_key(20260301)
LOG_CAP = 20000
ADV_GAMES = int(os.environ.get("CYA_DIFF_ADV_GAMES", "500"))
ADV_PER_CASE = math.ceil(ADV_GAMES / (len(SIZES) * CHUNKS))


def seatings(n_games: int, n_players: int, seed: int) -> np.ndarray:
    """(G, P) int16 seatings: a third all-random, a third all-greedy, a third mixed at random."""
    rng = np.random.default_rng(seed)
    sa = rng.integers(0, 2, (n_games, n_players)).astype(np.int16)
    sa[0::3] = 0
    sa[1::3] = 1
    return sa


def first_difference_report(rules, n_players, key, game_index, seats, ref_actions, our_actions) -> str:
    """Key, game index, first differing step and the reference position there, as JSON."""
    from cya_sim.game.position import dumps

    step = next((i for i, (a, b) in enumerate(zip(ref_actions, our_actions)) if a != b),
                min(len(ref_actions), len(our_actions)))
    state = new_game(rules, n_players, key, game_index)
    for a in ref_actions[:step]:
        apply_action(state, a)
    ref_next = ref_actions[step] if step < len(ref_actions) else None
    our_next = our_actions[step] if step < len(our_actions) else None
    return (f"rules {rules.name}, {n_players} players, key {key}, game index {game_index}, seats {list(seats)}: "
            f"first difference at step {step}: reference action {ref_next}, batched action {our_next}\n"
            f"reference position before that step:\n{dumps(state)}")


def compare_games(rules, n_players, game_indices, seat_agent, batch_size, key=KEY) -> GameTable:
    """Play the games in both engines and assert that they are identical, game by game (the batched table)."""
    table, state = batched_play_games(rules, AGENTS, seat_agent, key, game_indices, batch_size=batch_size,
                                      log_cap=LOG_CAP, return_state=True)
    assert isinstance(table, GameTable)
    assert state.r_done.all()
    for i, g in enumerate(game_indices):
        g = int(g)
        seats = [make_agent(AGENTS[j]) for j in seat_agent[i]]
        ref = play_game(rules, seats, key, g, record_actions=True)
        ours = [int(a) for a in state.log_actions[i, : state.log_len[i]]]
        same = (
            list(ref.actions) == ours
            and ref.first_dealer == table.first_dealer[i]
            and list(ref.totals) == list(table.totals[i])
            and list(ref.win_shares) == list(table.win_share[i])
            and (ref.rounds, ref.turns, ref.challenges, ref.decisions, ref.largest_steal)
            == (table.rounds[i], table.turns[i], table.challenges[i], table.decisions[i], table.largest_steal[i])
            and ref.capped == bool(table.capped[i])
        )
        if not same:
            pytest.fail(first_difference_report(rules, n_players, key, g, seat_agent[i], list(ref.actions), ours)
                        + f"\nreference result {ref}\nbatched totals {table.totals[i]}, "
                        f"win share {table.win_share[i]}, rounds {table.rounds[i]}, capped {table.capped[i]}")
    return table


@pytest.mark.parametrize("chunk", range(CHUNKS))
@pytest.mark.parametrize("n_players", SIZES)
@pytest.mark.parametrize("preset", PRESETS)
def test_differential_same_games_as_reference(preset, n_players, chunk):
    """R-SETUP … R-TIE: same deals, actions, totals and winners for random/greedy seatings."""
    rules = get_rules(preset)
    case = PRESETS.index(preset) * 100 + n_players * 10 + chunk
    game_indices = np.arange(PER_CASE, dtype=np.int64) + case * 1_000_000
    sa = seatings(PER_CASE, n_players, case)
    compare_games(rules, n_players, game_indices, sa, batch_size=1 + 37 * chunk + n_players)


DRAFTS = (("two_player_draft", 2), ("three_player_draft", 3))
DRAFT_GAMES = int(os.environ.get("CYA_DIFF_DRAFT_GAMES", "600"))


@pytest.mark.parametrize("chunk", range(CHUNKS))
@pytest.mark.parametrize(("preset", "n_players"), DRAFTS)
def test_differential_draft_presets(preset, n_players, chunk):
    """R-2P-DRAFT, R-3P-DRAFT: same deals, draft takes, immediate challenges, totals and winners."""
    rules = get_rules(preset)
    per = math.ceil(DRAFT_GAMES / CHUNKS)
    case = 700 + n_players * 10 + chunk
    game_indices = np.arange(per, dtype=np.int64) + case * 1_000_000
    table = compare_games(rules, n_players, game_indices, seatings(per, n_players, case),
                          batch_size=1 + 29 * chunk + n_players)
    assert table.challenges.sum() > 0


@pytest.mark.slow
@pytest.mark.parametrize(("preset", "n_players"), DRAFTS)
def test_differential_draft_one_million_games(preset, n_players):
    """1,000,000 batched games of a draft preset (random/greedy seatings), played with batch sizes 256 and
    1 (equal tables required), one game in 250 (4,000) also on the reference engine, action by action."""
    rules = get_rules(preset)
    total = 1_000_000
    gi = np.arange(total, dtype=np.int64) + 50_000_000 + n_players * 10_000_000
    sa = seatings(total, n_players, 4000 + n_players)
    a = batched_play_games(rules, AGENTS, sa, KEY, gi, batch_size=256)
    b = batched_play_games(rules, AGENTS, sa, KEY, gi, batch_size=1)
    assert a.equals(b), f"{preset}: results depend on the batch size"
    sub = np.arange(0, total, 250)
    compare_games(rules, n_players, gi[sub], sa[sub], batch_size=64)




@pytest.mark.parametrize("chunk", range(CHUNKS))
@pytest.mark.parametrize("n_players", SIZES)
def test_differential_advanced_same_games_as_reference(n_players, chunk):
    """R-ADV-TWO … R-ADV-SETUP (RULES.md §6): same deals, actions, totals and winners for random/greedy seatings
    under ``advanced`` (CYA_DIFF_ADV_GAMES games in all)."""
    rules = get_rules("advanced")
    case = 900 + n_players * 10 + chunk
    game_indices = np.arange(ADV_PER_CASE, dtype=np.int64) + case * 1_000_000
    compare_games(rules, n_players, game_indices, seatings(ADV_PER_CASE, n_players, case),
                  batch_size=1 + 37 * chunk + n_players)


@pytest.mark.parametrize("options", [
    {"deep_challenge_costs": "one_for_one"},
    {"actions_per_turn": 1, "penny_jar_value": 7_000},
    {"action_card_counts": (6, 6, 8), "hidden_wilds": False},
])
def test_differential_advanced_options(options):
    """R-ADV-DEEP ``one_for_one``, one action a turn with the advanced cards, more action cards and Penny Jars:
    identical games in both engines."""
    rules = get_rules("advanced", **options)
    for p in (2, 4, 6):
        gi = np.arange(15, dtype=np.int64) + 7000 * p
        compare_games(rules, p, gi, seatings(15, p, p), batch_size=8)


@pytest.mark.slow
def test_differential_advanced_full():
    """``advanced``: 20,000 games game by game against the reference, and 1,000,000 batched games played with
    batch sizes 256 and 1 giving equal result tables (one in 250 also on the reference engine)."""
    rules = get_rules("advanced")
    per = 20_000 // len(SIZES)
    for p in SIZES:
        gi = np.arange(per, dtype=np.int64) + 50_000_000 + p * 1_000_000
        compare_games(rules, p, gi, seatings(per, p, 77 + p), batch_size=64)
    per = 1_000_000 // len(SIZES)
    for p in SIZES:
        gi = np.arange(per, dtype=np.int64) + 60_000_000 + p * 1_000_000
        sa = seatings(per, p, 88 + p)
        a = batched_play_games(rules, AGENTS, sa, KEY, gi, batch_size=256)
        b = batched_play_games(rules, AGENTS, sa, KEY, gi, batch_size=1)
        assert a.equals(b), f"advanced {p}p: results depend on the batch size"
        sub = np.arange(0, per, 250)
        compare_games(rules, p, gi[sub], sa[sub], batch_size=64)


@pytest.mark.parametrize("preset", PRESETS + ("advanced",))
def test_r_setup_same_deals_as_reference(preset):
    """R-SETUP, R-NEW-ROUND: first dealer, hands, discard and draw pile of round 1 equal the reference's."""
    rules = get_rules(preset)
    for p in SIZES:
        gi = np.arange(300, dtype=np.int64) * 7919 + p
        st = init(rules, p, len(gi), KEY, gi, np.zeros((len(gi), p), np.int16), ["greedy"])
        for b, g in enumerate(gi):
            ref = new_game(rules, p, KEY, int(g))
            assert int(st.game_index[b]) == g
            assert int(st.dealer[b]) == ref.dealer
            assert st.hands[b].tolist() == ref.hands
            assert st.discard[b, : st.discard_len[b]].tolist() == ref.discard_pile
            assert st.deck_order[b, st.draw_pos[b]:].tolist() == ref.draw_pile
            assert int(st.to_act[b]) == ref.to_act


@pytest.mark.parametrize("options", [
    {"end_condition": "rounds:2"},
    {"end_condition": "round_wins:2"},
    {"tie_break": "extra_round", "end_condition": "rounds:1"},
    {"hidden_wilds": False},
    {"target_score": 300_000, "tie_break": "extra_round", "max_extra_rounds": 2},
])
def test_differential_rule_options(options):
    """R-GAME-END ``rounds``/``round_wins``, R-TIE ``extra_round``, R-HIDDEN-WILD off: identical games."""
    rules = get_rules("classic", **options)
    for p in (2, 3, 5):
        gi = np.arange(60, dtype=np.int64) + 5000 * p
        compare_games(rules, p, gi, seatings(60, p, p), batch_size=16)


@pytest.mark.parametrize("options", [
    {"max_rounds": 2},
    {"max_rounds": 2, "tie_break": "extra_round", "end_condition": "round_wins:2"},
])
def test_differential_round_cap_max_rounds(options):
    """The simulator's round cap (``max_rounds``): capped games stop at the same round with the same winners
    (highest total among the seats still in contention) and the same ``capped`` flag in both engines."""
    rules = get_rules("classic", **options)
    capped = 0
    for p in (2, 4):
        gi = np.arange(60, dtype=np.int64) + 9000 * p
        table = compare_games(rules, p, gi, seatings(60, p, p), batch_size=16)
        assert (table.rounds <= rules.max_rounds).all()
        assert (table.rounds[table.capped] == rules.max_rounds).all()
        capped += int(table.capped.sum())
    assert 0 < capped < 120  # some games hit the cap, some end by R-GAME-END first


def test_differential_more_than_six_players():
    """R-DECK-MULTI: 7 and 12 players (165 and 220 cards) play the reference's games."""
    rules = get_rules("classic")
    for p in (7, 12):
        gi = np.arange(30, dtype=np.int64) + 70_000 * p
        compare_games(rules, p, gi, seatings(30, p, p), batch_size=8)


def test_differential_custom_deck_with_value_ties():
    """R-DECK-CUSTOM: unsorted asset values, equal-valued assets and two wilds of equal value.

    The compiled ``greedy`` picks the best pair from bitmasks of the card types
    held; its tie-breaks (lowest action id among equal values) must still be
    the reference agent's on a deck where many pairs tie.
    """
    from cya_sim.game.rules.deck import Deck

    entries = [{"name": f"a{i}", "kind": "asset", "value": v, "copies": c}
               for i, (v, c) in enumerate([(20_000, 6), (5_000, 8), (20_000, 6), (10_000, 8), (5_000, 8),
                                           (30_000, 4), (10_000, 6)])]
    entries += [{"name": "w1", "kind": "wild", "value": 30_000, "copies": 4},
                {"name": "w2", "kind": "wild", "value": 30_000, "copies": 2},
                {"name": "w3", "kind": "wild", "value": 10_000, "copies": 2}]
    rules = get_rules("classic", deck=Deck.from_entries("ties", entries), target_score=200_000)
    for p in (2, 4):
        gi = np.arange(150, dtype=np.int64) + 90_000 * p
        compare_games(rules, p, gi, seatings(150, p, p), batch_size=16)


@pytest.mark.slow
def test_differential_one_million_games():
    """1,000,000 batched games (all presets, 2–6 players, random/greedy seatings); what is compared:

    - every one of the 1,000,000 games is played twice on the batched engine, with batch sizes
      256 and 1, and the two result tables must be equal column by column (batch-size independence);
    - one game in every 250 (4,000 games, spread over all presets and table sizes) is also played
      on the reference engine and compared action by action, with totals and winners. The
      reference engine is too slow (about 50 games/s) to replay all 1,000,000.
    """
    total = 1_000_000
    cases = [(pr, p) for pr in PRESETS for p in SIZES]
    per = total // len(cases) + 1
    played = 0
    for ci, (preset, p) in enumerate(cases):
        rules = get_rules(preset)
        gi = np.arange(per, dtype=np.int64) + (ci + 1) * 10_000_000
        sa = seatings(per, p, 1000 + ci)
        a = batched_play_games(rules, AGENTS, sa, KEY, gi, batch_size=256)
        b = batched_play_games(rules, AGENTS, sa, KEY, gi, batch_size=1)
        assert a.equals(b), f"{preset} {p}p: results depend on the batch size"
        played += len(gi)
        sub = np.arange(0, per, 250)
        compare_games(rules, p, gi[sub], sa[sub], batch_size=64)
    assert played >= total


# -- the drafts with the advanced rules (§7 with §6) ------------------------------------------------------------
DRAFT_ADV = (("two_player_draft_advanced", 2), ("three_player_draft_advanced", 3))
DRAFT_ADV_GAMES = int(os.environ.get("CYA_DIFF_DRAFT_ADV_GAMES", "300"))


@pytest.mark.parametrize(("preset", "n_players"), DRAFT_ADV)
def test_differential_draft_advanced_presets(preset, n_players):
    """R-2P-DRAFT, R-3P-DRAFT with §6: same deals, draft takes, immediate challenges, action cards turned up on
    draft piles (the ``draft_move`` choice), totals and winners (CYA_DIFF_DRAFT_ADV_GAMES games per preset)."""
    rules = get_rules(preset)
    case = 1100 + n_players * 10
    game_indices = np.arange(DRAFT_ADV_GAMES, dtype=np.int64) + case * 1_000_000
    table = compare_games(rules, n_players, game_indices, seatings(DRAFT_ADV_GAMES, n_players, case),
                          batch_size=7 + n_players)
    assert table.challenges.sum() > 0


@pytest.mark.parametrize(("preset", "n_players", "options"), [
    ("two_player_draft", 2, {"action_card_counts": (2, 2, 2)}),
    ("three_player_draft", 3, {"action_card_counts": (3, 3, 1), "advanced_actions": True}),
])
def test_differential_draft_with_some_advanced_options(preset, n_players, options):
    """The drafts with some §6 options only (one action a turn: the draw order kept while a Move turned up
    waits for its choice): both engines play the same games."""
    rules = get_rules(preset, **options)
    case = 1200 + n_players * 10
    game_indices = np.arange(60, dtype=np.int64) + case * 1_000_000
    compare_games(rules, n_players, game_indices, seatings(60, n_players, case), batch_size=5)


@pytest.mark.slow
@pytest.mark.parametrize(("preset", "n_players"), DRAFT_ADV)
def test_differential_draft_advanced_full(preset, n_players):
    """The drafts with §6: 20,000 games game by game against the reference, and 1,000,000 batched games played
    with batch sizes 256 and 1 giving equal result tables (one in 250 also on the reference engine)."""
    rules = get_rules(preset)
    gi = np.arange(20_000, dtype=np.int64) + 70_000_000 + n_players * 1_000_000
    compare_games(rules, n_players, gi, seatings(20_000, n_players, 177 + n_players), batch_size=64)
    total = 1_000_000
    gi = np.arange(total, dtype=np.int64) + 80_000_000 + n_players * 10_000_000
    sa = seatings(total, n_players, 188 + n_players)
    a = batched_play_games(rules, AGENTS, sa, KEY, gi, batch_size=256)
    b = batched_play_games(rules, AGENTS, sa, KEY, gi, batch_size=1)
    assert a.equals(b), f"{preset}: results depend on the batch size"
    sub = np.arange(0, total, 250)
    compare_games(rules, n_players, gi[sub], sa[sub], batch_size=64)
