"""The C calling convention of the row forms: ``card_counter`` and ``heuristic`` from the game row, by address.

Under the classic rules without §6 and §7 the compiled loops play ``card_counter`` and ``heuristic`` (with
``wild_hoarder``) from the game row (:mod:`agents.classic.card_counter_row`, :mod:`agents.classic.heuristic_row`)
instead of building the seat's view. Like the view policies (:mod:`agents.view_abi`) they are called through a
C function pointer, so that the cached loops do not link them: a line-up without them compiles nothing of theirs
(the play loop's cold compile grew by about 4 s when it linked them), and a line-up with them compiles each once,
on its own, the first time it plays (:func:`row_address`).

The signature (:data:`ROW_SIG`)::

    int64 policy(void *K,          /* the rule constants record (CONSTS_DTYPE), by reference */
                 int64 *G,         /* (W,) the game row */
                 int64 w,          /* W */
                 int64 seat,       /* the seat to act */
                 float64 *params); /* (N_AGENT_PARAMS,) the agent's numbers */

Only constants of the one record type every preset shares (:data:`cya_sim.engine.classic.layout.CONSTS_DTYPE`)
can be passed: :func:`agents.classic.registry.plays_from_row` sends a deck that needs larger slots to the view
form.
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import carray, from_dtype, types
from numba.extending import intrinsic

from agents.classic.card_counter_row import card_counter_row
from agents.classic.compiled_strategy import STRATEGY_CARD_COUNTER, STRATEGY_HEURISTIC
from agents.classic.heuristic_row import heuristic_row
from agents.view_abi import N_AGENT_PARAMS, compile_entry
from cya_sim.engine.classic.layout import CONSTS_DTYPE

#: numba signature of a row form's C entry (module docstring).
ROW_SIG = types.int64(types.voidptr, types.voidptr, types.int64, types.int64, types.voidptr)
#: numba type of the rule constants every preset shares.
CONSTS_TYPE = from_dtype(CONSTS_DTYPE)
_I8P = ir.IntType(8).as_pointer()
_I64 = ir.IntType(64)
_FNTY = ir.FunctionType(_I64, [_I8P, _I8P, _I64, _I64, _I8P])


@intrinsic
def call_row_policy(typingctx, addr, K, G, seat, params):
    """Call the row form at C address ``addr`` (int64) for ``seat`` (int64) in row ``G`` ((W,) int64, C-contiguous)
    under constants ``K`` (a record of :data:`CONSTS_TYPE`) with ``params`` ((N_AGENT_PARAMS,) float64); its int64
    action id."""
    if not (isinstance(addr, types.Integer) and isinstance(K, types.Record) and isinstance(G, types.Array)
            and isinstance(seat, types.Integer) and isinstance(params, types.Array)):
        return None
    sig = types.int64(addr, K, G, seat, params)

    def codegen(context, builder, signature, args):
        g = context.make_array(signature.args[2])(context, builder, args[2])
        pa = context.make_array(signature.args[4])(context, builder, args[4])
        w = builder.extract_value(g.shape, 0)
        fn = builder.inttoptr(context.cast(builder, args[0], signature.args[0], types.int64), _FNTY.as_pointer())
        s = context.cast(builder, args[3], signature.args[3], types.int64)
        return builder.call(fn, [builder.bitcast(args[1], _I8P), builder.bitcast(g.data, _I8P), w, s,
                                 builder.bitcast(pa.data, _I8P)])

    return sig, codegen


@intrinsic
def as_consts(typingctx, ptr):
    """The rule constants record (:data:`CONSTS_TYPE`) at ``ptr`` (a voidptr from :func:`call_row_policy`)."""
    if not isinstance(ptr, types.RawPointer):
        return None

    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], context.get_value_type(CONSTS_TYPE))

    return CONSTS_TYPE(ptr), codegen


def card_counter_row_entry(k, g, w, seat, params):
    """C entry of ``card_counter``'s row form (:data:`ROW_SIG`)."""
    return card_counter_row(as_consts(k), carray(g, w, np.int64), seat, carray(params, N_AGENT_PARAMS, np.float64))


def heuristic_row_entry(k, g, w, seat, params):
    """C entry of ``heuristic``'s row form (:data:`ROW_SIG`)."""
    return heuristic_row(as_consts(k), carray(g, w, np.int64), seat, carray(params, N_AGENT_PARAMS, np.float64))


def row_entry(kind: int):
    """The C entry function (plain Python, compiled by :func:`row_address`) of the row form of built-in policy
    ``kind`` (``agents.classic.compiled.POLICY_CARD_COUNTER`` or ``POLICY_HEURISTIC``).

    Raises:
        KeyError: a policy without a row form.
    """
    return {STRATEGY_CARD_COUNTER: card_counter_row_entry, STRATEGY_HEURISTIC: heuristic_row_entry}[kind]


def row_address(kind: int) -> int:
    """C address of the row form of built-in policy ``kind`` (:func:`row_entry`), compiled on first use (or loaded
    from numba's disk cache).

    Raises:
        KeyError: a policy without a row form.
    """
    return compile_entry(row_entry(kind), ROW_SIG)
