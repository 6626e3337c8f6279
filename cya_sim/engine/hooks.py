"""What a game's compiled engine gives the game-independent compiled code: one stub per hook, each game's
implementation chosen by the type of its constants record.

The shared compiled loops — the batch driver (:mod:`cya_sim.engine.batched.loops`), the play loop
(:mod:`cya_sim.play.loop`) and the search (:mod:`cya_sim.search.kernels`) — are written once for every game. numba
cannot cache a function that takes a compiled function as an argument (numba issues #6251, #2065), so they take no
kernel as an argument: they call the stubs of this module (and of :mod:`agents.hooks`, :mod:`cya_sim.search.hooks`),
and each game registers its own function for each stub with :func:`implement`, chosen at compile time by the
type of the game's constants ``K`` (its NumPy record type, whose field names differ from every other game's). numba
compiles a shared loop once per game and keeps every game's specialisation in the loop's one disk cache; a second
process loads them without compiling. A game's module that registers the implementations is imported before its
constants can be made, so a first compile always finds them (a load from the cache does not need them).

The play loop, the first thing a run compiles, is instead decorated with :class:`per_game`: each game gets a function
of the loop's own code whose globals bind the hooks to the game's implementations, so numba inlines them before type
inference as it inlines any ``inline="always"`` function, which makes its cold compile faster (figures there); the
cache is the loop's one disk cache, as for the others.

The hooks (``K`` the constants record, ``G`` one game row (W,) int64, ``rng`` (4,) uint64 a PCG64 stream):

* :func:`new_game` — deal a new game into ``G`` (its setup rules);
* :func:`apply_action` — apply legal action ``a`` of the seat to act (the game's rules);
* :func:`is_legal` — whether ``a`` (any int64) is legal for the seat to act;
* :func:`legal_list` — the legal action ids of the seat to act, ascending, into ``out`` ((A,) int64); their count;
* :func:`row_slots` — the offsets in a row of the scalars the driver keeps: ``(done, to_act, game_index,
  queue_pos)``;
* :func:`record_result` — write the finished game of ``G`` into the result arrays of queue ``Q`` at position ``q``
  (the game's own result columns, :mod:`cya_sim.engine.batched.state`).
"""

from __future__ import annotations

import inspect

from numba import types
from numba.extending import overload

from cya_sim.engine.jit import JIT


def new_game(K, G, rng):
    """Deal a new game into row ``G`` from the engine stream ``rng`` (compiled code only)."""
    raise NotImplementedError("a hook runs in compiled code only")


def apply_action(K, G, rng, a):
    """Apply action ``a`` (legal for the seat to act) to row ``G`` (compiled code only)."""
    raise NotImplementedError("a hook runs in compiled code only")


def is_legal(K, G, a):
    """Whether action ``a`` (int64, any value) is legal for the seat to act in row ``G`` (compiled code only)."""
    raise NotImplementedError("a hook runs in compiled code only")


def legal_list(K, G, out):
    """The legal ids of the seat to act in ``G``, ascending, into ``out`` ((A,) int64); their count (compiled code
    only)."""
    raise NotImplementedError("a hook runs in compiled code only")


def row_slots(K):
    """``(done, to_act, game_index, queue_pos)``: offsets in a row of the scalars the batch driver keeps (compiled
    code only)."""
    raise NotImplementedError("a hook runs in compiled code only")


def record_result(K, G, Q, q):
    """Write the finished game of row ``G`` into the result arrays of queue ``Q`` at position ``q`` (compiled code
    only)."""
    raise NotImplementedError("a hook runs in compiled code only")


#: The hooks inlined into the shared loops (:func:`implement`). Measured with ``cya-sim bench --no-compile`` (2 cores,
#: load 1.5-2.6, 2026-12-02): none inlined, greedy x4 40k games/s and ISMCTS 145k iterations/s where the loops before
#: they were shared gave 58-62k and 181-191k; these four inlined, 59-61k and 175-187k. The price, the cold compile of
#: the classic play loop (``runs.warmup.warm_up``, greedy and random, from an empty cache, user CPU-s, alternating
#: runs at load 1.0, 06:40 UTC): 29.2 and 30.3 inlined by :func:`_inline_only`, 34.5 inlined by numba's ``overload``,
#: 26.6 and 26.8 for the loops before they were shared (none inlined: 31-33 at load 3-5).
INLINED = ("row_slots", "is_legal", "apply_action", "act")


#: Every implementation registered with :func:`implement`: ``(stub, fields) -> fn`` (what :class:`per_game` binds).
_IMPLEMENTATIONS: dict[tuple[object, tuple[str, ...]], object] = {}


def implement(stub, fields: tuple[str, ...], fn) -> None:
    """Register ``fn`` as ``stub``'s implementation for the constants records whose field names are ``fields``.

    Args:
        stub: a hook of this module (or of :mod:`agents.hooks`, :mod:`cya_sim.search.hooks`); every hook has an
            argument named ``K``, the constants record that chooses the implementation.
        fields: the field names of the game's constants record, in order (``tuple(dtype.names)``); a game's custom
            decks may widen the record's arrays, never rename them, so every record of the game matches.
        fn: a ``numba.njit`` function with the stub's arguments, in order.

    For the hooks of :data:`INLINED` (what every decision of the play loop and of the search's rollouts runs) the
    implementation is ``fn``'s own Python body, inlined into each shared loop (``inline="always"``), as the classic
    loop inlined them before the loops were shared. The others are a one-line function calling ``fn``, compiled once
    per game with the options of :data:`cya_sim.engine.jit.JIT` but no cache of its own (defined by ``exec``; its
    machine code is cached within each shared loop that calls it).
    """
    _IMPLEMENTATIONS[(stub, tuple(fields))] = fn
    args = ", ".join(inspect.signature(stub).parameters)
    inlined = stub.__name__ in INLINED  # fn's own Python body is inlined: no wrapper compiled on the way
    # __name__: the exec'd functions' module (numba's events and messages name it), this one
    ns = {"fn": fn.py_func if inlined else fn, "_is_game": _matcher(fields), "__name__": __name__}
    impl = "fn" if inlined else f"lambda {args}: fn({args})"
    exec(f"def typer({args}):\n    if _is_game(K):\n        return {impl}\n", ns)  # noqa: S102
    if inlined:
        _inline_only(stub, ns["typer"])
    else:
        overload(stub, jit_options={k: v for k, v in JIT.items() if k != "cache"})(ns["typer"])


def _inline_only(stub, typer) -> None:
    """Register ``typer`` as an always-inlined overload of ``stub`` whose implementation is typed and inlined at each
    call site but never compiled on its own.

    ``numba.extending.overload(..., inline="always")`` compiles the implementation in full once (to check it
    compiles, numba/core/typing/templates.py ``_build_impl``) before it types and inlines it where it is called: for
    ``apply_action`` that is a second compile of the game's largest function, which nothing runs. The template below
    is numba's own (``make_overload_template``, registered as ``overload`` registers it) with the implementation's
    dispatcher unable to compile, so only the typing and the inlining are done (figures at :data:`INLINED`; the same
    speed: greedy x4 58-62k games/s against 55-60k for the loops before they were shared, alternating, load 1.9-2.5).

    Raises:
        numba.core.errors.TypingError: at the compile of a loop, from ``fn``'s body as numba types it in place.
    """
    from numba.core.extending import _overload_default_jit_options
    from numba.core.typing.templates import infer, infer_global, make_overload_template

    base = make_overload_template(stub, typer, dict(_overload_default_jit_options), True, "always")

    class InlinedOnly(base):
        def _get_jit_decorator(self):
            jitter = super()._get_jit_decorator()

            def decorator(**options):
                jit = jitter(**options)

                def never_compiled(py_func):
                    dispatcher = jit(py_func)
                    dispatcher._can_compile = False  # typed for inlining only (Dispatcher.get_call_template)
                    return dispatcher

                return never_compiled

            return decorator

    infer(InlinedOnly)
    infer_global(stub, types.Function(InlinedOnly))


def implement_all(module, fields: tuple[str, ...], **fns) -> None:
    """Register each of ``fns`` (stub name -> ``numba.njit`` function) as the implementation of the stub of that name
    in ``module`` (this module, :mod:`agents.hooks` or :mod:`cya_sim.search.hooks`) for the constants records whose
    field names are ``fields`` (:func:`implement`).

    Raises:
        AttributeError: a name that is not a hook of ``module``.
    """
    for name, fn in fns.items():
        implement(getattr(module, name), fields, fn)


def _matcher(fields: tuple[str, ...]):
    def is_game(k) -> bool:
        return isinstance(k, types.Record) and tuple(k.fields) == tuple(fields)

    return is_game


class per_game:  # lower case: used as a decorator, as numba.njit
    """A shared loop compiled once per game with the game's own functions in place of the hooks: its Python body is
    written once, and each game gets a function of the same code whose globals bind each hook it calls to the game's
    implementation (:func:`implement`), as if the loop had been written in the game's own module.

    ``@per_game`` on a loop that calls hooks by name (``apply_action(K, G, rng, a)``) gives a callable that picks
    the game by the field names of its first argument, the constants record ``K``, and calls that game's
    ``numba.njit`` dispatcher (options :data:`cya_sim.engine.jit.JIT`, built on first use). The hooks of
    :data:`INLINED` are bound to always-inlined functions, so numba inlines them before type inference
    (``InlineInlinables``), as the classic loop did before the loops were shared, rather than after it as an
    ``overload`` is inlined: that is what the first compile of the play loop waits for (classic, greedy and random,
    empty cache, 2 cores at load 1-2, 2026-12-02: 25.1-25.6 s against 29.0-29.3 s through the overloads). The other
    hooks are bound to the game's function itself (a call, compiled and cached on its own).

    Every game's dispatcher has the loop's code, file and name, so numba keeps all of them in the loop's one disk
    cache (an entry per signature, and the signatures differ by the constants record's type) and a second process
    loads them without compiling. :func:`cya_sim.play.kernels.numba_cached` reads that cache through
    :attr:`py_func`.

    Raises:
        LookupError: (:meth:`for_game`) the loop calls a hook the game has not implemented (its module not imported).
        numba.core.errors.TypingError: at a game's first compile, a body that does not type.
    """

    def __init__(self, loop) -> None:
        self.py_func = loop
        self.__doc__ = loop.__doc__
        self.__name__ = loop.__name__
        self.__qualname__ = loop.__qualname__
        self.__module__ = loop.__module__
        self._by_game: dict[tuple[str, ...], object] = {}

    def for_game(self, fields: tuple[str, ...]):
        """The ``numba.njit`` dispatcher of this loop for the game whose constants record has the field names
        ``fields`` (``tuple(dtype.names)``); built on the first call."""
        fields = tuple(fields)
        disp = self._by_game.get(fields)
        if disp is None:
            disp = self._by_game[fields] = _bind(self.py_func, fields)
        return disp

    def __call__(self, K, *args):
        """Call the loop for ``K``'s game (:meth:`for_game`)."""
        return self.for_game(K.dtype.names)(K, *args)

    def compile(self, sig):
        """Compile (or load from the disk cache) the loop for the argument types ``sig``, whose first is the
        constants record's ``numba.types.Record``."""
        return self.for_game(tuple(sig[0].fields)).compile(sig)


def _bind(loop, fields: tuple[str, ...]):
    """``loop`` with each global that is a hook bound to the implementation of the game of ``fields``, as a
    ``numba.njit`` dispatcher (:class:`per_game`)."""
    import types as pytypes

    from numba import njit

    globs = dict(loop.__globals__)
    stubs = {id(stub) for stub, _ in _IMPLEMENTATIONS}
    for name, value in loop.__globals__.items():
        if id(value) not in stubs:
            continue
        fn = _IMPLEMENTATIONS.get((value, fields))
        if fn is None:
            raise LookupError(f"{loop.__qualname__} calls hook {value.__module__}.{value.__name__}, which the game of "
                              f"constants {fields[:3]}... has not implemented (is its module imported?)")
        if value.__name__ in INLINED and fn.targetoptions.get("inline") != "always":
            fn = njit(inline="always", **{k: v for k, v in JIT.items() if k != "cache"})(fn.py_func)
        globs[name] = fn
    bound = pytypes.FunctionType(loop.__code__, globs, loop.__name__, loop.__defaults__, loop.__closure__)
    bound.__qualname__, bound.__module__, bound.__doc__ = loop.__qualname__, loop.__module__, loop.__doc__
    return njit(**JIT)(bound)
