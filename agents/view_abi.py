"""The C calling convention of a view policy: compiled once on its own, called by address from cached loops.

A **view policy** decides from one seat's agent view (:mod:`agents.classic.view`). The compiled play loop
(:mod:`cya_sim.play.loop`) and the search's rollouts (:mod:`cya_sim.search.kernels`) build that view (the parts the
policy reads: :func:`agents.classic.compiled_strategy.view_parts`) and call the policy through a C function pointer, so that the loops are compiled once and cached for every
policy — the built-in ``heuristic``, ``wild_hoarder``, ``card_counter`` and ``oracle`` and every user
plug-in alike — and a policy compiles on its own, in seconds, the first time it is used.

Why a ``numba.cfunc`` address and not a first-class function type: a loop typed on a
``FunctionType`` argument cannot be cached when a dispatcher is passed (numba issues #6251, #10280),
and a loop specialised on each plug-in recompiles the whole engine for it (75 s). A C address is plain
data: the loop's machine code holds no reference to any policy, and numba caches it as usual.

The signature (:data:`VIEW_SIG`), every array C-contiguous, passed as its data pointer::

    int64 policy(float64 *params,  /* (N_AGENT_PARAMS,) the agent's numbers */
                 int64 *hdr,       /* (N_HDR,)        agents.classic.view H_* scalars */
                 int64 *hand,      /* (T,)            cards of each type in hand */
                 int64 *values,    /* (T,)            face values, dollars */
                 int64 *unseen,    /* (T,)            cards of each type the seat has not seen */
                 int64 *seats,     /* (P, N_SEATCOL)  agents.classic.view S_* columns */
                 uint8 *gave_up,   /* (P, T) bool     the public give-up record */
                 uint8 *mask,      /* (A,) bool       the legal action mask */
                 uint64 *rng,      /* (4,)            the seat's PCG64 stream, advanced in place */
                 int64 *hands_all, /* (P, T)          every hand: oracle(cheats=true) only, else zeros */
                 int64 *legal,     /* (n_legal,)      the legal action ids, ascending */
                 int64 t, int64 p, int64 a, int64 n_legal);

:func:`call_view_policy` makes that call from compiled code; a policy's C entry turns the pointers back
into arrays with :func:`view_arrays` and calls its decision function; :func:`compile_entry` compiles
an entry (``cfunc(VIEW_SIG, cache=True)``) and returns its address.
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import carray, cfunc, njit, types
from numba.core import cgutils
from numba.core.errors import TypingError
from numba.extending import intrinsic, overload

from agents.classic.view import N_HDR, N_SEATCOL

#: Width of a compiled agent's parameter row (``agents.classic.registry.compiled_params``).
N_AGENT_PARAMS = 16

#: What a generated C entry returns when the plug-in raised (numba's C entries cannot raise: an exception would
#: be dropped and 0 returned, a game "played" with action 0). Outside every action space, so the loops' legality
#: check stops at it; :func:`describe_action` names it.
PLUGIN_RAISED = -(1 << 62)


def describe_action(action: int) -> str:
    """What a compiled policy's returned ``action`` (int) was, for a refusal: ``raised an exception`` for
    :data:`PLUGIN_RAISED`, else ``returned illegal action N``."""
    if action == PLUGIN_RAISED:
        return ("raised an exception (compiled code keeps no message; play it as a player with --engine reference "
                "to see it)")
    return f"returned illegal action {action}"


#: numba signature of a view policy's C entry (module docstring).
VIEW_SIG = types.int64(*([types.voidptr] * 11), types.int64, types.int64, types.int64, types.int64)

_I8P = ir.IntType(8).as_pointer()
_I64 = ir.IntType(64)
_FNTY = ir.FunctionType(_I64, [_I8P] * 11 + [_I64] * 4)


@intrinsic
def call_view_policy(typingctx, addr, params, hdr, hand, values, unseen, seats, gave_up, mask, rng, hands_all,
                     legal):
    """Call the view policy at C address ``addr`` (int64) on these arrays (module docstring); its int64 action id.

    T, P, A and n_legal are read from the shapes of ``hand``, ``seats``, ``mask`` and ``legal``. Every array must be
    C-contiguous (the policy sees only its data pointer).
    """
    arrays = (params, hdr, hand, values, unseen, seats, gave_up, mask, rng, hands_all, legal)
    if not isinstance(addr, types.Integer) or not all(isinstance(a, types.Array) for a in arrays):
        return None
    sig = types.int64(addr, *arrays)

    def codegen(context, builder, signature, args):
        structs = [context.make_array(ty)(context, builder, val) for ty, val in zip(signature.args[1:], args[1:])]
        ptrs = [builder.bitcast(s.data, _I8P) for s in structs]
        t = cgutils.unpack_tuple(builder, structs[2].shape, 1)[0]
        p = cgutils.unpack_tuple(builder, structs[5].shape, 2)[0]
        a = cgutils.unpack_tuple(builder, structs[7].shape, 1)[0]
        n_legal = cgutils.unpack_tuple(builder, structs[10].shape, 1)[0]
        fn = builder.inttoptr(context.cast(builder, args[0], signature.args[0], types.int64), _FNTY.as_pointer())
        return builder.call(fn, ptrs + [t, p, a, n_legal])

    return sig, codegen


@njit(cache=True, inline="always")  # inlined into each C entry: the arrays are views, no tuple is built
def view_arrays(params, hdr, hand, values, unseen, seats, gave_up, mask, rng, hands_all, legal, t, p, a, n_legal):
    """The eleven view arrays over the pointers a C entry receives (module docstring), in the order of the signature.

    Returns ``(params, hdr, hand, values, unseen, seats, gave_up, mask, rng, hands_all, legal)``: (N_AGENT_PARAMS,)
    float64, (N_HDR,) int64, (T,) int64 three times, (P, N_SEATCOL) int64, (P, T) bool, (A,) bool, (4,) uint64,
    (P, T) int64, (n_legal,) int64 — views, no copy. A policy's C entry unpacks them and calls its decision function.
    """
    return (carray(params, N_AGENT_PARAMS, np.float64), carray(hdr, N_HDR, np.int64), carray(hand, t, np.int64),
            carray(values, t, np.int64), carray(unseen, t, np.int64), carray(seats, (p, N_SEATCOL), np.int64),
            carray(gave_up, (p, t), np.bool_), carray(mask, a, np.bool_), carray(rng, 4, np.uint64),
            carray(hands_all, (p, t), np.int64), carray(legal, n_legal, np.int64))


def compile_entry(entry, signature=None) -> int:
    """Compile (or load from numba's disk cache) the C entry ``entry`` with ``signature`` (default
    :data:`VIEW_SIG`; the theft game's plug-ins pass theirs); its address (int).

    ``entry`` is a module-level Python function of a file (numba caches it beside that file). The
    compiled object is kept for the life of the process (the address stays valid).
    """
    key = (entry.__module__, entry.__qualname__)
    cf = _ENTRIES.get(key)
    if cf is None:
        cf = cfunc(VIEW_SIG if signature is None else signature, cache=True)(entry)
        _ENTRIES[key] = cf
    return int(cf.address)


_ENTRIES: dict = {}



def _plugin_name(func) -> str:
    """``module:function`` of a plug-in, as its refusals name it."""
    return f"{getattr(func, '__module__', '?')}:{getattr(func, '__name__', '?')}"


def checked_plugin_address(func, compile_address, signature: str) -> int:
    """``compile_address()`` (the C address of plug-in ``func``'s entry), with the user's faults named in one line.

    Args:
        func: the plug-in's numba-compiled decision function. compile_address: compiles (or loads) its entry.
        signature: the decision function's documented signature, shown in the refusal.

    Raises:
        AgentSpecError: numba cannot compile the plug-in (a typing error in its body, a wrong signature, an
            exception numba cannot compile), naming the plug-in and numba's first lines; or the plug-in returns
            something other than an integer action id (a float would be truncated silently).
    """
    import re

    from numba.core.errors import NumbaError

    from agents.spec import AgentSpecError

    name = _plugin_name(func)
    try:
        address = compile_address()
    except NumbaError as e:
        text = re.sub(r"\x1b\[[0-9;]*m", "", str(e))
        m = re.search(re.escape(NOT_AN_INTEGER) + r" (\S+)", text)
        if m:
            raise AgentSpecError(f"compiled plug-in {name}: returns {m.group(1)}, not an integer action id; "
                                 "return an int (a float is not rounded or truncated)") from None
        lines = [x.strip() for x in text.splitlines() if x.strip() and not x.strip().startswith(("File ", "^"))]
        lines = [x for x in lines if not x.startswith("Failed in nopython mode")] or lines  # numba's own headers
        detail = "; ".join(dict.fromkeys(lines[:2]))[:240]
        raise AgentSpecError(f"compiled plug-in {name}: numba cannot compile it ({type(e).__name__}: {detail}); "
                             f"it must be an @njit function {signature} returning an integer action id") from None
    for sig in _signatures(func):
        if not isinstance(sig.return_type, types.Integer):
            raise AgentSpecError(f"compiled plug-in {name}: returns {sig.return_type}, not an integer action id; "
                                 "return an int (a float is not rounded or truncated)")
    return address


def integer_action(a):
    """The action id a plug-in returned, in a generated C entry; typing refuses anything but an integer (a float
    would otherwise be truncated by the entry's int64 return)."""
    return a


@overload(integer_action)
def _integer_action(a):
    if isinstance(a, types.Integer):
        return lambda a: a
    raise TypingError(f"{NOT_AN_INTEGER} {a}")


#: The words of :func:`integer_action`'s typing error (found again in numba's nested message).
NOT_AN_INTEGER = "the plug-in returns, not an integer action id:"


def _signatures(func) -> list:
    """The compiled signatures of dispatcher ``func``; when its entry came from numba's disk cache (the plug-in
    itself not compiled in this process), those of its disk cache, loaded (no compile). Unknown: []."""
    sigs = list(getattr(func, "nopython_signatures", ()))
    if sigs or not hasattr(func, "py_func"):
        return sigs
    try:
        from numba.core.caching import FunctionCache

        for key in FunctionCache(func.py_func)._cache_file._load_index():
            func.compile(key[0])
    except Exception:  # noqa: BLE001 - numba's private cache layout: leave the check out rather than fail
        return []
    return list(func.nopython_signatures)


def checked_plugin_call(func, call, signature: str) -> int:
    """``call()`` (one decision of plug-in ``func`` on the reference engine) as an int, with the same refusals as
    :func:`checked_plugin_address`: a compile error or a non-integer return is an AgentSpecError naming the plug-in.
    """
    from agents.spec import AgentSpecError

    try:
        value = checked_plugin_address(func, call, signature)
    except TypeError as e:  # numba's dispatcher: another number of arguments than the plug-in takes
        raise AgentSpecError(f"compiled plug-in {_plugin_name(func)}: cannot be called as {signature} ({e})") from None
    if isinstance(value, bool | np.bool_) or not isinstance(value, int | np.integer):
        raise AgentSpecError(f"compiled plug-in {_plugin_name(func)}: returned {value!r} ({type(value).__name__}), not "
                             "an integer action id")
    return int(value)
