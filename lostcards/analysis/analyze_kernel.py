"""The numba half of ``analyze``: every candidate move on the same determinizations, played out.

``margins(obs, moves, k, seed, stream, disc0, disc1, decide, params, out)`` deals ``k``
determinizations of the hidden cards consistent with the seat's observation
(``engine.determinize``: a uniform shuffle of what the seat cannot see), then,
for each candidate move, applies it to every one of them and plays the round
out with one policy for every seat, through that policy's compiled decider (the
batch loop's own first-class function: nothing of the policy is compiled here).
``out[j, i]`` is the seat's side margin after move j on determinization i (its
score in solitaire), NaN when the move is not legal.  The same determinizations
and the same policy streams serve every move: the differences between moves are
paired (common random numbers).
"""
from __future__ import annotations

import numpy as np
from numba import types

from lostcards.engine.bits import alive, offset, ptr
from lostcards.engine.core import ended, side_score, step
from lostcards.engine.determinize import POOL_MAX, base_from_obs, hidden_pool, needs, sample
from lostcards.engine.layout import M_RNG, MAX_TURNS, MEM_WORDS, SLOT_MEM_WORDS, STATE_WORDS
from lostcards.engine.observation import deck_size, players, seat
from lostcards.engine.policy import OBS_TYPE, DecideType, PolicyType
from lostcards.engine.rng import seed_stream
from lostcards.numba_cache import jit

MARGINS_SIG = types.void(OBS_TYPE, types.int64[::1], types.int64, types.int64, types.int64, types.int64,
                  types.int64, DecideType, types.float64[::1], types.float64[:, ::1])


@jit(nogil=True)
def margins(obs, moves, k, seed, stream, disc0, disc1, decide, params, out):
    """out[j, i]: the side margin of move j played out from determinization i (module docstring)."""
    me = seat(obs)
    p = players(obs)
    n_moves = moves.shape[0]
    base_a = np.zeros(STATE_WORDS, np.int64)
    dets_a = np.zeros(k * STATE_WORDS, np.int64)
    used_a = np.zeros(2, np.int64)
    need_a = np.zeros(4, np.int64)
    pool_a = np.zeros(POOL_MAX, np.int64)
    rng_a = np.zeros(4, np.uint64)
    n = n_moves * k
    states_a = np.zeros(max(n, 1) * STATE_WORDS, np.int64)
    mems_a = np.zeros(max(n, 1) * SLOT_MEM_WORDS, np.uint64)
    slots_a = np.zeros(max(n, 1), np.int64)
    chosen_a = np.zeros(max(n, 1), np.int64)
    base = ptr(base_a)
    dets = ptr(dets_a)
    used = ptr(used_a)
    need = ptr(need_a)
    pool = ptr(pool_a)
    rng = ptr(rng_a)
    states = ptr(states_a)
    mems = ptr(mems_a)
    slots = ptr(slots_a)
    chosen = ptr(chosen_a)
    pp = ptr(params)
    seed_stream(rng, seed, obs.turn, stream)
    base_from_obs(base, obs, used)
    n_pool = hidden_pool(obs, (disc0, disc1), used, pool)
    needs(obs, need)
    n_deck = deck_size(obs)
    for i in range(k):
        sample(offset(dets, i * STATE_WORDS), base, STATE_WORDS, pool, n_pool, need, n_deck, rng)
    for j in range(n_moves):
        for i in range(k):
            s = j * k + i
            st = offset(states, s * STATE_WORDS)
            d = offset(dets, i * STATE_WORDS)
            for w in range(STATE_WORDS):
                st[w] = d[w]
            mem = offset(mems, s * SLOT_MEM_WORDS)
            for q in range(p):             # the same policy streams on determinization i, whatever the move
                seed_stream(offset(mem, q * MEM_WORDS + M_RNG), seed, stream * 1_000_003 + i, 1 + q)
            if step(st, moves[j]) != 0:
                out[j, i] = np.nan
            else:
                out[j, i] = 0.0
    for _ in range(MAX_TURNS):
        n_list = 0
        for s in range(n):
            st = offset(states, s * STATE_WORDS)
            if out[s // k, s % k] == 0.0 and not ended(st):
                slots[n_list] = s
                n_list += 1
        if n_list == 0:
            break
        decide(states, mems, slots, n_list, pp, chosen)
        for t in range(n_list):
            s = slots[t]
            if step(offset(states, s * STATE_WORDS), chosen[s]) != 0:
                out[s // k, s % k] = np.inf        # the play-out policy made an illegal move (a bug)
    sd = me & 1
    for s in range(n):
        j = s // k
        i = s % k
        if out[j, i] == 0.0:
            st = offset(states, s * STATE_WORDS)
            if not ended(st):
                out[j, i] = np.inf
            elif p == 1:
                out[j, i] = side_score(st, 0)
            else:
                out[j, i] = side_score(st, sd) - side_score(st, sd ^ 1)
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
