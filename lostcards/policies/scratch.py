"""Scratch memory for the bots: fixed-size buffers on the stack, no heap and no reference counts.

``stack_floats(n)`` and ``stack_words(n)`` (``n`` a constant) are pointers to
``n`` float64 / int64 slots in the entry block of the function being compiled
(a bot inlined into its decider gets them once, not once a turn).  They are
not zeroed: write before reading.
"""
from __future__ import annotations

from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic


@intrinsic
def stack_floats(typingctx, n):
    """A pointer to `n` (a constant) float64 slots on the stack."""
    if not isinstance(n, types.IntegerLiteral):
        return None
    count = n.literal_value

    def codegen(context, builder, sig, args):
        return cgutils.alloca_once(builder, ir.DoubleType(), size=count)
    return types.CPointer(types.float64)(n), codegen


@intrinsic
def stack_words(typingctx, n):
    """A pointer to `n` (a constant) int64 slots on the stack."""
    if not isinstance(n, types.IntegerLiteral):
        return None
    count = n.literal_value

    def codegen(context, builder, sig, args):
        return cgutils.alloca_once(builder, ir.IntType(64), size=count)
    return types.CPointer(types.int64)(n), codegen
