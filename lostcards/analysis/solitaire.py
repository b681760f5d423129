"""How much could a solitaire deal score at best?  An exact clairvoyant optimum and a quick ceiling.

``optima`` solves each deal exactly for a player who knows the order of the
draw pile (see the scheduling argument below ``_suit_options``); ``ceilings``
is a cruder, proven upper bound computed in numba for millions of deals.

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
from numba import prange

from lostcards.engine.cardsets import with_card
from lostcards.engine.core import (
    NUMBER_SLOTS,
    deal,
    lane_count,
    lane_investments,
    lane_of,
    lane_sum,
    load_rules,
    rules_block,
    score_of,
)
from lostcards.engine.intrinsics import alive, as_bytes, offset, ptr
from lostcards.engine.layout import (
    MEM_WORDS,
    ORDER_CARD,
    R_ASIDE,
    R_BONUS_CARDS,
    R_BONUS_POINTS,
    R_CARDS,
    R_COST,
    R_SUITS,
    S_ORDER,
    STATE_WORDS,
)
from lostcards.numba_cache import jit
from lostcards.rules.cards import SLOTS
from lostcards.rules.ruleset import Ruleset
from lostcards.rules.ruleset import rules as make_rules


@jit(inline=True)
def _suit_best(cost, bonus_cards, bonus_points, total, numbers, investments):
    """A suit's best score from the cards in play: every number, and the investments that pay
    most (any number of them, 0 to all); not opening it scores 0."""
    best = 0
    for k in range(investments + 1):
        best = max(best, score_of(total, k, numbers + k, cost, bonus_cards, bonus_points))
    return best


@jit
def _ceiling(rb, seed, round_index):
    """One deal's ceiling: the engine deals it, then each suit's cards in play are tallied."""
    state = np.zeros(STATE_WORDS, np.int64)
    mem = np.zeros(MEM_WORDS, np.uint64)
    st = ptr(state)
    load_rules(st, ptr(rb))
    deal(st, ptr(mem), seed, round_index, 0, 0)
    order = as_bytes(offset(st, S_ORDER))
    cs = (np.int64(0), np.int64(0))
    for j in range(st[R_ASIDE], st[R_CARDS]):      # hand and deck: the cards in play
        cs = with_card(cs, np.int64(order[j]) & ORDER_CARD)
    lo, hi = cs
    best = 0
    for s in range(st[R_SUITS]):
        ln = lane_of(lo, hi, s)
        best += _suit_best(st[R_COST], st[R_BONUS_CARDS], st[R_BONUS_POINTS], lane_sum(ln),
                           lane_count(ln & NUMBER_SLOTS), lane_investments(ln))
    alive(state)
    alive(mem)
    return best


@jit(parallel=True)
def _ceilings(rb, seed, start, n, out):
    for i in prange(n):
        out[i] = _ceiling(rb, seed, start + i)


def ceilings(rules="expeditions", rounds: int = 1000, seed: int = 0, start: int = 0) -> np.ndarray:
    """The ceiling of solitaire deals start .. start+rounds-1 of `seed` (same deals as the engine's)."""
    r = rules if isinstance(rules, Ruleset) else make_rules(rules, players=1)
    if r.players != 1:
        r = r.with_(players=1)
    out = np.zeros(int(rounds), np.int64)
    _ceilings(rules_block(r), np.int64(seed), np.int64(start), np.int64(rounds), out)
    return out


# ---- the exact clairvoyant optimum -----------------------------------------------
#
# Knowing the order of the draw pile turns a solitaire deal into a scheduling
# problem.  Card i of the N cards in play (hand first, then the deck in order)
# is in the hand from turn avail(i) = max(0, i - (hand_size - 1)) on; each turn
# removes exactly one card (to its expedition or discarded).  Choose, in each
# suit, the cards to lay (investments first, then numbers upwards): that is a
# chain whose cards cannot leave before their predecessors, so a chosen card's
# earliest turn is r'(j) = max(avail(j), r'(previous in chain) + 1); every
# other card keeps r' = avail.  Unit jobs with release times on one machine
# fill the N turns without a gap iff for every t the cards with r' >= t number
# at most N - t (then laying them in order of r' is a valid play).  Adding a
# suit's chain only raises r' values, so a partial choice that fails the test
# cannot be completed: branch and bound over the suits, best options first,
# gives the exact optimum.


def _suit_options(cards, avail, rules):
    """(score, chain release times) for every choice in one suit, best first.

    cards: codes of the suit's cards in play; avail: their avail turns.
    """
    import itertools

    from lostcards.rules.scoring import expedition_score
    inv = sorted((avail[k], c) for k, c in enumerate(cards) if c % SLOTS < 3)
    nums = sorted((c % SLOTS, avail[k], c) for k, c in enumerate(cards) if c % SLOTS >= 3)
    out = [(0, (), ())]
    for ki in range(len(inv) + 1):
        chosen_inv = inv[:ki]                      # the earliest investments are never worse
        for m in range(len(nums) + 1):
            for sub in itertools.combinations(nums, m):
                if ki + m == 0:
                    continue
                codes = [c for _, c in chosen_inv] + [c for _, _, c in sub]
                s = expedition_score(codes, rules)
                if s <= 0:
                    continue
                rel, prev = [], -1
                for a in [a for a, _ in chosen_inv] + [a for _, a, _ in sub]:
                    prev = max(a, prev + 1)
                    rel.append(prev)
                idx = tuple(cards.index(c) for c in codes)
                out.append((s, tuple(rel), idx))
    out.sort(key=lambda o: -o[0])
    return out


def _feasible(release, n):
    counts = [0] * (n + 1)
    for r in release:
        if r >= n:
            return False
        counts[r] += 1
    tail = 0
    for t in range(n - 1, -1, -1):
        tail += counts[t]
        if tail > n - t:
            return False
    return True


def optimum(rules, hand, deck) -> int:
    """The best score a player who knows the draw pile's order can make (exact)."""
    cards = list(hand) + list(deck)
    n = len(cards)
    h = len(hand)
    avail = [max(0, i - (h - 1)) for i in range(n)]
    suits = sorted({c // SLOTS for c in cards})
    opts = []
    for s in suits:
        idx = [i for i, c in enumerate(cards) if c // SLOTS == s]
        local = _suit_options([cards[i] for i in idx], [avail[i] for i in idx], rules)
        opts.append([(sc, rel, tuple(idx[j] for j in loc)) for sc, rel, loc in local])
    best_rest = [0] * (len(opts) + 1)
    for k in range(len(opts) - 1, -1, -1):
        best_rest[k] = best_rest[k + 1] + opts[k][0][0]
    best = [0]
    release = list(avail)

    def dfs(k, score):
        if k == len(opts):
            best[0] = max(best[0], score)
            return
        for sc, rel, idx in opts[k]:
            if score + sc + best_rest[k + 1] <= best[0]:
                break                                   # options are sorted: none better follows
            saved = [release[i] for i in idx]
            for i, r in zip(idx, rel):
                release[i] = r
            if _feasible(release, n):
                dfs(k + 1, score + sc)
            for i, r in zip(idx, saved):
                release[i] = r

    dfs(0, 0)
    return best[0]


def optima(rules="expeditions", rounds: int = 100, seed: int = 0, start: int = 0) -> np.ndarray:
    """The exact clairvoyant optimum of solitaire deals start .. start+rounds-1 of `seed`."""
    from lostcards.reference.round import Round
    r = rules if isinstance(rules, Ruleset) else make_rules(rules, players=1)
    if r.players != 1:
        r = r.with_(players=1)
    out = np.zeros(int(rounds), np.int64)
    for i in range(int(rounds)):
        rnd = Round.dealt(r, seed, start + i)
        hand = [rnd.codes[p] for p in rnd._dealt[0]]
        deck = [rnd.codes[p] for p in rnd.deck]
        out[i] = optimum(r, hand, deck)
    return out
