"""Cards and card sets as a numba policy handles them: codes, and (lo, hi) pairs of words.

A card is a code (``suit * 12 + slot``: slots 0-2 are J Q K, slot n + 1 the
number n).  A *card set* is a pair ``(lo, hi)``: ``lo`` holds suits 0-4 (bit =
code), ``hi`` suit 5 (bit = code - 60).  A *lane* is one suit's 12 slots as a
12-bit mask.  ``observation`` re-exports all of these for policies.
"""
from __future__ import annotations

import numpy as np

from lostcards.engine.bits import highest, kth_bit, lowest, popcount
from lostcards.engine.layout import (  # noqa: F401 (re-exported)
    HI_BASE,
    INVESTMENT_SLOTS,
    LANE,
    NUMBER_SLOTS,
    PILE_BITS,
    PILE_ENTRY,
)
from lostcards.engine.state import pile_entry  # noqa: F401  (re-exported for policies)
from lostcards.engine.state import suit_of as _suit_of
from lostcards.numba_cache import jit
from lostcards.rules.cards import SLOTS

# ---- cards -----------------------------------------------------------------------------------

@jit(inline=True)
def card_of(suit, slot):
    return suit * SLOTS + slot


@jit(inline=True)
def suit_of(card):
    return _suit_of(card)


@jit(inline=True)
def slot_of(card):
    return card - SLOTS * _suit_of(card)


@jit(inline=True)
def is_investment(card):
    return slot_of(card) < 3


@jit(inline=True)
def value_of(card):
    """A number card's value (2..10); 0 for an investment."""
    s = slot_of(card)
    return s - 1 if s >= 3 else 0


# ---- card sets: (lo, hi) ---------------------------------------------------------------------

@jit(inline=True)
def count(cs):
    return popcount(cs[0]) + popcount(cs[1])


@jit(inline=True)
def is_empty(cs):
    return (cs[0] | cs[1]) == 0


@jit(inline=True)
def has(cs, card):
    if card >= HI_BASE:
        return (cs[1] >> (card - HI_BASE)) & 1 == 1
    return (cs[0] >> card) & 1 == 1


@jit(inline=True)
def both(a, b):
    """Cards in both sets."""
    return (a[0] & b[0], a[1] & b[1])


@jit(inline=True)
def either(a, b):
    return (a[0] | b[0], a[1] | b[1])


@jit(inline=True)
def minus(a, b):
    """Cards of a not in b."""
    return (a[0] & ~b[0], a[1] & ~b[1])


@jit(inline=True)
def with_card(cs, card):
    if card >= HI_BASE:
        return (cs[0], cs[1] | (1 << (card - HI_BASE)))
    return (cs[0] | (1 << card), cs[1])


@jit(inline=True)
def without(cs, card):
    if card >= HI_BASE:
        return (cs[0], cs[1] & ~(1 << (card - HI_BASE)))
    return (cs[0] & ~(1 << card), cs[1])


@jit(inline=True)
def lowest_card(cs):
    """The lowest code in the set, -1 if empty (iterate: take it, then ``without``)."""
    if cs[0] != 0:
        return lowest(cs[0])
    if cs[1] != 0:
        return HI_BASE + lowest(cs[1])
    return -1


@jit(inline=True)
def kth_card(cs, k):
    """The k-th (from 0) lowest code of the set (k < count(cs))."""
    if cs[1] == 0:                      # at most 5 suits: one word (free when it is a constant)
        return kth_bit(cs[0], k)
    c = popcount(cs[0])
    return kth_bit(cs[0], k) if k < c else HI_BASE + kth_bit(cs[1], k - c)


@jit(inline=True)
def kth_of_hand(once, twice, k):
    """The k-th card of a hand in order with copies counted: ``once`` the cards held,
    ``twice`` those held twice (``hand_doubles``); -1 past the end."""
    if (twice[0] | twice[1]) == 0:
        return kth_card(once, k)
    rest = once
    while not is_empty(rest):
        c = lowest_card(rest)
        n = 2 if has(twice, c) else 1
        if k < n:
            return c
        k -= n
        rest = without(rest, c)
    return -1


@jit(inline=True)
def lane(cs, suit):
    """A suit's 12 slots out of a card set."""
    if suit >= 5:
        return (cs[1] >> (SLOTS * suit - HI_BASE)) & LANE
    return (cs[0] >> (SLOTS * suit)) & LANE


@jit(inline=True)
def top_slot(lane_mask):
    """The slot of a lane's highest number (3..11), 0 when it holds no number: the top of an
    expedition, the one meaning every bot uses."""
    return highest((lane_mask & NUMBER_SLOTS) | 1)


def _pair_lane():
    """[byte of a pile word: two entries] -> the lane of their slots (entry e is slot e - 1; 0 is no card)."""
    t = np.zeros(256, np.uint16)
    for b in range(256):
        for e in (b & PILE_ENTRY, b >> PILE_BITS):
            if e:
                t[b] |= 1 << (e - 1)
    return t


PAIR_LANE = _pair_lane()


@jit(inline=True)
def pile_lane(lo):
    """The slots of a discard pile that holds each slot at most once (no second copies, so at
    most 12 entries, all in its first word), as a lane; computed without a branch, a byte (two
    entries) at a time from ``PAIR_LANE`` (six independent loads, not a chain of twelve bit sets)."""
    m = 0
    for k in range(SLOTS // 2):
        m |= np.int64(PAIR_LANE[(lo >> (2 * PILE_BITS * k)) & 255])
    return m


@jit(inline=True)
def lane_cards(suit, lane_mask):
    """The card set of a suit's lane."""
    if suit >= 5:
        return (0, (lane_mask & LANE) << (SLOTS * suit - HI_BASE))
    return ((lane_mask & LANE) << (SLOTS * suit), 0)


