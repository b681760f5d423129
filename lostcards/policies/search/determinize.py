"""Determinizations for search bots: sample the hidden cards, then play them out.

A seat's observation (``observation.py``) fixes the table, its own hand and the
cards other seats are known to hold; the rest (other hands, the draw pile's
order) is hidden.  ``sample`` deals the hidden cards at random consistently
with the observation, into a compact full-information state ``W`` (one flat
int32 array, ``W_*`` offsets), and ``sim_apply`` plays moves on it by the rules
of ``docs/engine.md`` (same move codes as the engine), so a bot can play a
determinized round to its end many times a millisecond.

What is hidden, and how it is dealt (docs/search.md):

- unseen cards = the ruleset's full deck minus the own hand, both sides'
  expeditions, every discard pile and the cards each other seat is known to hold;
- each other seat holds its known cards plus unseen cards up to its hand size,
  drawn with weights for what that seat tends to keep (``hand_weights``; equal
  weights: uniform); the rest, shuffled, is the draw pile (``obs[O_DECK]`` cards).
- hand sizes: with 2 players every hand holds ``hand_size`` cards.  With 4
  players a pass moves cards inside a team, so each team always holds
  ``2 * hand_size`` cards: the partner holds ``2 * hand_size - own``; the two
  opponents are assumed to hold ``hand_size`` each, moved only as far as needed
  for each to hold its known cards (at least one card each).
- solitaire: the observation does not show the cards discarded (they leave the
  game), so they stay in the unseen pool with the set-aside half; the draw pile
  is ``obs[O_DECK]`` cards of that pool.

Hands in ``W`` are unordered (a move names a card by its code; copies are
identical).  ``to_engine`` turns a determinization into the engine's own state
arrays, so rollouts can run through ``engine.apply_move`` and any numba policy.
Only ``lostcards.rng.below`` draws random numbers.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from lostcards.numba_cache import bind_cache, module_files
from lostcards.policies.legacy.core import (
    DRAW_DECK,
    DRAW_NONE,
    END_CAPPED,
    END_DECK,
    END_HAND_EMPTY,
    END_NONE,
    END_STALL,
    PASS_FLAG,
    S_DECK_END,
    S_DECK_POS,
    S_ENDED,
    S_HAND_PID,
    S_ORDER,
    S_PASSED,
    S_PILE_PID,
    S_STALL,
    S_TURN,
)
from lostcards.policies.legacy.observation import (
    HMAX,
    NSUITS,
    O_CAN_PASS,
    O_DECK,
    O_EXP_COUNT,
    O_EXP_INV,
    O_EXP_MASK,
    O_EXP_SUM,
    O_EXP_TOP,
    O_HAND,
    O_HAND_LEN,
    O_KNOWN,
    O_PILE,
    O_PILE_LEN,
    O_RULES,
    O_SEAT,
    O_SIDE,
    O_STALL,
    O_TURN,
    PMAX,
)
from lostcards.policies.legacy.rng import below
from lostcards.rules.cards import MAX_CODES, SLOTS
from lostcards.rules.ruleset import (
    P_BONUS_CARDS,
    P_BONUS_POINTS,
    P_COST,
    P_EXTRA_MASK,
    P_HAND,
    P_INVESTMENTS,
    P_LEN,
    P_NUMBERS_MASK,
    P_PLAYERS,
    P_STALL,
    P_SUITS,
    P_TURN_CAP,
)

NMAX = 96            # most cards a deck can hold

# ---- the full-information state W ------------------------------------------------
W_DECK_N = 0         # cards in the draw pile at the start (W_DECK[W_DECK_POS:W_DECK_N] remain)
W_DECK_POS = 1
W_STALL = 2
W_TURN = 3
W_ENDED = 4          # END_* of engine.py
W_SEAT = 5           # the seat the observation belongs to
W_HLEN = 6           # [seat]: cards in hand
W_TARGET = 10        # [seat]: hand size a determinization deals it (sampling only)
W_TOP = 14           # [side * 6 + suit]: highest number's slot, 0 if none (as O_EXP_TOP)
W_SUM = W_TOP + 2 * NSUITS
W_INV = W_SUM + 2 * NSUITS
W_CNT = W_INV + 2 * NSUITS
W_PLEN = W_CNT + 2 * NSUITS       # [suit]
W_PILE = W_PLEN + NSUITS          # [suit * PMAX + k], bottom first
W_HAND = W_PILE + NSUITS * PMAX   # [seat * HMAX + i]
W_DECK = W_HAND + 4 * HMAX        # top first from W_DECK_POS
W_LEN = W_DECK + NMAX


@njit(cache=True, inline="always")
def w_side(seat, players):
    return seat % 2 if players > 1 else 0


def new_w():
    return np.zeros(W_LEN, np.int32)


@njit(cache=True)
def deck_counts(R, counts):
    """counts[code] = copies of `code` in the ruleset's full deck (R: the P_* array)."""
    counts[:] = 0
    numbers = R[P_NUMBERS_MASK]
    extra = R[P_EXTRA_MASK] if R[P_PLAYERS] == 4 else 0
    for s in range(R[P_SUITS]):
        for slot in range(R[P_INVESTMENTS]):
            counts[s * SLOTS + slot] = 1
        for slot in range(3, SLOTS):
            if (numbers >> slot) & 1:
                counts[s * SLOTS + slot] = 2 if (extra >> slot) & 1 else 1


@njit(cache=True)
def unseen_counts(obs, counts):
    """counts[code] = copies of `code` this seat cannot place: the full deck minus
    the own hand, the expeditions, the discard piles and other seats' known cards.
    Returns the total, or -1 if the observation is inconsistent (a count below 0)."""
    R = obs[O_RULES:O_RULES + P_LEN]
    deck_counts(R, counts)
    players = R[P_PLAYERS]
    suits = R[P_SUITS]
    me = obs[O_SEAT]
    for i in range(obs[O_HAND_LEN]):
        counts[obs[O_HAND + i]] -= 1
    for side in range(2 if players > 1 else 1):
        for s in range(suits):
            mask = obs[O_EXP_MASK + side * NSUITS + s]
            for slot in range(SLOTS):
                if (mask >> slot) & 1:
                    counts[s * SLOTS + slot] -= 1
    for s in range(suits):
        for k in range(obs[O_PILE_LEN + s]):
            counts[obs[O_PILE + s * PMAX + k]] -= 1
    for o in range(players):
        if o != me:
            for c in range(MAX_CODES):
                counts[c] -= obs[O_KNOWN + o * MAX_CODES + c]
    total = 0
    bad = False
    for c in range(MAX_CODES):
        if counts[c] < 0:
            bad = True
        total += counts[c]
    return -1 if bad else total


@njit(cache=True)
def base_state(obs, W, pool):
    """Fill W with everything the observation fixes (table, own hand, other seats'
    known cards, hand sizes to deal) and `pool` with the unseen cards' codes.
    Returns the pool's size (-1: an inconsistent observation)."""
    R = obs[O_RULES:O_RULES + P_LEN]
    players = R[P_PLAYERS]
    suits = R[P_SUITS]
    h = R[P_HAND]
    me = obs[O_SEAT]
    W[:] = 0
    W[W_SEAT] = me
    W[W_STALL] = obs[O_STALL]
    W[W_TURN] = obs[O_TURN]
    W[W_ENDED] = END_NONE
    W[W_DECK_N] = obs[O_DECK]
    for i in range(2 * NSUITS):
        W[W_TOP + i] = obs[O_EXP_TOP + i]
        W[W_SUM + i] = obs[O_EXP_SUM + i]
        W[W_INV + i] = obs[O_EXP_INV + i]
        W[W_CNT + i] = obs[O_EXP_COUNT + i]
    for s in range(suits):
        n = obs[O_PILE_LEN + s]
        W[W_PLEN + s] = n
        for k in range(n):
            W[W_PILE + s * PMAX + k] = obs[O_PILE + s * PMAX + k]
    own = obs[O_HAND_LEN]
    for i in range(own):
        W[W_HAND + me * HMAX + i] = obs[O_HAND + i]
    W[W_HLEN + me] = own
    W[W_TARGET + me] = own
    for o in range(players):
        if o == me:
            continue
        n = 0
        for c in range(MAX_CODES):
            for _ in range(obs[O_KNOWN + o * MAX_CODES + c]):
                W[W_HAND + o * HMAX + n] = c
                n += 1
        W[W_HLEN + o] = n
        W[W_TARGET + o] = h
    if players == 4:
        partner = (me + 2) % 4
        W[W_TARGET + partner] = max(2 * h - own, W[W_HLEN + partner])
        o1 = (me + 1) % 4
        o2 = (me + 3) % 4
        lo = max(W[W_HLEN + o1], 1)
        hi = 2 * h - max(W[W_HLEN + o2], 1)
        t1 = min(max(h, lo), max(hi, lo))
        W[W_TARGET + o1] = t1
        W[W_TARGET + o2] = max(2 * h - t1, W[W_HLEN + o2])
    counts = np.zeros(MAX_CODES, np.int32)
    total = unseen_counts(obs, counts)
    if total < 0:
        return -1
    n = 0
    for c in range(MAX_CODES):
        for _ in range(counts[c]):
            pool[n] = c
            n += 1
    return n


# How much likelier than an average unseen card a card is to sit in an opponent's
# hand, in hundredths, by what it is to that opponent (measured on 2-player
# `expeditions`, expert against expert: an opponent keeps the numbers that
# extend its expeditions by a wide gap, lays the close ones and throws away
# what it cannot use).  See docs/search.md.
HW_DEAD = 60                            # a number at or below its expedition's highest
HW_GAP = (78, 116, 139, 162, 170)       # a number it can still lay, skipping 0, 1, 2, 3, 4+ numbers
HW_UNOPENED = (62, 81, 74, 106)         # a number of a suit it has not opened: low (2-7) / high (8-10),
                                        # the other side has not / has opened it
HW_INV_DEAD = 53                        # an investment it can no longer lay
HW_INV_OPEN = 26                        # an investment on its investments-only expedition
HW_INV_UNOPENED = 51                    # an investment of a suit it has not opened


@njit(cache=True)
def hand_weights(obs, wts, infer):
    """wts[seat * MAX_CODES + code]: relative chance (hundredths) that `code` is in
    the hand of `seat` (0 for this seat).  `infer` 0: all equal (uniform)."""
    R = obs[O_RULES:O_RULES + P_LEN]
    players = R[P_PLAYERS]
    suits = R[P_SUITS]
    me = obs[O_SEAT]
    wts[:] = 100
    if infer == 0 or players == 1:
        return
    for o in range(players):
        if o == me:
            continue
        sd = w_side(o, players)
        for s in range(suits):
            xi = sd * NSUITS + s
            top = obs[O_EXP_TOP + xi]
            opened = obs[O_EXP_COUNT + xi] > 0
            other_open = obs[O_EXP_COUNT + (1 - sd) * NSUITS + s] > 0
            for t in range(SLOTS):
                if t < 3:
                    if not opened:
                        w = HW_INV_UNOPENED
                    elif top == 0:
                        w = HW_INV_OPEN
                    else:
                        w = HW_INV_DEAD
                elif opened:
                    if t <= top:
                        w = HW_DEAD
                    else:
                        g = t - (top if top >= 3 else 2) - 1
                        w = HW_GAP[min(g, 4)]
                else:
                    w = HW_UNOPENED[(1 if t >= 9 else 0) + (2 if other_open else 0)]
                wts[o * MAX_CODES + s * SLOTS + t] = w


@njit(cache=True)
def sample(W0, pool, npool, W, scratch, rng, wts):
    """W = W0 with the hidden cards dealt at random: other seats' hands filled up to
    their target sizes, each card drawn with chance proportional to its weight
    for that seat (`hand_weights`; equal weights: uniform), then the rest,
    shuffled, as the draw pile.  Returns 0, or 1 when the pool is too small for
    the hands and the deck (the shortfall is left out of the deck)."""
    W[:] = W0
    for i in range(npool):
        scratch[i] = pool[i]
    m = npool                            # scratch[:m]: cards not dealt yet
    for o in range(4):
        n = W[W_HLEN + o]
        need = W[W_TARGET + o] - n
        if o == W[W_SEAT] or need <= 0:
            continue
        base = W_HAND + o * HMAX
        wb = o * MAX_CODES
        while need > 0 and m > 0:
            total = 0
            for i in range(m):
                total += wts[wb + scratch[i]]
            x = below(rng, total)
            k = 0
            while k < m - 1:
                x -= wts[wb + scratch[k]]
                if x < 0:
                    break
                k += 1
            W[base + n] = scratch[k]
            scratch[k] = scratch[m - 1]
            m -= 1
            n += 1
            need -= 1
        W[W_HLEN + o] = n
    nd = W0[W_DECK_N]
    short = 0
    if nd > m:
        nd = m
        short = 1
    for i in range(nd):                  # Fisher-Yates over what is left, front to back
        j = i + below(rng, m - i)
        t = scratch[i]
        scratch[i] = scratch[j]
        scratch[j] = t
        W[W_DECK + i] = scratch[i]
    W[W_DECK_N] = nd
    W[W_DECK_POS] = 0
    return short


# ---- playing moves on W -------------------------------------------------------------

@njit(cache=True, inline="always")
def _hand_remove(W, seat, code):
    base = W_HAND + seat * HMAX
    n = W[W_HLEN + seat]
    for i in range(n):
        if W[base + i] == code:
            W[base + i] = W[base + n - 1]
            W[W_HLEN + seat] = n - 1
            return True
    return False


@njit(cache=True, inline="always")
def _hand_add(W, seat, code):
    n = W[W_HLEN + seat]
    W[W_HAND + seat * HMAX + n] = code
    W[W_HLEN + seat] = n + 1


@njit(cache=True, inline="always")
def _end_checks(W, R, players, deck_emptied):
    if deck_emptied:
        W[W_ENDED] = END_DECK
    elif R[P_STALL] > 0 and W[W_STALL] >= R[P_STALL] * players:
        W[W_ENDED] = END_STALL
    elif players == 1 and W[W_HLEN] == 0:
        W[W_ENDED] = END_HAND_EMPTY
    elif R[P_TURN_CAP] > 0 and W[W_TURN] >= R[P_TURN_CAP]:
        W[W_ENDED] = END_CAPPED


@njit(cache=True)
def sim_apply(W, R, seat, move):
    """Play `seat`'s move (engine move code) on W by the rules; returns 0, or the
    engine's error code for an illegal move (W unchanged then)."""
    players = R[P_PLAYERS]
    if move < 0 or move >= (1 << 17):
        return 7
    if move & PASS_FLAG:
        if players != 4:
            return 5
        c1 = move & 255
        c2 = (move >> 8) & 255
        if not _hand_remove(W, seat, c1):
            return 6
        if not _hand_remove(W, seat, c2):
            _hand_add(W, seat, c1)
            return 6
        partner = (seat + 2) % 4
        _hand_add(W, partner, c1)
        _hand_add(W, partner, c2)
        W[W_TURN] += 1
        _end_checks(W, R, players, False)
        return 0
    code = move & 255
    to = (move >> 8) & 1
    draw = (move >> 9) & 7
    if move >= (1 << 12) or code >= R[P_SUITS] * SLOTS:
        return 7
    suit = code // SLOTS
    slot = code % SLOTS
    xi = w_side(seat, players) * NSUITS + suit
    if to == 0:
        top = W[W_TOP + xi]
        if (slot < 3 and top != 0) or (slot >= 3 and slot <= top):
            return 2
    deck_left = W[W_DECK_N] - W[W_DECK_POS]
    if players > 1:
        if draw != DRAW_DECK:
            ds = draw - 1
            if ds >= R[P_SUITS]:
                return 3
            if to == 1 and ds == suit:
                return 4
            if W[W_PLEN + ds] == 0:
                return 3
    elif draw == DRAW_DECK and deck_left == 0:
        return 3
    elif draw != DRAW_DECK and draw != DRAW_NONE:
        return 3
    if not _hand_remove(W, seat, code):
        return 1
    if to == 0:
        W[W_CNT + xi] += 1
        if slot < 3:
            W[W_INV + xi] += 1
        else:
            W[W_SUM + xi] += slot - 1
            W[W_TOP + xi] = slot
    elif players > 1:
        k = W[W_PLEN + suit]
        W[W_PILE + suit * PMAX + k] = code
        W[W_PLEN + suit] = k + 1
    from_pile = False
    deck_emptied = False
    if draw == DRAW_DECK or (players == 1 and deck_left > 0):
        if deck_left > 0:
            _hand_add(W, seat, W[W_DECK + W[W_DECK_POS]])
            W[W_DECK_POS] += 1
            deck_emptied = players > 1 and deck_left == 1
    elif players > 1:
        ds = draw - 1
        k = W[W_PLEN + ds] - 1
        _hand_add(W, seat, W[W_PILE + ds * PMAX + k])
        W[W_PLEN + ds] = k
        from_pile = True
    if to == 1 and from_pile:
        W[W_STALL] += 1
    else:
        W[W_STALL] = 0
    W[W_TURN] += 1
    _end_checks(W, R, players, deck_emptied)
    return 0


@njit(cache=True, inline="always")
def side_score(W, R, side):
    """A side's score as the table stands (SPEC §2 scoring)."""
    total = 0
    for s in range(R[P_SUITS]):
        xi = side * NSUITS + s
        n = W[W_CNT + xi]
        if n > 0:
            v = (W[W_SUM + xi] - R[P_COST]) * (W[W_INV + xi] + 1)
            if n >= R[P_BONUS_CARDS]:
                v += R[P_BONUS_POINTS]
            total += v
    return total


@njit(cache=True, inline="always")
def margin(W, R, side):
    """Own side's score minus the other side's (solitaire: the own score)."""
    if R[P_PLAYERS] == 1:
        return side_score(W, R, 0)
    return side_score(W, R, side) - side_score(W, R, 1 - side)


# ---- a determinization as engine state (for rollouts through engine.apply_move) ------

@njit(cache=True)
def canonical_pids(R, pid_code, first_pid):
    """pid_code[pid] = code for the canonical deck (cards.deck_codes order) and
    first_pid[code] = the pid of its first copy.  Returns the deck size."""
    counts = np.zeros(MAX_CODES, np.int32)
    deck_counts(R, counts)
    n = 0
    for c in range(MAX_CODES):
        first_pid[c] = n
        for _ in range(counts[c]):
            pid_code[n] = c
            n += 1
    return n


@njit(cache=True, inline="always")
def _next_pid(next_pid, code):
    p = next_pid[code]
    next_pid[code] = p + 1
    return p


@njit(cache=True)
def to_engine(W, obs, first_pid, S, O):
    """The engine's state arrays (S, O: see engine.py) for the determinization W of
    the observation `obs`: every seat's observation row, the draw pile, physical
    ids.  What other seats know of each other is taken from `obs` (cards drawn
    off piles are public); what they know of this seat's hand is not in `obs`
    and is left empty.  Passed-last-turn flags: this seat's from O_CAN_PASS, the
    others' 0."""
    R = obs[O_RULES:O_RULES + P_LEN]
    players = R[P_PLAYERS]
    me = obs[O_SEAT]
    S[:] = 0
    next_pid = first_pid.copy()
    for seat in range(players):
        row = O[seat]
        row[:] = obs
        row[O_SEAT] = seat
        row[O_SIDE] = w_side(seat, players)
        row[O_CAN_PASS] = 0
        n = W[W_HLEN + seat]
        # the hand, sorted by physical id (= by code; copies take consecutive ids)
        for i in range(n):
            c = W[W_HAND + seat * HMAX + i]
            k = i
            while k > 0 and row[O_HAND + k - 1] > c:
                row[O_HAND + k] = row[O_HAND + k - 1]
                k -= 1
            row[O_HAND + k] = c
        row[O_HAND_LEN] = n
        for i in range(n):
            S[S_HAND_PID + seat * HMAX + i] = _next_pid(next_pid, row[O_HAND + i])
        if seat != me:
            for c in range(MAX_CODES):
                row[O_KNOWN + me * MAX_CODES + c] = 0
                row[O_KNOWN + seat * MAX_CODES + c] = 0
    for seat in range(players, 4):
        O[seat, :] = 0
    for s in range(R[P_SUITS]):
        for k in range(W[W_PLEN + s]):
            S[S_PILE_PID + s * PMAX + k] = _next_pid(next_pid, W[W_PILE + s * PMAX + k])
    nd = W[W_DECK_N] - W[W_DECK_POS]
    for i in range(nd):
        S[S_ORDER + i] = _next_pid(next_pid, W[W_DECK + W[W_DECK_POS] + i])
    S[S_DECK_POS] = 0
    S[S_DECK_END] = nd
    S[S_ENDED] = END_NONE
    S[S_TURN] = W[W_TURN]
    S[S_STALL] = W[W_STALL]
    if players == 4 and obs[O_CAN_PASS] == 0:
        S[S_PASSED + me] = 1
    for seat in range(players):
        O[seat, O_DECK] = nd
        O[seat, O_STALL] = W[W_STALL]
        O[seat, O_TURN] = W[W_TURN]


# ---- numba's disk cache and other files ------------------------------------------------

def _bind_own_cache():
    from lostcards.policies.legacy import core, observation, rng
    from lostcards.rules import cards, outcome, ruleset, streams
    bind_cache(globals(), module_files(cards, outcome, ruleset, streams, core, observation, rng))


_bind_own_cache()
