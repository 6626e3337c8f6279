"""Two LLVM intrinsics for the compiled kernels: a 128-bit multiply and count-trailing-zeros.

numba has no 128-bit integers and no bit-scan builtin; both are one machine
instruction on x86-64 and AArch64, and LLVM emits them from these intrinsics.
``tests/test_batched_pcg.py`` checks both against Python integers.
"""

from __future__ import annotations

from llvmlite import ir
from numba import types
from numba.extending import intrinsic

_I64 = ir.IntType(64)
_I128 = ir.IntType(128)


@intrinsic
def mulhi64(typingctx, a, b):
    """High 64 bits of the 128-bit product of two uint64 (uint64): ``(a * b) >> 64``."""
    sig = types.uint64(types.uint64, types.uint64)

    def codegen(context, builder, signature, args):
        x = builder.zext(args[0], _I128)
        y = builder.zext(args[1], _I128)
        return builder.trunc(builder.lshr(builder.mul(x, y), ir.Constant(_I128, 64)), _I64)

    return sig, codegen


@intrinsic
def cttz(typingctx, x):
    """Index of the lowest set bit of ``x`` (int64 > 0; int64). Undefined for ``x == 0``: test first."""
    sig = types.int64(types.int64)

    def codegen(context, builder, signature, args):
        fnty = ir.FunctionType(_I64, [_I64, ir.IntType(1)])
        fn = builder.module.declare_intrinsic("llvm.cttz", [_I64], fnty=fnty)
        return builder.call(fn, [args[0], ir.Constant(ir.IntType(1), 1)])

    return sig, codegen


__all__ = ["cttz", "mulhi64"]
