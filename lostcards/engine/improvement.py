"""The improvement step: an incumbent move kept unless a challenger beats it on play-outs.

``improve`` and ``learned-mc`` are configurations of ``improvement_step``, which is
generic over three parts, each a numba function passed in (inlined, so nothing is
called through a pointer):

- ``generate(obs, cand, inc, j0, ctx)`` writes the challengers to the incumbent
  ``cand[inc]`` into ``cand[j0:]`` (the incumbent too where ``j0 == inc``) and
  returns the end of the list;
- ``evaluate(obs, cand, j0, n, ctx)`` plays candidates ``j0..n-1`` out and keeps
  what ``accept`` reads in its own buffers (in ``ctx``); it returns the end of the
  candidates it scored (a time limit may stop it early);
- ``accept(inc, j0, n, ctx)`` returns the index of the move to play: the
  incumbent unless a challenger among ``j0..n-1`` clears the rule's bar.

Two acceptance rules are named here: ``paired_z`` (improve: the best mean
paired difference over shared determinizations must exceed ``z`` standard
errors) and ``over_bar`` (learned-mc: the best total must exceed the incumbent's
by a fixed margin).  The play-outs themselves are ``engine.playouts``.
"""
from __future__ import annotations

import math

from lostcards.numba_cache import jit

SE_FLOOR = 0.5                     # points: paired_z's standard error is at least SE_FLOOR / k (equal
                                   # differences on every determinization still need z of them)


@jit(inline=True, cache=False)      # takes functions: cached inside its callers (numba_cache.jit)
def improvement_step(obs, cand, inc, j0, scored, generate, evaluate, accept, ctx):
    """(the index of the move to play, the end of the candidate list): challengers to ``cand[inc]``
    generated into ``cand[j0:]``, candidates from ``scored`` on played out, the rule applied."""
    n = generate(obs, cand, inc, j0, ctx)
    done = evaluate(obs, cand, scored, n, ctx)
    return accept(inc, j0, done, ctx), n


@jit(inline=True)
def paired_z(vals, k, inc, j0, j1, z):
    """The candidate among j0..j1-1 of best mean paired difference to `inc`, if that mean exceeds
    z standard errors; else `inc`.  vals[j * k + i]: candidate j's margin on determinization i
    (a candidate with a non-finite margin is not legal there and is passed over)."""
    best = inc
    best_mean = 0.0
    best_se = 0.0
    for j in range(j0, j1):
        ok = True
        s1 = 0.0
        s2 = 0.0
        for i in range(k):
            v = vals[j * k + i]
            if not math.isfinite(v):
                ok = False
                break
            d = v - vals[inc * k + i]
            s1 += d
            s2 += d * d
        if not ok:
            continue
        mean = s1 / k
        var = (s2 - s1 * mean) / (k - 1)
        if mean > best_mean:
            best = j
            best_mean = mean
            best_se = max(math.sqrt(max(var, 0.0) / k), SE_FLOOR / k)
    if best != inc and best_mean > z * best_se:
        return best
    return inc


@jit(inline=True)
def over_bar(total, inc, j0, j1, bar):
    """The candidate among j0..j1-1 of highest total above `bar`, if any; else `inc`."""
    best = inc
    for j in range(j0, j1):
        if total[j] > bar and total[j] > total[best]:
            best = j
    return best
