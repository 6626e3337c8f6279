"""Agents by spec: registered names, parameters, ``module:Class`` paths and plug-ins.

A spec (see :mod:`agents.spec`) is ``greedy``, ``heuristic(backup=true, save_wild=false)``,
``my_pkg.agents:MyAgent`` or a name an installed package registers under the entry
point group ``cya_sim.agents``. Built-in agents with a compiled form run inside
the batched engine's compiled loop; any other agent plays through its Python adapter.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from functools import lru_cache

import numpy as np

from agents.base import Agent
from agents.card_counter import CardCounterAgent
from agents.greedy import GreedyAgent
from agents.heuristic import WILD_HOARDER, HeuristicAgent, HeuristicConfig, WildHoarderAgent
from agents.ismcts import ISMCTSAgent
from agents.oracle import OracleAgent
from agents.pimc import PIMCAgent
from agents.random_agent import RandomAgent
from agents.spec import AgentSpec, AgentSpecError, parse_agent_spec, resolve_factory

#: Registered agent factories by name.
REGISTRY: dict[str, Callable[..., Agent]] = {
    "random": RandomAgent,
    "greedy": GreedyAgent,
    "heuristic": HeuristicAgent,
    "wild_hoarder": WildHoarderAgent,
    "card_counter": CardCounterAgent,
    "oracle": OracleAgent,
    "ismcts": ISMCTSAgent,
    "pimc": PIMCAgent,
}

#: Agents that see hidden information; a tournament must allow them explicitly.
CHEATING = frozenset({"oracle"})



def agent_names() -> tuple[str, ...]:
    """Names of the registered agents."""
    return tuple(REGISTRY)


@lru_cache(maxsize=256)
def _parse(spec: str) -> AgentSpec:
    try:
        return parse_agent_spec(spec)
    except AgentSpecError as e:
        raise ValueError(str(e)) from None


def _parameter_names(factory) -> list[str]:
    """Keyword parameters a factory takes ([] when it cannot be inspected or takes ``**kwargs``)."""
    try:
        params = inspect.signature(factory).parameters.values()
    except (TypeError, ValueError):
        return []
    return [p.name for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY) and p.name != "self"]


def _unknown_parameters(factory, kwargs: dict) -> list[str]:
    """Names in ``kwargs`` the factory does not take (none when it takes ``**kwargs`` or cannot be inspected)."""
    try:
        params = inspect.signature(factory).parameters.values()
    except (TypeError, ValueError):
        return []
    if any(p.kind == p.VAR_KEYWORD for p in params):
        return []
    names = set(_parameter_names(factory))
    return sorted(k for k in kwargs if k not in names)


def make_agent(spec: str) -> Agent:
    """A new agent from a spec (name, name with parameters, ``module:Class`` or plug-in).

    Raises:
        ValueError: unknown name (lists the registered ones), a malformed spec,
            parameters the agent does not take (named), a module that fails to
            import, or a constructor that raises (its exception is the ``__cause__``).
        TypeError: the class has no ``act`` method.
    """
    s = _parse(spec)
    try:
        factory = resolve_factory(s.name, REGISTRY)
    except AgentSpecError as e:
        raise ValueError(str(e)) from None
    unknown = _unknown_parameters(factory, s.kwargs)
    if unknown:
        raise ValueError(f"agent {spec!r}: unknown parameter(s) {', '.join(unknown)}; "
                         f"{s.name} takes: {', '.join(_parameter_names(factory)) or 'none'}")
    try:
        agent = factory(**s.kwargs)
    except Exception as e:  # the agent's own constructor failed: name the agent, keep the cause for --debug
        text = " ".join(str(e).split())
        if type(e) in (ValueError, TypeError) and text:  # a refused parameter value: the agent's own message
            raise ValueError(f"agent {spec!r}: {text}") from e
        raise ValueError(f"agent {spec!r}: its constructor raised {type(e).__name__}"
                         + (f": {text}" if text else "")) from e
    if not callable(getattr(agent, "act", None)):
        raise TypeError(f"agent {spec!r}: {type(agent).__name__} has no act(obs, rng) method")
    return agent


def is_cheating(spec: str) -> bool:
    """Whether the agent sees hidden information (``oracle``); such agents need explicit permission."""
    s = _parse(spec)
    return s.name in CHEATING or bool(getattr(resolve_factory(s.name, REGISTRY), "sees_hidden", False))


def compiled_kind(spec: str) -> int | None:
    """The compiled kind of an agent spec (``agents.compiled.COMPILED_KINDS``), or None for an
    agent without a compiled form, which the batched engine plays through its adapter."""
    from agents.compiled import COMPILED_KINDS

    s = _parse(spec)
    if s.name in ("random", "greedy", "wild_hoarder") and s.params:
        return None  # parameters these agents do not take: make_agent refuses them
    return COMPILED_KINDS.get(s.name)


def compiled_params(spec: str) -> np.ndarray:
    """(N_AGENT_PARAMS,) float64 parameters of a compiled agent (zeros when it has none).

    ``heuristic`` and ``wild_hoarder``: :meth:`HeuristicConfig.to_array`;
    ``card_counter``: ``[min_gain]``.

    Raises:
        ValueError: parameters the agent does not take.
    """
    s = _parse(spec)
    from cya_sim.engine.batched.kernels import N_AGENT_PARAMS

    out = np.zeros(N_AGENT_PARAMS, np.float64)
    if s.name == "heuristic":
        try:
            vec = HeuristicConfig(**s.kwargs).to_array()
        except TypeError as e:
            raise ValueError(f"agent {spec!r}: {e}") from None
    elif s.name == "wild_hoarder":
        vec = WILD_HOARDER.to_array()
    elif s.name == "card_counter":
        vec = make_agent(spec)._params
    else:
        vec = np.zeros(0)
    out[: vec.shape[0]] = vec
    return out
