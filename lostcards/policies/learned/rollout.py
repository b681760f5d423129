"""`learned-mc`: the learned blueprint improved on line by Monte Carlo play-outs of itself.

The blueprint's ``candidates`` best actions (each with the blueprint's draw)
are each tried on the same ``samples`` determinizations of the hidden cards
(dealt at random consistently with what the seat has seen, common to every
candidate), and each round is played out to its end by the blueprint for
every seat; the candidate with the highest mean margin is played.  This is
the rollout policy improvement of Tesauro and Galperin, "On-line Policy
Improvement using Monte-Carlo Search" (NIPS 1996), over determinized deals as
in perfect-information Monte Carlo (Ginsberg, "GIB", JAIR 2001).  Only the
blueprint's weights are used: no other policy plays a part.

Another candidate replaces the blueprint's first choice only when its mean
margin is higher by more than ``margin`` points (the play-outs are noisy, and
biased towards an opponent that plays like the blueprint).

Parameters: ``samples``, ``candidates`` and ``margin`` (above), then the blueprint's
(``temp`` and its weights).  Solitaire and a hand with one action left play
the blueprint's own move.
"""
import numpy as np

from lostcards.engine.apply import step
from lostcards.engine.core import observe_as
from lostcards.engine.determinize import POOL_MAX, sample
from lostcards.engine.intrinsics import offset, stack_floats, stack_u64, stack_words
from lostcards.engine.layout import R_SIMPLE, S_SEAT, STATE_WORDS
from lostcards.engine.moves import make_play
from lostcards.engine.observation import deck_size, players, seat
from lostcards.engine.playouts import determinization_base, play_to_end, side_margin
from lostcards.numba_cache import jit
from lostcards.policies.learned.blueprint import MAX_OPTIONS, action_scores, best_draw, blueprint_move

K_SAMPLES, K_CANDIDATES, K_MARGIN = 0, 1, 2
N_OWN = 3                     # the blueprint's parameters start here
MAX_CANDIDATES = 16


@jit(inline=True)
def _blueprint_rule(st, ctx):
    """The blueprint's move for the seat to move in `st` (every seat shares the stream in `ctx`)."""
    bp, rng, cards, tos, scores = ctx
    s = st[S_SEAT]
    if st[R_SIMPLE] != 0:
        return blueprint_move(observe_as(st, s, True), bp, rng, cards, tos, scores)
    return blueprint_move(observe_as(st, s, False), bp, rng, cards, tos, scores)


@jit
def learned_mc_policy(obs, params, mem):
    """The blueprint's best few actions, each scored by the mean margin of blueprint play-outs."""
    bp = offset(params, N_OWN)
    cards = stack_words(MAX_OPTIONS)
    tos = stack_words(MAX_OPTIONS)
    scores = stack_floats(MAX_OPTIONS)
    p = players(obs)
    n_samples = np.int64(params[K_SAMPLES])
    k = min(np.int64(params[K_CANDIDATES]), MAX_CANDIDATES)
    if p == 1 or n_samples <= 0 or k <= 1:
        return blueprint_move(obs, bp, mem, cards, tos, scores)
    n = action_scores(obs, bp, mem, cards, tos, scores)
    if n <= 1:
        return blueprint_move(obs, bp, mem, cards, tos, scores)
    # the k best actions, best first (selection: k and n are small)
    cand = stack_words(MAX_CANDIDATES)
    moves = stack_words(MAX_CANDIDATES)
    total = stack_floats(MAX_CANDIDATES)
    used = stack_words(2)
    k = min(k, n)
    for j in range(k):
        b = -1
        for i in range(n):
            taken = False
            for q in range(j):
                if cand[q] == i:
                    taken = True
            if not taken and (b < 0 or scores[i] > scores[b]):
                b = i
        cand[j] = b
    for j in range(k):
        c = cards[cand[j]]
        t = tos[cand[j]]
        moves[j] = make_play(c, t, best_draw(obs, bp, mem, c, t))
        total[j] = 0.0
    base = stack_words(STATE_WORDS)
    st = stack_words(STATE_WORDS)
    need = stack_words(4)
    pool = stack_words(POOL_MAX)
    rng = stack_u64(4)
    deal = stack_u64(4)
    for i in range(4):
        rng[i] = mem[i]
    n_pool = determinization_base(obs, (np.int64(0), np.int64(0)), base, used, need, pool)
    n_deck = deck_size(obs)
    me = seat(obs)
    ctx = (bp, rng, cards, tos, scores)
    for _ in range(n_samples):
        for i in range(4):
            deal[i] = rng[i]
        for j in range(k):
            for i in range(4):
                rng[i] = deal[i]             # the same deal for every candidate
            sample(st, base, STATE_WORDS, pool, n_pool, need, n_deck, rng)
            if step(st, moves[j]) == 0:
                play_to_end(st, _blueprint_rule, ctx)
                total[j] += side_margin(st, me, p)
            else:
                total[j] -= 1e9
    best = 0                                  # the blueprint's own first choice keeps its place
    bar = total[0] + params[K_MARGIN] * n_samples   # unless another beats it by `margin` points a deal
    for j in range(1, k):
        if total[j] > bar and total[j] > total[best]:
            best = j
    for i in range(4):
        mem[i] = rng[i]
    return moves[best]
