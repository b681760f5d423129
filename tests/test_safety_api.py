"""Issue 11, finding 14: the Python API checks its arguments as the command line does, raising lostcards' errors."""
from __future__ import annotations

import json

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


# ---- a hostile run of the API (853 calls): what it found ---------------------------------------------------

BIG = 10**5000          # str() refuses it: a message must not try


@pytest.mark.parametrize("call, error, words", [
    (lambda: lostcards.play(R, "random", rounds=BIG), BadArgument, "rounds = an integer of about 5,000 digits"),
    (lambda: lostcards.play(R, "random", rounds=2, seed=BIG), BadArgument, "seed = an integer of about"),
    (lambda: lostcards.rules("expeditions", hand_size=BIG), LostcardsError, "hand_size = an integer of about"),
    (lambda: lostcards.rules("expeditions", numbers=[BIG]), LostcardsError, "numbers = a list too long to show"),
    (lambda: lostcards.play_records(R, "random", round_indices=[BIG]), BadArgument, "round index = an integer"),
    (lambda: lostcards.format_card(BIG, "CDHS"), CardError, "card code an integer of about"),
    (lambda: lostcards.score_expedition([BIG], R), CardError, "an integer of about 5,000 digits"),
])
def test_an_integer_of_thousands_of_digits_is_named_by_its_size(call, error, words):
    """Python will not turn it into text, so the refusal itself raised ValueError (its int-limit advice)."""
    with pytest.raises(error) as e:
        call()
    assert words in str(e.value) and "\n" not in str(e.value) and len(str(e.value)) < 300


@pytest.mark.parametrize("bad, words", [
    (dict(players=3), "players = 3"),
    (dict(preset="nope"), "preset = nope"),
    (dict(numbers=(2, 2, 3)), "numbers = 2,2,3"),
    (dict(hand_size=0), "hand_size = 0"),
    (dict(hand_size=-5), "hand_size = -5"),
])
def test_a_ruleset_built_by_hand_is_checked_where_it_is_used(bad, words):
    """Ruleset(players=3) played a 3-seat batch; hand_size=0 was blamed on a policy; preset='nope' a KeyError."""
    from lostcards.rules.ruleset import Ruleset
    r = Ruleset(**bad)
    for call in (lambda: lostcards.play(r, "random", rounds=2), lambda: lostcards.play_records(r, "random", [0]),
                 lambda: lostcards.score_expedition(["JH"], r), lambda: lostcards.format_card(3, r)):
        with pytest.raises(LostcardsError, match=words):
            call()


def test_endless_round_indices_and_rounds_past_the_last_index_are_refused(monkeypatch):
    import itertools

    from lostcards.run import runner
    monkeypatch.setattr(runner, "MAX_RECORDS", 1000)          # the bound as data: the test need not count to 10**6
    with pytest.raises(BadArgument, match="more than 1,000 rounds"):
        lostcards.play_records(R, "random", round_indices=itertools.count())
    with pytest.raises(BadArgument, match="start \\+ rounds"):
        lostcards.play(R, "random", rounds=20, start=10**11)


@pytest.mark.parametrize("spec", ["improve:k=\uff11\uff16", "improve:k=\u0661\u0666", "improve:k=1_6", "improve:k=16.0",
                                  "improve:k=1e1", "expert:open_from=1e3", "expert:rho=infinity",
                                  "improve:rules=fund20+fund20", "expert:rules=safe+safe"])
def test_a_policy_parameter_is_plain_ascii_number_text_and_a_rule_is_named_once(spec):
    """float() took fullwidth and Arabic-Indic digits, '1_6' and '16.0' for a count; a move rule named twice passed."""
    from lostcards.policies import resolve
    with pytest.raises(PolicyError, match="is not allowed"):
        resolve(spec)
    assert resolve("expert:rho=.5").spec == "expert:rho=0.5" and resolve("expert:rho=1e-1").spec == "expert:rho=0.1"


def test_a_policy_whose_kernel_is_no_numba_function_is_refused_when_made():
    from lostcards.policies.parameters import Policy
    for kernel in (5, lambda obs, params, mem: 0):
        with pytest.raises(PolicyError, match="is not a numba function"):
            Policy("x", kernel)


def test_numpy_arrays_are_no_card_code():
    import numpy as np
    assert lostcards.format_card(np.int64(5), "CDHS") == lostcards.format_card(5, "CDHS")
    for bad in (np.array([5]), np.array([5, 6])):
        with pytest.raises(CardError, match="card code"):
            lostcards.format_card(bad, "CDHS")


def test_play_pair_checks_its_stats_before_playing():
    from lostcards.analysis.tournament import TournamentError, play_pair
    with pytest.raises(TournamentError, match="no accumulator for 'random'"):
        play_pair(R, "random", "greedy", 2, stats={})
    with pytest.raises(TournamentError, match="stats = 5 is not allowed"):
        play_pair(R, "random", "greedy", 2, stats=5)


def test_load_refuses_a_table_list_or_lazy_that_is_not_one(tmp_path):
    from safety_tools import cli
    out = tmp_path / "b"
    assert cli("simulate", "--rounds", 20, "--no-progress", "--out", out)[0] == 0
    for kw, words in ((dict(tables=5), "tables = 5"), (dict(lazy=1), "lazy = 1"), (dict(lazy=0), "lazy = 0"),
                      (dict(columns={"rounds": 5}), "columns['rounds']")):
        with pytest.raises(BadArgument, match=words.replace("[", "\\[").replace("]", "\\]")):
            lostcards.load(out, **kw)


def test_jsonl_reads_paths_only_and_writes_only_json(tmp_path):
    """read_jsonl(True) read (and closed) stdout, an int being a file descriptor; NaN was written as NaN."""
    from lostcards.errors import MalformedRecord, OutputError
    from lostcards.records import format as fmt
    for bad, words in ((True, "path = True"), (5, "path = 5"), (tmp_path / "none.jsonl", "No such file"),
                       (tmp_path, "Is a directory")):
        with pytest.raises(BadArgument, match=words):
            fmt.read_jsonl(bad)
    with pytest.raises(MalformedRecord, match="NaN"):
        fmt.write_jsonl([{"a": float("nan")}], tmp_path / "w.jsonl")
    assert not (tmp_path / "w.jsonl").exists()
    with pytest.raises(MalformedRecord, match="must be a dict"):
        fmt.dumps(5)
    with pytest.raises(OutputError, match="cannot write"):
        fmt.write_jsonl([{"a": 1}], tmp_path / "no" / "w.jsonl")
    with pytest.raises(BadArgument, match="out = None"):
        fmt.write_jsonl([{"a": 1}], None)
    assert fmt.write_jsonl([{"a": 1}], tmp_path / "ok.jsonl") == 1
    assert fmt.read_jsonl(tmp_path / "ok.jsonl") == [{"a": 1}]


def test_summary_checks_the_tables_and_manifest_it_is_given(tmp_path):
    """summary(tabs, "x") raised AttributeError, a table without its columns KeyError, a NaN score printed 0.000."""
    import numpy as np
    import pandas as pd
    from safety_tools import cli

    from lostcards.errors import BatchError
    out = tmp_path / "b"
    assert cli("simulate", "--rounds", 20, "--no-progress", "--out", out)[0] == 0
    tabs = lostcards.load(out)
    for manifest in ("x", {"batch": 5}, {"seconds": "x"}, {"policies": 5}, {"shards": "x"}):
        with pytest.raises(BatchError, match="manifest = .* is not allowed"):
            lostcards.summary(tabs, manifest)
    with pytest.raises(BatchError, match="has no column 'policy_a'"):
        lostcards.summary({**tabs, "rounds": pd.DataFrame({"x": [1]})})
    r = tabs["rounds"].copy()
    r["score_a"] = r["score_a"].astype(float)
    r.loc[0, "score_a"] = np.nan
    with pytest.raises(BatchError, match="not a finite number"):
        lostcards.summary({**tabs, "rounds": r})
    assert "random vs random" in lostcards.summary(tabs, json.loads((out / "manifest.json").read_text()))
