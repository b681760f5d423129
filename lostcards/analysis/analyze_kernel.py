"""The numba half of ``analyze``: every candidate move on the same determinizations, played out.

``margins(obs, moves, k, seed, stream, disc0, disc1, decide_at, params, out)`` deals ``k``
determinizations of the hidden cards consistent with the seat's observation
and plays every candidate move out from each of them with one policy for every
seat, through that policy's compiled decider, called at its address
(``engine.intrinsics.decide_address``: nothing of the policy is compiled here).
``out[j, i]`` is the seat's side margin after move j on determinization i (its
score in solitaire), NaN when the move is not legal.  The same determinizations
and the same policy streams serve every move: the differences between moves are
paired (common random numbers).  The play-outs are ``engine.playouts``, the same
code the ``improve`` bot runs on its own determinizations.
"""
from __future__ import annotations

import numpy as np
from numba import types

from lostcards.engine.determinize import POOL_MAX
from lostcards.engine.intrinsics import alive, call_policy_at, offset, ptr, stack_words
from lostcards.engine.layout import M_RNG, MEM_WORDS, OBS_FIELDS, SLOT_MEM_WORDS, STATE_WORDS
from lostcards.engine.observation import seat
from lostcards.engine.playouts import deal_determinizations, play_outs
from lostcards.engine.policy import OBS_TYPE
from lostcards.engine.rng import seed_stream
from lostcards.numba_cache import jit

MARGINS_SIG = types.void(OBS_TYPE, types.int64[::1], types.int64, types.int64, types.int64, types.int64,
                  types.int64, types.int64, types.float64[::1], types.float64[:, ::1])


@jit(nogil=True)
def margins(obs, moves, k, seed, stream, disc0, disc1, decide_at, params, out):
    """out[j, i]: the side margin of move j played out from determinization i (module docstring)."""
    n_moves = moves.shape[0]
    base_a = np.zeros(STATE_WORDS, np.int64)
    dets_a = np.zeros(k * STATE_WORDS, np.int64)
    used_a = np.zeros(2, np.int64)
    need_a = np.zeros(4, np.int64)
    pool_a = np.zeros(POOL_MAX, np.int64)
    rng_a = np.zeros(4, np.uint64)
    st_a = np.zeros(STATE_WORDS, np.int64)
    mem_a = np.zeros(SLOT_MEM_WORDS, np.uint64)
    one_a = np.zeros(2, np.int64)
    rng = ptr(rng_a)
    seed_stream(rng, seed, obs.turn, stream)
    deal_determinizations(ptr(dets_a), k, obs, disc0, disc1, ptr(base_a), ptr(used_a), ptr(need_a),
                          ptr(pool_a), rng)
    play_outs(obs, ptr(dets_a), k, ptr(moves), n_moves, ptr(st_a), ptr(mem_a), ptr(one_a), ptr(out),
              seed, stream, decide_at, ptr(params))
    alive(base_a)
    alive(dets_a)
    alive(used_a)
    alive(need_a)
    alive(pool_a)
    alive(rng_a)
    alive(st_a)
    alive(mem_a)
    alive(one_a)
    alive(moves)
    alive(out)
    alive(params)


CHOOSE_SIG = types.int64(types.int64, OBS_TYPE, types.float64[::1], types.int64, types.int64)


@jit(nogil=True)
def choose(policy_at, obs, params, seed, turn):
    """The move of the policy at `policy_at` (``intrinsics.policy_address``) from `obs`, its stream
    seeded from (seed, turn), scratch words zero."""
    mem_a = np.zeros(MEM_WORDS, np.uint64)
    mem = ptr(mem_a)
    seed_stream(offset(mem, M_RNG), seed, turn, 1 + seat(obs))
    words = stack_words(OBS_FIELDS)
    for i in range(OBS_FIELDS):
        words[i] = obs[i]
    m = call_policy_at(policy_at, words, ptr(params), mem)
    alive(mem_a)
    alive(params)
    return m
