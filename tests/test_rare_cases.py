"""Rare endings and rules, forced: rounds built by hand (deal and turns), played on both engines
in lockstep and replayed as records, each with the outcome it must have.

Random play reaches these seldom or never (a 4-player stall with passes inside the run, a
capped 4-player round, the deck and the cap on the same turn, a pass at exactly the minimum
hand, the second copy of a card passed and then played).
"""
from collections import Counter

import engine_adapter as ea
import pytest
from lockstep import Lockstep, reference_category

from lostcards.records.format import move_of_turn
from lostcards.records.replay import replay_record
from lostcards.rules.cards import deck_codes, format_card, parse_card
from lostcards.rules.outcome import Ending
from lostcards.rules.ruleset import rules


def cards(r, text: str) -> list:
    return [parse_card(t, r) for t in text.split()]


def texts(r, codes) -> str:
    return " ".join(format_card(c, r.letters) for c in codes)


def rest_of_deck(r, hands, aside=()) -> list:
    """The cards no hand (nor the aside) holds, in the canonical deck's order: the draw pile, top first."""
    taken = Counter([c for h in hands for c in h] + list(aside))
    deck = []
    for c in deck_codes(r):
        if taken[c]:
            taken[c] -= 1
        else:
            deck.append(c)
    return deck


def play_out(r, hands: list, turns: list, first: int = 0, aside=None, deck=None, watch=None):
    """Play hand-written `turns` (record turns) on a hand-built deal through both engines and through
    the record replayer; returns (Lockstep, replay verdict).  `watch(ls, k)` runs after turn k (1-based)."""
    hands = [cards(r, h) for h in hands]
    aside_codes = cards(r, aside) if aside else []
    deck = cards(r, deck) if deck else rest_of_deck(r, hands, aside_codes)
    ls = Lockstep.from_deal(r, hands, deck, first, aside_codes or None)
    for k, turn in enumerate(turns, start=1):
        why = ls.step(move_of_turn(turn, r))
        assert not why, f"turn {k} {turn}: {why}"
        if watch:
            watch(ls, k)
    record = {"format": "lostcards-round/1", "rules": r.to_record(), "players": r.players, "first": first,
              "hands": [texts(r, h).split() for h in hands], "deck": texts(r, deck).split(), "turns": turns}
    if aside:
        record["aside"] = aside.split()
    verdict = replay_record(record)
    if ls.ref.ended:
        assert verdict == {"ok": True, "ended_by": str(ls.ref.ended_by), "scores": ls.ref.scores,
                           "turns": len(turns)}, verdict
    return ls, verdict, record


def deck_turn(card, to="discard", draw="deck"):
    return {"play": card, "to": to, "draw": draw}


# ---------------------------------------------------------------------------
# A 4-player stall with passes inside the run
# ---------------------------------------------------------------------------

FOUR_SUITS = ["2C 3C 4C 5C 6C 7C", "2D 3D 4D 5D 6D 7D", "2H 3H 4H 5H 6H 7H", "2S 3S 4S 5S 6S 7S"]


def test_a_four_player_stall_run_with_passes_in_it():
    """stall_limit 1 x 4 players: 4 stall turns end the round; the two passes inside the run
    neither count (it would end on turn 5) nor reset it (it would not end on turn 7)."""
    r = rules("expeditions", players=4, stall_limit=1)
    turns = [
        deck_turn("2C"),                     # seat 0: a deck draw: the count is 0
        deck_turn("2D", draw="C"),           # seat 1 takes 2C: 1
        {"pass": ["2H", "3H"]},              # seat 2 passes: still 1
        deck_turn("2S", draw="D"),           # seat 3 takes 2D: 2
        deck_turn("3C", draw="S"),           # seat 0 takes 2S: 3
        {"pass": ["3D", "4D"]},              # seat 1 passes: still 3
        deck_turn("4H", draw="C"),           # seat 2 takes 3C: 4 = stall_limit x players
    ]
    counts = []
    ls, verdict, _ = play_out(r, FOUR_SUITS, turns, watch=lambda ls, k: counts.append(ls.ref.stall_count))
    assert counts == [0, 1, 1, 2, 3, 3, 4]
    assert ls.ref.ended_by == Ending.STALL and ea.ending(ls.eng) == Ending.STALL
    assert verdict["turns"] == 7 and verdict["ended_by"] == "stall"


# ---------------------------------------------------------------------------
# Capped rounds, and the deck and the cap on the same turn
# ---------------------------------------------------------------------------

def test_a_four_player_capped_round():
    r = rules("lost-cities", players=4, turn_cap=5)
    hands = ["2Y 3Y 4Y 5Y 6Y 7Y 8Y 9Y", "2B 3B 4B 5B 6B 7B 8B 9B", "2W 3W 4W 5W 6W 7W 8W 9W",
             "2G 3G 4G 5G 6G 7G 8G 9G"]
    turns = [deck_turn("2Y", "expedition"), {"pass": ["2B", "3B"]}, deck_turn("2W", "expedition"),
             deck_turn("2G", "expedition"), deck_turn("3Y", "expedition")]
    ls, verdict, record = play_out(r, hands, turns)
    assert verdict == {"ok": True, "ended_by": "capped", "scores": [(5 - 20) + (2 - 20), 2 - 20], "turns": 5}
    record["turns"].append(deck_turn("2B"))
    v = replay_record(record)
    assert v["turn"] == 6 and reference_category(v["error"]) == "round-over"


ONE_SUIT = dict(suits=1, investments=0, hand_size=3, bonus_cards=3)


@pytest.mark.parametrize("preset", ["expeditions", "lost-cities"])
def test_the_deck_and_the_cap_on_the_same_turn_end_by_deck(preset):
    """Nine cards, hands of 3, a deck of 3 and a cap of 3 turns: the third turn empties the deck and
    reaches the cap; the deck is checked first.  Drawing off a pile instead leaves the cap."""
    r = rules(preset, players=2, turn_cap=3, **ONE_SUIT)
    x = r.letters[0]
    hands = [f"2{x} 3{x} 4{x}", f"5{x} 6{x} 7{x}"]
    deck = f"8{x} 9{x} 10{x}"
    by_deck = [deck_turn(f"2{x}", "expedition"), deck_turn(f"5{x}", "expedition"), deck_turn(f"3{x}", "expedition")]
    ls, verdict, _ = play_out(r, hands, by_deck, deck=deck)
    assert verdict["ended_by"] == "deck" and ea.ending(ls.eng) == Ending.DECK and ls.ref.deck_size == 0
    by_cap = [deck_turn(f"2{x}", "expedition"), deck_turn(f"5{x}"), deck_turn(f"3{x}", "expedition", x)]
    ls, verdict, _ = play_out(r, hands, by_cap, deck=deck)
    assert verdict["ended_by"] == "capped" and ea.ending(ls.eng) == Ending.CAPPED and ls.ref.deck_size == 1


# ---------------------------------------------------------------------------
# A pass at exactly the minimum hand, and one card short of it
# ---------------------------------------------------------------------------

def test_a_pass_at_exactly_pass_min_hand_is_legal():
    r = rules("expeditions", players=4, hand_size=6, pass_min_hand=6)
    ls, verdict, _ = play_out(r, FOUR_SUITS, [{"pass": ["2C", "3C"]}])
    assert verdict == {"ok": True, "ended_by": "unfinished", "scores": [0, 0], "turns": 1}
    assert ea.observe(ls.eng, 1).hand_sizes == (4, 6, 8, 6)


def test_a_pass_one_card_short_of_pass_min_hand_is_illegal_in_both_engines():
    r = rules("expeditions", players=4, hand_size=6, pass_min_hand=7)
    ls, _, record = play_out(r, FOUR_SUITS, [])
    move = move_of_turn({"pass": ["2C", "3C"]}, r)
    why = ls.step(move)                     # refused by both, neither changed (Lockstep.step checks)
    assert "a pass needs a hand of at least 7 cards (seat 0 holds 6)" in why
    assert ea.category(ea.check(ls.eng, move)) == "pass-refused"
    record["turns"] = [{"pass": ["2C", "3C"]}]
    v = replay_record(record)
    assert v["turn"] == 1 and "a pass needs a hand of at least 7" in v["error"]


def test_a_second_pass_in_a_row_is_illegal_unless_pass_twice():
    hands = FOUR_SUITS
    turns = [{"pass": ["2C", "3C"]}, deck_turn("2D"), deck_turn("2H"), deck_turn("2S")]
    again = {"pass": ["4C", "5C"]}
    for twice in (False, True):
        r = rules("expeditions", players=4, pass_min_hand=4, pass_twice=twice)
        ls, _, record = play_out(r, hands, turns)
        why = ls.step(move_of_turn(again, r))
        assert bool(why) is (not twice), why
        record["turns"] = turns + [again]
        v = replay_record(record)
        assert v["ok"] is twice and (twice or "may not pass on two of its turns in a row" in v["error"]), v


# ---------------------------------------------------------------------------
# The second copy of a card passed, then played and discarded: what each seat knows
# ---------------------------------------------------------------------------

def test_the_second_copy_passed_then_played_known_cards_by_count():
    """Seat 0 holds one 3C and takes the other off the pile (the others know one 3C in its hand);
    it passes a 3C to seat 2: nobody can tell which, so the others know none in seat 0's hand, and
    seat 0 knows one in seat 2's; seat 2 discards it; seat 3 takes it; seat 0 discards its own."""
    r = rules("expeditions", players=4)
    hands = ["3C 5C 6C 7C 8C 9C", "3C 2D 3D 4D 5D 6D", "2H 3H 4H 5H 6H 7H", "2S 3S 4S 5S 6S 7S"]
    turns = [
        deck_turn("9C"),                                     # 1 seat 0
        deck_turn("3C"),                                     # 2 seat 1: 3C onto the C pile
        deck_turn("2H", "expedition"),                       # 3
        deck_turn("2S", "expedition"),                       # 4
        deck_turn("6C", "expedition", "C"),                  # 5 seat 0 takes the 3C: now holds both
        deck_turn("2D"),                                     # 6
        deck_turn("3H", "expedition"),                       # 7
        deck_turn("3S", "expedition"),                       # 8
        {"pass": ["3C", "5C"]},                              # 9 seat 0 passes one 3C to seat 2
        deck_turn("3D"),                                     # 10
        deck_turn("3C"),                                     # 11 seat 2 discards it (6C is on C)
        deck_turn("4S", draw="C"),                           # 12 seat 3 takes it
        deck_turn("3C"),                                     # 13 seat 0 discards the other
    ]
    known = {}                  # turn -> {(observer, holder): known cards as text}
    held = {}                   # turn -> how many 3C seat 0 holds

    def watch(ls, k):
        known[k] = {(o, h): texts(r, ls.ref.observation(o).known[h]) for o in range(4) for h in range(4)}
        held[k] = ls.ref.hand(0).count(parse_card("3C", r))
    play_out(r, hands, turns, watch=watch)
    assert (held[4], held[5], held[9], held[13]) == (1, 2, 1, 0)
    assert [known[5][o, 0] for o in (1, 2, 3)] == ["3C"] * 3
    assert [known[9][o, 0] for o in (1, 2, 3)] == [""] * 3          # the old leak: "3C" here
    assert known[9][0, 2] == "3C 5C"
    assert known[11][0, 2] == "5C"
    assert [known[12][o, 3] for o in (0, 1, 2)] == ["3C"] * 3
    assert [known[13][o, 0] for o in (1, 2, 3)] == [""] * 3


# ---------------------------------------------------------------------------
# Solitaire to an empty hand; the largest deck the rules allow
# ---------------------------------------------------------------------------

def test_solitaire_ends_when_the_hand_is_empty():
    r = rules("expeditions", players=1, suits=1, investments=0, hand_size=2, bonus_cards=3)
    hand, deck, aside = ["3C 5C"], "7C 9C", "2C 4C 6C 8C 10C"
    turns = [{"play": "3C", "to": "expedition"}, {"play": "5C", "to": "expedition"},
             {"play": "7C", "to": "expedition"}, {"play": "9C", "to": "discard"}]
    ls, verdict, record = play_out(r, hand, turns, aside=aside, deck=deck)
    assert verdict == {"ok": True, "ended_by": "hand-empty", "scores": [3 + 5 + 7 - 20 + 20], "turns": 4}
    # once the deck is out, "draw": "deck" is illegal, and a discard pile never is a source
    for bad in ({"play": "7C", "to": "expedition", "draw": "deck"}, {"play": "7C", "to": "discard", "draw": "C"}):
        record["turns"] = turns[:2] + [bad]
        v = replay_record(record)
        assert v["turn"] == 3 and reference_category(v["error"]) == "draw", v


def test_the_largest_deck_plays_alike_in_both_engines():
    """6 suits, every number doubled, 4 players: 126 cards, the most the rules allow."""
    from lockstep import play_lockstep

    from lostcards.policies.py_random import random_policy
    r = rules("lost-cities", players=4, suits=6, extra_low=tuple(range(2, 11)), hand_size=30)
    assert r.deck_size == 126
    for i in range(2):
        play_lockstep(r, 3, i, 0, random_policy)
