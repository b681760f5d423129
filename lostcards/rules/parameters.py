"""Every rule parameter declared once: its kind, range, meaning and where an observation carries it.

``validate`` (ruleset.py) checks the ranges, the observation's two rules words
(engine/layout.py's ``OBS_RULES``, ``OBS_RULES2``; written by engine/deal.py, read by
engine/determinize.py's ``rules_from_obs``) are laid out from ``obs``, ``lostcards rules``
lists the meanings and the property tests (tests/strategies.py) draw from ``tested``.
What a range cannot say (``suits`` by family, ``hand_size`` by the deck,
``bonus_cards`` by the cards of a suit, ``extra_low`` within ``numbers``, distinct
numbers, a ``turn_cap`` when there is no ``stall_limit``) ``validate`` checks in its
place in the table's order.
"""
from __future__ import annotations

from typing import NamedTuple


class Param(NamedTuple):
    """One rule parameter (SPEC §1)."""

    kind: str                   # "int", "ints" (distinct numbers, a tuple) or "bool"
    meaning: str                # one line: what it is and what it may be (help and error messages)
    lo: int = 0                 # the range of a value (of each value of "ints")
    hi: int = 0
    allowed: str = ""           # what an error says is allowed when the range check fails ("" : lo..hi)
    choices: tuple = ()         # when only these values are allowed (within lo..hi)
    obs: tuple = ()             # (word, position, field, bits): where an observation carries it; () : nowhere
    tested: tuple = ()          # the values the property tests draw (() : the whole range)

    def ok(self, v) -> bool:
        """`v` within this parameter's own range (not the part that depends on other parameters)."""
        if self.kind == "bool":
            return True
        vals = v if self.kind == "ints" else (v,)
        return all(self.lo <= x <= self.hi and (not self.choices or x in self.choices) for x in vals)

    def says(self) -> str:
        """What is allowed, as an error message says it."""
        return self.allowed or f"{self.lo}..{self.hi}"

    def obs_value(self, v) -> int:
        """Its value as the observation packs it: a slot mask (slot n + 1 for number n) for "ints"."""
        if self.kind == "ints":
            return sum(1 << (n + 1) for n in v)
        return int(v)


# the order is SPEC §1's (and the order validate names the first bad one, hand_size last: it needs the deck)
PARAMETERS = {
    "suits": Param("int", "how many suits (expeditions 1-4: C D H S; lost-cities 1-6: Y B W G R P)", 1, 6,
                   obs=("rules", 0, "suits", 3)),
    "numbers": Param("ints", "the number cards of a suit, distinct values in 2..10", 2, 10,
                     "one or more distinct values in 2..10", obs=("rules2", 2, "numbers", 12)),
    "investments": Param("int", "investment cards per suit, 0..3 (J, Q, K)", 0, 3,
                         obs=("rules", 2, "investments", 2)),
    "hand_size": Param("int", "cards dealt to each seat, 1..30, leaving a draw pile", 1, 30,
                       obs=("rules", 3, "hand_size", 5)),
    "cost": Param("int", "what an opened expedition owes, 0..1000", 0, 1000, obs=("rules", 4, "cost", 10),
                  tested=(0, 5, 20, 60, 1000)),
    "bonus_cards": Param("int", "cards an expedition needs for the bonus, 1..numbers+investments", 1, 12,
                         obs=("rules", 5, "bonus_cards", 5)),
    "bonus_points": Param("int", "the bonus, 0..1000", 0, 1000, obs=("rules", 6, "bonus_points", 10),
                          tested=(0, 20, 1000)),
    "stall_limit": Param("int", "stall turns in a row per player that end the round, 0..1000 (0 = none)", 0, 1000,
                         "0..1000 (0 = no limit)", obs=("rules2", 0, "stall_limit", 10),
                         tested=(0, 1, 2, 5, 8, 30)),
    "extra_low": Param("ints", "with 4 players, numbers that get a second copy (a subset of numbers)", 2, 10,
                       "distinct values among the numbers", obs=("rules2", 3, "extra", 12)),
    "pass_min_hand": Param("int", "with 4 players, the hand a pass needs, 3..60", 3, 60,
                           obs=("rules", 7, "pass_min", 6), tested=tuple(range(3, 13))),
    "pass_twice": Param("bool", "a seat may pass on two of its own turns in a row", obs=("rules", 8, "pass_twice", 1)),
    "turn_cap": Param("int", "hard stop in turns, 0..100000 (0 = none; needed when stall_limit is 0)", 0, 100_000,
                      "0..100000 (0 = none)", obs=("rules2", 1, "turn_cap", 17), tested=(0, 1, 2, 40, 400)),
    "players": Param("int", "1, 2 or 4", 1, 4, "1, 2 or 4", choices=(1, 2, 4), obs=("rules", 1, "players", 3)),
    "rounds": Param("int", "rounds in a match, 1 or 3", 1, 3, "1 or 3", choices=(1, 3)),
}


def obs_fields(word: str) -> list:
    """The bit fields (field, bits, meaning) of an observation's rules word ("rules" or "rules2"), in order."""
    mine = sorted((p.obs[1], p.obs[2], p.obs[3], p.meaning) for p in PARAMETERS.values() if p.obs[:1] == (word,))
    return [(field, bits, meaning) for _, field, bits, meaning in mine]


def obs_values(word: str, r) -> dict:
    """{field: value} of a ruleset's observation rules word `word` (for ``Fields.pack``)."""
    return {p.obs[2]: p.obs_value(getattr(r, name)) for name, p in PARAMETERS.items() if p.obs[:1] == (word,)}
