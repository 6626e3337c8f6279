"""What a game's compiled engine gives the game-independent compiled code: one stub per hook, and the decorator
that compiles a shared loop once per game with that game's functions in place of the stubs.

The shared compiled loops — the batch driver (:mod:`cya_sim.engine.batched.loops`), the play loop
(:mod:`cya_sim.play.loop`) and the search (:mod:`cya_sim.search.kernels`) — are written once for every game. numba
cannot cache a function that takes a compiled function as an argument (numba issues #6251, #2065), so they take no
kernel as an argument: they call the stubs of this module (and of :mod:`agents.hooks`, :mod:`cya_sim.search.hooks`)
by name, each game registers its own function for each stub with :func:`implement`, and each loop is decorated with
:class:`per_game`: a game gets a function of the loop's own code whose globals bind every stub to the game's
function (and every other shared loop it calls to that loop's function for the game), as if the loop had been
written in the game's own module. numba compiles it once per game, inlines the hooks of :data:`INLINED` before type
inference as it inlines any ``inline="always"`` function, and keeps every game's entry in the loop's one disk cache
(an entry per signature; the signatures differ by the constants record's type); a second process loads them without
compiling. The game is told by the field names of its constants record ``K``, the first argument of every shared
loop; a game's module that registers the implementations is imported before its constants can be made.

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

from cya_sim.engine.jit import JIT

#: Every hook (stub) of the hook modules, by ``id`` (:func:`hook`).
_HOOKS: dict[int, object] = {}


def hook(stub):
    """Mark ``stub`` (a Python function that raises) as a hook: a name the shared loops call and each game implements
    (:func:`implement`, :class:`per_game`). Returns ``stub``."""
    _HOOKS[id(stub)] = stub
    return stub


@hook
def new_game(K, G, rng):
    """Deal a new game into row ``G`` from the engine stream ``rng`` (compiled code only)."""
    raise NotImplementedError("a hook runs in compiled code only")


@hook
def apply_action(K, G, rng, a):
    """Apply action ``a`` (legal for the seat to act) to row ``G`` (compiled code only)."""
    raise NotImplementedError("a hook runs in compiled code only")


@hook
def is_legal(K, G, a):
    """Whether action ``a`` (int64, any value) is legal for the seat to act in row ``G`` (compiled code only)."""
    raise NotImplementedError("a hook runs in compiled code only")


@hook
def legal_list(K, G, out):
    """The legal ids of the seat to act in ``G``, ascending, into ``out`` ((A,) int64); their count (compiled code
    only)."""
    raise NotImplementedError("a hook runs in compiled code only")


@hook
def row_slots(K):
    """``(done, to_act, game_index, queue_pos)``: offsets in a row of the scalars the batch driver keeps (compiled
    code only)."""
    raise NotImplementedError("a hook runs in compiled code only")


@hook
def record_result(K, G, Q, q):
    """Write the finished game of row ``G`` into the result arrays of queue ``Q`` at position ``q`` (compiled code
    only)."""
    raise NotImplementedError("a hook runs in compiled code only")


#: The hooks inlined into the shared loops (what every decision of the play loop and of the search's rollouts runs).
#: Measured with ``cya-sim bench --no-compile`` (2 cores, load 1.5-2.6, 2026-12-02): none inlined, greedy x4 40k
#: games/s and ISMCTS 145k iterations/s; these four inlined, 59-61k and 175-187k, as the loops before they were shared
#: (58-62k and 181-191k).
INLINED = ("row_slots", "is_legal", "apply_action", "act")

#: Every implementation registered with :func:`implement`: ``(stub, fields) -> fn`` (what :class:`per_game` binds).
_IMPLEMENTATIONS: dict[tuple[object, tuple[str, ...]], object] = {}


def implement(stub, fields: tuple[str, ...], fn) -> None:
    """Register ``fn`` as ``stub``'s implementation for the game whose constants records have the field names
    ``fields``: every shared loop (:class:`per_game`) that calls ``stub`` calls ``fn`` for that game.

    Args:
        stub: a hook of this module (or of :mod:`agents.hooks`, :mod:`cya_sim.search.hooks`).
        fields: the field names of the game's constants record, in order (``tuple(dtype.names)``); a game's custom
            decks may widen the record's arrays, never rename them, so every record of the game matches.
        fn: a ``numba.njit`` function with the stub's arguments, in order; for the hooks of :data:`INLINED` its
            Python body is inlined into each loop (``inline="always"``).

    Raises:
        ValueError: ``stub`` is not a hook.
    """
    if id(stub) not in _HOOKS:
        raise ValueError(f"{stub!r} is not a hook (cya_sim.engine.hooks.hook)")
    _IMPLEMENTATIONS[(stub, tuple(fields))] = fn


def implement_all(module, fields: tuple[str, ...], **fns) -> None:
    """Register each of ``fns`` (stub name -> ``numba.njit`` function) as the implementation of the stub of that name
    in ``module`` (this module, :mod:`agents.hooks` or :mod:`cya_sim.search.hooks`) for the constants records whose
    field names are ``fields`` (:func:`implement`).

    Raises:
        AttributeError: a name that is not a hook of ``module``.
    """
    for name, fn in fns.items():
        implement(getattr(module, name), fields, fn)


class per_game:  # lower case: used as a decorator, as numba.njit
    """A shared loop compiled once per game with the game's own functions in place of the hooks (module docstring).

    ``@per_game`` on a loop whose first argument is the constants record ``K`` and that calls hooks by name
    (``apply_action(K, G, rng, a)``) gives a callable that picks the game by the field names of ``K``'s record type
    and calls that game's ``numba.njit`` dispatcher (options :data:`cya_sim.engine.jit.JIT`, built on first use).
    The hooks of :data:`INLINED` are bound to always-inlined functions, so numba inlines them before type inference
    rather than after it as an ``overload`` is inlined: the first compile of the play loop waits for that (classic,
    greedy and random, empty cache, 2 cores at load 1.6-2.4, 2026-12-02: 24.8 and 25.8 s against 29.4 and 29.8 s
    through ``overload`` stubs). The other hooks are bound to the game's function itself (a call, compiled and
    cached on its own), and a shared loop that calls another (``finish_and_refill`` calls ``reset_row``) to that
    loop's dispatcher for the same game.

    Every game's dispatcher has the loop's code, file and name, so numba keeps all of them in the loop's one disk
    cache and a second process loads them without compiling. :func:`cya_sim.play.kernels.numba_cached` reads that
    cache through :attr:`py_func`.

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
    """``loop`` with each global it reads that is a hook bound to the implementation of the game of ``fields``, and
    each that is a shared loop bound to that loop's dispatcher for the game, as a ``numba.njit`` dispatcher
    (:class:`per_game`).

    Raises:
        LookupError: a hook the game has not implemented.
    """
    import types as pytypes

    from numba import njit

    globs = dict(loop.__globals__)
    for name in loop.__code__.co_names:  # the globals the loop's body reads (and attribute names, not globals)
        value = globs.get(name)
        if isinstance(value, per_game):
            globs[name] = value.for_game(fields)
            continue
        if id(value) not in _HOOKS or _HOOKS[id(value)] is not value:
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
