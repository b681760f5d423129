"""Counter-based random streams for the numba engine: the twin of ``lostcards.rules.streams``.

Same generator, same seeding, same bounded integers (see that module); the
tests hold the two equal.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from lostcards.rules.streams import GOLDEN

# ---- numba twins --------------------------------------------------------------

_U = np.uint64


@njit(cache=True, inline="always")
def _mix_nb(x):
    z = x + _U(GOLDEN)
    z = (z ^ (z >> _U(30))) * _U(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> _U(27))) * _U(0x94D049BB133111EB)
    return z ^ (z >> _U(31))


@njit(cache=True)
def seed_stream(state, seed, round_index, stream):
    """Fill `state` (uint64[4]) with the stream of (seed, round_index, stream)."""
    key = _mix_nb(_mix_nb(_mix_nb(_U(seed)) ^ _U(round_index)) ^ _U(stream))
    for i in range(4):
        key = key + _U(GOLDEN)
        state[i] = _mix_nb(key)


@njit(cache=True, inline="always")
def next64(s):
    """The next 64-bit output of the xoshiro256** stream `s` (uint64[4])."""
    s1 = s[1]
    r = s1 * _U(5)
    r = (r << _U(7)) | (r >> _U(57))
    r = r * _U(9)
    t = s1 << _U(17)
    s[2] ^= s[0]
    s[3] ^= s[1]
    s[1] ^= s[2]
    s[0] ^= s[3]
    s[2] ^= t
    s[3] = (s[3] << _U(45)) | (s[3] >> _U(19))
    return r


@njit(cache=True)
def _below_slow(s, n, low):
    t = (_U(4294967296) - n) % n
    m = _U(0)
    while low < t:
        m = (next64(s) >> _U(32)) * n
        low = m & _U(0xFFFFFFFF)
    return m


@njit(cache=True, inline="always")
def below(s, n):
    """A uniform integer in [0, n), n >= 1 (Lemire, exact), as int64."""
    un = _U(n)
    m = (next64(s) >> _U(32)) * un
    low = m & _U(0xFFFFFFFF)
    if low < un:
        t = (_U(4294967296) - un) % un
        if low < t:
            m = _below_slow(s, un, low)
    return np.int64(m >> _U(32))
