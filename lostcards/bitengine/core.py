"""The rules core: deal, legality, apply, end checks, scoring and observe, on one state block.

A round's state is one block of ``STATE_WORDS`` int64 words (``layout.STATE``):
the rules block, copied in once per batch, then the round.  Every function here
takes a raw pointer ``st`` to such a block (``bits.ptr(array)``), so nothing on
the per-turn path touches a reference-counted array.  Cards are bits (two words
a card set, see ``layout``); discard piles are stacks of 4-bit entries; copies
of a card (4 players) are told apart by plane (first copy, second copy) so the
statistics count physical cards, while policies see only counts.

The state API (for the batch loop and for search bots that play out their own
guesses of the hidden cards, all inside numba):

- ``rules_block(ruleset)`` (Python) -> int64 array; ``load_rules(st, rb)`` copies
  it into a block; ``rules_from_obs(st, obs)`` builds it from an observation.
- ``deal(st, mem, seed, round_index, first, totals)``: shuffle and deal as
  ``docs/engine.md`` says; ``mem`` is the seats' memory (``layout.SEAT_MEM``
  per seat), whose streams it seeds.
- ``clear_round(st)``, ``add_to_hand(st, seat, card)``, ``set_deck(st, cards,
  n)``, ``set_table_from_obs(st, obs)``: build a state by hand (a
  determinization: the observation's table, the bot's guess of hands and deck).
- ``check(st, move)`` -> 0 or an ``Illegal`` code, changes nothing;
  ``apply(st, move)`` -> the same, and on 0 plays the move, runs the end checks
  (deck, stall, hand-empty, capped, in that order) and passes the turn on.
- ``ended(st)``, ``seat_to_move(st)``, ``side_score(st, side)``,
  ``expedition_score(lane, cost, bonus_cards, bonus_points)`` (the one scoring
  function), ``observe(st, seat)`` -> ``Obs`` (what that seat may see: SPEC §3).
- ``copy_state(dst, src)``: one block onto another (a search bot's scratch copy).
"""
from __future__ import annotations

import numpy as np
from numba import njit, types

from ..rules.cards import SLOTS, deck_codes
from .streams import below, seed_stream
from .bits import as_bytes, as_u64, offset, popcount, stack_u64
from .layout import (INFO, OBS_RULES, OBS_RULES2, PILE_NO_POP, PILE_NO_PUSH, ROUND_START, RULES, R_ALL, R_ASIDE, R_BONUS_CARDS,
                     R_BONUS_POINTS, R_CANON, R_CARDS, R_COST, R_DOUBLES, R_HAND_SIZE, R_NUMBERS,
                     R_OBS_RULES, R_PASS_MIN, R_PASS_TWICE, R_PLAYERS, R_SIMPLE, R_STALL_END, R_SUITS,
                     R_TURN_CAP, S_ACC, S_COUNTS, S_DEALT, S_DECK_POS, S_ENDED, S_ERROR, S_EXP,
                     S_FIRST, S_HAND, S_KNOWN, S_NONEMPTY, S_ORDER, S_PASSED, S_PILE, S_PILE_COPY,
                     S_REACHED, S_ROUND, S_SEAT, S_SIZES, S_STALL, S_TOTALS, S_TURN, STATE_WORDS,
                     COUNTS, COUNTS2, M_RNG, MEM_WORDS, Obs)
from .moves import (DRAW_DECK, DRAW_NONE, E_DECK_EMPTY, E_DRAW_BACK, E_EMPTY_PILE,
                    E_EXPEDITION_REFUSES, E_NO_DRAW, E_NO_SUCH_PILE, E_NOT_A_MOVE, E_NOT_HELD,
                    E_PASS_HAND_SMALL, E_PASS_NOT_FOUR, E_PASS_NOT_HELD, E_PASS_TWICE,
                    E_ROUND_OVER, E_SOLITAIRE_PILE, TO_EXPEDITION, is_pass, malformed, move_card,
                    move_card2, move_draw, move_to)

ENDINGS = ("deck", "stall", "hand-empty", "capped")
END_NONE, END_DECK, END_STALL, END_HAND_EMPTY, END_CAPPED = -1, 0, 1, 2, 3
END_ILLEGAL = 4                    # stopped by an illegal move (its code in S_ERROR)

LANE = (1 << SLOTS) - 1            # one suit's slots
RULES_WORDS = RULES.size
NO_LIMIT = 1 << 62                 # R_STALL_END / R_TURN_CAP of a ruleset without that limit
HI_BASE = 60                       # code of suit 5's slot 0: bit 0 of word 1
NUMBER_SLOTS = 0xFF8               # slots 3..11 of a lane: the numbers 2..10
_K_PLAYS = 1 << COUNTS.field("plays")[0]
_K_DISCARDS = COUNTS.field("discards")[0]
_K_DECK = COUNTS.field("deck")[0]
_K_PILE = 1 << COUNTS2.field("pile")[0]
_K_PASSES = 1 << COUNTS2.field("passes")[0]
_I_SIDE, _I_DECK, _I_STALL, _I_CAN_PASS, _I_NONEMPTY = (
    INFO.field(n)[0] for n in ("side", "deck", "stall", "can_pass", "nonempty"))
_R_PLAYERS = OBS_RULES.field("players")
_I = np.int64


# ---- cards as bits ----------------------------------------------------------------------

@njit(cache=True, inline="always")
def card_word(card):
    """Which word of a card set holds `card`: 0 for suits 0-4, 1 for suit 5."""
    return _I(card >= HI_BASE)


@njit(cache=True, inline="always")
def card_bit(card):
    """The card's bit inside its word."""
    return _I(1) << (card - HI_BASE * _I(card >= HI_BASE))


@njit(cache=True, inline="always")
def suit_of(card):
    return (card * 43) >> 9            # card // 12 for codes 0..127, without a division


@njit(cache=True, inline="always")
def lane_shift(suit):
    """Where a suit's 12 slots start inside its word."""
    return SLOTS * suit - HI_BASE * _I(suit >= 5)


@njit(cache=True, inline="always")
def lane_of(lo, hi, suit):
    """A suit's 12-bit slot mask out of a card set (lo, hi)."""
    w = hi if suit >= 5 else lo
    return (w >> lane_shift(suit)) & LANE


def _lane_table():
    """[lane] -> cards | investments << 4 | sum of the numbers << 6, for every 12-slot lane."""
    t = np.zeros(1 << SLOTS, np.uint16)
    for m in range(1 << SLOTS):
        cards = bin(m).count("1")
        inv = bin(m & 7).count("1")
        total = sum(s - 1 for s in range(3, SLOTS) if m >> s & 1)
        t[m] = cards | (inv << 4) | (total << 6)
    return t


LANE_TABLE = _lane_table()


def _closes():
    """[card] -> the bits of its word that a number laid on an expedition closes: its slot and
    every slot below it in its suit (investments included); 0 for an investment."""
    t = np.zeros(72, np.int64)
    for c in range(72):
        suit, slot = divmod(c, SLOTS)
        if slot >= 3:
            base = SLOTS * suit - (HI_BASE if suit >= 5 else 0)
            t[c] = np.int64(((1 << (base + slot + 1)) - (1 << base)) & ((1 << 63) - 1))
    return t


_CLOSES = _closes()


@njit(cache=True, inline="always")
def lane_cards(lane):
    return _I(LANE_TABLE[lane & LANE]) & 15


@njit(cache=True, inline="always")
def lane_investments(lane):
    return (_I(LANE_TABLE[lane & LANE]) >> 4) & 3


@njit(cache=True, inline="always")
def lane_sum(lane):
    """Sum of the numbers in a lane (slot s is the number s - 1)."""
    return _I(LANE_TABLE[lane & LANE]) >> 6


@njit(cache=True, inline="always")
def expedition_score(lane, cost, bonus_cards, bonus_points):
    """One expedition: (sum of numbers - cost) x (investments + 1), + the bonus at bonus_cards
    cards; no cards -> 0.  The only scoring function of the numba side."""
    t = _I(LANE_TABLE[lane & LANE])
    cards = t & 15
    s = ((t >> 6) - cost) * (((t >> 4) & 3) + 1) + bonus_points * _I(cards >= bonus_cards)
    return s if cards > 0 else 0


# ---- indices into the block ------------------------------------------------------------

@njit(cache=True, inline="always")
def _hand(seat, copy, w):
    return S_HAND + (seat * 2 + copy) * 2 + w


@njit(cache=True, inline="always")
def _known(holder, view, plane, w):
    return S_KNOWN + ((holder * 2 + view) * 2 + plane) * 2 + w


@njit(cache=True, inline="always")
def _reached(seat, copy, w):
    return S_REACHED + (seat * 2 + copy) * 2 + w


@njit(cache=True, inline="always")
def _dealt(seat, copy, w):
    return S_DEALT + (seat * 2 + copy) * 2 + w


# ---- reading the state --------------------------------------------------------------------

@njit(cache=True, inline="always")
def ended(st):
    return st[S_ENDED] != END_NONE


@njit(cache=True, inline="always")
def seat_to_move(st):
    return st[S_SEAT]


@njit(cache=True, inline="always")
def hand_size(st, seat):
    if st[R_SIMPLE] != 0:                # simple rulesets keep no size word: one card set
        return popcount(st[_hand(seat, 0, 0)])
    return (st[S_SIZES] >> (8 * seat)) & 255


@njit(cache=True, inline="always")
def deck_left(st):
    return st[R_CARDS] - st[S_DECK_POS]


@njit(cache=True, inline="always")
def holds(st, seat, card):
    """How many copies of `card` the seat holds (0, 1 or 2)."""
    w = card_word(card)
    b = card_bit(card)
    return _I(st[_hand(seat, 0, w)] & b != 0) + _I(st[_hand(seat, 1, w)] & b != 0)


@njit(cache=True, inline="always")
def can_pass(st, seat):
    return (st[R_PLAYERS] == 4 and hand_size(st, seat) >= st[R_PASS_MIN]
            and (st[R_PASS_TWICE] != 0 or (st[S_PASSED] >> seat) & 1 == 0))


@njit(cache=True, inline="always")
def side_score(st, side):
    """A side's score as the table stands."""
    total = 0
    lo = st[S_EXP + 2 * side]
    hi = st[S_EXP + 2 * side + 1]
    for s in range(st[R_SUITS]):
        total += expedition_score(lane_of(lo, hi, s), st[R_COST], st[R_BONUS_CARDS], st[R_BONUS_POINTS])
    return total


# ---- changing the state ---------------------------------------------------------------------

@njit(cache=True, inline="always")
def _add(st, seat, card, copy):
    """A physical card (card, copy) into a seat's hand; it has now reached that hand."""
    w = card_word(card)
    b = card_bit(card)
    st[_hand(seat, copy, w)] |= b
    st[_reached(seat, copy, w)] |= b
    st[S_SIZES] += _I(1) << (8 * seat)


@njit(cache=True, inline="always")
def _remove(st, seat, card):
    """Take a held card out of a hand, the first copy if both are there; returns the copy."""
    w = card_word(card)
    b = card_bit(card)
    ia = _hand(seat, 0, w)
    a = st[ia]
    in_a = a & b
    st[ia] = a ^ in_a
    st[ia + 2] ^= b ^ in_a
    st[S_SIZES] -= _I(1) << (8 * seat)
    return _I(in_a == 0)


@njit(cache=True, inline="always")
def _know(st, holder, view, card):
    """One more copy of `card` is known (to `view`) to be in `holder`'s hand."""
    w = card_word(card)
    b = card_bit(card)
    i1 = _known(holder, view, 0, w)
    k1 = st[i1]
    st[i1 + 2] |= k1 & b
    st[i1] = k1 | b


@njit(cache=True, inline="always")
def _forget(st, holder, view, card):
    """One copy of `card` left `holder`'s hand: one fewer is known (never below 0)."""
    w = card_word(card)
    b = card_bit(card)
    i1 = _known(holder, view, 0, w)
    k2 = st[i1 + 2]
    st[i1] &= ~(b & ~k2)
    st[i1 + 2] = k2 & ~b


@njit(cache=True, inline="always")
def pile_top_card(st, suit):
    """The code of a discard pile's top card, -1 if it is empty."""
    top = st[S_PILE + 2 * suit] & 15
    return SLOTS * suit + top - 1 if top else -1


@njit(cache=True, inline="always")
def _end_checks(st, deck_emptied, fast):
    """Deck, stall, hand-empty, capped: in that order, after every turn (docs/engine.md).
    (R_STALL_END and R_TURN_CAP hold a huge number when there is no such limit.)"""
    stall = _I(st[S_STALL] >= st[R_STALL_END])
    empty = _I(st[R_PLAYERS] == 1) & _I((st[_hand(0, 0, 0)] if fast else st[S_SIZES]) == 0)
    cap = _I(st[S_TURN] >= st[R_TURN_CAP])
    if (_I(deck_emptied) | stall | empty | cap) != 0:       # one branch, rarely taken
        if deck_emptied:
            st[S_ENDED] = END_DECK
        elif stall:
            st[S_ENDED] = END_STALL
        elif empty:
            st[S_ENDED] = END_HAND_EMPTY
        else:
            st[S_ENDED] = END_CAPPED


@njit(cache=True, inline="always")
def _next_seat(st):
    st[S_SEAT] = (st[S_SEAT] + 1) & (st[R_PLAYERS] - 1)     # players is 1, 2 or 4


@njit(cache=True, inline="always")
def _decoded(m, fast):
    """A play's fields as the check and the apply both use them (one computation, shared):
    card (0 when out of range), its word and bit, suit, slot, discard flag, draw."""
    card = move_card(m)
    valid = _I(card < (HI_BASE if fast else 72))
    c = card & -valid
    suit = suit_of(c)
    w = 0 if fast else card_word(c)
    b = (_I(1) << c) if fast else card_bit(c)
    return valid, c, w, b, suit, c - SLOTS * suit, move_to(m), move_draw(m)


@njit(cache=True, inline="always")
def _play_ok(st, seat, m, fast):
    """1 if a play is legal, computed without a branch on the move (a random policy makes
    such branches unpredictable); _play_error names the rule when it is not.  `fast`: the
    ruleset is simple (R_SIMPLE), a constant after inlining."""
    valid, c, w, b, suit, slot, disc, draw = _decoded(m, fast)
    hand = st[_hand(seat, 0, w)]
    if not fast:
        hand |= st[_hand(seat, 1, w)]
    # held, and taken by the expedition unless it is discarded
    placed = (hand & (st[S_ACC + 2 * (seat & 1) + w] | -disc)) & b
    # every legal `draw` as a bit: 0 the deck, 1 + s pile s (not the one discarded onto),
    # 7 nothing (solitaire)
    left = _I(deck_left(st) > 0)
    if st[R_PLAYERS] > 1:
        allowed = (left | ((st[S_NONEMPTY] & 63) << 1)) & ~(disc << (suit + 1))
    else:
        allowed = left | (1 << DRAW_NONE)
    return valid & _I(placed != 0) & (allowed >> draw) & 1


@njit(cache=True)
def _play_error(st, seat, m):
    """The rule an illegal play breaks (0 if it is legal)."""
    players = st[R_PLAYERS]
    card = move_card(m)
    if card >= 72:
        return E_NOT_A_MOVE
    w = card_word(card)
    b = card_bit(card)
    if (st[_hand(seat, 0, w)] | st[_hand(seat, 1, w)]) & b == 0:
        return E_NOT_HELD
    to = move_to(m)
    if to == TO_EXPEDITION and st[S_ACC + 2 * (seat & 1) + w] & b == 0:
        return E_EXPEDITION_REFUSES
    draw = move_draw(m)
    if players > 1:
        if draw == DRAW_DECK:
            if deck_left(st) <= 0:
                return E_DECK_EMPTY
        elif draw == DRAW_NONE:
            return E_NO_DRAW
        else:
            ds = draw - 1
            if ds >= st[R_SUITS]:
                return E_NO_SUCH_PILE
            if to != TO_EXPEDITION and ds == suit_of(card):
                return E_DRAW_BACK
            if (st[S_NONEMPTY] >> ds) & 1 == 0:
                return E_EMPTY_PILE
    elif draw == DRAW_DECK:
        if deck_left(st) <= 0:
            return E_DECK_EMPTY
    elif draw != DRAW_NONE:
        return E_SOLITAIRE_PILE
    return 0


@njit(cache=True, inline="always")
def _check_pass(st, seat, m):
    """SPEC §5.1's order: 4 players; two held cards (copies counted); the hand; not twice."""
    if st[R_PLAYERS] != 4:
        return E_PASS_NOT_FOUR
    c1 = move_card(m)
    c2 = move_card2(m)
    if c1 >= 72 or c2 >= 72:
        return E_NOT_A_MOVE
    if c1 == c2:
        if holds(st, seat, c1) < 2:
            return E_PASS_NOT_HELD
    elif holds(st, seat, c1) == 0 or holds(st, seat, c2) == 0:
        return E_PASS_NOT_HELD
    if hand_size(st, seat) < st[R_PASS_MIN]:
        return E_PASS_HAND_SMALL
    if st[R_PASS_TWICE] == 0 and (st[S_PASSED] >> seat) & 1:
        return E_PASS_TWICE
    return 0


@njit(cache=True, inline="always")
def check(st, m):
    """0 if the seat to move may make move `m` now, else its Illegal code; changes nothing."""
    if st[R_SIMPLE] != 0:
        return check_as(st, m, True)
    return check_as(st, m, False)


@njit(cache=True, inline="always")
def check_as(st, m, fast):
    """check(); `fast` must be st[R_SIMPLE] != 0 (a constant after inlining)."""
    if ended(st):
        return E_ROUND_OVER
    if malformed(m):
        return E_NOT_A_MOVE
    if is_pass(m):
        return _check_pass(st, st[S_SEAT], m)
    if _play_ok(st, st[S_SEAT], m, fast) != 0:
        return 0
    return _play_error(st, st[S_SEAT], m)


@njit(cache=True, inline="always")
def _do_play(st, seat, m, fast):
    """A legal play.  Both ways of the play (expedition or discard) and of the draw (deck,
    pile or nothing) are computed and the right one kept with masks: no branch on the move.
    `fast` (a constant after inlining; R_SIMPLE): one card word, no second copies, at most 2
    players, so the second words, the copy planes and the pass bookkeeping are left out."""
    players = st[R_PLAYERS]
    valid, card, w, b, suit, slot, disc, draw = _decoded(m, fast)
    copy = 0
    if not fast:
        copy = _remove(st, seat, card)
        _forget(st, seat, 0, card)
        if players == 4:
            _forget(st, seat, 1, card)
    # to the expedition: lay it; a number closes its slot and all below, investments included
    me = disc - 1
    side = seat & 1
    st[S_EXP + 2 * side + w] |= b & me
    st[S_ACC + 2 * side + w] &= ~(_CLOSES[card] & me)
    # a discard goes onto its pile (solitaire: out of the game); piles are stacks of slot + 1.
    # A turn that pushes or pops nothing works on a dummy pile, so there is no select
    push = disc & _I(players > 1)
    mp = -push
    ps = (suit & mp) | (PILE_NO_PUSH & ~mp)
    i = S_PILE + 2 * ps
    lo = st[i]
    st[i] = (lo << 4) | (slot + 1)
    if not fast:                        # a simple ruleset's piles never pass 12 cards
        st[i + 1] = (st[i + 1] << 4) | ((lo >> 60) & 15)
        st[S_PILE_COPY + ps] = (st[S_PILE_COPY + ps] << 1) | copy
    # the draw: off a pile, off the deck, or nothing (solitaire once the deck is gone)
    pos = st[S_DECK_POS]
    from_pile = _I((draw >= 1) & (draw <= 6))
    from_deck = _I((draw == DRAW_DECK) | ((draw == DRAW_NONE) & (pos < st[R_CARDS])))
    mpl = -from_pile
    ds = ((draw - 1) & mpl) | (PILE_NO_POP & ~mpl)
    j = S_PILE + 2 * ds
    plo = st[j]
    pslot = (plo & 15) - 1
    nlo = (plo >> 4) & 0x0FFFFFFFFFFFFFFF
    pcw = _I(0)
    if not fast:
        phi = st[j + 1]
        nlo |= (phi & 15) << 60
        st[j + 1] = phi >> 4
        pcw = st[S_PILE_COPY + ds]
        st[S_PILE_COPY + ds] = pcw >> 1
    st[j] = nlo
    st[S_NONEMPTY] = (st[S_NONEMPTY] | (push << suit)) & ~(_I(nlo == 0) << ds) & 63
    e = _I(as_bytes(offset(st, S_ORDER))[pos])     # bytes past the deck are card 0
    new = ((SLOTS * ds + pslot) & mpl) | ((e & 127) & ~mpl)
    drew = from_pile | from_deck
    st[S_DECK_POS] = pos + from_deck
    if not fast:                        # a card played (counted by _remove), perhaps one drawn
        st[S_SIZES] += drew << (8 * seat)
    if fast:
        nb = (_I(1) << new) & -drew
        h = _hand(seat, 0, 0)
        st[h] = (st[h] ^ b) | nb
        st[_reached(seat, 0, 0)] |= nb
        # every other seat saw a card taken off a pile; one played leaves what it knew
        k = _known(seat, 0, 0, 0)
        st[k] = (st[k] & ~b) | (nb & mpl)
        # 2 players: every play draws, so pile draws are plays - deck draws (results)
        st[S_COUNTS + 2 * seat] += _K_PLAYS + (disc << _K_DISCARDS) + (from_deck << _K_DECK)
    else:
        new_copy = ((pcw & 1) & mpl) | ((e >> 7) & ~mpl)
        nw = card_word(new)
        nb = card_bit(new) & -drew
        st[_hand(seat, new_copy, nw)] |= nb
        st[_reached(seat, new_copy, nw)] |= nb
        kb = nb & mpl
        for view in range(2 if players == 4 else 1):
            i1 = _known(seat, view, 0, nw)
            k1 = st[i1]
            st[i1 + 2] |= k1 & kb
            st[i1] = k1 | kb
        k = S_COUNTS + 2 * seat
        st[k] += _K_PLAYS + (disc << _K_DISCARDS) + (from_deck << _K_DECK)
        st[k + 1] += from_pile * _K_PILE
        st[S_PASSED] &= ~(_I(1) << seat)
    # a stall turn discards and draws off a pile; any other play resets the count
    st[S_STALL] = (st[S_STALL] + 1) * (disc & from_pile)
    st[S_TURN] += 1
    _end_checks(st, (players > 1) & (from_deck == 1) & (pos + 1 == st[R_CARDS]), fast)


@njit(cache=True, inline="always")
def _do_pass(st, seat, m):
    partner = seat ^ 2
    for card in (move_card(m), move_card2(m)):
        copy = _remove(st, seat, card)
        _forget(st, seat, 0, card)
        _forget(st, seat, 1, card)
        _add(st, partner, card, copy)
        _know(st, partner, 1, card)     # the passer knows its partner holds it
    st[S_PASSED] |= _I(1) << seat
    st[S_COUNTS + 2 * seat + 1] += _K_PASSES
    st[S_TURN] += 1
    _end_checks(st, False, False)


@njit(cache=True, inline="always")
def apply(st, m):
    """Play move `m` for the seat to move: 0 and the turn is done (the round may end), or an
    Illegal code and nothing changed but the error word (the round stops there)."""
    if st[R_SIMPLE] != 0:
        return apply_as(st, m, True)
    return apply_as(st, m, False)


@njit(cache=True, inline="always")
def apply_as(st, m, fast):
    """apply(); `fast` must be st[R_SIMPLE] != 0 (a constant after inlining)."""
    seat = st[S_SEAT]
    if fast:
        # a simple ruleset has no passes: a legal move is a play with no other bit set, and
        # one test (one branch, always taken) lets it through; anything else is named below
        if ((m >> 12) == 0) & (st[S_ENDED] == END_NONE) & (_play_ok(st, seat, m, True) != 0):
            _do_play(st, seat, m, True)
            if st[S_ENDED] == END_NONE:
                _next_seat(st)
            return 0
        return _refuse(st, m)
    err = check_as(st, m, False)
    if err != 0:
        return _refuse(st, m)
    if is_pass(m):
        _do_pass(st, seat, m)
    else:
        _do_play(st, seat, m, False)
    if st[S_ENDED] == END_NONE:
        _next_seat(st)
    return 0


@njit(cache=True)
def _refuse(st, m):
    """An illegal move: the round stops with its code (nothing else changes); returns it.
    (The general check has the last word: a move the fast test refused that it allows is
    played the general way.)"""
    err = check_as(st, m, False)
    if err == 0:
        if is_pass(m):
            _do_pass(st, st[S_SEAT], m)
        else:
            _do_play(st, st[S_SEAT], m, False)
        if st[S_ENDED] == END_NONE:
            _next_seat(st)
        return 0
    if not ended(st):
        st[S_ERROR] = err
        st[S_ENDED] = END_ILLEGAL
    return err


# ---- building a state -------------------------------------------------------------------------

@njit(cache=True, inline="always")
def load_rules(st, rb):
    """Copy a rules block (rules_block, as a pointer) into the state's first words."""
    for i in range(RULES_WORDS):
        st[i] = rb[i]


@njit(cache=True, inline="always")
def clear_round(st):
    """Zero the round (the rules stay): no cards anywhere, seat 0 to move."""
    for i in range(ROUND_START, STATE_WORDS):
        st[i] = 0
    st[S_ENDED] = END_NONE
    for side in range(2):
        st[S_ACC + 2 * side] = st[R_ALL]
        st[S_ACC + 2 * side + 1] = st[R_ALL + 1]


@njit(cache=True, inline="always")
def copy_state(dst, src):
    for i in range(STATE_WORDS):
        dst[i] = src[i]


@njit(cache=True, inline="always")
def add_to_hand(st, seat, card):
    """Put a card into a hand (a hand-built state): the first copy, or the second if the first is there."""
    copy = _I(st[_hand(seat, 0, card_word(card))] & card_bit(card) != 0)
    _add(st, seat, card, copy)
    st[_dealt(seat, copy, card_word(card))] |= card_bit(card)


@njit(cache=True)
def deal(st, mem, seed, round_index, first, totals):
    """Shuffle (Fisher-Yates, stream 0, over physical ids) and deal, as docs/engine.md says;
    seed each seat's stream into its memory (`mem`: SEAT_MEM words a seat) and zero the rest."""
    clear_round(st)
    players = st[R_PLAYERS]
    n = st[R_CARDS]
    order = as_bytes(offset(st, S_ORDER))
    canon = as_bytes(offset(st, R_CANON))
    for i in range(n):
        order[i] = canon[i]
    for i in range(players * MEM_WORDS):
        mem[i] = 0
    r = stack_u64(4)                    # the deal's stream: on the stack, so in registers
    seed_stream(r, seed, round_index, 0)
    for i in range(n - 1, 0, -1):
        j = below(r, i + 1)
        t = order[i]
        order[i] = order[j]
        order[j] = t
    h = st[R_HAND_SIZE]
    pos = st[R_ASIDE]
    simple = st[R_SIMPLE] != 0
    for seat in range(players):
        if simple:                      # one word, first copies only: build it in a register
            hand = _I(0)
            for k in range(h):
                hand |= _I(1) << _I(order[pos + k])
            st[_hand(seat, 0, 0)] = hand
            st[_reached(seat, 0, 0)] = hand
            st[_dealt(seat, 0, 0)] = hand
            pos += h
        else:
            for k in range(h):
                e = _I(order[pos])
                pos += 1
                _add(st, seat, e & 127, e >> 7)
                st[_dealt(seat, e >> 7, card_word(e & 127))] |= card_bit(e & 127)
        seed_stream(offset(mem, seat * MEM_WORDS + M_RNG), seed, round_index, 1 + seat)
    st[S_DECK_POS] = pos
    st[S_SEAT] = first
    st[S_FIRST] = first
    st[S_ROUND] = round_index
    st[S_TOTALS] = totals


@njit(cache=True, inline="always")
def set_deck(st, cards, n):
    """A hand-built state's draw pile: `n` card codes (a pointer), top first."""
    order = as_bytes(offset(st, S_ORDER))
    start = st[R_CARDS] - n
    for i in range(n):
        order[start + i] = cards[i]
    st[S_DECK_POS] = start


# ---- what a seat may see ----------------------------------------------------------------------

@njit(cache=True, inline="always")
def observe(st, seat):
    """The observation of `seat` (SPEC §3): own hand, the table, sizes, what it knows of others."""
    return observe_as(st, seat, False)


@njit(cache=True, inline="always")
def observe_as(st, seat, fast):
    """observe(); `fast` (a constant after inlining, true only when st[R_SIMPLE] is): the
    words that are always zero under such a ruleset are constants, so a policy inlined after
    it loses its work on them."""
    players = st[R_PLAYERS]
    cp = 0 if fast else _I(can_pass(st, seat) and not ended(st))
    # each field masked to its width, so that a policy's get() folds back to the value
    info = ((seat & 3) | ((seat & 1) << _I_SIDE) | ((deck_left(st) & 127) << _I_DECK)
            | ((st[S_STALL] & 0x1FFFF) << _I_STALL) | (cp << _I_CAN_PASS)
            | ((st[S_NONEMPTY] & 63) << _I_NONEMPTY))
    a0 = st[_hand(seat, 0, 0)]
    a1 = 0 if fast else st[_hand(seat, 0, 1)]
    b0 = 0 if fast else st[_hand(seat, 1, 0)]
    b1 = 0 if fast else st[_hand(seat, 1, 1)]
    z = 0 if fast else -1                 # masks the words a simple ruleset leaves at zero
    if fast:
        sizes = popcount(st[_hand(0, 0, 0)]) | (popcount(st[_hand(1, 0, 0)]) << 8)
    else:
        sizes = st[S_SIZES]
    # what it knows of the seats after it: k = 1, 2, 3 (with 2 players only k = 1); of its
    # partner (k = 2) it knows the partner's view, of the others what every seat knows
    n1 = _I(players > 1)
    n4 = 0 if fast else _I(players == 4)
    i1 = _known((seat + 1) & 3 if players == 4 else seat ^ 1, 0, 0, 0) * n1
    i2 = _known((seat + 2) & 3, 1, 0, 0) * n4
    i3 = _known((seat + 3) & 3, 0, 0, 0) * n4
    m1 = -n1
    m4 = -n4
    k10 = st[i1] & m1
    k11 = st[i1 + 1] & m1 & z
    k12 = st[i1 + 2] & m1 & z
    k13 = st[i1 + 3] & m1 & z
    k20 = st[i2] & m4
    k21 = st[i2 + 1] & m4
    k22 = st[i2 + 2] & m4
    k23 = st[i2 + 3] & m4
    k30 = st[i3] & m4
    k31 = st[i3 + 1] & m4
    k32 = st[i3 + 2] & m4
    k33 = st[i3 + 3] & m4
    return Obs(
        st[R_OBS_RULES], st[R_OBS_RULES + 1], info, st[S_TURN], st[S_ROUND], st[S_TOTALS],
        sizes, a0 | b0, a1 | b1, a0 & b0, a1 & b1,
        st[S_EXP], st[S_EXP + 1] & z, st[S_EXP + 2], st[S_EXP + 3] & z,
        st[S_ACC], st[S_ACC + 1] & z, st[S_ACC + 2], st[S_ACC + 3] & z,
        st[S_PILE], st[S_PILE + 2], st[S_PILE + 4], st[S_PILE + 6], st[S_PILE + 8],
        st[S_PILE + 10] & z,
        st[S_PILE + 1] & z, st[S_PILE + 3] & z, st[S_PILE + 5] & z, st[S_PILE + 7] & z,
        st[S_PILE + 9] & z, st[S_PILE + 11] & z,
        k10, k11, k12, k13, k20, k21, k22, k23, k30, k31, k32, k33)


# ---- the rules block, in plain Python ---------------------------------------------------------

def card_set(codes) -> tuple:
    """(lo, hi) words of a set of codes."""
    lo = hi = 0
    for c in codes:
        if c >= HI_BASE:
            hi |= 1 << (c - HI_BASE)
        else:
            lo |= 1 << c
    return _signed(lo), _signed(hi)


def codes_of(lo: int, hi: int) -> list:
    """The codes in a card set, ascending."""
    lo &= (1 << 64) - 1
    hi &= (1 << 64) - 1
    return [c for c in range(HI_BASE) if lo >> c & 1] + [HI_BASE + b for b in range(12) if hi >> b & 1]


def _signed(w: int) -> int:
    w &= (1 << 64) - 1
    return w - (1 << 64) if w >> 63 else w


def obs_rules_words(r) -> tuple:
    nums = sum(1 << (n + 1) for n in r.numbers)
    extra = sum(1 << (n + 1) for n in r.extra_low) if r.players == 4 else 0
    w1 = OBS_RULES.pack(suits=r.suits, players=r.players, investments=r.investments,
                        hand_size=r.hand_size, cost=r.cost, bonus_cards=r.bonus_cards,
                        bonus_points=r.bonus_points, pass_min=r.pass_min_hand,
                        pass_twice=int(r.pass_twice))
    w2 = OBS_RULES2.pack(stall_limit=r.stall_limit, turn_cap=r.turn_cap, numbers=nums, extra=extra)
    return w1, w2


def rules_block(r) -> np.ndarray:
    """The rules block (layout.RULES) of a ruleset, as int64 words."""
    deck = deck_codes(r)
    n = len(deck)
    rb = np.zeros(RULES.size, np.int64)

    def put(name, *vals):
        at = RULES.at(name)
        rb[at:at + len(vals)] = vals
    put("players", r.players)
    put("suits", r.suits)
    put("hand_size", r.hand_size)
    put("cost", r.cost)
    put("bonus_cards", r.bonus_cards)
    put("bonus_points", r.bonus_points)
    put("stall_end", r.stall_limit * r.players or NO_LIMIT)
    put("turn_cap", r.turn_cap or NO_LIMIT)
    put("pass_min", r.pass_min_hand)
    put("pass_twice", int(r.pass_twice))
    put("cards", n)
    put("aside", n - n // 2 if r.players == 1 else 0)
    put("all", *card_set(set(deck)))
    put("numbers", *card_set(c for c in set(deck) if c % SLOTS >= 3))
    put("doubles", *card_set(c for c in set(deck) if deck.count(c) == 2))
    put("obs_rules", *obs_rules_words(r))
    put("simple", int(r.suits <= 5 and r.players < 4))
    canon = np.zeros(RULES.count("canon") * 8, np.uint8)
    seen = set()
    for pid, c in enumerate(deck):
        canon[pid] = c | (128 if c in seen else 0)
        seen.add(c)
    at = RULES.at("canon")
    rb[at:at + RULES.count("canon")] = canon.view(np.int64)
    return rb


def physical_ids(r) -> np.ndarray:
    """Card byte (code | copy << 7) -> physical id, for turning a dealt order into records."""
    out = np.full(256, -1, np.int16)
    seen = set()
    for pid, c in enumerate(deck_codes(r)):
        out[c | (128 if c in seen else 0)] = pid
        seen.add(c)
    return out


STATE_TYPE = types.CPointer(types.int64)
MEM_TYPE = types.CPointer(types.uint64)
__all__ = ["ENDINGS", "apply", "check", "deal", "observe", "expedition_score", "side_score",
           "rules_block", "STATE_WORDS", "as_u64"]
