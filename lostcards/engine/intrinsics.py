"""The engine's low-level toolkit inside numba: stack buffers, the clock, raw pointers, calls at an address.

Everything on the per-turn path works on int64 words and raw pointers, with no
reference-counted array:

- *stack buffers*: ``stack_words(n)``, ``stack_floats(n)``, ``stack_u64(n)``
  (``n`` a constant) are ``n`` slots in the entry block of the function being
  compiled (a bot inlined into its decider gets them once, not once a turn);
  they are not zeroed: write before reading.
- *the clock*: ``now_ns()``, libc's monotonic ``clock_gettime``, resolved when
  the compiled code is loaded, so a function using it caches like any other
  (only seconds budgets read it: results under them depend on the machine).
- *pointers*: ``ptr(arr)`` once per batch, then ``offset``, the casts
  ``as_bytes`` / ``as_words`` / ``as_u64``, ``load_relaxed``, ``copy_words``;
  ``alive(arr)`` keeps an array alive until its pointers are done with; ``axpy``, a
  constant-length ``dst += x * src`` as one vector operation.
- *calls at an address*: the one way to call a numba policy from outside its
  compiled unit.  numba specializes a function on each function object it is
  handed, and the disk cache cannot keep such specializations, so a kernel that
  serves every policy (``improve``, ``analyze``, the bridge) takes the policy
  as a whole number: ``policy_address(kernel)`` and ``decide_address(kernel)``
  return where a C-callable wrapper of the policy and of its decider
  (``engine.policy``) lives; ``call_policy_at`` and ``call_decide_at`` call them
  from numba.  A wrapper is a generated module in numba's cache folder, its
  compiled code cached on disk like a decider's (a policy not importable by
  module and name gets one compiled in memory, once a process).
"""
from __future__ import annotations

import threading

from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

from lostcards.engine.layout import OBS_FIELDS
from lostcards.numba_cache import jit

_I32 = ir.IntType(32)
_I64 = ir.IntType(64)
_PTR = _I64.as_pointer()
_DBL = ir.DoubleType().as_pointer()


# ---- stack buffers ----------------------------------------------------------------------------

def _named(typer, name: str, doc: str):
    """`typer` as the intrinsic `name` (its docstring `doc`): one per element type, from one factory."""
    typer.__name__ = typer.__qualname__ = name
    typer.__doc__ = doc
    return intrinsic(typer)


def _stack(name: str, dtype, doc: str):
    """An intrinsic ``name(n)``: a pointer to `n` (a constant) `dtype` slots on the stack."""
    rt = types.CPointer(dtype)

    def alloc(typingctx, n):
        if not isinstance(n, types.IntegerLiteral):
            return None
        count = n.literal_value

        def codegen(context, builder, sig, args):
            return cgutils.alloca_once(builder, context.get_value_type(dtype), size=count)
        return rt(n), codegen
    return _named(alloc, name, doc)


stack_floats = _stack("stack_floats", types.float64, "A pointer to `n` (a constant) float64 slots on the stack.")
stack_words = _stack("stack_words", types.int64, "A pointer to `n` (a constant) int64 slots on the stack.")
stack_u64 = _stack("stack_u64", types.uint64,
                   "A pointer to `n` (a constant) uint64 words on the stack: scratch that LLVM knows nothing "
                   "else points to, so it keeps them in registers (a random stream inside a loop).")


# ---- the clock ----------------------------------------------------------------------------------

CLOCK_MONOTONIC = 1


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


# ---- raw pointers -------------------------------------------------------------------------------

@intrinsic
def ptr(typingctx, arr):
    """A raw pointer to a C-contiguous array's data (no reference is kept: the
    caller keeps the array alive)."""
    if not isinstance(arr, types.Array):
        return None
    rt = types.CPointer(arr.dtype)

    def codegen(context, builder, sig, args):
        a = context.make_array(sig.args[0])(context, builder, args[0])
        return a.data
    return rt(arr), codegen


@intrinsic
def offset(typingctx, p, n):
    """p + n elements."""
    if not isinstance(p, types.CPointer):
        return None

    def codegen(context, builder, sig, args):
        return builder.gep(args[0], [context.cast(builder, args[1], sig.args[1], types.intp)])
    return p(p, n), codegen


def _view(name: str, dtype, doc: str):
    """An intrinsic ``name(p)``: the memory at pointer `p` seen as `dtype`."""
    rt = types.CPointer(dtype)

    def view(typingctx, p):
        def codegen(context, builder, sig, args):
            return builder.bitcast(args[0], context.get_value_type(rt))
        return rt(p), codegen
    return _named(view, name, doc)


as_bytes = _view("as_bytes", types.uint8, "The same memory seen as uint8.")
as_words = _view("as_words", types.int64, "The same memory seen as int64.")
as_u64 = _view("as_u64", types.uint64, "The same memory seen as uint64 (a random stream's four words).")


@intrinsic
def load_relaxed(typingctx, p):
    """The word at `p`, read afresh each time (an atomic load): another thread may change it."""
    if not isinstance(p, types.CPointer):
        return None

    def codegen(context, builder, sig, args):
        return builder.load_atomic(args[0], "monotonic", 8)
    return p.dtype(p), codegen


@jit(inline=True)
def alive(arr):
    """A use of `arr` (it changes nothing): numba frees an array after its last use, and taking
    a raw pointer is not one, so code that works through ``ptr(arr)`` calls this when done."""
    if arr.size:
        arr[0] = arr[0]


@intrinsic
def axpy(typingctx, dst, x, src, n):
    """dst[0:n] += x * src[0:n] (float64 pointers, `n` a constant) as one vector multiply and one
    vector add: each element rounds as the scalar loop's (no fused multiply-add), whatever LLVM
    would have unrolled it into."""
    if not (isinstance(dst, types.CPointer) and isinstance(src, types.CPointer)
            and isinstance(n, types.IntegerLiteral)):
        return None
    vec = ir.VectorType(ir.DoubleType(), n.literal_value)

    def codegen(context, builder, sig, args):
        d, xv, s, _ = args
        xv = context.cast(builder, xv, sig.args[1], types.float64)
        dp = builder.bitcast(d, vec.as_pointer())
        sp = builder.bitcast(s, vec.as_pointer())
        xs = builder.insert_element(ir.Constant(vec, ir.Undefined), xv, ir.Constant(_I32, 0))
        xs = builder.shuffle_vector(xs, ir.Constant(vec, ir.Undefined),
                                    ir.Constant(ir.VectorType(_I32, n.literal_value), None))
        prod = builder.fmul(xs, builder.load(sp, align=8))
        builder.store(builder.fadd(builder.load(dp, align=8), prod), dp, align=8)
        return context.get_dummy_value()
    return types.void(dst, x, src, n), codegen


@jit(inline=True)
def copy_words(dst, src, n):
    """dst[0:n] = src[0:n] (int64 pointers)."""
    for i in range(n):
        dst[i] = src[i]


# ---- a policy and its decider called at an address -------------------------------------------------

_P64 = types.CPointer(types.int64)
_U64 = types.CPointer(types.uint64)
_F64 = types.CPointer(types.float64)
POLICY_C_SIG = types.int64(_P64, _F64, _U64)          # (observation words, params, seat memory)
DECIDE_C_SIG = types.void(_P64, _U64, _P64, types.int64, _F64, _P64)

_KEEP: dict = {}
_MAKING = threading.Lock()

_WRAPPER = '''"""The C-callable {kind} wrapper of {target} (generated by lostcards.engine.intrinsics; do not edit).

Compiled from the sources {stamp}.
"""
from numba import cfunc

from lostcards.engine.intrinsics import DECIDE_C_SIG, POLICY_C_SIG
from lostcards.engine.layout import Obs  # noqa: F401
from lostcards.engine.policy import decider  # noqa: F401
{import_line}
{prelude}

@cfunc({sig}, cache={cache})
def call({args}):
    {body}
'''
_KINDS = {
    "policy": dict(sig="POLICY_C_SIG", prelude="", args="w, params, mem",
                   body="return kernel(Obs({}), params, mem)".format(", ".join(f"w[{i}]" for i in range(OBS_FIELDS)))),
    "decide": dict(sig="DECIDE_C_SIG", prelude="decide = decider(kernel)\n",
                   args="states, mems, slots, n, params, moves", body="decide(states, mems, slots, n, params, moves)"),
}


def policy_address(kernel) -> int:
    """The address of ``move = f(obs_words, params, mem)`` calling the numba policy `kernel`."""
    return _wrapper(kernel, "policy")


def decide_address(kernel) -> int:
    """The address of the decider of the numba policy `kernel` (``engine.policy.DECIDE_SIG``)."""
    return _wrapper(kernel, "decide")


def _wrapper(kernel, kind: str) -> int:
    """The address of `kernel`'s C-callable `kind` wrapper, made once a process: for a policy
    importable by module and name a generated module whose compiled code numba caches on disk
    (its text names the hash of the policy's sources, so an edit recompiles it), else compiled
    in memory."""
    key = (kind, id(kernel))
    with _MAKING:                           # threads of one process make it once
        hit = _KEEP.get(key)
        if hit is None or hit[0] is not kernel:
            hit = (kernel, _made(kernel, kind))
            _KEEP[key] = hit
    return int(hit[1].address)


def _made(kernel, kind: str):
    """`kernel`'s `kind` wrapper (``_wrapper``), compiled or loaded from the disk cache."""
    from lostcards.engine.policy import generated_module, importable, source_tag
    from lostcards.numba_cache import source_hash, sources
    where = importable(kernel)
    if where is not None:
        mod_name, name, src = where
        stamp = source_hash(sorted(set(sources(src)) | set(sources(__file__))), 16)
        text = _WRAPPER.format(kind=kind, target=f"{mod_name}:{name}", stamp=stamp, cache=True,
                               import_line=f"from {mod_name} import {name} as kernel", **_KINDS[kind])
        mod = generated_module(f"call_{kind}_{source_tag(mod_name, name, src)}", text)
        if mod is not None:
            return mod.call
    ns = {"kernel": kernel}                 # not importable: compiled in memory, once a process
    exec(compile(_WRAPPER.format(kind=kind, target=repr(kernel), stamp="in memory", cache=False,
                                 import_line="", **_KINDS[kind]), f"<lostcards {kind} wrapper>", "exec"), ns)
    return ns["call"]


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
