"""A clairvoyant ceiling for solitaire deals: how much could this deal score at best?

A solitaire round sees exactly the cards dealt into play (hand and deck, the
other half is set aside), and a card can only score in its own suit's
expedition.  So no play, however clairvoyant, beats laying, in each suit, the
best subset of that suit's cards in play in ascending order:

    best(suit) = max(0, max over k = 0..investments in play of
                 (sum of all its numbers - cost) * (k + 1) + bonus if (numbers + k) >= bonus_cards)

(adding a number never lowers an expedition's score, so all numbers are kept;
only the number of investments is a choice).  The sum over suits is a proven
upper bound on the deal's score.  It ignores the order of the draw pile and the
hand limit, so it is not always reachable: it is a ceiling, not the optimum.
"""
from __future__ import annotations

import numpy as np
from numba import njit, prange

from .cards import SLOTS, deck_codes
from .engine import S_DECK_END, S_DECK_POS, S_ORDER, _new_state, deal
from .observation import O_HAND, O_HAND_LEN
from .ruleset import P_BONUS_CARDS, P_BONUS_POINTS, P_COST, P_SUITS, Ruleset, rules as make_rules


@njit(cache=True)
def _suit_best(P, total, numbers, investments):
    if numbers + investments == 0:
        return 0
    best = 0                                   # not opening scores 0
    for k in range(investments + 1):
        if numbers + k == 0:
            continue
        s = (total - P[P_COST]) * (k + 1)
        if numbers + k >= P[P_BONUS_CARDS]:
            s += P[P_BONUS_POINTS]
        if s > best:
            best = s
    return best


@njit(cache=True, parallel=True)
def _ceilings(P, pid_code, seed, start, n, out):
    suits = P[P_SUITS]
    for i in prange(n):
        S, O, rng = _new_state()
        deal(P, pid_code, seed, start + i, S, O, rng)
        total = np.zeros(6, np.int64)
        nums = np.zeros(6, np.int64)
        invs = np.zeros(6, np.int64)
        for k in range(O[0, O_HAND_LEN]):
            c = O[0, O_HAND + k]
            if c % SLOTS < 3:
                invs[c // SLOTS] += 1
            else:
                nums[c // SLOTS] += 1
                total[c // SLOTS] += c % SLOTS - 1
        for j in range(S[S_DECK_POS], S[S_DECK_END]):
            c = pid_code[S[S_ORDER + j]]
            if c % SLOTS < 3:
                invs[c // SLOTS] += 1
            else:
                nums[c // SLOTS] += 1
                total[c // SLOTS] += c % SLOTS - 1
        best = 0
        for s in range(suits):
            best += _suit_best(P, total[s], nums[s], invs[s])
        out[i] = best


def ceilings(rules="expeditions", rounds: int = 1000, seed: int = 0, start: int = 0) -> np.ndarray:
    """The ceiling of solitaire deals start .. start+rounds-1 of `seed` (same deals as the engine's)."""
    r = rules if isinstance(rules, Ruleset) else make_rules(rules, players=1)
    if r.players != 1:
        r = r.with_(players=1)
    out = np.zeros(int(rounds), np.int64)
    _ceilings(r.params(), np.array(deck_codes(r), np.int16), np.int64(seed), np.int64(start),
              np.int64(rounds), out)
    return out
