"""Action-log hashes of fixed line-ups: a change of speed must not change one game (issue 21).

Each case of :data:`CASES` plays a few hundred games on the batched engine with every action logged
(every preset, every built-in compiled agent, the compiled plug-in example of ``agents/README.md``)
or, for the search agents, on the reference engine, and hashes (SHA-256) the action logs with the
result table. The hashes in ``tests/data/action_log_hashes.json`` were written by
``python tests/test_action_log_hashes.py --write`` on the code before issue 21's compile and speed
work (commit 38bc065): the compiled kernels, the plug-in path and the agents reading the game row must
reproduce every one of them. The learned models' cases (``*-learned``, ``*-champion``) were written on the code
before issue 33's network evaluation (commit 9e77d60: NumPy's BLAS products and libm's tanh), which their new
evaluation must reproduce decision for decision.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import numpy as np
import pytest

HERE = Path(__file__).resolve().parent
DATA = HERE / "data" / "action_log_hashes.json"
PLUGIN_MODULE = "cya_hash_my_policy"
PLUGIN = f"{PLUGIN_MODULE}:decide"

#: (case id, preset, players, agents cycled over the seats with the seat rotation of a tournament, games, engine)
CASES = (
    ("classic-4-greedy-random", "classic", 4, ("greedy", "random"), 400, "batched"),
    ("classic-3-strategy", "classic", 3, ("card_counter", "heuristic(count=true, backup=true)", "wild_hoarder"),
     300, "batched"),
    ("classic-5-mixed", "classic", 5, ("card_counter(infer_hidden=false)", "greedy", "heuristic(save_wild=true)",
                                       "random", "card_counter(min_gain=5000)"), 300, "batched"),
    ("classic-4-oracle", "classic", 4, ("oracle(cheats=true)", "card_counter", "greedy", "heuristic"), 200,
     "batched"),
    ("guide-6-mixed", "guide", 6, ("greedy", "card_counter", "random"), 200, "batched"),
    ("basic-2-strategy", "basic", 2, ("card_counter", "heuristic(fast_first=true, cover=true)"), 300, "batched"),
    ("advanced-4-mixed", "advanced", 4, ("greedy", "card_counter", "heuristic(count=true)", "random"), 200,
     "batched"),
    ("advanced-6-strategy", "advanced", 6, ("wild_hoarder", "card_counter", "oracle(cheats=true)"), 100, "batched"),
    ("two_player_draft-2", "two_player_draft", 2, ("greedy", "card_counter"), 300, "batched"),
    ("three_player_draft-3", "three_player_draft", 3, ("heuristic(count=true)", "random", "card_counter"), 300,
     "batched"),
    ("two_player_draft_advanced-2", "two_player_draft_advanced", 2, ("card_counter", "greedy"), 200, "batched"),
    ("three_player_draft_advanced-3", "three_player_draft_advanced", 3, ("greedy", "wild_hoarder", "random"), 200,
     "batched"),
    ("classic-4-plugin", "classic", 4, (PLUGIN, "greedy", "card_counter"), 300, "batched"),
    ("advanced-4-plugin", "advanced", 4, (PLUGIN, "random"), 100, "batched"),
    ("classic-4-learned", "classic", 4, ("agents.learned_models.classic_4p:decide", "card_counter"), 300, "batched"),
    ("classic-6-champion", "classic", 6, ("agents.learned_models.champion:decide", "card_counter"), 100, "batched"),
    ("advanced-4-champion", "advanced", 4, ("agents.learned_models.champion:decide", "card_counter", "greedy"), 100,
     "batched"),
    ("classic-4-ismcts", "classic", 4, ("ismcts(iterations=40, seed=3)", "greedy"), 4, "reference"),
    ("classic-3-pimc-cc", "classic", 3, ('pimc(iterations=30, rollout="card_counter", seed=5)', "card_counter"), 3,
     "reference"),
    ("classic-4-ismcts-plugin", "classic", 4, (f'ismcts(iterations=30, rollout="{PLUGIN}", seed=7)', "greedy"), 2,
     "reference"),
)


def plugin_folder(tmp: Path) -> Path:
    """Write the README's compiled plug-in example as ``cya_hash_my_policy.py`` into ``tmp``; returns ``tmp``."""
    from cya_sim.studies.bench import plugin_example_source

    (tmp / f"{PLUGIN_MODULE}.py").write_text(plugin_example_source())
    return tmp


def case_hash(preset: str, players: int, agents: tuple[str, ...], games: int, engine: str) -> str:
    """SHA-256 (hex) of the action logs (batched) and the result table of one case of :data:`CASES`."""
    from cya_sim.game.rng import root_key
    from cya_sim.game.rules import get_rules

    rules = get_rules(preset)
    idx = np.arange(games, dtype=np.int64)
    base = np.arange(players) % len(agents)
    seat_agent = base[(np.arange(players)[None, :] + idx[:, None]) % players].astype(np.int16)
    key = root_key(21)
    h = hashlib.sha256()
    if engine == "batched":
        from cya_sim.play.classic.batched import play_games

        table, state = play_games(rules, list(agents), seat_agent, key, idx, log_cap=4000, return_state=True)
        for g in range(games):
            h.update(np.ascontiguousarray(state.log_actions[g, : state.log_len[g]], np.int16).tobytes())
    else:
        from cya_sim.play.classic.reference import play_games

        table = play_games(rules, list(agents), seat_agent, key, idx)
    for col in ("first_dealer", "totals", "win_share", "rounds", "turns", "challenges", "decisions",
                "largest_steal", "capped"):
        h.update(np.ascontiguousarray(getattr(table, col)).tobytes())
    return h.hexdigest()


@pytest.fixture(scope="module")
def plugin_on_path(tmp_path_factory):
    folder = plugin_folder(tmp_path_factory.mktemp("hash_plugin"))
    sys.path.insert(0, str(folder))
    yield
    sys.path.remove(str(folder))
    sys.modules.pop(PLUGIN_MODULE, None)


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_action_log_hash_unchanged(case, plugin_on_path):
    """Every action of every game of the case equals the recorded one (the hash of logs and results)."""
    expected = json.loads(DATA.read_text())
    name, *args = case
    assert case_hash(*args) == expected[name], f"case {name}: the games changed"


if __name__ == "__main__":  # python tests/test_action_log_hashes.py --write
    import tempfile

    if "--write" not in sys.argv:
        sys.exit("usage: python tests/test_action_log_hashes.py --write  (records the hashes of the current code)")
    with tempfile.TemporaryDirectory() as d:
        sys.path.insert(0, str(plugin_folder(Path(d))))
        out = {}
        for name, *args in CASES:
            out[name] = case_hash(*args)
            print(name, out[name][:16], flush=True)
    DATA.parent.mkdir(exist_ok=True)
    DATA.write_text(json.dumps(out, indent=1) + "\n")
