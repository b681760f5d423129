"""`lostcards analyze` (issue 10, item 5): expected points lost a move, against the best move from the seat's
information set, on a round where one seat is `random` and the other `expert`."""
import json

import pytest
from safety_tools import cli

import lostcards
from lostcards.analysis.analyze import analyze_round, candidates, pick_record, table
from lostcards.errors import BadArgument, IllegalMove, MalformedRecord
from lostcards.records.format import read_record

SAMPLES = 24


@pytest.fixture(scope="module")
def record():
    """Seat 0 plays `random`, seat 1 `expert` (2 players, expeditions)."""
    return lostcards.play_records("expeditions", "random", "expert", round_indices=(3,), seed=5)[0]


@pytest.fixture(scope="module")
def both(record):
    return [analyze_round(record, seat=s, samples=SAMPLES) for s in (0, 1)]


def test_random_loses_far_more_than_expert(both):
    rnd, exp = both
    assert len(rnd.turns) >= 10 and len(exp.turns) >= 10
    assert rnd.total > exp.total + 40, (rnd.total, exp.total)
    assert rnd.total_interval[0] > 0, rnd.total_interval


def test_expert_plays_the_best_move_or_one_within_the_interval_on_most_turns(both):
    exp = both[1]
    ok = sum(t.best_or_within for t in exp.turns)
    assert ok >= 2 / 3 * len(exp.turns), table(exp)


def test_every_turn_of_the_seat_is_analysed_with_an_interval(record, both):
    rules = read_record(record).deal.rules
    for s, res in enumerate(both):
        assert [t.turn for t in res.turns] == list(range(1 + s, len(record["turns"]) + 1, 2))
        for t in res.turns:
            assert t.lo <= t.loss <= t.hi and t.moves >= 2 and t.rank >= 1 and t.screen_loss >= 0
            if t.best == t.played:
                assert t.loss == 0 and t.rank == 1
    assert rules.players == 2


def test_the_same_seed_gives_the_same_analysis(record, both, monkeypatch):
    import lostcards.analysis.analyze as an
    monkeypatch.setattr(an, "CHUNK_STATES", 3 * SAMPLES)       # moves in chunks: the same determinizations
    again = analyze_round(record, seat=1, samples=SAMPLES)
    assert again.as_dict() == both[1].as_dict()


def test_the_candidates_are_the_legal_moves_at_the_first_turn(record):
    rnd = read_record(record).deal.round()
    plays = len(rnd.hand(0))
    assert len(candidates(rnd, 0)) == 2 * plays        # every card to its expedition or the pile, draw deck


def test_json_parses_and_the_figure_is_written(record, tmp_path):
    path = tmp_path / "r.jsonl"
    path.write_text(json.dumps(record) + "\n" + json.dumps(record) + "\n")
    fig = tmp_path / "margin.png"
    code, out, err = cli("analyze", path, "--round", 2, "--seat", 1, "--samples", 4, "--json", "--figure", fig)
    assert code == 0, err
    d = json.loads(out)
    assert d["seat"] == 1 and d["samples"] == 4 and len(d["turns"]) == d["turns_analysed"] > 0
    assert {"played", "best", "loss", "lo", "hi", "margin_played"} <= set(d["turns"][0])
    assert fig.stat().st_size > 1000
    code, out, _ = cli("analyze", path, "--seat", 0, "--samples", 3)
    assert code == 0 and "points lost" in out.splitlines()[-1]


@pytest.mark.parametrize("args, says", [
    (["--seat", 2], "seat 2 is not a seat of this 2-player record (0..1)"),
    (["--seat", -1], "seat -1 is not a seat"),
    (["--round", 3], "--round 3 is not a record of the input (1..1)"),
])
def test_a_bad_seat_or_round_is_one_line_and_exit_1(record, tmp_path, args, says):
    path = tmp_path / "r.json"
    path.write_text(json.dumps(record))
    code, out, err = cli("analyze", path, *args)
    assert code == 1 and out == ""
    assert len(err.strip().splitlines()) == 1 and says in err, err


def test_bad_input_is_one_line_and_exit_1(record, tmp_path):
    bad = dict(record, turns=[dict(record["turns"][0], play="ZZ")] + record["turns"][1:])
    illegal = dict(record, turns=[record["turns"][1]] + record["turns"][1:])
    for name, text, says in [("not.json", "hello", "not valid JSON"),
                             ("notarecord.json", json.dumps({"a": 1}), "record"),
                             ("bad.json", json.dumps(bad), "turn 1"),
                             ("illegal.json", json.dumps(illegal), "illegal at turn")]:
        p = tmp_path / name
        p.write_text(text)
        code, out, err = cli("analyze", p)
        assert code == 1 and out == "", (name, err)
        assert len(err.strip().splitlines()) == 1 and says in err, (name, err)
    code, _, err = cli("analyze", tmp_path / "missing.json")
    assert code == 1 and "cannot read" in err and len(err.strip().splitlines()) == 1


def test_the_library_refuses_with_its_own_errors(record):
    with pytest.raises(BadArgument):
        analyze_round(record, seat=True)
    with pytest.raises(BadArgument):
        analyze_round(record, samples=1)
    with pytest.raises(MalformedRecord):
        pick_record("")
    with pytest.raises((IllegalMove, MalformedRecord)):
        analyze_round(dict(record, turns=[{"play": "ZZ", "to": "discard", "draw": "deck"}]))
