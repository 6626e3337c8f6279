"""cya-sim's own cache folder (generated plug-in entries, the compile lock, compile-time estimates)."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def cache_folder() -> Path:
    """``$CYA_SIM_CACHE_DIR``, else ``~/.cache/cya_sim``; created when missing.

    Falls back to ``cya_sim_<uid>`` under the system's temporary directory when that one cannot be written.
    numba's own disk caches are not here: they sit beside the sources (``__pycache__``), or in
    ``$NUMBA_CACHE_DIR``.
    """
    d = os.environ.get("CYA_SIM_CACHE_DIR")
    out = Path(d) if d else Path.home() / ".cache" / "cya_sim"
    try:
        out.mkdir(parents=True, exist_ok=True)
        probe = out / f".probe{os.getpid()}"
        probe.write_text("")
        probe.unlink()
        return out
    except OSError:
        out = Path(tempfile.gettempdir()) / f"cya_sim_{os.getuid()}"
        out.mkdir(parents=True, exist_ok=True)
        return out
