"""A network policy's kernel: an action-conditioned scorer (a small MLP) over every legal move.

Per decision the information-set features ``s`` go once through the trunk
(``a = Ws s + b1``); each candidate's features ``c`` then give
``h1 = relu(a + Wc c)``, ``h2 = relu(W2 h1 + b2)`` and its score
``w3 . h2 + v . c`` (a linear skip from the candidate's own features, the
reference flag among them).  The action of best score is taken, then (2 and 4
players) the draw of best score after it: the same network scores both, the
candidate's kind telling them apart; equal scores are broken at random from
the seat's stream (after the reference policy's move has drawn its numbers
from it), so no suit is favoured.  ``temp`` > 0 samples instead (Gumbel-max,
from the seat's stream).  ``margin`` > 0 gates it: the reference action stays
unless another's score beats it by more than ``margin``, and likewise the
reference draw (for weights whose scores estimate the teacher's gains:
``training.fit``'s ``gain`` loss).  It never passes (4 players).  Every
buffer is on the stack: a decision allocates nothing.

The reference move comes from the caller (``network_move``'s ``rm``): this
module imports no policy, and each network policy (``student``: expert;
``learned``: the self-play blueprint) runs its own reference first.  Its
parameters are ``temp``, ``margin``, the reference's parameter values, then the
weights in ``LAYOUT`` order (``OFF_REFERENCE``; ``weights_offset``), then
solitaire's weights in the same order; ``network_play`` is the kernel's one call.
"""
from __future__ import annotations

import numpy as np

from lostcards.engine.intrinsics import axpy, offset, stack_floats, stack_words
from lostcards.engine.moves import (
    DRAW_DECK,
    DRAW_NONE,
    TO_DISCARD,
    TO_EXPEDITION,
    draw_pile,
    is_pass,
    make_play,
    move_card,
    move_draw,
    move_to,
)
from lostcards.engine.observation import (
    deck_size,
    hand_cards,
    has,
    legal_plays,
    lowest_card,
    nonempty_piles,
    pile_top,
    players,
    suit_of,
    suits,
    without,
)
from lostcards.engine.rng import gumbel, takes_lead
from lostcards.numba_cache import jit
from lostcards.policies.network.features import (
    C_DIM,
    K_DECK,
    K_DISCARD,
    K_PILE,
    K_PLAY,
    S_DIM,
    action_is_reference,
    candidate_features,
    draw_is_reference,
    info_features,
    set_reference,
)

H1 = 64
H2 = 16
LAYOUT = (("Ws", (S_DIM, H1)), ("Wc", (C_DIM, H1)), ("b1", (H1,)), ("W2", (H1, H2)), ("b2", (H2,)),
          ("w3", (H2,)), ("v", (C_DIM,)))
N_WEIGHTS = sum(int(np.prod(shape)) for _, shape in LAYOUT)
P_TEMP, P_MARGIN = 0, 1
OFF_REFERENCE = 2            # the reference policy's parameters start here; the weights follow them
O_WS = 0
O_WC = O_WS + S_DIM * H1
O_B1 = O_WC + C_DIM * H1
O_W2 = O_B1 + H1
O_B2 = O_W2 + H1 * H2
O_W3 = O_B2 + H2
O_V = O_W3 + H2
MAX_CANDIDATES = 64          # a decision's actions at most: two for each card of the largest hand (30)
FIRST_LAYERS = MAX_CANDIDATES * H1     # the scratch of every candidate's first layer


@jit(inline=True)
def trunk(w, s, a):
    """a = Ws^T s + b1 (the part of the first layer shared by every candidate)."""
    for h in range(H1):
        a[h] = w[O_B1 + h]
    for i in range(S_DIM):
        x = s[i]
        if x != 0.0:
            axpy(a, x, offset(w, O_WS + i * H1), H1)


@jit(inline=True)
def first_layer(w, a, c, h1):
    """A candidate's first layer before its relu, ``h1 = a + Wc^T c`` (`a` the trunk, `c` its
    features), and its linear skip ``v . c``, returned."""
    for h in range(H1):
        h1[h] = a[h]
    out = 0.0
    for i in range(C_DIM):
        x = c[i]
        if x != 0.0:
            out += x * w[O_V + i]
            axpy(h1, x, offset(w, O_WC + i * H1), H1)
    return out


@jit(inline=True)
def kept_first_layer(w, a, c, h1, dst):
    """``first_layer`` in the fixed scratch `h1` (its adds stay in registers), then copied to `dst`."""
    out = first_layer(w, a, c, h1)
    for h in range(H1):
        dst[h] = h1[h]
    return out


@jit(inline=True)
def second_layer(w, h1, h2):
    """``h2 = b2 + W2^T relu(h1)``: each unit's row of W2 (stored unit-major: a contiguous row) times
    the unit's relu, one vector operation a unit and no branch: each h2 unit sums in the same order
    as a dot product would, a unit at or below 0 adding zeros (only a zero's sign can differ, which
    no comparison sees)."""
    for j in range(H2):
        h2[j] = w[O_B2 + j]
    for h in range(H1):
        axpy(h2, max(h1[h], 0.0), offset(w, O_W2 + h * H2), H2)


@jit(inline=True)
def second_layer_pair(w, h1a, h1b, h2a, h2b):
    """``second_layer`` for two candidates at once, each adding in its order: the two chains of
    dependent adds overlap."""
    for j in range(H2):
        h2a[j] = w[O_B2 + j]
        h2b[j] = w[O_B2 + j]
    for h in range(H1):
        row = offset(w, O_W2 + h * H2)
        axpy(h2a, max(h1a[h], 0.0), row, H2)
        axpy(h2b, max(h1b[h], 0.0), row, H2)


@jit(inline=True)
def readout(w, h2, out):
    """The score: the skip `out` plus ``w3 . relu(h2)``."""
    for j in range(H2):
        if h2[j] > 0.0:
            out += h2[j] * w[O_W3 + j]
    return out


@jit(inline=True)
def head(w, h1, out, h2):
    """The score of a candidate from its first layer `h1` and its skip `out` (`h2`: scratch of H2
    floats)."""
    second_layer(w, h1, h2)
    return readout(w, h2, out)


@jit(inline=True)
def score_all(w, hs, outs, n, h2a, h2b):
    """The scores of n candidates into ``outs[0:n]`` (their first layers at ``hs``, H1 floats each,
    their skips in ``outs``), two second layers at a time: each the number ``score`` gives it."""
    i = 0
    while i + 1 < n:
        second_layer_pair(w, offset(hs, i * H1), offset(hs, (i + 1) * H1), h2a, h2b)
        outs[i] = readout(w, h2a, outs[i])
        outs[i + 1] = readout(w, h2b, outs[i + 1])
        i += 2
    if i < n:
        outs[i] = head(w, offset(hs, i * H1), outs[i], h2a)


@jit(inline=True)
def score(w, a, c, h1, h2):
    """One candidate's score from the trunk `a` and its features `c` (`h1`, `h2`: scratch, H1 and H2
    floats): ``first_layer`` then ``head``."""
    return head(w, h1, first_layer(w, a, c, h1), h2)


@jit(inline=True)
def network_move(obs, temp, margin, w, mem, rm, sc):
    """The network's move (module docstring): `w` the weights, `rm` the reference move (already
    decided on the seat's stream), `sc` its scratch (``network_play``'s tuple: s, a, c, h1 of S_DIM,
    H1, C_DIM, H1 floats; every candidate's first layer and score; h2 twice; the candidates' moves).
    Every candidate is scored first (``score_all``, no random number drawn), then taken in turn as
    one loop would have: the same draws from the seat's stream in the same order."""
    s, a, c, h1, hs, outs, h2a, h2b, cands = sc
    un = info_features(obs, s)
    trunk(w, s, a)
    acc = legal_plays(obs)
    rest = hand_cards(obs)
    n = 0
    while (rest[0] | rest[1]) != 0:
        x = lowest_card(rest)
        rest = without(rest, x)
        for kind in (K_PLAY, K_DISCARD):
            if kind == K_PLAY and not has(acc, x):
                continue
            t = TO_EXPEDITION if kind == K_PLAY else TO_DISCARD
            candidate_features(obs, kind, x, s, un, c)
            flag = action_is_reference(rm, x, t)
            set_reference(c, flag)
            outs[n] = kept_first_layer(w, a, c, h1, offset(hs, n * H1))
            cands[n] = 2 * make_play(x, t, DRAW_NONE) + (1 if flag else 0)    # the move; 1: the reference
            n += 1
    score_all(w, hs, outs, n, h2a, h2b)
    best = -1e300
    ties = 1
    card = -1
    to = TO_DISCARD
    e_score = -1e300               # the score of the reference action (the gate's reference)
    for i in range(n):
        v = outs[i] + gumbel(mem, temp)
        if cands[i] & 1:
            e_score = v
        take, ties = takes_lead(v, best, ties, mem)
        if take:
            best = v
            card = move_card(cands[i] >> 1)
            to = move_to(cands[i] >> 1)
    if margin > 0.0 and e_score > -1e300 and best - e_score <= margin:
        card = move_card(rm)       # gated: the reference action unless another beats it by the margin
        to = move_to(rm)
    if players(obs) == 1:
        return make_play(card, to, DRAW_NONE)
    return make_play(card, to, best_draw(obs, w, mem, temp, margin, rm, card, to, un, sc))


@jit(inline=True)
def best_draw(obs, w, mem, temp, margin, rm, card, to, un, sc):
    """The draw of best score after playing `card` to `to`: the deck, or a pile not just discarded on.
    Gated (`margin` > 0): the reference draw (the reference move's where still legal, else the deck, as the
    teacher's first candidate) unless another beats it by more than `margin`."""
    s, a, c, h1, hs, outs, h2a, h2b, cands = sc
    n = 0
    if deck_size(obs) > 0:
        candidate_features(obs, K_DECK, -1, s, un, c)
        set_reference(c, draw_is_reference(rm, card, to, DRAW_DECK))
        outs[n] = kept_first_layer(w, a, c, h1, offset(hs, n * H1))
        cands[n] = DRAW_DECK
        n += 1
    piles = nonempty_piles(obs)
    for q in range(suits(obs)):
        if (piles >> q) & 1 == 0 or (to == TO_DISCARD and suit_of(card) == q):
            continue
        candidate_features(obs, K_PILE, pile_top(obs, q), s, un, c)
        set_reference(c, draw_is_reference(rm, card, to, draw_pile(q)))
        outs[n] = kept_first_layer(w, a, c, h1, offset(hs, n * H1))
        cands[n] = draw_pile(q)
        n += 1
    score_all(w, hs, outs, n, h2a, h2b)
    best = -1e300
    ties = 1
    draw = DRAW_DECK
    want = DRAW_DECK if is_pass(rm) else move_draw(rm)
    ref = DRAW_NONE
    r_score = -1e300
    for i in range(n):
        v = outs[i] + gumbel(mem, temp)
        d = cands[i]
        if d == DRAW_DECK:         # the deck, when there is one, comes first and leads
            best = v
            ref = DRAW_DECK
            r_score = v
            continue
        if d == want or ref == DRAW_NONE:
            ref = d
            r_score = v
        take, ties = takes_lead(v, best, ties, mem)
        if take:
            best = v
            draw = d
    if margin > 0.0 and ref != DRAW_NONE and best - r_score <= margin:
        return ref
    return draw


def weights_offset(n_reference: int) -> int:
    """Where the weights start in a network policy's parameters, after a reference with n_reference values."""
    return OFF_REFERENCE + n_reference


@jit(inline=True)
def network_play(obs, params, off_w, mem, rm):
    """``network_move`` with its scratch on the stack, the weights at ``params[off_w:]`` (solitaire's set
    right after them): what a network policy's kernel calls once its reference has decided `rm`."""
    sc = (stack_floats(S_DIM), stack_floats(H1), stack_floats(C_DIM), stack_floats(H1), stack_floats(FIRST_LAYERS),
          stack_floats(MAX_CANDIDATES), stack_floats(H2), stack_floats(H2), stack_words(MAX_CANDIDATES))
    at = off_w + N_WEIGHTS if players(obs) == 1 else off_w
    return network_move(obs, params[P_TEMP], params[P_MARGIN], offset(params, at), mem, rm, sc)
