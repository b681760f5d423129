"""Suit-blind bots: per-suit statistics agree across suits within sampling error.

Every suit is dealt alike, so a bot that breaks no tie by suit opens, reaches and
scores the same in each.  Per round, each suit's statistic less the round's mean
over suits; its mean over the rounds must be 0 within 4.5 standard errors (a
z bound that 12 statistics pass by chance with probability > 0.9999).  The
suit-ordered tie-breaks (ties=suit, today's order) fail the same test.
"""
import numpy as np
import pytest

from lostcards.rules.ruleset import rules
from lostcards.run.runner import play

Z_MAX = 4.5


def suit_z(preset, players, spec, n, seed):
    """z of each suit's opened / score / reached-sum offset from its round's mean, per statistic."""
    r = rules(preset, players=players)
    b = play(r, spec, spec, rounds=n, seed=seed, first=-1)
    seat_suits, side_suits = b.seat_suits, b.side_suits
    out = {}
    for name, x in (("opened", side_suits[..., 0] > 0), ("score", side_suits[..., 2]),
                    ("reached", seat_suits[..., 3])):
        x = x.astype(np.float64).sum(axis=1)
        d = x - x.mean(axis=1, keepdims=True)
        out[name] = d.mean(axis=0) / (d.std(axis=0, ddof=1) / np.sqrt(n))
    return out


def _check(preset, players, n, seed):
    z = suit_z(preset, players, "expert:ties=random", n, seed)
    for name, v in z.items():
        assert np.abs(v).max() < Z_MAX, (preset, players, name, np.round(v, 1))


@pytest.mark.parametrize("players", [1, 2, 4])
def test_expert_ties_random_is_suit_blind(players):
    _check("expeditions", players, 40_000, 3)


def test_ties_by_suit_fail_the_test():
    z = suit_z("expeditions", 2, "expert:ties=suit", 40_000, 3)
    assert np.abs(z["reached"]).max() > Z_MAX


@pytest.mark.slow
@pytest.mark.parametrize("preset", ["expeditions", "lost-cities"])
@pytest.mark.parametrize("players", [1, 2, 4])
def test_expert_ties_random_is_suit_blind_200k(preset, players):
    _check(preset, players, 200_000, 5)
