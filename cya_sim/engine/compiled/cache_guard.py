"""Drop stale numba disk caches of the compiled code when any kernel source changes.

numba keys a function's on-disk cache on its own source file only. The play
loop (``cya_sim.play``) links the rules kernel (:mod:`.rules`, :mod:`.pcg`,
:mod:`.intrinsics`), the batched engine's loops and the compiled agents
(``agents/*.py``), and the search (``cya_sim/search``) links all of them too,
so after an edit to one of those files cached machine code would be stale. On
import, :func:`invalidate_stale_caches` hashes every Python source of those
folders and, when the hash differs from the one recorded last time, deletes
their cached ``*.nbi``/``*.nbc`` files (and those of the batched and search
tests), so that everything is compiled afresh once. With ``NUMBA_CACHE_DIR``
set the caches live elsewhere and are left alone; that includes a read-only
install, where :func:`cya_sim.cache.configure_numba_cache` sets it to a folder
named by a digest of all the sources (a new version of the sources gets a new,
empty folder, so nothing there can be stale).
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

_HERE = Path(__file__).resolve().parent
_PKG = _HERE.parents[1]
#: Folders whose sources are compiled together (their numba caches are dropped together).
FOLDERS = (_HERE, _HERE.parent / "batched", _PKG.parent / "agents", _PKG / "search", _PKG / "play")
#: Their sources, without the theft game's (``theft*.py``: its own guard, :mod:`cya_sim.engine.theft.cache_guard`).
#: Pure-Python modules of those folders that no kernel links (their edits keep the caches).
PURE_PYTHON = frozenset({"families.py", "kernels.py"})
SOURCES = tuple(p for d in FOLDERS for p in sorted(d.glob("*.py"))
                if not p.name.startswith("theft") and p.name not in PURE_PYTHON)
_TESTS = _PKG.parent / "tests"


#: Test files whose compiled caches go with the kernels'.
TEST_PREFIXES = ("test_batched", "test_search", "test_kernel", "test_plugin", "test_agents_compiled")


def digest_of(sources) -> str:
    """SHA-256 (hex str) of the bytes of ``sources`` (paths, in order; an unreadable one counts as ``-``)."""
    h = hashlib.sha256()
    for p in sources:
        try:
            h.update(p.read_bytes())
        except OSError:
            h.update(b"-")
    return h.hexdigest()


def sources_digest() -> str:
    """SHA-256 (hex str) of the kernel source files."""
    return digest_of(SOURCES)


def drop_stale_caches(sources, caches, stamp: Path) -> bool:
    """Delete the ``*.nbi``/``*.nbc`` files of ``caches`` if ``sources`` changed since ``stamp`` was written; True
    if it deleted any. Shared by every game's compiled code (the theft game's: :mod:`cya_sim.engine.theft.cache_guard`).

    Args:
        sources: the source files compiled together. caches: (cache folder, file name prefixes whose caches are
            dropped; () = every file). stamp: the file keeping the sources' last digest.

    Errors (read-only folders, files removed by another process) are ignored: numba then recompiles or caches
    elsewhere. With ``NUMBA_CACHE_DIR`` set the caches live elsewhere and nothing is done.
    """
    if os.environ.get("NUMBA_CACHE_DIR"):
        return False
    digest = digest_of(sources)
    try:
        if stamp.read_text() == digest:
            return False
    except OSError:
        pass
    deleted = False
    for d, prefixes in caches:
        if not d.is_dir():
            continue
        for f in list(d.glob("*.nbi")) + list(d.glob("*.nbc")):
            if prefixes and not f.name.startswith(prefixes):
                continue
            try:
                f.unlink()
                deleted = True
            except OSError:
                pass
    try:
        stamp.parent.mkdir(exist_ok=True)
        stamp.write_text(digest)
    except OSError:
        pass
    return deleted


def invalidate_stale_caches() -> bool:
    """Delete the engine's numba cache files if the kernel sources changed; True if it deleted any
    (:func:`drop_stale_caches` over :data:`FOLDERS` and the kernels' tests)."""
    caches = [(d / "__pycache__", ()) for d in FOLDERS] + [(_TESTS / "__pycache__", TEST_PREFIXES)]
    return drop_stale_caches(SOURCES, caches, _HERE / "__pycache__" / "kernel-sources.sha256")
