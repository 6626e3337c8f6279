"""Agents by game family: the classic registry (:mod:`agents.registry`) or the theft game's (:mod:`agents.theft`).

A rule set names its game family (``rules.family``: ``classic``, or ``theft`` for RULES.md §9);
each family has its own agents, because each sees its own kind of observation.
"""

from __future__ import annotations

from collections.abc import Callable

from agents.registry import agent_names, make_agent
from agents.theft import make_theft_agent, theft_agent_names


def family_of(rules) -> str:
    """The game family of a rule set (``classic`` when it names none)."""
    return getattr(rules, "family", "classic")


def agent_factory(rules) -> Callable[[str], object]:
    """``make_agent(spec)`` of the rules' game family.

    The returned callable raises ValueError for an unknown or malformed spec
    (naming that family's agents) and TypeError for a class without ``act``.
    """
    return make_theft_agent if family_of(rules) == "theft" else make_agent


def agent_names_for(rules) -> tuple[str, ...]:
    """Registered agent names of the rules' game family."""
    return theft_agent_names() if family_of(rules) == "theft" else agent_names()
