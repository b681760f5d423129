"""The improvement step: an incumbent move kept unless a challenger beats it on play-outs.

``improve`` and ``learned-mc`` are configurations of ``improvement_step``, which is
generic over three parts, each a numba function passed in (inlined, so nothing is
called through a pointer):

- ``generate(obs, cand, inc, j0, ctx)`` writes the challengers to the incumbent
  ``cand[inc]`` into ``cand[j0:]`` (the incumbent too where ``j0 == inc``) and
  returns the end of the list;
- ``evaluate(obs, cand, inc, j0, n, ctx)`` plays candidates ``j0..n-1`` out (the
  incumbent among them, or played out before) and keeps what ``accept`` reads in
  its own buffers (in ``ctx``); it returns the end of the candidates it scored (a
  time limit may stop it early);
- ``accept(inc, j0, n, ctx)`` returns the index of the move to play: the
  incumbent unless a challenger among ``j0..n-1`` clears the rule's bar.

Two acceptance rules are named here: ``paired_z`` (improve: the best mean
paired difference over shared determinizations must exceed ``z`` standard
errors) and ``over_bar`` (learned-mc: the best total must exceed the incumbent's
by a fixed margin).  The play-outs themselves are ``engine.playouts``.

Racing (successive elimination, as in SPARTA): ``raced`` is an ``evaluate`` that
plays the candidates out a stage of ``RACE_BLOCK`` shared determinizations at a
time and, after each stage, drops every challenger that trails the leader (the
best mean so far, the incumbent included) by more than ``race`` standard errors
of their paired difference (``race_drop``); the incumbent is never dropped, and
the later stages go to the contenders only.  A dropped candidate's margins on
the determinizations it did not get are NaN, so ``paired_z`` passes it over and
judges the survivors on the determinizations they all got.  The leader, not the
incumbent, is the reference: the rule accepts only the best mean, so a
challenger clearly behind the leader can no longer be chosen, even one that
beats the incumbent.
"""
from __future__ import annotations

import math

import numpy as np

from lostcards.numba_cache import jit

SE_FLOOR = 0.5                     # points: paired_z's standard error is at least SE_FLOOR / k (equal
                                   # differences on every determinization still need z of them)
RACE_BLOCK = 16                    # determinizations a stage of a race


@jit(inline=True, cache=False)      # takes functions: cached inside its callers (numba_cache.jit)
def improvement_step(obs, cand, inc, j0, scored, generate, evaluate, accept, ctx):
    """(the index of the move to play, the end of the candidate list): challengers to ``cand[inc]``
    generated into ``cand[j0:]``, candidates from ``scored`` on played out, the rule applied."""
    n = generate(obs, cand, inc, j0, ctx)
    done = evaluate(obs, cand, inc, scored, n, ctx)
    return accept(inc, j0, done, ctx), n


@jit(inline=True)
def paired_z(vals, stride, k, inc, j0, j1, z):
    """The candidate among j0..j1-1 of best mean paired difference to `inc`, if that mean exceeds
    z standard errors; else `inc`.  vals[j * stride + i]: candidate j's margin on determinization
    i < k (a candidate with a non-finite margin is not legal there, or was dropped by a race, and
    is passed over)."""
    best = inc
    best_mean = 0.0
    best_se = 0.0
    for j in range(j0, j1):
        mean, se = paired_difference(vals, stride, k, j, inc)
        if mean > best_mean:                 # False for NaN: a candidate not finite is passed over
            best = j
            best_mean = mean
            best_se = se
    if best != inc and best_mean > z * best_se:
        return best
    return inc


@jit(inline=True)
def paired_difference(vals, stride, k, a, b):
    """(mean, standard error) of candidate a's margin less candidate b's over determinizations 0..k-1
    (the standard error at least SE_FLOOR / k); (NaN, NaN) if a difference is not finite."""
    s1 = 0.0
    s2 = 0.0
    for i in range(k):
        d = vals[a * stride + i] - vals[b * stride + i]
        if not math.isfinite(d):
            return np.nan, np.nan
        s1 += d
        s2 += d * d
    mean = s1 / k
    var = (s2 - s1 * mean) / (k - 1)
    return mean, max(math.sqrt(max(var, 0.0) / k), SE_FLOOR / k)


@jit(inline=True)
def _finite_mean(vals, stride, k, j):
    """Candidate j's mean margin on determinizations 0..k-1; NaN if one of them is not finite."""
    s = 0.0
    for i in range(k):
        v = vals[j * stride + i]
        if not math.isfinite(v):
            return np.nan
        s += v
    return s / k


@jit(inline=True)
def race_drop(vals, stride, k, inc, j0, j1, live, race):
    """One elimination of a race, after k determinizations: the leader is the candidate of best mean
    among `inc` and the live ones of j0..j1-1 (live[j] != 0; the first on a tie); every live
    challenger (not `inc`) with a non-finite margin, or whose paired mean difference to the leader
    trails by more than `race` standard errors (at least SE_FLOOR / k, as ``paired_z``), is dropped:
    live[j] = 0 and its margins from determinization k on NaN.  Returns the leader (-1: none)."""
    lead = -1
    lead_mean = 0.0
    m = _finite_mean(vals, stride, k, inc)
    if math.isfinite(m):
        lead = inc
        lead_mean = m
    for j in range(j0, j1):
        if j == inc or live[j] == 0:
            continue
        m = _finite_mean(vals, stride, k, j)
        if math.isfinite(m) and (lead < 0 or m > lead_mean):
            lead = j
            lead_mean = m
    for j in range(j0, j1):
        if j == inc or j == lead or live[j] == 0:
            continue
        drop = lead < 0
        if not drop:
            mean, se = paired_difference(vals, stride, k, lead, j)
            drop = not mean <= race * se            # trailing too far, or not finite
        if drop:
            live[j] = 0
            for i in range(k, stride):
                vals[j * stride + i] = np.nan
    return lead


@jit(inline=True, cache=False)      # takes functions: cached inside its callers (numba_cache.jit)
def raced(obs, cand, inc, j0, n, play, more, vals, stride, kd, live, race, ctx):
    """An ``evaluate`` that races candidates j0..n-1 (module docstring): stages of ``RACE_BLOCK``
    determinizations of the first kd[0], ``race_drop`` after each but the last.
    ``play(obs, cand, j, i0, i1, ctx)`` plays candidate j out on determinizations i0..i1-1 into
    vals[j * stride + i]; `inc` is among j0..n-1 or was played out on the first kd[0] before.
    ``more(ctx)``: whether time allows another stage (asked before every stage but a step's
    first that plays `inc` out).  On return kd[0] is the determinizations every survivor got;
    returns n, or j0 when no stage ran."""
    k = kd[0]
    for j in range(j0, n):
        live[j] = 1
    i0 = 0
    while i0 < k:
        if (i0 > 0 or inc < j0) and not more(ctx):
            break
        i1 = min(i0 + RACE_BLOCK, k)
        for j in range(j0, n):
            if live[j] != 0:
                play(obs, cand, j, i0, i1, ctx)
        i0 = i1
        if i0 < k:
            race_drop(vals, stride, i0, inc, j0, n, live, race)
    if i0 == 0:
        return j0
    kd[0] = i0
    return n


@jit(inline=True)
def over_bar(total, inc, j0, j1, bar):
    """The candidate among j0..j1-1 of highest total above `bar`, if any; else `inc`."""
    best = inc
    for j in range(j0, j1):
        if total[j] > bar and total[j] > total[best]:
            best = j
    return best
