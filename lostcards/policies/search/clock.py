"""A monotonic wall clock inside numba: ``now_ns()`` calls libc's ``clock_gettime`` by name.

The symbol is resolved when the compiled code is loaded, so the function caches
(``cache=True``) like any other.  Only the seconds budget of the search uses it;
results under a seconds budget depend on the machine, the iteration budget does not.
"""
from __future__ import annotations

from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

from lostcards.numba_cache import jit

CLOCK_MONOTONIC = 1
_I64 = ir.IntType(64)
_I32 = ir.IntType(32)


@intrinsic
def _clock_gettime_ns(typingctx):
    def codegen(context, builder, sig, args):
        ts = cgutils.alloca_once(builder, _I64, size=2)
        fnty = ir.FunctionType(_I32, [_I32, _I64.as_pointer()])
        fn = cgutils.get_or_insert_function(builder.module, fnty, "clock_gettime")
        builder.call(fn, [ir.Constant(_I32, CLOCK_MONOTONIC), ts])
        sec = builder.load(ts)
        nsec = builder.load(builder.gep(ts, [ir.Constant(_I32, 1)]))
        return builder.add(builder.mul(sec, ir.Constant(_I64, 1_000_000_000)), nsec)
    return types.int64(), codegen


@jit(inline=True)
def now_ns():
    """Nanoseconds of the monotonic clock (an arbitrary origin)."""
    return _clock_gettime_ns()
