"""Agent specs: how a tournament names an agent.

A spec is one of:

* a registered name: ``greedy``;
* a registered name with parameters: ``heuristic(backup=true, save_wild=false)``;
* a Python path ``package.module:Class`` (optionally with parameters), the
  class being constructed with the parameters as keyword arguments;
* a name registered by an installed package through the entry point group
  ``cya_sim.agents`` (``[project.entry-points."cya_sim.agents"]
  my_agent = "my_pkg.agents:MyAgent"``).

Parameter values are ``true``/``false``, integers, floats or quoted strings.
"""

from __future__ import annotations

import ast
import importlib
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib.metadata import entry_points
from typing import Any

from cya_sim.errors import UserInputError

ENTRY_POINT_GROUP = "cya_sim.agents"
_SPEC_RE = re.compile(r"^\s*([A-Za-z_][\w.]*(?::[A-Za-z_]\w*)?)\s*(?:\((.*)\))?\s*$", re.DOTALL)


class AgentSpecError(ValueError, UserInputError):
    """An agent spec that cannot be parsed or resolved."""


@dataclass(frozen=True)
class AgentSpec:
    """A parsed agent spec.

    text: the spec as written (normalised), used as the agent's label in outputs.
    name: the registered name or ``module:Class`` path.
    params: keyword arguments for the agent's constructor.
    """

    text: str
    name: str
    params: tuple[tuple[str, Any], ...] = field(default=())

    @property
    def kwargs(self) -> dict[str, Any]:
        """The parameters as a dict."""
        return dict(self.params)


def _value(text: str, spec: str, key: str) -> Any:
    t = text.strip()
    if t.lower() in ("true", "false"):
        return t.lower() == "true"
    try:
        v = ast.literal_eval(t)
    except (ValueError, SyntaxError):
        raise AgentSpecError(
            f"agent {spec!r}: parameter {key!r} has value {t!r}; use true, false, a number or a quoted string"
        ) from None
    if not isinstance(v, int | float | str | bool):
        raise AgentSpecError(f"agent {spec!r}: parameter {key!r} must be true, false, a number or a quoted string")
    return v


def parse_agent_spec(spec: str) -> AgentSpec:
    """Parse ``name``, ``name(k=v, ...)`` or ``module:Class(k=v, ...)``.

    Raises:
        AgentSpecError: malformed text, a parameter without ``=``, a repeated
            parameter or a value that is not true/false/number/string.
    """
    if not isinstance(spec, str):
        raise AgentSpecError(f"agent spec {spec!r} must be a string such as 'greedy' or 'heuristic(backup=true)'")
    m = _SPEC_RE.match(spec)
    if not m:
        raise AgentSpecError(
            f"agent {spec!r} is not a spec; write a name ('greedy'), a name with parameters "
            "('heuristic(backup=true)') or a path ('my_pkg.agents:MyAgent')"
        )
    name, args = m.group(1), m.group(2)
    params: list[tuple[str, Any]] = []
    if args and args.strip():
        for part in args.split(","):
            if "=" not in part:
                raise AgentSpecError(f"agent {spec!r}: parameter {part.strip()!r} needs the form key=value")
            key, val = part.split("=", 1)
            key = key.strip()
            if not key.isidentifier():
                raise AgentSpecError(f"agent {spec!r}: {key!r} is not a parameter name")
            if key in dict(params):
                raise AgentSpecError(f"agent {spec!r}: parameter {key!r} is given twice")
            params.append((key, _value(val, spec, key)))
    text = name if not params else f"{name}({', '.join(f'{k}={_fmt(v)}' for k, v in params)})"
    return AgentSpec(text=text, name=name, params=tuple(params))


def _fmt(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    return repr(v)


def resolve_factory(name: str, registry: dict[str, Callable]) -> Callable:
    """The constructor for a name: registry, then ``module:Class`` (a name with a colon), then entry points.

    (An entry point's name cannot hold a colon: such a name is always read as a path, without a scan of
    the installed packages' entry points, which costs a fraction of a millisecond per call.)

    Raises:
        AgentSpecError: unknown name (lists the registered ones), a module
            that cannot be imported or raises while importing (its exception
            is the ``__cause__``), or a missing class.
    """
    if name in registry:
        f = registry[name]
        return _load_path(f) if isinstance(f, str) else f
    if ":" in name:
        return _load_path(name)
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        if ep.name == name:
            try:
                return ep.load()
            except Exception as e:  # the plug-in's own module failed to import
                raise AgentSpecError(f"agent {name!r}: cannot load entry point {ep.value!r} "
                                     f"({_one_line(e)})") from e
    plugins = sorted(ep.name for ep in entry_points(group=ENTRY_POINT_GROUP))
    known = list(registry) + plugins
    raise AgentSpecError(f"unknown agent {name!r}; choose one of: {', '.join(known)}, or give module:Class")


def _load_path(name: str) -> Callable:
    """The object ``module:attr`` names.

    Raises:
        AgentSpecError: the module cannot be found, raises while importing (SyntaxError, its own
            bug...; the exception is the ``__cause__``) or has no such attribute.
    """
    module, cls = name.split(":", 1)
    try:
        mod = importlib.import_module(module)
    except ModuleNotFoundError as e:
        raise AgentSpecError(f"agent {name!r}: cannot import module {module!r} ({e})") from None
    except Exception as e:  # the module exists but raised while importing (SyntaxError, its own bug...)
        raise AgentSpecError(f"agent {name!r}: importing module {module!r} failed ({_one_line(e)})") from e
    if not hasattr(mod, cls):
        raise AgentSpecError(f"agent {name!r}: module {module!r} has no {cls!r}")
    return getattr(mod, cls)


def _one_line(e: BaseException) -> str:
    """``Type: message`` of an exception on one line (where a user's code failed)."""
    text = " ".join(str(e).split())
    where = ""
    if isinstance(e, SyntaxError) and e.filename:
        where = f" at {e.filename}:{e.lineno}"
    return f"{type(e).__name__}{where}" + (f": {text}" if text else "")


def normalise_spec(spec: str) -> str:
    """The normal spelling of an agent spec (``heuristic( backup = true )`` -> ``heuristic(backup=true)``).

    Two spellings of one agent are one agent: line-ups, pools and results use this text.

    Raises:
        AgentSpecError: the spec cannot be parsed (see :func:`parse_agent_spec`).
    """
    return parse_agent_spec(spec).text


def split_agent_list(text: str) -> list[str]:
    """Split a comma-separated list of specs, keeping commas inside parentheses.

    ``"heuristic(backup=true, count=true),greedy"`` -> ``["heuristic(backup=true, count=true)", "greedy"]``.
    """
    out, depth, cur = [], 0, []
    for ch in text:
        if ch == "," and depth == 0:
            out.append("".join(cur).strip())
            cur = []
            continue
        depth += (ch == "(") - (ch == ")")
        cur.append(ch)
    out.append("".join(cur).strip())
    return out
