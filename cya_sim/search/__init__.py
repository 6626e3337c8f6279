"""Search for one seat of a hidden-information game: determinization, ISMCTS and PIMC, one folder per game.

* :mod:`.tree` — the game-independent part of single-observer ISMCTS (Cowling, Powley & Whitehouse, IEEE TCIAIG
  4(2), 2012): one node's choice, expansion, backup.
* :mod:`.classic` — the classic family's determinizer, kernels, entry points (``ismcts_search``, ``pimc_search``),
  agents ``ismcts`` and ``pimc`` and benchmarks.
* :mod:`.theft` — the same for the theft game (RULES.md §9) over its compiled kernel.
"""
