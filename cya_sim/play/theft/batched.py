"""Playing theft games on the batched theft engine: the shared batch play (:mod:`cya_sim.play.batched`) with the
theft game's agents (RULES.md §9).

Seats of agents with a compiled form (``random``, ``greedy``, ``defender`` and compiled theft plug-ins,
:mod:`agents.theft.view`) play inside compiled code (:func:`cya_sim.play.loop.advance`, compiled once and cached); a
``module:Class`` theft agent goes step by step: for each of its decisions the row is read back into a reference
state (:func:`cya_sim.engine.theft.rows.row_to_state`), the seat's
:class:`~cya_sim.engine.theft.observation.TheftObservation` is built and ``agent.act(obs, rng)`` is called with the
seat's NumPy stream, as the reference play does. Results equal
:func:`cya_sim.play.theft.reference.play_theft_games`'s game by game (``tests/test_theft_differential.py``) and do
not depend on ``batch_size``.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence

from agents.theft.compiled import new_theft_scratch, theft_policy_of
from agents.theft.registry import make_theft_agent
from cya_sim.engine.batched.api import DEFAULT_BATCH_SIZE
from cya_sim.engine.batched.state import BatchState
from cya_sim.engine.table import GameTable
from cya_sim.engine.theft import batched as engine
from cya_sim.engine.theft.observation import observe
from cya_sim.engine.theft.rows import row_to_state
from cya_sim.game.theft.rules import TheftRuleSet
from cya_sim.play import batched
from cya_sim.play.theft.reference import TheftTurnCapWarning


def _observe(state: BatchState, b: int):
    """The :class:`~cya_sim.engine.theft.observation.TheftObservation` of the seat to act in row ``b``."""
    return observe(row_to_state(state.rules, state.consts, state.rows[b]), int(state.to_act[b]))


def _warn_capped(table: GameTable, rules: TheftRuleSet) -> None:
    """Warn (:class:`~cya_sim.play.theft.reference.TheftTurnCapWarning`) when games stopped at ``rules.max_turns``."""
    if table.capped.any():
        capped = table.game_index[table.capped].tolist()
        warnings.warn(f"{len(capped)} of {len(table)} theft games stopped at the turn cap max_turns={rules.max_turns} "
                      f"(game indices {capped[:10]}{' ...' if len(capped) > 10 else ''})",
                      TheftTurnCapWarning, stacklevel=4)


#: The theft game as the shared batch play sees it.
PLAY = batched.BatchPlay(engine=engine, make_agent=make_theft_agent, policy_of=lambda spec, rules: theft_policy_of(spec),
                         new_scratch=new_theft_scratch, observe=_observe, finish=_warn_capped)


def play_theft_games_batched(rules: TheftRuleSet, agents: Sequence[str], seat_agent, key: int, game_indices,
                             progress: Callable[[int], None] | None = None, batch_size: int = DEFAULT_BATCH_SIZE,
                             log_cap: int = 0, return_state: bool = False):
    """Play many theft games on the batched theft engine; same arguments and results as
    :func:`cya_sim.play.theft.reference.play_theft_games` (the reference play), game by game
    (:func:`cya_sim.play.batched.play_games`).

    Returns:
        a :class:`~cya_sim.engine.table.GameTable` in the order of ``game_indices`` (and the state if asked):
        totals in points and the theft game's own columns (:data:`cya_sim.engine.theft.results.THEFT_COLUMNS`).

    Raises:
        ValueError: unknown agent spec; shapes that do not match.
        RulesError: table size not allowed by the rules.
        TheftIllegalBatchActionError: an agent returned an illegal action or a non-integer.

    Warns:
        TheftTurnCapWarning: when games stopped at ``rules.max_turns`` (how many, which).
    """
    return batched.play_games(PLAY, rules, agents, seat_agent, key, game_indices, progress, batch_size, log_cap,
                              return_state)
