"""The play loop written once and compiled per game (:class:`cya_sim.engine.hooks.per_game`): each game's function has
the loop's one body with the hooks bound to that game's implementations (nothing here compiles)."""

from __future__ import annotations

import numpy as np
import pytest

from agents.classic import compiled as classic_agents
from agents.theft import compiled as theft_agents
from cya_sim.engine import hooks
from cya_sim.engine.batched import loops
from cya_sim.engine.classic import batched as _classic_results  # noqa: F401 - registers record_result
from cya_sim.engine.classic import kernel as classic_kernel
from cya_sim.engine.classic.layout import CONSTS_DTYPE as CLASSIC
from cya_sim.engine.theft import batched as _theft_results  # noqa: F401 - registers record_result
from cya_sim.engine.theft import kernel as theft_kernel
from cya_sim.engine.theft.layout import CONSTS_DTYPE as THEFT
from cya_sim.play import loop


def test_each_game_gets_the_one_body_with_its_own_hooks():
    classic = loop.advance.for_game(CLASSIC.names).py_func
    theft = loop.advance.for_game(THEFT.names).py_func
    assert classic.__code__ is theft.__code__ is loop.advance.py_func.__code__  # one body
    assert classic.__qualname__ == theft.__qualname__ == "advance"  # one disk cache index (numba keys it by name)
    assert classic.__globals__["apply_action"] is classic_kernel.apply_action  # already inline="always"
    assert classic.__globals__["is_legal"] is classic_kernel.is_legal_inline
    # the theft kernel's functions are not inline="always": an inlined twin of the same Python body is bound
    bound = theft.__globals__["apply_action"]
    assert bound.py_func is theft_kernel.apply_action.py_func and bound.targetoptions["inline"] == "always"
    assert theft.__globals__["is_legal"].py_func is theft_kernel.is_legal.py_func
    assert classic.__globals__["act"] is classic_agents.policy_act
    assert theft.__globals__["act"].py_func is theft_agents.policy_act.py_func
    # a shared loop it calls is bound to that loop's dispatcher for the same game
    assert classic.__globals__["finish_and_refill"] is loops.finish_and_refill.for_game(CLASSIC.names)
    assert theft.__globals__["finish_and_refill"] is loops.finish_and_refill.for_game(THEFT.names)
    assert loop.advance.for_game(CLASSIC.names) is loop.advance.for_game(tuple(CLASSIC.names))  # built once


def test_a_game_without_the_hooks_is_refused_by_name():
    """A constants record no game registered: the loop names the hook it cannot bind instead of compiling."""
    with pytest.raises(LookupError, match="advance calls hook .*, which the game of constants"):
        loop.advance.for_game(("not", "a", "game"))
    with pytest.raises(LookupError):
        loop.advance(np.zeros(1, [("not", "i8"), ("a", "i8")])[0])
    assert hooks.INLINED  # the hooks inlined into the loop are named there
