"""Environments for reinforcement learning and game-AI toolkits (``pip install -e .[rl]``).

- :class:`CoverYourAssetsAEC` (:mod:`.aec`): PettingZoo AEC environment, every preset.
- :class:`CoverYourAssetsGym` (:mod:`.gym`): Gymnasium single-agent environment, the other seats
  played by agents given by spec.
- :class:`CoverYourAssetsVectorEnv` (:mod:`.vector`): many games stepped at once on the compiled
  batched engine.
- :func:`register_openspiel` (:mod:`.openspiel`): the game as an OpenSpiel Python game.
- :mod:`.terminal`: a human at the terminal (``cya-sim play --human SEAT``).

The names load on first use (PEP 562), so importing one does not import every toolkit.
"""

from __future__ import annotations

import importlib

_WHERE = {
    "CoverYourAssetsAEC": "aec", "env": "aec", "CoverYourAssetsGym": "gym", "CoverYourAssetsVectorEnv": "vector",
    "register_openspiel": "openspiel", "ObservationEncoder": "encoding", "EnvGame": "game",
    "IllegalActionError": "game",
}

__all__ = ["CoverYourAssetsAEC", "CoverYourAssetsGym", "CoverYourAssetsVectorEnv", "EnvGame", "IllegalActionError",
           "ObservationEncoder", "env", "register_openspiel"]


def __getattr__(name: str):
    if name in _WHERE:
        return getattr(importlib.import_module(f"cya_sim.env.{_WHERE[name]}"), name)
    raise AttributeError(f"module 'cya_sim.env' has no attribute {name!r}")
