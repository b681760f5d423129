"""Issue 11, findings 8, 9 and 15: every bound stated with its reason, checked before anything is built."""
from __future__ import annotations

import tracemalloc

import numpy as np
import pytest
from safety_tools import cli, one_line

import lostcards
from lostcards.errors import BatchError, RulesError
from lostcards.run import runner, shards
from lostcards.run.shards import BatchSpec, bytes_per_round, max_shard_size, play_sliced

HUGE = "9" * 5000


@pytest.mark.parametrize("args, status, words", [
    (["--rounds", "99999999999999999999"], 2, ["--rounds", "1..100,000,000,000 per batch"]),
    (["--rounds", HUGE], 2, ["(5,000 characters)", "1..100,000,000,000"]),
    (["--rounds", 10**11], 1, ["1,000,000 shards; at most 100,000", "a shard size of at least 1,000,000"]),
    (["--rounds", 10**11, "--shard-size", 10**12], 1, ["shard size", "2 GiB"]),
    (["--rounds", 1000, "--shard-size", 100_000_000], 1, ["shard size", "1..2,863,311", "750 bytes a round"]),
    (["--records", 10**8], 1, ["records", "10,000,000"]),
    (["--rounds", 10**8, "--shard-size", 10**6, "--records", "all"], 1, ["records = all", "10,000,000"]),
    (["--seed", -1], 2, ["--seed"]),
    (["--first", HUGE], 2, ["--first", "(5,000 characters)"]),
])
def test_finding_8_batch_bounds_are_stated_with_their_reason(tmp_path, args, status, words):
    """Finding 8: --rounds 99999999999999999999 took 5.6 GB before any shard; --shard-size 1e12 ran out of memory."""
    out = tmp_path / "never"
    line = one_line(cli("simulate", *args, "--out", out, "--no-progress"), status, *words)
    assert len(line) < 300 and not out.exists()


def test_finding_8_the_bounds_are_what_help_says():
    """The memory bound: one shard of the largest size fits the budget; `--help` states the numbers."""
    for r in (lostcards.rules(), lostcards.rules("lost-cities", players=4, suits=6, pass_min_hand=3)):
        assert max_shard_size(r) * bytes_per_round(r) <= shards.SHARD_MEMORY
    with pytest.raises(BatchError, match="shard size"):
        BatchSpec(lostcards.rules(), ("random", "random"), 0, 10, 0, max_shard_size(lostcards.rules()) + 1)
    code, out, _ = cli("simulate", "--help")
    text = " ".join(out.split())
    assert code == 0 and "10^11" in text and "2 GiB" in text and "100,000 shards" in text


@pytest.mark.slow      # a subprocess or a whole small run: make test-slow
def test_finding_8_a_shard_is_played_in_slices_with_the_same_result(monkeypatch):
    """Ctrl-C is honoured between slices; slicing changes nothing in the rounds."""
    r = lostcards.rules()
    calls = []
    real = runner.play

    def counting(*a, **k):
        calls.append(k["rounds"])
        return real(*a, **k)
    whole = real(r, "random", "random", rounds=3000, seed=4, start=100)
    monkeypatch.setattr(runner, "play", counting)
    a = lostcards.policies.resolve("random")
    sliced = play_sliced(r, a, a, 3000, 4, 100, 0, threads=1, seconds=1e-6)
    assert len(calls) > 10 and sum(calls) == 3000
    for f in ("round_info", "seats", "seat_suits", "side_suits"):
        assert np.array_equal(getattr(whole, f), getattr(sliced, f)), f


def test_finding_8_a_huge_batch_spec_costs_nothing_until_played():
    """BatchSpec and its shard list are lazy: 10^11 rounds in 100,000 shards allocate nothing."""
    tracemalloc.start()
    spec = BatchSpec(lostcards.rules(), ("random", "random"), 0, 10**11, 0, 10**6)
    todo = (k for k in range(spec.shards) if k not in set())
    next(todo)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert spec.shards == 100_000 and peak < 10**6


@pytest.mark.parametrize("value, words", [
    ("numbers=2..20000000", ["numbers = 2..20000000 is not allowed", "distinct values in 2..10"]),
    ("numbers=2..100000000", ["numbers = 2..100000000 is not allowed"]),
    ("numbers=5..2", ["numbers = 5..2 is not allowed", "the range is empty"]),
    ("numbers=" + ",".join(["3"] * 1000), ["numbers", "(1,999 characters)"]),
    ("hand_size=--5", ["hand_size = --5 is not allowed", "cards dealt to each seat"]),
    ("hand_size=" + HUGE, ["hand_size = ", "(5,000 characters) is not allowed", "1..30"]),
    ("cost=1e3", ["cost = 1e3 is not allowed", "0..1000"]),
    ("pass_twice=maybe", ["pass_twice = maybe is not allowed: true or false"]),
])
def test_finding_9_and_15_rule_values_are_checked_from_the_text(tmp_path, value, words):
    """Finding 9: `numbers=2..20000000` printed a 169 MB line, `2..100000000` a MemoryError; finding 15:
    `hand_size=--5` did not name the parameter, `5..2` said `numbers =  is not allowed`, 5000 digits
    gave Python's int-limit text."""
    tracemalloc.start()
    with pytest.raises(RulesError) as e:
        lostcards.rules(**dict([value.split("=", 1)]))
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 10**6 and len(str(e.value)) < 200 and "Exceeds the limit" not in str(e.value)
    line = one_line(cli("simulate", "--set", value, "--out", tmp_path / "x"), 1, *words)
    assert len(line) < 250


def test_finding_15_sweep_without_opponents_says_so(tmp_path):
    """Finding 15: `--opponents none` printed "against no one"."""
    code, out, err = cli("sweep", "--rounds", 30, "--opponents", "none", "--out", tmp_path / "sw")
    assert code == 0, out + err
    assert "no duplicate deals (--opponents none)" in err and "no one" not in err
