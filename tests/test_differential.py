"""The numba engine against the plain-Python reference: same seeds, identical rounds.

Each case plays the `random` policy through both engines on the same (seed,
round) pairs and asks for identical records (deal and every move) and identical
statistics (turns, ending, scores, per-seat counts, per-suit held/reached sums,
expeditions).
"""
import numpy as np
import pytest

from lostcards.policies.py_random import random_policy as py_random
from lostcards.reference import round as reference
from lostcards.rules.ruleset import rules
from lostcards.run.runner import play
from lostcards.run.runner import play_records as records

CASES = [
    ("expeditions", 2, {}), ("expeditions", 4, {}), ("expeditions", 1, {}),
    ("lost-cities", 2, {}), ("lost-cities", 4, {}), ("lost-cities", 1, {}),
    ("expeditions", 2, {"hand_size": 8, "bonus_cards": 4, "stall_limit": 2}),
    ("expeditions", 4, {"pass_min_hand": 4, "pass_twice": True, "extra_low": (2, 5, 9)}),
    ("lost-cities", 2, {"turn_cap": 60, "suits": 6, "numbers": (2, 4, 6, 8, 10)}),
    ("expeditions", 1, {"investments": 1, "suits": 3, "hand_size": 3}),
]
ROUNDS = 120


def _ids(case):
    preset, players, over = case
    return f"{preset}-{players}p" + "".join(f"-{k}" for k in over)


@pytest.mark.parametrize("case", CASES, ids=[_ids(c) for c in CASES])
def test_same_rounds_as_reference(case):
    check_same_rounds(case, ROUNDS, seed=1234 + case[1])


@pytest.mark.slow
@pytest.mark.parametrize("case", CASES[:6], ids=[_ids(c) for c in CASES[:6]])
def test_thousands_of_rounds_as_reference(case):
    """2,500 more rounds for each player count and preset (make test-slow)."""
    check_same_rounds(case, 2500, seed=99 + case[1])


def check_same_rounds(case, rounds, seed):
    preset, players, over = case
    r = rules(preset, players=players, **over)
    first = -1
    ROUNDS = rounds
    batch = play(r, "random", "random", rounds=ROUNDS, seed=seed, first=first)
    recs = records(r, "random", "random", range(ROUNDS), seed=seed, first=first)
    for i in range(ROUNDS):
        ref = reference.play_round(r, seed, i, [py_random] * r.sides, first=i % players)
        assert recs[i] == ref.record, f"round {i}: records differ"
        st = ref.stats
        assert batch.round_info[i, 0] == st["first"]
        assert batch.round_info[i, 1] == st["turns"]
        assert reference_ended(batch.round_info[i, 2]) == st["ended_by"]
        assert list(batch.round_info[i, 3:3 + r.sides]) == list(st["scores"])
        np.testing.assert_array_equal(batch.seats[i], st["seats"], err_msg=f"round {i} seats")
        np.testing.assert_array_equal(batch.seat_suits[i], st["seat_suits"], err_msg=f"round {i} seat_suits")
        np.testing.assert_array_equal(batch.side_suits[i], st["side_suits"], err_msg=f"round {i} side_suits")


def reference_ended(code):
    from lostcards.rules.outcome import Ending
    return Ending.of_code(int(code))


def test_results_do_not_depend_on_threads_or_splitting():
    r = rules("expeditions")
    whole = play(r, "random", rounds=2000, seed=9, threads=2)
    one = play(r, "random", rounds=2000, seed=9, threads=1)
    parts = [play(r, "random", rounds=500, seed=9, start=s) for s in range(0, 2000, 500)]
    np.testing.assert_array_equal(whole.round_info, one.round_info)
    np.testing.assert_array_equal(whole.seat_suits, one.seat_suits)
    np.testing.assert_array_equal(whole.round_info, np.concatenate([p.round_info for p in parts]))
