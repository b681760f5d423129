"""Playthroughs: every move and every observation of a few seeded rounds, in card notation, checked in as text.

Each file under tests/playthroughs/ is one round the batch loop plays (its SPEC §5
record), replayed on the reference engine turn by turn: before each move, what the
seat to move sees (its hand, the expeditions, the discard piles, the deck, what it
knows of other hands, the stall count), then the move; at the end, how the round
ended and the scores.  The test plays them again and compares the text, so a change
of any bot move, deal or rule shows as a readable diff (as OpenSpiel's playthroughs
do).  When a change is meant to alter play, regenerate them and read the diff:

    .venv/bin/python tests/test_playthroughs.py
"""
from __future__ import annotations

import sys
from itertools import zip_longest
from pathlib import Path

import pytest

from lostcards.records.format import move_of_turn, read_record
from lostcards.rules.cards import format_card
from lostcards.rules.ruleset import rules
from lostcards.run.runner import play_records

HERE = Path(__file__).resolve().parent / "playthroughs"
# name: (preset, players, overrides, policy of side 0, policy of side 1, seed, round index)
CASES = {
    "expeditions-2p-expert-vs-greedy": ("expeditions", 2, {}, "expert", "greedy", 81, 0),
    "expeditions-1p-expert": ("expeditions", 1, {}, "expert", None, 81, 1),
    "expeditions-4p-expert-vs-staller": ("expeditions", 4, {}, "expert", "staller", 81, 2),
    "lost-cities-2p-staller-vs-expert": ("lost-cities", 2, {}, "staller", "expert:invest=never", 81, 3),
    "lost-cities-4p-expert-vs-random": ("lost-cities", 4, {"pass_min_hand": 6}, "expert:pass=pays", "random", 81, 4),
}


def _cards(codes, letters) -> str:
    return " ".join(format_card(c, letters) for c in codes) or "-"


def _move_text(turn: dict) -> str:
    if "pass" in turn:
        return f"pass {' '.join(turn['pass'])} to the partner"
    text = f"play {turn['play']} to the {turn['to']}"
    return text + (f", draw from {'the deck' if turn['draw'] == 'deck' else 'pile ' + turn['draw']}"
                   if "draw" in turn else "")


def _observation(o) -> list:
    """What the seat to move sees, one fact a line."""
    L = o.letters
    lines = [f"  hand        {_cards(sorted(o.hand), L)}"]
    for side, lanes in enumerate(o.expeditions):
        laid = "  ".join(f"{L[s]}:{_cards(cards, L)}" for s, cards in enumerate(lanes))
        lines.append(f"  side {side}      {laid}")
    lines.append(f"  discards    {'  '.join(f'{L[s]}:{_cards(p, L)}' for s, p in enumerate(o.discards))}")
    known = [f"seat {s}: {_cards(sorted(k), L)}" for s, k in enumerate(o.known) if k]
    lines.append(f"  deck {o.deck_size}, hands {' '.join(map(str, o.hand_sizes))}, stall {o.stall_count}"
                 + (", may pass" if o.can_pass else "") + (f"; knows {'; '.join(known)}" if known else ""))
    return lines


def playthrough(name: str) -> str:
    """The text of one playthrough: header, deal, each turn's observation and move, the ending."""
    preset, players, over, a, b, seed, index = CASES[name]
    r = rules(preset, players=players, **over)
    rec = play_records(r, a, b if b is not None else a, [index], seed=seed, first=index % players)[0]
    sides = f"side 0: {a}" + (f", side 1: {b or a}" if r.sides > 1 else "")
    out = [f"# {name}: lostcards play_records({r.describe()}, players={players}, {sides}, seed={seed}, "
           f"round {index}, first seat {rec['first']})",
           *(f"deal seat {s}   {' '.join(h)}" for s, h in enumerate(rec["hands"])),
           f"deal deck     {' '.join(rec['deck'])}"]
    if "aside" in rec:
        out.append(f"deal aside    {' '.join(rec['aside'])}")
    rnd = read_record(rec).deal.round()
    for k, turn in enumerate(rec["turns"], start=1):
        o = rnd.observation()
        out.append(f"turn {k}: seat {o.seat} (side {o.side}) sees")
        out += _observation(o)
        out.append(f"  -> {_move_text(turn)}")
        rnd.apply(move_of_turn(turn, r))
    out.append(f"ended by {rnd.ended_by} after {rnd.turn} turns; scores {' '.join(map(str, rnd.scores))}")
    return "\n".join(out) + "\n"


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_round_plays_as_its_playthrough_says(name):
    want = (HERE / f"{name}.txt").read_text()
    got = playthrough(name)
    if got != want:
        pairs = list(zip_longest(want.splitlines(), got.splitlines(), fillvalue="(nothing)"))
        k = next(i for i, (x, y) in enumerate(pairs) if x != y)
        pytest.fail(f"{name}: line {k + 1} differs from tests/playthroughs/{name}.txt (if the change is meant, "
                    f"regenerate: .venv/bin/python tests/test_playthroughs.py):\n  file: {pairs[k][0]}\n"
                    f"  now:  {pairs[k][1]}")


def test_every_playthrough_file_is_a_case():
    assert sorted(p.stem for p in HERE.glob("*.txt")) == sorted(CASES)


if __name__ == "__main__":
    HERE.mkdir(exist_ok=True)
    for case in sys.argv[1:] or CASES:
        (HERE / f"{case}.txt").write_text(playthrough(case))
        print(f"wrote tests/playthroughs/{case}.txt")
