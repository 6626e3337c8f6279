"""Invariants over random-vs-random games on the reference engine, per preset and table size 2-6.

- every card is in exactly one place after every action (R-DECK-2011, R-DECK-MULTI);
- at the end of every round the stacks plus the discard pile are worth ``rules.round_total(P)``
  ($1,360,000 per deck, R-SCORE) and the totals are the sums of the round scores;
- the seat to act always has a legal action, and no illegal action is ever accepted: ``apply_action``
  raises IllegalActionError and leaves the state unchanged (R-TURN, R-CH-ALLOWED, R-CH-EXCHANGE);
- the same seed gives the same game.

The default run plays ``FAST_GAMES`` games per preset and table size; the slow test (``pytest -m slow``)
plays the issue's 2,000 per preset and table size (30,000 games).
"""

from __future__ import annotations

import os

import numpy as np
import pytest

from agents.classic.random_agent import RandomAgent
from cya_sim.engine.classic.reference import IllegalActionError, apply_action, new_game, play_game
from cya_sim.engine.classic.reference.legal import action_space, legal_action_mask
from cya_sim.engine.classic.reference.observation import observe
from cya_sim.game.classic.position import dumps, state_to_dict
from cya_sim.game.rng import root_key, stream_generator
from cya_sim.game.rules import get_rules

PRESETS = ("classic", "guide", "basic", "advanced")
SIZES = (2, 3, 4, 5, 6)
#: games per preset and table size in the default run (override with CYA_INVARIANT_GAMES)
FAST_GAMES = int(os.environ.get("CYA_INVARIANT_GAMES", "40"))
SLOW_GAMES = 2000


def check_game(rules, players, key, game_index, probe_every=25):
    """Play one random-vs-random game, checking every invariant of the module docstring after every action.

    Every ``probe_every``-th decision, one illegal action id (random among the illegal ones) and one id
    outside the action space are tried and must be refused without changing the state.

    Returns:
        (actions, rounds checked, probes made).
    """
    s = new_game(rules, players, key, game_index)
    sp = action_space(rules)
    values = rules.deck.values
    expected = rules.deck_counts(players)
    round_total = rules.round_total(players)
    agent = RandomAgent()
    rngs = [stream_generator(key, game_index, 1 + i) for i in range(players)]
    probe_rng = np.random.default_rng(game_index)
    actions, rounds, probes = [], 0, 0
    assert np.array_equal(s.card_counts(), expected)
    while s.to_act >= 0:
        seat = s.to_act
        obs = observe(s, seat)
        mask = obs.legal_action_mask
        assert mask.any(), f"seat {seat} has no legal action"
        if len(actions) % probe_every == 0:
            assert np.array_equal(mask, legal_action_mask(s))
            before = state_to_dict(s)
            illegal = np.flatnonzero(~mask)
            for bad in (int(illegal[probe_rng.integers(len(illegal))]), sp.size + int(probe_rng.integers(5))):
                with pytest.raises(IllegalActionError):
                    apply_action(s, bad)
            assert state_to_dict(s) == before
            probes += 1
        a = agent.act(obs, rngs[seat])
        d = sp.decode(a)
        disc = int(values[s.discard_pile].sum()) if s.discard_pile else 0
        if d.kind == "discard":
            disc += int(values[d.card])
        elif d.kind == "pair_discard":
            disc -= int(values[s.discard_pile[-1]])
        n_rounds = len(s.round_scores)
        apply_action(s, a)
        actions.append(a)
        # every card in exactly one place
        assert np.array_equal(s.card_counts(), expected)
        assert all(min(h) >= 0 for h in s.hands)
        assert all(sum(h) <= s.hand_size for h in s.hands)
        if len(s.round_scores) > n_rounds:  # the action ended a round: stacks + discard pile (R-SCORE)
            assert sum(s.round_scores[-1]) + disc == round_total
            assert s.totals == [sum(r[i] for r in s.round_scores) for i in range(players)]
            rounds += 1
    assert s.winners and rounds == s.round == len(s.round_scores)
    return actions, rounds, probes


def _run(preset, players, games, first_index=0, replay=3):
    rules = get_rules(preset)
    key = root_key(20_240 + players)
    total_rounds = 0
    for g in range(first_index, first_index + games):
        actions, rounds, probes = check_game(rules, players, key, g)
        total_rounds += rounds
        assert probes >= 1
        if g - first_index < replay:  # the same seed gives the same game
            r = play_game(rules, [RandomAgent() for _ in range(players)], key, g, record_actions=True)
            assert list(r.actions) == actions and r.rounds == rounds
    return total_rounds


@pytest.mark.parametrize("players", SIZES)
@pytest.mark.parametrize("preset", PRESETS)
def test_invariants_random_games(preset, players):
    """R-SCORE, R-DECK-2011, R-TURN: invariants hold over FAST_GAMES random games per preset and table size."""
    assert _run(preset, players, FAST_GAMES) >= 2 * FAST_GAMES


@pytest.mark.slow
@pytest.mark.parametrize("players", SIZES)
@pytest.mark.parametrize("preset", PRESETS)
def test_invariants_random_games_full(preset, players):
    """R-SCORE, R-DECK-2011, R-TURN: invariants hold over 2,000 random games per preset and table size."""
    assert _run(preset, players, SLOW_GAMES, first_index=10_000, replay=20) >= 2 * SLOW_GAMES


@pytest.mark.parametrize("players", [7, 10])
def test_invariants_more_than_six_players(players):
    """R-DECK-MULTI: with extra packs the invariants hold with round total $2,040,000 / $2,720,000."""
    assert get_rules("classic").round_total(players) == {7: 2_040_000, 10: 2_720_000}[players]
    _run("classic", players, 2, replay=1)


def test_same_seed_same_game_different_seed_different_game():
    """R-SETUP: the same seed gives the same game; another game index deals differently."""
    rules = get_rules("classic")
    key = root_key(5)
    agents = [RandomAgent() for _ in range(4)]
    a = play_game(rules, agents, key, 0, record_actions=True)
    b = play_game(rules, agents, key, 0, record_actions=True)
    c = play_game(rules, agents, key, 1, record_actions=True)
    assert a == b and a.actions != c.actions
    s0, s1 = new_game(rules, 4, key, 0), new_game(rules, 4, key, 0)
    assert s0 == s1 and dumps(s0) == dumps(s1)
