"""Determinizations: full engine states that agree with everything one seat has seen (SPEC §3).

``base_from_obs`` builds, once a decision, the part of the state the seat knows:
the rules (read off the observation), the table (expeditions, discard piles in
order, stall count, turn, hand sizes), its own hand, and the cards it knows
another seat holds (docs/engine.md, "What a seat knows": counts of copies per
code).  ``hidden_pool`` lists every physical card it cannot place: the deck
less all of that, and in solitaire less the cards it discarded (they left the
game; the bot remembers them in its scratch words, since the observation no
longer shows them).  ``sample`` shuffles the pool with the seat's stream and
deals it: each other seat gets its hand size less what it is known to hold,
the rest (top first) is the draw pile; in solitaire the draw pile takes
``deck_size`` cards and the rest stays aside.  Every assignment is equally
likely (a uniform shuffle of the unknown cards), so no card is ever placed where
the seat has seen it elsewhere and every count matches the observation.

Copies (4 players): each live physical copy (in a hand, a pile or the deck) gets
its own copy bit, so the engine's planes never collide; which copy is which
cannot be seen and does not matter to the rules.
"""
from __future__ import annotations

import numpy as np

from lostcards.engine.bits import popcount
from lostcards.engine.core import clear_round, set_deck
from lostcards.engine.intrinsics import offset
from lostcards.engine.layout import (
    R_ALL,
    R_ASIDE,
    R_BONUS_CARDS,
    R_BONUS_POINTS,
    R_CARDS,
    R_COST,
    R_DOUBLES,
    R_HAND_SIZE,
    R_NUMBERS,
    R_OBS_RULES,
    R_PASS_MIN,
    R_PASS_TWICE,
    R_PLAYERS,
    R_SIMPLE,
    R_STALL_END,
    R_SUITS,
    R_TURN_CAP,
    S_ACC,
    S_EXP,
    S_NONEMPTY,
    S_PASSED,
    S_PILE,
    S_PILE_COPY,
    S_ROUND,
    S_SEAT,
    S_SIZES,
    S_STALL,
    S_TOTALS,
    S_TURN,
)
from lostcards.engine.observation import (
    RULE_BONUS_CARDS,
    RULE_BONUS_POINTS,
    RULE_COST,
    RULE_EXTRA,
    RULE_HAND_SIZE,
    RULE_INVESTMENTS,
    RULE_NUMBERS,
    RULE_PASS_MIN,
    RULE_PASS_TWICE,
    RULE_STALL_LIMIT,
    RULE_TURN_CAP,
    below,
    can_pass,
    count,
    deck_cards,
    either,
    hand_cards,
    hand_count,
    hand_doubles,
    hand_size,
    has,
    known,
    known2,
    lane_cards,
    lowest_card,
    minus,
    nonempty_piles,
    pile_words,
    players,
    rule,
    rule2,
    seat,
    stall_count,
    suits,
    unseen,
    without,
)
from lostcards.engine.state import NO_LIMIT, card_bit, card_word, hand_at, pile_entry
from lostcards.numba_cache import jit
from lostcards.rules.cards import SLOTS, aside_count

_aside_count = jit(inline=True)(aside_count)        # the rules' formula, compiled for the engine

POOL_MAX = 128                 # room for every physical card of the largest deck (90)


@jit(inline=True)
def put_in_hand(st, who, card, copy):
    """Physical card (card, copy) into a seat's hand words (the size word is set apart)."""
    st[hand_at(who, copy, card_word(card))] |= card_bit(card)


@jit(inline=True)
def _next_copy(used, card):
    """The copy bit of the next live copy of `card`; `used` (2 words: copy 0 taken) is updated."""
    w = card_word(card)
    b = card_bit(card)
    if used[w] & b:
        return np.int64(1)
    used[w] |= b
    return np.int64(0)


@jit
def rules_from_obs(st, obs):
    """The rules block of the observation's ruleset (what the core needs to play a guessed state)."""
    p = players(obs)
    ns = suits(obs)
    inv = rule(obs, RULE_INVESTMENTS)
    nums = rule2(obs, RULE_NUMBERS)
    extra = rule2(obs, RULE_EXTRA) if p == 4 else 0
    st[R_PLAYERS] = p
    st[R_SUITS] = ns
    st[R_HAND_SIZE] = rule(obs, RULE_HAND_SIZE)
    st[R_COST] = rule(obs, RULE_COST)
    st[R_BONUS_CARDS] = rule(obs, RULE_BONUS_CARDS)
    st[R_BONUS_POINTS] = rule(obs, RULE_BONUS_POINTS)
    sl = rule2(obs, RULE_STALL_LIMIT)
    st[R_STALL_END] = sl * p if sl > 0 else NO_LIMIT
    tc = rule2(obs, RULE_TURN_CAP)
    st[R_TURN_CAP] = tc if tc > 0 else NO_LIMIT
    st[R_PASS_MIN] = rule(obs, RULE_PASS_MIN)
    st[R_PASS_TWICE] = rule(obs, RULE_PASS_TWICE)
    n = ns * (inv + popcount(nums) + popcount(extra))
    st[R_CARDS] = n
    st[R_ASIDE] = _aside_count(p, n)
    one, two = deck_cards(obs)
    st[R_ALL] = one[0]
    st[R_ALL + 1] = one[1]
    num = (0, 0)
    for s in range(ns):
        num = either(num, lane_cards(s, nums))
    st[R_NUMBERS] = num[0]
    st[R_NUMBERS + 1] = num[1]
    st[R_DOUBLES] = two[0]
    st[R_DOUBLES + 1] = two[1]
    st[R_OBS_RULES] = obs.rules
    st[R_OBS_RULES + 1] = obs.rules2
    st[R_SIMPLE] = np.int64(ns <= 5 and p < 4)


@jit
def base_from_obs(st, obs, used):
    """The known part of a determinization (rules, table, own hand, others' known cards) into `st`;
    `used` (2 words) comes back with the codes whose first copy is placed."""
    rules_from_obs(st, obs)
    clear_round(st)
    me = seat(obs)
    p = players(obs)
    st[S_SEAT] = me
    st[S_TURN] = obs.turn
    st[S_STALL] = stall_count(obs)
    st[S_ROUND] = obs.round
    st[S_TOTALS] = obs.totals
    sizes = np.int64(0)
    for s in range(p):
        sizes |= hand_size(obs, s) << (8 * s)
    st[S_SIZES] = sizes
    if p == 4 and rule(obs, RULE_PASS_TWICE) == 0 and not can_pass(obs) \
            and hand_count(obs) >= rule(obs, RULE_PASS_MIN):
        st[S_PASSED] = np.int64(1) << me          # it passed on its previous turn
    st[S_EXP] = obs.exp0
    st[S_EXP + 1] = obs.exp0_hi
    st[S_EXP + 2] = obs.exp1
    st[S_EXP + 3] = obs.exp1_hi
    st[S_ACC] = obs.acc0
    st[S_ACC + 1] = obs.acc0_hi
    st[S_ACC + 2] = obs.acc1
    st[S_ACC + 3] = obs.acc1_hi
    st[S_NONEMPTY] = nonempty_piles(obs)
    used[0] = 0
    used[1] = 0
    dlo = st[R_DOUBLES]
    dhi = st[R_DOUBLES + 1]
    for suit in range(suits(obs)):
        lo, hi = pile_words(obs, suit)
        st[S_PILE + 2 * suit] = lo
        st[S_PILE + 2 * suit + 1] = hi
        if (dlo | dhi) != 0:                      # copy bits only where a code has two copies
            cw = np.int64(0)
            for k in range(32):
                e = pile_entry(lo, hi, k)
                if e == 0:
                    break
                c = SLOTS * suit + e - 1
                if has((dlo, dhi), c):
                    cw |= _next_copy(used, c) << k
            st[S_PILE_COPY + suit] = cw
    _place_set(st, me, hand_cards(obs), used)
    _place_set(st, me, hand_doubles(obs), used)
    for k in range(1, p):
        o = (me + k) % p
        _place_set(st, o, known(obs, o), used)
        _place_set(st, o, known2(obs, o), used)


@jit(inline=True)
def _place_set(st, who, cs, used):
    rest = cs
    while (rest[0] | rest[1]) != 0:
        c = lowest_card(rest)
        put_in_hand(st, who, c, _next_copy(used, c))
        rest = without(rest, c)


@jit
def hidden_pool(obs, discarded, used, pool):
    """The physical cards the seat cannot place, as card bytes (code | copy << 7) into `pool`;
    returns how many.  `discarded`: solitaire discards (2 words), else zeros."""
    one, two = unseen(obs)
    one = minus(one, discarded)
    n = 0
    for cs in (one, two):
        rest = cs
        while (rest[0] | rest[1]) != 0:
            c = lowest_card(rest)
            pool[n] = c | (_next_copy(used, c) << 7)
            n += 1
            rest = without(rest, c)
    return n


@jit
def needs(obs, out):
    """How many hidden cards each seat's hand takes (out[seat]; 0 for the own seat)."""
    p = players(obs)
    me = seat(obs)
    for s in range(4):
        out[s] = 0
    for k in range(1, p):
        o = (me + k) % p
        out[o] = hand_size(obs, o) - count(known(obs, o)) - count(known2(obs, o))


@jit(inline=True)
def sample(st, base, words, pool, n_pool, need, n_deck, rng):
    """`st` := `base` with the pool shuffled (Fisher-Yates on `rng`) and dealt: need[seat]
    cards to each seat, then `n_deck` to the draw pile, top first."""
    for i in range(words):
        st[i] = base[i]
    for i in range(n_pool - 1, 0, -1):
        j = below(rng, i + 1)
        t = pool[i]
        pool[i] = pool[j]
        pool[j] = t
    k = 0
    for s in range(4):
        for _ in range(need[s]):
            e = pool[k]
            put_in_hand(st, s, e & 127, e >> 7)
            k += 1
    set_deck(st, offset(pool, k), n_deck)
