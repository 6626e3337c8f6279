"""The OpenSpiel game (issue 15): OpenSpiel's own random-simulation test, chance nodes that reproduce the
reference engine's shuffles (R-SETUP, R-NEW-ROUND), determinizations that keep the player's §10 observation
(R-HIDDEN-WILD), and OpenSpiel's ISMCTS bot running on the game."""

from __future__ import annotations

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

import agents  # noqa: F401  (before the env modules: the agents package imports the engine first)
from cya_sim.engine.classic.reference import play_game
from cya_sim.env.classic.openspiel import _ShuffleFeed
from cya_sim.env.openspiel import register_openspiel
from cya_sim.game.rng import shuffle_in_place, shuffle_uniforms, stream_generator, uniform_index
from cya_sim.game.rules import get_rules

register_openspiel()


@pytest.mark.parametrize("params", [
    {"players": 2, "rules": "classic", "rounds": 1},
    {"players": 3, "rules": "basic", "rounds": 1},
    {"players": 2, "rules": "guide", "rounds": 0},
    {"players": 2, "rules": "two_player_draft", "rounds": 1},
    {"players": 3, "rules": "three_player_draft", "rounds": 1},
    {"players": 2, "rules": "two_player_draft_advanced", "rounds": 1},
    {"players": 3, "rules": "three_player_draft_advanced", "rounds": 1},
])
def test_openspiel_random_sim_test_passes(params):
    game = pyspiel.load_game("python_cover_your_assets", params)
    pyspiel.random_sim_test(game, num_sims=1, serialize=True, verbose=False)  # issue 23: with serialization


def test_the_game_type_is_sequential_imperfect_information_with_explicit_chance():
    t = pyspiel.load_game("python_cover_your_assets").get_type()
    assert t.dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL
    assert t.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    assert t.chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC


def test_shuffle_feed_gives_the_uniforms_of_any_order():
    rng = np.random.default_rng(3)
    for _ in range(20):
        order = rng.integers(0, 6, size=int(rng.integers(2, 40))).tolist()
        feed = _ShuffleFeed()
        feed.queue = shuffle_uniforms(sorted(order), order)
        cards = sorted(order)
        shuffle_in_place(cards, feed)
        assert cards == order


def test_chance_outcomes_of_the_engines_shuffles_replay_cya_sim_play_game():
    """Feeding chance the engine's own shuffles (stream 0) and the seats the agent streams of play_game
    gives the very game of the reference engine, round after round (R-SETUP, R-NEW-ROUND)."""
    from agents.classic.registry import make_agent

    rules, p, key, g = get_rules("classic"), 3, 12345, 7
    expected = play_game(rules, [make_agent("random") for _ in range(p)], key, g)
    game = pyspiel.load_game("python_cover_your_assets", {"players": p})
    engine = stream_generator(key, g, 0)
    seats = [stream_generator(key, g, 1 + s) for s in range(p)]
    state = game.new_initial_state()
    counts = rules.deck_counts(p)
    pending: list[int] = []
    while not state.is_terminal():
        if state.is_chance_node():
            if state.gs is None and state.dealer < 0:
                state.apply_action(uniform_index(engine, p))
                continue
            if not pending:
                pending = [t for t, n in enumerate(counts) for _ in range(int(n))]
                shuffle_in_place(pending, engine)
            state.apply_action(pending.pop(0))
        else:
            legal = state.legal_actions()
            state.apply_action(legal[int(seats[state.current_player()].random() * len(legal))])
    assert tuple(state.gs.totals) == expected.totals
    assert state.returns() == list(expected.win_shares)
    assert state.gs.round == expected.rounds


def _mid_game(game, seed: int, steps: int):
    rng = np.random.default_rng(seed)
    state = game.new_initial_state()
    n = 0
    while not state.is_terminal() and (state.is_chance_node() or n < steps):
        if state.is_chance_node():
            actions, probs = zip(*state.chance_outcomes())
            state.apply_action(int(rng.choice(actions, p=probs)))
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
            n += 1
    return state


@pytest.mark.parametrize("params", [{"players": 3}, {"players": 3, "rules": "three_player_draft"}])
def test_resample_from_infostate_keeps_the_players_observation_and_every_card(params):
    """Also on a draft (§7): the face-down draft cards are resampled, the face-up tops and sizes kept."""
    game = pyspiel.load_game("python_cover_your_assets", params)
    state = _mid_game(game, 1, 60)
    player = state.current_player()
    deck = state.gs.rules.deck
    others_seen = set()
    for i in range(30):
        r = state.resample_from_infostate(player, pyspiel.UniformProbabilitySampler(0.0, 1.0))
        assert r.information_state_string(player) == state.information_state_string(player)
        np.testing.assert_array_equal(r.observation_tensor(player), state.observation_tensor(player))
        assert r.observation_string(player) == state.observation_string(player)
        np.testing.assert_array_equal(r.gs.card_counts(), state.gs.card_counts())  # card conservation
        for stack in r.gs.stacks:
            for s in stack:  # R-HIDDEN-WILD: a hidden set card is the set's asset or a wild
                assert all(c == s.asset or c >= deck.n_assets for c in s.cards)
        others_seen.add(tuple(map(tuple, (r.gs.hands[s] for s in range(3) if s != player))))
        assert r.history() == state.history()
    assert len(others_seen) > 20  # the other hands are resampled


def test_openspiel_ismcts_bot_plays_on_the_game():
    from open_spiel.python.algorithms import ismcts, mcts

    game = pyspiel.load_game("python_cover_your_assets", {"players": 2, "rounds": 1})
    state = _mid_game(game, 2, 10)
    bot = ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(1, np.random.RandomState(0)), uct_c=1.41,
                           max_simulations=5, random_state=np.random.RandomState(1))
    assert bot.step(state) in state.legal_actions()
