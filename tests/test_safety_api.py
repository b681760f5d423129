"""Issue 11, finding 14: the Python API checks its arguments as the command line does, raising lostcards' errors."""
from __future__ import annotations

import pytest

import lostcards
from lostcards.errors import BadArgument, CardError, IllegalMove, LostcardsError, PolicyError

R = lostcards.rules()


@pytest.mark.parametrize("kwargs, error, words", [
    ({"rounds": 2.5}, BadArgument, "rounds = 2.5 is not allowed"),
    ({"rounds": "10"}, BadArgument, "rounds = '10' is not allowed"),
    ({"rounds": -1}, BadArgument, "rounds = -1"),
    ({"rounds": 10**15}, BadArgument, "GiB"),
    ({"seed": -1}, BadArgument, "seed = -1 is not allowed"),
    ({"seed": 2**64}, BadArgument, "seed"),
    ({"threads": 0}, BadArgument, "threads = 0 is not allowed"),
    ({"first": 5}, BadArgument, "first = 5 is not allowed"),
    ({"start": -3}, BadArgument, "start = -3"),
    ({"policy_a": "nosuch"}, PolicyError, "unknown policy 'nosuch'"),
    ({"policy_a": 42}, PolicyError, "a policy is a name"),
])
def test_finding_14_play_checks_its_arguments(kwargs, error, words):
    """Finding 14: play(rounds=2.5) played 2 rounds; seed=-1 and threads=0 were accepted; rounds="10" a TypeError."""
    with pytest.raises(error) as e:
        lostcards.play(R, **{"rounds": 10, **kwargs})
    assert words in str(e.value) and "\n" not in str(e.value) and len(str(e.value)) < 300


def test_finding_14_play_records_checks_its_arguments():
    with pytest.raises(BadArgument, match="round_indices"):
        lostcards.play_records(R, "random", round_indices="abc")
    with pytest.raises(BadArgument, match="round index = -1"):
        lostcards.play_records(R, "random", round_indices=[-1])
    # a plain-Python policy's records come from the reference engine (a numba one beside it bridged)
    rec = lostcards.play_records(R, "examples.cautious:prototype", "random", round_indices=[0])[0]
    assert rec["turns"] and rec["format"] == "lostcards-round/1"


@pytest.mark.parametrize("cards, error, words", [
    (["2H", "3C"], IllegalMove, "3C is not of the H suit"),
    (["2H", "2H"], IllegalMove, "2H is laid twice"),
    (["JH", "JH"], IllegalMove, "JH is laid twice"),
    (["2H", "JH"], IllegalMove, "investments go down before any number"),
    (["5H", "3H"], IllegalMove, "higher than the highest already there (5)"),
    (["XX"], CardError, "not a card"),
    ([999], CardError, "not a card of this ruleset"),
    ("JH", BadArgument, "a list of cards"),
])
def test_finding_14_score_expedition_scores_only_a_legal_expedition(cards, error, words):
    """Finding 14: score_expedition(["2H","3C"]) scored mixed suits, duplicates and an investment after a number."""
    with pytest.raises(error, match=words.replace("(", r"\(").replace(")", r"\)")):
        lostcards.score_expedition(cards, R)


def test_finding_14_score_expedition_still_scores_in_the_order_laid():
    assert lostcards.score_expedition(["JH", "QH", "6H", "8H", "10H"], R) == 12
    assert lostcards.score_expedition([], R) == 0
    with pytest.raises(BadArgument, match="Ruleset"):
        lostcards.score_expedition(["2H"], "expeditions")


def test_finding_14_load_refuses_what_a_batch_does_not_have(tmp_path):
    """Finding 14: load(tables=["nope"]) returned an empty DataFrame."""
    from safety_tools import cli
    out = tmp_path / "b"
    assert cli("simulate", "--rounds", 50, "--no-progress", "--out", out)[0] == 0
    for kwargs, words in (({"tables": ["nope"]}, "table nope is not one of this batch's"),
                          ({"columns": {"rounds": ["nope"]}}, "rounds has no column nope"),
                          ({"columns": {"nope": ["x"]}}, "table nope"),
                          ({"columns": {"rounds": "score_a"}}, "list of column names"),
                          ({"lazy": "spark"}, "lazy = 'spark' is not allowed")):
        with pytest.raises(BadArgument, match=words):
            lostcards.load(out, **kwargs)
    assert list(lostcards.load(out, {"rounds": ["score_a"]}, tables=["rounds"])["rounds"].columns) == ["score_a"]


def test_finding_14_every_refusal_is_a_lostcards_error():
    for bad in (lambda: lostcards.rules(hand_size="x"), lambda: lostcards.rules("nope"),
                lambda: lostcards.play(R, rounds=None), lambda: lostcards.load("/nonexistent/dir")):
        with pytest.raises(LostcardsError):
            bad()
