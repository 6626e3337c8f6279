"""Policies for cya-sim, one folder per game: ``agents/classic/`` (the Cover Your Assets family: ``random``,
``greedy``, ``heuristic``, ``card_counter``, ...; :func:`agents.classic.registry.make_agent`) and ``agents/theft/`` (the theft
game of RULES.md §9: :func:`agents.theft.registry.make_theft_agent`).

Shared by every game: the agent interface (:class:`agents.base.Agent`), agent specs (:mod:`agents.spec`), the C
calling convention of compiled plug-ins (:mod:`agents.view_abi`) and their loading (:mod:`agents.plugin`).
"""

from agents.base import Agent

__all__ = ["Agent"]
