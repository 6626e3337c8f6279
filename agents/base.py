"""The agent interface: a policy that sees only its own observation (RULES.md §10)."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import numpy as np

from cya_sim.engine.classic.reference.observation import Observation


@runtime_checkable
class Agent(Protocol):
    """A policy for one seat.

    ``act`` gets the seat's :class:`~cya_sim.engine.classic.reference.observation.Observation` (its
    ``legal_action_mask`` is ``(A,) bool``) and the seat's own
    ``numpy.random.Generator``, and returns one action id that is legal under
    the mask. An agent never sees the game state.

    Attributes:
        name: a short name used in logs and tables.
    """

    name: str

    def act(self, obs: Observation, rng: np.random.Generator) -> int:
        """Return a legal action id (int in ``0..A-1``)."""
        ...
