"""Hypothesis strategies shared by the property tests."""
from __future__ import annotations

from hypothesis import assume
from hypothesis import strategies as st

from lostcards.rules.cards import FAMILY_LETTERS
from lostcards.rules.parameters import PARAMETERS
from lostcards.rules.ruleset import PRESETS, rules

# the parameters whose range depends on others, drawn below; every other one is drawn from its table entry
DRAWN_HERE = ("suits", "numbers", "extra_low", "hand_size", "bonus_cards", "turn_cap")


def _value(p):
    """A strategy for one parameter from the table: its tested values, its choices or its range."""
    if p.kind == "bool":
        return st.booleans()
    if p.kind == "ints":
        return st.sets(st.integers(p.lo, p.hi), min_size=1).map(lambda s: tuple(sorted(s)))
    values = p.tested or p.choices
    return st.sampled_from(values) if values else st.integers(p.lo, p.hi)


@st.composite
def rulesets(draw):
    """A valid ruleset with every SPEC §1 parameter (rules/parameters.py) drawn within its allowed range."""
    preset = draw(st.sampled_from(list(PRESETS)))
    v = {name: draw(_value(p)) for name, p in PARAMETERS.items() if name not in DRAWN_HERE}
    v["suits"] = draw(st.integers(1, len(FAMILY_LETTERS[preset])))
    v["numbers"] = numbers = draw(_value(PARAMETERS["numbers"]))
    v["extra_low"] = extra = tuple(sorted(draw(st.sets(st.sampled_from(numbers)))))
    n = v["suits"] * (v["investments"] + len(numbers) + (len(extra) if v["players"] == 4 else 0))
    most = min(30, n // 2) if v["players"] == 1 else min(30, (n - 1) // v["players"])
    assume(most >= 1)
    v["hand_size"] = draw(st.integers(1, most))
    v["bonus_cards"] = draw(st.integers(1, len(numbers) + v["investments"]))
    caps = PARAMETERS["turn_cap"].tested
    v["turn_cap"] = draw(st.sampled_from([c for c in caps if c > 0] if v["stall_limit"] == 0 else caps))
    return rules(preset, **v)
