"""A policy and its decider called through a plain address, so one compiled kernel serves every base.

numba specializes a function on each function object it is handed, and the
disk cache cannot keep such specializations; so ``improve`` and ``analyze``
take their play-out policy as *addresses* (whole numbers) instead:
``policy_address(kernel)`` and ``decide_address(kernel)`` compile (once a
process, a fraction of a second: the policy itself comes from the cache) a
C-callable wrapper of the policy and of its decider (``engine.policy``), and
return where it lives; ``call_policy_at`` and ``call_decide_at`` call them
from numba.  The wrappers are kept alive for the life of the process.
"""
from __future__ import annotations

from llvmlite import ir
from numba import cfunc, types
from numba.extending import intrinsic

from lostcards.engine.layout import OBS_FIELDS, Obs

_P64 = types.CPointer(types.int64)
_U64 = types.CPointer(types.uint64)
_F64 = types.CPointer(types.float64)
POLICY_C_SIG = types.int64(_P64, _F64, _U64)          # (observation words, params, seat memory)
DECIDE_C_SIG = types.void(_P64, _U64, _P64, types.int64, _F64, _P64)
_I64 = ir.IntType(64)
_PTR = _I64.as_pointer()
_DBL = ir.DoubleType().as_pointer()

_KEEP: dict = {}


def policy_address(kernel) -> int:
    """The address of ``move = f(obs_words, params, mem)`` calling the numba policy `kernel`."""
    key = ("policy", id(kernel))
    hit = _KEEP.get(key)
    if hit is None or hit[0] is not kernel:
        fields = ", ".join(f"w[{i}]" for i in range(OBS_FIELDS))
        ns = {"kernel": kernel, "Obs": Obs}
        exec(compile(f"def call(w, params, mem):\n    return kernel(Obs({fields}), params, mem)\n",
                     "<lostcards policy wrapper>", "exec"), ns)
        hit = (kernel, cfunc(POLICY_C_SIG)(ns["call"]))
        _KEEP[key] = hit
    return int(hit[1].address)


def decide_address(kernel) -> int:
    """The address of the decider of the numba policy `kernel` (``engine.policy.DECIDE_SIG``)."""
    from lostcards.engine.policy import decider
    key = ("decide", id(kernel))
    hit = _KEEP.get(key)
    if hit is None or hit[0] is not kernel:
        ns = {"decide": decider(kernel)}
        exec(compile("def call(states, mems, slots, n, params, moves):\n"
                     "    decide(states, mems, slots, n, params, moves)\n",
                     "<lostcards decider wrapper>", "exec"), ns)
        hit = (kernel, cfunc(DECIDE_C_SIG)(ns["call"]))
        _KEEP[key] = hit
    return int(hit[1].address)


@intrinsic
def call_policy_at(typingctx, addr, words, params, mem):
    """The move of the policy wrapper at `addr` (``policy_address``)."""
    def codegen(context, builder, sig, args):
        fnty = ir.FunctionType(_I64, [_PTR, _DBL, _PTR])
        fn = builder.inttoptr(args[0], fnty.as_pointer())
        return builder.call(fn, [args[1], args[2], builder.bitcast(args[3], _PTR)])
    return types.int64(types.int64, _P64, _F64, _U64), codegen


@intrinsic
def call_decide_at(typingctx, addr, states, mems, slots, n, params, moves):
    """Run the decider wrapper at `addr` (``decide_address``)."""
    def codegen(context, builder, sig, args):
        fnty = ir.FunctionType(ir.VoidType(), [_PTR, _PTR, _PTR, _I64, _DBL, _PTR])
        fn = builder.inttoptr(args[0], fnty.as_pointer())
        builder.call(fn, [args[1], builder.bitcast(args[2], _PTR), args[3], args[4], args[5], args[6]])
        return context.get_dummy_value()
    return types.void(types.int64, _P64, _U64, _P64, types.int64, _F64, _P64), codegen
