"""Game engines, one folder per game (``classic/``, ``theft/``): the readable reference engine and the compiled rules
(one kernel, batched rows); shared here: the batch driver (:mod:`.batched`), the PCG64 streams (:mod:`.pcg`), the
result table (:mod:`.table`), calling an agent (:mod:`.agent_calls`) and the disk-cache guard (:mod:`.cache_guard`).

The engines run actions; they do not know which policy chose them. Playing
whole games with agents is the play layer's (:func:`cya_sim.play.get_play_games`):
both engines give identical results for identical arguments.
"""

from __future__ import annotations

ENGINES = ("batched", "reference")
