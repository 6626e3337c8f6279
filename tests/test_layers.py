"""Imports run one way (docs/layout.md): game < engines < render < agents < play/search < env < results
< runs | reports < studies < cli.

``results`` is the results folder (manifest, chunks, ``chunks.json``, lock, atomic writes, loading). ``runs``
(experiments, the runner: play and store) and ``reports`` (statistics, plots, REPORT.md: read and analyse) share a
floor and never import each other; ``studies`` (tournaments, the tip study, coverage checks, tuning, the
meta-game, the leaderboard, benchmarks) compose them, and the CLI sits on top.

``env`` holds the toolkit environments (PettingZoo, Gymnasium, vector, OpenSpiel, the human
terminal): they join the engines, the agents and the play layer, and ``cya-sim bench --env`` and
``cya-sim play --human`` use them from above.

Every import statement of every module of ``cya_sim/`` and ``agents/`` —
top-level or inside a function — is read with :mod:`ast`; an import of a
module on a higher layer fails the test, and so does a module no layer
claims (a new module must be placed here). The engines also must not know
about agents: no ``KIND_*``/``POLICY_*`` agent enumeration in ``cya_sim/engine``.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

#: Layers from the bottom; each entry is a module or a package prefix.
LAYERS = (
    ("game", ("cya_sim", "cya_sim.game")),
    ("engines", ("cya_sim.engine",)),
    # pictures of a state (SVG, PNG, arrays) and the HTML replay: read states, drawn by the envs and the CLI
    ("render", ("cya_sim.render",)),
    ("agents", ("agents",)),
    ("play/search", ("cya_sim.play", "cya_sim.search")),
    ("env", ("cya_sim.env",)),
    ("results", ("cya_sim.results",)),
    # two rooms on one floor that never import each other (test_runs_and_reports_are_apart): the runner plays and
    # stores, the reports read and analyse
    ("runs/reports", ("cya_sim.runs", "cya_sim.reports")),
    ("studies", ("cya_sim.studies",)),
    ("cli", ("cya_sim.cli",)),
)


def layer_of(module: str) -> int | None:
    """Index of the layer of ``module`` (longest matching prefix), or None for a module outside the project."""
    best, best_len = None, -1
    for i, (_name, prefixes) in enumerate(LAYERS):
        for p in prefixes:
            if (module == p or module.startswith(p + ".")) and len(p) > best_len:
                best, best_len = i, len(p)
    return best


def project_modules():
    for base in ("cya_sim", "agents"):
        for path in sorted((ROOT / base).rglob("*.py")):
            rel = path.relative_to(ROOT).with_suffix("")
            parts = list(rel.parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            yield ".".join(parts), path


def imports_of(module: str, path: Path):
    """(line, imported module) of every import in the file, relative imports resolved."""
    tree = ast.parse(path.read_text(), str(path))
    pkg = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                yield node.lineno, a.name
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = pkg.split(".")
                base = base[: len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module
            yield node.lineno, target
            for a in node.names:  # ``from cya_sim import play`` imports the module cya_sim.play
                sub = f"{target}.{a.name}"
                if layer_of(sub) is not None and (ROOT / Path(*sub.split("."))).with_suffix(".py").exists():
                    yield node.lineno, sub


def test_every_module_has_a_layer():
    missing = [m for m, _ in project_modules() if layer_of(m) is None]
    assert not missing, f"place these modules in tests/test_layers.py LAYERS: {missing}"


def test_no_upward_import():
    bad = []
    for module, path in project_modules():
        mine = layer_of(module)
        for line, target in imports_of(module, path):
            theirs = layer_of(target)
            if theirs is not None and theirs > mine:
                bad.append(f"{path.relative_to(ROOT)}:{line} ({LAYERS[mine][0]}) imports {target} ({LAYERS[theirs][0]})")
    assert not bad, "upward imports:\n" + "\n".join(bad)


def test_runs_and_reports_are_apart():
    """The runner never reads reports and the reports never run games: no import either way (and no late one)."""
    bad = []
    for module, path in project_modules():
        for a, b in (("cya_sim.runs", "cya_sim.reports"), ("cya_sim.reports", "cya_sim.runs")):
            if module == a or module.startswith(a + "."):
                bad += [f"{path.relative_to(ROOT)}:{line} imports {t}" for line, t in imports_of(module, path)
                        if t == b or t.startswith(b + ".")]
    assert not bad, "imports between runs and reports:\n" + "\n".join(bad)


#: What the floors above the play floor may import of the games: the game protocol (cya_sim.play.families and the
#: kernels it lists), the rules API of every family (presets, rule sets, decks), seeds and input bounds, the
#: per-game result table, the engine names, the classic family's batch play by engine name, agent specs.
PROTOCOL = ("cya_sim.play.families", "cya_sim.play.kernels", "cya_sim.game.rules", "cya_sim.game.rng",
            "cya_sim.game.limits", "cya_sim.engine.table", "agents.spec")
PROTOCOL_FACES = ("cya_sim.engine", "cya_sim.play")  # package faces: ENGINES, get_play_games
GAME_SIDE = ("cya_sim.game", "cya_sim.engine", "cya_sim.play", "cya_sim.search", "agents")
#: Studies about one game family or about the engines themselves, allowed to look inside (and why).
GAME_SPECIFIC = {
    "cya_sim.studies.tips.studyfile": "the classic rulebook's tips, as ablations of the classic agents' switches",
    "cya_sim.studies.tips.replays": "replays a tip study's classic games on the classic reference engine",
    "cya_sim.studies.tune": "tunes the parameters of the classic agent families and their plug-ins",
    "cya_sim.studies.validation": "coverage checks on simulated classic games",
    "cya_sim.studies.bench": "measures the engines and the search themselves",
    "cya_sim.studies.bench_theft": "measures the theft game's engines themselves",
    "cya_sim.studies.learn": "trains the classic family's learned agents and writes them as plug-ins (agents.classic.learned)",
    "cya_sim.studies.exploit": "its best response is a classic-family learned agent, written as one (agents.classic.learned)",
}


def test_consumers_reach_a_game_only_through_the_protocol():
    """Runs, results, reports, the CLI and the game-independent studies import no game's internals."""
    bad = []
    for module, path in project_modules():
        if layer_of(module) <= layer_of("cya_sim.env") or module in GAME_SPECIFIC:
            continue
        for line, t in imports_of(module, path):
            if (t.startswith(GAME_SIDE) and not t.startswith(PROTOCOL) and t not in PROTOCOL_FACES
                    and layer_of(t) is not None and layer_of(t) <= layer_of("cya_sim.play")):
                bad.append(f"{path.relative_to(ROOT)}:{line} imports {t}")
    assert not bad, "imports of a game's internals above the play floor:\n" + "\n".join(bad)


def test_layer_check_catches_an_upward_import(tmp_path):
    """The check itself: an engine module importing agents is reported."""
    f = tmp_path / "x.py"
    f.write_text("def f():\n    from agents.classic.registry import make_agent\n")
    found = [t for _, t in imports_of("cya_sim.engine.batched.x", f)]
    assert "agents.classic.registry" in found and layer_of("agents.classic.registry") > layer_of("cya_sim.engine.batched.x")


def test_engines_do_not_enumerate_agents():
    for path in sorted((ROOT / "cya_sim" / "engine").rglob("*.py")):
        names = {n.id for n in ast.walk(ast.parse(path.read_text())) if isinstance(n, ast.Name)}
        assert not [n for n in names if n.startswith(("KIND_", "POLICY_"))], path


@pytest.mark.parametrize(("module", "toolkit"), [
    ("agents", None), ("cya_sim.engine.batched", None), ("cya_sim.search", None), ("cya_sim.play.classic.batched", None),
    ("cya_sim.results.folder", None), ("cya_sim.runs.runner", None), ("cya_sim.reports.report", None),
    ("cya_sim.studies.tournament", None), ("cya_sim.play.families", None), ("cya_sim.env.games", None),
    ("cya_sim.env.terminal", None), ("cya_sim.env.vector", "gymnasium"), ("cya_sim.env.openspiel", "pyspiel"),
])
def test_each_layer_imports_on_its_own(module, toolkit):
    """No import order is needed to dodge a cycle: each package imports first in a fresh interpreter."""
    if toolkit:
        pytest.importorskip(toolkit)
    r = subprocess.run([sys.executable, "-c", f"import {module}"], capture_output=True, text=True, timeout=300,
                       check=False)
    assert r.returncode == 0, r.stderr[-2000:]


#: Shared modules that a new game must not have to touch (docs/layout.md, "Adding a game"): they reach a game only
#: through the registry (cya_sim.game.registry.game_part), never by importing its folder.
GAME_BLIND = ("cya_sim.render.table", "cya_sim.render.model", "cya_sim.env.terminal", "cya_sim.env.narration",
              "cya_sim.cli.main")


def test_shared_modules_import_no_game_folder():
    """The table layout, the terminal and the command line's error boundary import no module of a game's folder."""
    from cya_sim.game.registry import GAMES

    bad = [f"{path.relative_to(ROOT)}:{line} imports {t}" for module, path in project_modules() if module in GAME_BLIND
           for line, t in imports_of(module, path) if set(t.split(".")) & set(GAMES)]
    assert len({m for m, _ in project_modules() if m in GAME_BLIND}) == len(GAME_BLIND)
    assert not bad, "shared modules importing a game's folder:\n" + "\n".join(bad)
