"""The batched engine's API: init/step/observe, observations, auto-reset, the Python-agent adapter,
batch forms of the built-in agents and illegal actions (issue 3; RULES.md §10, R-TURN, R-CH-EXCHANGE)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from agents.classic.compiled import GreedyBatchAgent, RandomBatchAgent
from agents.classic.greedy import GreedyAgent
from agents.classic.random_agent import RandomAgent
from agents.classic.registry import REGISTRY
from cya_sim.engine.classic.adapter import reference_observation
from cya_sim.engine.classic.batch_observation import observe
from cya_sim.engine.classic.batched import BatchState, IllegalActionError, init, results, step
from cya_sim.engine.classic.reference import apply_action, new_game
from cya_sim.engine.classic.reference.observation import observe as reference_observe
from cya_sim.game.rng import root_key, stream_generator
from cya_sim.game.rules import get_rules
from cya_sim.play import get_play_games
from cya_sim.play.classic.batched import play_games
from cya_sim.play.classic.reference import play_games as reference_play_games

KEY = root_key(4242)


class PyGreedy(GreedyAgent):
    """``greedy`` as a plain Python agent: played through the adapter, not compiled."""

    name = "py_greedy"


class PyRandom(RandomAgent):
    """``random`` as a plain Python agent: played through the adapter, not compiled."""

    name = "py_random"


@pytest.fixture
def python_agents(monkeypatch):
    """Register two Python-only agents for the duration of a test."""
    monkeypatch.setitem(REGISTRY, "py_greedy", PyGreedy)
    monkeypatch.setitem(REGISTRY, "py_random", PyRandom)


def assert_same_observation(ours, ref) -> None:
    """Every field of two reference Observations is equal."""
    for f in dataclasses.fields(ref):
        a, b = getattr(ours, f.name), getattr(ref, f.name)
        if f.name == "stacks":
            assert len(a) == len(b)
            for sa, sb in zip(a, b):
                assert len(sa) == len(sb)
                for x, y in zip(sa, sb):
                    for g in dataclasses.fields(y):
                        assert np.array_equal(getattr(x, g.name), getattr(y, g.name)), g.name
        elif isinstance(b, np.ndarray):
            assert np.array_equal(a, b), f.name
        else:
            assert a == b, f.name


@pytest.mark.parametrize("preset,n_players", [("classic", 2), ("classic", 4), ("guide", 3), ("basic", 6),
                                               ("classic", 5), ("advanced", 4), ("advanced", 3),
                                               ("two_player_draft_advanced", 2), ("three_player_draft_advanced", 3)])
def test_section_10_observations_equal_reference_every_step(preset, n_players):
    """RULES.md §10, R-HIDDEN-WILD: at every decision of random games, the adapter's Observation and the
    ObservationBatch row equal the reference engine's observation of the seat to act."""
    rules = get_rules(preset)
    games = np.arange(6, dtype=np.int64) + 300
    st = init(rules, n_players, len(games), KEY, games, np.zeros((len(games), n_players)), ["random"])
    refs = [new_game(rules, n_players, KEY, int(g)) for g in games]
    rngs = [[stream_generator(KEY, int(g), 1 + s) for s in range(n_players)] for g in games]
    agent = RandomAgent()
    checked = 0
    while not st.done.all():
        obs = observe(st)
        actions = np.zeros(len(games), np.int64)
        for b, ref in enumerate(refs):
            if st.done[b]:
                continue
            seat = ref.to_act
            assert int(st.to_act[b]) == seat
            ro = reference_observe(ref, seat)
            assert_same_observation(reference_observation(st, b), ro)
            assert np.array_equal(obs.legal_action_mask[b], ro.legal_action_mask)
            assert np.array_equal(obs.hand[b], ro.hand)
            assert np.array_equal(obs.unseen[b], ro.unseen)
            assert np.array_equal(obs.gave_up[b], ro.gave_up)
            assert obs.draw_size[b] == ro.draw_size
            assert obs.phase[b] == {"challenge": 1, "draft_offer": 2, "draft_move": 3}.get(ro.phase, 0)
            assert obs.draft_move_target[b] == (ro.draft_move[1] if ro.draft_move else -1)
            assert list(obs.discard_pile[b, : obs.discard_len[b]]) == list(ro.discard_pile)
            for s in range(n_players):
                assert obs.stack_len[b, s] == len(ro.stacks[s])
                for i, v in enumerate(ro.stacks[s]):
                    assert obs.set_asset[b, s, i] == v.asset and obs.set_size[b, s, i] == v.size
                    assert np.array_equal(obs.set_known[b, s, i], v.known)
                    assert (obs.set_n_hidden[b, s, i], obs.set_value_seen[b, s, i], obs.set_value_low[b, s, i],
                            obs.set_value_high[b, s, i]) == (v.n_hidden, v.value_seen, v.value_low, v.value_high)
            if ro.challenge is not None:
                n = obs.ch_len[b]
                assert tuple(obs.ch_cards[b, :n]) == ro.challenge.cards
                assert tuple(obs.ch_players[b, :n]) == ro.challenge.players
            a = agent.act(ro, rngs[b][seat])
            actions[b] = a
            apply_action(ref, a)
            checked += 1
        step(st, actions)
    assert checked > 1000
    table = results(st)
    assert [list(t) for t in table.totals] == [r.totals for r in refs]


def test_step_api_with_batch_agents_equals_reference():
    """Auto-reset: 40 games through 7 rows with the batch forms of greedy and random, game by game
    equal to the reference engine's games."""
    rules = get_rules("classic")
    g = 40
    gi = np.arange(g, dtype=np.int64) + 77
    sa = np.random.default_rng(1).integers(0, 2, (g, 4))
    ref = reference_play_games(rules, ["random", "greedy"], sa, KEY, gi)
    st = init(rules, 4, 7, KEY, gi, sa, ["random", "greedy"])
    assert isinstance(st, BatchState) and st.batch_size == 7
    ga, ra = GreedyBatchAgent(), RandomBatchAgent()
    steps = 0
    while not st.all_done:
        obs = observe(st)
        live = obs.seat >= 0
        kind = np.where(live, st.q_seat_agent[np.maximum(st.queue_pos, 0), np.maximum(obs.seat, 0)], -1)
        a_g, a_r = ga.act(obs), ra.act(obs, st.agent_rng)
        actions = np.where(kind == 1, a_g, a_r)
        assert all(obs.legal_action_mask[b, actions[b]] for b in np.flatnonzero(live))
        step(st, actions)
        steps += 1
    assert results(st).equals(ref)
    assert steps < ref.decisions.sum()  # rows played side by side
    assert (st.to_act == -1).all() and (st.queue_pos == -1).all()


def test_python_agents_through_the_adapter_equal_reference(python_agents):
    """Python agents (the single-game classes) in the batched engine give the reference's games."""
    rules = get_rules("guide")
    g = 24
    sa = np.random.default_rng(2).integers(0, 4, (g, 4))
    gi = np.arange(g, dtype=np.int64)
    ours = play_games(rules, ["random", "greedy", "py_greedy", "py_random"], sa, KEY, gi, batch_size=5)
    ref = reference_play_games(rules, ["random", "greedy", "greedy", "random"], sa, KEY, gi)
    assert ours.equals(ref)


def test_results_do_not_depend_on_batch_size():
    rules = get_rules("basic")
    gi = np.arange(500, dtype=np.int64) * 3
    sa = np.random.default_rng(3).integers(0, 2, (500, 5))
    tables = [play_games(rules, ["random", "greedy"], sa, KEY, gi, batch_size=bs) for bs in (1, 13, 500, 4096)]
    for t in tables[1:]:
        assert t.equals(tables[0])
    assert (tables[0].win_share.sum(axis=1) == 1.0).all()
    progress = []
    play_games(rules, ["random", "greedy"], sa[:50], KEY, gi[:50], progress=progress.append)
    assert sum(progress) == 50


def test_engine_registry_returns_batched_play_games():
    assert get_play_games("batched") is play_games


def test_r_turn_illegal_action_error_names_game_seat_agent_action_and_changes_nothing():
    """An action outside the legal mask raises, naming game index, seat, agent and action; no row changes."""
    rules = get_rules("classic")
    gi = np.array([10, 11, 12, 13], np.int64)
    st = init(rules, 4, 4, KEY, gi, np.array([[0, 1, 0, 1]] * 4), ["random", "greedy"])
    obs = observe(st)
    actions = GreedyBatchAgent().act(obs)
    bad = actions.copy()
    illegal = int(np.flatnonzero(~obs.legal_action_mask[2])[0])
    bad[2] = illegal
    before = {f.name: np.copy(getattr(st, f.name)) for f in dataclasses.fields(st)
              if isinstance(getattr(st, f.name), np.ndarray)}
    seat = int(st.to_act[2])
    with pytest.raises(IllegalActionError) as e:
        step(st, bad)
    msg = str(e.value)
    agent = ["random", "greedy"][[0, 1, 0, 1][seat]]
    assert "game 12" in msg and f"seat {seat}" in msg and repr(agent) in msg and f"action {illegal}" in msg
    assert (e.value.game_index, e.value.seat, e.value.agent, e.value.action) == (12, seat, agent, illegal)
    for name, arr in before.items():
        assert np.array_equal(arr, getattr(st, name)), name
    with pytest.raises(IllegalActionError, match="outside the action space"):
        step(st, np.where(np.arange(4) == 0, 9999, actions))
    step(st, actions)  # the other games go on
    assert int(st.decisions.sum()) == 4


class BadAgent:
    """A Python agent that always answers give_up, which is illegal outside a challenge."""

    name = "bad"

    def act(self, obs, rng):
        return obs.action_space.give_up


def test_python_agent_illegal_action_raises(monkeypatch):
    monkeypatch.setitem(REGISTRY, "bad", BadAgent)
    rules = get_rules("classic")
    with pytest.raises(IllegalActionError, match=r"agent 'bad' at seat \d in game 5 .*give_up"):
        play_games(rules, ["greedy", "bad"], np.array([[1, 1, 1, 1]]), KEY, np.array([5]))


def test_refuses_bad_arguments():
    rules = get_rules("basic")
    with pytest.raises(ValueError, match="unknown agent"):
        play_games(rules, ["nobody"], np.zeros((2, 4)), KEY, np.arange(2))
    with pytest.raises(ValueError, match="seat_agent"):
        play_games(rules, ["greedy"], np.zeros((3, 4)), KEY, np.arange(2))
    with pytest.raises(ValueError, match="players"):
        play_games(rules, ["greedy"], np.zeros((2, 7)), KEY, np.arange(2))
    with pytest.raises(ValueError, match="batch_size"):
        init(rules, 4, 0, KEY)
    st = init(rules, 4, 3, KEY)
    with pytest.raises(ValueError, match="shape"):
        step(st, np.zeros(2, np.int64))


def test_cache_guard_drops_stale_numba_caches_once(tmp_path, monkeypatch):
    """Editing a kernel source deletes the cached machine code once (numba does not track inlined kernels)."""
    from cya_sim.engine import cache_guard

    here = tmp_path / "cya_sim" / "engine" / "compiled"
    agents_dir = tmp_path / "agents"
    for d in (here / "__pycache__", agents_dir / "__pycache__", tmp_path / "tests" / "__pycache__"):
        d.mkdir(parents=True)
    src = here / "kernels.py"
    src.write_text("a = 1\n")
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    monkeypatch.setattr(cache_guard, "_PKG", tmp_path / "cya_sim")
    monkeypatch.setattr(cache_guard, "FLOORS", (here, agents_dir))
    monkeypatch.setattr(cache_guard, "SHARED", ())
    monkeypatch.setattr(cache_guard, "_TESTS", tmp_path / "tests")
    cached = [here / "__pycache__" / "kernels.f-1.py311.nbi", agents_dir / "__pycache__" / "compiled.g-2.py311.nbc",
              tmp_path / "tests" / "__pycache__" / "test_batched_x.h-3.py311.nbi"]
    other = tmp_path / "tests" / "__pycache__" / "test_other.k-1.py311.nbi"
    for f in cached + [other]:
        f.write_text("x")
    assert cache_guard.invalidate_stale_caches("compiled") is True
    assert not any(f.exists() for f in cached) and other.exists()
    cached[0].write_text("x")
    assert cache_guard.invalidate_stale_caches("compiled") is False and cached[0].exists()
    src.write_text("a = 2\n")
    assert cache_guard.invalidate_stale_caches("compiled") is True and not cached[0].exists()


def test_a_python_agents_sets_are_read_only_and_shared_only_when_equal():
    """The adapter gives a set seen before, just as it is, as the same SetView (issue 33 item 5): its known counts
    are read-only (a write raises, as into the reference engine's tuple), and two observations of one row are equal."""
    rules = get_rules("classic")
    st = init(rules, 4, 8, KEY, np.arange(8, dtype=np.int64), np.zeros((8, 4)), ["random"])
    rng = np.random.default_rng(5)
    shared = 0
    for _ in range(200):
        if st.done.all():
            break
        actions = np.zeros(8, np.int64)
        for b in np.flatnonzero(st.done == 0).tolist():
            first, again = reference_observation(st, b), reference_observation(st, b)
            assert_same_observation(first, again)
            for sa, sb in zip(first.stacks, again.stacks):
                for x, y in zip(sa, sb):
                    assert x is y and not x.known.flags.writeable
                    with pytest.raises(ValueError):
                        x.known[0] = 9
                    shared += 1
            actions[b] = rng.choice(np.flatnonzero(first.legal_action_mask))
        step(st, actions)
    assert shared > 100
