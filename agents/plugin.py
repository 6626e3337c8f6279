"""Compiled plug-in agents: a user's numba-compiled decision function over the agent view.

A plug-in is one function, in the user's own file or package::

    @numba.njit(cache=True)
    def decide(params, hdr, hand, values, unseen, seats, gave_up, mask, rng) -> int

over the documented agent view of the seat to act (:mod:`agents.view`: ``hdr``
(N_HDR,) int64, ``hand`` (T,) int64, ``values`` (T,) int64 dollars, ``unseen``
(T,) int64, ``seats`` (P, N_SEATCOL) int64, ``gave_up`` (P, T) bool, ``mask``
(A,) bool) plus ``params`` (N_AGENT_PARAMS,) float64 — the numeric parameters
of the spec in the order written, zeros after — and ``rng``, the seat's (4,)
uint64 PCG64 stream (draw with :func:`agents.view.uniform`). It returns a
legal action id. It is named like any agent: ``my_pkg.policies:decide``,
``my_pkg.policies:decide(aggression=2)`` or an entry point of the group
``cya_sim.agents``. The batched engine's play loop and the search's rollouts
call it inside compiled code (:mod:`cya_sim.play.plugins`); the reference
engine calls it through :class:`ViewPolicyAgent` on the same view and the same
random stream, so both engines play the same games.
"""

from __future__ import annotations

import numpy as np
from numba.core.registry import CPUDispatcher

from agents.compiled import N_AGENT_PARAMS
from agents.view import build_view
from cya_sim.engine.reference.observation import Observation


def is_compiled_function(obj) -> bool:
    """Whether ``obj`` is a numba-compiled function (a plug-in decision function), not an agent class."""
    return isinstance(obj, CPUDispatcher)


def _to_state(rng: np.random.Generator) -> np.ndarray:
    st = rng.bit_generator.state["state"]
    m = (1 << 64) - 1
    return np.array([st["state"] >> 64, st["state"] & m, st["inc"] >> 64, st["inc"] & m], np.uint64)


def _from_state(rng: np.random.Generator, arr: np.ndarray) -> None:
    s = rng.bit_generator.state
    s["state"]["state"] = (int(arr[0]) << 64) | int(arr[1])
    s["has_uint32"], s["uinteger"] = 0, 0
    rng.bit_generator.state = s


class ViewPolicyAgent:
    """The single-game form of a compiled plug-in decision function (module docstring).

    Args:
        decide: the numba-compiled decision function. name: its spec name (``module:function``).
        **params: numeric parameters, passed in the order given as ``params`` (float64).

    Raises:
        ValueError: a parameter that is not a number, or more than ``N_AGENT_PARAMS`` of them.
    """

    def __init__(self, decide, name: str, **params) -> None:
        bad = [k for k, v in params.items() if not isinstance(v, (int, float)) or isinstance(v, bool)]
        if bad:
            raise ValueError(f"agent {name!r}: parameter(s) {', '.join(bad)} must be numbers")
        if len(params) > N_AGENT_PARAMS:
            raise ValueError(f"agent {name!r}: {len(params)} parameters; a compiled plug-in takes at most "
                             f"{N_AGENT_PARAMS}")
        self.decide = decide
        self.name = name
        self.params = np.zeros(N_AGENT_PARAMS, np.float64)
        self.params[: len(params)] = [float(v) for v in params.values()]

    def act(self, obs: Observation, rng: np.random.Generator) -> int:
        """The plug-in's action for ``obs``; ``rng`` (the seat's PCG64 stream) advances as in compiled play."""
        hdr, hand, values, unseen, seats, mask = build_view(obs)
        gave_up = np.asarray(obs.gave_up, bool)
        st = _to_state(rng) if rng is not None else np.zeros(4, np.uint64)
        a = int(self.decide(self.params, hdr, hand, values, unseen, seats, gave_up, mask, st))
        if rng is not None:
            _from_state(rng, st)
        return a
