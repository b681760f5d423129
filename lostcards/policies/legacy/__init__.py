"""The old observation row, for the bots not yet ported to ``lostcards.engine.observation``.

``expert`` and ``search`` were written against a flat int32 observation row
(``legacy.observation``: ``O_*`` offsets) and ``search`` plays its rollouts on
the old array engine (``legacy.core``, a frozen copy used by nothing else).
Until they are ported (issue 10), each runs on the engine through an adapter
of the one policy signature: ``fill_row`` writes the row from the new ``Obs``
(every field the old engine wrote, from what the seat may see), then the old
kernel decides.  Moves are the same codes in both (``engine.moves``).  The
row is allocated per call: these bots cost microseconds a move, the row a
fraction of that.
"""
from __future__ import annotations

from numba import njit

from lostcards.engine.bits import highest, popcount
from lostcards.engine.core import lane_investments, lane_sum
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
    can_pass,
    deck_size,
    expedition,
    hand_cards,
    hand_doubles,
    has,
    known,
    known2,
    pile_card,
    pile_len,
    players,
    rule,
    rule2,
    seat,
    side,
    stall_count,
    suits,
)
from lostcards.policies.legacy.observation import (
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
from lostcards.rules.cards import MAX_CODES
from lostcards.rules.ruleset import (
    P_BONUS_CARDS,
    P_BONUS_POINTS,
    P_COST,
    P_DECK,
    P_EXTRA_MASK,
    P_HAND,
    P_INVESTMENTS,
    P_NUMBERS,
    P_NUMBERS_MASK,
    P_PASS_MIN,
    P_PASS_TWICE,
    P_PLAYERS,
    P_STALL,
    P_SUITS,
    P_TURN_CAP,
)


@njit(cache=True)
def fill_row(obs, row):
    """The old observation row (zeroed int32 array of OBS_LEN) of an Obs."""
    n_suits = suits(obs)
    p = players(obs)
    nums = rule2(obs, RULE_NUMBERS)
    extra = rule2(obs, RULE_EXTRA)
    inv = rule(obs, RULE_INVESTMENTS)
    row[O_RULES + P_SUITS] = n_suits
    row[O_RULES + P_INVESTMENTS] = inv
    row[O_RULES + P_HAND] = rule(obs, RULE_HAND_SIZE)
    row[O_RULES + P_COST] = rule(obs, RULE_COST)
    row[O_RULES + P_BONUS_CARDS] = rule(obs, RULE_BONUS_CARDS)
    row[O_RULES + P_BONUS_POINTS] = rule(obs, RULE_BONUS_POINTS)
    row[O_RULES + P_STALL] = rule2(obs, RULE_STALL_LIMIT)
    row[O_RULES + P_PASS_MIN] = rule(obs, RULE_PASS_MIN)
    row[O_RULES + P_PASS_TWICE] = rule(obs, RULE_PASS_TWICE)
    row[O_RULES + P_TURN_CAP] = rule2(obs, RULE_TURN_CAP)
    row[O_RULES + P_PLAYERS] = p
    row[O_RULES + P_NUMBERS_MASK] = nums
    row[O_RULES + P_EXTRA_MASK] = extra
    row[O_RULES + P_NUMBERS] = popcount(nums)
    row[O_RULES + P_DECK] = n_suits * (inv + popcount(nums) + (popcount(extra) if p == 4 else 0))
    me = seat(obs)
    row[O_SEAT] = me
    row[O_SIDE] = side(obs)
    row[O_DECK] = deck_size(obs)
    row[O_STALL] = stall_count(obs)
    row[O_TURN] = obs.turn
    row[O_CAN_PASS] = 1 if can_pass(obs) else 0
    once = hand_cards(obs)
    twice = hand_doubles(obs)
    h = 0
    for c in range(MAX_CODES):
        if has(once, c):
            row[O_HAND + h] = c
            h += 1
            if has(twice, c):
                row[O_HAND + h] = c
                h += 1
    row[O_HAND_LEN] = h
    for sd in range(2):
        for s in range(n_suits):
            ln = expedition(obs, sd, s)
            i = sd * NSUITS + s
            numbers = ln & 0xFF8
            row[O_EXP_TOP + i] = highest(numbers) if numbers else 0
            row[O_EXP_SUM + i] = lane_sum(ln)
            row[O_EXP_INV + i] = lane_investments(ln)
            row[O_EXP_COUNT + i] = popcount(ln)
            row[O_EXP_MASK + i] = ln
    for s in range(n_suits):
        n = pile_len(obs, s)
        row[O_PILE_LEN + s] = n
        for k in range(n):                     # bottom first
            row[O_PILE + s * PMAX + k] = pile_card(obs, s, n - 1 - k)
    for o in range(p):
        if o == me:
            continue
        k1 = known(obs, o)
        k2 = known2(obs, o)
        for c in range(MAX_CODES):
            row[O_KNOWN + o * MAX_CODES + c] = (1 if has(k1, c) else 0) + (1 if has(k2, c) else 0)
    return row

