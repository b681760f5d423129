"""The penalised information-relaxation bound: exact where it can be checked, a valid ceiling where not."""
import functools

import numpy as np
import pytest

from lostcards.analysis.solitaire import optima, optimum
from lostcards.analysis.solitaire_bound import penalised_bound, penalised_bounds, penalty_along
from lostcards.errors import BadArgument
from lostcards.reference.round import Round
from lostcards.rules.cards import parse_card
from lostcards.rules.ruleset import rules
from lostcards.rules.scoring import score_expedition
from lostcards.run.runner import play, play_records

TINY = dict(players=1, suits=2, numbers=(2, 4, 6, 8, 10), investments=2, hand_size=3, bonus_cards=3, cost=10)


def _deal(r, seed, i):
    rnd = Round.dealt(r, seed, i)
    return [rnd.codes[p] for p in rnd._dealt[0]], [rnd.codes[p] for p in rnd.deck]


def _naive(r, hand, deck, alpha, beta):
    """Every play sequence of a small deal, scored less its penalties (``penalty_along``)."""
    best = -1e18
    penalty = functools.partial(penalty_along, r, hand, deck, alpha=alpha, beta=beta)

    def go(hand, deck, exps, plays):
        nonlocal best
        if not hand:
            score = sum(score_expedition(e, r) for e in exps.values() if e)
            best = max(best, score - penalty(plays))
            return
        for c in sorted(set(hand)):
            rest = list(hand)
            rest.remove(c)
            nxt, more = (rest + deck[:1], deck[1:]) if deck else (rest, deck)
            go(nxt, more, exps, plays + [(c, False)])
            e = exps.get(c // 12, [])
            nums = [x for x in e if x % 12 >= 3]
            if (c % 12 < 3 and not nums) or (c % 12 >= 3 and all(c % 12 > x % 12 for x in nums)):
                go(nxt, more, {**exps, c // 12: e + [c]}, plays + [(c, True)])

    h0, d0 = list(hand), list(deck)
    go(h0, d0, {}, [])
    return best


@pytest.mark.parametrize("alpha, beta, deals", [(0.5, 0.7, 1), pytest.param(0.5, 0.7, 3, marks=pytest.mark.slow),
                                                pytest.param(1.0, 1.0, 3, marks=pytest.mark.slow),
                                                pytest.param(0.0, 2.0, 3, marks=pytest.mark.slow)])
def test_the_exact_inner_maximum_matches_a_brute_force(alpha, beta, deals):
    r = rules("expeditions", **TINY)
    for i in range(deals):          # the brute force takes about 4 s a deal
        hand, deck = _deal(r, 3, i)
        naive = _naive(r, hand, deck, alpha, beta)
        assert penalised_bound(r, hand, deck, alpha, beta, exact=True) == pytest.approx(naive, abs=1e-9), i
        assert penalised_bound(r, hand, deck, alpha, beta) >= naive - 1e-9, i     # the relaxation bounds it


def test_without_a_penalty_it_is_the_clairvoyant_optimum():
    r = rules("expeditions", **TINY)
    for i in range(30):
        hand, deck = _deal(r, 4, i)
        o = optimum(r, hand, deck)
        assert penalised_bound(r, hand, deck, beta=0.0, exact=True) == o, i
        assert penalised_bound(r, hand, deck, beta=0.0) >= o - 1e-9, i
    full = rules("expeditions", players=1)
    assert (penalised_bounds(full, rounds=4, seed=6, beta=0.0) >= optima(full, rounds=4, seed=6) - 1e-9).all()


def _plays(r, rec):
    return [(parse_card(t["play"], r), t["to"] == "expedition") for t in rec["turns"]]


@pytest.mark.parametrize("policy", ["expert", "greedy"])
def test_the_penalty_has_mean_zero_under_a_policy_that_does_not_peek(policy):
    """The sum of penalties along a played round averages 0 (|mean| < 3.5 standard errors), while a
    play that knows the order (the clairvoyant optimum's) is charged for it on average."""
    r = rules("expeditions", players=1)
    n = 400
    recs = play_records(r, policy, round_indices=tuple(range(n)), seed=11)
    z = np.array([penalty_along(r, [parse_card(c, r) for c in rec["hands"][0]],
                                [parse_card(c, r) for c in rec["deck"]], _plays(r, rec)) for rec in recs])
    assert abs(z.mean()) < 3.5 * z.std(ddof=1) / np.sqrt(n), (z.mean(), z.std())
    assert z.std() > 1.0                                    # it is not zero turn by turn


@pytest.mark.slow
def test_the_bound_lies_between_a_bot_and_the_clairvoyant_optimum():
    """On the same deals, with 95% intervals (paired): expert < the bound < the clairvoyant optimum."""
    r = rules("expeditions", players=1)
    n = 150
    b = penalised_bounds(r, rounds=n, seed=12)
    o = optima(r, rounds=n, seed=12)
    e = play(r, "expert", rounds=n, seed=12).scores[:, 0]
    for lo, hi in ((e, b), (b, o)):
        d = hi - lo
        assert d.mean() - 1.96 * d.std(ddof=1) / np.sqrt(n) > 0, (d.mean(), d.std())


def test_bad_input_is_refused():
    r = rules("expeditions", **TINY)
    hand, deck = _deal(r, 0, 0)
    with pytest.raises(BadArgument, match="distinct"):
        penalised_bound(r, hand, deck[:-1] + [hand[0]])
    with pytest.raises(BadArgument, match="hand holds"):
        penalised_bound(r, hand[:2], deck)
    with pytest.raises(BadArgument, match="exact=True"):
        penalised_bound(rules("expeditions", players=1), *_deal(rules("expeditions", players=1), 0, 0), exact=True)
    with pytest.raises(BadArgument, match="suits"):
        penalised_bounds(rules("lost-cities", players=1, suits=6), rounds=1)


def test_shares_are_ratios_of_the_sums_with_intervals():
    from lostcards.analysis.solitaire_bound import shares
    r = rules("expeditions", players=1)
    (row,) = shares(["expert"], deals=4, seed=5)
    s = play(r, "expert", rounds=4, seed=5).scores[:, 0]
    for name, best in (("optimum", optima(r, rounds=4, seed=5)), ("bound", penalised_bounds(r, rounds=4, seed=5))):
        pct, lo, hi = row[name]
        assert pct == pytest.approx(100 * s.sum() / best.sum()) and lo < pct < hi
    with pytest.raises(BadArgument, match="at least 2"):
        shares(["expert"], deals=1)
