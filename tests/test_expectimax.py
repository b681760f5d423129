"""expectimax: its endgame is the exact expectation (against a plain-Python tree), it plays legally,
and it is no worse than expert on seeded solitaire deals."""
import random

import pytest

from lostcards.policies.expectimax import best_of
from lostcards.rules.ruleset import rules
from lostcards.rules.scoring import score_expedition
from lostcards.run.runner import play

TINY = dict(players=1, suits=2, numbers=(2, 4, 6, 8, 10), investments=2, hand_size=3, bonus_cards=3, cost=10)


def _fits(exp, c):
    nums = [x for x in exp if x % 12 >= 3]
    return (c % 12 < 3 and not nums) or (c % 12 >= 3 and all(c % 12 > x % 12 for x in nums))


def _naive(r, hand, exps, unseen, d):
    """The best expected final score: every play of every card, every unseen card as the next draw."""
    if not hand:
        return sum(score_expedition(e, r) for e in exps.values() if e)
    best = -1e18
    for c in hand:
        rest = [x for x in hand if x != c]
        options = [exps] + ([{**exps, c // 12: exps.get(c // 12, []) + [c]}] if _fits(exps.get(c // 12, []), c) else [])
        for ex in options:
            if d == 0:
                v = _naive(r, rest, ex, unseen, 0)
            else:
                v = sum(_naive(r, rest + [w], ex, [u for u in unseen if u != w], d - 1) for w in unseen) / len(unseen)
            best = max(best, v)
    return best


def _state(r, rng, d):
    """A random solitaire position: some cards laid, a hand, the unseen cards, d to draw."""
    deck = [s * 12 + k for s in range(r.suits) for k in range(r.investments)] + \
           [s * 12 + n + 1 for s in range(r.suits) for n in r.numbers]
    rng.shuffle(deck)
    exps, laid = {}, 0
    for c in deck[:4]:
        if rng.random() < 0.5 and _fits(exps.get(c // 12, []), c):
            exps[c // 12] = exps.get(c // 12, []) + [c]
            laid += 1
    hand = deck[4:4 + r.hand_size]
    unseen = deck[4 + r.hand_size:4 + r.hand_size + 4 + d]
    return hand, exps, unseen


def _packed(r, hand, exps, unseen):
    e = 0
    for s, ex in exps.items():
        k = sum(1 for x in ex if x % 12 < 3)
        top = max([x % 12 for x in ex if x % 12 >= 3], default=0)
        e |= (k | top << 2 | min(len(ex), r.bonus_cards) << 6) << (10 * s)
    live = [c for c in hand if _fits(exps.get(c // 12, []), c)]
    return (sum(1 << c for c in live), len(hand) - len(live), e, sum(1 << c for c in unseen), len(unseen))


@pytest.mark.parametrize("d", [0, 1, pytest.param(2, marks=pytest.mark.slow)])
def test_the_endgame_is_the_exact_expectation(d):
    r = rules("expeditions", **TINY)
    rng = random.Random(d)
    for _ in range(8):
        hand, exps, unseen = _state(r, rng, d)
        L, dead, e, U, n_u = _packed(r, hand, exps, unseen)
        # the rest is booked from now on: an expedition's cost and bonus count once, when made
        got, _ = best_of(d, L, dead, e, U, n_u, r.suits, r.cost, r.bonus_cards, r.bonus_points)
        naive = _naive(r, hand, exps, unseen, d)
        assert got == pytest.approx(naive - booked_rest(r, exps), abs=1e-9), (hand, exps, unseen)


def booked_rest(r, exps):
    """What the laid cards already booked (numbers times investments + 1, less the cost once a number
    is laid, the bonus once reached); an expedition of investments only books nothing yet."""
    out = 0
    for ex in exps.values():
        k = sum(1 for x in ex if x % 12 < 3)
        nums = [x % 12 - 1 for x in ex if x % 12 >= 3]
        if nums:
            out += (sum(nums) - r.cost) * (k + 1)
        if len(ex) >= r.bonus_cards:
            out += r.bonus_points
    return out


def test_it_plays_legally_and_no_worse_than_expert():
    """Seeded deals, paired: the engine checks every move; the exact endgame does not lose on average."""
    r = rules("expeditions", players=1)
    e = play(r, "expert", rounds=200, seed=3).scores[:, 0]
    x = play(r, "expectimax:k=0,deck=2", rounds=200, seed=3).scores[:, 0]
    assert x.mean() >= e.mean()
    assert (x != e).any()                                   # it does decide something
    lc = rules("lost-cities", players=1)
    assert (play(lc, "expectimax:k=0,deck=1", rounds=50, seed=3).scores[:, 0]
            >= -200).all()                                  # five suits: legal and played out
