"""Rule parameters are declared once (rules/parameters.py): the ruleset, validate, the observation words and the
property tests' strategy all follow the table."""
import dataclasses

import pytest
from hypothesis import given, settings
from strategies import rulesets

from lostcards.engine.deal import obs_rules_words
from lostcards.engine.layout import OBS_RULES, OBS_RULES2
from lostcards.errors import RulesError
from lostcards.rules.parameters import PARAMETERS
from lostcards.rules.ruleset import Ruleset, rules


def test_the_table_names_every_field_of_a_ruleset():
    assert set(PARAMETERS) == {f.name for f in dataclasses.fields(Ruleset)} - {"preset"}


@pytest.mark.parametrize("name", [n for n, p in PARAMETERS.items() if p.kind == "int"])
def test_validate_refuses_a_value_below_and_above_the_tables_range(name):
    p = PARAMETERS[name]
    for bad in (p.lo - 1, p.hi + 1):
        with pytest.raises(RulesError, match=f"^{name} = {bad} is not allowed"):
            rules("lost-cities", **{name: bad})


@settings(max_examples=60, deadline=None)
@given(rulesets())
def test_the_observation_words_carry_each_parameter_the_table_places_there(r):
    words = dict(zip(("rules", "rules2"), obs_rules_words(r)))
    fields = {"rules": OBS_RULES.unpack(words["rules"]), "rules2": OBS_RULES2.unpack(words["rules2"])}
    for name, p in PARAMETERS.items():
        if p.obs:
            word, _, field, _ = p.obs
            assert fields[word][field] == p.obs_value(getattr(r, name)), name
    carried = {p.obs[2] for p in PARAMETERS.values() if p.obs}
    assert carried == set(OBS_RULES.fields) | set(OBS_RULES2.fields)


@settings(max_examples=60, deadline=None)
@given(rulesets())
def test_the_strategy_draws_every_parameter_within_the_table(r):
    for name, p in PARAMETERS.items():
        assert p.ok(getattr(r, name)), (name, getattr(r, name))
