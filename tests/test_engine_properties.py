"""Properties of the numba engine, on rulesets and seeds chosen by hypothesis.

Every record the batch loop writes replays (with the reference replayer) to the
scores, turn count and ending the batch reported; a record with one turn made
illegal is rejected at exactly that turn; scores follow the formula.
"""
import copy

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lostcards.errors import RulesError
from lostcards.records.replay import replay_record
from lostcards.rules.outcome import Ending
from lostcards.rules.ruleset import rules
from lostcards.run.runner import play
from lostcards.run.runner import play_records as records

PRESETS = st.sampled_from(["expeditions", "lost-cities"])


@st.composite
def rulesets(draw):
    preset = draw(PRESETS)
    players = draw(st.sampled_from([1, 2, 4]))
    over = {"players": players}
    if draw(st.booleans()):
        over["hand_size"] = draw(st.integers(2, 9))
    if draw(st.booleans()):
        over["bonus_cards"] = draw(st.integers(2, 9))
    if draw(st.booleans()):
        over["suits"] = draw(st.integers(1, 4))
    if draw(st.booleans()):
        over["stall_limit"] = draw(st.integers(1, 5))
    if preset == "lost-cities" and draw(st.booleans()):
        over["turn_cap"] = draw(st.integers(20, 300))
    if players == 4 and draw(st.booleans()):
        over["pass_twice"] = draw(st.booleans())
        over["pass_min_hand"] = draw(st.integers(3, 8))
    try:
        return rules(preset, **over)
    except RulesError:
        return rules(preset, players=players)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(r=rulesets(), seed=st.integers(0, 2**40), start=st.integers(0, 10**6))
def test_every_record_replays_to_the_batch_results(r, seed, start):
    b = play(r, "random", "random", rounds=4, seed=seed, start=start, first=-1)
    recs = records(r, "random", "random", range(start, start + 4), seed=seed, first=-1)
    for i, rec in enumerate(recs):
        v = replay_record(rec)
        assert v["ok"], v
        assert v["turns"] == b.round_info[i, 1]
        assert v["scores"] == list(b.round_info[i, 3:3 + r.sides])
        assert v["ended_by"] == Ending.of_code(b.round_info[i, 2])


@settings(max_examples=30, deadline=None)
@given(r=rulesets(), seed=st.integers(0, 2**40), data=st.data())
def test_an_illegal_turn_is_caught_at_that_turn(r, seed, data):
    rec = records(r, "random", "random", [0], seed=seed)[0]
    k = data.draw(st.integers(0, len(rec["turns"]) - 1))
    bad = copy.deepcopy(rec)
    turn = bad["turns"][k]
    # a card nobody holds at that moment: one already on an expedition or in the
    # pre-deal set-aside cannot be held; simplest is a card text of a missing suit
    if "pass" in turn:
        turn["pass"] = [turn["pass"][0], "QZ"]
    else:
        turn["play"] = "9Z"
    v = replay_record(bad)
    assert v == {"ok": False, "turn": k + 1, "error": v["error"]}


@settings(max_examples=25, deadline=None)
@given(r=rulesets(), seed=st.integers(0, 2**40))
def test_scores_follow_the_formula(r, seed):
    b = play(r, "random", "random", rounds=20, seed=seed)
    cards, inv, score = (b.side_suits[..., k].astype(int) for k in range(3))
    # sum of numbers cannot be read back from the arrays directly; check the parts we can:
    # empty expeditions score 0, bonus only at bonus_cards, multiplier on the (sum - cost)
    assert (score[cards == 0] == 0).all()
    opened = cards > 0
    base = score - np.where(cards >= r.bonus_cards, r.bonus_points, 0)
    assert (base[opened] % (inv[opened] + 1) == 0).all()
    numbers_sum = base[opened] // (inv[opened] + 1) + r.cost
    assert (numbers_sum >= 0).all() and (numbers_sum <= sum(r.numbers)).all()
    assert (b.round_info[:, 3:3 + r.sides] == score.sum(axis=2)).all()
