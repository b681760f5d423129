"""Bit tricks for the numba engine (LLVM intrinsics on int64 words; raw pointers, stack buffers
and calls at an address are ``engine.intrinsics``).

Everything on the per-turn path works on int64 words.  ``popcount``, ``lowest``,
``kth_bit`` are the card-set primitives every module uses.  ``kth_bit`` (the
select) is one PDEP where PDEP is fast, a broadword select (byte counts, their
prefix sums, a 2 KB table) where it is not (AMD before Zen 3 runs PDEP in
microcode): ``select_kind`` decides by timing both once per machine
(``LOSTCARDS_SELECT=pdep|broadword`` overrides); the answers are the same.
``kth_of_six`` picks among the six discard piles (a table where PDEP is slow).
"""
from __future__ import annotations

import json
import os
import time

import llvmlite.binding as _llvm
import numpy as np
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic, overload

from lostcards.errors import BadArgument
from lostcards.numba_cache import cache_folder, jit

_llvm.initialize_native_target()
HAS_PDEP = "+bmi2" in _llvm.get_host_cpu_features().flatten().split(",")
SELECTS = ("pdep", "broadword")

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


def _byte_select() -> np.ndarray:
    """[v * 8 + r]: the position of the r-th (from 0) set bit of the byte v, 8 when v has r bits or fewer."""
    t = np.full(256 * 8, 8, np.uint8)
    for v in range(256):
        for r, b in enumerate(b for b in range(8) if v >> b & 1):
            t[v * 8 + r] = b
    return t


BYTE_SELECT = _byte_select()
_L8 = 0x0101010101010101
_H8 = -0x7F7F7F7F7F7F7F80                       # 0x8080808080808080 as an int64


@jit(inline=True)
def kth_bit_pdep(m, k):
    """kth_bit with one PDEP (BMI2): fast on Intel and on AMD from Zen 3, microcoded before."""
    return trailing_zeros(_pdep(types.int64(1) << k, m))


@jit(inline=True)
def kth_bit_broadword(m, k):
    """kth_bit without PDEP: the byte holding the bit from the bytes' prefix counts (no borrow
    crosses a byte: every count is below 0x80), then the bit within it from BYTE_SELECT."""
    s = m - ((m >> 1) & 0x5555555555555555)
    s = (s & 0x3333333333333333) + ((s >> 2) & 0x3333333333333333)
    s = (s + (s >> 4)) & 0x0F0F0F0F0F0F0F0F
    p = s * _L8                                 # byte i: the set bits of bytes 0..i
    t = ((p | _H8) - (k + 1) * _L8) & _H8       # the high bit of each byte whose count passes k
    b8 = trailing_zeros(t) & 56                 # 8 x the byte holding the bit
    before = ((p << 8) >> b8) & 255
    r = b8 + np.int64(BYTE_SELECT[((m >> b8) & 255) * 8 + ((k - before) & 7)])
    return r if t != 0 else 64


def kth_bit(m, k):
    """The index of the k-th (from 0) lowest set bit of m; 64 when m has k bits or fewer
    (compiled as ``kth_bit_pdep`` or ``kth_bit_broadword``, by ``select_kind``)."""
    m &= (1 << 64) - 1                          # the word's 64 bits, as numba sees them
    for _ in range(k):
        m &= m - 1
    return (m & -m).bit_length() - 1 if m else 64


@overload(kth_bit, jit_options={"forceinline": True})
def _kth_bit_compiled(m, k):
    if select_kind() == "pdep":
        return lambda m, k: kth_bit_pdep(m, k)
    return lambda m, k: kth_bit_broadword(m, k)


_SIX = np.array([kth_bit(v, k) for v in range(64) for k in range(8)], np.int8)


@jit(inline=True)
def kth_of_six_table(m, k):
    """kth_bit of a word below 64 (the discard piles) and k below 8, from a 512-byte table."""
    return np.int64(_SIX[(m << 3) | k])


def kth_of_six(m, k):
    """kth_bit of a word below 64 (the discard piles) and k below 8: one PDEP where the select is
    PDEP (as fast as the table's load), else ``kth_of_six_table``."""
    return kth_bit(m & 63, k & 7)


@overload(kth_of_six, jit_options={"forceinline": True})
def _kth_of_six_compiled(m, k):
    if select_kind() == "pdep":
        return lambda m, k: kth_bit_pdep(m, k)
    return lambda m, k: kth_of_six_table(m, k)


# ---- which select: timed once per machine -------------------------------------------------------

@jit
def _time_select(masks, ks, pdep):
    """The sum of kth_bit over the words (each select depends on the last: latency, as in a turn)."""
    acc = np.int64(0)
    for i in range(masks.shape[0]):
        m = masks[i] ^ (acc & 1)
        if pdep:
            acc += kth_bit_pdep(m, ks[i])
        else:
            acc += kth_bit_broadword(m, ks[i])
    return acc


def _cpu_key() -> str:
    return f"{_llvm.get_host_cpu_name()}:{_llvm.get_host_cpu_features().flatten()}"


def probe_selects(n: int = 400_000, repeats: int = 5) -> dict:
    """ns a select of each kind on this CPU (min of interleaved repetitions); the same answers checked."""
    rng = np.random.default_rng(7)
    masks = rng.integers(1, 2**62, n, dtype=np.int64) | (np.int64(1) << 62)
    ks = rng.integers(0, 20, n, dtype=np.int64)
    best = {"pdep": float("inf"), "broadword": float("inf")}
    got = {kind: _time_select(masks[:1000], ks[:1000], kind == "pdep") for kind in SELECTS}
    if got["pdep"] != got["broadword"]:
        raise AssertionError(f"the two selects disagree: {got}")
    for _ in range(repeats):
        for kind in SELECTS:
            t = time.perf_counter()
            _time_select(masks, ks, kind == "pdep")
            best[kind] = min(best[kind], (time.perf_counter() - t) / n * 1e9)
    return best


def select_kind() -> str:
    """'pdep' or 'broadword', the select ``kth_bit`` compiles to: LOSTCARDS_SELECT when set, broadword
    without BMI2, else the faster by a timing probe run once per machine (kept in the numba cache
    folder as select.json, with its times)."""
    want = os.environ.get("LOSTCARDS_SELECT", "")
    if want:
        if want not in SELECTS:
            raise BadArgument(f"LOSTCARDS_SELECT={want!r} is not allowed: one of {', '.join(SELECTS)}")
        return want
    if not HAS_PDEP:
        return "broadword"
    path = cache_folder() / "select.json"
    try:
        known = json.loads(path.read_text())
    except (OSError, ValueError):
        known = {}
    hit = known.get(_cpu_key())
    if hit is None:
        ns = probe_selects()
        hit = {"select": min(ns, key=ns.get), "ns": ns}
        known[_cpu_key()] = hit
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_suffix(f".{os.getpid()}.tmp")
            tmp.write_text(json.dumps(known, indent=1))
            os.replace(tmp, path)
        except OSError:
            pass
    return hit["select"]


def select_probe() -> dict | None:
    """The probe's record for this CPU (its choice and ns a select of each kind), None if not run here."""
    try:
        return json.loads((cache_folder() / "select.json").read_text()).get(_cpu_key())
    except (OSError, ValueError):
        return None


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
