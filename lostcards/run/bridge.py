"""A numba policy playing on the reference engine: mixed rounds (a numba bot beside a plain-Python one).

The reference engine calls a policy as ``policy(observation, stream)``.
``bridged(policy)`` makes that callable of a numba policy: it converts the
reference ``Observation`` to the engine's ``Obs`` (``engine.convert``, which
the tests hold equal to what the engine itself hands the seat), calls the
policy's kernel with its parameters and the seat's memory, and converts the
move back (``engine.moves.to_reference``).

The seat's memory is exactly what the batch loop gives it: words 0-3 are the
seat's random stream (seed, round, 1 + seat), words 4.. scratch words that are
zero when the round is dealt and kept across the seat's turns.  The reference
engine hands each seat its own ``Stream`` of that same (seed, round, 1 + seat),
so the stream's words are copied into the memory before each call and back
after it, and the scratch words are kept per stream (one stream per seat and
round).  A numba policy therefore makes the same moves, from the same random
numbers, in a reference-engine round as in the engine: tests/test_mixed.py
plays every registered numba policy both ways and compares the rounds move by
move.
"""
from __future__ import annotations

from collections import OrderedDict

import numpy as np
from numba import types

from lostcards.engine.intrinsics import alive, call_policy_at, policy_address, ptr, stack_words
from lostcards.engine.layout import M_RNG, MEM_WORDS, OBS_FIELDS
from lostcards.engine.policy import OBS_TYPE, POLICY_SIG
from lostcards.numba_cache import jit

STEP_SIG = types.int64(types.int64, OBS_TYPE, types.float64[::1], types.uint64[::1])

_M64 = (1 << 64) - 1


@jit(nogil=True)
def step(policy_at, obs, params, mem):
    """The move of the policy at `policy_at` (``intrinsics.policy_address``) from `obs` with its
    parameters and its seat's memory (kept by the caller)."""
    words = stack_words(OBS_FIELDS)
    for i in range(OBS_FIELDS):
        words[i] = obs[i]
    m = call_policy_at(policy_at, words, ptr(params), ptr(mem))
    alive(params)
    alive(mem)
    return m


def entries(policies, about=None) -> list:
    """What the bridge needs compiled, for ``numba_cache.compile_all``: the step function and each
    numba policy's kernel as a function of its own (the engine inlines it into its decider instead);
    `about`: a first guess of each policy's seconds to compile, by name."""
    from lostcards.numba_cache import Entry
    about = about or {}
    out = [Entry(step, STEP_SIG, "the bridge to the reference engine", 5.0)]
    seen = set()
    for p in policies:
        if p.kernel is not None and id(p.kernel) not in seen:
            seen.add(id(p.kernel))
            out.append(Entry(p.kernel, POLICY_SIG, f"the {p.name} policy (bridged)", about.get(p.name, 10.0)))
    return out


def prepare(policies, about=None) -> float:
    """Compile (or load) what the numba policies among `policies` need to play on the reference engine."""
    from lostcards.numba_cache import compile_all
    numba_ones = [p for p in policies if p.kernel is not None]
    return compile_all(entries(numba_ones, about)) if numba_ones else 0.0


class Bridged:
    """A numba ``Policy`` as a reference-engine policy ``(observation, stream) -> Play | Pass``."""

    KEEP = 64          # seat memories kept (a round has at most 4 seats; rounds play one after another)

    def __init__(self, policy):
        if policy.kernel is None:
            raise ValueError(f"policy {policy.spec!r} is not a numba policy")
        self.policy = policy
        self.kernel = policy.kernel
        self.params = np.ascontiguousarray(policy.params, np.float64)
        self._mems: OrderedDict = OrderedDict()      # id(stream) -> (stream, memory)
        self._at = None          # the policy's address (intrinsics.policy_address), made on first use

    def memory(self, stream) -> np.ndarray:
        """The seat memory that goes with `stream`: scratch words zero at the stream's first call."""
        key = id(stream)
        hit = self._mems.get(key)
        if hit is not None and hit[0] is stream:
            self._mems.move_to_end(key)
            return hit[1]
        mem = np.zeros(MEM_WORDS, np.uint64)
        self._mems[key] = (stream, mem)        # the stream is held, so its id is not reused meanwhile
        while len(self._mems) > self.KEEP:
            self._mems.popitem(last=False)
        return mem

    def __call__(self, observation, stream):
        from lostcards.engine.convert import from_observation
        from lostcards.engine.moves import to_reference
        from lostcards.run.threads import call
        mem = self.memory(stream)
        s = stream.s
        mem[M_RNG:M_RNG + 4] = np.array(s, np.uint64)
        if self._at is None:
            self._at = policy_address(self.kernel)
        # on a thread of its own (step releases the GIL): a Ctrl-C during a long decision is honoured at once
        m = call(step, self._at, from_observation(observation), self.params, mem)
        s[:] = [int(w) & _M64 for w in mem[M_RNG:M_RNG + 4]]
        return to_reference(int(m), observation.players)

    def __repr__(self):
        return f"Bridged({self.policy.spec!r})"


def python_policy(policy):
    """The reference-engine function of `policy`: its plain-Python version, else its numba kernel bridged."""
    from lostcards.policies import guarded
    if policy.python is not None:
        return guarded(policy)
    return Bridged(policy)

