"""Calling a Python agent from an engine: its exceptions and its return value, checked (R-TURN).

Every caller of a single-game Python agent goes through here (the reference
engine's :func:`~cya_sim.engine.classic.reference.play_game` and the play layer's loop
for Python seats on the batched engine,
:func:`cya_sim.play.classic.batched.play_with_python_agents`), so both engines refuse
the same returns with the same message: anything but
an integer (a Python ``int`` or a NumPy integer, never a ``bool``) is refused
naming the agent, the seat, the game and the value, and nothing is coerced
(``2.7``, ``"3"`` and ``True`` are refused, not played as 2, 3 and 1).
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from cya_sim.errors import UserInputError


class AgentError(RuntimeError, UserInputError):
    """An agent's own code raised an exception while choosing an action.

    The message names the agent, the seat, the game and the exception; the
    agent's exception is the ``__cause__`` (shown by ``cya-sim --debug``).
    """


def call_agent(agent: Any, name: str, seat: int, game: int, *args: Any) -> Any:
    """``agent.act(*args)``, its exception wrapped in an :class:`AgentError` naming agent, seat and game.

    Raises:
        AgentError: ``act`` raised any ``Exception`` (KeyboardInterrupt and SystemExit pass through).
    """
    try:
        return agent.act(*args)
    except Exception as e:
        text = " ".join(str(e).split())
        raise AgentError(f"agent {name!r} at seat {seat} in game {game} raised {type(e).__name__}"
                         + (f": {text}" if text else "") + " in act()") from e


def action_id(value: Any, name: str, seat: int, game: int, size: int, error: type[Exception]) -> int:
    """The action id an agent returned, as a Python int, or ``error`` naming agent, seat, game and value.

    Args:
        value: what ``act`` returned. size: A, the number of action ids.
        error: the engine's IllegalActionError class (raised with the message only).

    Raises:
        error: ``value`` is not an integer (``bool``, float, str, None, arrays... are refused) or is
            outside ``0..size-1``. Legality against the mask is the engine's own check.
    """
    if isinstance(value, bool | np.bool_) or not isinstance(value, numbers.Integral | np.integer):
        raise error(f"agent {name!r} at seat {seat} in game {game} returned {_shown(value)} "
                    f"({type(value).__name__}), not an action id; allowed: an integer from 0 to {size - 1} "
                    "where legal_action_mask is true")
    a = int(value)
    if not 0 <= a < size:
        raise error(f"agent {name!r} at seat {seat} in game {game} returned illegal action {a} (outside the "
                    f"action space); allowed: an integer from 0 to {size - 1} where legal_action_mask is true")
    return a


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
