"""Each RL toolkit's own conformance checks on every preset, and the conventions they rest on.

- PettingZoo 1.24+: ``api_test``, ``render_test`` and ``seed_test`` on ``cover_your_assets_v0.env()``
  (the standard wrappers) and ``raw_env()``; ``TerminateIllegalWrapper``'s -1 for an illegal action.
- Gymnasium 1.x: ``check_env`` on ``gym.make("cya_sim/CoverYourAssets-v0", ...)`` (``env.spec`` set),
  ``gym.make_vec`` (the batched vector env), finite observation bounds that hold in played games,
  and SAME_STEP's ``final_obs`` equal to the single-game environment's last observation.
- Stable-Baselines3: ``stable_baselines3.common.env_checker.check_env``, only where SB3 is installed
  (the ``train`` extra, not the ``test`` or ``rl`` ones: it pulls in torch).
- OpenSpiel: the game registered by importing :mod:`cya_sim.env`, ``max_game_length`` from the rules
  and never exceeded, and an information state with perfect recall.

The theft game (RULES.md §9) passes the same checks, at its default options and with two of its
choices changed (``gold_theft_cancel``, ``compulsory_defence``), at the end of this file.
"""

from __future__ import annotations

import hashlib
import pickle

import numpy as np
import pytest

pytest.importorskip("pettingzoo")
gym = pytest.importorskip("gymnasium")

from gymnasium.utils.env_checker import check_env as gym_check_env
from pettingzoo.test import api_test, render_test, seed_test

import cya_sim.env  # registers the Gymnasium id and the OpenSpiel game
from cya_sim.env import CoverYourAssetsGym, IllegalActionError, bounds, cover_your_assets_v0
from cya_sim.env.registration import GYM_ID
from cya_sim.game.rules import PRESETS, get_rules
from cya_sim.game.theft.rules import TheftRuleSet

#: Every preset of the classic family at a table it allows: 4 players, the drafts at 2 and 3.
TABLES = [(name, min(4, rules.max_players)) for name, rules in PRESETS.items()]
IDS = [name for name, _ in TABLES]


# -- PettingZoo --------------------------------------------------------------------------------------------
@pytest.mark.filterwarnings("ignore::UserWarning")  # api_test's generic notes on Dict observations
@pytest.mark.parametrize(("preset", "players"), TABLES, ids=IDS)
def test_pettingzoo_api_test_of_the_wrapped_env(preset, players):
    env = cover_your_assets_v0.env(rules=preset, n_players=players)
    assert type(env).__name__ == "OrderEnforcingWrapper"
    assert env.unwrapped.metadata["name"] == "cover_your_assets_v0"
    api_test(env, num_cycles=100)


@pytest.mark.parametrize(("preset", "players"), TABLES, ids=IDS)
def test_pettingzoo_render_test_in_ansi_human_and_rgb_array(preset, players, capsys):
    render_test(lambda render_mode=None: cover_your_assets_v0.env(rules=preset, n_players=players,
                                                                   render_mode=render_mode))
    out = capsys.readouterr().out  # human mode prints the readable log of `cya-sim play`
    assert f"game 0: {players} players, rules {preset}" in out and "round 1: seat " in out


@pytest.mark.parametrize(("preset", "players"), TABLES, ids=IDS)
def test_pettingzoo_seed_test(preset, players):
    seed_test(lambda: cover_your_assets_v0.env(rules=preset, n_players=players), num_cycles=100)


def test_metadata_and_no_parallel_env():
    raw = cover_your_assets_v0.raw_env(n_players=3)
    assert raw.metadata["render_modes"] == ["ansi", "human", "rgb_array"]
    assert raw.metadata["is_parallelizable"] is False
    assert not hasattr(cover_your_assets_v0, "parallel_env")  # turn-based: no parallel API (module docstring)
    assert cya_sim.env.env is cover_your_assets_v0.env


def _first_illegal(env) -> tuple[str, int]:
    agent = env.agent_selection
    return agent, int(np.flatnonzero(env.observe(agent)["action_mask"] == 0)[0])


def test_an_illegal_action_ends_the_game_with_minus_one_for_the_offender(caplog):
    env = cover_your_assets_v0.env(rules="classic", n_players=3)
    env.reset(seed=4)
    offender, bad = _first_illegal(env)
    env.step(bad)
    assert "Illegal move made, game terminating with current player losing" in caplog.text  # PettingZoo's log
    assert all(env.terminations.values()) and all(env.truncations.values())
    assert env.rewards == {a: (-1.0 if a == offender else 0.0) for a in env.possible_agents}
    seen = {}
    for agent in env.agent_iter():
        _, reward, terminated, truncated, _ = env.last()
        assert terminated and truncated
        seen[agent] = reward
        env.step(None)
    assert seen == {a: (-1.0 if a == offender else 0.0) for a in env.possible_agents}


def test_illegal_action_raise_keeps_the_named_error():
    env = cover_your_assets_v0.env(n_players=3, illegal_action="raise")
    env.reset(seed=4, options={"game": 2})
    offender, bad = _first_illegal(env)
    with pytest.raises(IllegalActionError, match=rf"agent '{offender}' at seat \d in game 2 chose illegal action"):
        env.step(bad)
    with pytest.raises(ValueError, match="illegal_action: 'end'; allowed: terminate, raise"):
        cover_your_assets_v0.env(illegal_action="end")


def test_human_render_prints_the_log_as_it_happens(capsys):
    env = cover_your_assets_v0.raw_env(n_players=3, render_mode="human")
    env.reset(seed=5, options={"game": 2})
    assert capsys.readouterr().out.startswith("game 2: 3 players, rules classic\nround 1: seat ")
    env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
    assert "seat " in capsys.readouterr().out
    assert env.render() is None


# -- Gymnasium ---------------------------------------------------------------------------------------------
@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize(("preset", "players"), TABLES, ids=IDS)
def test_gymnasium_check_env_of_the_registered_id(preset, players):
    env = gym.make(GYM_ID, rules=preset, n_players=players, opponents="greedy")
    assert env.spec.id == GYM_ID and env.spec.kwargs == {"rules": preset, "n_players": players,
                                                         "opponents": "greedy"}
    assert isinstance(env.unwrapped, CoverYourAssetsGym)
    space = env.observation_space
    assert np.isfinite(space.high).all() and space.is_bounded("both")
    gym_check_env(env.unwrapped, skip_render_check=False)


@pytest.mark.parametrize("mode", ["ansi", "human"])
def test_gymnasium_check_env_renders_in_both_modes(mode, capsys):
    env = gym.make(GYM_ID, n_players=3, opponents="random", render_mode=mode)
    gym_check_env(env.unwrapped, skip_render_check=False)
    env.reset(seed=2, options={"game": 1})
    text = env.render()
    if mode == "ansi":
        assert text.startswith("game 1: 3 players, rules classic")
    else:
        assert text is None and "game 1: 3 players, rules classic" in capsys.readouterr().out


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize(("preset", "players"), TABLES, ids=IDS)
def test_stable_baselines3_check_env(preset, players):
    """Runs only where stable-baselines3 is installed (the train extra, not in make test: it pulls in torch)."""
    sb3_checker = pytest.importorskip("stable_baselines3.common.env_checker")
    sb3_checker.check_env(gym.make(GYM_ID, rules=preset, n_players=players, opponents="random").unwrapped,
                          warn=True, skip_render_check=True)


@pytest.mark.parametrize(("preset", "players"), TABLES, ids=IDS)
def test_make_vec_gives_the_batched_env_and_observations_stay_in_bounds(preset, players):
    envs = gym.make_vec(GYM_ID, num_envs=4, rules=preset, n_players=players, opponents="greedy")
    assert type(envs).__name__ == "CoverYourAssetsVectorEnv"
    assert envs.spec.id == GYM_ID and envs.spec.kwargs["vectorization_mode"] == "vector_entry_point"
    assert envs.metadata["autoreset_mode"] == gym.vector.AutoresetMode.SAME_STEP
    obs, _ = envs.reset(seed=3)
    rng = np.random.default_rng(0)
    finals = 0
    for _ in range(150):
        assert envs.observation_space.contains(obs)
        masks = envs.action_masks()
        obs, _, terminated, truncated, info = envs.step(np.argmax(rng.random(masks.shape) * masks, axis=1))
        for i in np.flatnonzero(terminated | truncated):
            assert envs.single_observation_space.contains(info["final_obs"][i])
            finals += 1
    assert finals > 0


def test_make_vec_sync_mode_wraps_single_games():
    envs = gym.make_vec(GYM_ID, num_envs=2, vectorization_mode="sync", n_players=3, opponents="random")
    assert type(envs).__name__ == "SyncVectorEnv"
    obs, info = envs.reset(seed=1)
    assert obs.shape == (2, envs.single_observation_space.shape[0]) and info["action_mask"].shape[0] == 2


def test_vector_final_obs_is_the_single_game_envs_last_observation():
    """SAME_STEP (Gymnasium 1.x): the ending step returns the next game's first observation, and
    ``info["final_obs"][i]`` the learner's observation of the finished game's last position, as the
    single-game environment returns it with ``terminated`` (not zeros)."""
    b, seat, opponents = 3, 1, "random,heuristic"
    vec = gym.make_vec(GYM_ID, num_envs=b, n_players=3, seat=seat, opponents=opponents)
    obs, _ = vec.reset(seed=8)
    singles = [CoverYourAssetsGym(n_players=3, seat=seat, opponents=opponents) for _ in range(b)]
    single_obs = [e.reset(seed=8, options={"game": i})[0] for i, e in enumerate(singles)]
    np.testing.assert_array_equal(obs, np.stack(single_obs))
    rng = np.random.default_rng(2)
    ended = 0
    for _ in range(400):
        masks = vec.action_masks()
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        obs, reward, terminated, _, info = vec.step(actions)
        for i in range(b):
            o, r, t, _, single_info = singles[i].step(int(actions[i]))
            assert (t, r) == (bool(terminated[i]), reward[i])
            if t:
                ended += 1
                assert info["_final_obs"][i] and info["_final_info"][i]
                np.testing.assert_array_equal(info["final_obs"][i], o)
                assert o.any()  # a real position, not a blank
                assert info["final_info"]["game"][i] == single_info["game"] == info["final_game"][i]
                assert not info["final_info"]["action_mask"][i].any()
                o, _ = singles[i].reset(options={"game": int(info["game"][i])})
            elif "final_obs" in info:
                assert info["final_obs"][i] is None and not info["_final_obs"][i]
            np.testing.assert_array_equal(obs[i], o)
    assert ended >= 8


@pytest.mark.parametrize(("preset", "players"), TABLES, ids=IDS)
def test_observations_of_played_games_lie_in_the_finite_bounds(preset, players):
    """Every observation of every agent along a whole random game is in the Box (low 0, finite high)."""
    env = cover_your_assets_v0.raw_env(rules=preset, n_players=players)
    env.reset(seed=11)
    space = env.observation_space("player_0")["observation"]
    rng = np.random.default_rng(0)
    steps = 0
    for agent in env.agent_iter():
        obs, _, terminated, truncated, _ = env.last()
        assert space.contains(obs["observation"]), np.flatnonzero(obs["observation"] > space.high)
        if terminated or truncated:
            env.step(None)
            continue
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        steps += 1
    assert steps > 50 and np.isfinite(space.high).all()


def test_totals_bound_follows_the_end_condition():
    classic = get_rules("classic")
    assert bounds.max_total(classic, 4) == 1_000_000 - 1 + 1_360_000
    assert bounds.max_total(classic.with_options(end_condition="rounds:3"), 4) == 3 * 1_360_000
    assert bounds.max_total(classic.with_options(tie_break="extra_round"), 4) == 999_999 + 51 * 1_360_000
    assert bounds.max_rounds(classic.with_options(end_condition="round_wins:2"), 4) == 5
    assert bounds.max_rounds(classic, 4) == 1000


# -- OpenSpiel ---------------------------------------------------------------------------------------------
def test_openspiel_game_is_registered_by_importing_cya_sim_env():
    import subprocess
    import sys

    code = ("import pyspiel, cya_sim.env; g = pyspiel.load_game('python_cover_your_assets', {'players': 3}); "
            "print(g.num_players(), g.max_game_length())")
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout.split()
    assert out == ["3", str(bounds.max_game_length(get_rules("classic"), 3))]


def test_max_game_length_is_derived_from_the_rules():
    pyspiel = pytest.importorskip("pyspiel")
    one_round = pyspiel.load_game("python_cover_your_assets", {"players": 4, "rounds": 1})
    # 1 first dealer + 110 shuffled cards + 109 hand cards * 2 (a card or a give-up each)
    assert one_round.max_game_length() == 1 + 110 + 2 * 109 == 329
    assert pyspiel.load_game("python_cover_your_assets", {"players": 4}).max_game_length() == 1 + 1000 * 328
    assert pyspiel.load_game("python_cover_your_assets", {"players": 4, "max_rounds": 20}).max_game_length() == \
        1 + 20 * 328
    adv = pyspiel.load_game("python_cover_your_assets", {"players": 2, "rules": "two_player_draft_advanced",
                                                         "rounds": 1})
    n = 99 + 6  # the reduced deck plus Swap, Move, Penny Jar x2
    assert adv.max_game_length() == 1 + n + (n - 1 - 30) * 4 + 2


def _random_game(game, seed: int):
    rng = np.random.default_rng(seed)
    state = game.new_initial_state()
    per_round: dict[int, int] = {}
    while not state.is_terminal():
        if state.is_chance_node():
            actions, probs = zip(*state.chance_outcomes())
            state.apply_action(int(rng.choice(actions, p=probs)))
        else:
            per_round[state.gs.round] = per_round.get(state.gs.round, 0) + 1
            state.apply_action(int(rng.choice(state.legal_actions())))
    return state, per_round


@pytest.mark.parametrize(("preset", "players"), TABLES, ids=IDS)
def test_openspiel_games_stay_within_max_game_length(preset, players):
    pyspiel = pytest.importorskip("pyspiel")
    game = pyspiel.load_game("python_cover_your_assets", {"players": players, "rules": preset, "rounds": 2})
    rules = get_rules(preset)
    state, per_round = _random_game(game, 7)
    assert len(state.history()) <= game.max_game_length()
    assert max(per_round.values()) <= bounds.max_decisions_per_round(rules, players)
    assert game.get_type().provides_information_state_string
    assert not game.get_type().provides_information_state_tensor


def _reference_recall(game, history: list[int], player: int) -> tuple[str, list[int]]:
    """Replay ``history`` and chain, at each of ``player``'s decisions, its observation (from
    ``observe``, not the state) and its action: the perfect-recall digest, recomputed independently."""
    from cya_sim.engine.classic.reference.observation import observe
    from cya_sim.env.classic.openspiel import observation_key

    state = game.new_initial_state()
    digest, actions = bytes(16), []
    for a in history:
        if not state.is_chance_node() and state.current_player() == player:
            h = hashlib.blake2b(digest, digest_size=16)
            h.update(pickle.dumps(observation_key(observe(state.gs, player)), protocol=4))
            h.update(b"|%d" % a)
            digest, actions = h.digest(), [*actions, a]
        state.apply_action(a)
    return digest.hex(), actions


@pytest.mark.parametrize("params", [{"players": 3, "rounds": 2}, {"players": 2, "rules": "two_player_draft_advanced",
                                                                   "rounds": 1}])
def test_information_state_is_the_players_observations_and_actions_perfect_recall(params):
    """The information state string holds the player's current observation, its own actions, and the
    digest of its observation at each decision with the action taken (checked against a replay that
    reads only the player's observations): equal strings mean equal own histories (perfect recall)."""
    pyspiel = pytest.importorskip("pyspiel")
    game = pyspiel.load_game("python_cover_your_assets", params)
    state, _ = _random_game(game, 3)
    history = state.history()
    for cut in (len(history) // 3, len(history) // 2, len(history)):
        s = game.new_initial_state()
        for a in history[:cut]:
            s.apply_action(a)
        for player in range(game.num_players()):
            text = s.information_state_string(player)
            digest, actions = _reference_recall(game, history[:cut], player)
            assert text.startswith(s.observation_string(player) + " | recall: ")
            assert text.endswith(f"recall: {len(actions)} decisions, actions [{','.join(map(str, actions))}], "
                                 f"digest {digest}")
    _, s2 = pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(game, s))
    assert [s2.information_state_string(p) for p in range(game.num_players())] == \
        [s.information_state_string(p) for p in range(game.num_players())]  # rebuilt by replaying the history
    # along a game, a player's information states at its decisions are all different (each holds the last)
    s, seen = game.new_initial_state(), set()
    for a in history:
        if not s.is_chance_node() and s.current_player() == 0:
            info = s.information_state_string(0)
            assert info not in seen
            seen.add(info)
        s.apply_action(a)
    assert len(seen) > 10


def test_view_key_is_a_function_of_the_observation():
    """The fast key read from the state equals the key built from the §10 observation (no hidden card in it)."""
    pyspiel = pytest.importorskip("pyspiel")
    from cya_sim.engine.classic.reference.observation import observe
    from cya_sim.env.classic.openspiel import observation_key, view_key

    for params in ({"players": 4, "rules": "advanced", "rounds": 1}, {"players": 3, "rules": "three_player_draft",
                                                                      "rounds": 1}):
        game = pyspiel.load_game("python_cover_your_assets", params)
        rng = np.random.default_rng(5)
        s, checked = game.new_initial_state(), 0
        while not s.is_terminal():
            if s.is_chance_node():
                actions, probs = zip(*s.chance_outcomes())
                s.apply_action(int(rng.choice(actions, p=probs)))
                continue
            for q in range(game.num_players()):
                assert view_key(s.gs, q) == observation_key(observe(s.gs, q))
                checked += 1
            s.apply_action(int(rng.choice(s.legal_actions())))
        assert checked > 100


def test_resampled_state_keeps_the_players_information_state_and_drops_the_others_recall():
    pyspiel = pytest.importorskip("pyspiel")
    game = pyspiel.load_game("python_cover_your_assets", {"players": 3, "rounds": 1})
    state, _ = _random_game(game, 4)
    s = game.new_initial_state()
    for a in state.history()[: len(state.history()) // 2]:
        s.apply_action(a)
    while s.is_chance_node():
        s.apply_action(s.chance_outcomes()[0][0])
    player = s.current_player()
    r = s.resample_from_infostate(player, pyspiel.UniformProbabilitySampler(0.0, 1.0))
    assert r.information_state_string(player) == s.information_state_string(player)
    for q in range(3):
        if q != player:
            assert "| resampled recall: 0 decisions, actions []" in r.information_state_string(q)


# -- the theft game (RULES.md §9) in every environment ---------------------------------------------------
#: The theft game at its default options (4 seats) and with two of its choices changed (3 seats).
THEFT_TABLES = [
    (TheftRuleSet(), 4),
    (TheftRuleSet().with_options(gold_theft_cancel="single_gold", compulsory_defence=True), 3),
]
THEFT_IDS = ["theft", "theft+single_gold+compulsory"]
#: The same option lines as an OpenSpiel ``options`` parameter.
THEFT_SPIEL = [{"players": 4, "rules": "theft"},
               {"players": 3, "rules": "theft", "options": "gold_theft_cancel:single_gold;compulsory_defence:true"}]


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize(("rules", "players"), THEFT_TABLES, ids=THEFT_IDS)
def test_theft_pettingzoo_api_render_and_seed_tests(rules, players, capsys):
    env = cover_your_assets_v0.env(rules=rules, n_players=players)
    api_test(env, num_cycles=100)
    api_test(cover_your_assets_v0.raw_env(rules=rules, n_players=players), num_cycles=50)
    render_test(lambda render_mode=None: cover_your_assets_v0.env(rules=rules, n_players=players,
                                                                   render_mode=render_mode))
    out = capsys.readouterr().out  # the theft engine's log, as `cya-sim play --rules theft` prints it
    assert f"game 0: {players} players, rules {rules.name}; seat " in out and "moves first" in out
    seed_test(lambda: cover_your_assets_v0.env(rules=rules, n_players=players), num_cycles=100)


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize(("rules", "players"), THEFT_TABLES, ids=THEFT_IDS)
def test_theft_gymnasium_check_env_and_bounds_in_played_games(rules, players):
    env = gym.make(GYM_ID, rules=rules, n_players=players, opponents="greedy,defender")
    assert isinstance(env.unwrapped, CoverYourAssetsGym)
    assert np.isfinite(env.observation_space.high).all() and env.observation_space.is_bounded("both")
    gym_check_env(env.unwrapped, skip_render_check=False)
    aec = cover_your_assets_v0.raw_env(rules=rules, n_players=players)
    space = aec.observation_space("player_0")["observation"]
    rng = np.random.default_rng(0)
    steps = 0
    for seed in (11, 12):
        aec.reset(seed=seed)
        for agent in aec.agent_iter():
            obs, _, terminated, truncated, _ = aec.last()
            assert space.contains(obs["observation"]), np.flatnonzero(obs["observation"] > space.high)
            if terminated or truncated:
                aec.step(None)
                continue
            aec.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            steps += 1
    assert steps > 40


def test_theft_total_change_rewards_are_points():
    """``reward="total_change"``: each change of the seat's points (R-T-END), plus the win share at the end."""
    env = cover_your_assets_v0.raw_env(rules="theft", n_players=3, reward="total_change")
    env.reset(seed=2)
    rng = np.random.default_rng(1)
    got = dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, _ = env.last()
        got[agent] += reward
        if terminated or truncated:
            env.step(None)
            continue
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    shares = env.game.win_shares()
    assert [got[a] for a in env.possible_agents] == pytest.approx(list(env.game.totals() + shares))


@pytest.mark.parametrize(("rules", "players"), THEFT_TABLES, ids=THEFT_IDS)
def test_theft_vector_env_equals_the_single_game_env_row_by_row(rules, players):
    """The compiled theft engine's vector env: masks, SAME_STEP's final_obs, rewards and the next game's first
    observation equal the single-game (reference engine) environment's, row by row."""
    # as many opponent specs as other seats (a longer list is refused: its extra specs would never play)
    b, seat, opponents = 3, 1, ",".join(["random", "greedy", "defender"][:players - 1])
    vec = gym.make_vec(GYM_ID, num_envs=b, rules=rules, n_players=players, seat=seat, opponents=opponents)
    assert type(vec).__name__ == "CoverYourAssetsVectorEnv"
    obs, info = vec.reset(seed=8)
    singles = [CoverYourAssetsGym(rules=rules, n_players=players, seat=seat, opponents=opponents) for _ in range(b)]
    firsts = [e.reset(seed=8, options={"game": i}) for i, e in enumerate(singles)]
    np.testing.assert_array_equal(obs, np.stack([o for o, _ in firsts]))
    np.testing.assert_array_equal(info["action_mask"], np.stack([i["action_mask"] for _, i in firsts]))
    rng = np.random.default_rng(2)
    ended = 0
    for _ in range(250):
        masks = vec.action_masks()
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        obs, reward, terminated, _, info = vec.step(actions)
        assert vec.observation_space.contains(obs)
        for i in range(b):
            o, r, t, _, single_info = singles[i].step(int(actions[i]))
            assert (t, r) == (bool(terminated[i]), reward[i])
            if t:
                ended += 1
                np.testing.assert_array_equal(info["final_obs"][i], o)
                assert vec.single_observation_space.contains(info["final_obs"][i])
                assert info["final_info"]["game"][i] == single_info["game"] == info["final_game"][i]
                o, single_info = singles[i].reset(options={"game": int(info["game"][i])})
            np.testing.assert_array_equal(obs[i], o)
            np.testing.assert_array_equal(info["action_mask"][i], single_info["action_mask"])
    assert ended >= 5


@pytest.mark.parametrize("params", THEFT_SPIEL, ids=THEFT_IDS)
def test_theft_openspiel_random_sim_test_with_serialization(params):
    pyspiel = pytest.importorskip("pyspiel")
    game = pyspiel.load_game("python_cover_your_assets", params)
    assert game.get_type().provides_information_state_string
    pyspiel.random_sim_test(game, num_sims=3, serialize=True, verbose=False)


def test_theft_openspiel_reshuffles_are_chance_nodes_within_max_game_length_and_recall_is_perfect():
    """A small deck reshuffles often (R-T-TURN): each reshuffle is chance's, the game stays within the
    max_game_length derived from the rules, and the information state holds the player's own actions."""
    pyspiel = pytest.importorskip("pyspiel")
    game = pyspiel.load_game("python_cover_your_assets", {
        "players": 2, "rules": "theft", "options": "numbers:3;copies_per_number:4;gold_cards:1;max_players:2;"
                                                   "max_turns:60"})
    rng = np.random.default_rng(0)
    state, reshuffles, mine = game.new_initial_state(), 0, []
    while not state.is_terminal():
        if state.is_chance_node():
            actions, probs = zip(*state.chance_outcomes())
            if state.ts is not None:
                reshuffles += 1
                assert state.action_to_string(pyspiel.PlayerId.CHANCE, actions[0]).startswith("reshuffle ")
            state.apply_action(int(rng.choice(actions, p=probs)))
        else:
            a = int(rng.choice(state.legal_actions()))
            if state.current_player() == 0:
                mine.append(a)
            state.apply_action(a)
    assert reshuffles > 10 and len(state.history()) <= game.max_game_length()
    assert state.information_state_string(0).startswith(state.observation_string(0) + " | recall: ")
    assert f"actions [{','.join(map(str, mine))}]" in state.information_state_string(0)
    assert sum(state.returns()) == pytest.approx(1.0)


def test_theft_openspiel_ismcts_runs_on_resampled_states_that_keep_the_information_state():
    pyspiel = pytest.importorskip("pyspiel")
    from open_spiel.python.algorithms import ismcts, mcts

    game = pyspiel.load_game("python_cover_your_assets", {"players": 3, "rules": "theft"})
    bot = ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(1, np.random.RandomState(0)), uct_c=1.41,
                           max_simulations=3, random_state=np.random.RandomState(1))
    rng = np.random.default_rng(0)
    state, checked = game.new_initial_state(), 0
    while not state.is_terminal():
        if state.is_chance_node():
            actions, probs = zip(*state.chance_outcomes())
            state.apply_action(int(rng.choice(actions, p=probs)))
            continue
        player = state.current_player()
        r = state.resample_from_infostate(player, pyspiel.UniformProbabilitySampler(0.0, 1.0))
        assert r.information_state_string(player) == state.information_state_string(player)
        assert (r.ts.card_counts() == state.ts.card_counts()).all()  # the same deck (R-T-DECK)
        assert r.legal_actions() == state.legal_actions()
        checked += 1
        state.apply_action(bot.step(state) if player == 0 else int(rng.choice(state.legal_actions())))
    assert checked > 10 and sum(state.returns()) == pytest.approx(1.0)


def test_the_game_interface_is_chosen_once_from_the_rule_set():
    from types import SimpleNamespace

    from cya_sim.env.classic.interface import ClassicGame
    from cya_sim.env.games import GAMES, game_interface
    from cya_sim.env.theft.interface import TheftGame

    assert set(GAMES) == {"classic", "theft"}
    assert type(game_interface(get_rules("advanced"))) is ClassicGame
    theft = game_interface(get_rules("theft"))
    assert type(theft) is TheftGame and (theft.score_unit, theft.cap_name) == ("points", "max_turns")
    assert theft.space.size == 750 and theft.n_card_types == 13
    with pytest.raises(ValueError, match=r"game family 'chess' has no environment; known: classic, theft"):
        game_interface(SimpleNamespace(name="x", family="chess"))
