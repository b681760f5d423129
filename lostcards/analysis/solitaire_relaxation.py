"""The solitaire bound on full-size deals: the inner maximisation relaxed by suit (``relaxed_bound``)."""
from __future__ import annotations

import numpy as np
from numba import typed, types

from lostcards.analysis.solitaire_value import (
    E_BITS,
    NIBBLE,
    closing_value,
    lay_card,
    live_mask,
    popcount60,
    suit_cnt,
    suit_k,
    suit_top,
    suit_value,
)
from lostcards.engine.layout import LANE
from lostcards.numba_cache import jit
from lostcards.rules.cards import SLOTS

# ---- the bound for full-size deals: the inner maximisation, relaxed by suit -------------------
#
# The exact inner maximisation above has too many states for a full deck.  Its suits interact
# only through the hand: while the draw pile lasts, exactly one card leaves the hand a turn.
# Pricing that constraint (a multiplier lam_t a turn) splits the problem into one small dynamic
# programme a suit (its own cards in hand, live and dead, its expedition, the turn):
#
#     g(lam) = sum_t lam_t + sum_suits max over the suit's plans of
#              (its points - its share of the penalties - sum_t lam_t * [it removes a card at t])
#
# and every lam gives g(lam) >= the inner maximum (Lagrangian relaxation: a plan of the real
# round is a plan of every suit with one removal a turn in all).  g is convex; a subgradient
# descent lowers it and the least value met is the deal's bound.


@jit
def suit_graph(cards, h, s, nsuits, unseen, T, alpha, beta, cost, bc, bp, lsum, lcnt):
    """One suit's plans as a layered graph: (state turn, arcs: source, target or -1, points less
    penalty (plus the closed-form rest where the target is -1), removal)."""
    sh = SLOTS * s                          # the suit's place in a card set
    esh = E_BITS * s                        # and in an E word
    lane0 = np.int64(0)
    for i in range(min(h, cards.shape[0])):
        if cards[i] // SLOTS == s:
            lane0 |= np.int64(1) << (cards[i] % SLOTS)
    index = typed.Dict.empty(types.int64, types.int64)
    cap = 256
    st = np.zeros(cap, np.int64)            # state: live lane | dead << 12 | E (one suit) << 16
    st_t = np.zeros(cap, np.int64)
    acap = 1024
    a_src = np.zeros(acap, np.int64)
    a_dst = np.zeros(acap, np.int64)
    a_val = np.zeros(acap, np.float64)
    a_rem = np.zeros(acap, np.int64)
    st[0] = lane0
    index[lane0] = 0
    size = 1
    na = 0
    i = 0
    while i < size:
        t = st_t[i]
        x = st[i]
        lane = x & LANE
        dead = (x >> 12) & NIBBLE
        e = (x >> 16) << esh                # the suit's expedition, in place in an E word
        w = cards[h + t]
        wmine = w // SLOTS == s
        n_opts = 1 + 2 * popcount60(lane) + (1 if dead > 0 else 0)
        for a in range(n_opts):
            rem = 0 if a == 0 else 1
            r = 0.0
            lane1 = lane
            dead1 = dead
            e1 = e
            if a > 0 and a <= 2 * popcount60(lane):
                rest = lane
                for _ in range((a - 1) // 2):
                    rest &= rest - 1
                b = rest & -rest
                c = 0
                while (b >> c) != 1:
                    c += 1
                lane1 = lane & ~b
                if (a - 1) % 2 == 0:        # lay it
                    e1, r = lay_card(e, s * SLOTS + c, cost, bc, bp)
                    keep = (live_mask(e1, nsuits) >> sh) & LANE
                    dead1 = dead + popcount60(lane1 & ~keep)
                    lane1 &= keep
            elif a > 0:
                dead1 = dead - 1
            z = 0.0
            if beta != 0.0:
                n_u = popcount60(unseen[t])
                q = alpha * (T - t - 1) / (n_u - 1) if n_u > 1 else 0.0
                ul = ((unseen[t] & live_mask(e1, nsuits)) >> sh) & LANE
                if ul != 0:
                    k = suit_k(e1, s)
                    top = suit_top(e1, s)
                    cnt = suit_cnt(e1, s)
                    base = suit_value(k, top, cnt, lane1, ul, q, cost, bc, bp, lsum, lcnt)
                    tot = 0.0
                    real = 0.0
                    rest = ul
                    while rest != 0:
                        b = rest & -rest
                        rest ^= b
                        d = suit_value(k, top, cnt, lane1 | b, ul & ~b, q, cost, bc, bp, lsum, lcnt) - base
                        tot += d
                        if wmine and b == (np.int64(1) << (w % SLOTS)):
                            real = d
                    z = beta * (real - tot / n_u)
            if wmine:
                if ((live_mask(e1, nsuits) >> sh) >> (w % SLOTS)) & 1:
                    lane1 |= np.int64(1) << (w % SLOTS)
                else:
                    dead1 += 1
            if na == acap:
                acap *= 2
                a_src2 = np.zeros(acap, np.int64)
                a_dst2 = np.zeros(acap, np.int64)
                a_val2 = np.zeros(acap, np.float64)
                a_rem2 = np.zeros(acap, np.int64)
                a_src2[:na] = a_src[:na]
                a_dst2[:na] = a_dst[:na]
                a_val2[:na] = a_val[:na]
                a_rem2[:na] = a_rem[:na]
                a_src = a_src2
                a_dst = a_dst2
                a_val = a_val2
                a_rem = a_rem2
            a_src[na] = i
            a_rem[na] = rem
            if t + 1 == T:
                a_dst[na] = -1
                a_val[na] = r - z + suit_value(suit_k(e1, s), suit_top(e1, s), suit_cnt(e1, s), lane1, np.int64(0), 0.0,
                                                cost, bc, bp, lsum, lcnt)
            else:
                key = lane1 | (dead1 << 12) | ((e1 >> esh) << 16) | (np.int64(t + 1) << 40)
                j = index.get(key, -1)
                if j < 0:
                    if size == cap:
                        cap *= 2
                        st2 = np.zeros(cap, np.int64)
                        st_t2 = np.zeros(cap, np.int64)
                        st2[:size] = st[:size]
                        st_t2[:size] = st_t[:size]
                        st = st2
                        st_t = st_t2
                    st[size] = lane1 | (dead1 << 12) | ((e1 >> esh) << 16)
                    st_t[size] = t + 1
                    index[key] = size
                    j = size
                    size += 1
                a_dst[na] = j
                a_val[na] = r - z
            na += 1
        i += 1
    return st_t[:size].copy(), a_src[:na].copy(), a_dst[:na].copy(), a_val[:na].copy(), a_rem[:na].copy()


@jit
def suit_best(st_t, a_src, a_dst, a_val, a_rem, lam, value, choice, removals):
    """The suit's best plan under prices lam: its value, and its removals added to `removals`.
    States are numbered in turn order and every arc goes to a later turn, so one backward sweep."""
    n = st_t.shape[0]
    for i in range(n):
        value[i] = -1e18
    for a in range(a_src.shape[0] - 1, -1, -1):
        i = a_src[a]
        v = a_val[a] - lam[st_t[i]] * a_rem[a] + (value[a_dst[a]] if a_dst[a] >= 0 else 0.0)
        if v > value[i]:
            value[i] = v
            choice[i] = a
    i = 0
    while i >= 0:
        a = choice[i]
        removals[st_t[i]] += a_rem[a]
        i = a_dst[a]
    return value[0]


@jit
def relaxed_bound(cards, h, nsuits, full, cost, bc, bp, alpha, beta, lsum, lcnt, steps, step0):
    """min over the subgradient iterates of g(lam) (module comment above); also g(0)."""
    n = cards.shape[0]
    T = n - h
    if T <= 0:
        hand = np.int64(0)
        for i in range(n):
            hand |= np.int64(1) << cards[i]
        v = closing_value(hand, np.int64(0), nsuits, cost, bc, bp, lsum, lcnt)
        return v, v
    unseen = np.zeros(T, np.int64)
    seen = np.int64(0)
    for i in range(h):
        seen |= np.int64(1) << cards[i]
    for t in range(T):
        unseen[t] = full & ~seen
        seen |= np.int64(1) << cards[h + t]
    graphs = []
    biggest = 1
    for s in range(nsuits):
        g = suit_graph(cards, h, s, nsuits, unseen, T, alpha, beta, cost, bc, bp, lsum, lcnt)
        biggest = max(biggest, g[0].shape[0])
        graphs.append(g)
    value = np.zeros(biggest, np.float64)
    choice = np.zeros(biggest, np.int64)
    lam = np.zeros(T, np.float64)
    removals = np.zeros(T, np.int64)
    best = 1e18
    first = 0.0
    for it in range(steps + 1):
        removals[:] = 0
        g_val = lam.sum()
        for s in range(nsuits):
            st_t, a_src, a_dst, a_val, a_rem = graphs[s]
            g_val += suit_best(st_t, a_src, a_dst, a_val, a_rem, lam, value, choice, removals)
        if it == 0:
            first = g_val
        best = min(best, g_val)
        off = 0
        for t in range(T):
            off += (1 - removals[t]) ** 2
        if off == 0:
            break                           # one removal a turn: a real plan, the bound is met
        eta = step0 / np.sqrt(it + 1.0)
        for t in range(T):
            lam[t] -= eta * (1 - removals[t])
    return best, first


