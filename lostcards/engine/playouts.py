"""Determinized play-outs: the one play-out toolkit of search, improve, learned-mc and analyze.

- ``determinization_base`` builds, once a decision, what every determinization
  of one seat's observation shares (the known part of the state, the pool of
  cards the seat cannot see, how many each place needs); ``engine.determinize.sample``
  then deals one uniform shuffle of the pool from it.
- ``deal_determinizations`` deals ``k`` of them into ``dets``, one state block each.
- ``play_outs`` applies each of ``n_moves`` candidate moves to every one of
  them and plays the round out with one policy for every seat, through that
  policy's decider (``engine.policy``), called at its address
  (``intrinsics.decide_address``: one compiled play-out serves every policy);
  ``out[j * k + i]`` is the seat's ``side_margin`` after move j on
  determinization i, NaN when the move is not legal there, +inf when the
  play-out broke the rules (a bug of the play-out policy); ``play_outs_on``
  plays a range of the determinizations only (a race's stage,
  ``engine.improvement.raced``), and with ``luck`` != 0 takes that many times
  the luck of the play-out's deck draws off each margin (``engine.luck``;
  ``play_to_end_lucky``).
- ``play_to_end`` plays one state out with a rule on the full state (search's
  play-out rule); ``side_margin`` is what a seat gets from an ended round: its
  side's score less the other side's (its score in solitaire).
- ``margins`` and ``choose`` are the entry points Python calls (``lostcards analyze``, the
  web hint, the compile report): every candidate on shared determinizations, and one
  policy's move from an observation, the policy called at its address.

Common random numbers: determinization i gets the same policy streams
``(seed, stream * 1_000_003 + i, 1 + seat)`` whatever the move, and every seat's
scratch words start at zero, so the differences between two moves on one
determinization are paired.  Every buffer is the caller's (a raw pointer): the
analysis hands heap arrays, the bots stack buffers, and nothing here allocates.
"""
from __future__ import annotations

import numpy as np
from numba import types

from lostcards.engine.apply import step
from lostcards.engine.core import ended, side_score
from lostcards.engine.determinize import POOL_MAX, base_from_obs, hidden_pool, needs, sample
from lostcards.engine.intrinsics import alive, call_decide_at, call_policy_at, offset, ptr, stack_words
from lostcards.engine.layout import (
    M_RNG,
    MAX_TURNS,
    MEM_WORDS,
    OBS_FIELDS,
    S_SEAT,
    S_TURN,
    SLOT_MEM_WORDS,
    STATE_WORDS,
)
from lostcards.engine.luck import deck_cards, lucky_step
from lostcards.engine.observation import deck_size, players, seat
from lostcards.engine.policy import OBS_TYPE
from lostcards.engine.rng import seed_stream
from lostcards.numba_cache import jit

STREAM_STRIDE = 1_000_003
NEVER = np.int64(1) << np.int64(62)      # a turn no round reaches: the seat's side by its own decider throughout


@jit(inline=True)
def side_margin(st, me, p):
    """Seat `me`'s side's score less the other side's in the ended round `st` (solitaire: the score)."""
    if p == 1:
        return np.float64(side_score(st, 0))
    sd = me & 1
    return np.float64(side_score(st, sd) - side_score(st, sd ^ 1))


@jit(inline=True)
def determinization_base(obs, disc, base, used, need, pool):
    """What every determinization of `obs` shares, for ``sample``: the known state into `base` (a
    state block), the hidden cards into `pool` (``POOL_MAX``; their count is returned), how many
    each hidden place needs into `need` (4); `disc`: solitaire discards (they left the game), else
    (0, 0); `used`: 2 words of scratch."""
    base_from_obs(base, obs, used)
    n_pool = hidden_pool(obs, disc, used, pool)
    needs(obs, need)
    return n_pool


@jit(inline=True)
def deal_determinizations(dets, k, obs, disc0, disc1, base, used, need, pool, rng):
    """`k` determinizations of what the seat of `obs` cannot see into `dets` (k state blocks),
    shuffled with `rng`; `disc0`, `disc1`: solitaire discards (they left the game), else 0.
    Scratch: `base` (a state block), `used` (2 words), `need` (4), `pool` (``POOL_MAX``)."""
    n_pool = determinization_base(obs, (disc0, disc1), base, used, need, pool)
    n_deck = deck_size(obs)
    for i in range(k):
        sample(offset(dets, i * STATE_WORDS), base, STATE_WORDS, pool, n_pool, need, n_deck, rng)


@jit(inline=True, cache=False)      # takes a function: cached inside its callers (numba_cache.jit)
def play_to_end(st, rule, ctx):
    """Play state `st` to the end of its round, every seat moving by ``rule(st, ctx)``: the one
    play-out loop.  False if a move was refused (a bug of the rule) or the round ran past
    ``MAX_TURNS``."""
    for _ in range(MAX_TURNS):
        if ended(st):
            return True
        if step(st, rule(st, ctx)) != 0:
            return False
    return ended(st)


@jit(inline=True, cache=False)      # takes a function: cached inside its callers (numba_cache.jit)
def play_to_end_lucky(st, rule, ctx, me, d):
    """``play_to_end``, also returning the summed luck of the deck draws for seat `me`'s side
    (``engine.luck``; `d`: the deck's cards, ``luck.deck_cards``)."""
    total = 0.0
    for _ in range(MAX_TURNS):
        if ended(st):
            return True, total
        rc, lk = lucky_step(st, rule(st, ctx), me, d)
        total += lk
        if rc != 0:
            return False, total
    return ended(st), total


@jit(inline=True)
def decided_at(st, ctx):
    """The move for the seat to move in `st` of the decider at ``ctx[0]`` (``intrinsics.decide_address``)
    on side ``ctx[6]`` before turn ``ctx[7]``, else of the one at ``ctx[4]``: ctx = (address, the round's
    slot memory, params, 2 words of scratch, the other side's address, its params, the side, the turn
    from which the side too moves by the other side's decider; ``NEVER``: never)."""
    decide_at, mem, params, one, other_at, oparams, sd, until = ctx
    one[0] = 0                                  # the slot list: state 0 of `st`
    if (st[S_SEAT] & 1) == sd and st[S_TURN] < until:
        call_decide_at(decide_at, st, mem, one, 1, params, offset(one, 1))
    else:
        call_decide_at(other_at, st, mem, one, 1, oparams, offset(one, 1))
    return one[1]


@jit
def play_outs(obs, dets, k, moves, n_moves, st, mem, one, out, seed, stream, decide_at, params):
    """out[j * k + i]: the side margin of moves[j] played out from determinization i by the decider
    at `decide_at` (``intrinsics.decide_address``) with `params` for every seat (module
    docstring).  Room: `st` a state block, `mem` a slot memory (``SLOT_MEM_WORDS``), `one` 2 words."""
    play_outs_on(obs, dets, 0, k, k, moves, n_moves, st, mem, one, out, seed, stream, decide_at, params, 0.0,
                 decide_at, params, 0)


@jit
def play_outs_on(obs, dets, i0, i1, stride, moves, n_moves, st, mem, one, out, seed, stream, decide_at, params,
                 luck, other_at, oparams, depth):
    """``play_outs`` on determinizations i0..i1-1 only, into out[j * stride + i] (a race plays a
    stage of them at a time): determinization i gets the same streams whatever the range.  With
    `luck` != 0 each margin less `luck` times the luck of the play-out's deck draws (``engine.luck``,
    the candidate's own draw included).  The other side's seats move by the decider at `other_at`
    with `oparams` (the same as `decide_at` and `params` but for improve's ``others``); with `depth` > 0
    so do the seat's own side's after `depth` turns of the play-out (the candidate's move not counted)."""
    me = seat(obs)
    p = players(obs)
    until = np.int64(obs.turn) + 1 + depth if depth > 0 else NEVER
    ctx = (decide_at, mem, params, one, other_at, oparams, me & 1, until)
    deck = stack_words(4)          # the deck's cards, for the luck (a play-out's own)
    for j in range(n_moves):
        for i in range(i0, i1):
            s = j * stride + i
            d = offset(dets, i * STATE_WORDS)
            for w in range(STATE_WORDS):
                st[w] = d[w]
            for w in range(SLOT_MEM_WORDS):
                mem[w] = np.uint64(0)
            for q in range(p):         # the same policy streams on determinization i, whatever the move
                seed_stream(offset(mem, q * MEM_WORDS + M_RNG), seed, stream * STREAM_STRIDE + i, 1 + q)
            if luck != 0.0:
                deck_cards(st, deck)
                rc, lk = lucky_step(st, moves[j], me, deck)
                if rc != 0:
                    out[s] = np.nan
                    continue
                ok, rest = play_to_end_lucky(st, decided_at, ctx, me, deck)
                out[s] = side_margin(st, me, p) - luck * (lk + rest) if ok else np.inf
            elif step(st, moves[j]) != 0:
                out[s] = np.nan
            elif play_to_end(st, decided_at, ctx):
                out[s] = side_margin(st, me, p)
            else:
                out[s] = np.inf        # the play-out policy broke the rules (a bug)


MARGINS_SIG = types.void(OBS_TYPE, types.int64[::1], types.int64, types.int64, types.int64, types.int64,
                  types.int64, types.int64, types.float64[::1], types.float64[:, ::1])


@jit(nogil=True)
def margins(obs, moves, k, seed, stream, disc0, disc1, decide_at, params, out):
    """Every candidate move on the same `k` determinizations, played out (analyze and the hint call it from Python).

    ``out[j, i]`` is the side margin after move j on determinization i, NaN when j is not legal; the
    determinizations are dealt from (seed, obs.turn, stream) and shared by every move (paired)."""
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
