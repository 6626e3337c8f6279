"""The cache guard hashes the project's compiled sources, not a user's module saved in ``agents/`` (issue 33: the
README's Python agent, saved as ``agents/peaceful.py``, made its first run compile the play loop again)."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from cya_sim.engine import cache_guard


def test_a_users_module_in_agents_keeps_the_caches(tmp_path, monkeypatch):
    agents_dir = tmp_path / "agents"
    agents_dir.mkdir()
    for name in sorted(cache_guard.AGENTS_SHARED):
        (agents_dir / name).write_text(f"# {name}\n")
    monkeypatch.setattr(cache_guard, "FLOORS", (agents_dir,))
    monkeypatch.setattr(cache_guard, "SHARED", ())
    monkeypatch.setattr(cache_guard, "game_folders", lambda game: ())
    before = cache_guard.sources_digest("classic")
    (agents_dir / "peaceful.py").write_text("class PeacefulAgent:\n    name = 'peaceful'\n")
    assert cache_guard.sources_digest("classic") == before
    (agents_dir / "hooks.py").write_text("# edited\n")
    assert cache_guard.sources_digest("classic") != before


def test_agents_shared_lists_every_module_the_repository_ships_in_agents():
    """A new shared module in ``agents/`` must be added to :data:`cache_guard.AGENTS_SHARED`, else its edits would
    keep stale machine code."""
    root = cache_guard._ROOT
    if shutil.which("git") is None or not (root / ".git").exists():
        pytest.skip("needs the git checkout of the repository (its tracked files)")
    out = subprocess.run(["git", "-C", str(root), "ls-files", "agents/*.py"], capture_output=True, text=True,
                         check=True).stdout.split()
    tracked = {p.split("/", 1)[1] for p in out if p.count("/") == 1}
    assert tracked == set(cache_guard.AGENTS_SHARED)
