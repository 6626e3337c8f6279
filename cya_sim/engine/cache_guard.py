"""Drop stale numba disk caches of a game's compiled code when any source it links changes.

numba keys a function's on-disk cache on its own source file only, while a game's compiled code links many
files: its rules kernel, the batch driver, its compiled agents, its search kernels, and the shared primitives
(PCG64 streams, the search tree). After an edit to one of those, cached machine code would be stale. So each
game's rules kernel calls :func:`invalidate_stale_caches` with the game's name on import: it hashes every
Python source the game's compiled code can link — the shared modules of each compiled floor (:data:`FLOORS`:
``cya_sim/engine``, ``cya_sim/search``, ``cya_sim/play``, ``agents``; the batch driver ``cya_sim/engine/batched``)
and the game's own folder on each of them (``<floor>/<game>/``, :data:`cya_sim.game.registry.GAMES`) — and, when
the hash differs from the one recorded last time, deletes the cached ``*.nbi``/``*.nbc`` files of those folders
(and those of the compiled tests), so that they compile afresh once. A game's guard hashes its own folders and
the shared ones, never another game's.

With ``NUMBA_CACHE_DIR`` set the caches live elsewhere and are left alone; that includes a read-only install,
where :func:`cya_sim.cache.configure_numba_cache` sets it to a folder named by a digest of all the sources (a new
version of the sources gets a new, empty folder, so nothing there can be stale).
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

_PKG = Path(__file__).resolve().parents[1]  # cya_sim
_ROOT = _PKG.parent
#: The floors whose modules define compiled code: each holds shared modules and one folder per game.
FLOORS = (_PKG / "engine", _PKG / "search", _PKG / "play", _ROOT / "agents")
#: Shared folders of compiled code that belong to no game: the batch driver.
SHARED = (_PKG / "engine" / "batched",)
#: Pure-Python modules of the play floor that no kernel links (their edits keep the caches).
PURE_PYTHON = frozenset({"families.py", "kernels.py"})
#: The agents floor's own shared modules. A user's module saved beside them (the README's ``agents/peaceful.py``)
#: is not hashed: no kernel links it (a compiled plug-in is called by its C address and cached by its own file,
#: :mod:`agents.plugin`), and hashing it made the first run after saving it compile the play loop again.
#: ``tests/test_cache_guard_sources.py`` checks this list against the repository's files.
AGENTS_SHARED = frozenset({"__init__.py", "base.py", "hooks.py", "plugin.py", "spec.py", "view_abi.py"})
_TESTS = _ROOT / "tests"
#: Test files whose compiled caches go with the kernels'.
TEST_PREFIXES = ("test_batched", "test_search", "test_kernel", "test_plugin", "test_agents_compiled", "test_theft")


def game_folders(game: str) -> tuple[Path, ...]:
    """The folders of ``game``'s compiled code (``<floor>/<game>/`` of each floor that has one) and their
    subfolders."""
    out = []
    for floor in FLOORS:
        d = floor / game
        if d.is_dir():
            out += [d] + sorted(p for p in d.rglob("*") if p.is_dir() and p.name != "__pycache__")
    return tuple(out)


def sources_of(game: str) -> tuple[Path, ...]:
    """The Python sources ``game``'s compiled code can link, in a fixed order: the shared modules of every floor
    (:data:`FLOORS`, :data:`SHARED`; of the agents floor only :data:`AGENTS_SHARED`), then the game's folders
    (:func:`game_folders`)."""
    shared = [p for floor in FLOORS for p in sorted(floor.glob("*.py"))
              if not (floor.name == "play" and p.name in PURE_PYTHON)
              and not (floor.name == "agents" and p.name not in AGENTS_SHARED)]
    shared += [p for d in SHARED for p in sorted(d.glob("*.py"))]
    return tuple(shared) + tuple(p for d in game_folders(game) for p in sorted(d.glob("*.py")))


def caches_of(game: str) -> list[tuple[Path, tuple[str, ...]]]:
    """(cache folder, file name prefixes whose caches are dropped; () = every file) of ``game``'s compiled code:
    the shared floors' and ``game``'s ``__pycache__`` folders, and the compiled tests' (:data:`TEST_PREFIXES`)."""
    return ([(d / "__pycache__", ()) for d in FLOORS + SHARED + game_folders(game)]
            + [(_TESTS / "__pycache__", TEST_PREFIXES)])


def digest_of(sources) -> str:
    """SHA-256 (hex str) of the bytes of ``sources`` (paths, in order; an unreadable one counts as ``-``)."""
    h = hashlib.sha256()
    for p in sources:
        try:
            h.update(p.read_bytes())
        except OSError:
            h.update(b"-")
    return h.hexdigest()


def sources_digest(game: str = "classic") -> str:
    """SHA-256 (hex str) of the source files ``game``'s compiled code links (:func:`sources_of`)."""
    return digest_of(sources_of(game))


def drop_stale_caches(sources, caches, stamp: Path) -> bool:
    """Delete the ``*.nbi``/``*.nbc`` files of ``caches`` if ``sources`` changed since ``stamp`` was written; True
    if it deleted any.

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


def invalidate_stale_caches(game: str) -> bool:
    """Delete the numba cache files of ``game``'s compiled code (and the shared code's) if any source it links
    changed since the last call; True if it deleted any (:func:`drop_stale_caches` over :func:`sources_of` and
    :func:`caches_of`, the digest kept in ``cya_sim/engine/<game>/__pycache__/cache-sources.sha256``)."""
    return drop_stale_caches(sources_of(game), caches_of(game),
                             _PKG / "engine" / game / "__pycache__" / "cache-sources.sha256")
