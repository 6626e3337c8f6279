"""Invariants of the theft game over random games (RULES.md §9): card conservation after every action,
every game ends (R-T-END or the stated turn cap), agents never act illegally, observations hide what §10
hides, positions round-trip, and a batch gives the shared GameTable."""

from __future__ import annotations

import numpy as np
import pytest

from agents.theft.registry import make_theft_agent
from cya_sim.engine.table import GameTable
from cya_sim.engine.theft.legal import legal_action_mask
from cya_sim.engine.theft.observation import observe
from cya_sim.engine.theft.reference import apply_action, new_game
from cya_sim.game.rng import root_key, stream_generator
from cya_sim.game.theft.position import dumps, loads
from cya_sim.game.theft.rules import TheftRuleSet
from cya_sim.play.theft.reference import TheftTurnCapWarning, play_game, play_theft_games

VARIANTS = [
    {},
    {"end_of_turn": "keep"},
    {"end_of_turn": "discard_and_draw_up"},
    {"max_thefts_per_turn": 1, "protect_last_asset": True},
    {"defend_with_targeted_asset": False, "gold_gold_pair": True},
    {"defend_with_asset": False},
]


def _step_checked(rules: TheftRuleSet, specs: list[str], key: int, game: int) -> tuple[int, bool]:
    """Play one game action by action, checking invariants after each; returns (decisions, capped)."""
    p = len(specs)
    agents = [make_theft_agent(s) for s in specs]
    rngs = [stream_generator(key, game, 1 + s) for s in range(p)]
    state = new_game(rules, p, key, game)
    n = 0
    while state.to_act >= 0:
        seat = state.to_act
        obs = observe(state, seat)
        mask = legal_action_mask(state)
        assert mask.any() and np.array_equal(obs.legal_action_mask, mask)
        other = observe(state, (seat + 1) % p)
        assert not other.legal_action_mask.any()
        a = agents[seat].act(obs, rngs[seat])
        assert mask[a], f"agent {specs[seat]} chose an illegal action"
        apply_action(state, a)
        n += 1
        assert (state.card_counts() == rules.counts).all(), "card conservation (R-T-DECK)"
        assert all(len(x) <= rules.max_assets for x in state.assets)
        assert n <= 20 * rules.max_turns
    assert state.winners and (state.turns <= rules.max_turns)
    scores = state.scores()
    assert all(scores[w] == max(scores) for w in state.winners)
    return n, state.capped


@pytest.mark.parametrize("options", VARIANTS, ids=[str(v) or "default" for v in VARIANTS])
def test_random_games_conserve_cards_end_and_stay_legal(options):
    """R-T-DECK conservation after every action, R-T-END reached, only legal actions, every variant."""
    rules = TheftRuleSet().with_options(**options)
    key = root_key(11)
    for g in range(12):
        p = 2 + g % 5
        specs = [("random", "greedy", "defender")[(g + s) % 3] for s in range(p)]
        _step_checked(rules, specs, key, g)


def test_turn_cap_stops_a_game_and_is_reported():
    """A game that reaches the cap stops, is scored, and a batch warns with the number of capped games."""
    rules = TheftRuleSet().with_options(max_turns=3)
    with pytest.warns(TheftTurnCapWarning, match=r"4 of 4 theft games stopped at the turn cap max_turns=3"):
        t = play_theft_games(rules, ["defender"], np.zeros((4, 4), int), root_key(1), np.arange(4))
    assert (t.turns == 3).all() and t.capped.all()
    r = play_game(rules, [make_theft_agent("defender")] * 4, root_key(1), 0)
    assert r.capped and r.turns == 3


def test_observation_hides_face_down_cards_and_hands():
    """RULES.md §10 for §9: another seat's hand and a first asset's face-down card are not in an observation;
    the unseen counts add up to the deck minus what the observer has seen."""
    rules = TheftRuleSet()
    state = new_game(rules, 3, root_key(2), 0)
    agents = [make_theft_agent("greedy")] * 3
    while state.phase == "setup":
        apply_action(state, agents[0].act(observe(state, state.to_act), None))
    obs = observe(state, 0)
    for owner in (1, 2):
        v = obs.assets[owner][0]
        assert v.n_hidden == 1 and len(v.cards) == 1 and v.cards[0] == state.assets[owner][0].cards[1]
    own = obs.assets[0][0]
    assert own.n_hidden == 0 and list(own.cards) == state.assets[0][0].cards
    seen = sum(len(v.cards) for row in obs.assets for v in row)
    assert int(obs.unseen.sum()) == rules.n_cards - int(obs.hand.sum()) - seen - len(state.discard_pile)


def test_position_round_trip_mid_game_continues_identically():
    """JSON positions: write a mid-game state, read it back, and play on to the same end."""
    rules = TheftRuleSet()
    key = root_key(4)
    state = new_game(rules, 4, key, 3)
    agents = [make_theft_agent("random")] * 4
    rngs = [np.random.default_rng(s) for s in range(4)]
    for _ in range(25):
        apply_action(state, agents[0].act(observe(state, state.to_act), rngs[state.to_act]))
    copy = loads(dumps(state))
    assert dumps(copy) == dumps(state)
    rngs_a = [np.random.default_rng(10 + s) for s in range(4)]
    rngs_b = [np.random.default_rng(10 + s) for s in range(4)]
    for st, rr in ((state, rngs_a), (copy, rngs_b)):
        while st.to_act >= 0:
            apply_action(st, agents[0].act(observe(st, st.to_act), rr[st.to_act]))
    assert state.scores() == copy.scores() and state.winners == copy.winners and state.turns == copy.turns


def test_play_theft_games_returns_game_table_deterministic_and_by_index():
    """play_theft_games: a GameTable; game g depends only on (rules, line-up, key, g), not on the batch."""
    rules = TheftRuleSet()
    key = root_key(9)
    sa = np.array([[0, 1, 0, 1], [1, 0, 1, 0], [0, 1, 0, 1]])
    t = play_theft_games(rules, ["greedy", "random"], sa, key, np.array([0, 1, 2]))
    assert isinstance(t, GameTable) and len(t) == 3 and t.totals.shape == (3, 4)
    np.testing.assert_allclose(t.win_share.sum(axis=1), 1.0)
    assert (t.turns > 0).all() and not hasattr(t, "rounds") and not hasattr(t, "first_dealer")  # no stand-ins
    assert (t.cancelled <= t.thefts).all()
    one = play_theft_games(rules, ["greedy", "random"], sa[2:], key, np.array([2]))
    assert one.equals(t.take(slice(2, None)))
    r = play_game(rules, [make_theft_agent(n) for n in ("greedy", "random", "greedy", "random")], key, 2)
    assert tuple(t.totals[2]) == r.points and t.first_player[2] == r.first_player
    with pytest.raises(ValueError, match=r"unknown agent 'nobody'"):
        play_theft_games(rules, ["nobody"], sa, key, np.arange(3))


def test_theft_and_classic_modules_stay_apart():
    """The theft game imports nothing of the classic rules or engines; the classic engine loads only the
    theft preset's rule set (the preset lookup), none of its engine."""
    import subprocess
    import sys

    code = ("import sys, importlib; [importlib.import_module(m) for m in sys.argv[1:]]; "
            "print(' '.join(sorted(m for m in sys.modules if m.startswith(('cya_sim', 'agents')))))")
    theft = subprocess.run([sys.executable, "-c", code, "cya_sim.engine.theft.reference",
                            "cya_sim.engine.theft.observation", "cya_sim.game.theft.position"],
                           capture_output=True, text=True, check=True).stdout.split()
    # the floors' family-neutral helpers: errors (the user-input base of cya_sim.errors too), seeds, JSON reading and numeric limits, the engines' package face
    # (and cya_sim.cache: the package's face points numba's cache at a writable folder before any kernel)
    neutral = ("cya_sim", "cya_sim.cache", "cya_sim.errors", "cya_sim.game", "cya_sim.game.errors", "cya_sim.game.rng",
               "cya_sim.game.jsontext", "cya_sim.game.limits", "cya_sim.engine")
    assert all(m in neutral or m.startswith(("cya_sim.game.theft", "cya_sim.engine.theft")) for m in theft), theft
    classic = subprocess.run([sys.executable, "-c", code, "cya_sim.engine.classic.reference"], capture_output=True, text=True,
                             check=True).stdout.split()
    assert [m for m in classic if "theft" in m] == ["cya_sim.game.theft", "cya_sim.game.theft.rules"], classic


def test_illegal_agent_action_names_agent_seat_game_and_action():
    """An agent that returns an illegal action gets an error naming the agent, the seat, the game and the action."""
    from cya_sim.engine.theft.reference import TheftIllegalActionError

    class Cheater:
        name = "cheater"

        def act(self, obs, rng):
            return obs.action_space.end_turn if obs.phase == "setup" else int(np.flatnonzero(obs.legal_action_mask)[0])

    agents = [Cheater(), make_theft_agent("random")]
    with pytest.raises(TheftIllegalActionError, match=r"^agent 'cheater' at seat (0|1) in game 5 returned illegal "
                                                      r"action \d+ \(end_turn\)$"):
        play_game(TheftRuleSet(), agents, root_key(1), 5)
