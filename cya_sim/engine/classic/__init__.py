"""The classic family's engines (RULES.md §1-§8, §10): the readable reference engine (:mod:`.reference`, the
specification) and the compiled one proven equal to it game by game.

Compiled: one game as one int64 row (:mod:`.layout`), the rules kernel on a row (:mod:`.kernel`, with the draft
piles of §7 in :mod:`.draft`, the advanced rules of §6 in :mod:`.advanced`, the challenge in :mod:`.challenge` and
the cards each seat has seen in :mod:`.seen`), B rows with a queue of games (:mod:`.batched`), what a seat sees of a
row (:mod:`.batch_observation`, :mod:`.adapter`). The search plays single rows of the same layout. The random
streams are :mod:`cya_sim.engine.pcg` (PCG64, bit for bit as :mod:`cya_sim.game.rng`).
"""
