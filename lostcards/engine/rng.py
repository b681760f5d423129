"""Counter-based random streams: one per (seed, round, purpose), never a global generator.

A round's stream depends on (seed, round index, stream id) alone, so a result
never depends on how many threads or processes played it.  Stream 0 deals the
cards; stream ``1 + seat`` is handed to that seat's policy.  The generator is
xoshiro256** seeded through splitmix64; bounded integers use Lemire's method
on the high 32 bits, with rejection, so they are exactly uniform.  The numba
functions here have a plain-Python twin (class ``Stream``) used by the
reference engine; tests hold them equal.
"""
from __future__ import annotations

import numpy as np
from numba import njit

M64 = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15
STREAM_DEAL = 0


def _mix(x: int) -> int:
    """splitmix64's finaliser applied to x + golden ratio."""
    z = (x + GOLDEN) & M64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
    return z ^ (z >> 31)


def stream_state(seed: int, round_index: int, stream: int) -> list[int]:
    """The four xoshiro256** words of one stream."""
    key = _mix(_mix(_mix(seed & M64) ^ (round_index & M64)) ^ (stream & M64))
    out = []
    for _ in range(4):
        key = (key + GOLDEN) & M64
        out.append(_mix(key))
    return out


class Stream:
    """Plain-Python xoshiro256** stream, the twin of the numba functions below."""

    __slots__ = ("s",)

    def __init__(self, seed: int, round_index: int, stream: int):
        self.s = stream_state(seed, round_index, stream)

    def next64(self) -> int:
        s = self.s
        result = (((s[1] * 5) & M64) << 7 | ((s[1] * 5) & M64) >> 57) & M64
        result = (result * 9) & M64
        t = (s[1] << 17) & M64
        s[2] ^= s[0]
        s[3] ^= s[1]
        s[1] ^= s[2]
        s[0] ^= s[3]
        s[2] ^= t
        s[3] = ((s[3] << 45) | (s[3] >> 19)) & M64
        return result

    def below(self, n: int) -> int:
        """A uniform integer in [0, n), n >= 1 (Lemire, exact)."""
        m = (self.next64() >> 32) * n
        low = m & 0xFFFFFFFF
        if low < n:
            t = ((1 << 32) - n) % n
            while low < t:
                m = (self.next64() >> 32) * n
                low = m & 0xFFFFFFFF
        return m >> 32


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
