"""Move rules: the engine's masks against their plain-Python twin, and bots held to them.

Every turn of reference rounds (any ruleset), the engine's masks (``engine.move_rules``) and the
reference's (``reference.move_rules``) allow the same plays.  A held bot (``expert:rules=...``, any
numba bot, improve on its own candidates) makes only legal moves, each allowed by its rules whenever
some play is; held to no rule it is its base, move for move; a bad rule name is one clear line.
"""
import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import rulesets

from lostcards.cli import main
from lostcards.engine import move_rules as em
from lostcards.engine.convert import from_observation
from lostcards.errors import PolicyError
from lostcards.policies import resolve
from lostcards.policies.py_random import random_policy
from lostcards.reference import move_rules as rm
from lostcards.reference.moves import Play
from lostcards.reference.round import play_round
from lostcards.rules.ruleset import rules
from lostcards.run.bridge import Bridged
from lostcards.run.runner import play
from lostcards.run.tables import rounds_table

SETTINGS = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
SUBSETS = [[n] for n in em.RULES] + [list(em.RULES)]


def _cards(lo: int, hi: int) -> set:
    return {b for b in range(60) if (lo >> b) & 1} | {60 + b for b in range(12) if (hi >> b) & 1}


def engine_allowed(obs, names) -> set:
    w = em.allowed_words(from_observation(obs), em.mask_of(names))
    return ({(c, "expedition") for c in _cards(w[0], w[1])} | {(c, "discard") for c in _cards(w[2], w[3])})


def _spy(seen, inner):
    def policy(obs, stream):
        seen.append(obs)
        return inner(obs, stream)
    return policy


def test_the_two_registries_name_the_same_rules():
    assert set(em.RULES) == set(rm.RULES)
    assert em.FUND == rm.FUND and em.OPEN_TURNS == rm.OPEN_TURNS
    assert len({r.bit for r in em.RULES.values()}) == len(em.RULES)


@settings(max_examples=40, **SETTINGS)
@given(r=rulesets(), seed=st.integers(0, 2**31), which=st.sampled_from(range(len(SUBSETS))))
def test_the_engines_masks_are_the_references(r, seed, which):
    seen = []
    play_round(r, seed, 0, _spy(seen, random_policy))
    names = SUBSETS[which]
    for obs in seen:
        want = rm.allowed(obs, names)
        assert engine_allowed(obs, names) == {(c, "discard" if to == "discard" else "expedition")
                                              for c, to in want}, (names, obs.turn)


def test_the_masks_can_filter_and_fall_back():
    """Over a few expert rounds each rule forbids some legal play somewhere; none leaves a seat no play."""
    r = rules("expeditions", players=2)
    seen = []
    expert = Bridged(resolve("expert"))
    for i in range(6):
        play_round(r, 11, i, _spy(seen, expert))
    for name in em.RULES:
        cut = [o for o in seen if rm.allowed(o, [name]) != set(o.legal_plays())]
        assert cut, name
        assert all(rm.allowed(o, [name]) for o in seen)


def _held_round_checks(r, spec, seed, rounds=2):
    """Play `spec` (bridged, on the reference engine, which refuses any illegal move) against expert;
    every move of the held seat is one its rules allow."""
    pol = resolve(spec)
    names = em.names_of(int(pol.values[list(pol.parameters).index("rules")]))
    held = Bridged(pol)
    bad = []

    def checked(obs, stream):
        m = held(obs, stream)
        if isinstance(m, Play):
            ok = rm.allowed(obs, names)
            if (m.card, m.to) not in ok:
                bad.append((obs.turn, m, sorted(ok)))
        return m
    other = Bridged(resolve("expert"))
    for i in range(rounds):
        play_round(r, seed, i, [checked, other] if r.players > 1 else checked)
    assert not bad, (spec, bad[:3])


@settings(max_examples=25, **SETTINGS)
@given(preset=st.sampled_from(["expeditions", "lost-cities"]), players=st.sampled_from([1, 2, 4]),
       bot=st.sampled_from(["random", "greedy", "expert", "expert:open_from=12"]),
       which=st.sampled_from(range(len(SUBSETS))), seed=st.integers(0, 2**31))
def test_a_held_bot_moves_legally_and_keeps_to_its_rules(preset, players, bot, which, seed):
    spec = f"{bot}{',' if ':' in bot else ':'}rules={'+'.join(SUBSETS[which])}"
    _held_round_checks(rules(preset, players=players), spec, seed)


@pytest.mark.parametrize("players", [1, 2, 4])
def test_improve_keeps_its_own_candidates_to_the_rules(players):
    r = rules("expeditions", players=players)
    for name in em.RULES:
        _held_round_checks(r, f"improve:k=4,rules={name}", 5, rounds=1)


@pytest.mark.parametrize("base", ["expert", "greedy", "improve:k=4"])
def test_held_to_no_rule_is_the_bot_itself(base):
    r = rules("expeditions", players=2)
    n = 4 if base.startswith("improve") else 200
    a = rounds_table(play(r, base, "expert", rounds=n, seed=3))
    b = rounds_table(play(r, f"{base}{',' if ':' in base else ':'}rules=none", "expert", rounds=n, seed=3))
    assert np.array_equal(a.score_a.to_numpy(), b.score_a.to_numpy())
    assert np.array_equal(a.score_b.to_numpy(), b.score_b.to_numpy())


@pytest.mark.parametrize("bot", ["random"])   # expert and greedy rarely or never break fund20 or safe
def test_a_held_rule_changes_the_game(bot):
    r = rules("expeditions", players=2)
    a = rounds_table(play(r, bot, "expert", rounds=200, seed=3))
    for name in em.RULES:
        b = rounds_table(play(r, f"{bot}:rules={name}", "expert", rounds=200, seed=3))
        assert not np.array_equal(a.score_a.to_numpy(), b.score_a.to_numpy()), name


def test_the_spec_round_trips_and_names_the_rules():
    assert resolve("expert:rules=safe+fund20").spec == "expert:rules=fund20+safe"
    assert resolve("expert:rho=5,rules=open6").spec == "expert:rho=5,rules=open6"
    assert resolve("improve:k=64,rules=fund20").spec == "improve:k=64,rules=fund20"
    assert resolve(resolve("greedy:rules=open6").spec).spec == "greedy:rules=open6"
    assert resolve("improve:k=64,rules=fund20").values[0] == 64


@pytest.mark.parametrize("spec", ["expert:rules=fund21", "expert:rules=", "improve:rules=safe+nope",
                                  "expert:rules=safe,rules=open6"])
def test_an_unknown_rule_is_refused(spec):
    with pytest.raises(PolicyError):
        resolve(spec)


def test_the_cli_refuses_an_unknown_rule_in_one_line():
    res = CliRunner().invoke(main, ["simulate", "--policies", "expert:rules=fund21,expert", "--rounds", "10"])
    assert res.exit_code != 0
    lines = [x for x in res.output.strip().splitlines() if x.strip()]
    assert len(lines) == 1 and "fund20" in lines[0] and "open6" in lines[0] and "safe" in lines[0], res.output
