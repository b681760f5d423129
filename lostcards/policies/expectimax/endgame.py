"""One move of `expectimax`: improve's, or the exact expectation once solitaire's draw pile runs low.

In solitaire the player's information is a single chance model: every card it has
not seen (the draw pile and the half of the deck set aside, which are exchangeable)
is equally likely to be the next one drawn.  So once the draw pile holds at most
``deck`` cards the best move for what the player knows is found exactly by
expectimax: the best play, then the mean over every unseen card of the best play
after drawing it, down to the empty draw pile, where the rest is closed form
(every card left in hand can be laid in any order: each suit lays every number
above its top, with the number of investments held that pays most, or stays
shut).  There is no strategy fusion: the tree branches on the chance the player
really faces, not on guessed orders of the deck.  Cards no expedition can take
any more are interchangeable: discarding one of them is a single play and
dominates discarding a card that can still be laid; drawing one is a single
outcome, weighted by how many there are.

Before that (and in 2 and 4 players) it plays ``improve`` with the same
parameters (``k``, ``z``, ``seconds``, ``base``).  It keeps its solitaire
discards where ``improve`` does (the last two scratch words), so the unseen
cards are known exactly.  It takes up to 5 suits (a card set in one word);
with 6 it plays improve throughout.  The cost grows about 100-fold a card of ``deck``
(``deck=3``: a few tenths of a second on the first decision of the endgame).
"""
from __future__ import annotations

import numpy as np

from lostcards.engine.bits import popcount
from lostcards.engine.intrinsics import offset
from lostcards.engine.layout import LANE, NUMBER_SLOTS
from lostcards.engine.moves import DRAW_NONE, TO_DISCARD, TO_EXPEDITION, is_pass, make_play, move_card, move_to
from lostcards.engine.observation import (
    RULE_BONUS_CARDS,
    RULE_BONUS_POINTS,
    RULE_COST,
    deck_size,
    expedition,
    hand_cards,
    players,
    rule,
    scratch,
    side,
    suits,
    top_slot,
    unseen,
    with_card,
)
from lostcards.numba_cache import jit
from lostcards.policies.improve.decision import SC_DISC, improve_move

P_DECK = 0                     # parameter positions: deck, then improve's own (and its base's)
N_OWN = 1
SLOTS = 12
INVESTMENT_LANE = 0x7
NUMBER_LANE = NUMBER_SLOTS
NIBBLE = 15                    # a 4-bit field of a packed expedition
MAX_SUITS = 5                  # a hand and the unseen cards as one 60-bit word each


@jit(inline=True)
def _lane_sum(lane):
    """The numbers' values of a lane (slot n + 1 is the number n)."""
    t = 0
    x = lane & NUMBER_LANE
    while x != 0:
        b = x & -x
        x ^= b
        slot = 0
        while (b >> slot) != 1:
            slot += 1
        t += slot - 1
    return t


@jit(inline=True)
def _suit_rest(k, top, cnt, hl, cost, bc, bp):
    """The points one expedition (k investments, top slot, cnt cards) can still add from the live
    cards of lane hl once no card is left to draw: every number, the best number of investments
    while no number is laid, or (nothing laid yet) not opening."""
    sn = _lane_sum(hl)
    cn = popcount(hl & NUMBER_LANE)
    if top > 0:
        v = sn * (k + 1)
        if cnt < bc and cnt + cn >= bc:
            v += bp
        return v
    ih = popcount(hl & INVESTMENT_LANE)
    best = np.int64(-(1 << 40))
    for kk in range(k, k + ih + 1):
        v = (sn - cost) * (kk + 1)
        if cnt < bc and cnt + (kk - k) + cn >= bc:
            v += bp
        best = max(best, v)
    if k == 0:
        best = max(best, 0)
    return best


@jit(inline=True)
def _live(e, ns):
    """The cards the expeditions of E accept now (one 60-bit card set)."""
    m = np.int64(0)
    for s in range(ns):
        t = (e >> (10 * s + 2)) & NIBBLE
        lane = np.int64(LANE) if t == 0 else np.int64(LANE) & ~((np.int64(1) << (t + 1)) - 1)
        m |= lane << (SLOTS * s)
    return m


@jit(inline=True)
def _rest(L, e, ns, cost, bc, bp):
    v = np.int64(0)
    for s in range(ns):
        x = e >> (10 * s)
        v += _suit_rest(x & 3, (x >> 2) & NIBBLE, (x >> 6) & NIBBLE, (L >> (SLOTS * s)) & LANE, cost, bc, bp)
    return v


@jit(inline=True)
def _act(L, dead, e, a, ns, cost, bc, bp):
    """Play a: 2j lays the j-th live card, 2j+1 discards it, 2 * live discards a dead card.
    Returns (live, dead, E, points booked)."""
    n_live = popcount(L)
    if a == 2 * n_live:
        return L, dead - 1, e, np.int64(0)
    rest = L
    for _ in range(a // 2):
        rest &= rest - 1
    b = rest & -rest
    if a % 2 == 1:
        return L & ~b, dead, e, np.int64(0)
    c = 0
    while (b >> c) != 1:
        c += 1
    s = c // SLOTS
    slot = c % SLOTS
    sh = 10 * s
    x = e >> sh
    k = x & 3
    top = (x >> 2) & NIBBLE
    cnt = (x >> 6) & NIBBLE
    r = np.int64(0)
    if slot < 3:
        k += 1
    else:
        r = (slot - 1) * (k + 1) - (cost * (k + 1) if top == 0 else 0)
        top = slot
    if cnt < bc:
        cnt += 1
        if cnt == bc:
            r += bp
    e1 = (e & ~(np.int64(0x3FF) << sh)) | ((k | (top << 2) | (cnt << 6)) << sh)
    keep = _live(e1, ns)
    L1 = L & ~b
    return L1 & keep, dead + popcount(L1 & ~keep), e1, r


@jit(inline=True)
def _n_acts(L, dead):
    """Plays worth trying: every lay and, with a dead card in hand, one dead discard (it dominates
    discarding a live card); without one, every discard."""
    return 2 * popcount(L) + (1 if dead > 0 else 0)


@jit(inline=True)
def _skip(a, L, dead):
    return dead > 0 and a < 2 * popcount(L) and a % 2 == 1


# The tree, one function a level (numba caches no recursion): _v{d} is the best expected rest of
# the round at a play with d cards left to draw, _m{d} the mean over the next card of _v{d-1}.

@jit
def _v0(L, dead, e, U, n_u, ns, cost, bc, bp):
    """Nothing left to draw: closed form."""
    return float(_rest(L, e, ns, cost, bc, bp))


@jit
def _m1(L1, dead1, e1, U, n_u, ns, cost, bc, bp):
    """The mean over the next card (each unseen card as likely) of the best rest after drawing it."""
    live_u = U & _live(e1, ns)
    n_live = popcount(live_u)
    tot = 0.0
    if n_u > n_live:
        tot += (n_u - n_live) * _v0(L1, dead1 + 1, e1, U, n_u - 1, ns, cost, bc, bp)
    rest = live_u
    while rest != 0:
        b = rest & -rest
        rest ^= b
        tot += _v0(L1 | b, dead1, e1, U & ~b, n_u - 1, ns, cost, bc, bp)
    return tot / n_u


@jit
def _v1(L, dead, e, U, n_u, ns, cost, bc, bp):
    """The best expected rest of the round with 1 card(s) left to draw."""
    best = -1e18
    for a in range(_n_acts(L, dead)):
        if _skip(a, L, dead):
            continue
        L1, dead1, e1, r = _act(L, dead, e, a, ns, cost, bc, bp)
        best = max(best, r + _m1(L1, dead1, e1, U, n_u, ns, cost, bc, bp))
    return best


@jit
def _m2(L1, dead1, e1, U, n_u, ns, cost, bc, bp):
    """The mean over the next card (each unseen card as likely) of the best rest after drawing it."""
    live_u = U & _live(e1, ns)
    n_live = popcount(live_u)
    tot = 0.0
    if n_u > n_live:
        tot += (n_u - n_live) * _v1(L1, dead1 + 1, e1, U, n_u - 1, ns, cost, bc, bp)
    rest = live_u
    while rest != 0:
        b = rest & -rest
        rest ^= b
        tot += _v1(L1 | b, dead1, e1, U & ~b, n_u - 1, ns, cost, bc, bp)
    return tot / n_u


@jit
def _v2(L, dead, e, U, n_u, ns, cost, bc, bp):
    """The best expected rest of the round with 2 card(s) left to draw."""
    best = -1e18
    for a in range(_n_acts(L, dead)):
        if _skip(a, L, dead):
            continue
        L1, dead1, e1, r = _act(L, dead, e, a, ns, cost, bc, bp)
        best = max(best, r + _m2(L1, dead1, e1, U, n_u, ns, cost, bc, bp))
    return best


@jit
def _m3(L1, dead1, e1, U, n_u, ns, cost, bc, bp):
    """The mean over the next card (each unseen card as likely) of the best rest after drawing it."""
    live_u = U & _live(e1, ns)
    n_live = popcount(live_u)
    tot = 0.0
    if n_u > n_live:
        tot += (n_u - n_live) * _v2(L1, dead1 + 1, e1, U, n_u - 1, ns, cost, bc, bp)
    rest = live_u
    while rest != 0:
        b = rest & -rest
        rest ^= b
        tot += _v2(L1 | b, dead1, e1, U & ~b, n_u - 1, ns, cost, bc, bp)
    return tot / n_u


@jit
def _v3(L, dead, e, U, n_u, ns, cost, bc, bp):
    """The best expected rest of the round with 3 card(s) left to draw."""
    best = -1e18
    for a in range(_n_acts(L, dead)):
        if _skip(a, L, dead):
            continue
        L1, dead1, e1, r = _act(L, dead, e, a, ns, cost, bc, bp)
        best = max(best, r + _m3(L1, dead1, e1, U, n_u, ns, cost, bc, bp))
    return best


@jit
def _m4(L1, dead1, e1, U, n_u, ns, cost, bc, bp):
    """The mean over the next card (each unseen card as likely) of the best rest after drawing it."""
    live_u = U & _live(e1, ns)
    n_live = popcount(live_u)
    tot = 0.0
    if n_u > n_live:
        tot += (n_u - n_live) * _v3(L1, dead1 + 1, e1, U, n_u - 1, ns, cost, bc, bp)
    rest = live_u
    while rest != 0:
        b = rest & -rest
        rest ^= b
        tot += _v3(L1 | b, dead1, e1, U & ~b, n_u - 1, ns, cost, bc, bp)
    return tot / n_u


@jit(inline=True)
def _after(d, L1, dead1, e1, U, n_u, ns, cost, bc, bp):
    """The best expected rest after a play, with d cards left to draw (0..4)."""
    if d == 0:
        return float(_rest(L1, e1, ns, cost, bc, bp))
    if d == 1:
        return _m1(L1, dead1, e1, U, n_u, ns, cost, bc, bp)
    if d == 2:
        return _m2(L1, dead1, e1, U, n_u, ns, cost, bc, bp)
    if d == 3:
        return _m3(L1, dead1, e1, U, n_u, ns, cost, bc, bp)
    return _m4(L1, dead1, e1, U, n_u, ns, cost, bc, bp)


@jit
def best_of(d, L, dead, e, U, n_u, ns, cost, bc, bp):
    """(the best expected rest of the round, the play that makes it) with d cards left to draw:
    live cards L in hand beside `dead` dead ones, expeditions E, unseen cards U (n_u of them)."""
    best = -1e18
    best_a = 0
    for a in range(_n_acts(L, dead)):
        if _skip(a, L, dead):
            continue
        L1, dead1, e1, r = _act(L, dead, e, a, ns, cost, bc, bp)
        v = r + _after(d, L1, dead1, e1, U, n_u, ns, cost, bc, bp)
        if v > best + 1e-9:
            best = v
            best_a = a
    return best, best_a


@jit
def best_play(obs, disc):
    """The exact best solitaire move for what the seat knows (disc: the cards it discarded)."""
    ns = suits(obs)
    cost = rule(obs, RULE_COST)
    bc = rule(obs, RULE_BONUS_CARDS)
    bp = rule(obs, RULE_BONUS_POINTS)
    sd = side(obs)
    e = np.int64(0)
    for s in range(ns):
        ln = expedition(obs, sd, s)
        cnt = min(popcount(ln), bc)
        e |= (popcount(ln & INVESTMENT_LANE) | (top_slot(ln) << 2) | (cnt << 6)) << (10 * s)
    hand = hand_cards(obs)[0]
    L = hand & _live(e, ns)
    U = unseen(obs)[0][0] & ~disc
    _, best_a = best_of(deck_size(obs), L, popcount(hand) - popcount(L), e, U, popcount(U), ns, cost, bc, bp)
    if best_a == 2 * popcount(L):                   # a dead card: the lowest
        x = hand & ~L
        return make_play(_lowest(x), TO_DISCARD, DRAW_NONE)
    rest = L
    for _ in range(best_a // 2):
        rest &= rest - 1
    return make_play(_lowest(rest), TO_EXPEDITION if best_a % 2 == 0 else TO_DISCARD, DRAW_NONE)


@jit(inline=True)
def _lowest(x):
    b = x & -x
    c = 0
    while (b >> c) != 1:
        c += 1
    return c


@jit
def expectimax_policy(obs, params, mem):
    """improve's move, or in solitaire (up to 5 suits) with at most `deck` cards to draw the exact best one."""
    if players(obs) == 1 and suits(obs) <= MAX_SUITS and deck_size(obs) <= np.int64(params[P_DECK]):
        sc = scratch(mem)
        m = best_play(obs, np.int64(sc[SC_DISC]))
        if not is_pass(m) and move_to(m) == TO_DISCARD:
            d = with_card((np.int64(sc[SC_DISC]), np.int64(sc[SC_DISC + 1])), move_card(m))
            sc[SC_DISC] = np.uint64(d[0])
            sc[SC_DISC + 1] = np.uint64(d[1])
        return m
    return improve_move(obs, offset(params, N_OWN), mem)
