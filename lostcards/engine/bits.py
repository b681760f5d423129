"""Bit tricks for the numba engine (LLVM intrinsics on int64 words; raw pointers, stack buffers
and calls at an address are ``engine.intrinsics``).

``popcount``, ``lowest``, ``kth_bit``
are the card-set primitives every module uses (``kth_bit`` is one PDEP where
the CPU has BMI2, a short loop elsewhere).
"""
from __future__ import annotations

import llvmlite.binding as _llvm
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

from lostcards.numba_cache import jit

_llvm.initialize_native_target()
HAS_PDEP = "+bmi2" in _llvm.get_host_cpu_features().flatten().split(",")

_I64 = ir.IntType(64)


@intrinsic
def popcount(typingctx, x):
    """Number of set bits of an int64."""
    def codegen(context, builder, sig, args):
        fn = cgutils.get_or_insert_function(builder.module, ir.FunctionType(_I64, [_I64]),
                                            "llvm.ctpop.i64")
        return builder.call(fn, [context.cast(builder, args[0], sig.args[0], types.int64)])
    return types.int64(x), codegen


@intrinsic
def trailing_zeros(typingctx, x):
    """Index of the lowest set bit of an int64 (64 for 0)."""
    def codegen(context, builder, sig, args):
        v = context.cast(builder, args[0], sig.args[0], types.int64)
        return builder.cttz(v, ir.Constant(ir.IntType(1), 0))
    return types.int64(x), codegen


@intrinsic
def leading_zeros(typingctx, x):
    """Number of zero bits above the highest set bit of an int64 (64 for 0)."""
    def codegen(context, builder, sig, args):
        v = context.cast(builder, args[0], sig.args[0], types.int64)
        return builder.ctlz(v, ir.Constant(ir.IntType(1), 0))
    return types.int64(x), codegen


@intrinsic
def _pdep(typingctx, src, mask):
    def codegen(context, builder, sig, args):
        fn = cgutils.get_or_insert_function(builder.module, ir.FunctionType(_I64, [_I64, _I64]),
                                            "llvm.x86.bmi.pdep.64")
        return builder.call(fn, [context.cast(builder, args[0], sig.args[0], types.int64),
                                 context.cast(builder, args[1], sig.args[1], types.int64)])
    return types.int64(src, mask), codegen


if HAS_PDEP:
    @jit(inline=True)
    def kth_bit(m, k):
        """The index of the k-th (from 0) lowest set bit of m; 64 when m has k bits or fewer."""
        return trailing_zeros(_pdep(types.int64(1) << k, m))
else:                                           # pragma: no cover - CPUs without BMI2
    @jit(inline=True)
    def kth_bit(m, k):
        """The index of the k-th (from 0) lowest set bit of m; 64 when m has k bits or fewer."""
        for _ in range(k):
            m &= m - 1
        return trailing_zeros(m)


@intrinsic
def opaque(typingctx, x):
    """x, hidden from the optimiser (an empty inline asm), so that a 0 / -1 mask stays a
    mask: LLVM would otherwise turn a select on a random choice back into a branch, and a
    mispredicted branch costs more than computing both sides."""
    def codegen(context, builder, sig, args):
        v = context.cast(builder, args[0], sig.args[0], types.int64)
        asm = ir.InlineAsm(ir.FunctionType(_I64, [_I64]), "", "=r,0")
        return builder.call(asm, [v])
    return types.int64(x), codegen


@jit(inline=True)
def choose(mask, a, b):
    """a where mask is all ones, b where it is 0 (bitwise, no branch)."""
    return (a & mask) | (b & ~mask)


@jit(inline=True)
def bit(i):
    """The word with only bit i set (i in 0..63)."""
    return types.int64(1) << i


@jit(inline=True)
def lowest(m):
    """The index of the lowest set bit (64 for 0)."""
    return trailing_zeros(m)


@jit(inline=True)
def highest(m):
    """The index of the highest set bit (-1 for 0)."""
    return 63 - leading_zeros(m)
