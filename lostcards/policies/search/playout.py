"""The play-out policy: a cheap greedy rule on the full (guessed) state, for every seat.

It is not expert's decision procedure; it reads the state block directly (a play-out
plays a determinization, where every hand is known) and decides with a few lane
operations a suit:

- play: the lowest card an opened expedition takes scores ``10 - 3 x gap`` (gap:
  numbers skipped above its top); opening a suit scores the numbers it holds
  there plus ``OPEN_HOPE`` less the cost, less what the lowest card skips, less
  ``LATE`` a card missing from the deck's last ``LATE_DECK``; the best play is
  made when it scores at least 0, or, once the deck is down to the players'
  count, any play on an opened expedition (cards left in hand score nothing).
- otherwise discard the card worth least: to itself (0 when dead, more when an
  opened expedition still takes it, a little for an unopened suit) plus what it
  is worth to the other side (its value when the other side's opened expedition
  takes it).
- draw: a discard-pile top that extends an opened expedition by at most one
  skipped number, else the deck (solitaire: nothing to choose).

``playout`` plays a state to its end with this rule for every seat (``engine.playouts.play_to_end``).
"""
from __future__ import annotations

from lostcards.engine.bits import lowest, popcount
from lostcards.engine.cardsets import card_of, slot_of, top_slot
from lostcards.engine.core import (
    accepted,
    deck_left,
    draw_options,
    expeditions,
    held,
    lane_of,
    lane_sum,
    pile_top_slot,
    suit_of,
)
from lostcards.engine.layout import INVESTMENT_SLOTS, NUMBER_SLOTS, R_COST, R_PLAYERS, R_SUITS, S_SEAT
from lostcards.engine.moves import DRAW_DECK, DRAW_NONE, TO_DISCARD, TO_EXPEDITION, make_play
from lostcards.engine.playouts import play_to_end
from lostcards.numba_cache import jit

OPEN_HOPE = 12          # points an opened suit is expected to gain from cards still to come
LATE_DECK = 10         # opening later than this many cards before the end costs ...
LATE = 3               # ... this much a card missing


@jit(inline=True)
def _floor(el):
    """The slot a gap above an expedition counts from: its top (``top_slot``), else 2 (just below
    the number 2)."""
    return max(top_slot(el), 2)


@jit(inline=True)
def _value(slot):
    return slot - 1 if slot >= 3 else 0


@jit
def playout_move(st):
    """The greedy rule's move for the seat to move (module docstring)."""
    me = st[S_SEAT]
    p = st[R_PLAYERS]
    side = me & 1
    (h0, h1), _ = held(st, me)
    e0, e1 = expeditions(st, side)
    a0, a1 = accepted(st, side)
    oe0, oe1 = expeditions(st, side ^ 1)
    oa0, oa1 = accepted(st, side ^ 1)
    ns = st[R_SUITS]
    cost = st[R_COST]
    left = deck_left(st)
    best_p = -1
    best_pv = -1e9
    best_open = -1                     # best play on an opened expedition, whatever its gap
    best_ov = -1e9
    best_d = -1
    best_dv = 1e9
    for s in range(ns):
        hl = lane_of(h0, h1, s)
        if hl == 0:
            continue
        el = lane_of(e0, e1, s)
        al = lane_of(a0, a1, s)
        pl = hl & al
        top = _floor(el)
        opened = el != 0
        if pl:
            c = lowest(pl)
            if opened:
                gap = c - top - 1 if c >= 3 else 0
                v = 10.0 - 3.0 * gap
                if v > best_ov:
                    best_ov = v
                    best_open = card_of(s, c)
            else:
                v = lane_sum(pl) + OPEN_HOPE - cost - (c - 3 if c > 3 else 0) \
                    + 2.0 * popcount(pl & INVESTMENT_SLOTS) * (popcount(pl & NUMBER_SLOTS) >= 3)
                if left < LATE_DECK:
                    v -= LATE * (LATE_DECK - left)
            if v > best_pv:
                best_pv = v
                best_p = card_of(s, c)
        # discards: each card of the suit, the one worth least overall
        oel = lane_of(oe0, oe1, s) if p > 1 else 0
        oal = lane_of(oa0, oa1, s) if p > 1 else 0
        rest = hl
        while rest:
            cs = lowest(rest)
            rest &= rest - 1
            if (al >> cs) & 1 == 0:
                mine = 0.0
            elif opened:
                mine = 10.0 - 2.0 * (cs - top - 1) if cs >= 3 else 6.0
                mine = mine if mine > 2.0 else 2.0
            else:
                mine = 0.3 * _value(cs) + (2.0 if cs < 3 else 0.0)
            danger = 0.0
            if p > 1 and (oal >> cs) & 1:
                danger = _value(cs) if oel != 0 else 0.3 * _value(cs)
                if cs < 3 and (oel & NUMBER_SLOTS) == 0:
                    danger += 3.0
            dv = mine + danger
            if dv < best_dv:
                best_dv = dv
                best_d = card_of(s, cs)
    if best_open >= 0 and left <= p:
        card = best_open
        to = TO_EXPEDITION
    elif best_p >= 0 and best_pv >= 0.0:
        card = best_p
        to = TO_EXPEDITION
    else:
        card = best_d
        to = TO_DISCARD
    return make_play(card, to, playout_draw(st, card, to))


@jit(inline=True)
def playout_draw(st, card, to):
    """A pile top that extends an opened expedition by at most one skipped number, else the deck."""
    p = st[R_PLAYERS]
    if p == 1:
        return DRAW_NONE
    me = st[S_SEAT]
    side = me & 1
    e0, e1 = expeditions(st, side)
    a0, a1 = accepted(st, side)
    cs_suit = suit_of(card)
    cslot = slot_of(card)
    piles = (draw_options(st, cs_suit, to == TO_DISCARD) >> 1) & 63
    best = DRAW_DECK
    best_gap = 2
    while piles:
        s = lowest(piles)
        piles &= piles - 1
        t = pile_top_slot(st, s)
        el = lane_of(e0, e1, s)
        al = lane_of(a0, a1, s)
        top = _floor(el)
        if to == TO_EXPEDITION and s == cs_suit:
            el |= 1 << cslot
            if cslot >= 3:
                al &= ~((2 << cslot) - 1)
                top = cslot
        if el != 0 and (al >> t) & 1 and t >= 3:
            gap = t - top - 1
            if gap < best_gap:
                best_gap = gap
                best = 1 + s
    return best


@jit(inline=True)
def playout_rule(st, ctx):
    """``playout_move`` as a rule of ``engine.playouts.play_to_end`` (`ctx` unused)."""
    return playout_move(st)


@jit
def playout(st):
    """Play the state to the end of the round with the greedy rule for every seat; False if a
    move was refused (a bug: the rule makes legal moves only)."""
    return play_to_end(st, playout_rule, 0)
