"""Cover Your Assets, version 0, as PettingZoo ships its classic games (``from cya_sim.env import cover_your_assets_v0``).

The layout of PettingZoo's classic games (``pettingzoo.classic.connect_four_v3``,
``texas_holdem_v4``; https://pettingzoo.farama.org/environments/classic/, PettingZoo 1.24+):

- :func:`env`: the environment wrapped with PettingZoo's standard wrappers, as the classic games'
  ``env()`` is: ``TerminateIllegalWrapper(illegal_reward=-1)``, ``AssertOutOfBoundsWrapper``,
  ``OrderEnforcingWrapper``. An illegal action ends the game: the offender gets -1, every other
  agent 0, and every agent is terminated and truncated (PettingZoo's wrapper does exactly this).
  ``env(illegal_action="raise")`` keeps only ``OrderEnforcingWrapper`` and raises
  :class:`~cya_sim.env.game.IllegalActionError` naming the agent, seat, game and action instead.
- :func:`raw_env`: the unwrapped :class:`~cya_sim.env.aec.CoverYourAssetsAEC` (raises on an
  illegal action).
- No ``parallel_env``: the game is turn-based (one agent acts at a time, and during a challenge the
  side that must answer), so ``metadata["is_parallelizable"]`` is False, as for every classic game;
  PettingZoo's parallel API is for simultaneous moves, and ``aec_to_parallel`` would only wrap the
  same sequence of single moves.

``metadata``: ``name`` ``cover_your_assets_v0``, ``render_modes`` ``["ansi", "human", "rgb_array"]``
(``human`` prints the readable log of ``cya-sim play`` to stdout as it happens; ``rgb_array`` returns the
table as the agent to act sees it, :mod:`cya_sim.render`), ``is_parallelizable`` False.
Every keyword argument of :class:`~cya_sim.env.aec.CoverYourAssetsAEC` is accepted (``rules``,
``n_players``, ``reward``, ``render_mode``, ``seat_names``, ``stack_depth``). The version goes up
when a change would make old results incomparable (observation layout, rewards, rules of a preset).
"""

from __future__ import annotations

from typing import Any

from cya_sim.env.errors import missing_extra

try:
    from pettingzoo import AECEnv
    from pettingzoo.utils import wrappers
except ModuleNotFoundError as _e:  # one line naming the extra to install
    raise missing_extra(_e) from None

from cya_sim.env.aec import CoverYourAssetsAEC

__all__ = ["ILLEGAL_ACTIONS", "env", "raw_env"]

#: ``illegal_action`` choices of :func:`env`.
ILLEGAL_ACTIONS = ("terminate", "raise")
#: The offender's reward when an illegal action ends the game (PettingZoo's classic games: -1).
ILLEGAL_REWARD = -1


def raw_env(**kwargs: Any) -> CoverYourAssetsAEC:
    """The unwrapped AEC environment: ``CoverYourAssetsAEC(**kwargs)`` (PettingZoo's ``raw_env``).

    Raises:
        ValueError, RulesError: as :class:`~cya_sim.env.aec.CoverYourAssetsAEC`.
    """
    return CoverYourAssetsAEC(**kwargs)


def env(illegal_action: str = "terminate", **kwargs: Any) -> AECEnv:
    """The environment with PettingZoo's standard wrappers, as ``pettingzoo.classic`` games' ``env()``.

    Args:
        illegal_action: ``terminate`` (default, PettingZoo's classic convention): an action outside
            the action mask ends the game with -1 for the offender and 0 for the others
            (``pettingzoo.utils.wrappers.TerminateIllegalWrapper``, after ``AssertOutOfBoundsWrapper``,
            which refuses with ``AssertionError`` an action outside ``Discrete(A)``, e.g. ``13.0``);
            ``raise``: :class:`~cya_sim.env.game.IllegalActionError` (a ValueError) naming the agent,
            seat, game and action, nothing changed.
        **kwargs: as :class:`~cya_sim.env.aec.CoverYourAssetsAEC`.

    Returns:
        the wrapped environment (``.unwrapped`` is the :class:`~cya_sim.env.aec.CoverYourAssetsAEC`).

    Raises:
        ValueError: unknown ``illegal_action`` (and what :class:`~cya_sim.env.aec.CoverYourAssetsAEC` raises).
    """
    if illegal_action not in ILLEGAL_ACTIONS:
        raise ValueError(f"illegal_action: {illegal_action!r}; allowed: {', '.join(ILLEGAL_ACTIONS)}")
    out: AECEnv = raw_env(**kwargs)
    if illegal_action == "terminate":
        out = wrappers.TerminateIllegalWrapper(out, illegal_reward=ILLEGAL_REWARD)
        out = wrappers.AssertOutOfBoundsWrapper(out)
    return wrappers.OrderEnforcingWrapper(out)
