"""The learned agent: view features in training equal those of play, the dense reward, the exported
plug-in in both engines, the SB3 adapter (skipped without stable-baselines3), and the committed models."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from agents.classic.learned import features, n_features, write_plugin
from agents.classic.view import build_view
from cya_sim.engine.classic.adapter import reference_observation
from cya_sim.env.sb3 import ViewFeatureVectorEnv
from cya_sim.game.rng import root_key
from cya_sim.game.rules import get_rules

MODELS = Path(__file__).resolve().parents[1] / "agents" / "learned_models"


def _random_actions(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    return np.array([rng.choice(np.flatnonzero(r)) for r in mask])


@pytest.mark.parametrize("players", [2, 4])
def test_batch_features_equal_the_view_features_of_each_row(players):
    # at 2 players one other seat: one spec (a second would be refused, cya_sim.env.gym.opponent_specs)
    opponents = "card_counter,greedy" if players > 2 else "card_counter"
    env = ViewFeatureVectorEnv(num_envs=8, n_players=players, opponents=opponents)
    obs, _ = env.reset(seed=3)
    rng = np.random.default_rng(1)
    checked = 0
    for _ in range(60):
        st = env._batch.state
        for b in range(env.num_envs):
            o = reference_observation(st, b)
            hdr, hand, values, unseen, seats, _m = build_view(o)
            want = features(hdr, hand, values, unseen, seats, np.asarray(o.gave_up, bool))
            np.testing.assert_allclose(obs[b], want.astype(np.float32))
            checked += 1
        obs, *_ = env.step(_random_actions(env.action_masks(), rng))
    assert checked == 480 and obs.shape[1] == n_features(players, 12, 10)


def test_dense_reward_sums_to_the_final_total_plus_the_win_share():
    env = ViewFeatureVectorEnv(num_envs=4, n_players=2, opponents="card_counter", reward="dense")
    env.reset(seed=5)
    rng = np.random.default_rng(2)
    acc = np.zeros(4)
    games = 0
    for _ in range(5000):
        _obs, r, term, _t, info = env.step(_random_actions(env.action_masks(), rng))
        acc += r
        for b in np.flatnonzero(term):
            # the telescoping sum: every change in total from 0, then the win share (R-TIE)
            assert acc[b] == pytest.approx(info["final_total"][b] / 1e6 + info["final_share"][b], abs=1e-9)
            assert info["final_total"][b] > 0
            acc[b] = 0.0
            games += 1
        if games >= 8:
            break
    assert games >= 8


def _random_weights(f: int, a: int, seed: int = 0) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    return {"W1": rng.normal(size=(f, 16)), "b1": rng.normal(size=16), "W2": rng.normal(size=(16, 16)),
            "b2": rng.normal(size=16), "W3": rng.normal(size=(16, a)), "b3": rng.normal(size=a)}


def test_exported_plugin_plays_the_same_games_in_both_engines(tmp_path, monkeypatch):
    pkg = tmp_path / "lm_pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("CYA_SIM_CACHE_DIR", str(tmp_path / "cache"))
    py = write_plugin(pkg / "m", _random_weights(n_features(2, 12, 10), 91), players=2, relu=True, meta={"seed": 1})
    assert "lm_pkg.m:decide" in py.read_text()
    from cya_sim.play.families import family_of

    rules = get_rules("classic")
    agents = ["lm_pkg.m:decide", "card_counter"]
    sa = np.array([[0, 1], [1, 0]] * 10, np.int16)
    games = np.repeat(np.arange(10), 2)
    a = family_of(rules).play_games("batched")(rules, agents, sa, root_key(4), games)
    b = family_of(rules).play_games("reference")(rules, agents, sa, root_key(4), games)
    np.testing.assert_array_equal(a.totals, b.totals)
    np.testing.assert_array_equal(a.decisions, b.decisions)
    with pytest.raises(ValueError, match="chain"):
        write_plugin(pkg / "bad", {**_random_weights(5, 91), "W2": np.zeros((3, 16))}, 2, True)
    sys.modules.pop("lm_pkg.m", None)
    sys.modules.pop("lm_pkg", None)


def test_sb3_adapter_trains_a_few_steps_with_maskable_ppo():
    pytest.importorskip("torch")
    sb3c = pytest.importorskip("sb3_contrib")
    from cya_sim.env.sb3 import make_sb3_vec_env

    venv = make_sb3_vec_env(ViewFeatureVectorEnv(num_envs=4, n_players=2, opponents="greedy"), seed=1)
    venv.reset()  # masks exist once games have started (before: ResetNeeded, the environments' contract)
    assert len(venv.env_method("action_masks")) == 4 and venv.env_method("action_masks")[0].shape == (91,)
    model = sb3c.MaskablePPO("MlpPolicy", venv, n_steps=32, batch_size=64, n_epochs=1, seed=1, device="cpu")
    model.learn(total_timesteps=128)
    obs = venv.reset()
    act, _ = model.predict(obs, deterministic=True, action_masks=venv.action_masks())
    assert venv.action_masks()[np.arange(4), act].all()


@pytest.mark.parametrize("name, players", [("classic_2p", 2), ("classic_4p", 4)])
def test_committed_models_load_and_play(name, players):
    if not (MODELS / f"{name}.npz").exists():
        pytest.skip(f"{name} not trained yet")
    from cya_sim.studies.tune import TuneConfig, play_candidate

    cfg = TuneConfig(agent="greedy", field=("greedy",), players=players, out=Path("."))
    w = play_candidate(f"agents.learned_models.{name}:decide", cfg, get_rules("classic"), np.arange(20), 1)
    assert w.shape == (20,) and 0.0 <= w.mean() <= 1.0


#: SHA-256 of the weight arrays (W1, b1, W2, b2, W3, b3 bytes in that order) of the committed models as trained:
#: recording what they were trained for must not change a weight.
COMMITTED_WEIGHTS = {"classic_2p": "78c6942ee9cda551ac08644641b0100ff775db837beca43cf0a192cdd76c5a44",
                     "classic_4p": "7ad44d32b17815575d4e71a98e56bdd61a02aa03affc529cb4591fc52ce9b7f3"}


@pytest.mark.parametrize("name, players", [("classic_2p", 2), ("classic_4p", 4)])
def test_committed_models_record_rules_table_size_and_encoding(name, players):
    from agents.classic.learned import ENCODING, rules_digest, trained_for

    with np.load(MODELS / f"{name}.npz") as f:
        rec = trained_for(f)
        assert [f[k].shape for k in ("W1", "W3")] == [(n_features(players, 12, 10), 64), (64, 91)]
    assert rec == {"rules": "classic", "rules_digest": rules_digest(get_rules("classic")), "players": players,
                   "encoding": ENCODING}


def test_committed_weights_are_the_trained_bytes():
    import hashlib

    for name, want in COMMITTED_WEIGHTS.items():
        with np.load(MODELS / f"{name}.npz") as f:
            got = hashlib.sha256(b"".join(f[k].tobytes() for k in ("W1", "b1", "W2", "b2", "W3", "b3"))).hexdigest()
        assert got == want, name


@pytest.mark.parametrize("players, preset, other", [(4, "classic", "other table size"),
                                                    (2, "advanced", "other rules"),
                                                    (3, "guide", "other rules and table size")])
def test_a_learned_model_elsewhere_is_refused_in_one_line_naming_both_settings(players, preset, other):
    from agents.classic.learned import LearnedSettingError, check_setting, rules_digest

    spec = "agents.learned_models.classic_2p:decide"
    rules = get_rules(preset)
    with pytest.raises(LearnedSettingError) as e:
        check_setting(spec, rules, players)
    msg = str(e.value)
    assert msg.startswith(f"agent {spec!r}: a learned model trained for rules classic (digest "
                          f"{rules_digest(get_rules('classic'))}), 2 players, encoding agents.learned.features/1; "
                          f"asked to play rules {preset} (digest {rules_digest(rules)}), {players} players ({other})")
    assert "\n" not in msg
    check_setting(spec, get_rules("classic"), 2)  # its own setting
    check_setting(spec, get_rules("classic", max_rounds=50), 2)  # a safeguard cap is not a rule
    with pytest.raises(LearnedSettingError, match=r"\(other rules\)"):
        check_setting(spec, get_rules("classic", challenge_draw_order="mover_first"), 2)  # a rule option is
    check_setting("agents.learned_models.classic_4p:decide", get_rules("classic"), 4)
    check_setting("greedy", rules, players)  # not a learned model
    search = f'ismcts(iterations=5, rollout="{spec}")'  # a learned model as the rollout policy of a search agent
    with pytest.raises(LearnedSettingError, match=r"^agent 'ismcts\(.*\)': its rollout policy: agent "):
        check_setting(search, rules, players)
    check_setting(search, get_rules("classic"), 2)


def test_every_way_to_play_a_learned_model_elsewhere_refuses_before_a_game(tmp_path, capsys):
    from cya_sim.cli.main import main
    from cya_sim.env.gym import CoverYourAssetsGym
    from cya_sim.play.families import family_of
    from cya_sim.runs.experiment import ExperimentError, parse_experiment
    from cya_sim.studies.tune import TuneConfig, play_candidate

    spec = "agents.learned_models.classic_2p:decide"
    rules = get_rules("classic")
    with pytest.raises(ExperimentError, match=r"agents\[0\].*4 players \(other table size\)"):
        parse_experiment({"name": "x", "agents": [spec, "greedy"], "players": 4, "games": 4, "seed": 1,
                          "design": {"kind": "round_robin", "repeats": True}})
    for engine in ("batched", "reference"):
        with pytest.raises(ValueError, match="other table size"):
            family_of(rules).play_games(engine)(rules, [spec, "greedy"], np.zeros((1, 4), np.int16), 1, np.arange(1))
    with pytest.raises(ValueError, match="opponents: agent .*other rules"):
        CoverYourAssetsGym(rules="advanced", n_players=2, opponents=spec)
    cfg = TuneConfig(agent="greedy", field=(spec,), players=4, out=tmp_path)
    with pytest.raises(ValueError, match="other table size"):
        play_candidate("greedy", cfg, rules, np.arange(2), 1)
    out = tmp_path / "t"
    code = main(["tournament", "--agents", f"{spec},greedy", "--players", "4", "--games", "4", "--out", str(out),
                 "--quiet"])
    err = capsys.readouterr().err.strip()
    assert code == 2 and "\n" not in err and "other table size" in err
    assert not out.exists()  # refused before the folder's lock: nothing is left behind
    assert main(["play", "--agents", f"{spec},greedy", "--players", "4", "--rules", "classic"]) == 2  # one game
    captured = capsys.readouterr()
    assert "other table size" in captured.err and "\n" not in captured.err.strip() and "game" not in captured.out


def test_tanh_into_is_within_3_ulp_of_numpy_tanh():
    """The network's vectorised tanh (agents.classic.learned.tanh_into) against libm's, over 1.6 million values from
    1e-8 to 25 in size, zeros and the edges of its reduction (|r| = ln(2)/2, the clamp at 20)."""
    from agents.classic.learned import tanh_into

    rng = np.random.default_rng(0)
    x = np.concatenate([rng.normal(scale=s, size=200_000) for s in (1e-8, 1e-3, 0.1, 0.5, 1, 2, 5, 20)]
                       + [np.array([0.0, -0.0, 0.34657, -0.34658, 19.06, 19.07, 20.0, 25.0, -25.0, 1e-300])])
    got = x.copy()
    tanh_into(got)
    want = np.tanh(x)
    ulp = np.abs(got - want) / np.spacing(np.abs(want))
    assert ulp.max() <= 3.0 and np.array_equal(np.signbit(got), np.signbit(want))
    assert got[-4:-1].tolist() == [1.0, 1.0, -1.0]


def _numpy_logits(x, w):
    """The MLP's logits as trained, in NumPy float64: ``tanh(tanh(x W1 + b1) W2 + b2) W3 + b3``."""
    h1 = np.tanh(x @ w["W1"] + w["b1"])
    h2 = np.tanh(h1 @ w["W2"] + w["b2"])
    return h2 @ w["W3"] + w["b3"]


@pytest.mark.parametrize("name, preset, players", [("classic_4p", "classic", 4), ("advanced_3p", "advanced", 3)])
def test_network_action_is_the_legal_argmax_of_the_float64_network(name, preset, players):
    """network_action on the committed weights as the generated plug-ins hold them (network_arrays: float32 copies of
    float32 weights, the last layer transposed) picks the legal action of highest float64 logit, on the features of
    the views of real games and on random legal masks; the float32 copies are exact."""
    from agents.classic.learned import mlp_action, network_action, network_arrays
    from cya_sim.engine.classic.reference import play_game

    with np.load(MODELS / f"{name}.npz") as f:
        w = {k: f[k] for k in ("W1", "b1", "W2", "b2", "W3", "b3")}
        w1, b1, w2, b2, w3t, b3 = network_arrays(f)
    assert w1.dtype == w2.dtype == w3t.dtype == np.float32 and b1.dtype == np.float64
    assert np.array_equal(w3t.T.astype(np.float64), w["W3"]) and np.array_equal(w1.astype(np.float64), w["W1"])

    views = []

    class Recorder:
        name = "recorder"

        def __init__(self):
            from agents.classic.registry import make_agent

            self.inner = make_agent("card_counter")

        def act(self, obs, rng):
            hdr, hand, values, unseen, seats, mask = build_view(obs)
            views.append((features(hdr, hand, values, unseen, seats, np.asarray(obs.gave_up, bool)), mask))
            return self.inner.act(obs, rng)

    rules = get_rules(preset)
    for g in range(3):
        play_game(rules, [Recorder() for _ in range(players)], root_key(5), game_index=g)
    rng = np.random.default_rng(2)
    checked = 0
    for x, mask in views:
        logits = _numpy_logits(x, w)
        for m in (mask, rng.random(mask.shape[0]) < 0.3):
            if m.sum() < 2:
                continue
            legal = np.flatnonzero(m)
            want = int(legal[np.argmax(logits[legal])])
            assert network_action(x, w1, b1, w2, b2, w3t, b3, 0, m) == want
            assert mlp_action(x, *(w[k] for k in ("W1", "b1", "W2", "b2", "W3", "b3")), 0, m) == want
            checked += 1
    assert checked > 500
    one = np.zeros(w3t.shape[0], bool)
    one[7] = True
    assert network_action(views[0][0], w1, b1, w2, b2, w3t, b3, 0, one) == 7  # one legal action: no network
    assert network_action(views[0][0], w1, b1, w2, b2, w3t, b3, 0, np.zeros_like(one)) == -1


def test_network_arrays_keep_float64_weights_that_are_not_float32():
    from agents.classic.learned import network_arrays

    rng = np.random.default_rng(0)
    w = {"W1": rng.normal(size=(5, 3)), "b1": np.zeros(3), "W2": np.ones((3, 3)), "b2": np.zeros(3),
         "W3": rng.normal(size=(3, 4)).astype(np.float32).astype(np.float64), "b3": np.zeros(4)}
    w1, _, w2, _, w3t, _ = network_arrays(w)
    assert (w1.dtype, w2.dtype, w3t.dtype) == (np.float64, np.float32, np.float32)
    assert np.array_equal(w1, w["W1"]) and w3t.shape == (4, 3) and w3t.flags.c_contiguous
