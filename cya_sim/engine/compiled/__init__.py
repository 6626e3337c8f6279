"""The compiled rules: one game as one int64 row (:mod:`.layout`), one kernel on it (:mod:`.rules`).

The batched engine (:mod:`cya_sim.engine.batched`) plays B rows side by side;
the search (:mod:`cya_sim.search`) plays single rows of the same layout. The
random streams are :mod:`.pcg` (PCG64, bit for bit as :mod:`cya_sim.game.rng`).
"""
