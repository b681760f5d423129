"""engine.convert: the engine's Obs and the reference Observation, both ways, on many seeded positions.

After every turn of rounds played on both engines (the reference's `random` twin moving), for
every seat: the Obs built from what the reference shows the seat is exactly the engine's Obs,
and each converter undoes the other (an Observation comes back with its expeditions in slot
order, the one thing the bit fields do not keep).
"""
import engine_adapter as ea
import pytest

from lostcards.engine.convert import from_observation, to_observation
from lostcards.errors import BadArgument
from lostcards.policies.py_random import random_policy as py_random
from lostcards.reference.round import Round
from lostcards.rules.ruleset import rules
from lostcards.rules.streams import Stream

RULESETS = [rules(p, players=n) for p in ("expeditions", "lost-cities") for n in (1, 2, 4)]
RULESETS.append(rules("lost-cities", players=4, suits=6, extra_low=(2, 3, 4, 5)))


def in_slot_order(o):
    """The Observation with each expedition listed in slot order."""
    import dataclasses
    exps = tuple(tuple(tuple(sorted(e)) for e in side) for side in o.expeditions)
    return dataclasses.replace(o, expeditions=exps)


def positions(r, seed, rounds):
    """(reference round, engine round) after every turn of `rounds` rounds played by random."""
    for i in range(rounds):
        ref = Round.dealt(r, seed, i, i % r.players)
        eng = ea.deal(r, seed, i, i % r.players)
        streams = [Stream(seed, i, 1 + s) for s in range(r.players)]
        yield ref, eng
        while not ref.ended:
            move = py_random(ref.observation(), streams[ref.seat])
            ref.apply(move)
            assert ea.apply(eng, move) == 0
            yield ref, eng


@pytest.mark.parametrize("r", RULESETS, ids=lambda r: f"{r.preset}-{r.players}p-{r.suits}s")
def test_converters_match_the_reference_both_ways(r):
    n = 0
    for ref, eng in positions(r, seed=11, rounds=3 if r.players == 4 else 5):
        for seat in range(r.players):
            shown = ref.observation(seat)
            obs = ea.raw_observation(eng, seat)
            assert from_observation(shown) == obs, (seat, ref.turn)
            assert to_observation(obs, r) == in_slot_order(shown), (seat, ref.turn)
            assert from_observation(to_observation(obs, r)) == obs
            n += 1
    assert n > 100


def test_an_obs_of_another_ruleset_is_refused():
    r = rules("expeditions", players=2)
    eng = ea.deal(r, 1, 0)
    obs = ea.raw_observation(eng, 0)
    with pytest.raises(BadArgument, match="not made under the ruleset"):
        to_observation(obs, r.with_(hand_size=7))
