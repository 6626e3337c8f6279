"""One set of conventions across the RL APIs (issue 32): one conformance test per convention.

- the mask dtype: every mask handed out as data (PettingZoo's ``observation["action_mask"]``, Gymnasium's and the
  vector envs' ``info["action_mask"]``) is int8, so ``action_space.sample(mask=...)`` works in each API and game;
  the ``action_masks()`` methods (sb3-contrib's) stay bool;
- ``action_masks()`` reachable on what ``gym.make`` returns, and through wrappers as sb3-contrib reaches it;
- the SB3 adapter's ``terminal_observation`` (the finished game's last) and ``TimeLimit.truncated`` (capped games);
- ``gym.make_vec``'s standard keyword arguments: accepted or refused in one line;
- a missing extra: one line naming the install command (the environments and the notebooks' runner).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

gym = pytest.importorskip("gymnasium")
pytest.importorskip("pettingzoo")

import cya_sim.env  # noqa: F401  (registers the Gymnasium id)
from cya_sim.env import CoverYourAssetsGym, CoverYourAssetsVectorEnv, cover_your_assets_v0
from cya_sim.env.registration import GYM_ID
from cya_sim.game.rules import get_rules

ROOT = Path(__file__).resolve().parents[1]
GAMES = [("classic", 3, "random"), ("theft", 3, "random")]
GAME_IDS = ["classic", "theft"]


# -- 1. the mask dtype, and sample(mask=...) in every API --------------------------------------------------------
@pytest.mark.parametrize(("rules", "players", "opponents"), GAMES, ids=GAME_IDS)
def test_pettingzoo_mask_is_int8_and_samples_only_legal_actions(rules, players, opponents):
    env = cover_your_assets_v0.env(rules=rules, n_players=players)
    steps = games = 0
    while steps < 40:
        env.reset(seed=1, options={"game": games})
        games += 1
        for agent in env.agent_iter():
            obs, _r, terminated, truncated, _info = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            mask = obs["action_mask"]
            assert mask.dtype == np.int8 and env.observation_space(agent)["action_mask"].dtype == np.int8
            action = env.action_space(agent).sample(mask=mask)
            assert mask[action] == 1
            env.step(int(action))
            steps += 1


@pytest.mark.parametrize(("rules", "players", "opponents"), GAMES, ids=GAME_IDS)
def test_gymnasium_info_mask_is_int8_and_samples_only_legal_actions(rules, players, opponents):
    env = gym.make(GYM_ID, rules=rules, n_players=players, opponents=opponents)
    env.action_space.seed(0)
    _obs, info = env.reset(seed=2)
    for _ in range(40):
        mask = info["action_mask"]
        assert mask.dtype == np.int8 and mask.shape == (env.action_space.n,)
        np.testing.assert_array_equal(mask, env.action_masks().astype(np.int8))
        assert env.action_masks().dtype == bool  # sb3-contrib's method: a boolean mask
        action = env.action_space.sample(mask=mask)
        assert mask[action] == 1
        _obs, _r, terminated, truncated, info = env.step(action)
        if terminated or truncated:
            _obs, info = env.reset()


@pytest.mark.parametrize(("rules", "players", "opponents"), GAMES, ids=GAME_IDS)
@pytest.mark.parametrize("mode", ["vector_entry_point", "sync"])
def test_vector_info_mask_is_int8_and_both_action_spaces_sample_legal_actions(rules, players, opponents, mode):
    envs = gym.make_vec(GYM_ID, num_envs=3, vectorization_mode=mode, rules=rules, n_players=players,
                        opponents=opponents)
    envs.action_space.seed(0)
    envs.single_action_space.seed(1)
    _obs, info = envs.reset(seed=3)
    for _ in range(30):
        masks = info["action_mask"]
        assert masks.dtype == np.int8 and masks.shape == (3, envs.single_action_space.n)
        actions = envs.action_space.sample(mask=tuple(masks))  # MultiDiscrete: one int8 mask per row
        # (sync mode's NEXT_STEP autoreset: a finished row's mask is all 0, its action is ignored)
        assert all(masks[i, a] == 1 for i, a in enumerate(actions) if masks[i].any())
        one = envs.single_action_space.sample(mask=masks[0])
        assert masks[0, one] == 1 or not masks[0].any()
        _obs, _r, _t, _tr, info = envs.step(actions)
    if mode == "vector_entry_point":
        assert envs.action_masks().dtype == bool
        np.testing.assert_array_equal(envs.action_masks().astype(np.int8), info["action_mask"])


def test_view_feature_vector_env_info_mask_is_int8_and_samples_legal_actions():
    from cya_sim.env.sb3 import ViewFeatureVectorEnv

    envs = ViewFeatureVectorEnv(num_envs=2, n_players=2, opponents="greedy")
    envs.action_space.seed(0)
    _obs, info = envs.reset(seed=1)
    for _ in range(20):
        masks = info["action_mask"]
        assert masks.dtype == np.int8
        actions = envs.action_space.sample(mask=tuple(masks))
        assert all(masks[i, a] == 1 for i, a in enumerate(actions))
        _obs, _r, _t, _tr, info = envs.step(actions)


# -- 2. action_masks() through gym.make and wrappers --------------------------------------------------------------
@pytest.mark.parametrize(("rules", "players", "opponents"), GAMES, ids=GAME_IDS)
def test_action_masks_is_reachable_on_gym_make_and_through_wrappers(rules, players, opponents):
    env = gym.make(GYM_ID, rules=rules, n_players=players, opponents=opponents)
    _obs, info = env.reset(seed=4)
    np.testing.assert_array_equal(env.action_masks(), info["action_mask"].astype(bool))  # no wrapper in between
    # a wrapper stack of one's own (and gym.make's TimeLimit): Gymnasium 1.x's get_wrapper_attr, which
    # stable-baselines3's DummyVecEnv.env_method / has_attr call for sb3-contrib's MaskablePPO
    for wrapped in (gym.wrappers.RecordEpisodeStatistics(env),
                    gym.make(GYM_ID, rules=rules, n_players=players, opponents=opponents, max_episode_steps=5)):
        _obs, info = wrapped.reset(seed=4)
        assert wrapped.has_wrapper_attr("action_masks")
        np.testing.assert_array_equal(wrapped.get_wrapper_attr("action_masks")(), info["action_mask"].astype(bool))
        # sb3-contrib's documented ActionMasker recipe: a function of the wrapped env
        mask_fn = lambda e: e.get_wrapper_attr("action_masks")()
        np.testing.assert_array_equal(mask_fn(wrapped), info["action_mask"].astype(bool))


def test_gym_make_still_refuses_step_before_reset_and_can_add_the_checker_back():
    env = gym.make(GYM_ID, n_players=2, opponents="random")
    assert isinstance(env, CoverYourAssetsGym)  # no OrderEnforcing or PassiveEnvChecker wrapper
    with pytest.raises(gym.error.ResetNeeded, match="call reset"):
        env.step(0)
    checked = gym.make(GYM_ID, n_players=2, opponents="random", disable_env_checker=False)
    assert type(checked).__name__ == "PassiveEnvChecker" and isinstance(checked.unwrapped, CoverYourAssetsGym)


# -- 3. the SB3 adapter's infos -----------------------------------------------------------------------------------
CAPPED = get_rules("classic", max_rounds=1)  # after one round nobody has $1,000,000: the safeguard stops it


def test_sb3_infos_give_the_finished_games_last_view_features_and_time_limit_truncated_on_capped_games():
    from agents.classic.learned import features
    from agents.classic.view import build_view
    from cya_sim.env.sb3 import ViewFeatureVectorEnv, sb3_infos

    venv = ViewFeatureVectorEnv(num_envs=2, rules=CAPPED, n_players=2, opponents="random")
    obs, info = venv.reset(seed=3)
    singles = [CoverYourAssetsGym(rules=CAPPED, n_players=2, opponents="random") for _ in range(2)]
    for b, s in enumerate(singles):
        s.reset(seed=3, options={"game": b})
    rng = np.random.default_rng(0)
    checked = 0
    while checked < 3:
        masks = venv.action_masks()
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks], np.int64)
        results = [s.step(int(a)) for s, a in zip(singles, actions, strict=True)]
        obs, _r, term, trunc, info = venv.step(actions)
        infos = sb3_infos(term, trunc, info)
        for b in range(2):
            _o, _rr, s_term, s_trunc, _i = results[b]
            assert (bool(term[b]), bool(trunc[b])) == (s_term, s_trunc)
            if not (term[b] or trunc[b]):
                assert infos[b] == {}
                continue
            last = singles[b].game.observe(0)  # the finished game's last position, seen by the learner
            hdr, hand, values, unseen, seats, _m = build_view(last)
            want = features(hdr, hand, values, unseen, seats, np.asarray(last.gave_up, bool)).astype(np.float32)
            np.testing.assert_allclose(infos[b]["terminal_observation"], want)
            assert not np.array_equal(infos[b]["terminal_observation"], obs[b])  # not the next game's first
            assert infos[b]["TimeLimit.truncated"] is True  # max_rounds stopped it: SB3 bootstraps it
            singles[b].reset(seed=3, options={"game": int(info["game"][b])})
            checked += 1


def test_sb3_infos_of_a_game_ended_by_its_rules_are_not_time_limit_truncated():
    from cya_sim.env.sb3 import sb3_infos

    venv = CoverYourAssetsVectorEnv(num_envs=4, n_players=2, opponents="random")
    venv.reset(seed=1)
    rng = np.random.default_rng(0)
    for _ in range(3000):
        masks = venv.action_masks()
        obs, _r, term, trunc, info = venv.step(np.argmax(rng.random(masks.shape) * masks, axis=1))
        if term.any():
            break
    assert term.any() and not trunc.any()
    infos = sb3_infos(term, trunc, info)
    for b in range(4):
        if term[b]:
            assert infos[b]["TimeLimit.truncated"] is False
            np.testing.assert_array_equal(infos[b]["terminal_observation"], info["final_obs"][b])
            assert not np.array_equal(infos[b]["terminal_observation"], obs[b])
        else:
            assert infos[b] == {}


def test_sb3_vec_env_step_wait_reports_capped_games_to_sb3():
    """Runs only where stable-baselines3 is installed (the ``train`` extra)."""
    pytest.importorskip("stable_baselines3")
    from cya_sim.env.sb3 import ViewFeatureVectorEnv, make_sb3_vec_env

    venv = make_sb3_vec_env(ViewFeatureVectorEnv(num_envs=2, rules=CAPPED, n_players=2, opponents="random"), seed=3)
    venv.reset()
    rng = np.random.default_rng(0)
    for _ in range(500):
        masks = venv.action_masks()
        venv.step_async(np.array([rng.choice(np.flatnonzero(m)) for m in masks]))
        obs, _r, dones, infos = venv.step_wait()
        if dones.any():
            b = int(np.flatnonzero(dones)[0])
            assert infos[b]["TimeLimit.truncated"] is True
            assert not np.array_equal(infos[b]["terminal_observation"], obs[b])
            return
    pytest.fail("no capped game ended in 500 steps")


# -- 4. gym.make_vec's standard keyword arguments -----------------------------------------------------------------
def test_make_vec_accepts_the_standard_keywords_at_the_envs_values():
    envs = gym.make_vec(GYM_ID, num_envs=2, max_episode_steps=None, render_mode=None, disable_env_checker=True,
                        n_players=2, opponents="random")
    assert isinstance(envs, CoverYourAssetsVectorEnv) and envs.num_envs == 2


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"max_episode_steps": 2}, r"^max_episode_steps: 2; allowed: None \(.*vectorization_mode=\"sync\""),
    ({"render_mode": "ansi"}, r"^render_mode: 'ansi'; allowed: None, 'rgb_array' \(.*vectorization_mode=\"sync\""),
    ({"disable_env_checker": "yes"}, r"^disable_env_checker: 'yes'; allowed: None, True, False"),
])
def test_make_vec_refuses_what_the_batched_env_cannot_honour_in_one_line(kwargs, message):
    with pytest.raises(ValueError, match=message) as e:
        gym.make_vec(GYM_ID, num_envs=2, n_players=2, opponents="random", **kwargs)
    assert "\n" not in str(e.value)


def test_make_vec_sync_mode_gives_each_game_gymnasiums_time_limit():
    envs = gym.make_vec(GYM_ID, num_envs=2, vectorization_mode="sync", max_episode_steps=2, n_players=2,
                        opponents="random")
    _obs, info = envs.reset(seed=1)
    flags = []
    for _ in range(2):
        masks = info["action_mask"]
        _obs, _r, term, trunc, info = envs.step(envs.action_space.sample(mask=tuple(masks)))
        flags.append((term.tolist(), trunc.tolist()))
    assert flags == [([False, False], [False, False]), ([False, False], [True, True])]


# -- 5. a missing extra is one line naming the install command ------------------------------------------------------
HIDE = """
import sys
sys.modules[{module!r}] = None
try:
    {statement}
except ImportError as e:
    print(type(e).__name__ + ": " + str(e))
else:
    print("imported")
"""


@pytest.mark.parametrize(("module", "statement", "names"), [
    ("gymnasium", "import cya_sim.env.gym", "gymnasium"),
    ("gymnasium", "from cya_sim.env import CoverYourAssetsVectorEnv", "gymnasium"),
    ("pettingzoo", "from cya_sim.env import cover_your_assets_v0", "pettingzoo"),
    ("pyspiel", "import cya_sim.env.openspiel", "pyspiel"),
])
def test_a_missing_toolkit_is_one_line_naming_the_rl_extra(module, statement, names):
    r = subprocess.run([sys.executable, "-c", HIDE.format(module=module, statement=statement)], cwd=ROOT,
                       capture_output=True, text=True, check=False, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == (f"ImportError: cya_sim.env needs the rl extra: pip install -e '.[rl]' "
                                f"({names} is not installed)")


def test_cya_sim_env_itself_imports_without_the_toolkits():
    code = ("import sys\nfor m in ('gymnasium', 'pettingzoo', 'pyspiel'): sys.modules[m] = None\n"
            "import cya_sim.env\nfrom cya_sim.env.registration import register_all\nprint(register_all())")
    r = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=False,
                       timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "{'gymnasium': False, 'openspiel': False}"


def test_the_notebooks_runner_without_nbclient_says_what_to_install_in_one_line():
    code = ("import runpy, sys\nsys.modules['nbclient'] = None\nsys.argv = ['execute.py']\n"
            "runpy.run_path('notebooks/execute.py', run_name='__main__')")
    r = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=False,
                       timeout=120)
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr == ("notebooks/execute.py needs nbclient, nbformat and ipykernel (the test extra): "
                        "pip install -e '.[test]'\n")


# -- 6. the documentation a user meets -----------------------------------------------------------------------------
def test_api_reference_covers_the_pettingzoo_module_and_the_sb3_adapter():
    page = (ROOT / "docs" / "api" / "env.md").read_text(encoding="utf-8")
    for module in ("cover_your_assets_v0", "aec", "gym", "vector", "features", "rewards", "sb3", "openspiel",
                   "registration", "errors"):
        assert f"\n::: cya_sim.env.{module}\n" in page, module


def test_include_only_pages_have_a_first_line_linking_the_included_file():
    """A page that is only a ``--8<--`` line reads as that line on the repository host; each starts with a link to
    the included file (hidden on the site by its style attribute, which the repository host strips)."""
    import re

    pages = [p for p in (ROOT / "docs").rglob("*.md") if "--8<--" in p.read_text(encoding="utf-8")]
    assert len(pages) == 5
    for page in pages:
        first, _blank, include = page.read_text(encoding="utf-8").splitlines()[:3]
        target = re.fullmatch(r'--8<-- "([^"]+)"', include).group(1)
        href = re.search(r'<a href="([^"]+)"><code>([^<]+)</code></a>', first)
        assert href and href.group(2) == target, page
        assert (page.parent / href.group(1)).resolve() == (ROOT / target).resolve(), page


def test_rl_page_and_readme_name_the_extras_and_the_recipe_that_learns():
    rl = (ROOT / "docs" / "rl.md").read_text(encoding="utf-8")
    for text in ("pip install -e '.[rl]'", "pip install -e '.[train]'", "ViewFeatureVectorEnv", "make_sb3_vec_env",
                 'reward="dense"', "terminal_observation", "TimeLimit.truncated", 'get_wrapper_attr("action_masks")'):
        assert text in rl, text
    assert "in no extra" not in rl
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "pip install -e '.[rl]'" in readme and "pip install -e '.[train]'" in readme


def test_sb3_contribs_masking_reaches_action_masks_through_make_vec_env_and_action_masker():
    """Runs only where sb3-contrib is installed (the ``train`` extra): what MaskablePPO calls to get the masks."""
    pytest.importorskip("sb3_contrib")
    from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported
    from sb3_contrib.common.wrappers import ActionMasker
    from stable_baselines3.common.env_util import make_vec_env

    def masker_by_name():
        return ActionMasker(gym.make(GYM_ID, n_players=2, opponents="greedy"), "action_masks")

    def masker_by_function():
        return ActionMasker(gym.make(GYM_ID, n_players=2, opponents="greedy", max_episode_steps=50),
                            lambda e: e.get_wrapper_attr("action_masks")())

    for make in (lambda: gym.make(GYM_ID, n_players=2, opponents="greedy"), masker_by_name, masker_by_function):
        venv = make_vec_env(make, n_envs=2, seed=1)
        assert is_masking_supported(venv)
        venv.reset()
        masks = get_action_masks(venv)
        assert masks.shape == (2, venv.action_space.n) and masks.any(axis=1).all()
        want = np.stack([e.unwrapped.action_masks() for e in venv.envs])
        np.testing.assert_array_equal(masks, want)
