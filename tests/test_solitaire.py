"""The solitaire ceiling is a proven upper bound: no policy ever beats it, deal by deal."""
import numpy as np
import pytest

from lostcards.reference import Round, score_expedition
from lostcards.ruleset import rules
from lostcards.runner import play
from lostcards.solitaire import ceilings


@pytest.mark.parametrize("preset", ["expeditions", "lost-cities"])
def test_no_policy_beats_the_ceiling(preset):
    r = rules(preset, players=1)
    c = ceilings(r, rounds=3000, seed=5)
    for pol in ("random", "greedy", "expert"):
        b = play(r, pol, rounds=3000, seed=5)
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
            options = [0] + [score_expedition(invs[:k] + nums, r) for k in range(len(invs) + 1)
                             if invs[:k] + nums]
            best += max(options)
        assert c[i] == best
