"""Suit-blind bots: per-suit statistics agree across suits within sampling error.

Every suit is dealt alike, so a bot that breaks no tie by suit opens, reaches and
scores the same in each.  Per round, each suit's statistic less the round's mean
over suits; its mean over the rounds must be 0 within 4.5 standard errors (a
z bound that 12 statistics pass by chance with probability > 0.9999).  Every
registered numba bot is held to it with its default parameters, for its
``test_rounds`` (a ``slow`` bot in make test-slow only), and in make test-slow
for ``LONG_ROUNDS`` times as many, at most 200,000.  The networks (15-20 times
costlier a round than expert, 3,000 fast rounds) play 99,000, about 4 minutes
of CPU less than 200,000; the 4-player tie bias the check once caught at z 9.6
on 200,000 rounds would still show at about 6.8.  The
suit-ordered tie-breaks (``ties=suit``, the order before the suit-blind
default) fail the same test.
"""
import numpy as np
import pytest

from lostcards.policies import names, resolve
from lostcards.rules.ruleset import rules
from lostcards.run.runner import play

Z_MAX = 4.5
# every registered numba bot that is not slow, with the rounds of its fast test (names(): a new bot is here)
BOTS = {n: p.test_rounds for n in names() if (p := resolve(n)).kernel is not None and not p.slow}


def suit_z(preset, players, spec, n, seed):
    """z of each suit's opened / score / reached-sum offset from its round's mean, per statistic."""
    r = rules(preset, players=players)
    b = play(r, spec, spec, rounds=n, seed=seed, first=-1)
    out = {}
    for name, x in (("opened", b.side_suits[..., 0] > 0), ("score", b.side_suits[..., 2]),
                    ("reached", b.seat_suits[..., 3])):
        x = x.astype(np.float64).sum(axis=1)
        d = x - x.mean(axis=1, keepdims=True)
        out[name] = d.mean(axis=0) / (d.std(axis=0, ddof=1) / np.sqrt(n))
    return out


def _check(bot, preset, players, n, seed):
    z = suit_z(preset, players, bot, n, seed)
    for name, v in z.items():
        assert np.abs(v).max() < Z_MAX, (bot, preset, players, name, np.round(v, 1))


def test_every_bot_is_checked():
    assert {"random", "greedy", "expert", "staller", "blueprint", "learned"} <= set(BOTS)
    assert not {"search", "improve", "learned-mc"} & set(BOTS)      # play-outs at every decision: slow


@pytest.mark.parametrize("players", [1, 2, 4])
@pytest.mark.parametrize("bot", sorted(BOTS))
def test_bots_are_suit_blind(bot, players):
    _check(bot, "expeditions", players, BOTS[bot], 3)


@pytest.mark.parametrize("bot", ["expert", "greedy"])
def test_ties_by_suit_fail_the_test(bot):
    z = suit_z("expeditions", 2, f"{bot}:ties=suit", 40_000, 3)
    assert max(np.abs(v).max() for v in z.values()) > Z_MAX


LONG_ROUNDS = 33


@pytest.mark.slow
@pytest.mark.parametrize("preset", ["expeditions", "lost-cities"])
@pytest.mark.parametrize("players", [1, 2, 4])
@pytest.mark.parametrize("bot", sorted(BOTS))
def test_bots_are_suit_blind_long(bot, preset, players):
    _check(bot, preset, players, min(200_000, LONG_ROUNDS * BOTS[bot]), 5)


def test_the_students_tie_breaks_draw_numbers_of_their_own():
    """The ungated student with 4 players: its tie-breaks once drew the numbers expert's move (its
    flag) had drawn on a copy of the seat's stream, and favoured the low suits' discard piles
    (cards reached: z +12, +6, -4, -15 on 100,000 rounds; about 7 on these 20,000)."""
    _check("student:margin=0", "expeditions", 4, 20_000, 3)
