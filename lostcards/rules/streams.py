"""Counter-based random streams, the plain-Python definition: one per (seed, round, purpose).

A round's stream depends on (seed, round index, stream id) alone, so a result
never depends on how many threads or processes played it.  Stream 0 deals the
cards; stream ``1 + seat`` is handed to that seat's policy.  The generator is
xoshiro256** seeded through splitmix64; bounded integers use Lemire's method
on the high 32 bits, with rejection, so they are exactly uniform.  The numba
engine has a twin (``lostcards.engine.rng``); tests hold them equal.
"""
from __future__ import annotations

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
    """Plain-Python xoshiro256** stream (the numba twin: ``lostcards.engine.rng``)."""

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
