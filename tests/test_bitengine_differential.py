"""The bit engine against today's engine: same seeds, identical rounds and statistics.

`random` must play exactly the rounds of docs/engine.md, so records (deal and
every move) and every per-round statistic must equal what lostcards.runner
produced before the bit engine, over both presets, 1, 2 and 4 players and
tweaked rulesets.
"""
import numpy as np
import pytest

from lostcards.reference import round as reference
from lostcards.rules.outcome import Ending
from lostcards.bitengine import run as bit
from lostcards.bitengine.random_policy import random_policy
from lostcards.policies.py_random import random_policy as py_random
from lostcards.rules.ruleset import rules
from lostcards.run.runner import play, play_records as records

CASES = [
    ("expeditions", 2, {}), ("expeditions", 4, {}), ("expeditions", 1, {}),
    ("lost-cities", 2, {}), ("lost-cities", 4, {}), ("lost-cities", 1, {}),
    ("expeditions", 2, {"hand_size": 8, "bonus_cards": 4, "stall_limit": 2}),
    ("expeditions", 4, {"pass_min_hand": 4, "pass_twice": True, "extra_low": (2, 5, 9)}),
    ("expeditions", 4, {"pass_min_hand": 3, "stall_limit": 1, "hand_size": 4}),
    ("lost-cities", 2, {"turn_cap": 60, "suits": 6, "numbers": (2, 4, 6, 8, 10)}),
    ("lost-cities", 2, {"suits": 6, "investments": 0, "cost": 5, "bonus_points": 7}),
    ("expeditions", 1, {"investments": 1, "suits": 3, "hand_size": 3}),
    ("lost-cities", 1, {"suits": 6, "hand_size": 10}),
]


def _ids(case):
    preset, players, over = case
    return f"{preset}-{players}p" + "".join(f"-{k}" for k in over)


def bit_play(r, rounds, seed, first, threads=None, k_slots=16, start=0):
    return bit.play_arrays(r, random_policy, None, random_policy, None, rounds, seed, start=start,
                           first=first, threads=threads, k_slots=k_slots)


def check_same(case, rounds, seed):
    preset, players, over = case
    r = rules(preset, players=players, **over)
    old = play(r, "random", "random", rounds=rounds, seed=seed, first=-1)
    new = bit_play(r, rounds, seed, -1)
    for name, a, b in zip(("round_info", "seats", "seat_suits", "side_suits"),
                          (old.round_info, old.seats, old.seat_suits, old.side_suits), new):
        bad = np.flatnonzero((a != b).reshape(rounds, -1).any(axis=1))
        assert bad.size == 0, f"{name} differs in {bad.size} rounds, first {bad[0]}"
    idx = range(0, rounds, max(1, rounds // 60))
    assert bit.records(r, random_policy, None, random_policy, None, idx, seed, first=-1) == \
        records(r, "random", "random", idx, seed=seed, first=-1)


@pytest.mark.parametrize("case", CASES, ids=[_ids(c) for c in CASES])
def test_same_rounds_as_todays_engine(case):
    check_same(case, 1500, seed=77 + case[1])


@pytest.mark.slow
@pytest.mark.parametrize("case", CASES[:6], ids=[_ids(c) for c in CASES[:6]])
def test_many_more_rounds(case):
    check_same(case, 20000, seed=5 + case[1])


# today's engine holds at most 96 cards; the largest deck (6 suits, every number doubled
# with 4 players: 126 cards) is checked against the reference engine instead
BIG = [("lost-cities", 4, {"suits": 6, "turn_cap": 90, "extra_low": (2, 3, 4, 5, 6, 7, 8, 9, 10)}),
       ("lost-cities", 4, {"suits": 6, "hand_size": 30, "pass_min_hand": 3, "pass_twice": True,
                           "extra_low": (2, 3, 4, 5, 6, 7, 8, 9, 10), "turn_cap": 400})]


@pytest.mark.parametrize("case", BIG, ids=["126-cards", "126-cards-big-hands"])
def test_largest_deck_as_reference(case):
    preset, players, over = case
    r = rules(preset, players=players, **over)
    seed, n = 3, 40
    new = bit_play(r, n, seed, -1)
    recs = bit.records(r, random_policy, None, random_policy, None, range(n), seed, first=-1)
    for i in range(n):
        ref = reference.play_round(r, seed, i, [py_random] * r.sides, first=i % players)
        assert recs[i] == ref.record, f"round {i}: records differ"
        st = ref.stats
        assert list(new[0][i]) == [st["first"], st["turns"], Ending(st["ended_by"]).code,
                                   *st["scores"]]
        np.testing.assert_array_equal(new[1][i], st["seats"])
        np.testing.assert_array_equal(new[2][i], st["seat_suits"])
        np.testing.assert_array_equal(new[3][i], st["side_suits"])


def test_results_do_not_depend_on_threads_slots_or_splitting():
    r = rules("expeditions", players=4)
    whole = bit_play(r, 3000, 9, -1, threads=2, k_slots=16)
    for k in (1, 3, 32):
        other = bit_play(r, 3000, 9, -1, threads=1, k_slots=k)
        for a, b in zip(whole, other):
            np.testing.assert_array_equal(a, b)
    parts = [bit_play(r, 1000, 9, -1, start=s) for s in range(0, 3000, 1000)]
    np.testing.assert_array_equal(whole[0], np.concatenate([p[0] for p in parts]))
