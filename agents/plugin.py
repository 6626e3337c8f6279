"""Compiled plug-in agents of every game: a user's numba-compiled decision function over a game's agent view.

What every game's plug-ins share is here: recognising a compiled function (:func:`is_compiled_function`,
:func:`calls_compiled_plugin`), its ``module:function`` path, cya-sim's folder of generated files
(:func:`cache_dir`), the C entry generated for each plug-in (:func:`generated_entry_module`; numba's caches of the
user's own tree dropped when it changed, :func:`refresh_plugin_caches`), a plug-in's numeric parameters
(:func:`plugin_params`) and the PCG64 stream handed to it. Each game's agent view and the signature of its plug-ins
are the game's own: :mod:`agents.classic.plugin` (over :mod:`agents.classic.view`) and :mod:`agents.theft.view`.
"""

from __future__ import annotations

import functools
import hashlib
import importlib
import importlib.util
import math
import os
import sys
from pathlib import Path

import numpy as np
from numba.core.registry import CPUDispatcher

from agents.view_abi import N_AGENT_PARAMS
from cya_sim.cache import cache_folder
from cya_sim.game.jsontext import show

#: Largest magnitude of a plug-in parameter: its ``params`` array is float64.
_FLOAT64_MAX = float(np.finfo(np.float64).max)


def is_compiled_function(obj) -> bool:
    """Whether ``obj`` is a numba-compiled function (a plug-in decision function), not an agent class."""
    return isinstance(obj, CPUDispatcher)


def calls_compiled_plugin(spec: str) -> bool:
    """Whether agent spec ``spec`` (either game) is a compiled plug-in or names one among its parameters (a search's
    ``rollout="my_pkg.policies:decide"``): user code that runs compiled, where Python never sees Ctrl-C.

    A name that is not a ``module:function`` path or an entry point (a built-in, ``"share"``...) is not one; a spec
    that does not parse or resolve is not one either (the run refuses it elsewhere, in one line).
    """
    from agents.spec import parse_agent_spec, resolve_factory

    try:
        s = parse_agent_spec(spec)
    except Exception:  # noqa: BLE001 - refused where the line-up is checked
        return False
    for name in [s.name, *(v for _, v in s.params if isinstance(v, str))]:
        try:
            if is_compiled_function(resolve_factory(name, {})):
                return True
        except Exception:  # noqa: BLE001, S112 - not a path or entry point (a built-in name, a word)
            continue
    return False


def unread_arguments(func) -> frozenset[int]:
    """Positions of the arguments that compiled plug-in ``func`` never names in its Python source: arguments it cannot
    read, whose view parts the compiled loops may leave unbuilt.

    Read from the bytecode of ``func.py_func`` and of every function defined inside it: an argument is named when any
    instruction names it (loaded, stored, deleted, captured by an inner function), or anything of the same name (a
    global too). Conservative: an argument passed on to a helper is named, hence read; a function taking ``*args`` or
    ``**kwargs``, or one without Python source (not a numba dispatcher), reads every argument (an empty set).
    """
    import dis
    import inspect

    code = getattr(getattr(func, "py_func", None), "__code__", None)
    if code is None or code.co_flags & (inspect.CO_VARARGS | inspect.CO_VARKEYWORDS):
        return frozenset()
    named: set[str] = set()
    todo = [code]
    while todo:
        c = todo.pop()
        named.update(c.co_cellvars, c.co_freevars)
        for ins in dis.get_instructions(c):
            names = ins.argval if isinstance(ins.argval, tuple) else (ins.argval,)
            named.update(x for x in names if isinstance(x, str))
        todo.extend(k for k in c.co_consts if inspect.iscode(k))
    return frozenset(i for i, name in enumerate(code.co_varnames[:code.co_argcount]) if name not in named)


def takes_argument(func, count: int, name: str = "legal") -> bool:
    """Whether compiled plug-in ``func`` asks for a ``count``-th positional argument (read from ``func.py_func``): how
    a plug-in says it takes the optional last argument of its game's view, ``legal``
    (:func:`agents.classic.plugin.takes_legal`, :func:`agents.theft.view.theft_takes_legal`).

    It does when that parameter has no default value, or when it is called ``name`` (``legal=None`` asks too). A
    parameter there with a default and another name (``k=1``: a knob of a plug-in written before ``legal``) keeps its
    default, as before. A function without Python source or with ``*args`` does not ask."""
    import inspect

    py = getattr(func, "py_func", None)
    code = getattr(py, "__code__", None)
    if code is None or code.co_flags & inspect.CO_VARARGS or code.co_argcount < count:
        return False
    required = code.co_argcount - len(py.__defaults__ or ())
    return required >= count or code.co_varnames[count - 1] == name


def plugin_path(func) -> str:
    """``module:name`` of a compiled plug-in function, checked to be importable by that path.

    Raises:
        ValueError: the function is not reachable as ``module:name`` (e.g. defined in ``__main__``).
    """
    py = getattr(func, "py_func", func)
    module, name = py.__module__, py.__qualname__
    try:
        found = getattr(importlib.import_module(module), name, None)
    except ImportError:
        found = None
    if module == "__main__" or found is not func:
        raise ValueError(f"compiled plug-in {module}:{name} must be importable as module:function from a file "
                         "(not defined in __main__ or inside another function)")
    return f"{module}:{name}"


def cache_dir() -> Path:
    """The folder of cya-sim's generated files: ``plugins`` in :func:`cya_sim.cache.cache_folder`
    (``$CYA_SIM_CACHE_DIR/plugins``, else ``~/.cache/cya_sim/plugins``)."""
    out = cache_folder() / "plugins"
    out.mkdir(parents=True, exist_ok=True)
    return out


def _file_digest(module: str) -> str:
    f = getattr(importlib.import_module(module), "__file__", None)
    try:
        return hashlib.sha256(Path(f).read_bytes()).hexdigest() if f else "-"
    except OSError:
        return "-"


#: Top-level packages never counted as the user's own tree (:func:`user_modules`): cya-sim's own (the entry's
#: other inputs, and its kernels' cache guard) and the compiled stack.
NOT_USER_PACKAGES = frozenset({"cya_sim", "agents", "numba", "numpy", "llvmlite"})


@functools.lru_cache(maxsize=1)
def _library_folders() -> tuple[Path, ...]:
    import site
    import sysconfig

    paths = {sysconfig.get_paths()[k] for k in ("stdlib", "platstdlib", "purelib", "platlib")}
    paths.update(site.getsitepackages() if hasattr(site, "getsitepackages") else ())
    return tuple(Path(p).resolve() for p in paths if p)


def _user_file(name: str) -> Path | None:
    """The source file of module ``name`` if it is of the user's own tree (not the standard library, an installed
    package under site-packages, or :data:`NOT_USER_PACKAGES`), else None."""
    if not name or name.partition(".")[0] in NOT_USER_PACKAGES or name in sys.builtin_module_names:
        return None
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError, AttributeError):
        return None
    origin = getattr(spec, "origin", None)
    if not origin or not origin.endswith(".py"):
        return None
    path = Path(origin).resolve()
    if {"site-packages", "dist-packages"} & set(path.parts) or any(path.is_relative_to(d) for d in _library_folders()):
        return None
    return path


def _imported_names(path: Path, module: str) -> list[str]:
    """Module names the source at ``path`` (module ``module``) imports: ``import a.b``, ``from a import b`` (``a``
    and, when it is a module, ``a.b``), relative imports resolved; an unreadable file imports nothing."""
    import ast

    try:
        tree = ast.parse(path.read_bytes())
    except (OSError, SyntaxError, ValueError):
        return []
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    names: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                try:
                    base = importlib.util.resolve_name("." * node.level + base, package)
                except (ImportError, ValueError):
                    continue
            names.append(base)
            names += [f"{base}.{a.name}" for a in node.names if a.name != "*"]
    return names


def user_modules(module: str) -> dict[str, Path]:
    """The modules of the user's own tree that ``module`` imports, transitively, itself included: name -> file.

    "The user's own tree" is every module whose source is neither in the standard library, nor in an installed
    package (site-packages), nor in :data:`NOT_USER_PACKAGES` — e.g. a helper module beside the plug-in's file, or
    a sibling module of its package. Found by reading the ``import`` statements of each file (static: an import
    made by ``importlib`` at run time is not seen).
    """
    found: dict[str, Path] = {}
    todo = [module]
    while todo:
        name = todo.pop()
        if name in found:
            continue
        path = _user_file(name)
        if path is None:
            continue
        found[name] = path
        todo += [n for n in _imported_names(path, name) if n not in found]
    return found


def user_tree_digest(module: str) -> str:
    """SHA-256 (hex str) of the names and sources of :func:`user_modules` of ``module``: it changes when the plug-in's
    file or any module of the user's own tree it imports (transitively) changes."""
    return _sources_digest(sorted(user_modules(module).items()))


def _sources_digest(sources) -> str:
    """SHA-256 (hex str) of ``(module name, source path)`` pairs in the order given: names and file contents."""
    h = hashlib.sha256()
    for name, path in sources:
        h.update(name.encode() + b"\0")
        try:
            h.update(path.read_bytes())
        except OSError:
            h.update(b"-")
    return h.hexdigest()


def refresh_plugin_caches(func) -> str:
    """Drop numba's disk caches of the user's compiled functions behind plug-in ``func`` when any module of the
    user's own tree that its module imports changed since the last run; the tree's digest (hex str).

    numba keys a function's disk cache on its own file only: after an edit of a helper module that the plug-in's
    file imports (and whose ``@njit`` function it calls, or whose constant it reads), ``decide``'s cached machine
    code would replay the old helper. So when :func:`user_tree_digest` differs from the one recorded in
    :func:`cache_dir` (or none is recorded), the disk caches of every numba function defined in those modules
    are emptied (they compile afresh once) and the new digest is recorded. Called before the plug-in is compiled
    or loaded, by both engines' paths (:func:`generated_entry_module`, :class:`ViewPolicyAgent`).
    """
    py = getattr(func, "py_func", func)
    module = py.__module__
    digest = user_tree_digest(module)
    if _REFRESHED.get(module) == digest:
        return digest
    stamp = cache_dir() / f"user-tree-{module}.sha256"
    try:
        recorded = stamp.read_text().strip()
    except OSError:
        recorded = ""
    if recorded != digest:
        for name in user_modules(module):
            mod = sys.modules.get(name)
            for obj in list(vars(mod).values()) if mod is not None else ():
                if is_compiled_function(obj) and getattr(obj.py_func, "__module__", None) == name \
                        and not obj.signatures:  # not yet compiled or loaded in this process
                    obj._cache.flush()
        tmp = stamp.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(digest)
        os.replace(tmp, stamp)
    _REFRESHED[module] = digest
    return digest


_REFRESHED: dict[str, str] = {}


#: cya-sim's own top-level packages: a plug-in defined in one (the committed learned models) is not of the user's tree.
OWN_PACKAGES = ("agents", "cya_sim")


def own_package_digest(module: str) -> str:
    """SHA-256 (hex str) of a plug-in module of cya-sim's own packages (:data:`OWN_PACKAGES`: the committed learned
    models, ``agents.learned_models.NAME``) and of the modules of those packages it imports directly (for a learned
    model: the network's code, :mod:`agents.classic.learned`); ``""`` for any other module (the user's tree is hashed
    by :func:`user_tree_digest`).

    The C entries live in one folder for every checkout (:func:`cache_dir`) and :func:`user_tree_digest` leaves
    cya-sim's packages out, so without it a regenerated model, or a change of the network's code, would be played by
    the entry compiled for the old one.
    """
    if module.partition(".")[0] not in OWN_PACKAGES:
        return ""
    names = [module, *sorted(set(_imported_names(_source(module) or Path("-"), module)))]
    return _sources_digest((n, p) for n in names if n.partition(".")[0] in OWN_PACKAGES and (p := _source(n)) is not None)


def _source(name: str) -> Path | None:
    """The ``.py`` source of module ``name``, or None (not a module, not found, no Python source)."""
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError, AttributeError):
        return None
    origin = getattr(spec, "origin", None)
    return Path(origin) if origin and origin.endswith(".py") else None


def generated_entry_module(func, template: str, prefix: str, depends_on: tuple[str, ...]):
    """Write (once) and import the generated module holding a plug-in's C entry, for either game.

    Args:
        func: the plug-in (``module:function``). template: the entry's source, formatted with ``path``,
            ``module`` and ``name``. prefix: the generated module names' start. depends_on: the modules the
            entry links, whose files join the name's hash (with the plug-in's file and every module of the user's
            own tree it imports, :func:`user_tree_digest`, a plug-in of cya-sim's own packages with what it imports
            of them, :func:`own_package_digest`, the source and the Python version), so an edit of any
            of them gets a new entry and an unchanged one loads from numba's cache; numba's caches of the user's
            functions are dropped when that tree changed (:func:`refresh_plugin_caches`).

    Raises:
        ValueError: the plug-in is not importable as ``module:function``.
    """
    path = plugin_path(func)
    module, name = path.split(":")
    src = template.format(path=path, module=module, name=name)
    h = hashlib.sha256()
    for part in (src, refresh_plugin_caches(func), own_package_digest(module), *(_file_digest(m) for m in depends_on),
                 sys.version):
        h.update(part.encode())
    mod_name = f"{prefix}_{h.hexdigest()[:16]}"
    if mod_name in sys.modules:
        return sys.modules[mod_name]
    file = cache_dir() / f"{mod_name}.py"
    if not file.exists() or file.read_text() != src:
        tmp = file.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(src)
        os.replace(tmp, file)
    spec = importlib.util.spec_from_file_location(mod_name, file)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[mod_name] = mod
    spec.loader.exec_module(mod)
    return mod


def _to_state(rng: np.random.Generator) -> np.ndarray:
    st = rng.bit_generator.state["state"]
    m = (1 << 64) - 1
    return np.array([st["state"] >> 64, st["state"] & m, st["inc"] >> 64, st["inc"] & m], np.uint64)


def _from_state(rng: np.random.Generator, arr: np.ndarray) -> None:
    s = rng.bit_generator.state
    s["state"]["state"] = (int(arr[0]) << 64) | int(arr[1])
    s["has_uint32"], s["uinteger"] = 0, 0
    rng.bit_generator.state = s


def plugin_params(name: str, params: dict) -> np.ndarray:
    """A plug-in's numeric parameters as its ``params`` array: (N_AGENT_PARAMS,) float64, in the order given.

    Raises:
        ValueError: a parameter that is not a number, not finite or beyond float64 (an integer of 400 digits:
            parameter and range named), or more than ``N_AGENT_PARAMS`` of them (agent named).
    """
    bad = [k for k, v in params.items() if not isinstance(v, (int, float)) or isinstance(v, bool)]
    if bad:
        raise ValueError(f"agent {name!r}: parameter(s) {', '.join(bad)} must be numbers")
    if len(params) > N_AGENT_PARAMS:
        raise ValueError(f"agent {name!r}: {len(params)} parameters; a compiled plug-in takes at most "
                         f"{N_AGENT_PARAMS}")
    for k, v in params.items():  # the params array is float64: a huge int overflows it, NaN compares false
        if not (isinstance(v, int) and abs(v) <= _FLOAT64_MAX or isinstance(v, float) and math.isfinite(v)):
            raise ValueError(f"agent {name!r}: parameter {k} is {show(v)}; allowed: a finite number from "
                             f"-{_FLOAT64_MAX:.4g} to {_FLOAT64_MAX:.4g} (float64, the plug-in's params array)")
    out = np.zeros(N_AGENT_PARAMS, np.float64)
    out[: len(params)] = [float(v) for v in params.values()]
    return out
