"""Agents by name."""

from __future__ import annotations

from collections.abc import Callable

from agents.base import Agent
from agents.greedy import GreedyAgent
from agents.random_agent import RandomAgent

#: Registered agent factories by name.
REGISTRY: dict[str, Callable[[], Agent]] = {
    "random": RandomAgent,
    "greedy": GreedyAgent,
}


def agent_names() -> tuple[str, ...]:
    """Names of the registered agents."""
    return tuple(REGISTRY)


def make_agent(name: str) -> Agent:
    """A new agent of a registered name.

    Raises:
        ValueError: unknown name; the message lists the registered ones.
    """
    if name not in REGISTRY:
        raise ValueError(f"unknown agent {name!r}; choose one of: {', '.join(REGISTRY)}")
    return REGISTRY[name]()


def compiled_kind(name: str) -> int | None:
    """The compiled kind of a registered agent (``agents.compiled.COMPILED_KINDS``), or None for a
    Python-only agent, which the batched engine plays through its adapter."""
    from agents.compiled import COMPILED_KINDS

    return COMPILED_KINDS.get(name)
