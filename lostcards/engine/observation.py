"""What a numba policy sees (SPEC §3): ``Obs``, a named tuple of int64 words passed by value,
and the small inline helpers that read it.  ``docs/policies.md`` is the guide.

Cards are codes (``suit * 12 + slot``: slots 0-2 are J Q K, slot n + 1 the
number n).  A *card set* is a pair ``(lo, hi)`` of words: ``lo`` holds suits
0-4 (bit = code), ``hi`` suit 5 (bit = code - 60).  A *lane* is one suit's
12 slots as a 12-bit mask.  With 4 players the second copies of the low
numbers are counted, not told apart: ``hand_cards`` holds each card held at
least once, ``hand_doubles`` those held twice (and ``known`` / ``known2`` the
same for what this seat knows of another).

Nothing here can see the draw pile's order or another seat's hidden cards:
the engine builds the observation from what the seat may know and hands the
policy that, by value.
"""
from __future__ import annotations

from lostcards.engine.bits import leading_zeros as _clz
from lostcards.engine.bits import popcount
from lostcards.engine.cardsets import (  # noqa: F401  (re-exported for policies)
    HI_BASE,
    INVESTMENT_SLOTS,
    LANE,
    NUMBER_SLOTS,
    PILE_ENTRY,
    both,
    card_of,
    count,
    either,
    has,
    is_empty,
    is_investment,
    kth_card,
    kth_of_hand,
    lane,
    lane_cards,
    lowest_card,
    minus,
    pile_entry,
    pile_lane,
    slot_of,
    suit_of,
    top_slot,
    value_of,
    with_card,
    without,
)
from lostcards.engine.intrinsics import offset
from lostcards.engine.layout import INFO, M_SCRATCH, OBS_RULES, OBS_RULES2, TOTALS
from lostcards.engine.moves import TO_DISCARD
from lostcards.engine.rng import below  # noqa: F401  (re-exported: a policy's random numbers)
from lostcards.engine.state import expedition_score as _score
from lostcards.engine.state import lane_sum
from lostcards.numba_cache import jit
from lostcards.rules.cards import SLOTS

# fields of the packed words, for rule() and info()
RULE_SUITS, RULE_PLAYERS, RULE_INVESTMENTS, RULE_HAND_SIZE, RULE_COST, RULE_BONUS_CARDS, \
    RULE_BONUS_POINTS, RULE_PASS_MIN, RULE_PASS_TWICE = OBS_RULES.field(*OBS_RULES.fields)
RULE_STALL_LIMIT, RULE_TURN_CAP, RULE_NUMBERS, RULE_EXTRA = OBS_RULES2.field(*OBS_RULES2.fields)
INFO_SEAT, INFO_SIDE, INFO_DECK, INFO_STALL, INFO_CAN_PASS, INFO_NONEMPTY = INFO.field(*INFO.fields)
_TOTAL_BITS = TOTALS.field("side0")[1].bit_length()


@jit(inline=True)
def get(word, f):
    """A bit field (shift, mask) of a packed word, e.g. ``get(obs.rules, RULE_COST)``."""
    return (word >> f[0]) & f[1]


# ---- cards -----------------------------------------------------------------------------------

@jit(inline=True)
def rule(obs, f):
    """A ruleset parameter: ``rule(obs, RULE_COST)`` (RULE_* of rules; RULE2_* via rule2)."""
    return get(obs.rules, f)


@jit(inline=True)
def rule2(obs, f):
    """``rule2(obs, RULE_STALL_LIMIT)``, RULE_TURN_CAP, RULE_NUMBERS, RULE_EXTRA."""
    return get(obs.rules2, f)


@jit(inline=True)
def players(obs):
    return get(obs.rules, RULE_PLAYERS)


@jit(inline=True)
def suits(obs):
    return get(obs.rules, RULE_SUITS)


@jit(inline=True)
def seat(obs):
    return get(obs.info, INFO_SEAT)


@jit(inline=True)
def side(obs):
    """This seat's side: 0 or 1 (seat mod 2 with 4 players; the seat itself otherwise)."""
    return get(obs.info, INFO_SIDE)


@jit(inline=True)
def deck_size(obs):
    return get(obs.info, INFO_DECK)


@jit(inline=True)
def stall_count(obs):
    return get(obs.info, INFO_STALL)


@jit(inline=True)
def can_pass(obs):
    return get(obs.info, INFO_CAN_PASS) == 1


@jit(inline=True)
def round_starts(obs):
    """True on this seat's first turn of a round (its scratch memory is zero then)."""
    return obs.turn < players(obs)


@jit(inline=True)
def hand_size(obs, s):
    """Cards in seat s's hand."""
    return (obs.sizes >> (8 * s)) & 255


@jit(inline=True)
def total(obs, sd):
    """A side's match total before this round."""
    v = (obs.totals >> (31 * sd)) & ((1 << _TOTAL_BITS) - 1)
    return v - (1 << _TOTAL_BITS) if v >> (_TOTAL_BITS - 1) else v


@jit(inline=True)
def scratch(mem):
    """A policy's own words in its seat memory (zero when a round is dealt)."""
    return offset(mem, M_SCRATCH)


# ---- own hand ---------------------------------------------------------------------------------

@jit(inline=True)
def hand_cards(obs):
    """The cards held (each once, copies aside)."""
    return (obs.hand, obs.hand_hi)


@jit(inline=True)
def hand_doubles(obs):
    """The cards held twice (4 players: second copies of the low numbers)."""
    return (obs.hand2, obs.hand2_hi)


@jit(inline=True)
def hand_count(obs):
    return count(hand_cards(obs)) + count(hand_doubles(obs))


@jit(inline=True)
def legal_plays(obs):
    """The held cards this seat's expeditions accept now (each may also be discarded)."""
    if side(obs):
        return (obs.hand & obs.acc1, obs.hand_hi & obs.acc1_hi)
    return (obs.hand & obs.acc0, obs.hand_hi & obs.acc0_hi)


@jit(inline=True)
def legal_draws(obs, card, to):
    """Bit per suit: the discard piles this seat may draw from after playing `card` to `to` (a
    pile holding cards, but not the one the card was just discarded onto).  The deck is the other
    draw, legal while it holds cards; solitaire has no draw."""
    gone = (1 << suit_of(card)) if to == TO_DISCARD else 0
    return nonempty_piles(obs) & ~gone


# ---- the table --------------------------------------------------------------------------------

@jit(inline=True)
def expedition_cards(obs, sd):
    """The cards a side has laid on its expeditions."""
    return (obs.exp1, obs.exp1_hi) if sd else (obs.exp0, obs.exp0_hi)


@jit(inline=True)
def accepted(obs, sd):
    """Every card a side's expeditions would take now."""
    return (obs.acc1, obs.acc1_hi) if sd else (obs.acc0, obs.acc0_hi)


@jit(inline=True)
def expedition(obs, sd, suit):
    """A side's expedition of a suit, as a lane (slot bits)."""
    return lane(expedition_cards(obs, sd), suit)


@jit(inline=True)
def accepts(obs, sd, suit):
    """The slots a side's expedition of a suit takes now, as a lane."""
    return lane(accepted(obs, sd), suit)


@jit(inline=True)
def expedition_count(obs, sd, suit):
    return popcount(expedition(obs, sd, suit))


@jit(inline=True)
def expedition_sum(obs, sd, suit):
    return lane_sum(expedition(obs, sd, suit))


@jit(inline=True)
def expedition_investments(obs, sd, suit):
    return popcount(expedition(obs, sd, suit) & INVESTMENT_SLOTS)


@jit(inline=True)
def expedition_top(obs, sd, suit):
    """The value of an expedition's highest number, 0 if it holds none (``top_slot`` is its slot)."""
    n = expedition(obs, sd, suit) & NUMBER_SLOTS
    return 63 - _clz(n) - 1 if n else 0


@jit(inline=True)
def lane_score(obs, lane_mask):
    """What an expedition holding these slots would score under this ruleset."""
    return _score(lane_mask, get(obs.rules, RULE_COST), get(obs.rules, RULE_BONUS_CARDS),
                  get(obs.rules, RULE_BONUS_POINTS))


@jit(inline=True)
def expedition_score(obs, sd, suit):
    return lane_score(obs, expedition(obs, sd, suit))


@jit(inline=True)
def side_score(obs, sd):
    """A side's score as the table stands."""
    t = 0
    for s in range(suits(obs)):
        t += expedition_score(obs, sd, s)
    return t


@jit(inline=True)
def pile_words(obs, suit):
    """A discard pile's two words: 4-bit slot+1 entries, the top card lowest."""
    if suit == 0:
        return obs.pile0, obs.pile0_hi
    if suit == 1:
        return obs.pile1, obs.pile1_hi
    if suit == 2:
        return obs.pile2, obs.pile2_hi
    if suit == 3:
        return obs.pile3, obs.pile3_hi
    if suit == 4:
        return obs.pile4, obs.pile4_hi
    return obs.pile5, obs.pile5_hi


@jit(inline=True)
def nonempty_piles(obs):
    """Bit per suit: its discard pile holds cards."""
    return get(obs.info, INFO_NONEMPTY)


@jit(inline=True)
def pile_top(obs, suit):
    """The code of a discard pile's top card, -1 if it is empty."""
    lo, _ = pile_words(obs, suit)
    t = lo & PILE_ENTRY
    return suit * SLOTS + t - 1 if t else -1


@jit(inline=True)
def pile_card(obs, suit, k):
    """The k-th card from the top of a discard pile (k = 0 is the top), -1 past the bottom."""
    lo, hi = pile_words(obs, suit)
    e = pile_entry(lo, hi, k)
    return suit * SLOTS + e - 1 if e else -1


@jit(inline=True)
def pile_len(obs, suit):
    lo, hi = pile_words(obs, suit)
    n = 0
    if hi:
        n = 16
        lo = hi
    return n + (67 - _clz(lo)) // 4 if lo else n


# ---- other seats ------------------------------------------------------------------------------

@jit(inline=True)
def _relative(obs, s):
    p = players(obs)
    return (s - seat(obs) + p) & (p - 1) if p > 1 else 0     # mod p, p 2 or 4: no division


@jit(inline=True)
def known(obs, s):
    """The cards this seat knows seat s holds (at least one copy); empty for itself."""
    k = _relative(obs, s)
    if k == 1:
        return (obs.known1, obs.known1_hi)
    if k == 2:
        return (obs.known2, obs.known2_hi)
    if k == 3:
        return (obs.known3, obs.known3_hi)
    return (0, 0)


@jit(inline=True)
def known2(obs, s):
    """The cards this seat knows seat s holds twice."""
    k = _relative(obs, s)
    if k == 1:
        return (obs.known1x2, obs.known1x2_hi)
    if k == 2:
        return (obs.known2x2, obs.known2x2_hi)
    if k == 3:
        return (obs.known3x2, obs.known3x2_hi)
    return (0, 0)


@jit(inline=True)
def deck_cards(obs):
    """The whole deck of this ruleset as (cards, cards with two copies)."""
    inv = (1 << rule(obs, RULE_INVESTMENTS)) - 1
    ln = inv | rule2(obs, RULE_NUMBERS)
    ex = rule2(obs, RULE_EXTRA) if players(obs) == 4 else 0
    one = (0, 0)
    two = (0, 0)
    for s in range(suits(obs)):
        one = either(one, lane_cards(s, ln))
        two = either(two, lane_cards(s, ex))
    return one, two


@jit(inline=True)
def _take(c1, c2, s):
    """Multiset (c1 = at least one, c2 = two) less one copy of each card of set s."""
    return (minus(c1, minus(s, c2)), minus(c2, s))


@jit(inline=True)
def unseen(obs):
    """The cards this seat cannot see or place, as (at least one copy, both copies): the deck
    less its hand, the expeditions, the discard piles and what it knows others hold.  (In
    solitaire the cards discarded, which leave the game, count as unseen.)"""
    one, two = deck_cards(obs)
    one, two = _take(one, two, hand_cards(obs))
    one, two = _take(one, two, hand_doubles(obs))
    one, two = _take(one, two, expedition_cards(obs, 0))
    one, two = _take(one, two, expedition_cards(obs, 1))
    for s in range(1, players(obs)):
        one, two = _take(one, two, known(obs, (seat(obs) + s) & (players(obs) - 1)))    # players: 1, 2, 4
        one, two = _take(one, two, known2(obs, (seat(obs) + s) & (players(obs) - 1)))
    for suit in range(suits(obs)):
        lo, hi = pile_words(obs, suit)
        for k in range(32):
            w = lo if k < 16 else hi
            e = (w >> (4 * (k & 15))) & 15
            if e == 0:
                break
            one, two = _take(one, two, lane_cards(suit, 1 << (e - 1)))
    return one, two


@jit(inline=True)
def hand_card(obs, k):
    """The k-th card of the own hand (from 0, lowest code first, copies counted); -1 past the end."""
    return kth_of_hand(hand_cards(obs), hand_doubles(obs), k)
