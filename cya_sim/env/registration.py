"""Registration with the toolkits' registries, done when :mod:`cya_sim.env` is imported.

- Gymnasium (https://gymnasium.farama.org/api/registry/, 1.0+): id :data:`GYM_ID`
  (``cya_sim/CoverYourAssets-v0``), ``gym.make(GYM_ID, rules=..., n_players=..., ...)`` builds a
  :class:`~cya_sim.env.gym.CoverYourAssetsGym` and ``gym.make_vec(GYM_ID, num_envs=B, ...)`` a
  :class:`~cya_sim.env.vector.CoverYourAssetsVectorEnv` (its ``vector_entry_point``; pass
  ``vectorization_mode="sync"`` for Gymnasium's ``SyncVectorEnv`` of single environments). The
  keyword arguments are the classes'. Gymnasium 1.x reads no plugin entry points, so the id exists
  once :mod:`cya_sim.env` is imported; ``gym.make("cya_sim.env:cya_sim/CoverYourAssets-v0")``
  imports it itself.
- OpenSpiel: ``python_cover_your_assets`` (:func:`cya_sim.env.openspiel.register_openspiel`), so
  ``pyspiel.load_game("python_cover_your_assets", {...})`` works after ``import cya_sim.env``.

Each registration is skipped when its toolkit is not installed (``pip install -e .[rl]`` adds both)
and is idempotent.
"""

from __future__ import annotations

import importlib.util

#: The Gymnasium id: namespace ``cya_sim``, name ``CoverYourAssets``, version 0.
GYM_ID = "cya_sim/CoverYourAssets-v0"
GYM_ENTRY_POINT = "cya_sim.env.gym:CoverYourAssetsGym"
GYM_VECTOR_ENTRY_POINT = "cya_sim.env.vector:CoverYourAssetsVectorEnv"


def _installed(module: str) -> bool:
    return importlib.util.find_spec(module) is not None


def register_gymnasium() -> bool:
    """Register :data:`GYM_ID` with Gymnasium unless it is there already; False when Gymnasium is not installed.

    No ``max_episode_steps`` (so no ``TimeLimit`` wrapper): a game ends by its rules or by the rules'
    ``max_rounds`` safeguard, reported as a truncation. No ``OrderEnforcing`` or ``PassiveEnvChecker``
    wrapper either (``order_enforce=False``, ``disable_env_checker=True``): the environment refuses
    ``step`` before ``reset`` itself (``ResetNeeded``) and passes Gymnasium's ``check_env`` (tested), so
    ``gym.make(GYM_ID).action_masks()`` reaches the environment's method (Gymnasium 1.x wrappers forward
    no attributes; through wrappers of one's own, ``env.get_wrapper_attr("action_masks")()``).
    ``gym.make(GYM_ID, disable_env_checker=False)`` adds the checker back.
    """
    if not _installed("gymnasium"):
        return False
    import gymnasium

    if GYM_ID not in gymnasium.registry:
        gymnasium.register(id=GYM_ID, entry_point=GYM_ENTRY_POINT, vector_entry_point=GYM_VECTOR_ENTRY_POINT,
                           order_enforce=False, disable_env_checker=True)
    return True


def register_pyspiel() -> bool:
    """Register ``python_cover_your_assets`` with OpenSpiel; False when OpenSpiel (pyspiel) is not installed."""
    if not _installed("pyspiel"):
        return False
    from cya_sim.env.openspiel import register_openspiel

    register_openspiel()
    return True


def register_all() -> dict[str, bool]:
    """Both registrations; ``{"gymnasium": registered, "openspiel": registered}``."""
    return {"gymnasium": register_gymnasium(), "openspiel": register_pyspiel()}
