"""cya-sim's own cache folder (generated plug-in entries, the compile lock, compile-time estimates), and where
numba's disk cache goes when the installed sources cannot hold it."""

from __future__ import annotations

import hashlib
import os
import sys
import tempfile
from collections.abc import Iterable, Mapping, MutableMapping
from pathlib import Path

#: The package folders whose modules define ``@njit(cache=True)`` functions (numba caches each beside its source,
#: in ``__pycache__``): ``cya_sim/`` and the top-level ``agents/`` next to it.
PACKAGE = Path(__file__).resolve().parent
PACKAGE_DIRS = (PACKAGE, PACKAGE.parent / "agents")
#: The folders probed for a writable ``__pycache__``: where the play loop's and the agents' kernels live.
PROBED_DIRS = (PACKAGE / "engine", PACKAGE / "play", PACKAGE.parent / "agents")
#: What to do when no folder at all can hold numba's cache (the one line the command line prints).
NO_CACHE_FOLDER = ("numba cannot cache the compiled engine: the installed sources, the home folder's cache and the "
                   "temporary folder are all read-only; set NUMBA_CACHE_DIR (or CYA_SIM_CACHE_DIR) to a writable "
                   "folder")


def cache_folder() -> Path:
    """``$CYA_SIM_CACHE_DIR``, else ``~/.cache/cya_sim``; created when missing.

    Falls back to ``cya_sim_<uid>`` under the system's temporary directory when that one cannot be written.
    numba's own disk caches are not here: they sit beside the sources (``__pycache__``), or in
    ``$NUMBA_CACHE_DIR``, or, when the sources' folders cannot be written and ``NUMBA_CACHE_DIR`` is unset, in
    ``numba/<digest>`` under this folder (:func:`configure_numba_cache`).

    Raises:
        OSError: not even the temporary directory can be written.
    """
    d = os.environ.get("CYA_SIM_CACHE_DIR")
    out = Path(d) if d else Path.home() / ".cache" / "cya_sim"
    try:
        _check_writable(out)
        return out
    except (OSError, RuntimeError):  # RuntimeError: Path.home() without a home folder
        out = Path(tempfile.gettempdir()) / f"cya_sim_{os.getuid()}"
        out.mkdir(parents=True, exist_ok=True)
        return out


def _check_writable(folder: Path) -> None:
    """Create ``folder`` if needed and write and remove a file in it, as numba's cache locators do.

    Raises:
        OSError: the folder cannot be created or written.
    """
    folder.mkdir(parents=True, exist_ok=True)
    tempfile.TemporaryFile(dir=folder).close()


def sources_writable(dirs: Iterable[Path] = PROBED_DIRS) -> bool:
    """True if numba can keep its cache beside the sources: each of ``dirs`` that exists can hold a writable
    ``__pycache__`` (numba's in-tree locator, ``numba/core/caching.py``)."""
    for d in dirs:
        if not d.is_dir():
            continue
        try:
            _check_writable(d / "__pycache__")
        except OSError:
            return False
    return True


def sources_digest(dirs: Iterable[Path] = PACKAGE_DIRS) -> str:
    """SHA-256 (hex str) of the path and bytes of every ``.py`` file under ``dirs``: the key of the fallback
    cache folder, so that cached machine code of one version of the sources is never loaded by another (numba
    keys a function's cache on its own file only, while the kernels link many files)."""
    h = hashlib.sha256()
    for d in dirs:
        for p in sorted(Path(d).rglob("*.py")):
            if "__pycache__" in p.parts:
                continue
            h.update(str(p).encode("utf-8", "surrogateescape") + b"\0")
            try:
                h.update(p.read_bytes())
            except OSError:
                h.update(b"-")
            h.update(b"\0")
    return h.hexdigest()


def numba_cache_fallback(environ: Mapping[str, str] = os.environ, writable: bool | None = None) -> Path | None:
    """The folder numba's cache must use instead of the sources' ``__pycache__``, or None when no fallback is
    needed.

    None when ``NUMBA_CACHE_DIR`` is set (the user chose; left alone) or the sources' folders are writable
    (:func:`sources_writable`, or ``writable`` when given). Else ``numba/<digest>`` under :func:`cache_folder`
    (``$CYA_SIM_CACHE_DIR``, ``~/.cache/cya_sim``, or the temporary directory), ``<digest>`` the first 16 hex
    digits of :func:`sources_digest`: a read-only install gets one folder per version of its sources.

    Raises:
        OSError: no folder at all can be written (:data:`NO_CACHE_FOLDER` says what to set).
    """
    if environ.get("NUMBA_CACHE_DIR"):
        return None
    if writable is None:
        writable = sources_writable()
    if writable:
        return None
    out = cache_folder() / "numba" / sources_digest()[:16]
    _check_writable(out)
    return out


def configure_numba_cache(environ: MutableMapping[str, str] = os.environ) -> Path | None:
    """Point numba's disk cache at :func:`numba_cache_fallback` when the installed sources are read-only; the
    folder set, or None when nothing was changed (or nothing could be: then numba refuses to define a cached
    function, "no locator available", and the command line says in one line what to set, :data:`NO_CACHE_FOLDER`).

    Called by ``cya_sim/__init__.py`` before any ``@njit(cache=True)`` function is defined: numba reads
    ``numba.config.CACHE_DIR`` when it builds a function's cache locator (at decoration). It sets
    ``NUMBA_CACHE_DIR`` (numba reloads its configuration from the environment before each compile, and worker
    processes inherit it), and ``numba.core.config.CACHE_DIR`` if numba is already imported.
    """
    try:
        folder = numba_cache_fallback(environ)
    except OSError:
        return None
    if folder is None:
        return None
    environ["NUMBA_CACHE_DIR"] = str(folder)
    config = sys.modules.get("numba.core.config")
    if config is not None and environ is os.environ:
        config.CACHE_DIR = str(folder)
    return folder
