"""Determinizations that believe the other seat's last move (policy-based inference, 2 players).

A uniform determinization deals the other seat any hand the seat has not seen,
so it ignores what that seat's last turn showed: a discard it chose over its
other cards, a pile it passed over for the deck.  Here each uniform deal is
put back to the moment before that turn and the base policy, in the other
seat's place, decides: the deal is kept if it makes the move the other seat
made, else with probability ``floor`` (rejection sampling, so the kept deals
are drawn in proportion to 1 or ``floor``: the base as the model of the other
seat's play, the floor so that an unexpected move never rules a hand out).
This is the belief update of SPARTA's policy-based inference (Lerer et al.,
AAAI 2020), one turn deep.

The move is read by comparing the table with what it was after the seat's own
move, which ``remember`` keeps in the seat's scratch words (``SNAP_WORDS`` of
them, from ``at``): the other side's expedition and what it accepts, the
discard piles, the stall count, the deck's position and the turn.  Only
simple 2-player rulesets (one card word, no copies, piles in one word);
elsewhere the caller deals uniformly.
"""
from __future__ import annotations

import numpy as np

from lostcards.engine.bits import kth_bit, popcount, trailing_zeros
from lostcards.engine.determinize import sample
from lostcards.engine.intrinsics import call_decide_at, offset
from lostcards.engine.layout import (
    M_RNG,
    MEM_WORDS,
    R_CARDS,
    R_SUITS,
    S_ACC,
    S_DECK_POS,
    S_EXP,
    S_NONEMPTY,
    S_PILE,
    S_SEAT,
    S_STALL,
    S_TURN,
    SLOT_MEM_WORDS,
    STATE_WORDS,
)
from lostcards.engine.moves import (
    DRAW_DECK,
    TO_DISCARD,
    TO_EXPEDITION,
    draw_pile,
    is_pass,
    move_card,
    move_draw,
    move_to,
)
from lostcards.engine.observation import deck_size, known, players, seat, suits
from lostcards.engine.playouts import STREAM_STRIDE, determinization_base
from lostcards.engine.rng import below, seed_stream
from lostcards.engine.state import hand_at, known_at
from lostcards.numba_cache import jit
from lostcards.rules.cards import SLOTS

# the snapshot in the seat's scratch words: the turn after its move (0: none yet), then the
# other side's expedition and accepted cards, the stall count, the deck's position, the cards
# of its own hand the other seat saw it take off a pile, the piles
I_TURN, I_EXP, I_ACC, I_STALL, I_POS, I_MINE, I_PILES = range(7)
SNAP_WORDS = I_PILES + 5            # a simple ruleset has at most 5 suits
MAX_TRIES = 4096                    # deals tried for one kept determinization at most
INFER_STREAM = 0x1A9                # the other seat's stream while it is asked (its tie-breaks)
_ONE = 1 << 24                      # the acceptance draw's resolution


@jit(inline=True)
def can_infer(obs):
    """The inference applies: 2 players and a simple ruleset (at most 5 suits)."""
    return players(obs) == 2 and suits(obs) <= 5


@jit(inline=True)
def remember(st, snap, card):
    """After the seat's own move (`card` played), played on `st` (any determinization: only the
    table and the card it drew off a pile, if any, are read), keep the other side's view of the
    table in `snap` (``SNAP_WORDS`` scratch words)."""
    opp = st[S_SEAT] & 1                # the seat to move now: the other one
    mine = np.int64(snap[I_MINE]) & ~(np.int64(1) << card)       # zero when the round is dealt
    snap[I_MINE] = np.uint64(mine | st[known_at(opp ^ 1, 0, 0, 0)])
    snap[I_TURN] = np.uint64(st[S_TURN])
    snap[I_EXP] = np.uint64(st[S_EXP + 2 * opp])
    snap[I_ACC] = np.uint64(st[S_ACC + 2 * opp])
    snap[I_STALL] = np.uint64(st[S_STALL])
    snap[I_POS] = np.uint64(st[S_DECK_POS])
    for s in range(5):
        snap[I_PILES + s] = np.uint64(st[S_PILE + 2 * s]) if s < st[R_SUITS] else np.uint64(0)


@jit(inline=True)
def forget_move(snap):
    """No snapshot: the next decisions deal uniformly (a move not remembered)."""
    snap[I_TURN] = np.uint64(0)


@jit
def last_move(obs, base, snap, out):
    """The other seat's move since the snapshot, read off the table (``base``: the known state of
    `obs`): out = (card, to, draw, the card drawn off a pile or -1); False when there is no
    snapshot of the turn before or the table does not show exactly one play and one draw."""
    t = np.int64(snap[I_TURN])
    if t == 0 or obs.turn != t + 1:
        return False
    opp = seat(obs) ^ 1
    x = np.int64(-1)
    to = np.int64(-1)
    draw = np.int64(-1)
    y = np.int64(-1)
    draws = 0
    new = base[S_EXP + 2 * opp] & ~np.int64(snap[I_EXP])
    if new != 0:
        if popcount(new) != 1:
            return False
        x = trailing_zeros(new)
        to = TO_EXPEDITION
    for s in range(suits(obs)):
        now = base[S_PILE + 2 * s]
        was = np.int64(snap[I_PILES + s])
        if now == was:
            continue
        if (now >> 4) == was and x < 0:
            x = SLOTS * s + (now & 15) - 1
            to = TO_DISCARD
        elif now == (was >> 4):
            draw = draw_pile(s)
            y = SLOTS * s + (was & 15) - 1
            draws += 1
        else:
            return False
    moved = (base[R_CARDS] - deck_size(obs)) - np.int64(snap[I_POS])
    if moved == 1:
        draw = DRAW_DECK
        draws += 1
    elif moved != 0:
        return False
    if x < 0 or draws != 1:
        return False
    out[0] = x
    out[1] = to
    out[2] = draw
    out[3] = y
    return True


@jit(inline=True)
def believes(d, st, snap, lm, kn, rng, mem, one, decide_at, params, seed, i):
    """Whether the base, in the other seat's place just before its last move on determinization
    `d`, makes that move (lm: ``last_move``'s out; kn: the cards known to be in its hand)."""
    for w in range(STATE_WORDS):
        st[w] = d[w]
    opp = st[S_SEAT] ^ 1
    st[S_EXP + 2 * opp] = np.int64(snap[I_EXP])
    st[S_ACC + 2 * opp] = np.int64(snap[I_ACC])
    ne = np.int64(0)
    for s in range(st[R_SUITS]):
        pw = np.int64(snap[I_PILES + s])
        st[S_PILE + 2 * s] = pw
        ne |= np.int64(pw != 0) << s
    st[S_NONEMPTY] = ne
    st[S_STALL] = np.int64(snap[I_STALL])
    st[S_DECK_POS] = np.int64(snap[I_POS])
    st[S_TURN] -= 1
    st[S_SEAT] = opp
    st[known_at(opp ^ 1, 0, 0, 0)] = np.int64(snap[I_MINE])     # what it knew of this seat's hand
    h = hand_at(opp, 0, 0)
    hand = st[h]
    x, to, draw, y = lm[0], lm[1], lm[2], lm[3]
    if draw == DRAW_DECK:           # the card it drew is one this seat cannot place
        unknown = hand & ~kn
        n = popcount(unknown)
        if n == 0:
            return True
        y = kth_bit(unknown, below(rng, n))
    st[h] = (hand & ~(np.int64(1) << y)) | (np.int64(1) << x)
    for w in range(SLOT_MEM_WORDS):
        mem[w] = np.uint64(0)
    seed_stream(offset(mem, opp * MEM_WORDS + M_RNG), seed, INFER_STREAM * STREAM_STRIDE + i, 1 + opp)
    one[0] = 0
    call_decide_at(decide_at, st, mem, one, 1, params, offset(one, 1))
    m = one[1]
    return (not is_pass(m)) and move_card(m) == x and move_to(m) == to and move_draw(m) == draw


@jit
def deal_believing(dets, k, obs, base, used, need, pool, rng, snap, floor, st, mem, one, lm,
                   decide_at, params, seed):
    """``playouts.deal_determinizations`` for 2 players, each deal kept with probability 1 when the
    base would have made the other seat's last move there, else `floor` (module docstring); the
    deals tried are returned (k when there is no move to believe).  Scratch as
    ``deal_determinizations``'s, plus `st` (a state block), `mem` (a slot memory), `one` (2 words),
    `lm` (4 words)."""
    n_pool = determinization_base(obs, (np.int64(0), np.int64(0)), base, used, need, pool)
    n_deck = deck_size(obs)
    ok = last_move(obs, base, snap, lm)
    kn = known(obs, seat(obs) ^ 1)[0]
    cut = np.int64(floor * _ONE)
    tried = np.int64(0)
    for i in range(k):
        d = offset(dets, i * STATE_WORDS)
        for _ in range(MAX_TRIES):
            sample(d, base, STATE_WORDS, pool, n_pool, need, n_deck, rng)
            tried += 1
            if not ok:
                break
            if believes(d, st, snap, lm, kn, rng, mem, one, decide_at, params, seed, tried):
                break
            if below(rng, _ONE) < cut:
                break
    return tried
