"""Compiled plug-in agents (issue 12): the example of agents/README.md, installed as a throw-away package.

The test writes the README's ``my_policy.py`` into a package with an entry
point in the group ``cya_sim.agents``, installs it into this environment with
pip (no network), and plays it by entry-point name and by ``module:function``
path: in the batched engine's compiled loop and in the reference engine (the
same games, game by game), and as the ISMCTS rollout policy. It is uninstalled
afterwards.
"""

from __future__ import annotations

import importlib
import re
import subprocess
import sys
from importlib.metadata import entry_points
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
PKG = "cya_plugin_example"


def readme_example() -> str:
    """The code block after ``<!-- plugin-example -->`` in agents/README.md."""
    text = (ROOT / "agents" / "README.md").read_text()
    m = re.search(r"<!-- plugin-example -->\s*```python\n(.*?)```", text, re.DOTALL)
    assert m, "agents/README.md lost its plug-in example"
    return m.group(1)


def _pip(*args):
    r = subprocess.run([sys.executable, "-m", "pip", "--disable-pip-version-check", *args], capture_output=True,
                       text=True, timeout=600, check=False)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]


def build_wheel(folder: Path) -> Path:
    """A wheel of the throw-away package (the README example and an entry point), written by hand.

    A wheel is a zip of the package files and a ``.dist-info`` folder; writing it here needs no
    build backend and no network, and pip installs it like any other.
    """
    import base64
    import hashlib
    import zipfile

    dist = PKG.replace("_", "-")
    info = f"{PKG}-0.0.1.dist-info"
    files = {
        f"{PKG}/__init__.py": "",
        f"{PKG}/my_policy.py": readme_example(),
        f"{info}/METADATA": f"Metadata-Version: 2.1\nName: {dist}\nVersion: 0.0.1\n",
        f"{info}/WHEEL": "Wheel-Version: 1.0\nGenerator: cya-sim-test\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
        f"{info}/entry_points.txt": f"[cya_sim.agents]\nlay_best = {PKG}.my_policy:decide\n",
    }
    record = []
    for name, text in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(text.encode()).digest()).rstrip(b"=").decode()
        record.append(f"{name},sha256={digest},{len(text.encode())}")
    record.append(f"{info}/RECORD,,")
    files[f"{info}/RECORD"] = "\n".join(record) + "\n"
    whl = folder / f"{PKG}-0.0.1-py3-none-any.whl"
    with zipfile.ZipFile(whl, "w") as z:
        for name, text in files.items():
            z.writestr(name, text)
    return whl


@pytest.fixture(scope="module")
def installed_plugin(tmp_path_factory):
    whl = build_wheel(tmp_path_factory.mktemp("plugin"))
    _pip("install", "--quiet", "--no-deps", "--no-index", str(whl))
    importlib.invalidate_caches()
    try:
        yield
    finally:
        _pip("uninstall", "--quiet", "--yes", PKG.replace("_", "-"))


# The loops are compiled once for every plug-in (agents/view_abi.py): the plug-in compiles on its own, in seconds.
def test_plugin_plays_in_both_engines_and_as_rollout(installed_plugin):
    from agents.classic.registry import compiled_policy
    from cya_sim.engine.classic.reference.observation import observe
    from cya_sim.game.rng import root_key
    from cya_sim.game.rules import get_rules
    from cya_sim.play import get_play_games
    from cya_sim.search.classic import ismcts_search

    assert "lay_best" in {ep.name for ep in entry_points(group="cya_sim.agents")}
    assert callable(getattr(compiled_policy("lay_best"), "py_func", None))  # a compiled plug-in
    rules = get_rules("classic")
    agents = ["lay_best", "greedy", f"{PKG}.my_policy:decide", "card_counter"]
    g = 60
    sa = np.random.default_rng(4).integers(0, len(agents), (g, 4)).astype(np.int16)
    ours = get_play_games("batched")(rules, agents, sa, root_key(12), np.arange(g))
    ref = get_play_games("reference")(rules, agents, sa, root_key(12), np.arange(g))
    assert ours.equals(ref)
    assert np.allclose(ours.win_share.sum(axis=1), 1.0)
    from cya_sim.engine.classic.reference import new_game

    state = new_game(rules, 4, root_key(3), 0)
    obs = observe(state, state.to_act)
    res = ismcts_search(obs, iterations=200, rollout="lay_best", seed=1)
    assert obs.legal_action_mask[res.action] and res.iterations == 200 and res.rollout_actions > 0


#: The README example in the first form of the interface (nine arguments, over ``mask``; before 2026-12-03).
FIRST_FORM = '''
from numba import njit
from agents.classic.view import H_CH_ACTIVE, action_starts, uniform

@njit(cache=True)
def decide(params, hdr, hand, values, unseen, seats, gave_up, mask, rng):
    _ph, pd, ch, di, re, gu, w = action_starts(hdr)
    lo, hi = (re, gu) if hdr[H_CH_ACTIVE] else (0, ch)  # answers in a challenge, else sets
    best, best_v = -1, -1
    for a in range(lo, hi):
        v = 0 if hdr[H_CH_ACTIVE] else values[a // w if a < pd else a - pd]
        if mask[a] and v > best_v:
            best, best_v = a, v
    if best >= 0 or hdr[H_CH_ACTIVE]:
        return best if best >= 0 else gu
    n = 0
    for a in range(di, re):  # a uniform legal discard
        n += mask[a]
    k = int(uniform(rng) * n)
    for a in range(di, re):
        k -= mask[a]
        if mask[a] and k < 0:
            return a
    return gu
'''


@pytest.mark.parametrize("players", [2, 3, 4, 6])
def test_first_form_over_the_mask_still_plays_and_equals_the_legal_ids_form(tmp_path, monkeypatch, players):
    """A plug-in of nine arguments (no ``legal``) plays as before: the README's form over the legal ids and the
    first form over the mask are the same policy, so they play the same games (totals, decisions and shares of every
    game), on both engines; ``tests/test_action_log_hashes.py`` holds the README form's action logs to the first
    form's SHA-256."""
    from cya_sim.game.rng import root_key
    from cya_sim.game.rules import get_rules
    from cya_sim.play import get_play_games

    (tmp_path / "cya_first_form.py").write_text(FIRST_FORM)
    (tmp_path / "cya_legal_form.py").write_text(readme_example())
    monkeypatch.syspath_prepend(str(tmp_path))
    rules = get_rules("classic")
    g = 40
    sa = np.random.default_rng(players).integers(0, 2, (g, players)).astype(np.int16)
    tables = {}
    for form in ("cya_first_form", "cya_legal_form"):
        for engine in ("batched", "reference"):
            tables[form, engine] = get_play_games(engine)(rules, [f"{form}:decide", "greedy"], sa, root_key(7),
                                                          np.arange(g))
    first = tables["cya_first_form", "batched"]
    for t in tables.values():
        assert t.equals(first)
