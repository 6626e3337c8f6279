"""The options every compiled function of cya-sim is compiled with (one place for all games and floors).

``cache``: numba's disk cache (beside the sources, or where :mod:`cya_sim.cache` points it; stale caches are
dropped by :mod:`cya_sim.engine.cache_guard`). ``_nrt``: no reference-counted allocation inside the kernels (every
array is passed in). ``error_model="numpy"``: a float division by zero gives inf or nan as NumPy does instead of
raising (the kernels guard their divisions; the check would cost a branch in every one).
"""

from __future__ import annotations

#: Keyword arguments of ``numba.njit`` for every kernel, policy and loop: ``@njit(**JIT)``.
JIT = {"cache": True, "_nrt": False, "error_model": "numpy"}
