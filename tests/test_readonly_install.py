"""A read-only install with no writable home: numba's disk cache falls back to a writable folder keyed by the
sources (``cya_sim.cache.configure_numba_cache``), so ``cya-sim play`` and ``tournament`` run instead of ending in
"cannot cache function 'next64': no locator available"."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from cya_sim import cache
from cya_sim.cli.main import describe_error

ROOT = Path(__file__).resolve().parents[1]


# -- the fallback decision (cheap) -------------------------------------------------------------------------------
def test_numba_cache_fallback_none_when_numba_cache_dir_is_set(tmp_path):
    assert cache.numba_cache_fallback({"NUMBA_CACHE_DIR": str(tmp_path)}, writable=False) is None


def test_numba_cache_fallback_none_when_the_sources_are_writable():
    assert cache.numba_cache_fallback({}, writable=True) is None


def test_numba_cache_fallback_read_only_sources_use_the_cache_folder_keyed_by_the_sources_digest(tmp_path,
                                                                                                 monkeypatch):
    monkeypatch.setenv("CYA_SIM_CACHE_DIR", str(tmp_path))
    out = cache.numba_cache_fallback({}, writable=False)
    assert out == tmp_path / "numba" / cache.sources_digest()[:16] and out.is_dir()
    assert len(out.name) == 16 and int(out.name, 16) >= 0


def test_numba_cache_fallback_raises_oserror_when_no_folder_can_be_written(tmp_path, monkeypatch):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    monkeypatch.setattr(cache, "cache_folder", lambda: blocker)  # a file: nothing can be created under it
    with pytest.raises(OSError):
        cache.numba_cache_fallback({}, writable=False)
    monkeypatch.setattr(cache, "sources_writable", lambda dirs=cache.PROBED_DIRS: False)
    env: dict[str, str] = {}
    assert cache.configure_numba_cache(env) is None and env == {}  # never raises: numba then says "no locator"


def test_sources_writable_false_when_a_pycache_cannot_be_made(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    assert cache.sources_writable([tmp_path]) is True
    assert cache.sources_writable([tmp_path, blocker.parent / "missing"]) is True  # absent folders are skipped
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__pycache__").write_text("")  # a file where numba wants its folder
    assert cache.sources_writable([tmp_path / "pkg"]) is False


def test_sources_digest_changes_with_any_source_and_ignores_pycache(tmp_path):
    (tmp_path / "a.py").write_text("x = 1\n")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "b.py").write_text("y = 2\n")
    first = cache.sources_digest([tmp_path])
    (tmp_path / "__pycache__").mkdir()
    (tmp_path / "__pycache__" / "c.py").write_text("z = 3\n")
    assert cache.sources_digest([tmp_path]) == first
    (tmp_path / "sub" / "b.py").write_text("y = 3\n")
    assert cache.sources_digest([tmp_path]) != first and len(first) == 64


def test_configure_numba_cache_sets_numba_cache_dir_only_for_a_read_only_install(tmp_path, monkeypatch):
    monkeypatch.setenv("CYA_SIM_CACHE_DIR", str(tmp_path))
    env: dict[str, str] = {}
    monkeypatch.setattr(cache, "sources_writable", lambda dirs=cache.PROBED_DIRS: False)
    folder = cache.configure_numba_cache(env)
    assert folder == tmp_path / "numba" / cache.sources_digest()[:16] and env == {"NUMBA_CACHE_DIR": str(folder)}
    given = {"NUMBA_CACHE_DIR": "/somewhere"}
    assert cache.configure_numba_cache(given) is None and given == {"NUMBA_CACHE_DIR": "/somewhere"}
    monkeypatch.setattr(cache, "sources_writable", lambda dirs=cache.PROBED_DIRS: True)
    env = {}
    assert cache.configure_numba_cache(env) is None and env == {}


def test_this_checkout_keeps_numba_cache_beside_the_sources():
    """A writable checkout is left as it was: numba's cache stays in ``__pycache__`` (the cache guard's folders)."""
    assert cache.sources_writable() is True
    assert cache.numba_cache_fallback({}) is None


def test_no_writable_folder_for_numba_is_one_line_saying_what_to_set():
    e = RuntimeError("cannot cache function 'next64': no locator available for file '/x/pcg.py'")
    line, status = describe_error(e, "play")
    assert status == 2 and "\n" not in line
    assert line == ("cya-sim play: error: numba cannot cache the compiled engine: the installed sources, the home "
                    "folder's cache and the temporary folder are all read-only; set NUMBA_CACHE_DIR (or "
                    "CYA_SIM_CACHE_DIR) to a writable folder")


# -- a real read-only install ------------------------------------------------------------------------------------
@pytest.fixture
def read_only_install():
    """(run, root): ``cya_sim/`` and ``agents/`` copied into a read-only folder, ``HOME`` a read-only folder, the
    temporary folder writable; ``run(*args)`` runs ``python -m cya_sim.cli ARGS`` there (as ``nobody`` when the
    tests run as root, who could write anywhere)."""
    root = Path(tempfile.mkdtemp(prefix="cya_ro_"))
    root.chmod(0o755)
    site, home, tmp, work = (root / n for n in ("site", "home", "tmp", "work"))
    for n in ("cya_sim", "agents"):
        shutil.copytree(ROOT / n, site / n, ignore=shutil.ignore_patterns("__pycache__"))
    home.mkdir()
    for d in (tmp, work):
        d.mkdir()
        d.chmod(0o777)
    prefix: list[str] = []
    if os.geteuid() == 0:
        setpriv = shutil.which("setpriv")
        if setpriv is None:
            shutil.rmtree(root)
            pytest.skip("running as root, who can write into read-only folders, and no setpriv to run as nobody")
        prefix = [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups"]
    for p in [site, *site.rglob("*"), home]:
        mode = p.stat().st_mode
        p.chmod(mode & ~(stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH) | stat.S_IROTH
                | (stat.S_IXOTH if p.is_dir() else 0))
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home), "TMPDIR": str(tmp),
           "PYTHONPATH": str(site), "LANG": "C.UTF-8"}

    def run(*args: str, timeout: float = 900) -> subprocess.CompletedProcess:
        return subprocess.run([*prefix, sys.executable, "-m", "cya_sim.cli", *args], cwd=work, env=env,
                              capture_output=True, text=True, timeout=timeout, check=False)

    def probe(code: str) -> subprocess.CompletedProcess:
        return subprocess.run([*prefix, sys.executable, "-c", code], cwd=work, env=env, capture_output=True,
                              text=True, timeout=120, check=False)

    started = probe("print(1)")
    if started.returncode != 0 or started.stdout.strip() != "1":  # not cya-sim's doing: this Python is out of reach
        for q in [root, *root.rglob("*")]:
            if q.is_dir():
                q.chmod(0o755)
        shutil.rmtree(root, ignore_errors=True)
        pytest.skip(f"{sys.executable} cannot be started as the unprivileged user: {started.stderr.strip()[:200]}")
    yield run, probe, root
    for p in [root, *root.rglob("*")]:
        if p.is_dir() and not p.is_symlink():
            p.chmod(0o755)
    shutil.rmtree(root, ignore_errors=True)


def test_read_only_install_sets_numba_cache_dir_to_a_writable_folder_on_import(read_only_install):
    _run, probe, root = read_only_install
    r = probe("import os, cya_sim; print(cya_sim.__file__); print(os.environ['NUMBA_CACHE_DIR'])")
    assert r.returncode == 0, r.stderr
    where, folder = r.stdout.split()
    assert where == str(root / "site" / "cya_sim" / "__init__.py")  # the read-only copy, not this checkout
    uid = 65534 if os.geteuid() == 0 else os.getuid()
    assert Path(folder).parent == root / "tmp" / f"cya_sim_{uid}" / "numba" and len(Path(folder).name) == 16


@pytest.mark.slow
def test_read_only_install_plays_a_game_and_a_tournament(read_only_install):
    """``cya-sim play`` prints the same log as this checkout; a 20-game tournament exits 0 and writes its report;
    numba's cache lands in the fallback folder (about 100 s: the play loop compiles from nothing)."""
    run, _probe, root = read_only_install
    args = ("play", "--rules", "classic", "--players", "2", "--agents", "greedy,random", "--seed", "1")
    r = run(*args)
    assert r.returncode == 0 and r.stderr == "", r.stderr
    here = subprocess.run([sys.executable, "-m", "cya_sim.cli", *args], capture_output=True, text=True, timeout=300,
                          check=True)
    assert r.stdout == here.stdout and r.stdout.splitlines()[-1].startswith("game over: winner(s) seat 0")
    r = run("tournament", "--games", "20", "--out", str(root / "work" / "t"))
    assert r.returncode == 0, r.stderr
    assert "greedy" in r.stdout and (root / "work" / "t" / "REPORT.md").is_file()
    assert list((root / "tmp").rglob("*.nbi"))  # cached in the fallback folder
    assert not list((root / "site").rglob("*.nbi")) and not list((root / "home").iterdir())
