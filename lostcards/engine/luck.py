"""The luck of a play-out's deck draws: a correction of its return with mean zero (a control variate).

Given the whole state of a determinization, the cards left in the deck lie in
a uniformly random order (``determinize.sample`` shuffles them, and no policy
sees the order), so the card a deck draw brings is uniform over the deck.
The *luck* of the draw is what the card is worth to the side that drew it
less the mean worth of every card then in the deck: its mean is zero whatever
the worth, so a play-out's return less any multiple of its summed luck
estimates the same mean, and with a worth that tracks the return, with less
variance (improve's ``luck``: docs/bots.md).

The worth of a card to a side (``card_worth``) is the number's face value times
the side's investments in its suit plus one, for a number above the side's top
number in that suit (half of it where the side has not opened the suit), and 0
for an investment or a number it can no longer lay.  ``deck_worth`` is the sum
over the deck, suit by suit from lanes.  The deck is kept as two card sets
(first copies, second copies: 4 words) from the state's deal order
(``deck_cards``) and loses each card drawn (``lucky_step``).  The sign is the
seat's side's: luck for the other side counts against it.
"""
from __future__ import annotations

from lostcards.engine.apply import step
from lostcards.engine.cardsets import slot_of, suit_of, top_slot
from lostcards.engine.intrinsics import as_bytes, offset
from lostcards.engine.layout import NUMBER_SLOTS, ORDER_CARD, R_CARDS, R_SUITS, S_DECK_POS, S_ORDER, S_SEAT
from lostcards.engine.state import card_bit, card_word, expeditions, lane_investments, lane_of, lane_sum
from lostcards.numba_cache import jit

UNOPENED = 0.5          # share of a number's worth in a suit the side has not opened


@jit(inline=True)
def deck_cards(st, d):
    """The cards left in the deck of `st` into `d` (4 words: first copies lo, hi, second copies lo, hi)."""
    for w in range(4):
        d[w] = 0
    order = as_bytes(offset(st, S_ORDER))
    for pos in range(st[S_DECK_POS], st[R_CARDS]):
        card = order[pos] & ORDER_CARD
        w = card_word(card)
        b = card_bit(card)
        if d[w] & b:
            d[2 + w] |= b
        else:
            d[w] |= b


@jit(inline=True)
def _suit_factor(ex):
    """(the lowest number slot still worth something, the worth of a point) of an expedition lane."""
    f = float(lane_investments(ex) + 1)
    if ex == 0:
        f *= UNOPENED
    return top_slot(ex) + 1, f


@jit(inline=True)
def card_worth(st, sd, card):
    """What `card` in hand is worth to side `sd` (module docstring)."""
    slot = slot_of(card)
    lo, hi = expeditions(st, sd)
    low, f = _suit_factor(lane_of(lo, hi, suit_of(card)))
    if slot < low or (1 << slot) & NUMBER_SLOTS == 0:
        return 0.0
    return (slot - 1) * f


@jit(inline=True)
def deck_worth(st, sd, d):
    """The sum of ``card_worth`` over the deck `d` (``deck_cards``), suit by suit."""
    lo, hi = expeditions(st, sd)
    total = 0.0
    for s in range(st[R_SUITS]):
        low, f = _suit_factor(lane_of(lo, hi, s))
        live = NUMBER_SLOTS & ~((1 << low) - 1)
        total += (lane_sum(lane_of(d[0], d[1], s) & live) + lane_sum(lane_of(d[2], d[3], s) & live)) * f
    return total


@jit(inline=True)
def lucky_step(st, m, me, d):
    """``step(st, m)`` and the luck of its deck draw for seat `me`'s side (0.0 without one): the
    returned code, then the luck; `d` (``deck_cards``) loses the card drawn."""
    sd = st[S_SEAT] & 1
    pos = st[S_DECK_POS]
    n = st[R_CARDS] - pos
    rc = step(st, m)
    if rc != 0 or st[S_DECK_POS] == pos:
        return rc, 0.0
    card = as_bytes(offset(st, S_ORDER))[pos] & ORDER_CARD
    mean = deck_worth(st, sd, d) / n          # the deck before the draw, the table after the play
    w = card_word(card)
    b = card_bit(card)
    if d[2 + w] & b:
        d[2 + w] ^= b
    else:
        d[w] ^= b
    luck = card_worth(st, sd, card) - mean
    return rc, luck if sd == (me & 1) else -luck
