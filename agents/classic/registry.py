"""Agents by spec: registered names, parameters, ``module:Class`` paths and plug-ins.

A spec (see :mod:`agents.spec`) is ``greedy``, ``heuristic(backup=true, save_wild=false)``,
``my_pkg.agents:MyAgent``, ``my_pkg.policies:decide`` (a compiled decision function,
:mod:`agents.plugin`) or a name an installed package registers under the entry point
group ``cya_sim.agents``. Built-in agents with a compiled form and compiled plug-ins run
inside the batched engine's compiled loop (:mod:`cya_sim.play`); any other agent plays
through the Python adapter.

The search agents ``ismcts`` and ``pimc`` live above this package (in
:mod:`cya_sim.search.classic.agent`, which uses the compiled policies here as rollout
policies); the registry names them by path, resolved when first asked for.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from functools import lru_cache

import numpy as np

from agents.base import Agent
from agents.classic.card_counter import CardCounterAgent
from agents.classic.compiled import (
    BUILTIN_POLICIES,
    BUILTIN_SKIP,
    GREEDY_AS_HEURISTIC,
    N_AGENT_PARAMS,
    POLICY_CARD_COUNTER,
    POLICY_GREEDY,
    POLICY_HEURISTIC,
    POLICY_RANDOM,
    POLICY_VIEW,
    ROW_FORM,
    view_code,
)
from agents.classic.compiled_strategy import STRATEGY_HEURISTIC, strategy_address
from agents.classic.greedy import GreedyAgent
from agents.classic.heuristic import WILD_HOARDER, HeuristicAgent, HeuristicConfig, WildHoarderAgent
from agents.classic.oracle import OracleAgent
from agents.classic.plugin import ViewPolicyAgent, plugin_address, plugin_skip
from agents.classic.random_agent import RandomAgent
from agents.classic.row_abi import row_address
from agents.plugin import is_compiled_function
from agents.spec import AgentSpec, AgentSpecError, parse_agent_spec, resolve_factory
from cya_sim.engine.classic.layout import CONSTS_DTYPE, consts_dtype_for
from cya_sim.game.classic.actions import ActionSpace

#: Registered agent factories by name (a ``module:Class`` string is imported when first asked for).
REGISTRY: dict[str, Callable[..., Agent] | str] = {
    "random": RandomAgent,
    "greedy": GreedyAgent,
    "heuristic": HeuristicAgent,
    "wild_hoarder": WildHoarderAgent,
    "card_counter": CardCounterAgent,
    "oracle": OracleAgent,
    "ismcts": "cya_sim.search.classic.agent:ISMCTSAgent",
    "pimc": "cya_sim.search.classic.agent:PIMCAgent",
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
    if is_compiled_function(factory):
        return ViewPolicyAgent(factory, s.name, **s.kwargs)
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


def compiled_policy(spec: str):
    """How the compiled play loop plays an agent spec.

    Returns:
        an int, the code of a built-in compiled policy (``agents.classic.compiled.BUILTIN_POLICIES``);
        a numba-compiled decision function (a plug-in over the agent view, :mod:`agents.plugin`);
        or None for an agent without a compiled form, played through the Python adapter.

    Raises:
        ValueError: an unknown name or a malformed spec.
    """
    s = _parse(spec)
    if s.name in BUILTIN_POLICIES:
        if s.name in ("random", "greedy", "wild_hoarder") and s.params:
            return None  # parameters these agents do not take: make_agent refuses them
        return BUILTIN_POLICIES[s.name]
    try:
        factory = resolve_factory(s.name, REGISTRY)
    except AgentSpecError as e:
        raise ValueError(str(e)) from None
    return factory if is_compiled_function(factory) else None


def compiled_params(spec: str) -> np.ndarray:
    """(N_AGENT_PARAMS,) float64 parameters of a compiled agent (zeros when it has none).

    ``heuristic`` and ``wild_hoarder``: :meth:`HeuristicConfig.to_array`;
    ``card_counter``: ``[min_gain, naive_hidden]``; a compiled plug-in: its numeric parameters in the
    order written (:class:`agents.classic.plugin.ViewPolicyAgent`).

    Raises:
        ValueError: parameters the agent does not take.
    """
    s = _parse(spec)
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
    elif s.name in REGISTRY:
        vec = np.zeros(0)
    else:
        agent = make_agent(spec)
        vec = agent.params if isinstance(agent, ViewPolicyAgent) else np.zeros(0)
    out[: vec.shape[0]] = vec
    return out


#: The built-in view policies that also have a row form (:func:`agents.classic.compiled.policy_act`).
ROW_FORMS = frozenset({POLICY_CARD_COUNTER, POLICY_HEURISTIC})


def plays_from_row(pol: int, rules) -> bool:
    """Whether the compiled loops play built-in policy ``pol`` (``POLICY_*``) from the game row under ``rules``, at the
    address of its row form (:mod:`agents.classic.row_abi`) instead of its view policy's: ``card_counter`` and
    ``heuristic`` (with ``wild_hoarder``) under the classic rules without the advanced cards (§6) and draft piles
    (§7), with a deck whose constants have the record type every preset shares at every table size (a larger custom
    deck, or one that cannot be dealt at the largest size, plays the view form). The one place that decides:
    :func:`policy_of` then sets ``agents.classic.compiled.ROW_FORM`` in the code, which the loops follow."""
    if pol not in ROW_FORMS or ActionSpace.for_rules(rules).advanced_on or rules.draft != "none":
        return False
    try:  # the most cards in play, the largest record type
        return consts_dtype_for(rules, rules.max_players) == CONSTS_DTYPE
    except ValueError:  # a deck that cannot be dealt at the largest size (odd copies, extra_deck_unit='pack'): view form
        return False


def policy_of(spec: str, rules) -> tuple[int, int, np.ndarray]:
    """How the compiled loops play agent ``spec`` under ``rules``: ``(code, address, params)``.

    code: ``agents.classic.compiled.POLICY_*`` (-1: no compiled form, the Python adapter plays it), for a view
    policy with the parts of the view it never reads (:func:`agents.classic.compiled.view_code`), with
    ``agents.classic.compiled.ROW_FORM`` set where it plays from the row (:func:`plays_from_row`); address: the
    C address of its view policy (:mod:`agents.view_abi`; 0 for ``random`` and ``greedy``), or of its row form
    where the loops play it from the row (:func:`plays_from_row`, :mod:`agents.classic.row_abi`), compiled on first
    use; params: (N_AGENT_PARAMS,) float64 (:func:`compiled_params`). Under the advanced rules with
    draft piles (RULES.md §6 with §7) ``greedy`` plays as the ``heuristic`` view policy with its default
    switches (:class:`agents.classic.greedy.GreedyAgent`'s own definition there).

    Raises:
        ValueError: an unknown name, a malformed spec, or a plug-in not importable as ``module:function``.
    """
    code, addr, params = _policy_of(spec, rules)
    return code, addr, params.copy()


@lru_cache(maxsize=512)
def _policy_of(spec: str, rules) -> tuple[int, int, np.ndarray]:
    """:func:`policy_of`, once per (spec, rules) in a process (a plug-in's entry is looked up by file hash)."""
    pol = compiled_policy(spec)
    if pol is None:
        return -1, 0, np.zeros(N_AGENT_PARAMS, np.float64)
    if not isinstance(pol, int):
        return view_code(POLICY_VIEW, plugin_skip(pol)), plugin_address(pol), compiled_params(spec)
    if pol == POLICY_GREEDY and ActionSpace.for_rules(rules).advanced_on and rules.draft != "none":
        out = np.zeros(N_AGENT_PARAMS, np.float64)
        out[: GREEDY_AS_HEURISTIC.shape[0]] = GREEDY_AS_HEURISTIC
        return view_code(POLICY_HEURISTIC, BUILTIN_SKIP[POLICY_HEURISTIC]), strategy_address(STRATEGY_HEURISTIC), out
    if pol in (POLICY_GREEDY, POLICY_RANDOM):
        return pol, 0, compiled_params(spec)
    if plays_from_row(pol, rules):
        return view_code(pol, BUILTIN_SKIP[pol]) | ROW_FORM, row_address(pol), compiled_params(spec)
    return view_code(pol, BUILTIN_SKIP[pol]), strategy_address(pol), compiled_params(spec)

