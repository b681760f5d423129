"""The solitaire ceiling is a proven upper bound: no policy ever beats it, deal by deal."""
import pytest

from lostcards.analysis.solitaire import ceilings
from lostcards.reference.round import Round
from lostcards.rules.ruleset import rules
from lostcards.rules.scoring import score_expedition
from lostcards.run.runner import play


@pytest.mark.parametrize("preset", ["expeditions", "lost-cities"])
def test_no_policy_beats_the_ceiling(preset):
    r = rules(preset, players=1)
    c = ceilings(r, rounds=1000, seed=5)
    for pol in ("random", "greedy", "expert"):
        b = play(r, pol, rounds=1000, seed=5)
        assert (b.scores[:, 0] <= c).all(), pol
    assert c.min() >= 0


def test_ceiling_matches_a_direct_count():
    r = rules("expeditions", players=1)
    c = ceilings(r, rounds=50, seed=2)
    for i in range(50):
        rnd = Round.dealt(r, 2, i)
        cards = [rnd.codes[p] for p in list(rnd.hands[0]) + rnd.deck]
        best = 0
        for suit in range(r.suits):
            mine = [x for x in cards if x // 12 == suit]
            nums = [x for x in mine if x % 12 >= 3]
            invs = [x for x in mine if x % 12 < 3]
            options = [0] + [score_expedition(invs[:k] + sorted(nums), r) for k in range(len(invs) + 1)
                             if invs[:k] + nums]
            best += max(options)
        assert c[i] == best


def _brute_force(r, hand, deck):
    """Every play sequence of a small solitaire deal, by exhaustion."""
    from lostcards.rules.scoring import score_expedition
    best = 0

    def go(hand, deck, exps):
        nonlocal best
        if not hand:
            best = max(best, sum(score_expedition(e, r) for e in exps.values() if e))
            return
        for c in set(hand):
            rest = list(hand)
            rest.remove(c)
            nxt, more = (rest + deck[:1], deck[1:]) if deck else (rest, deck)
            go(nxt, more, exps)                                     # discard
            e = exps.get(c // 12, [])
            nums = [x for x in e if x % 12 >= 3]
            ok = (c % 12 < 3 and not nums) or (c % 12 >= 3 and all(c % 12 > x % 12 for x in nums))
            if ok:
                go(nxt, more, {**exps, c // 12: e + [c]})

    go(list(hand), list(deck), {})
    return best


@pytest.mark.parametrize("seed, deals", [(0, 3), pytest.param(1, 40, marks=pytest.mark.slow),
                                         pytest.param(2, 40, marks=pytest.mark.slow)])
def test_optimum_is_exact_on_small_deals(seed, deals):
    """Against a brute force in plain Python (a few seconds a deal: most deals are `make test-slow`'s)."""
    from lostcards.analysis.solitaire import optimum
    from lostcards.reference.round import Round
    r = rules("expeditions", players=1, suits=2, numbers=(2, 4, 6, 8, 10), investments=2,
              hand_size=3, bonus_cards=3, cost=10)
    for i in range(deals):
        rnd = Round.dealt(r, seed, i)
        hand = [rnd.codes[p] for p in rnd._dealt[0]]
        deck = [rnd.codes[p] for p in rnd.deck]
        assert optimum(r, hand, deck) == _brute_force(r, hand, deck), i


def test_no_policy_beats_the_optimum_and_it_is_below_the_ceiling():
    from lostcards.analysis.solitaire import optima
    r = rules("expeditions", players=1)
    o = optima(r, rounds=300, seed=8)
    assert (o <= ceilings(r, rounds=300, seed=8)).all()
    for pol in ("greedy", "expert"):
        assert (play(r, pol, rounds=300, seed=8).scores[:, 0] <= o).all()
