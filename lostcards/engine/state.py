"""The round state's words read and written: cards as bits, lanes, the scoring rule
(``score_of``: every score on the numba side comes from it), where a piece sits in the block,
what a seat holds and may draw, the small changes every rule makes, and observe().

A state is one block of ``layout.STATE_WORDS`` int64 words behind a raw pointer
``st`` (``bits.ptr``): the rules block, then the round.  ``core`` lists the
whole state API; ``apply`` and ``deal`` build on this module.
"""
from __future__ import annotations

import numpy as np

from lostcards.engine.bits import popcount
from lostcards.engine.layout import (
    COUNTS,
    COUNTS2,
    HI_BASE,
    INFO,
    INVESTMENT_SLOTS,
    LANE,
    OBS_RULES,
    PILE_BITS,
    PILE_ENTRY,
    R_BONUS_CARDS,
    R_BONUS_POINTS,
    R_CARDS,
    R_COST,
    R_OBS_RULES,
    R_PASS_MIN,
    R_PASS_TWICE,
    R_PLAYERS,
    R_SIMPLE,
    R_SUITS,
    RULES,
    S_ACC,
    S_DEALT,
    S_DECK_POS,
    S_ENDED,
    S_EXP,
    S_HAND,
    S_KNOWN,
    S_NONEMPTY,
    S_PASSED,
    S_PILE,
    S_REACHED,
    S_ROUND,
    S_SEAT,
    S_SIZES,
    S_STALL,
    S_TOTALS,
    S_TURN,
    Obs,
)
from lostcards.engine.moves import DRAW_NONE
from lostcards.numba_cache import jit
from lostcards.rules.cards import SLOTS
from lostcards.rules.outcome import Ending

END_NONE, END_DECK, END_STALL, END_HAND_EMPTY, END_CAPPED = (
    e.code for e in (Ending.UNFINISHED, Ending.DECK, Ending.STALL, Ending.HAND_EMPTY, Ending.CAPPED))
END_ILLEGAL = 4                    # stopped by an illegal move (its code in S_ERROR)

RULES_WORDS = RULES.size
NO_LIMIT = 1 << 62                 # R_STALL_END / R_TURN_CAP of a ruleset without that limit
K_PLAYS = 1 << COUNTS.field("plays")[0]
K_DISCARDS = COUNTS.field("discards")[0]
K_DECK = COUNTS.field("deck")[0]
K_PILE = 1 << COUNTS2.field("pile")[0]
K_PASSES = 1 << COUNTS2.field("passes")[0]
_I_SIDE, _I_DECK, _I_STALL, _I_CAN_PASS, _I_NONEMPTY = (
    INFO.field(n)[0] for n in ("side", "deck", "stall", "can_pass", "nonempty"))
_R_PLAYERS = OBS_RULES.field("players")
_I = np.int64



# ---- cards as bits ----------------------------------------------------------------------

@jit(inline=True)
def card_word(card):
    """Which word of a card set holds `card`: 0 for suits 0-4, 1 for suit 5."""
    return _I(card >= HI_BASE)


@jit(inline=True)
def card_bit(card):
    """The card's bit inside its word."""
    return _I(1) << (card - HI_BASE * _I(card >= HI_BASE))


@jit(inline=True)
def suit_of(card):
    return (card * 43) >> 9            # card // 12 for codes 0..127, without a division


@jit(inline=True)
def lane_shift(suit):
    """Where a suit's 12 slots start inside its word."""
    return SLOTS * suit - HI_BASE * _I(suit >= 5)


@jit(inline=True)
def lane_of(lo, hi, suit):
    """A suit's 12-bit slot mask out of a card set (lo, hi)."""
    w = hi if suit >= 5 else lo
    return (w >> lane_shift(suit)) & LANE


def _lane_table():
    """[lane] -> cards | investments << 4 | sum of the numbers << 6, for every 12-slot lane."""
    t = np.zeros(1 << SLOTS, np.uint16)
    for m in range(1 << SLOTS):
        cards = bin(m).count("1")
        inv = bin(m & INVESTMENT_SLOTS).count("1")
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


CLOSES = _closes()


@jit(inline=True)
def lane_count(lane):
    """How many cards a lane holds."""
    return _I(LANE_TABLE[lane & LANE]) & 15


@jit(inline=True)
def lane_investments(lane):
    return (_I(LANE_TABLE[lane & LANE]) >> 4) & 3


@jit(inline=True)
def lane_sum(lane):
    """Sum of the numbers in a lane (slot s is the number s - 1)."""
    return _I(LANE_TABLE[lane & LANE]) >> 6


@jit(inline=True)
def score_of(total, investments, cards, cost, bonus_cards, bonus_points):
    """One expedition of `cards` cards, its numbers summing `total`: (total - cost) x
    (investments + 1), + the bonus at bonus_cards cards; no cards -> 0.  The scoring rule of
    the numba side: every score (an expedition, a plan, a ceiling) comes from here."""
    s = (total - cost) * (investments + 1) + bonus_points * _I(cards >= bonus_cards)
    return s if cards > 0 else 0


@jit(inline=True)
def expedition_score(lane, cost, bonus_cards, bonus_points):
    """One expedition's score from its lane (``score_of``)."""
    t = _I(LANE_TABLE[lane & LANE])
    return score_of(t >> 6, (t >> 4) & 3, t & 15, cost, bonus_cards, bonus_points)


# ---- indices into the block ------------------------------------------------------------

@jit(inline=True)
def hand_at(seat, copy, w):
    return S_HAND + (seat * 2 + copy) * 2 + w


@jit(inline=True)
def known_at(holder, view, plane, w):
    return S_KNOWN + ((holder * 2 + view) * 2 + plane) * 2 + w


@jit(inline=True)
def reached_at(seat, copy, w):
    return S_REACHED + (seat * 2 + copy) * 2 + w


@jit(inline=True)
def dealt_at(seat, copy, w):
    return S_DEALT + (seat * 2 + copy) * 2 + w


# ---- reading the state --------------------------------------------------------------------

@jit(inline=True)
def ended(st):
    return st[S_ENDED] != END_NONE


@jit(inline=True)
def seat_to_move(st):
    return st[S_SEAT]


@jit(inline=True)
def hand_size(st, seat):
    if st[R_SIMPLE] != 0:                # simple rulesets keep no size word: one card set
        return popcount(st[hand_at(seat, 0, 0)])
    return (st[S_SIZES] >> (8 * seat)) & 255


@jit(inline=True)
def deck_left(st):
    return st[R_CARDS] - st[S_DECK_POS]


@jit(inline=True)
def holds(st, seat, card):
    """How many copies of `card` the seat holds (0, 1 or 2)."""
    w = card_word(card)
    b = card_bit(card)
    return _I(st[hand_at(seat, 0, w)] & b != 0) + _I(st[hand_at(seat, 1, w)] & b != 0)


@jit(inline=True)
def held(st, seat):
    """A seat's hand as two card sets: the cards it holds, and those it holds twice (4 players)."""
    a0 = st[hand_at(seat, 0, 0)]
    a1 = st[hand_at(seat, 0, 1)]
    b0 = st[hand_at(seat, 1, 0)]
    b1 = st[hand_at(seat, 1, 1)]
    return (a0 | b0, a1 | b1), (a0 & b0, a1 & b1)


@jit(inline=True)
def expeditions(st, side):
    """The cards on a side's expeditions, as a card set."""
    return st[S_EXP + 2 * side], st[S_EXP + 2 * side + 1]


@jit(inline=True)
def accepted(st, side):
    """The cards a side's expeditions take now, as a card set."""
    return st[S_ACC + 2 * side], st[S_ACC + 2 * side + 1]


@jit(inline=True)
def draw_options(st, suit, disc, players=0):
    """Every legal draw after playing a card of `suit` (disc: 1 if it was discarded) as bits:
    bit 0 the deck (while it lasts), bit 1 + s discard pile s (not the one just discarded onto;
    never in solitaire), bit 7 nothing (solitaire).  `players`: st[R_PLAYERS] when 0, else
    that constant."""
    left = _I(deck_left(st) > 0)
    if (st[R_PLAYERS] if players == 0 else players) > 1:
        return (left | ((st[S_NONEMPTY] & 63) << 1)) & ~(_I(disc) << (suit + 1))
    return left | (1 << DRAW_NONE)


@jit(inline=True)
def can_pass(st, seat):
    return (st[R_PLAYERS] == 4 and hand_size(st, seat) >= st[R_PASS_MIN]
            and (st[R_PASS_TWICE] != 0 or (st[S_PASSED] >> seat) & 1 == 0))


@jit(inline=True)
def side_score(st, side):
    """A side's score as the table stands."""
    total = 0
    lo = st[S_EXP + 2 * side]
    hi = st[S_EXP + 2 * side + 1]
    for s in range(st[R_SUITS]):
        total += expedition_score(lane_of(lo, hi, s), st[R_COST], st[R_BONUS_CARDS], st[R_BONUS_POINTS])
    return total


# ---- changing the state ---------------------------------------------------------------------

@jit(inline=True)
def add_card(st, seat, card, copy):
    """A physical card (card, copy) into a seat's hand; it has now reached that hand."""
    w = card_word(card)
    b = card_bit(card)
    st[hand_at(seat, copy, w)] |= b
    st[reached_at(seat, copy, w)] |= b
    st[S_SIZES] += _I(1) << (8 * seat)


@jit(inline=True)
def remove_card(st, seat, card):
    """Take a held card out of a hand, the first copy if both are there; returns the copy."""
    w = card_word(card)
    b = card_bit(card)
    ia = hand_at(seat, 0, w)
    a = st[ia]
    in_a = a & b
    st[ia] = a ^ in_a
    st[ia + 2] ^= b ^ in_a
    st[S_SIZES] -= _I(1) << (8 * seat)
    return _I(in_a == 0)


@jit(inline=True)
def know(st, holder, view, card):
    """One more copy of `card` is known (to `view`) to be in `holder`'s hand."""
    w = card_word(card)
    b = card_bit(card)
    i1 = known_at(holder, view, 0, w)
    k1 = st[i1]
    st[i1 + 2] |= k1 & b
    st[i1] = k1 | b


@jit(inline=True)
def forget(st, holder, view, card):
    """One copy of `card` left `holder`'s hand: one fewer is known (never below 0)."""
    w = card_word(card)
    b = card_bit(card)
    i1 = known_at(holder, view, 0, w)
    k2 = st[i1 + 2]
    st[i1] &= ~(b & ~k2)
    st[i1 + 2] = k2 & ~b


@jit(inline=True)
def pile_entry(lo, hi, k):
    """The k-th entry from the top of a pile's two words: slot + 1, 0 past the bottom."""
    w = lo if k < 16 else hi
    return (w >> (PILE_BITS * (k & 15))) & PILE_ENTRY


@jit(inline=True)
def pile_top_slot(st, suit):
    """The slot of a discard pile's top card, -1 if it is empty."""
    return (st[S_PILE + 2 * suit] & PILE_ENTRY) - 1


@jit(inline=True)
def pile_top_card(st, suit):
    """The code of a discard pile's top card, -1 if it is empty."""
    top = pile_top_slot(st, suit)
    return SLOTS * suit + top if top >= 0 else -1



# ---- what a seat may see ----------------------------------------------------------------------

@jit(inline=True)
def observe(st, seat):
    """The observation of `seat` (SPEC §3): own hand, the table, sizes, what it knows of others."""
    if st[R_SIMPLE] != 0:                # a simple ruleset keeps no size word (see hand_size)
        return observe_as(st, seat, True)
    return observe_as(st, seat, False)


@jit(inline=True)
def observe_as(st, seat, fast):
    """observe(); `fast` (a constant after inlining) must be st[R_SIMPLE] != 0: the
    words that are always zero under such a ruleset are constants, so a policy inlined after
    it loses its work on them."""
    players = st[R_PLAYERS]
    cp = 0 if fast else _I(can_pass(st, seat) and not ended(st) and seat == st[S_SEAT])
    # each field masked to its width, so that a policy's get() folds back to the value
    info = ((seat & 3) | ((seat & 1) << _I_SIDE) | ((deck_left(st) & 127) << _I_DECK)
            | ((st[S_STALL] & 0x1FFFF) << _I_STALL) | (cp << _I_CAN_PASS)
            | ((st[S_NONEMPTY] & 63) << _I_NONEMPTY))
    a0 = st[hand_at(seat, 0, 0)]
    a1 = 0 if fast else st[hand_at(seat, 0, 1)]
    b0 = 0 if fast else st[hand_at(seat, 1, 0)]
    b1 = 0 if fast else st[hand_at(seat, 1, 1)]
    z = 0 if fast else -1                 # masks the words a simple ruleset leaves at zero
    if fast:
        sizes = popcount(st[hand_at(0, 0, 0)]) | (popcount(st[hand_at(1, 0, 0)]) << 8)
    else:
        sizes = st[S_SIZES]
    # what it knows of the seats after it: k = 1, 2, 3 (with 2 players only k = 1); of its
    # partner (k = 2) it knows the partner's view, of the others what every seat knows
    n1 = _I(players > 1)
    n4 = 0 if fast else _I(players == 4)
    i1 = known_at((seat + 1) & 3 if players == 4 else seat ^ 1, 0, 0, 0) * n1
    i2 = known_at((seat + 2) & 3, 1, 0, 0) * n4
    i3 = known_at((seat + 3) & 3, 0, 0, 0) * n4
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

