"""The batched engine's driver: B games as the rows of one int64 array, fed from a queue of games.

:mod:`.state` (the rows, their random streams and the queue), :mod:`.loops` (the compiled loops that start
queued games, check and apply actions and record results) and :mod:`.api` (``init``, ``step``). A game's
batched engine is its ``engine/<family>/batched.py`` (:mod:`cya_sim.engine.classic.batched`,
:mod:`cya_sim.engine.theft.batched`); playing whole games with agents is the play layer's.
"""
