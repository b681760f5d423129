"""Hypothesis strategies shared by the property tests."""
from __future__ import annotations

from hypothesis import assume
from hypothesis import strategies as st

from lostcards.rules.ruleset import rules


@st.composite
def rulesets(draw):
    """A valid ruleset with every SPEC §1 parameter drawn within its allowed range."""
    preset = draw(st.sampled_from(["expeditions", "lost-cities"]))
    players = draw(st.sampled_from([1, 2, 4]))
    suits = draw(st.integers(1, 4 if preset == "expeditions" else 6))
    numbers = tuple(sorted(draw(st.sets(st.integers(2, 10), min_size=1))))
    investments = draw(st.integers(0, 3))
    extra_low = tuple(sorted(draw(st.sets(st.sampled_from(numbers)))))
    n = suits * (investments + len(numbers) + (len(extra_low) if players == 4 else 0))
    most = min(30, n // 2) if players == 1 else min(30, (n - 1) // players)
    assume(most >= 1)
    stall_limit = draw(st.sampled_from([0, 1, 2, 5, 8, 30]))
    turn_cap = draw(st.integers(1, 400)) if stall_limit == 0 or draw(st.booleans()) else 0
    return rules(preset, players=players, suits=suits, numbers=numbers, investments=investments,
                 extra_low=extra_low, hand_size=draw(st.integers(1, most)),
                 cost=draw(st.sampled_from([0, 5, 20, 60, 1000])),
                 bonus_cards=draw(st.integers(1, len(numbers) + investments)),
                 bonus_points=draw(st.sampled_from([0, 20, 1000])), stall_limit=stall_limit,
                 pass_min_hand=draw(st.integers(3, 12)), pass_twice=draw(st.booleans()), turn_cap=turn_cap,
                 rounds=draw(st.sampled_from([1, 3])))
