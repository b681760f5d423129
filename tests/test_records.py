"""Round records: reading and validating the deal (malformed records), parsing turns, writing JSON Lines."""
import copy
import io
import json

import pytest

from lostcards.errors import CardError, IllegalMove, MalformedRecord
from lostcards.policies.py_random import random_policy
from lostcards.records.format import (
    Deal,
    card_code,
    dumps,
    move_of_turn,
    read_jsonl,
    read_record,
    split_records,
    write_jsonl,
)
from lostcards.records.replay import replay_record
from lostcards.reference.moves import Pass, Play
from lostcards.reference.round import play_round
from lostcards.rules.ruleset import rules


def record(players=2, preset="expeditions", seed=1, **over):
    r = rules(preset, players=players, **over)
    return play_round(r, seed, 0, [random_policy] * r.sides, first=0).record


def malformed(rec, match):
    with pytest.raises(MalformedRecord, match=match):
        read_record(rec)
    verdict = replay_record(rec)
    assert verdict["ok"] is False and verdict["turn"] is None and verdict["error"]


def edited(rec=None, **changes):
    rec = copy.deepcopy(rec or record())
    for k, v in changes.items():
        if v is DELETE:
            del rec[k]
        else:
            rec[k] = v
    return rec


DELETE = object()


def test_round_trip_of_deal():
    for players in (1, 2, 4):
        rec = record(players)
        deal = read_record(rec).deal
        assert isinstance(deal, Deal) and deal.players == players and deal.first == 0
        assert deal.rules == rules("expeditions", players=players)
        rnd = deal.round()
        assert [list(rnd.hand(s)) for s in range(players)] == [sorted(card_code(t, deal.rules) for t in h)
                                                              for h in rec["hands"]]
        assert list(rnd.deck_cards()) == [card_code(t, deal.rules) for t in rec["deck"]]


def test_rules_object_round_trip():
    r = rules("lost-cities", players=4, numbers=[3, 4, 5, 6, 7, 8, 9, 10], hand_size=5, bonus_cards=5,
              pass_min_hand=4, rounds=1)
    rec = play_round(r, 2, 0, [random_policy] * 2).record
    assert rec["rules"]["preset"] == "lost-cities" and "players" not in rec["rules"]
    assert read_record(json.loads(json.dumps(rec))).deal.rules == r


def test_bad_json_and_shape():
    malformed("{not json", "not valid JSON")
    malformed(b"\xff\xfe", "not UTF-8|not valid JSON")
    malformed("[1, 2]", "must be a JSON object")
    malformed("NaN", "not valid JSON")
    malformed('{"players": ' + "2" * 5000 + "}", "a number of 5,000 digits")    # not Python's own limit message
    malformed(json.dumps(record()).replace("{", "[", 1), "not valid JSON")


def test_format():
    malformed(edited(format="lostcards-round/2"), "unknown format")
    malformed(edited(format=DELETE), "no \"format\"")


@pytest.mark.parametrize("rules_value,match", [
    ({"preset": "expeditions", "colour": 3}, "unknown rule parameter"),
    ({"hand_size": 0}, "hand_size"),
    ({"hand_size": 30}, "hand_size"),
    ({"suits": 5}, "suits"),
    ({"bonus_cards": 0}, "bonus_cards"),
    ({"stall_limit": 0}, "turn_cap"),
    ({"numbers": ["2", "3"]}, "numbers"),
    ({"numbers": "2..10"}, "numbers"),
    ({"hand_size": 6.0}, "hand_size"),
    ({"pass_twice": "yes"}, "pass_twice"),
    ({"players": 4}, "players"),
    ({"preset": "expeditions-deluxe"}, "unknown ruleset"),
    ("Expeditions", "unknown ruleset"),
    (None, "rules must be"),
    ({"rounds": 2}, "rounds"),
])
def test_bad_rules(rules_value, match):
    malformed(edited(rules=rules_value), match)


def test_rules_without_preset_means_expeditions():
    rec = edited(rules={"hand_size": 6})
    assert read_record(rec).deal.rules == rules("expeditions")
    assert replay_record(rec)["ok"]
    rec = edited(rules={"players": 2})
    assert replay_record(rec)["ok"]


@pytest.mark.parametrize("players", [0, 3, 5, "2", 2.0, True, None])
def test_bad_players(players):
    malformed(edited(players=players), "players")


def test_first():
    rec = record()
    assert read_record(edited(rec, first=DELETE)).deal.first == 0
    for bad in (2, -1, "0", True, 0.0, None):
        malformed(edited(rec, first=bad), "first must be a seat")
    assert read_record(edited(record(4), first=3)).deal.first == 3


def test_unknown_card_in_deal():
    rec = record()
    rec["hands"][0][0] = "11H"
    malformed(rec, "unknown card \"11H\" in hand 0")
    rec = record()
    rec["deck"][3] = "7X"
    malformed(rec, "unknown card \"7X\" in the deck")
    rec = record()
    rec["deck"][3] = 7
    malformed(rec, "unknown card 7 in the deck")
    rec = record()
    rec["hands"][1][2] = " " + rec["hands"][1][2]
    malformed(rec, "unknown card")
    rec = record(preset="expeditions", investments=2)
    rec["deck"].append("KC")
    malformed(rec, "unknown card \"KC\"")


def test_card_dealt_too_often():
    rec = record()
    rec["deck"][0] = rec["hands"][0][0]
    malformed(rec, "dealt 2 times; the deck has it once")
    rec = record(4)
    rec["deck"] = [t for t in rec["deck"] if t != "2C"] + ["2C", "2C", "2C"]
    malformed(rec, "dealt 3 times; the deck has it 2 times")


def test_hands_of_the_wrong_size():
    rec = record()
    rec["deck"].insert(0, rec["hands"][0].pop())
    malformed(rec, "hand 0 holds 5 cards")
    rec = record()
    rec["hands"].append([])
    malformed(rec, "hands must be a list of 2")
    malformed(edited(hands="7H 8H"), "hands must be a list")
    malformed(edited(hands=DELETE), "no \"hands\"")


def test_hands_and_deck_not_the_full_deck():
    rec = record()
    rec["deck"].pop()
    malformed(rec, "full deck of 48 cards, they hold 47")
    rec = record(4)
    rec["deck"].pop()
    malformed(rec, "full deck of 60 cards")
    malformed(edited(deck=DELETE), "no \"deck\"")
    malformed(edited(deck={"top": "2C"}), "the deck must be a list")


def test_solitaire_halves():
    rec = record(1)
    assert len(rec["aside"]) == 24
    assert replay_record(edited(rec, aside=DELETE))["ok"]        # aside is optional
    bad = copy.deepcopy(rec)
    bad["aside"].append(bad["deck"].pop())
    malformed(bad, "half the deck: hand and deck must hold 24 cards, they hold 23")
    bad = copy.deepcopy(rec)
    bad["deck"].append(bad["aside"].pop())
    malformed(bad, "hold 24 cards, they hold 25")
    bad = copy.deepcopy(rec)
    bad["aside"].pop()
    malformed(bad, "the aside must hold the other half")
    bad = copy.deepcopy(rec)
    bad["aside"][0] = bad["deck"][0]
    malformed(bad, "dealt 2 times")
    malformed(edited(record(2), aside=[]), "only a solitaire record")


def test_turns_shape():
    malformed(edited(turns=DELETE), "no \"turns\"")
    malformed(edited(turns={"1": {}}), "turns must be a list")
    assert replay_record(edited(turns=[])) == {"ok": True, "ended_by": "unfinished", "scores": [0, 0], "turns": 0}


def test_unknown_top_level_keys_are_ignored():
    assert replay_record(edited(seed=5, note="from a batch"))["ok"]


# ---------------------------------------------------------------------------
# Cards and turns
# ---------------------------------------------------------------------------

def test_card_code_notation():
    r = rules("expeditions")
    assert card_code("10h", r) == card_code("TH", r) == card_code("th", r) == card_code("10H", r)
    assert card_code("jc", r) == 0
    for bad in ("1H", "010H", "11H", "AH", "7", "", " 7H", "7H ", "7 H", "10", None, 7, "KX",
                "\u00b2H", "\u0667H", "7" * 4301 + "H"):    # a superscript, an Arabic-Indic digit, 4,301 digits
        with pytest.raises(CardError):
            card_code(bad, r)


def test_move_of_turn():
    r = rules("expeditions")
    H = r.letters.index("H")
    want = Play(card_code("7H", r), "expedition", "deck")
    assert move_of_turn({"play": "7h", "to": "expedition", "draw": "deck"}, r) == want
    assert move_of_turn({"play": "7H", "to": "discard", "draw": "h"}, r) == Play(card_code("7H", r), "discard", H)
    r4 = rules("expeditions", players=4)
    assert move_of_turn({"pass": ["2c", "2C"]}, r4) == Pass((card_code("2C", r4),) * 2)
    for turn in [
        {"play": "7H", "to": "expedition", "draw": "Deck"},
        {"play": "7H", "to": "expedition", "draw": "DECK"},
        {"play": "7H", "to": "expedition", "draw": "pile"},
        {"play": "7H", "to": "expedition", "draw": None},
        {"play": "7H", "to": "expedition", "draw": 2},
        {"play": "7H", "to": "expedition", "draw": "Y"},
        {"play": "7H", "to": "expedition"},
        {"play": "7H", "draw": "deck"},
        {"play": "7H", "to": "Expedition", "draw": "deck"},
        {"play": "7H", "to": "exp", "draw": "deck"},
        {"play": "7H", "to": None, "draw": "deck"},
        {"play": "7H", "to": "discard", "draw": "deck", "note": 1},
        {"play": "1H", "to": "discard", "draw": "deck"},
        {"play": ["7H"], "to": "discard", "draw": "deck"},
        {"to": "discard", "draw": "deck"},
        {},
        "7H",
        None,
        {"pass": ["2C", "3C"]},          # 2 players
    ]:
        with pytest.raises(IllegalMove):
            move_of_turn(turn, r)
    for turn in [
        {"pass": ["2C"]},
        {"pass": ["2C", "3C", "4C"]},
        {"pass": "2C 3C"},
        {"pass": ["2C", "3C"], "draw": "deck"},
        {"pass": ["2C", "3C"], "play": "2C"},
        {"pass": ["2C", "3C"], "to": "discard"},
        {"pass": ["2C", "ZC"]},
    ]:
        with pytest.raises(IllegalMove):
            move_of_turn(turn, r4)
    r1 = rules("expeditions", players=1)
    assert move_of_turn({"play": "7H", "to": "discard"}, r1) == Play(card_code("7H", r1), "discard", None)
    assert move_of_turn({"play": "7H", "to": "discard", "draw": "deck"}, r1).draw == "deck"
    with pytest.raises(IllegalMove, match="solitaire"):
        move_of_turn({"play": "7H", "to": "discard", "draw": "H"}, r1)
    with pytest.raises(IllegalMove):
        move_of_turn({"play": "7H", "to": "discard", "draw": None}, r1)


# ---------------------------------------------------------------------------
# Files
# ---------------------------------------------------------------------------

def test_split_records():
    a, b = record(seed=1), record(seed=2)
    assert split_records(json.dumps(a, indent=2)) == [a]                 # one JSON value, many lines
    assert split_records(dumps(a) + "\n\n" + dumps(b) + "\n") == [a, b]  # JSON Lines, blank lines skipped
    items = split_records(dumps(a) + "\n[1]\n{oops\n")
    # a line that is not a JSON object is malformed (SPEC §5.1; issue 11, finding 5)
    assert items[0] == a and isinstance(items[1], MalformedRecord) and isinstance(items[2], MalformedRecord)
    assert isinstance(split_records("")[0], MalformedRecord)
    one = split_records("[1, 2]")                                        # one value: one (malformed) record
    assert len(one) == 1 and isinstance(one[0], MalformedRecord)


def test_write_and_read_jsonl(tmp_path):
    recs = [record(p, seed=s) for p in (1, 2, 4) for s in (1, 2)]
    path = tmp_path / "rounds.jsonl"
    assert write_jsonl(recs, str(path)) == 6
    assert read_jsonl(str(path)) == recs
    assert len(path.read_text().splitlines()) == 6
    buf = io.StringIO()
    write_jsonl(recs[:2], buf)
    assert split_records(buf.getvalue()) == recs[:2]
