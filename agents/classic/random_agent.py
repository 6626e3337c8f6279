"""``random``: uniform over the legal actions."""

from __future__ import annotations

import numpy as np

from cya_sim.engine.classic.reference.observation import Observation
from cya_sim.game.rng import uniform_index


class RandomAgent:
    """Picks uniformly among the legal actions.

    Decision rule: with the legal ids sorted ascending, take index
    ``floor(u * n_legal)`` where ``u = rng.random()`` (one draw per decision;
    the batched engine makes the same draw, so games match game by game).
    """

    name = "random"

    def act(self, obs: Observation, rng: np.random.Generator) -> int:
        """A uniformly random legal action id."""
        legal = np.flatnonzero(obs.legal_action_mask)
        return int(legal[uniform_index(rng, len(legal))])
