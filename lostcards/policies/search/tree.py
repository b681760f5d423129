"""The search tree: nodes over the searching seat's own decisions, with availability counts.

A node is ``NODE_WORDS`` int64 words in one buffer (raw pointer ``nd``) and one
float64 (its summed reward, ``rw``).  Children are a linked list (first child,
next sibling).  A turn of the seat is two levels: a *play* (card and where it
goes, or a 4-player pass) and then, under a play, its *draw* (the deck or a
pile); under a draw (or a pass, or a solitaire play) come the plays of the
seat's next turn.  Other seats' turns between two of its own are played by the
play-out policy and are not in the tree (single-observer ISMCTS over the own
moves, Cowling, Powley & Whitehouse 2012, with the opponents folded into the
environment).

Selection is UCB1 with availability counts (the paper's subset-armed bandit):
a child's exploration term uses the number of iterations in which it was
*legal* (``N_AVAIL``), not its parent's visits, because a determinization
decides which moves exist below the root.
"""
from __future__ import annotations

import math

from lostcards.numba_cache import jit

NODE_WORDS = 10
N_ACTION, N_CHILD, N_NEXT, N_VISITS, N_AVAIL, N_TRIED_E, N_TRIED_E_HI, N_TRIED_D, N_TRIED_D_HI, \
    N_TRIED_DRAW = range(NODE_WORDS)
NONE = -1


@jit(inline=True)
def new_node(nd, rw, n_nodes, parent, action):
    """Append a node under `parent` (NONE for the root) with `action`; returns its index."""
    i = n_nodes
    b = i * NODE_WORDS
    nd[b + N_ACTION] = action
    nd[b + N_CHILD] = NONE
    nd[b + N_VISITS] = 0
    nd[b + N_AVAIL] = 1
    for k in range(N_TRIED_E, NODE_WORDS):
        nd[b + k] = 0
    rw[i] = 0.0
    if parent >= 0:
        pb = parent * NODE_WORDS
        nd[b + N_NEXT] = nd[pb + N_CHILD]
        nd[pb + N_CHILD] = i
    else:
        nd[b + N_NEXT] = NONE
    return i


@jit(inline=True)
def ucb(nd, rw, i, c):
    """UCB1 with availability: mean + c sqrt(ln(avail) / visits)."""
    b = i * NODE_WORDS
    n = nd[b + N_VISITS]
    if n == 0:
        return 1e18
    return rw[i] / n + c * math.sqrt(math.log(nd[b + N_AVAIL]) / n)


@jit(inline=True)
def most_visited(nd, parent):
    """The child of `parent` with the most visits (the lowest index among ties); NONE if none."""
    best = NONE
    bv = -1
    ch = nd[parent * NODE_WORDS + N_CHILD]
    while ch != NONE:
        v = nd[ch * NODE_WORDS + N_VISITS]
        if v > bv or (v == bv and ch < best):
            bv = v
            best = ch
        ch = nd[ch * NODE_WORDS + N_NEXT]
    return best


@jit(inline=True)
def offer(nd, rw, ch, c, best, best_u):
    """Child `ch` is legal in this determinization: one more availability, and the better of it
    and (best, best_u) by UCB."""
    nd[ch * NODE_WORDS + N_AVAIL] += 1
    u = ucb(nd, rw, ch, c)
    if u > best_u:
        return ch, u
    return best, best_u
