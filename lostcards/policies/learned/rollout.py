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

It is one configuration of the engine's improvement step (``engine.improvement``):
the blueprint's best actions as candidates, these play-outs, and the rule ``over_bar``.

Parameters: ``samples``, ``candidates`` and ``margin`` (above), then the blueprint's
(``temp`` and its weights).  Solitaire and a hand with one action left play
the blueprint's own move.
"""
import numpy as np

from lostcards.engine.apply import step
from lostcards.engine.core import observe_as
from lostcards.engine.determinize import POOL_MAX, sample
from lostcards.engine.improvement import improvement_step, over_bar
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


@jit(inline=True)
def _top_actions(obs, cand, inc, j0, ctx):
    """The blueprint's ``k`` best actions from ``cand[inc]`` on (its first choice, the incumbent,
    included), best first, each with the blueprint's draw (selection: there are few)."""
    bp, mem, cards, tos, scores, n, k, order = ctx[0], ctx[1], ctx[2], ctx[3], ctx[4], ctx[5], ctx[6], ctx[7]
    for j in range(k):
        b = -1
        for i in range(n):
            taken = False
            for q in range(j):
                if order[q] == i:
                    taken = True
            if not taken and (b < 0 or scores[i] > scores[b]):
                b = i
        order[j] = b
    for j in range(k):
        c = cards[order[j]]
        t = tos[order[j]]
        cand[inc + j] = make_play(c, t, best_draw(obs, bp, mem, c, t))
    return inc + k


@jit(inline=True)
def _blueprint_play_outs(obs, cand, inc, j0, n, ctx):
    """Every candidate's total margin over ``samples`` deals of the hidden cards, each deal common to
    every candidate and played out by the blueprint for every seat (one stream for the deals and
    the play-outs, continued from the seat's)."""
    bp, mem, cards, tos, scores = ctx[0], ctx[1], ctx[2], ctx[3], ctx[4]
    total, n_samples, rng = ctx[8], ctx[9], ctx[10]
    base = stack_words(STATE_WORDS)
    st = stack_words(STATE_WORDS)
    need = stack_words(4)
    pool = stack_words(POOL_MAX)
    used = stack_words(2)
    deal = stack_u64(4)
    for i in range(4):
        rng[i] = mem[i]                      # after the draws were chosen: the seat's stream goes on
    for j in range(j0, n):
        total[j] = 0.0
    n_pool = determinization_base(obs, (np.int64(0), np.int64(0)), base, used, need, pool)
    n_deck = deck_size(obs)
    me = seat(obs)
    p = players(obs)
    rule_ctx = (bp, rng, cards, tos, scores)
    for _ in range(n_samples):
        for i in range(4):
            deal[i] = rng[i]
        for j in range(j0, n):
            for i in range(4):
                rng[i] = deal[i]             # the same deal for every candidate
            sample(st, base, STATE_WORDS, pool, n_pool, need, n_deck, rng)
            if step(st, cand[j]) == 0:
                play_to_end(st, _blueprint_rule, rule_ctx)
                total[j] += side_margin(st, me, p)
            else:
                total[j] -= 1e9
    return n


@jit(inline=True)
def _margin_rule(inc, j0, n, ctx):
    """learned-mc's rule: ``over_bar``, the first choice's total plus ``margin`` points a deal."""
    total, n_samples, margin = ctx[8], ctx[9], ctx[11]
    return over_bar(total, inc, j0, n, total[inc] + margin * n_samples)


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
    order = stack_words(MAX_CANDIDATES)
    moves = stack_words(MAX_CANDIDATES)
    total = stack_floats(MAX_CANDIDATES)
    rng = stack_u64(4)
    ctx = (bp, mem, cards, tos, scores, n, min(k, n), order, total, n_samples, rng, params[K_MARGIN])
    best, _ = improvement_step(obs, moves, 0, 0, 0, _top_actions, _blueprint_play_outs, _margin_rule, ctx)
    for i in range(4):
        mem[i] = rng[i]
    return moves[best]
