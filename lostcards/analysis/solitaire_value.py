"""The solitaire bound's value of a position and its penalty for using the future (``solitaire_bound``).

V (``position_value``) is separable by suit (``suit_value``); ``draw_penalty`` is V after a draw less its
expectation over the unseen cards; a suit's expedition is packed in ``E_BITS`` bits (investments, top
slot, cards: ``suit_k``, ``suit_top``, ``suit_cnt``, each a ``NIBBLE`` field at most).
"""
from __future__ import annotations

import functools

import numpy as np
from numba import types

from lostcards.engine.layout import INVESTMENT_SLOTS, LANE, NUMBER_SLOTS
from lostcards.numba_cache import jit
from lostcards.rules.cards import SLOTS

NIBBLE = 15                    # a 4-bit field of a packed expedition
ALPHA = 0.5        # weight of an unseen number's chance to come, in V (chosen on seed 1)
BETA = 0.7         # scale of V in the penalty (chosen on seed 1)
STEPS = 1000       # subgradient steps a deal (more only lowers the bound)
STEP0 = 5.0        # the first step, in points (step k: STEP0 / sqrt(k + 1))
EXACT_MAX = 14     # cards in play the exact inner maximisation takes at most (its states explode)
INVESTMENT_LANE = INVESTMENT_SLOTS  # slots 0-2 of a suit's 12
NUMBER_LANE = NUMBER_SLOTS     # slots 3-11 (numbers 2..10)
E_BITS = 10                    # a suit's expedition in E: investments (2 bits), top slot (4), cards (4)
T_SHIFT = 60                   # the turn's place in a state key's second word
MAX_SUITS = 5                  # live cards are one 60-bit word
KEY = types.UniTuple(types.int64, 2)


@functools.lru_cache(maxsize=1)
def lane_tables():
    """Each 12-slot lane's numbers: their values' sum and their count (read-only tables)."""
    s = np.zeros(1 << SLOTS, np.float64)
    c = np.zeros(1 << SLOTS, np.float64)
    for m in range(1 << SLOTS):
        for slot in range(3, SLOTS):
            if m >> slot & 1:
                s[m] += slot - 1
                c[m] += 1
    s.flags.writeable = False
    c.flags.writeable = False
    return s, c


@jit(inline=True)
def suit_k(e, s):
    return (e >> (E_BITS * s)) & 3


@jit(inline=True)
def suit_top(e, s):
    return (e >> (E_BITS * s + 2)) & NIBBLE


@jit(inline=True)
def suit_cnt(e, s):
    return (e >> (E_BITS * s + 6)) & NIBBLE


@jit(inline=True)
def live_mask(e, nsuits):
    """The cards the expeditions of E accept now (investments before any number, numbers above the top)."""
    m = np.int64(0)
    for s in range(nsuits):
        t = suit_top(e, s)
        lane = np.int64(LANE) if t == 0 else np.int64(LANE) & ~((np.int64(1) << (t + 1)) - 1)
        m |= lane << (SLOTS * s)
    return m


@jit(inline=True)
def popcount60(x):
    n = 0
    while x != 0:
        x &= x - 1
        n += 1
    return n


@jit(inline=True)
def suit_value(k, top, cnt, hl, ul, q, cost, bc, bp, lsum, lcnt):
    """What one expedition can still add (points booked from now on): every live number in hand
    (lane hl) plus q times each live unseen one (lane ul), with the best number of the investments
    held while no number is laid; not opening (0) is an option while nothing is laid.  With q = 0
    it is exactly the best the hand alone can still do once the draw pile is empty."""
    sn = lsum[hl & NUMBER_LANE] + q * lsum[ul & NUMBER_LANE]
    cn = lcnt[hl & NUMBER_LANE] + q * lcnt[ul & NUMBER_LANE]
    if top > 0:
        v = sn * (k + 1)
        if cnt < bc and cnt + cn >= bc:
            v += bp
        return v
    ih = popcount60(hl & INVESTMENT_LANE)
    best = -1e18
    for kk in range(k, k + ih + 1):
        v = (sn - cost) * (kk + 1)
        if cnt < bc and cnt + (kk - k) + cn >= bc:
            v += bp
        best = max(best, v)
    if k == 0:
        best = max(best, 0.0)
    return best


@jit(inline=True)
def position_value(L, e, nsuits, ulive, q, cost, bc, bp, lsum, lcnt):
    """V summed over the suits (live hand L, live unseen ulive)."""
    v = 0.0
    for s in range(nsuits):
        v += suit_value(suit_k(e, s), suit_top(e, s), suit_cnt(e, s), (L >> (SLOTS * s)) & LANE,
                         (ulive >> (SLOTS * s)) & LANE, q, cost, bc, bp, lsum, lcnt)
    return v


@jit(inline=True)
def lay_card(e, c, cost, bc, bp):
    """(E after laying card c, the points it books)."""
    s = c // SLOTS
    slot = c % SLOTS
    k = suit_k(e, s)
    top = suit_top(e, s)
    cnt = suit_cnt(e, s)
    r = 0.0
    if slot < 3:
        k += 1
    else:
        r = (slot - 1) * (k + 1) - (cost * (k + 1) if top == 0 else 0)
        top = slot
    if cnt < bc:
        cnt += 1
        if cnt == bc:
            r += bp
    sh = E_BITS * s
    e = (e & ~(np.int64(0x3FF) << sh)) | ((k | (top << 2) | (cnt << 6)) << sh)
    return e, r


@jit(inline=True)
def draw_penalty(L1, e1, t, w, unseen, nsuits, T, alpha, beta, cost, bc, bp, lsum, lcnt):
    """z_t after a play leaving (L1, e1): V with the card w drawn minus V's mean over every unseen card."""
    if beta == 0.0:
        return 0.0
    n_u = popcount60(unseen)
    q = alpha * (T - t - 1) / (n_u - 1) if n_u > 1 else 0.0
    live = unseen & live_mask(e1, nsuits)
    total = 0.0
    real = 0.0
    for s in range(nsuits):
        ul = (live >> (SLOTS * s)) & LANE
        if ul == 0:
            continue
        hl = (L1 >> (SLOTS * s)) & LANE
        k = suit_k(e1, s)
        top = suit_top(e1, s)
        cnt = suit_cnt(e1, s)
        base = suit_value(k, top, cnt, hl, ul, q, cost, bc, bp, lsum, lcnt)
        rest = ul
        while rest != 0:
            b = rest & -rest
            rest ^= b
            d = suit_value(k, top, cnt, hl | b, ul & ~b, q, cost, bc, bp, lsum, lcnt) - base
            total += d
            if s == w // SLOTS and b == (np.int64(1) << (w % SLOTS)):
                real = d
    return beta * (real - total / n_u)


@jit(inline=True)
def state_after(L, e, a, nsuits, cost, bc, bp):
    """Play number a of a state: a < 2 * live cards: card a // 2 of L laid (even) or discarded (odd);
    the last, a dead card discarded.  Returns (L, E, points) before the draw."""
    if a == 2 * popcount60(L):
        return L, e, 0.0
    rest = L
    for _ in range(a // 2):
        rest &= rest - 1
    b = rest & -rest
    c = 0
    while (b >> c) != 1:
        c += 1
    if a % 2 == 1:
        return L & ~b, e, 0.0
    e1, r = lay_card(e, c, cost, bc, bp)
    return (L & ~b) & live_mask(e1, nsuits), e1, r


@jit(inline=True)
def closing_value(L, e, nsuits, cost, bc, bp, lsum, lcnt):
    """The rest of a round once the draw pile is empty: closed form."""
    return position_value(L, e, nsuits, np.int64(0), 0.0, cost, bc, bp, lsum, lcnt)


