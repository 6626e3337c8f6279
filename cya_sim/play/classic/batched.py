"""Playing classic games on the batched engine: the shared batch play (:mod:`cya_sim.play.batched`) with the classic
family's agents.

Seats of agents with a compiled form (the built-ins ``random``, ``greedy``, ``heuristic``, ``wild_hoarder``,
``card_counter``, ``oracle`` and compiled plug-ins, :mod:`agents.classic.plugin`) play inside compiled code
(:mod:`cya_sim.play.loop`); a game with any other (Python) agent goes step by step: for each such decision
:func:`~cya_sim.engine.classic.adapter.reference_observation` builds the reference
:class:`~cya_sim.engine.classic.reference.observation.Observation` for that seat and ``agent.act(obs, rng)`` is called
with the seat's NumPy stream (slower). Results do not depend on ``batch_size``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from agents.classic.compiled import new_scratch
from agents.classic.registry import make_agent, policy_of
from cya_sim.engine.batched.api import DEFAULT_BATCH_SIZE
from cya_sim.engine.classic import batched as engine
from cya_sim.engine.classic.adapter import reference_observation
from cya_sim.game.rules import RuleSet
from cya_sim.play import batched


def _refuse_hidden(agents: Sequence[str], lineup: batched.Lineup) -> None:
    """Refuse a Python agent that reads the hidden game state (``sees_hidden``), which the batched engine does not
    build.

    Raises:
        ValueError: naming the agent and the engine that plays it.
    """
    for name, code in zip(agents, lineup.codes):
        if code < 0 and getattr(make_agent(name), "sees_hidden", False):
            raise ValueError(f"agent {name!r} reads the hidden game state, which the batched engine does not "
                             "build; play it on the reference engine (engine='reference')")


#: The classic family as the shared batch play sees it.
PLAY = batched.BatchPlay(engine=engine, make_agent=make_agent, policy_of=policy_of,
                         new_scratch=lambda k: new_scratch(k.cfg), observe=reference_observation,
                         check_lineup=_refuse_hidden)


def play_games(rules: RuleSet, agents: Sequence[str], seat_agent, key: int, game_indices,
               progress: Callable[[int], None] | None = None, batch_size: int = DEFAULT_BATCH_SIZE,
               log_cap: int = 0, return_state: bool = False):
    """Play many classic games on the batched engine; same arguments and results as the reference ``play_games``
    (:func:`cya_sim.play.classic.reference.play_games`), game by game (:func:`cya_sim.play.batched.play_games`).

    Raises:
        ValueError: unknown agent name; shapes that do not match; an agent that reads the hidden state
            (``sees_hidden``, e.g. a cheating baseline), which only the reference engine serves.
        RulesError: table size not allowed by the rules.
        IllegalActionError: an agent returned an illegal action or a non-integer (names game, seat, agent, value).
        AgentError: a Python agent's ``act`` raised (names agent, seat and game).
    """
    return batched.play_games(PLAY, rules, agents, seat_agent, key, game_indices, progress, batch_size, log_cap,
                              return_state)
