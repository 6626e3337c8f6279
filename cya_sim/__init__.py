"""cya-sim: a research simulator for the card game Cover Your Assets."""

from cya_sim.cache import configure_numba_cache

__version__ = "0.1.0"

# Before any @njit(cache=True) function is defined: a read-only install keeps numba's cache elsewhere.
configure_numba_cache()
