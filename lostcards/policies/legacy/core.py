"""The numba engine: the fast twin of ``reference.py``.

A round's state lives in two flat int32 arrays per worker: ``S``, what only
the engine may see (the deck order, physical card ids, statistics), and ``O``,
one observation row per seat (``observation.py``: what that seat may see; the
public table is written into every row).  The batch loop is jitted and calls
the two jitted policies directly, handing each its own row and its own random
stream, never the state.  Every round is a pure function of (ruleset, seed,
round index, policies), so results do not depend on threads or batch sizes.

Moves are int64 codes (``make_play`` / ``make_pass``); the engine checks each
one, and an illegal move stops that round with an error code (``ERRORS``).
"""
from __future__ import annotations

import numpy as np
from numba import njit

from lostcards.policies.legacy.observation import (
    HMAX,
    NSUITS,
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
    OBS_LEN,
    PMAX,
)
from lostcards.policies.legacy.rng import below, seed_stream
from lostcards.rules.cards import MAX_CODES, SLOTS
from lostcards.rules.outcome import Ending
from lostcards.rules.ruleset import (
    P_BONUS_CARDS,
    P_BONUS_POINTS,
    P_COST,
    P_HAND,
    P_LEN,
    P_PASS_MIN,
    P_PASS_TWICE,
    P_PLAYERS,
    P_STALL,
    P_SUITS,
    P_TURN_CAP,
)

NMAX = 126   # most cards a deck can hold: 6 suits x (3 investments + 9 numbers + 9 second copies)

# ---- moves --------------------------------------------------------------------
TO_EXPEDITION, TO_DISCARD = 0, 1
DRAW_DECK, DRAW_NONE = 0, 7          # 1 + suit: that suit's discard pile
PASS_FLAG = 1 << 16


@njit(cache=True, inline="always")
def make_play(card, to, draw):
    """A play: `card` (code) to the expedition (0) or discard (1), then `draw`
    (0 the deck, 1 + suit a discard pile, 7 nothing: solitaire)."""
    return np.int64(card) | (np.int64(to) << 8) | (np.int64(draw) << 9)


@njit(cache=True, inline="always")
def make_pass(card1, card2):
    """A 4-player pass of two cards (codes) to the partner."""
    return np.int64(PASS_FLAG) | np.int64(card1) | (np.int64(card2) << 8)


# ---- ending and error codes ---------------------------------------------------
# the codes of lostcards.rules.outcome.Ending (compile-time constants for numba)
END_NONE, END_DECK, END_STALL = Ending.UNFINISHED.code, Ending.DECK.code, Ending.STALL.code
END_HAND_EMPTY, END_CAPPED = Ending.HAND_EMPTY.code, Ending.CAPPED.code
ERRORS = {
    1: "the card played is not in the hand",
    2: "the expedition does not take that card (an investment after a number, "
       "or a number not higher than its highest)",
    3: "the draw names an empty or unknown pile, or the deck when it cannot be drawn",
    4: "the draw takes back the card just discarded",
    5: "a pass is not allowed now",
    6: "the passed cards are not in the hand",
    7: "not a move code",
    8: "the round is longer than the turn log",
}

# ---- the engine's own state (S) -------------------------------------------------
S_DECK_POS = 0        # next card of the deck, an index into S_ORDER
S_DECK_END = 1
S_ENDED = 2
S_TURN = 3
S_STALL = 4
S_PASSED = 5          # 5..8: the seat passed on its previous own turn
S_ORDER = 9           # the shuffled deck, physical ids
S_HAND_PID = S_ORDER + NMAX             # [seat * HMAX + i]: physical id of hand card i
S_PILE_PID = S_HAND_PID + 4 * HMAX      # [suit * PMAX + k]
S_REACHED = S_PILE_PID + NSUITS * PMAX  # [seat * NMAX + pid]: was in that hand this round
S_STATS = S_REACHED + 4 * NMAX          # [seat * 5 + k]: plays, discards, deck, pile draws, passes
S_LEN = S_STATS + 20
STAT_PLAYS, STAT_DISCARDS, STAT_DECK, STAT_PILE, STAT_PASSES = range(5)


def new_state():
    """Working arrays for one worker, reused round after round."""
    return np.zeros(S_LEN, np.int32), np.zeros((4, OBS_LEN), np.int32), np.zeros((5, 4), np.uint64)


new_state_nb = njit(cache=True)(new_state)   # the same, callable from numba


@njit(cache=True, inline="always")
def side_of(seat, players):
    return seat % 2 if players > 1 else 0


@njit(cache=True, inline="always")
def _public(O, players, idx, value):
    """Write a public fact into every seat's observation."""
    for s in range(players):
        O[s, idx] = value


@njit(cache=True, inline="always")
def _public_add(O, players, idx, delta):
    for s in range(players):
        O[s, idx] += delta


@njit(cache=True, inline="always")
def _insert(S, O, seat, code, pid):
    """Put a card into a hand kept sorted by physical id."""
    i = O[seat, O_HAND_LEN]
    base = S_HAND_PID + seat * HMAX
    while i > 0 and S[base + i - 1] > pid:
        O[seat, O_HAND + i] = O[seat, O_HAND + i - 1]
        S[base + i] = S[base + i - 1]
        i -= 1
    O[seat, O_HAND + i] = code
    S[base + i] = pid
    O[seat, O_HAND_LEN] += 1


@njit(cache=True, inline="always")
def _find(O, seat, code):
    """Position of the first (lowest physical id) card of `code` in the hand, or -1."""
    for i in range(O[seat, O_HAND_LEN]):
        if O[seat, O_HAND + i] == code:
            return i
    return -1


@njit(cache=True, inline="always")
def _take(S, O, seat, i):
    """Remove hand card i; returns its physical id."""
    base = S_HAND_PID + seat * HMAX
    pid = S[base + i]
    n = O[seat, O_HAND_LEN] - 1
    for k in range(i, n):
        O[seat, O_HAND + k] = O[seat, O_HAND + k + 1]
        S[base + k] = S[base + k + 1]
    O[seat, O_HAND_LEN] = n
    return pid


@njit(cache=True)
def deal(P, pid_code, seed, round_index, S, O, rng):
    """Shuffle with stream 0 and deal (docs/engine.md); resets the whole state."""
    players = P[P_PLAYERS]
    n_cards = pid_code.shape[0]
    h = P[P_HAND]
    S[:] = 0
    O[:, :] = 0
    r = rng[0]
    seed_stream(r, seed, round_index, 0)
    for i in range(n_cards):
        S[S_ORDER + i] = i
    for i in range(n_cards - 1, 0, -1):
        j = below(r, i + 1)
        t = S[S_ORDER + i]
        S[S_ORDER + i] = S[S_ORDER + j]
        S[S_ORDER + j] = t
    off = n_cards - n_cards // 2 if players == 1 else 0
    for seat in range(players):
        for k in range(P_LEN):
            O[seat, O_RULES + k] = P[k]
        O[seat, O_SEAT] = seat
        O[seat, O_SIDE] = side_of(seat, players)
        for k in range(h):
            pid = S[S_ORDER + off + seat * h + k]
            _insert(S, O, seat, pid_code[pid], pid)
            S[S_REACHED + seat * NMAX + pid] = 1
        seed_stream(rng[1 + seat], seed, round_index, 1 + seat)
    S[S_DECK_POS] = off + players * h
    S[S_DECK_END] = n_cards
    _public(O, players, O_DECK, n_cards - off - players * h)
    S[S_ENDED] = END_NONE


@njit(cache=True, inline="always")
def can_pass(P, S, O, seat):
    return (P[P_PLAYERS] == 4 and O[seat, O_HAND_LEN] >= P[P_PASS_MIN]
            and (P[P_PASS_TWICE] != 0 or S[S_PASSED + seat] == 0))


@njit(cache=True, inline="always")
def _forget(O, players, seat, code, keep):
    """`seat` no longer surely holds a card of `code`: others stop knowing it."""
    idx = O_KNOWN + seat * MAX_CODES + code
    for o in range(players):
        if o != keep and O[o, idx] > 0:
            O[o, idx] -= 1


@njit(cache=True, inline="always")
def _end_checks(P, S, O, players, deck_emptied):
    turn = S[S_TURN]
    if deck_emptied:
        S[S_ENDED] = END_DECK
    elif P[P_STALL] > 0 and S[S_STALL] >= P[P_STALL] * players:
        S[S_ENDED] = END_STALL
    elif players == 1 and O[0, O_HAND_LEN] == 0:
        S[S_ENDED] = END_HAND_EMPTY
    elif P[P_TURN_CAP] > 0 and turn >= P[P_TURN_CAP]:
        S[S_ENDED] = END_CAPPED


@njit(cache=True, inline="always")
def _apply_pass(P, S, O, seat, move):
    players = P[P_PLAYERS]
    if not can_pass(P, S, O, seat):
        return 5
    c1 = move & 255
    c2 = (move >> 8) & 255
    i1 = _find(O, seat, c1)
    if i1 < 0:
        return 6
    p1 = _take(S, O, seat, i1)
    i2 = _find(O, seat, c2)
    if i2 < 0:
        _insert(S, O, seat, c1, p1)      # put it back: an illegal move changes nothing
        return 6
    p2 = _take(S, O, seat, i2)
    partner = (seat + 2) % 4
    _insert(S, O, partner, c1, p1)
    _insert(S, O, partner, c2, p2)
    S[S_REACHED + partner * NMAX + p1] = 1
    S[S_REACHED + partner * NMAX + p2] = 1
    _forget(O, players, seat, c1, -1)
    _forget(O, players, seat, c2, -1)
    O[seat, O_KNOWN + partner * MAX_CODES + c1] += 1
    O[seat, O_KNOWN + partner * MAX_CODES + c2] += 1
    S[S_PASSED + seat] = 1
    S[S_STATS + seat * 5 + STAT_PASSES] += 1
    S[S_TURN] += 1
    _public(O, players, O_TURN, S[S_TURN])
    _end_checks(P, S, O, players, False)
    return 0


@njit(cache=True, inline="always")
def _apply_play(P, pid_code, S, O, seat, move):
    players = P[P_PLAYERS]
    side = side_of(seat, players)
    code = move & 255
    to = (move >> 8) & 1
    draw = (move >> 9) & 7
    if move >= (1 << 12) or code >= P[P_SUITS] * SLOTS:
        return 7
    i = _find(O, seat, code)
    if i < 0:
        return 1
    suit = code // SLOTS
    slot = code % SLOTS
    xi = side * NSUITS + suit
    if to == TO_EXPEDITION:
        top = O[0, O_EXP_TOP + xi]
        if (slot < 3 and top != 0) or (slot >= 3 and slot <= top):
            return 2
    deck_left = S[S_DECK_END] - S[S_DECK_POS]
    # the draw is checked before anything moves, so an illegal move changes nothing
    if players > 1:
        if draw != DRAW_DECK:
            ds = draw - 1
            if ds >= P[P_SUITS]:
                return 3
            if to == TO_DISCARD and ds == suit:
                return 4
            if O[0, O_PILE_LEN + ds] == 0:
                return 3
    elif draw == DRAW_DECK and deck_left == 0:
        return 3
    elif draw != DRAW_DECK and draw != DRAW_NONE:
        return 3
    pid = _take(S, O, seat, i)
    _forget(O, players, seat, code, seat)
    stats = S_STATS + seat * 5
    if to == TO_EXPEDITION:
        _public_add(O, players, O_EXP_COUNT + xi, 1)
        _public_add(O, players, O_EXP_MASK + xi, 1 << slot)
        if slot < 3:
            _public_add(O, players, O_EXP_INV + xi, 1)
        else:
            _public_add(O, players, O_EXP_SUM + xi, slot - 1)
            _public(O, players, O_EXP_TOP + xi, slot)
    else:
        S[stats + STAT_DISCARDS] += 1
        if players > 1:
            k = O[0, O_PILE_LEN + suit]
            _public(O, players, O_PILE + suit * PMAX + k, code)
            _public(O, players, O_PILE_LEN + suit, k + 1)
            S[S_PILE_PID + suit * PMAX + k] = pid
    S[stats + STAT_PLAYS] += 1
    S[S_PASSED + seat] = 0
    from_pile = False
    deck_emptied = False
    if draw == DRAW_DECK or (players == 1 and deck_left > 0):
        if deck_left > 0:
            p = S[S_ORDER + S[S_DECK_POS]]
            S[S_DECK_POS] += 1
            _insert(S, O, seat, pid_code[p], p)
            S[S_REACHED + seat * NMAX + p] = 1
            S[stats + STAT_DECK] += 1
            _public(O, players, O_DECK, deck_left - 1)
            deck_emptied = players > 1 and deck_left == 1
    elif players > 1:
        ds = draw - 1
        k = O[0, O_PILE_LEN + ds] - 1
        c = O[0, O_PILE + ds * PMAX + k]
        p = S[S_PILE_PID + ds * PMAX + k]
        _public(O, players, O_PILE_LEN + ds, k)
        _insert(S, O, seat, c, p)
        S[S_REACHED + seat * NMAX + p] = 1
        S[stats + STAT_PILE] += 1
        idx = O_KNOWN + seat * MAX_CODES + c
        for o in range(players):
            if o != seat:
                O[o, idx] += 1
        from_pile = True
    if to == TO_DISCARD and from_pile:
        S[S_STALL] += 1
    else:
        S[S_STALL] = 0
    S[S_TURN] += 1
    _public(O, players, O_STALL, S[S_STALL])
    _public(O, players, O_TURN, S[S_TURN])
    _end_checks(P, S, O, players, deck_emptied)
    return 0


@njit(cache=True, inline="always")
def apply_move(P, pid_code, S, O, seat, move):
    """Apply `seat`'s move; returns 0, or an error code (ERRORS) for an illegal move."""
    if move < 0 or move >= (1 << 17):
        return 7
    if move & PASS_FLAG:
        return _apply_pass(P, S, O, seat, move)
    return _apply_play(P, pid_code, S, O, seat, move)


@njit(cache=True, inline="always")
def expedition_score(P, total, investments, cards):
    """(sum - cost) x (investments + 1), + the bonus at bonus_cards; 0 if empty."""
    if cards == 0:
        return 0
    s = (total - P[P_COST]) * (investments + 1)
    if cards >= P[P_BONUS_CARDS]:
        s += P[P_BONUS_POINTS]
    return s
