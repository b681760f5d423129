"""The random streams in numba: xoshiro256** of (seed, round, stream), as ``lostcards.rng`` defines.

``seed_stream`` fills a stream's four words from (seed, round index, stream id)
through splitmix64; ``next64`` steps it; ``below(s, n)`` is a uniform integer
in [0, n) by Lemire's method on the high 32 bits, with rejection, so it is
exactly uniform.  ``s`` is a raw pointer to the four words (a seat's memory).
The plain-Python ``rng.Stream`` is the definition; tests hold the two equal.
Everything is inlined, the rare rejection loop too, so a policy's stream stays
in registers between its draws.
"""
from __future__ import annotations

import numpy as np

from lostcards.numba_cache import jit
from lostcards.rules.streams import GOLDEN

_U = np.uint64


@jit(inline=True)
def _mix(x):
    z = x + _U(GOLDEN)
    z = (z ^ (z >> _U(30))) * _U(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> _U(27))) * _U(0x94D049BB133111EB)
    return z ^ (z >> _U(31))


@jit(inline=True)
def seed_stream(state, seed, round_index, stream):
    """Fill `state` (four uint64) with the stream of (seed, round_index, stream)."""
    key = _mix(_mix(_mix(_U(seed)) ^ _U(round_index)) ^ _U(stream))
    for i in range(4):
        key = key + _U(GOLDEN)
        state[i] = _mix(key)


@jit(inline=True)
def next64(s):
    """The next 64-bit output of the xoshiro256** stream `s`."""
    r, s[0], s[1], s[2], s[3] = next_held(s[0], s[1], s[2], s[3])
    return r


@jit(inline=True)
def next_held(s0, s1, s2, s3):
    """next64 on a stream held in four values: (the output, the stream's four words after it)."""
    r = s1 * _U(5)
    r = ((r << _U(7)) | (r >> _U(57))) * _U(9)
    t = s1 << _U(17)
    s2 ^= s0
    s3 ^= s1
    s1 ^= s2
    s0 ^= s3
    s2 ^= t
    return r, s0, s1, s2, (s3 << _U(45)) | (s3 >> _U(19))


@jit(inline=True)
def below_held(n, s0, s1, s2, s3):
    """below() on a stream held in four values (a policy that draws several numbers a turn
    loads its stream once and stores it once): (the number, the stream's four words after it)."""
    un = _U(n)
    x, s0, s1, s2, s3 = next_held(s0, s1, s2, s3)
    m = (x >> _U(32)) * un
    low = m & _U(0xFFFFFFFF)
    if low < un:
        t = (_U(4294967296) - un) % un
        while low < t:
            x, s0, s1, s2, s3 = next_held(s0, s1, s2, s3)
            m = (x >> _U(32)) * un
            low = m & _U(0xFFFFFFFF)
    return np.int64(m >> _U(32)), s0, s1, s2, s3


@jit(inline=True)
def below(s, n):
    """A uniform integer in [0, n), n >= 1 (Lemire, exact), as int64."""
    un = _U(n)
    m = (next64(s) >> _U(32)) * un
    low = m & _U(0xFFFFFFFF)
    if low < un:
        t = (_U(4294967296) - un) % un
        while low < t:
            m = (next64(s) >> _U(32)) * un
            low = m & _U(0xFFFFFFFF)
    return np.int64(m >> _U(32))


@jit(inline=True)
def gumbel(s, temp):
    """temp x a Gumbel(0, 1) draw from stream `s` (0 when temp is 0: the argmax): added to each
    option's score, the best then is a softmax(score / temp) sample."""
    if temp <= 0.0:
        return 0.0
    u = (below(s, 1 << 30) + 0.5) / 1073741824.0
    return -temp * np.log(-np.log(u))


@jit(inline=True)
def takes_lead(v, best, ties, s):
    """Whether an option scoring `v` takes the lead from `best`; equal scores share it at random from
    stream `s` (no option is favoured by its order).  Returns (takes it, the new tie count)."""
    if v > best:
        return True, 1
    if v == best:
        ties += 1
        return below(s, ties) == 0, ties
    return False, ties

