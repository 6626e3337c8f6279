"""Environments for reinforcement learning and game-AI toolkits (``pip install -e .[rl]``).

- :mod:`.cover_your_assets_v0`: the PettingZoo AEC environment as PettingZoo ships its classic games
  (``env()`` with the standard wrappers, ``raw_env()``); the class is :class:`CoverYourAssetsAEC` (:mod:`.aec`).
- :class:`CoverYourAssetsGym` (:mod:`.gym`): Gymnasium single-agent environment, the other seats
  played by agents given by spec; registered as ``cya_sim/CoverYourAssets-v0`` (``gym.make``, ``gym.make_vec``).
- :class:`CoverYourAssetsVectorEnv` (:mod:`.vector`): many games stepped at once on the compiled
  batched engine (the ``vector_entry_point`` of that id).
- :func:`register_openspiel` (:mod:`.openspiel`): the game as an OpenSpiel Python game,
  ``python_cover_your_assets``.
- :mod:`.terminal`: a human at the terminal (``cya-sim play --human SEAT``).
- :mod:`.games`: the game interface every environment reaches a game through, chosen once from the
  rule set (:func:`game_interface`): the classic family and seed 003's theft game (``rules="theft"``,
  RULES.md §9), which plays in every environment above.

Importing this package registers the Gymnasium id and the OpenSpiel game when those toolkits are
installed (:mod:`.registration`; it imports Gymnasium and OpenSpiel, a few tenths of a second). The
names above load on first use (PEP 562), so PettingZoo is imported only by the PettingZoo environment.
Without the ``rl`` extra, ``import cya_sim.env`` still works (nothing is registered) and loading an
environment raises one line naming the install command (:func:`.errors.missing_extra`): ``ImportError:
cya_sim.env needs the rl extra: pip install -e '.[rl]' (gymnasium is not installed)``.
"""

from __future__ import annotations

import importlib

from cya_sim.env.registration import register_all

_WHERE = {
    "CoverYourAssetsAEC": "aec", "CoverYourAssetsGym": "gym", "CoverYourAssetsVectorEnv": "vector",
    "register_openspiel": "openspiel", "ObservationEncoder": "encoding", "EnvGame": "game",
    "IllegalActionError": "game", "GameInterface": "games", "game_interface": "games",
}
#: Submodules reachable as attributes (``cya_sim.env.cover_your_assets_v0.env()``), loaded on first use.
_SUBMODULES = ("cover_your_assets_v0",)

__all__ = ["CoverYourAssetsAEC", "CoverYourAssetsGym", "CoverYourAssetsVectorEnv", "EnvGame", "GameInterface",
           "IllegalActionError", "ObservationEncoder", "cover_your_assets_v0", "env", "game_interface",
           "register_openspiel"]

register_all()


def __getattr__(name: str):
    if name in _WHERE:
        return getattr(importlib.import_module(f"cya_sim.env.{_WHERE[name]}"), name)
    if name in _SUBMODULES:
        return importlib.import_module(f"cya_sim.env.{name}")
    if name == "env":  # PettingZoo's env() of the current version
        return importlib.import_module("cya_sim.env.cover_your_assets_v0").env
    raise AttributeError(f"module 'cya_sim.env' has no attribute {name!r}")
