"""What a game's compiled agents give the shared compiled loops: one policy dispatch, chosen by the game.

The play loop (:mod:`cya_sim.play.loop`) and the search's rollouts (:mod:`cya_sim.search.kernels`) are written once
for every game; they call :func:`act`, and each game registers its compiled policies' dispatch for its constants
record with :func:`cya_sim.engine.hooks.implement` (``agents/<game>/compiled.py``), as the engine's hooks are
registered (:mod:`cya_sim.engine.hooks`, which says why: numba caches a loop only when it takes no compiled
function as an argument).

Every game gives its built-in ``random`` and ``greedy`` these policy codes (its other policies take the codes
from 2 up): the search trusts ``greedy``'s decisions and checks every other policy's.
"""

from __future__ import annotations

from cya_sim.engine.hooks import hook

#: Policy codes every game gives its built-in ``random`` and ``greedy`` policies.
POLICY_RANDOM, POLICY_GREEDY = 0, 1


@hook
def act(code, addr, K, G, seat, params, rng, sc):
    """The action (int64) of compiled policy ``code`` for ``seat`` in row ``G`` (compiled code only).

    code: the game's policy code (-1 never reaches here: a Python seat); addr: a view policy's C address (0
    otherwise); K: the constants record; G: (W,) int64 the row; params: (N_AGENT_PARAMS,) float64; rng: (4,) uint64
    the seat's PCG64 stream; sc: the game's policy scratch.
    """
    raise NotImplementedError("a hook runs in compiled code only")
