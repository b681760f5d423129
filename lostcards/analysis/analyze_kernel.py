"""The numba half of ``analyze``: every candidate move on the same determinizations, played out.

``margins(obs, moves, k, seed, stream, disc0, disc1, decide_at, params, out)`` deals ``k``
determinizations of the hidden cards consistent with the seat's observation
(``engine.determinize``: a uniform shuffle of what the seat cannot see), then,
for each candidate move, applies it to every one of them and plays the round
out with one policy for every seat, through that policy's compiled decider, called at
its address (``policies.improve.native.decide_address``: nothing of the policy is
compiled here).
``out[j, i]`` is the seat's side margin after move j on determinization i (its
score in solitaire), NaN when the move is not legal.  The same determinizations
and the same policy streams serve every move: the differences between moves are
paired (common random numbers).  The play-outs are ``policies.improve.playouts``, the
same code the ``improve`` bot runs on its own determinizations.
"""
from __future__ import annotations

import numpy as np
from numba import types

from lostcards.engine.bits import alive, offset, ptr
from lostcards.engine.determinize import POOL_MAX
from lostcards.engine.layout import M_RNG, MEM_WORDS, SLOT_MEM_WORDS, STATE_WORDS
from lostcards.engine.observation import seat
from lostcards.engine.policy import OBS_TYPE, PolicyType
from lostcards.engine.rng import seed_stream
from lostcards.numba_cache import jit
from lostcards.policies.improve.playouts import deal_determinizations, play_outs

MARGINS_SIG = types.void(OBS_TYPE, types.int64[::1], types.int64, types.int64, types.int64, types.int64,
                  types.int64, types.int64, types.float64[::1], types.float64[:, ::1])


@jit(nogil=True)
def margins(obs, moves, k, seed, stream, disc0, disc1, decide_at, params, out):
    """out[j, i]: the side margin of move j played out from determinization i (module docstring)."""
    n_moves = moves.shape[0]
    n = max(n_moves * k, 1)
    base_a = np.zeros(STATE_WORDS, np.int64)
    dets_a = np.zeros(k * STATE_WORDS, np.int64)
    used_a = np.zeros(2, np.int64)
    need_a = np.zeros(4, np.int64)
    pool_a = np.zeros(POOL_MAX, np.int64)
    rng_a = np.zeros(4, np.uint64)
    states_a = np.zeros(n * STATE_WORDS, np.int64)
    mems_a = np.zeros(n * SLOT_MEM_WORDS, np.uint64)
    slots_a = np.zeros(n, np.int64)
    chosen_a = np.zeros(n, np.int64)
    rng = ptr(rng_a)
    seed_stream(rng, seed, obs.turn, stream)
    deal_determinizations(ptr(dets_a), k, obs, disc0, disc1, ptr(base_a), ptr(used_a), ptr(need_a),
                          ptr(pool_a), rng)
    play_outs(obs, ptr(dets_a), k, ptr(moves), n_moves, ptr(states_a), ptr(mems_a), ptr(slots_a),
              ptr(chosen_a), ptr(out), seed, stream, decide_at, ptr(params))
    alive(base_a)
    alive(dets_a)
    alive(used_a)
    alive(need_a)
    alive(pool_a)
    alive(rng_a)
    alive(states_a)
    alive(mems_a)
    alive(slots_a)
    alive(chosen_a)
    alive(moves)
    alive(out)
    alive(params)


CHOOSE_SIG = types.int64(PolicyType, OBS_TYPE, types.float64[::1], types.int64, types.int64)


@jit(nogil=True)
def choose(policy, obs, params, seed, turn):
    """The move `policy` chooses from `obs`, its stream seeded from (seed, turn), scratch words zero."""
    mem_a = np.zeros(MEM_WORDS, np.uint64)
    mem = ptr(mem_a)
    seed_stream(offset(mem, M_RNG), seed, turn, 1 + seat(obs))
    m = policy(obs, ptr(params), mem)
    alive(mem_a)
    return m
