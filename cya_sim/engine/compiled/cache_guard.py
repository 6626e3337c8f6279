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
set the caches live elsewhere and are left alone.
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


def sources_digest() -> str:
    """SHA-256 (hex str) of the kernel source files."""
    h = hashlib.sha256()
    for p in SOURCES:
        try:
            h.update(p.read_bytes())
        except OSError:
            h.update(b"-")
    return h.hexdigest()


def invalidate_stale_caches() -> bool:
    """Delete the engine's numba cache files if the kernel sources changed; True if it deleted any.

    Errors (read-only folders, files removed by another process) are ignored:
    numba then recompiles or caches elsewhere.
    """
    if os.environ.get("NUMBA_CACHE_DIR"):
        return False
    stamp = _HERE / "__pycache__" / "kernel-sources.sha256"
    digest = sources_digest()
    try:
        if stamp.read_text() == digest:
            return False
    except OSError:
        pass
    folders = [d / "__pycache__" for d in FOLDERS] + [_TESTS / "__pycache__"]
    deleted = False
    for d in folders:
        if not d.is_dir():
            continue
        for f in list(d.glob("*.nbi")) + list(d.glob("*.nbc")):
            if d.parent.name == "tests" and not f.name.startswith(("test_batched", "test_search", "test_kernel", "test_plugin",
                                                                 "test_agents_compiled")):
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
