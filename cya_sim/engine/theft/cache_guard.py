"""Drop stale numba disk caches of the theft game's compiled code when any of its kernel sources changes.

numba keys a function's on-disk cache on its own source file only, while the theft play loop
(:mod:`cya_sim.play.theft_loop`) links the rules kernel (:mod:`cya_sim.engine.theft.kernel`), the batched rows
(:mod:`cya_sim.engine.theft.batched`), the compiled agents (``agents/theft_compiled.py``, ``agents/theft_view.py``)
and the shared PCG64 primitives (:mod:`cya_sim.engine.compiled.pcg`), and the theft search's kernels
(:mod:`cya_sim.search.theft`) link all of them and the search tree (:mod:`cya_sim.search.tree`). As the
classic family's :mod:`cya_sim.engine.compiled.cache_guard` does for its kernels, :func:`invalidate_stale_caches` hashes
those sources on import and, when the hash differs from the one recorded last time, deletes the theft
game's cached ``*.nbi``/``*.nbc`` files (and those of its compiled tests), so that they compile afresh
once. With ``NUMBA_CACHE_DIR`` set the caches live elsewhere and are left alone.
"""

from __future__ import annotations

from pathlib import Path

from cya_sim.engine.compiled.cache_guard import digest_of, drop_stale_caches

_HERE = Path(__file__).resolve().parent  # cya_sim/engine/theft
_PKG = _HERE.parents[1]  # cya_sim
_ROOT = _PKG.parent
_SEARCH = _PKG / "search" / "theft"
#: The sources compiled together into the theft play loop and the theft search's kernels: the kernel and batched
#: engine, the play loop, the compiled theft agents, the shared PCG64 primitives, the theft search and the search
#: tree's helpers (``cya_sim/search/tree.py``).
SOURCES = (tuple(sorted(_HERE.glob("*.py"))) + tuple(sorted((_PKG / "play").glob("theft_*.py")))
           + tuple(sorted((_ROOT / "agents").glob("theft*.py")))
           + (_PKG / "engine" / "compiled" / "pcg.py", _PKG / "engine" / "compiled" / "intrinsics.py")
           + tuple(sorted(_SEARCH.glob("*.py"))) + (_PKG / "search" / "tree.py",))
#: (cache folder, file name prefixes whose caches are dropped; () = every file).
_CACHES = ((_HERE / "__pycache__", ()), (_PKG / "play" / "__pycache__", ("theft_",)),
           (_ROOT / "agents" / "__pycache__", ("theft",)), (_SEARCH / "__pycache__", ()),
           (_ROOT / "tests" / "__pycache__", ("test_theft", "test_search_theft")))


def sources_digest() -> str:
    """SHA-256 (hex str) of the theft kernel's source files."""
    return digest_of(SOURCES)


def invalidate_stale_caches() -> bool:
    """Delete the theft kernel's numba cache files if its sources changed; True if it deleted any
    (:func:`cya_sim.engine.compiled.cache_guard.drop_stale_caches`)."""
    return drop_stale_caches(SOURCES, _CACHES, _HERE / "__pycache__" / "theft-kernel-sources.sha256")
