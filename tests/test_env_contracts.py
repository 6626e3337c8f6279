"""The RL environments' contracts at their edges (issue 23): PettingZoo AEC, Gymnasium, the vector env, OpenSpiel.

Every call either does what the documentation says or is refused with the
documented error (``ValueError`` and its subclasses ``IllegalActionError`` and
``RulesError``; ``gymnasium.error.ResetNeeded`` before the first ``reset``),
never with an ``AttributeError``/``TypeError`` from inside and never by a
silent coercion (a float action is not played as an int, a float seed is not
truncated). A game stopped by the ``max_rounds`` safeguard is a truncation.
The fuzz tests run every environment's reset/step/observe, and OpenSpiel's
chance nodes, with Hypothesis; the theft game (RULES.md §9) is held to the same
contracts at the end of the file (its turn cap ``max_turns`` is the truncation).
"""

from __future__ import annotations

import os

import numpy as np
import pytest

pytest.importorskip("gymnasium")
pytest.importorskip("pettingzoo")

from gymnasium.error import ResetNeeded
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cya_sim.engine.classic.batched import IllegalActionError as BatchedIllegalActionError
from cya_sim.env import CoverYourAssetsAEC, CoverYourAssetsGym, CoverYourAssetsVectorEnv, IllegalActionError
from cya_sim.game.rules import get_rules

#: Seeds and game indices the environments refuse (cya-sim's seeds are 0 .. 2**63 - 1, integers only).
BAD_SEEDS = [1.5, 3.0, 2**64, 2**63, -1, True, "3", np.float64(2.0), [1]]
#: Actions that are not action ids, whatever their value.
NOT_IDS = ["float", "str", None, True, np.bool_(True), "np.float64", 1.7]


def _non_id(kind, legal: int):
    return {"float": float(legal), "str": str(legal), "np.float64": np.float64(legal)}.get(kind, kind) \
        if isinstance(kind, str) else kind


# -- before reset ----------------------------------------------------------------------------------------
def test_aec_before_reset_raises_reset_needed():
    env = CoverYourAssetsAEC(n_players=3)
    for call in (lambda: env.step(0), lambda: env.observe("player_0"), lambda: env.last(),
                 lambda: env.agent_rng("player_1"), lambda: env.structured_observation("player_2")):
        with pytest.raises(ResetNeeded, match=r"call reset\(\) before"):
            call()
    env.reset(seed=1)
    with pytest.raises(ValueError, match=r"^agent: 'player_9'; allowed: player_0, player_1, player_2$"):
        env.observe("player_9")


def test_gym_and_vector_before_reset_raise_reset_needed():
    gym_env = CoverYourAssetsGym(n_players=3, opponents="random")
    vec = CoverYourAssetsVectorEnv(num_envs=2, n_players=3, opponents="random")
    for call in (lambda: gym_env.step(0), gym_env.action_masks, lambda: vec.step(np.zeros(2, np.int64)),
                 vec.action_masks):
        with pytest.raises(ResetNeeded, match=r"call reset\(\) before"):
            call()


# -- seeds, games, seats, sizes ----------------------------------------------------------------------------
@pytest.mark.parametrize("seed", BAD_SEEDS, ids=repr)
def test_reset_refuses_a_seed_that_is_not_an_integer_from_0_to_2_63(seed):
    """Issue 23: 1.5 was truncated, 2**64 and True accepted, -1 a gymnasium error from inside."""
    msg = r"^seed: .*; allowed: an integer from 0 to 9,223,372,036,854,775,807 or None$"
    aec = CoverYourAssetsAEC(n_players=3)
    gym_env = CoverYourAssetsGym(n_players=3, opponents="random")
    vec = CoverYourAssetsVectorEnv(num_envs=2, n_players=3, opponents="random")
    for env in (aec, gym_env, vec):
        with pytest.raises(ValueError, match=msg):
            env.reset(seed=seed)
    aec.reset(seed=5)  # a game in progress is left as it was by a refused reset
    before = aec.observe(aec.agent_selection)["observation"].copy()
    with pytest.raises(ValueError, match=msg):
        aec.reset(seed=seed)
    assert np.array_equal(aec.observe(aec.agent_selection)["observation"], before)


@pytest.mark.parametrize("game", [1.5, True, -1, "2", 2**63])
def test_reset_refuses_a_game_index_that_is_not_an_integer(game):
    for env in (CoverYourAssetsAEC(n_players=3), CoverYourAssetsGym(n_players=3, opponents="random")):
        with pytest.raises(ValueError, match=r"^options\['game'\]: .*; allowed: an integer from 0 to "):
            env.reset(seed=1, options={"game": game})
    with pytest.raises(ValueError, match=r"^options: 'game=2' \(str\); allowed: None or a dict"):
        CoverYourAssetsAEC(n_players=3).reset(seed=1, options="game=2")


def test_numpy_integer_seeds_and_games_are_integers():
    a, b = CoverYourAssetsAEC(n_players=3), CoverYourAssetsAEC(n_players=3)
    a.reset(seed=np.int64(7), options={"game": np.uint8(2)})
    b.reset(seed=7, options={"game": 2})
    assert np.array_equal(a.observe("player_0")["observation"], b.observe("player_0")["observation"])


@pytest.mark.parametrize("seat", [1.5, True, "0", None, -1, 3])
def test_a_seat_that_is_not_an_integer_seat_is_refused(seat):
    for make in (lambda: CoverYourAssetsGym(n_players=3, seat=seat, opponents="random"),
                 lambda: CoverYourAssetsVectorEnv(num_envs=2, n_players=3, seat=seat, opponents="random")):
        with pytest.raises(ValueError, match=r"^seat: .*; allowed: an integer from 0 to 2$"):
            make()


@pytest.mark.parametrize("num_envs", [True, 0, 2.0, "4", None, 2**21])
def test_num_envs_must_be_an_integer_from_1(num_envs):
    with pytest.raises(ValueError, match=r"^num_envs: .*; allowed: an integer from 1 to 1,048,576$"):
        CoverYourAssetsVectorEnv(num_envs=num_envs, opponents="random")


# -- actions ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("kind", NOT_IDS, ids=repr)
def test_aec_refuses_actions_that_are_not_integers_and_changes_nothing(kind):
    env = CoverYourAssetsAEC(n_players=3)
    env.reset(seed=1)
    agent = env.agent_selection
    before = env.observe(agent)
    legal = int(np.flatnonzero(before["action_mask"])[0])
    with pytest.raises(IllegalActionError, match=rf"^agent '{agent}' at seat \d in game 0 chose illegal action "):
        env.step(_non_id(kind, legal))
    after = env.observe(agent)
    assert env.agent_selection == agent and np.array_equal(after["observation"], before["observation"])
    env.step(np.int16(legal))  # a NumPy integer is an id
    assert env.agent_selection != agent or not np.array_equal(env.observe(agent)["observation"],
                                                              before["observation"])


@pytest.mark.parametrize("kind", NOT_IDS, ids=repr)
def test_gym_refuses_actions_that_are_not_integers(kind):
    """``illegal_action="raise"`` raises; the default ``"end"`` ends the episode with reward -1 and says why."""
    env = CoverYourAssetsGym(n_players=3, opponents="random", illegal_action="raise")
    env.reset(seed=2)
    legal = int(np.flatnonzero(env.action_masks())[0])
    with pytest.raises(IllegalActionError, match=r"^learner at seat 0 in game 0 chose illegal action "):
        env.step(_non_id(kind, legal))
    ended = CoverYourAssetsGym(n_players=3, opponents="random")
    ended.reset(seed=2)
    _, reward, terminated, truncated, info = ended.step(_non_id(kind, legal))
    assert (reward, terminated, truncated) == (-1.0, True, False)
    assert "chose illegal action" in info["illegal_action"]


@pytest.mark.parametrize("make", [
    lambda legal: legal + 0.7, lambda legal: legal.astype(np.float64), lambda legal: legal.astype(bool),
    lambda legal: legal.astype(str), lambda legal: legal[:1], lambda legal: legal.reshape(2, 1),
    lambda legal: [int(legal[0]), None], lambda legal: np.array([2**64 - 1, 0], np.uint64),
], ids=["legal+0.7", "float64", "bool", "str", "too-short", "2x1", "with-None", "uint64-huge"])
def test_vector_env_refuses_action_arrays_that_are_not_b_integers_and_changes_no_row(make):
    """Issue 23: ``legal + 0.7`` was truncated to ``legal`` and played."""
    vec = CoverYourAssetsVectorEnv(num_envs=2, n_players=3, opponents="random")
    vec.reset(seed=4)
    legal = np.argmax(vec.action_masks(), axis=1)
    before = vec.action_masks()
    with pytest.raises(IllegalActionError, match=r"^actions: .*(allowed: \(2,\) integer action ids|does not fit)"):
        vec.step(make(legal))
    assert np.array_equal(vec.action_masks(), before)
    _, _, terminated, truncated, _ = vec.step(legal.astype(np.int32))  # any integer dtype is ids
    assert terminated.shape == truncated.shape == (2,)


def test_vector_env_still_names_an_illegal_integer_action():
    vec = CoverYourAssetsVectorEnv(num_envs=2, n_players=3, opponents="random")
    vec.reset(seed=4)
    actions = np.argmax(vec.action_masks(), axis=1)
    actions[0] = int(np.flatnonzero(~vec.action_masks()[0])[0])
    with pytest.raises(BatchedIllegalActionError, match=r"at seat 0 in game 0 returned illegal action"):
        vec.step(actions)


# -- max_rounds: a truncation ----------------------------------------------------------------------------
CAPPED = get_rules("classic", max_rounds=1)  # after one round nobody has $1,000,000: the safeguard stops it


def test_aec_reports_the_round_cap_as_a_truncation_with_a_flag():
    env = CoverYourAssetsAEC(rules=CAPPED, n_players=4)
    env.reset(seed=3)
    rng = np.random.default_rng(0)
    while not any(env.terminations.values()) and not any(env.truncations.values()):
        mask = env.observe(env.agent_selection)["action_mask"]
        env.step(int(rng.choice(np.flatnonzero(mask))))
    assert env.game.capped
    assert all(env.truncations.values()) and not any(env.terminations.values())
    assert all(env.infos[a]["capped"] is True for a in env.agents)
    assert sum(env._cumulative_rewards.values()) == pytest.approx(1.0)  # the win shares as the totals stand
    _, _, terminated, truncated, info = env.last()
    assert (terminated, truncated, info["capped"]) == (False, True, True)


def test_gym_reports_the_round_cap_as_a_truncation_with_a_flag():
    env = CoverYourAssetsGym(rules=CAPPED, n_players=4, opponents="random", reward="win_share")
    env.reset(seed=3)
    rng = np.random.default_rng(0)
    while True:
        _, reward, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
        if terminated or truncated:
            break
    assert (terminated, truncated, info["capped"]) == (False, True, True)
    assert 0.0 <= reward <= 1.0
    normal = CoverYourAssetsGym(n_players=4, opponents="random")
    normal.reset(seed=3)
    while True:
        _, _, terminated, truncated, info = normal.step(int(rng.choice(np.flatnonzero(normal.action_masks()))))
        if terminated or truncated:
            break
    assert (terminated, truncated, "capped" in info) == (True, False, False)


def test_vector_env_reports_the_round_cap_as_a_truncation_with_a_flag():
    vec = CoverYourAssetsVectorEnv(num_envs=4, rules=CAPPED, n_players=4, opponents="random", reward="win_share")
    vec.reset(seed=3)
    rng = np.random.default_rng(0)
    seen = 0
    for _ in range(2000):
        masks = vec.action_masks()
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks], np.int64)
        _, reward, terminated, truncated, info = vec.step(actions)
        assert not (terminated & truncated).any()
        if truncated.any():
            assert np.array_equal(info["capped"], truncated) and np.array_equal(info["_final_game"], truncated)
            assert ((reward >= 0) & (reward <= 1)).all()
            seen += int(truncated.sum())
        if seen >= 6:
            break
    assert seen >= 6, "no game reached the round cap"


# -- OpenSpiel -------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def spiel_game():
    pyspiel = pytest.importorskip("pyspiel")
    from cya_sim.env.openspiel import register_openspiel

    register_openspiel()
    return pyspiel.load_game("python_cover_your_assets", {"players": 2, "rounds": 2})


def _to_player_node(game, seed=0):
    rng = np.random.default_rng(seed)
    s = game.new_initial_state()
    while s.is_chance_node():
        a, p = zip(*s.chance_outcomes())
        s.apply_action(int(rng.choice(a, p=np.array(p) / sum(p))))
    return s


@pytest.mark.parametrize("outcome", [100_000, -3, -1, 2, 1.5, True, "0"])
def test_openspiel_first_dealer_outcomes_outside_chance_outcomes_are_refused(spiel_game, outcome):
    s = spiel_game.new_initial_state()
    with pytest.raises(ValueError, match=r"^(chance outcome .* is not one of chance_outcomes\(\)|action .* allowed: "
                                         r"a chance outcome of chance_outcomes\(\))"):
        s.apply_action(outcome)
    assert s.is_chance_node() and [a for a, _ in s.chance_outcomes()] == [0, 1] and s.history() == []


def test_openspiel_more_copies_of_a_card_than_the_deck_holds_are_refused(spiel_game):
    """Issue 23: an 11th Piggy Bank was accepted and later died in ZeroDivisionError."""
    s = spiel_game.new_initial_state()
    s.apply_action(0)
    for _ in range(10):
        s.apply_action(0)
    assert 0 not in [a for a, _ in s.chance_outcomes()]
    with pytest.raises(ValueError, match=r"^chance outcome 0 is not one of chance_outcomes\(\) \(card types with "
                                         r"copies left to deal 1, 2"):
        s.apply_action(0)
    with pytest.raises(ValueError, match=r"^chance outcome 12 is not one of"):
        s.apply_action(12)
    assert len(s.history()) == 11


def test_openspiel_apply_action_minus_one_is_a_value_error(spiel_game):
    """Issue 23: -1 (OpenSpiel's invalid action) surfaced a raw SpielError."""
    s = _to_player_node(spiel_game)
    before = s.history()
    for bad in (-1, 1.5, None, True):
        with pytest.raises(ValueError, match=r"^action .*allowed: an id of legal_actions\(\)$"):
            s.apply_action(bad)
    illegal = next(a for a in range(spiel_game.num_distinct_actions()) if a not in s.legal_actions())
    with pytest.raises(ValueError, match=r"chose illegal action"):
        s.apply_action(illegal)
    assert s.history() == before


def test_openspiel_random_sim_test_with_serialization(spiel_game):
    import pyspiel

    pyspiel.random_sim_test(spiel_game, num_sims=2, serialize=True, verbose=False)


def test_openspiel_deserialized_state_knows_its_rules_and_plays_on_to_the_next_deal(spiel_game):
    """Issue 23: after deserialize_game_and_state, action_to_string raised AttributeError and the next deal failed."""
    import pyspiel

    s = _to_player_node(spiel_game, seed=5)
    rng = np.random.default_rng(5)
    for _ in range(7):
        s.apply_action(int(rng.choice(s.legal_actions())))
    game2, s2 = pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(spiel_game, s))
    assert s2.history() == s.history() and str(s2) == str(s)
    a = s2.legal_actions()[0]
    assert s2.action_to_string(s2.current_player(), a) == s.action_to_string(s.current_player(), a)
    # play both on, the same choices, through the chance nodes of round 2 to the end
    while not s.is_terminal():
        if s.is_chance_node():
            a = s.chance_outcomes()[0][0]
        else:
            a = int(rng.choice(s.legal_actions()))
        assert s2.legal_actions() == s.legal_actions() if not s.is_chance_node() else \
            s2.chance_outcomes() == s.chance_outcomes()
        s.apply_action(a)
        s2.apply_action(a)
    assert s2.is_terminal() and s2.returns() == s.returns() and sum(s2.returns()) == pytest.approx(1.0)
    assert game2.rules == spiel_game.rules and game2.n_players == 2
    assert game2.deserialize_state(s.serialize()).history() == s.history()


# -- fuzz ------------------------------------------------------------------------------------------------
#: Examples per fuzz property: 25 by default (a few seconds); CYA_ENV_FUZZ_EXAMPLES=N for a longer run, whose
#: per-call tally (accepted / refused) is printed with ``pytest -s``.
FUZZ_EXAMPLES = int(os.environ.get("CYA_ENV_FUZZ_EXAMPLES", "25"))
FUZZ = settings(max_examples=FUZZ_EXAMPLES, deadline=None, derandomize=FUZZ_EXAMPLES == 25,
                suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
TALLY: dict[str, int] = {"accepted": 0, "refused": 0}


@pytest.fixture(scope="module", autouse=True)
def _print_tally():
    yield
    if "CYA_ENV_FUZZ_EXAMPLES" in os.environ:
        print(f"\nenv fuzz: {FUZZ_EXAMPLES} examples per property; calls accepted {TALLY['accepted']:,}, refused "
              f"with the documented error {TALLY['refused']:,}; any other exception or a wrong acceptance fails")
#: The documented refusals: ValueError (IllegalActionError, RulesError are ValueErrors) and ResetNeeded.
DOCUMENTED = (ValueError, ResetNeeded)

values = st.one_of(st.integers(-3, 200), st.integers(-2**70, 2**70), st.floats(allow_nan=True),
                   st.sampled_from([None, True, False, "0", "1", "", [], [0], {}, np.float64(1.0), np.int8(1),
                                    np.bool_(False), 2**63, 2**64]))
#: An operation: (kind, value); "legal" steps a legal action, "legal+0.5" a float of one.
ops = st.lists(st.tuples(st.sampled_from(["reset", "reset_game", "step", "legal", "legal_float", "observe"]),
                         values), min_size=1, max_size=40)


def _fuzz_outcome(call, *args, **kwargs):
    """'ok' or 'refused' (a documented error); any other exception fails the test with its traceback."""
    try:
        call(*args, **kwargs)
    except DOCUMENTED:
        TALLY["refused"] += 1
        return "refused"
    TALLY["accepted"] += 1
    return "ok"


def _accepted_only_if(ok: bool, outcome: str, what: str) -> None:
    assert ok or outcome == "refused", f"wrongly accepted: {what}"


@pytest.mark.parametrize("rules", ["basic", "theft"])
@FUZZ
@given(ops=ops)
def test_fuzz_aec_reset_step_observe(rules, ops):
    env = CoverYourAssetsAEC(n_players=3, rules=rules)
    from cya_sim.env.game import is_int

    for kind, v in ops:
        started = env.game.started
        if kind == "reset":
            r = _fuzz_outcome(env.reset, seed=v)
            _accepted_only_if(v is None or (is_int(v) and 0 <= v < 2**63), r, f"reset(seed={v!r})")
        elif kind == "reset_game":
            r = _fuzz_outcome(env.reset, seed=1, options={"game": v})
            _accepted_only_if(v is None or (is_int(v) and 0 <= v < 2**63), r, f"options game {v!r}")
        elif kind == "observe":
            r = _fuzz_outcome(env.observe, v if isinstance(v, str) else f"player_{v}")
        elif not started or env.game.over:
            r = _fuzz_outcome(env.step, v)
            assert not started and r == "refused" or started
        else:
            mask = env.observe(env.agent_selection)["action_mask"].astype(bool)
            legal = int(np.flatnonzero(mask)[0])
            action = {"legal": legal, "legal_float": legal + 0.0}.get(kind, v)
            r = _fuzz_outcome(env.step, action)
            ok = is_int(action) and 0 <= int(action) < mask.size and mask[int(action)]
            _accepted_only_if(ok, r, f"step({action!r})")
            assert r == "ok" or not ok


@pytest.mark.parametrize("rules", ["basic", "theft"])
@FUZZ
@given(ops=ops)
def test_fuzz_gym_reset_step(rules, ops):
    env = CoverYourAssetsGym(n_players=3, rules=rules, opponents="random", illegal_action="raise")
    from cya_sim.env.game import is_int

    done = True
    for kind, v in ops:
        if kind in ("reset", "reset_game"):
            seed, opts = (v, None) if kind == "reset" else (1, {"game": v})
            r = _fuzz_outcome(env.reset, seed=seed, options=opts)
            _accepted_only_if(v is None or (is_int(v) and 0 <= v < 2**63), r, f"{kind} {v!r}")
            done = done and r == "refused"
        elif kind == "observe":
            _fuzz_outcome(env.action_masks)
        elif done:
            continue
        else:
            mask = env.action_masks()
            legal = int(np.flatnonzero(mask)[0])
            action = {"legal": legal, "legal_float": legal + 0.0}.get(kind, v)
            out: list = []
            r = _fuzz_outcome(lambda act=action, sink=out: sink.append(env.step(act)))
            ok = is_int(action) and 0 <= int(action) < mask.size and mask[int(action)]
            _accepted_only_if(ok, r, f"step({action!r})")
            if out:
                _, _, terminated, truncated, _ = out[0]
                done = terminated or truncated


@pytest.mark.parametrize("rules", ["basic", "theft"])
@FUZZ
@given(ops=ops)
def test_fuzz_vector_reset_step(rules, ops):
    vec = CoverYourAssetsVectorEnv(num_envs=2, n_players=3, rules=rules, opponents="random")
    from cya_sim.env.game import is_int

    started = False
    for kind, v in ops:
        if kind in ("reset", "reset_game"):
            r = _fuzz_outcome(vec.reset, seed=v)
            _accepted_only_if(v is None or (is_int(v) and 0 <= v < 2**63), r, f"reset {v!r}")
            started = started or r == "ok"
        elif kind == "observe":
            assert _fuzz_outcome(vec.action_masks) == ("ok" if started else "refused")
        elif not started:
            assert _fuzz_outcome(vec.step, np.zeros(2, np.int64)) == "refused"
        else:
            masks = vec.action_masks()
            legal = np.argmax(masks, axis=1)
            if kind == "legal":
                actions, ok = legal, True
            elif kind == "legal_float":
                actions, ok = legal + 0.5, False
            else:  # row 0 gets the fuzzed value, row 1 a legal id
                actions = [v, int(legal[1])]
                ok = is_int(v) and 0 <= int(v) < masks.shape[1] and bool(masks[0, int(v)])
            r = _fuzz_outcome(vec.step, actions)
            _accepted_only_if(ok, r, f"step({actions!r})")
            assert (r == "ok") == ok


@FUZZ
@given(moves=st.lists(st.one_of(st.just("outcome"), st.just("legal"), values), min_size=1, max_size=300))
def test_fuzz_openspiel_chance_nodes_and_actions(spiel_game, moves):
    """Chance outcomes and player actions: accepted exactly when chance_outcomes()/legal_actions() list them."""
    s = spiel_game.new_initial_state()
    for m in moves:
        if s.is_terminal():
            break
        allowed = [a for a, _ in s.chance_outcomes()] if s.is_chance_node() else s.legal_actions()
        a = allowed[len(s.history()) % len(allowed)] if m in ("outcome", "legal") else m
        before = list(s.history())
        r = _fuzz_outcome(s.apply_action, a)
        from cya_sim.env.game import is_int

        ok = is_int(a) and int(a) in allowed
        _accepted_only_if(ok, r, f"apply_action({a!r}) with {allowed[:5]}...")
        assert (r == "ok") == ok
        assert s.history() == (before + [int(a)] if r == "ok" else before)


# -- the theft game (RULES.md §9): the same contracts ----------------------------------------------------
THEFT_CAPPED = get_rules("theft", max_turns=2)  # R-T-END gives 2 more turns at 3 seats: the cap comes first


def test_theft_envs_before_reset_raise_reset_needed_and_refuse_bad_seeds():
    aec = CoverYourAssetsAEC(rules="theft", n_players=3)
    gym_env = CoverYourAssetsGym(rules="theft", n_players=3, opponents="random")
    vec = CoverYourAssetsVectorEnv(num_envs=2, rules="theft", n_players=3, opponents="random")
    for call in (lambda: aec.step(0), lambda: aec.observe("player_0"), lambda: gym_env.step(0), vec.action_masks):
        with pytest.raises(ResetNeeded, match=r"call reset\(\) before"):
            call()
    for env in (aec, gym_env, vec):
        with pytest.raises(ValueError, match=r"^seed: .*; allowed: an integer from 0 to "):
            env.reset(seed=1.5)


def test_theft_envs_take_theft_agents_only():
    with pytest.raises(ValueError, match=r"^opponents: .*card_counter"):
        CoverYourAssetsGym(rules="theft", n_players=3, opponents="card_counter")
    with pytest.raises(ValueError, match=r"^opponents: 'agents.theft.registry:TheftGreedyAgent' has no compiled form"):
        CoverYourAssetsVectorEnv(num_envs=2, rules="theft", n_players=3, opponents="agents.theft.registry:TheftGreedyAgent")
    env = CoverYourAssetsGym(rules="theft", n_players=3)  # the theft game's default opponents
    assert env.seat_specs == ["learner", "greedy", "defender"]


@pytest.mark.parametrize("kind", NOT_IDS, ids=repr)
def test_theft_aec_and_gym_refuse_actions_that_are_not_integers(kind):
    env = CoverYourAssetsAEC(rules="theft", n_players=3)
    env.reset(seed=1)
    agent = env.agent_selection
    before = env.observe(agent)
    legal = int(np.flatnonzero(before["action_mask"])[0])
    with pytest.raises(IllegalActionError, match=rf"^agent '{agent}' at seat \d in game 0 chose illegal action "):
        env.step(_non_id(kind, legal))
    assert np.array_equal(env.observe(agent)["observation"], before["observation"])
    ended = CoverYourAssetsGym(rules="theft", n_players=3, opponents="random")
    ended.reset(seed=2)
    _, reward, terminated, truncated, info = ended.step(_non_id(kind, legal))
    assert (reward, terminated, truncated) == (-1.0, True, False) and "chose illegal action" in info["illegal_action"]


def test_theft_vector_env_refuses_bad_action_arrays_and_names_an_illegal_action():
    vec = CoverYourAssetsVectorEnv(num_envs=2, rules="theft", n_players=3, opponents="random")
    vec.reset(seed=4)
    before = vec.action_masks()
    legal = np.argmax(before, axis=1)
    with pytest.raises(IllegalActionError, match=r"^actions: .*allowed: \(2,\) integer action ids"):
        vec.step(legal + 0.7)
    actions = legal.copy()
    actions[0] = int(np.flatnonzero(~before[0])[0])
    with pytest.raises(IllegalActionError, match=r"agent 'learner' at seat 0 in game 0 returned illegal action"):
        vec.step(actions)
    assert np.array_equal(vec.action_masks(), before)  # no row changed
    _, _, terminated, truncated, _ = vec.step(legal.astype(np.int32))
    assert terminated.shape == truncated.shape == (2,)


def test_theft_turn_cap_is_a_truncation_in_every_env():
    """``max_turns`` (a safeguard, not a rule) stops the game: a truncation with ``capped``, as ``max_rounds``."""
    rng = np.random.default_rng(0)
    env = CoverYourAssetsAEC(rules=THEFT_CAPPED, n_players=3)
    env.reset(seed=3)
    while not any(env.terminations.values()) and not any(env.truncations.values()):
        env.step(int(rng.choice(np.flatnonzero(env.observe(env.agent_selection)["action_mask"]))))
    assert env.game.capped and all(env.truncations.values()) and not any(env.terminations.values())
    assert all(env.infos[a]["capped"] is True for a in env.agents)
    g = CoverYourAssetsGym(rules=THEFT_CAPPED, n_players=3, opponents="random", reward="win_share")
    g.reset(seed=3)
    while True:
        _, reward, terminated, truncated, info = g.step(int(rng.choice(np.flatnonzero(g.action_masks()))))
        if terminated or truncated:
            break
    assert (terminated, truncated, info["capped"]) == (False, True, True) and 0.0 <= reward <= 1.0
    vec = CoverYourAssetsVectorEnv(num_envs=2, rules=THEFT_CAPPED, n_players=3, opponents="random")
    vec.reset(seed=3)
    seen = 0
    for _ in range(200):
        masks = vec.action_masks()
        _, _, terminated, truncated, info = vec.step(np.array([rng.choice(np.flatnonzero(m)) for m in masks]))
        assert not terminated.any()
        if truncated.any():
            assert np.array_equal(info["capped"], truncated)
            seen += int(truncated.sum())
    assert seen >= 4


def test_theft_openspiel_refuses_bad_moves_and_parameters():
    pyspiel = pytest.importorskip("pyspiel")
    from cya_sim.env.openspiel import register_openspiel

    register_openspiel()
    game = pyspiel.load_game("python_cover_your_assets", {"players": 2, "rules": "theft"})
    s = game.new_initial_state()
    with pytest.raises(ValueError, match=r"^chance outcome 5 is not one of chance_outcomes\(\) \(first player"):
        s.apply_action(5)
    s = _to_player_node(game, seed=3)
    for bad in (-1, 1.5, None, True):
        with pytest.raises(ValueError, match=r"^action .*allowed: an id of legal_actions\(\)$"):
            s.apply_action(bad)
    illegal = next(a for a in range(game.num_distinct_actions()) if a not in s.legal_actions())
    with pytest.raises(IllegalActionError, match=rf"^seat {s.current_player()} chose illegal action {illegal} "):
        s.apply_action(illegal)
    for params, msg in (({"rounds": 2}, r"the theft game has no rounds"),
                        ({"options": "compulsory_defence=true"}, r"is not key:value"),
                        ({"options": "no_such_option:1"}, r"unknown rule option 'no_such_option'")):
        with pytest.raises(Exception, match=msg):
            pyspiel.load_game("python_cover_your_assets", {"players": 2, "rules": "theft", **params})


def test_theft_openspiel_deserialized_state_plays_on_to_the_end():
    pyspiel = pytest.importorskip("pyspiel")
    from cya_sim.env.openspiel import register_openspiel

    register_openspiel()
    game = pyspiel.load_game("python_cover_your_assets", {"players": 3, "rules": "theft",
                                                          "options": "compulsory_defence:true"})
    s = _to_player_node(game, seed=5)
    rng = np.random.default_rng(5)
    for _ in range(9):
        s.apply_action(int(rng.choice(s.legal_actions())))
    game2, s2 = pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(game, s))
    assert s2.history() == s.history() and str(s2) == str(s) and game2.rules == game.rules
    while not s.is_terminal():
        if s.is_chance_node():
            assert s2.chance_outcomes() == s.chance_outcomes()
            a = s.chance_outcomes()[0][0]
        else:
            assert s2.legal_actions() == s.legal_actions()
            a = int(rng.choice(s.legal_actions()))
            assert s2.action_to_string(s2.current_player(), a) == s.action_to_string(s.current_player(), a)
        s.apply_action(a)
        s2.apply_action(a)
    assert s2.returns() == s.returns() and sum(s.returns()) == pytest.approx(1.0)


# -- constructor arguments (issue 29) ----------------------------------------------------------------------
@pytest.mark.parametrize("make", ["aec", "gym", "vector", "pettingzoo"])
@pytest.mark.parametrize(("kwargs", "error", "message"), [
    ({"n_players": "4"}, ValueError, r"^n_players: '4' \(str\); allowed: an integer from 2 to 12$"),
    ({"n_players": 1.5}, ValueError, r"^n_players: 1\.5 \(float\); allowed: an integer from 2 to 12$"),
    ({"n_players": True}, ValueError, r"^n_players: True \(bool\); allowed: an integer from 2 to 12$"),
    ({"n_players": 10**400}, ValueError, r"^n_players: an integer of about 401 digits \(int\); allowed: an integer"),
    ({"rules": "theft", "n_players": "3"}, ValueError, r"^n_players: '3' \(str\); allowed: an integer from 2 to 6$"),
    ({"rules": 3}, TypeError, r"^rules: 3 \(int\); allowed: a preset name \(classic, .*theft\) or a RuleSet"),
    ({"rules": None}, TypeError, r"^rules: None \(NoneType\); allowed: a preset name"),
    ({"stack_depth": "x"}, ValueError, r"^stack_depth: 'x' \(str\); allowed: an int >= 1 or None"),
    ({"stack_depth": 2.5}, ValueError, r"^stack_depth: 2\.5 \(float\); allowed: an int >= 1 or None"),
    ({"n_player": 3}, TypeError, r"^n_player: unknown argument of CoverYourAssets\w+; allowed: (num_envs, )?rules, n_players, "),
], ids=["players_str", "players_float", "players_bool", "players_400_digits", "theft_players_str", "rules_int",
        "rules_none", "stack_depth_str", "stack_depth_float", "unknown_keyword"])
def test_environment_constructors_refuse_wrong_typed_arguments_naming_them(make, kwargs, error, message):
    """Issue 29: ``n_players="4"``, ``rules=3``, a table of 10**400 seats (it used to be allocated: a hang) or an
    unknown keyword raised a bare TypeError/AttributeError from inside, or nothing; each is a one-line
    ValueError/TypeError naming the argument and the allowed values, on every public constructor."""
    from cya_sim.env.cover_your_assets_v0 import env

    ctor = {"aec": CoverYourAssetsAEC, "gym": CoverYourAssetsGym, "pettingzoo": env,
            "vector": lambda **k: CoverYourAssetsVectorEnv(num_envs=2, **k)}[make]
    with pytest.raises(error, match=message) as e:
        ctor(**kwargs)
    assert "\n" not in str(e.value)


@pytest.mark.parametrize(("make", "kwargs", "message"), [
    ("aec", {"seat_names": 3}, r"^seat_names: 3 \(int\); allowed: None or a list of 4 strings \(one per seat\)$"),
    ("aec", {"seat_names": ["a", "b"]}, r"^seat_names: \['a', 'b'\] \(list\); allowed: None or a list of 4 strings"),
    ("gym", {"opponents": 3}, r"^opponents: 3 \(int\); allowed: None \(the default\), agent specs comma-separated"),
    ("vector", {"opponents": [1, 2]}, r"^opponents: \[1, 2\] \(list\); allowed: None"),
    ("sb3", {"dense_weight": "x"}, r"^dense_weight: 'x' \(str\); allowed: a finite number"),
    ("sb3", {"dense_weight": 10**400}, r"^dense_weight: an integer of about 401 digits \(int\); allowed: a finite"),
])
def test_environment_constructor_arguments_of_one_env_are_checked(make, kwargs, message):
    """Issue 29: the arguments only some constructors take (names, opponents, the SB3 env's dense weight)."""
    if make == "sb3":
        from cya_sim.env.sb3 import ViewFeatureVectorEnv as ctor
        kwargs = {"num_envs": 2, **kwargs}
    else:
        ctor = {"aec": CoverYourAssetsAEC, "gym": CoverYourAssetsGym,
                "vector": lambda **k: CoverYourAssetsVectorEnv(num_envs=2, **k)}[make]
    with pytest.raises(ValueError, match=message):
        ctor(**kwargs)


@pytest.mark.parametrize(("params", "error", "message"), [
    ({"players": "x"}, ValueError, r"^n_players: 'x' \(str\); allowed: an integer from 2 to 12$"),
    ({"players": 2.5}, ValueError, r"^n_players: 2\.5 \(float\); allowed: an integer from 2 to 12$"),
    ({"rules": 3}, TypeError, r"^rules: 3 \(int\); allowed: a preset name \(classic, "),
    ({"options": 3}, TypeError, r"^options: 3 \(int\); allowed: a string of key:value;key:value"),
    ({"rounds": 1.5}, ValueError, r"^rounds: 1\.5 \(float\); allowed: an integer from 0 to 2,147,483,647$"),
    ({"rounds": 10**30}, ValueError, r"^rounds: 1000000000000000000000000000000 \(int\); allowed: an integer from 0"),
    ({"max_rounds": "x"}, ValueError, r"^max_rounds: 'x' \(str\); allowed: an integer from 0 to 2,147,483,647$"),
    ({"nosuch": 1}, ValueError, (r"^nosuch: unknown game parameter; allowed: players, rules, rounds, max_rounds, "
                                r"options$")),
    ({"options": "hand_size:" + "9" * 5000}, ValueError, r"^options: hand_size: an integer of more than 4,300"),
], ids=["players_str", "players_float", "rules_int", "options_int", "rounds_float", "rounds_1e30", "max_rounds_str",
        "unknown", "option_5000_digits"])
def test_openspiel_game_parameters_of_the_wrong_type_are_refused_naming_them(params, error, message):
    """Issue 29: the OpenSpiel game built from a parameter dict (as ``pyspiel.load_game`` does after its own type
    check, and as a direct construction does without one): ``players="x"`` was a bare "invalid literal for int()",
    ``players=2.5`` and ``rounds=1.5`` were truncated, an unknown parameter was ignored, ``rounds=10**30`` a
    pybind11 RuntimeError."""
    pytest.importorskip("pyspiel")
    from cya_sim.env.openspiel import CoverYourAssetsGame

    with pytest.raises(error, match=message):
        CoverYourAssetsGame(params)
