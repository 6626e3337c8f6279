"""Drop stale numba disk caches of the batched engine when its kernel sources change.

numba keys a function's on-disk cache on its own source file only. The play
loop (:func:`~cya_sim.engine.batched.runner.advance`) inlines or links kernels
from :mod:`.kernels`, :mod:`.pcg`, :mod:`.intrinsics` and the compiled agents
(``agents/*.py``), and the search (``cya_sim/search``) links the engine and
the agents too, so after an edit to one of those files cached machine code
would be stale. On import, :func:`invalidate_stale_caches` hashes every
Python source of the engine, of ``agents`` and of the search and, when the
hash differs from the one recorded last time, deletes the cached
``*.nbi``/``*.nbc`` files of those three folders and of the batched and
search tests, so that everything is compiled afresh once. With ``NUMBA_CACHE_DIR`` set the caches
live elsewhere and are left alone.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

_HERE = Path(__file__).resolve().parent
_AGENTS = _HERE.parents[2] / "agents"
_SEARCH = _HERE.parents[1] / "search"
SOURCES = tuple(sorted(_HERE.glob("*.py"))) + tuple(sorted(_AGENTS.glob("*.py"))) + tuple(sorted(_SEARCH.glob("*.py")))


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
    folders = [_HERE / "__pycache__", _AGENTS / "__pycache__", _HERE.parents[1] / "search" / "__pycache__",
               _HERE.parents[2] / "tests" / "__pycache__"]
    deleted = False
    for d in folders:
        if not d.is_dir():
            continue
        for f in list(d.glob("*.nbi")) + list(d.glob("*.nbc")):
            if d.parent.name == "tests" and not f.name.startswith(("test_batched", "test_search")):
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


def cold_compile_expected() -> bool:
    """Whether the next batched run compiles the play loop from scratch (no disk cache for it yet).

    True when ``__pycache__`` holds no cached ``runner.advance`` (a fresh clone, or the first run
    after an edit of the engine, agents or search, see :func:`invalidate_stale_caches`); False
    with ``NUMBA_CACHE_DIR`` set (the cache lives elsewhere and is not inspected).
    """
    if os.environ.get("NUMBA_CACHE_DIR"):
        return False
    invalidate_stale_caches()
    return not any((_HERE / "__pycache__").glob("runner.advance-*.nbi"))
