"""Shared determinizations played out by one policy: the core of ``improve`` and of ``analyze``.

``deal_determinizations`` deals ``k`` determinizations of the hidden cards
consistent with one seat's observation (``engine.determinize``: a uniform
shuffle of what the seat cannot see) into ``dets``, one state block each.
``play_outs`` applies each of ``n_moves`` candidate moves to every one of them
and plays the round out with one policy for every seat, through that policy's
decider (``engine.policy``), called at its address (``native.decide_address``:
one compiled play-out serves every policy); ``out[j * k + i]`` is the seat's
side margin after move j on determinization i (its score in solitaire), NaN
when the move is not legal there, +inf when the play-out broke the rules (a
bug of the play-out policy).

Common random numbers: determinization i gets the same policy streams
``(seed, stream * 1_000_003 + i, 1 + seat)`` whatever the move, and every seat's
scratch words start at zero, so the differences between two moves on one
determinization are paired.  Every buffer is the caller's (a raw pointer): the
analysis hands heap arrays, the bot stack buffers, and nothing here allocates.
"""
from __future__ import annotations

import numpy as np

from lostcards.engine.apply import step
from lostcards.engine.bits import offset
from lostcards.engine.core import ended, side_score
from lostcards.engine.determinize import base_from_obs, hidden_pool, needs, sample
from lostcards.engine.layout import M_RNG, MEM_WORDS, SLOT_MEM_WORDS, STATE_WORDS
from lostcards.engine.observation import deck_size, players, seat
from lostcards.engine.rng import seed_stream
from lostcards.numba_cache import jit
from lostcards.policies.improve.native import call_decide_at

MAX_TURNS = 4000        # a play-out never runs longer (a guard; rounds end long before)
STREAM_STRIDE = 1_000_003


@jit(inline=True)
def deal_determinizations(dets, k, obs, disc0, disc1, base, used, need, pool, rng):
    """`k` determinizations of what the seat of `obs` cannot see into `dets` (k state blocks),
    shuffled with `rng`; `disc0`, `disc1`: solitaire discards (they left the game), else 0.
    Scratch: `base` (a state block), `used` (2 words), `need` (4), `pool` (``POOL_MAX``)."""
    base_from_obs(base, obs, used)
    n_pool = hidden_pool(obs, (disc0, disc1), used, pool)
    needs(obs, need)
    n_deck = deck_size(obs)
    for i in range(k):
        sample(offset(dets, i * STATE_WORDS), base, STATE_WORDS, pool, n_pool, need, n_deck, rng)


@jit(inline=True)
def _outcome(st, me, p):
    if p == 1:
        return np.float64(side_score(st, 0))
    sd = me & 1
    return np.float64(side_score(st, sd) - side_score(st, sd ^ 1))


@jit
def play_outs(obs, dets, k, moves, n_moves, states, mems, slots, chosen, out, seed, stream, decide_at, params):
    """out[j * k + i]: the side margin of moves[j] played out from determinization i by the decider
    at `decide_at` (``native.decide_address``)
    (with `params`) for every seat (module docstring).  Room: `states` n_moves * k state blocks,
    `mems` n_moves * k slot memories (``SLOT_MEM_WORDS``), `slots` and `chosen` n_moves * k words."""
    me = seat(obs)
    p = players(obs)
    n = n_moves * k
    for s in range(n):
        j = s // k
        i = s - j * k
        st = offset(states, s * STATE_WORDS)
        d = offset(dets, i * STATE_WORDS)
        for w in range(STATE_WORDS):
            st[w] = d[w]
        mem = offset(mems, s * SLOT_MEM_WORDS)
        for w in range(SLOT_MEM_WORDS):
            mem[w] = np.uint64(0)
        for q in range(p):             # the same policy streams on determinization i, whatever the move
            seed_stream(offset(mem, q * MEM_WORDS + M_RNG), seed, stream * STREAM_STRIDE + i, 1 + q)
        out[s] = np.nan if step(st, moves[j]) != 0 else 0.0
    for _ in range(MAX_TURNS):
        n_list = 0
        for s in range(n):
            if out[s] == 0.0 and not ended(offset(states, s * STATE_WORDS)):
                slots[n_list] = s
                n_list += 1
        if n_list == 0:
            break
        call_decide_at(decide_at, states, mems, slots, n_list, params, chosen)
        for t in range(n_list):
            s = slots[t]
            if step(offset(states, s * STATE_WORDS), chosen[s]) != 0:
                out[s] = np.inf            # the play-out policy made an illegal move (a bug)
    for s in range(n):
        if out[s] == 0.0:
            st = offset(states, s * STATE_WORDS)
            out[s] = _outcome(st, me, p) if ended(st) else np.inf
