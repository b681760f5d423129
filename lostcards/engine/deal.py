"""Building a state: the rules block (plain Python, once per batch), the deal, hand-built states.

``deal`` shuffles and deals as ``docs/engine.md`` says (Fisher-Yates over
physical ids on stream (seed, round, 0)); ``deal_order`` deals a given order
(a test's deal, a search bot's guess of the hidden cards); ``clear_round``,
``add_to_hand`` and ``set_deck`` build a state card by card.
"""
from __future__ import annotations

import numpy as np

from lostcards.engine.intrinsics import as_bytes, offset, stack_u64
from lostcards.engine.layout import (
    LANE,
    M_RNG,
    MEM_WORDS,
    OBS_RULES,
    OBS_RULES2,
    R_ALL,
    R_ASIDE,
    R_CANON,
    R_CARDS,
    R_HAND_SIZE,
    R_PLAYERS,
    R_SIMPLE,
    ROUND_START,
    RULES,
    S_ACC,
    S_DECK_POS,
    S_ENDED,
    S_FIRST,
    S_ORDER,
    S_ROUND,
    S_SEAT,
    S_TOTALS,
    STATE_WORDS,
)
from lostcards.engine.rng import below, seed_stream
from lostcards.engine.state import (
    END_NONE,
    HI_BASE,
    NO_LIMIT,
    RULES_WORDS,
    add_card,
    card_bit,
    card_word,
    dealt_at,
    hand_at,
    reached_at,
)
from lostcards.numba_cache import jit
from lostcards.rules.cards import SLOTS, aside_count, deck_codes
from lostcards.rules.parameters import obs_values

_I = np.int64

# ---- building a state -------------------------------------------------------------------------

@jit(inline=True)
def load_rules(st, rb):
    """Copy a rules block (rules_block, as a pointer) into the state's first words."""
    for i in range(RULES_WORDS):
        st[i] = rb[i]


@jit(inline=True)
def clear_round(st):
    """Zero the round (the rules stay): no cards anywhere, seat 0 to move."""
    for i in range(ROUND_START, STATE_WORDS):
        st[i] = 0
    st[S_ENDED] = END_NONE
    for side in range(2):
        st[S_ACC + 2 * side] = st[R_ALL]
        st[S_ACC + 2 * side + 1] = st[R_ALL + 1]


@jit(inline=True)
def copy_state(dst, src):
    for i in range(STATE_WORDS):
        dst[i] = src[i]


@jit(inline=True)
def add_to_hand(st, seat, card):
    """Put a card into a hand (a hand-built state): the first copy, or the second if the first is there."""
    copy = _I(st[hand_at(seat, 0, card_word(card))] & card_bit(card) != 0)
    add_card(st, seat, card, copy)
    st[dealt_at(seat, copy, card_word(card))] |= card_bit(card)


@jit
def deal(st, mem, seed, round_index, first, totals):
    """Shuffle (Fisher-Yates, stream 0, over physical ids) and deal, as docs/engine.md says;
    seed each seat's stream into its memory (`mem`: SEAT_MEM words a seat) and zero the rest."""
    clear_round(st)
    n = st[R_CARDS]
    order = as_bytes(offset(st, S_ORDER))
    canon = as_bytes(offset(st, R_CANON))
    for i in range(n):
        order[i] = canon[i]
    r = stack_u64(4)                    # the deal's stream: on the stack, so in registers
    seed_stream(r, seed, round_index, 0)
    for i in range(n - 1, 0, -1):
        j = below(r, i + 1)
        t = order[i]
        order[i] = order[j]
        order[j] = t
    _deal_order(st, mem, seed, round_index, first, totals)


@jit
def deal_order(st, mem, order_in, seed, round_index, first, totals):
    """Deal a given order instead of a shuffle: `order_in` (uint8 pointer) holds R_CARDS card
    bytes (code | copy << 7), solitaire's aside first, then the hands, then the deck top first.
    The seats' streams are seeded from (seed, round_index) as deal() seeds them."""
    clear_round(st)
    order = as_bytes(offset(st, S_ORDER))
    for i in range(st[R_CARDS]):
        order[i] = order_in[i]
    _deal_order(st, mem, seed, round_index, first, totals)


@jit(inline=True)
def _deal_order(st, mem, seed, round_index, first, totals):
    """The hands off the order in the state (after clear_round), the seats' streams, the round's words."""
    players = st[R_PLAYERS]
    order = as_bytes(offset(st, S_ORDER))
    for i in range(players * MEM_WORDS):
        mem[i] = 0
    h = st[R_HAND_SIZE]
    pos = st[R_ASIDE]
    simple = st[R_SIMPLE] != 0
    for seat in range(players):
        if simple:                      # one word, first copies only: build it in a register
            hand = _I(0)
            for k in range(h):
                hand |= _I(1) << _I(order[pos + k])
            st[hand_at(seat, 0, 0)] = hand
            st[reached_at(seat, 0, 0)] = hand
            st[dealt_at(seat, 0, 0)] = hand
            pos += h
        else:
            for k in range(h):
                e = _I(order[pos])
                pos += 1
                add_card(st, seat, e & 127, e >> 7)
                st[dealt_at(seat, e >> 7, card_word(e & 127))] |= card_bit(e & 127)
        seed_stream(offset(mem, seat * MEM_WORDS + M_RNG), seed, round_index, 1 + seat)
    st[S_DECK_POS] = pos
    st[S_SEAT] = first
    st[S_FIRST] = first
    st[S_ROUND] = round_index
    st[S_TOTALS] = totals


@jit(inline=True)
def set_deck(st, cards, n):
    """A hand-built state's draw pile: `n` card codes (a pointer), top first."""
    order = as_bytes(offset(st, S_ORDER))
    start = st[R_CARDS] - n
    for i in range(n):
        order[start + i] = cards[i]
    st[S_DECK_POS] = start



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
    out = []
    for base, w in ((0, int(lo) & ((1 << HI_BASE) - 1)), (HI_BASE, int(hi) & LANE)):   # suits 0-4, suit 5
        while w:                                 # the set bits, lowest first
            low = w & -w
            out.append(base + low.bit_length() - 1)
            w ^= low
    return out


def _signed(w: int) -> int:
    w &= (1 << 64) - 1
    return w - (1 << 64) if w >> 63 else w


def obs_rules_words(r) -> tuple:
    """The observation's two rules words of a ruleset (laid out by rules/parameters.py)."""
    return OBS_RULES.pack(**obs_values("rules", r)), OBS_RULES2.pack(**obs_values("rules2", r))


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
    put("aside", aside_count(r.players, n))
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


