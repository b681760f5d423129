"""The ISMCTS decision: iterations of determinize, select / expand down the tree, play out, back up.

One iteration (docs/search.md):

1. *Determinize*: the known part of the state (built once a decision) plus a
   uniform shuffle of the hidden cards (``determinize.sample``).
2. *Select*: at each of the seat's own turns, among the children whose move is
   legal in this determinization (their availability grows by one), the one of
   highest UCB; the other seats' turns in between are played by the play-out
   rule.  A turn is two levels, the play then the draw.
3. *Expand*: at the first level that has a legal move not yet in the tree, one
   such move, uniformly, becomes a child (a new play takes the play-out rule's draw).
4. *Play out* the rest of the round with the play-out rule for every seat.
5. *Back up* the seat's side margin (solitaire: its score) over ``SCALE`` to
   every node on the path.

The move played is the root's most visited play, with its most visited draw.
Every random number comes from the seat's stream; with the iteration budget the
move is a function of the observation and that stream alone.  The tree lives in
fixed buffers on the stack (``TREE_NODES`` nodes): a decision allocates nothing.
"""
from __future__ import annotations

import numpy as np

from lostcards.engine.bits import kth_bit, popcount
from lostcards.engine.cardsets import both, has
from lostcards.engine.core import (
    accepted,
    can_pass,
    card_bit,
    card_word,
    draw_options,
    ended,
    held,
    pass_held,
    step,
    suit_of,
)
from lostcards.engine.determinize import POOL_MAX, sample
from lostcards.engine.intrinsics import now_ns, stack_floats, stack_u64, stack_words
from lostcards.engine.layout import MAX_TURNS, S_SEAT, STATE_WORDS
from lostcards.engine.moves import (
    DRAW_NONE,
    TO_DISCARD,
    TO_EXPEDITION,
    is_pass,
    make_pass,
    make_play,
    move_card,
    move_to,
)
from lostcards.engine.observation import below, deck_size, kth_card, players, scratch, seat
from lostcards.engine.playouts import determinization_base, side_margin
from lostcards.numba_cache import jit
from lostcards.policies.search.playout import playout, playout_draw, playout_move
from lostcards.policies.search.tree import (
    N_CHILD,
    N_NEXT,
    N_TRIED_D,
    N_TRIED_DRAW,
    N_TRIED_E,
    N_VISITS,
    NODE_WORDS,
    NONE,
    most_visited,
    new_node,
    offer,
)

# parameter positions (declaration order in __init__.py)
K_ITERATIONS, K_SECONDS, K_C = range(3)
SCALE = 100.0          # a margin of this many points is a reward of 1
CLOCK_EVERY = 16       # iterations between two looks at the clock (seconds budget)
PATH_MAX = 512
TREE_NODES = 16384     # the tree's room (on the stack: 1.4 MB); a full tree stops growing
TREE_WORDS = TREE_NODES * NODE_WORDS


@jit(inline=True)
def _has_child(nd, node, action):
    ch = nd[node * NODE_WORDS + N_CHILD]
    while ch != NONE:
        if nd[ch * NODE_WORDS] == action:
            return True
        ch = nd[ch * NODE_WORDS + N_NEXT]
    return False


@jit(inline=True)
def _untried_pass(nd, node, h0, h1, d0, d1, k):
    """The k-th (from 0) pass not yet a child of `node` (k < 0: count them); pairs of distinct
    held codes in order, then pairs of copies."""
    n = 0
    hc = popcount(h0) + popcount(h1)
    for i in range(hc):
        a = kth_card((h0, h1), i)
        for j in range(i + 1, hc):
            m = make_pass(a, kth_card((h0, h1), j))
            if not _has_child(nd, node, m):
                if n == k:
                    return m, n
                n += 1
    for i in range(popcount(d0) + popcount(d1)):
        a = kth_card((d0, d1), i)
        m = make_pass(a, a)
        if not _has_child(nd, node, m):
            if n == k:
                return m, n
            n += 1
    return -1, n


@jit(inline=True)
def _others(st, me):
    """Play the other seats' turns with the play-out rule until `me` is to move or the round ends."""
    for _ in range(MAX_TURNS):
        if ended(st) or st[S_SEAT] == me:
            return
        if step(st, playout_move(st)) != 0:
            return


@jit
def ismcts_policy(obs, params, mem):
    """Single-observer ISMCTS over the seat's own moves (module docstring)."""
    return search(obs, params, mem)


@jit
def search(obs, params, mem):
    """The decision, compiled once on its own (the decider inlines only the call above)."""
    iters = np.int64(params[K_ITERATIONS])
    seconds = params[K_SECONDS]
    c = params[K_C]
    me = seat(obs)
    p = players(obs)
    sc = scratch(mem)
    disc = (np.int64(sc[0]), np.int64(sc[1])) if p == 1 else (np.int64(0), np.int64(0))
    base = stack_words(STATE_WORDS)
    st = stack_words(STATE_WORDS)
    used = stack_words(2)
    need = stack_words(4)
    pool = stack_words(POOL_MAX)
    path = stack_words(PATH_MAX)
    rng = stack_u64(4)
    for i in range(4):
        rng[i] = mem[i]
    n_pool = determinization_base(obs, disc, base, used, need, pool)
    n_deck = deck_size(obs)
    cap = min(2 * iters + 8, TREE_NODES)
    nd = stack_words(TREE_WORDS)
    rw = stack_floats(TREE_NODES)
    n_nodes = 1
    new_node(nd, rw, 0, NONE, 0)
    t_end = now_ns() + np.int64(seconds * 1e9) if seconds > 0 else np.int64(0)
    for it in range(iters):
        if seconds > 0 and it % CLOCK_EVERY == CLOCK_EVERY - 1 and now_ns() >= t_end:
            break
        sample(st, base, STATE_WORDS, pool, n_pool, need, n_deck, rng)
        node = 0
        depth = 0
        path[depth] = 0
        depth += 1
        grown = False
        while not grown and depth < PATH_MAX - 2:
            _others(st, me)
            if ended(st):
                break
            # ---- the play level at `node`
            (h0, h1), (d0, d1) = held(st, me)
            e0, e1 = both((h0, h1), accepted(st, me & 1))
            cp = can_pass(st, me)
            nb = node * NODE_WORDS
            best = NONE
            best_u = -1e300
            ch = nd[nb + N_CHILD]
            while ch != NONE:
                a = nd[ch * NODE_WORDS]
                if is_pass(a):
                    ok = cp and pass_held(st, me, a)
                elif move_to(a) == TO_EXPEDITION:
                    ok = has((e0, e1), move_card(a))
                else:
                    ok = has((h0, h1), move_card(a))
                if ok:
                    best, best_u = offer(nd, rw, ch, c, best, best_u)
                ch = nd[ch * NODE_WORDS + N_NEXT]
            ue0 = e0 & ~nd[nb + N_TRIED_E]
            ue1 = e1 & ~nd[nb + N_TRIED_E + 1]
            ud0 = h0 & ~nd[nb + N_TRIED_D]
            ud1 = h1 & ~nd[nb + N_TRIED_D + 1]
            n_e = popcount(ue0) + popcount(ue1)
            n_d = popcount(ud0) + popcount(ud1)
            n_p = 0
            if cp:
                _, n_p = _untried_pass(nd, node, h0, h1, d0, d1, -1)
            n_u = n_e + n_d + n_p
            if n_u > 0 and n_nodes + 2 <= cap:
                k = below(rng, n_u)
                if k < n_e:
                    card = kth_card((ue0, ue1), k)
                    m = make_play(card, TO_EXPEDITION, 0)
                    _mark(nd, nb + N_TRIED_E, card)
                elif k < n_e + n_d:
                    card = kth_card((ud0, ud1), k - n_e)
                    m = make_play(card, TO_DISCARD, 0)
                    _mark(nd, nb + N_TRIED_D, card)
                else:
                    m, _ = _untried_pass(nd, node, h0, h1, d0, d1, k - n_e - n_d)
                child = new_node(nd, rw, n_nodes, node, m)
                n_nodes += 1
                path[depth] = child
                depth += 1
                grown = True
                if not is_pass(m):
                    card = move_card(m)
                    to = move_to(m)
                    m = make_play(card, to, DRAW_NONE if p == 1 else playout_draw(st, card, to))
                step(st, m)
                break
            if best == NONE:
                break
            node = best
            path[depth] = node
            depth += 1
            a = nd[node * NODE_WORDS]
            if is_pass(a) or p == 1:
                step(st, a if is_pass(a) else make_play(move_card(a), move_to(a), DRAW_NONE))
                continue
            # ---- the draw level under the play `node`
            legal = draw_options(st, suit_of(move_card(a)), move_to(a) == TO_DISCARD)
            nb = node * NODE_WORDS
            best = NONE
            best_u = -1e300
            ch = nd[nb + N_CHILD]
            while ch != NONE:
                if (legal >> nd[ch * NODE_WORDS]) & 1:
                    best, best_u = offer(nd, rw, ch, c, best, best_u)
                ch = nd[ch * NODE_WORDS + N_NEXT]
            untried = legal & ~nd[nb + N_TRIED_DRAW]
            if untried != 0 and n_nodes + 1 <= cap:
                d = kth_bit(untried, below(rng, popcount(untried)))
                nd[nb + N_TRIED_DRAW] |= np.int64(1) << d
                child = new_node(nd, rw, n_nodes, node, d)
                n_nodes += 1
                path[depth] = child
                depth += 1
                grown = True
                step(st, make_play(move_card(a), move_to(a), d))
                break
            if best == NONE:
                break
            node = best
            path[depth] = node
            depth += 1
            step(st, make_play(move_card(a), move_to(a), nd[node * NODE_WORDS]))
        playout(st)
        r = side_margin(st, me, p) / SCALE
        for i in range(depth):
            j = path[i]
            nd[j * NODE_WORDS + N_VISITS] += 1
            rw[j] += r
    # ---- the move: the most visited play, then its most visited draw
    top = most_visited(nd, 0)
    if top == NONE:                       # no iteration ran: the play-out rule's own move
        m = playout_move(base)
    else:
        m = nd[top * NODE_WORDS]
        if not is_pass(m):
            card = move_card(m)
            to = move_to(m)
            if p == 1:
                m = make_play(card, to, DRAW_NONE)
            else:
                dn = most_visited(nd, top)
                d = nd[dn * NODE_WORDS] if dn != NONE else playout_draw(base, card, to)
                m = make_play(card, to, d)
    for i in range(4):
        mem[i] = rng[i]
    if p == 1 and not is_pass(m) and move_to(m) == TO_DISCARD:
        card = move_card(m)
        w = card_word(card)
        sc[w] = np.uint64(np.int64(sc[w]) | card_bit(card))
    return m


@jit(inline=True)
def _mark(nd, at, card):
    nd[at + card_word(card)] |= card_bit(card)

