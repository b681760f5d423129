"""`lostcards replay`: verdicts of legal, unfinished, illegal and malformed records, and the CLI."""
import copy
import json
from collections import Counter

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from lostcards.cli import main
from lostcards.policies.py_random import random_policy
from lostcards.records.format import move_of_turn
from lostcards.records.replay import check_record, replay_record, replay_text
from lostcards.reference.round import Round, deal_record, play_round
from lostcards.rules.cards import deck_codes, format_card, parse_card, suit_of
from lostcards.rules.ruleset import rules
from lostcards.rules.scoring import score_expedition

CONFIGS = [(preset, p) for preset in ("expeditions", "lost-cities") for p in (1, 2, 4)]


def played(players=2, preset="expeditions", seed=1, first=0, **over):
    r = rules(preset, players=players, **over)
    return play_round(r, seed, 0, [random_policy] * r.sides, first=first)


def verdict_of(res):
    return {"ok": True, "ended_by": res.ended_by, "scores": res.scores, "turns": res.turns}


def illegal_at(rec, k):
    v = replay_record(rec)
    assert v["ok"] is False and v["turn"] == k, v
    assert isinstance(v["error"], str) and v["error"]
    return v["error"]


def state_before(rec, k):
    """The round after the first k - 1 turns of a legal record."""
    cut = copy.deepcopy(rec)
    cut["turns"] = cut["turns"][:k - 1]
    v, rnd, _ = check_record(cut)
    assert v["ok"]
    return rnd


# ---------------------------------------------------------------------------
# Legal records
# ---------------------------------------------------------------------------

@settings(max_examples=60, deadline=None)
@given(st.sampled_from(CONFIGS), st.integers(0, 2 ** 32), st.data())
def test_random_records_replay_ok(config, seed, data):
    preset, players = config
    res = played(players, preset, seed, first=data.draw(st.integers(0, players - 1)))
    rec = json.loads(json.dumps(res.record))
    assert replay_record(rec) == verdict_of(res)
    assert replay_record(json.dumps(rec)) == verdict_of(res)
    # cut anywhere: unfinished, with the scores of the table as it stands
    k = data.draw(st.integers(0, res.turns - 1))
    rec["turns"] = rec["turns"][:k]
    v, rnd, _ = check_record(rec)
    assert v == {"ok": True, "ended_by": "unfinished", "scores": rnd.scores, "turns": k}


def test_case_insensitive_cards_and_letters():
    res = played(2, seed=4)
    rec = copy.deepcopy(res.record)
    for t in rec["turns"]:
        t["play"] = t["play"].lower().replace("10", "t")
        if t["draw"] != "deck":
            t["draw"] = t["draw"].lower()
    rec["hands"] = [[c.lower() for c in h] for h in rec["hands"]]
    rec["deck"] = [c.replace("10", "T") for c in rec["deck"]]
    assert replay_record(rec) == verdict_of(res)


def test_turns_after_the_end_are_illegal():
    for players in (1, 2, 4):
        res = played(players, seed=3)
        rec = copy.deepcopy(res.record)
        rec["turns"].append(rec["turns"][-1])
        assert "already over" in illegal_at(rec, res.turns + 1)


# ---------------------------------------------------------------------------
# Illegal turns, each at exactly its turn
# ---------------------------------------------------------------------------

def mutations(rnd, r):
    """Illegal replacements for a turn, given the round just before it."""
    seat = rnd.seat
    hand = rnd.hand(seat)
    not_held = next(format_card(c, r.letters) for c in deck_codes(r) if c not in hand)
    card = format_card(hand[0], r.letters)
    out = [
        {"play": not_held, "to": "discard", "draw": "deck"},
        {"play": "1" + r.letters[0], "to": "discard", "draw": "deck"},
        {"play": card, "to": "Discard", "draw": "deck"},
        {"play": card, "to": "discard"} if r.players > 1 else {"play": card, "to": "discard", "draw": None},
        {"play": card, "to": "discard", "draw": "pile"},
        {"play": card, "to": "discard", "draw": 0},
        {"play": card, "to": "discard", "draw": r.letters[suit_of(hand[0])]},   # the pile just discarded onto
        {"play": card, "to": "discard", "draw": "deck", "extra": True},
        {"pass": [card]},
        {"pass": [card, card, card]},
        "7H",
    ]
    if r.players != 4:
        out.append({"pass": [card, card]})
    if r.players == 4 and len(hand) >= 2:
        out.append({"pass": [format_card(hand[0], r.letters), format_card(hand[1], r.letters)],
                    "draw": "deck"})
        out.append({"pass": [card, not_held]})
    empty = [s for s in range(r.suits) if not rnd.discard_piles[s] and s != suit_of(hand[0])]
    if empty and r.players > 1:
        out.append({"play": card, "to": "expedition", "draw": r.letters[empty[0]]})
    if r.players == 1 and rnd.deck_size == 0:
        out.append({"play": card, "to": "discard", "draw": "deck"})
    blocked = [c for c in hand if not rnd.observation(seat).can_play(c)]
    if blocked:
        out.append({"play": format_card(blocked[0], r.letters), "to": "expedition", "draw": "deck"})
    return out


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(CONFIGS), st.integers(0, 2 ** 32), st.data())
def test_mutated_record_rejected_at_that_turn(config, seed, data):
    preset, players = config
    res = played(players, preset, seed)
    r = res.state.rules
    k = data.draw(st.integers(1, res.turns))
    rnd = state_before(res.record, k)
    bad = data.draw(st.sampled_from(mutations(rnd, r)))
    rec = copy.deepcopy(res.record)
    rec["turns"][k - 1] = bad
    illegal_at(rec, k)


def test_drawing_rules_in_words():
    res = played(2, seed=9)
    rec = res.record
    k = next(i for i, t in enumerate(rec["turns"], 1) if t["to"] == "discard")
    bad = copy.deepcopy(rec)
    t = bad["turns"][k - 1]
    t["draw"] = t["play"][-1]
    assert "cannot be drawn back" in illegal_at(bad, k)
    bad["turns"][k - 1] = dict(t, draw="deck", to="expedition ")
    assert "expedition" in illegal_at(bad, k)


# ---------------------------------------------------------------------------
# Constructed records: stall, turn cap, deck end, passes, solitaire
# ---------------------------------------------------------------------------

def build(r, seed, choose, first=0, turns=None):
    """A record of a round dealt from `seed`, whose turns `choose(rnd)` picks (as record turns)."""
    rnd = Round.dealt(r, seed, 0, first)
    rec = deal_record(rnd)
    while not rnd.ended and (turns is None or len(rec["turns"]) < turns):
        t = choose(rnd)
        rnd.apply(move_of_turn(t, r))
        rec["turns"].append(t)
    return rec, rnd


def stall_turn(rnd):
    r = rnd.rules
    for c in rnd.hand(rnd.seat):
        for s, pile in enumerate(rnd.discard_piles):
            if pile and s != suit_of(c):
                return {"play": format_card(c, r.letters), "to": "discard", "draw": r.letters[s]}
    return {"play": format_card(rnd.hand(rnd.seat)[0], r.letters), "to": "discard", "draw": "deck"}


@pytest.mark.parametrize("players", [2, 4])
def test_stall_rule_ends_the_round(players):
    r = rules("expeditions", players=players)                       # stall_limit 8
    rec, rnd = build(r, 5, lambda rnd: stall_turn(rnd) if rnd.turn else
                     {"play": format_card(rnd.hand(0)[0], r.letters), "to": "discard", "draw": "deck"})
    limit = 8 * players
    assert rnd.ended_by == "stall" and len(rec["turns"]) == limit + 1
    assert replay_record(rec) == {"ok": True, "ended_by": "stall", "scores": [0, 0], "turns": limit + 1}
    more = copy.deepcopy(rec)
    more["turns"].append(stall_turn(rnd))
    illegal_at(more, limit + 2)
    # one stall turn short: unfinished
    short = copy.deepcopy(rec)
    short["turns"].pop()
    assert replay_record(short)["ended_by"] == "unfinished"


def test_stall_count_reset_by_an_expedition_play():
    r = rules("expeditions", stall_limit=2)

    def choose(rnd):
        if rnd.turn in (0, 3):       # a deck draw at turn 1, and at turn 4 a non-stall turn
            return {"play": format_card(rnd.hand(rnd.seat)[0], r.letters), "to": "discard", "draw": "deck"}
        return stall_turn(rnd)

    rec, rnd = build(r, 5, choose)
    assert rnd.ended_by == "stall" and len(rec["turns"]) == 8
    assert replay_record(rec)["turns"] == 8


def test_turn_cap():
    r = rules("lost-cities", turn_cap=5)
    rec, rnd = build(r, 2, lambda rnd: {"play": format_card(rnd.hand(rnd.seat)[0], r.letters),
                                        "to": "discard", "draw": "deck"})
    assert rec["rules"] == {"preset": "lost-cities", "turn_cap": 5}
    assert replay_record(rec) == {"ok": True, "ended_by": "capped", "scores": [0, 0], "turns": 5}
    rec["turns"].append(rec["turns"][-1])
    assert "capped" in illegal_at(rec, 6)
    # lost-cities' own cap of 2000 turns, reached by stalling forever
    big = rules("lost-cities")
    rec, rnd = build(big, 2, lambda rnd: stall_turn(rnd) if rnd.turn else
                     {"play": format_card(rnd.hand(0)[0], big.letters), "to": "discard", "draw": "deck"})
    assert rnd.ended_by == "capped" and len(rec["turns"]) == 2000
    assert replay_record(rec) == {"ok": True, "ended_by": "capped", "scores": [0, 0], "turns": 2000}


def test_deck_end():
    r = rules("expeditions")
    rec, rnd = build(r, 3, lambda rnd: {"play": format_card(rnd.hand(rnd.seat)[-1], r.letters),
                                        "to": "discard", "draw": "deck"})
    assert rnd.ended_by == "deck" and len(rec["turns"]) == 36
    assert replay_record(rec)["ended_by"] == "deck"
    rec["turns"].append({"play": format_card(rnd.hand(rnd.seat)[0], r.letters), "to": "discard", "draw": "deck"})
    assert "ended by deck" in illegal_at(rec, 37)


def four_player(r, hands, first=0):
    """A 4-player record with the given hands (texts) and the rest of the deck in canonical order."""
    hs = [[parse_card(t, r) for t in h.split()] for h in hands]
    rest = Counter(deck_codes(r)) - sum((Counter(h) for h in hs), Counter())
    return {"format": "lostcards-round/1", "rules": r.to_record(), "players": 4, "first": first,
            "hands": [h.split() for h in hands],
            "deck": [format_card(c, r.letters) for c in sorted(rest.elements())], "turns": []}


HANDS6 = ["2C 2C 3C 5C 6C 7C", "2D 3D 4D 5D 6D 7D", "2H 3H 4H 5H 6H 7H", "2S 3S 4S 5S 6S 7S"]
PLAY = {"to": "discard", "draw": "deck"}


def test_passes_pass_twice_off():
    r = rules("expeditions", players=4)                  # pass_min_hand 6, pass_twice off
    rec = four_player(r, HANDS6)
    rec["turns"] = [{"pass": ["2c", "2C"]}, dict(PLAY, play="7D"), dict(PLAY, play="7H"), dict(PLAY, play="7S")]
    v = replay_record(rec)
    assert v["ok"] and v["turns"] == 4 and v["ended_by"] == "unfinished"
    # seat 0 now holds 4 cards: too few (checked before "twice in a row")
    bad = copy.deepcopy(rec)
    bad["turns"].append({"pass": ["3C", "5C"]})
    assert "at least 6" in illegal_at(bad, 5)
    # with a smaller minimum, the same pass breaks "not twice in a row"
    r3 = rules("expeditions", players=4, pass_min_hand=3)
    rec3 = four_player(r3, HANDS6)
    rec3["turns"] = copy.deepcopy(bad["turns"])
    assert "in a row" in illegal_at(rec3, 5)
    # a play in between makes it legal again
    rec3["turns"][4:] = [dict(PLAY, play="3C"), dict(PLAY, play="6D"), dict(PLAY, play="6H"),
                         dict(PLAY, play="6S"), {"pass": ["5C", "6C"]}]
    assert replay_record(rec3)["ok"]
    # seat 2 receives two cards (8), passes, and may not pass on its next turn
    rec["turns"][2] = {"pass": ["2H", "3H"]}
    rec["turns"] += [dict(PLAY, play="5C"), dict(PLAY, play="6D"), {"pass": ["4H", "5H"]}]
    assert "in a row" in illegal_at(rec, 7)
    # holding one 2C, passing two of them
    dup = four_player(r, ["2C 3C 4C 5C 6C 7C", "2D 3D 4D 5D 6D 7D", "2H 3H 4H 5H 6H 7H", "2S 3S 4S 5S 6S 7S"])
    dup["turns"] = [{"pass": ["2C", "2C"]}]
    assert "only one" in illegal_at(dup, 1)
    dup["turns"] = [{"pass": ["2C", "8C"]}]
    assert "not in seat 0's hand" in illegal_at(dup, 1)


def test_passes_pass_twice_on():
    r = rules("lost-cities", players=4, hand_size=6, pass_min_hand=4)   # pass_twice on
    hands = ["2Y 3Y 4Y 5Y 6Y 7Y", "2B 3B 4B 5B 6B 7B", "2W 3W 4W 5W 6W 7W", "2G 3G 4G 5G 6G 7G"]
    rec = four_player(r, hands)
    rec["turns"] = [{"pass": ["2Y", "3Y"]}, dict(PLAY, play="7B"), dict(PLAY, play="7W"), dict(PLAY, play="7G"),
                    {"pass": ["4Y", "5Y"]}]
    assert replay_record(rec)["ok"]
    rec["turns"] += [dict(PLAY, play="6B"), dict(PLAY, play="6W"), dict(PLAY, play="6G"), {"pass": ["6Y", "7Y"]}]
    assert "at least 4" in illegal_at(rec, 9)          # seat 0 is down to 2 cards


def test_pass_checks_in_order():
    r = rules("expeditions", players=4, pass_min_hand=7)
    rec = four_player(r, HANDS6, first=1)
    rec["turns"] = [{"pass": ["2D", "8D"]}]
    assert "not in seat 1's hand" in illegal_at(rec, 1)   # not held comes before the hand size
    rec["turns"] = [{"pass": ["2D", "3D"]}]
    assert "at least 7" in illegal_at(rec, 1)
    two = {"format": "lostcards-round/1", "rules": "expeditions", "players": 2, "first": 0,
           "hands": [HANDS6[0].replace("2C 2C", "2C 4C").split(), HANDS6[1].split()], "turns": [{"pass": ["2C", "3C"]}]}
    two["deck"] = [format_card(c, "CDHS") for c in deck_codes(rules("expeditions"))
                   if format_card(c, "CDHS") not in two["hands"][0] + two["hands"][1]]
    assert "4-player" in illegal_at(two, 1)


def test_passes_do_not_touch_the_stall_count():
    r = rules("expeditions", players=4, stall_limit=1)       # 4 stall turns end it
    rec = four_player(r, HANDS6)
    rec["turns"] = [dict(PLAY, play="7C"), {"play": "7D", "to": "discard", "draw": "C"},
                    {"play": "7H", "to": "discard", "draw": "D"}, {"pass": ["2S", "3S"]},
                    {"play": "6C", "to": "discard", "draw": "H"}]
    assert replay_record(rec)["ended_by"] == "unfinished"
    rec["turns"].append({"play": "6D", "to": "discard", "draw": "C"})
    assert replay_record(rec)["ended_by"] == "stall"


def solitaire(r=None):
    r = r or rules("expeditions", players=1)
    rec, rnd = build(r, 7, lambda rnd: {"play": format_card(rnd.hand(0)[0], r.letters), "to": "discard"})
    return rec, r


def test_solitaire_draws():
    rec, r = solitaire()
    assert len(rec["turns"]) == 24 and all("draw" not in t for t in rec["turns"])
    assert replay_record(rec) == {"ok": True, "ended_by": "hand-empty", "scores": [0], "turns": 24}
    # "deck" while the deck lasts is the same
    dk = copy.deepcopy(rec)
    for t in dk["turns"][:18]:
        t["draw"] = "deck"
    assert replay_record(dk) == replay_record(rec)
    # "deck" once it is empty (after 18 turns) is illegal
    dk["turns"][18]["draw"] = "deck"
    assert "deck is empty" in illegal_at(dk, 19)
    for k in (1, 20):
        bad = copy.deepcopy(rec)
        bad["turns"][k - 1]["draw"] = "C"
        assert "solitaire" in illegal_at(bad, k)
        bad["turns"][k - 1]["draw"] = None
        illegal_at(bad, k)


def test_solitaire_discard_leaves_the_game():
    rec, r = solitaire()
    v, rnd, _ = check_record(rec)
    assert all(not p for p in rnd.discard_piles) and len(rnd.out_of_game) == 24
    # the card discarded at turn 1 cannot be played again
    again = copy.deepcopy(rec)
    again["turns"][1] = dict(again["turns"][0])
    assert "not in seat 0's hand" in illegal_at(again, 2)


def test_solitaire_scores_its_expeditions():
    r = rules("expeditions", players=1)
    rec, rnd = build(r, 7, lambda rnd: {"play": format_card(rnd.hand(0)[0], r.letters),
                                        "to": ("expedition" if rnd.observation().can_play(rnd.hand(0)[0])
                                               else "discard")})
    total = sum(score_expedition(rnd.expedition(0, s), r) for s in range(4))
    assert replay_record(rec) == {"ok": True, "ended_by": "hand-empty", "scores": [total], "turns": 24}


# ---------------------------------------------------------------------------
# The command line
# ---------------------------------------------------------------------------

@pytest.fixture
def files(tmp_path):
    good = played(2, seed=1)
    four = played(4, seed=2)
    solo = played(1, seed=3)
    bad = copy.deepcopy(good.record)
    bad["turns"][4]["to"] = "nowhere"
    broken = copy.deepcopy(good.record)
    broken["hands"][0][0] = "ZZ"
    paths = {
        "good": tmp_path / "good.json",
        "illegal": tmp_path / "illegal.json",
        "malformed": tmp_path / "malformed.json",
        "lines": tmp_path / "many.jsonl",
        "badjson": tmp_path / "bad.json",
    }
    paths["good"].write_text(json.dumps(good.record, indent=2))
    paths["illegal"].write_text(json.dumps(bad))
    paths["malformed"].write_text(json.dumps(broken))
    paths["lines"].write_text("\n".join(json.dumps(r) for r in (good.record, four.record, solo.record)) + "\n\n")
    paths["badjson"].write_text("{\"format\": ")
    return {k: str(v) for k, v in paths.items()}, (good, four, solo)


def run(*args):
    return CliRunner().invoke(main, ["replay", *args])


def test_cli_ok(files):
    paths, (good, four, solo) = files
    res = run(paths["good"])
    assert res.exit_code == 0, res.output
    assert "ended by deck" in res.output and f"{good.scores[0]:+d}" in res.output
    assert "Traceback" not in res.output
    res = run(paths["good"], "--json")
    assert res.exit_code == 0 and json.loads(res.output) == verdict_of(good)


def test_cli_illegal(files):
    paths, _ = files
    res = run(paths["illegal"])
    assert res.exit_code == 1 and "illegal turn 5" in res.output and len(res.output.splitlines()) == 1
    res = run("--json", paths["illegal"])
    v = json.loads(res.output)
    assert res.exit_code == 1 and v["ok"] is False and v["turn"] == 5 and "nowhere" in v["error"]


def test_cli_malformed(files, tmp_path):
    paths, _ = files
    for name in ("malformed", "badjson"):
        res = run(paths[name])
        assert res.exit_code == 2 and "malformed" in res.output and "Traceback" not in res.output
        res = run(paths[name], "--json")
        v = json.loads(res.output)
        assert res.exit_code == 2 and v["ok"] is False and v["turn"] is None
    missing = str(tmp_path / "nope.json")
    res = run(missing)
    assert res.exit_code == 2 and "cannot read" in res.output and len(res.output.splitlines()) == 1
    res = run(missing, "--json")
    assert res.exit_code == 2 and json.loads(res.output)["turn"] is None
    res = run(str(tmp_path))                                   # a directory
    assert res.exit_code == 2 and "cannot read" in res.output and len(res.output.splitlines()) == 1


def test_cli_reads_stdin(files):
    paths, (good, _, _) = files
    with open(paths["good"]) as f:
        res = CliRunner().invoke(main, ["replay", "-", "--json"], input=f.read())
    assert res.exit_code == 0 and json.loads(res.output) == verdict_of(good)


def test_cli_many_files_and_lines(files):
    paths, (good, four, solo) = files
    res = run("--json", paths["lines"], paths["good"])
    assert res.exit_code == 0
    assert [json.loads(l) for l in res.output.splitlines()] == [verdict_of(good), verdict_of(four),
                                                                 verdict_of(solo), verdict_of(good)]
    res = run("--json", paths["good"], paths["illegal"], paths["lines"])
    assert res.exit_code == 1 and len(res.output.splitlines()) == 5
    res = run("--json", paths["malformed"], paths["good"], paths["illegal"])
    assert res.exit_code == 2 and len(res.output.splitlines()) == 3
    res = run(paths["lines"])
    assert res.exit_code == 0 and "record 3" in res.output and "hand-empty" in res.output


def test_cli_non_object_lines(tmp_path, files):
    _, (good, _, _) = files
    p = tmp_path / "mixed.jsonl"
    p.write_text(json.dumps(good.record) + "\n[1, 2]\n\"text\"\n{broken\n")
    res = run("--json", str(p))
    lines = [json.loads(l) for l in res.output.splitlines()]
    assert res.exit_code == 2 and lines[0]["ok"] and all(l == {"ok": False, "turn": None, "error": l["error"]}
                                                        for l in lines[1:]) and len(lines) == 4


def test_cli_needs_a_file():
    res = run()
    assert res.exit_code == 2


def test_replay_text_thousand_records():
    recs = [played(p, preset, seed).record for preset, p in CONFIGS for seed in range(5)]
    text = "\n".join(json.dumps(r) for r in (recs * 34)[:1000])
    verdicts = replay_text(text)       # its speed is measured in benchmarks, not here
    assert len(verdicts) == 1000 and all(v["ok"] for v in verdicts)


@settings(max_examples=150, deadline=None)
@given(st.integers(0, 2), st.data())
def test_replay_never_crashes_on_junk(which, data):
    """Replacing any value of a record by junk gives a verdict, never an exception."""
    rec = played([1, 2, 4][which], seed=1).record
    junk = st.one_of(st.none(), st.booleans(), st.integers(-3, 100), st.floats(allow_nan=False),
                     st.text(max_size=4), st.lists(st.text(max_size=3), max_size=3),
                     st.dictionaries(st.text(max_size=3), st.integers(), max_size=2))
    rec = copy.deepcopy(rec)
    paths = []

    def walk(node, path):
        paths.append(path)
        if isinstance(node, dict):
            for k, v in node.items():
                walk(v, path + (k,))
        elif isinstance(node, list):
            for i, v in enumerate(node[:8]):
                walk(v, path + (i,))

    walk(rec, ())
    path = data.draw(st.sampled_from(paths[1:]))
    node = rec
    for p in path[:-1]:
        node = node[p]
    node[path[-1]] = data.draw(junk)
    v = replay_record(rec)
    assert set(v) in ({"ok", "ended_by", "scores", "turns"}, {"ok", "turn", "error"})
    if path[0] == "turns" and len(path) > 1 and not v["ok"]:
        assert v["turn"] is not None and v["turn"] <= path[1] + 1
