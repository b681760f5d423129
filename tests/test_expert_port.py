"""`expert` and `staller` on the bit observation play exactly today's: same seeds, identical rounds.

Today's engine with lostcards/policies/expert.py (staller.py) against the bit
engine with expert_bits.py (staller_bits.py), both seats the same spec: every per-round statistic (first seat,
turns, ending, scores, per seat, per suit and per side) and the records (deal and
every move) of a sample of rounds must agree, over 1, 2 and 4 players, both
presets, tweaked rulesets and every switch of expert set away from its default.
"""
import hashlib
from pathlib import Path

import numpy as np
import pytest

from lostcards.bitengine import run as bit
from lostcards.policies import expert_bits, staller_bits
from lostcards.rules.ruleset import rules
from lostcards.run.runner import play, play_records

# every parameter away from its default, alone or with a neighbour it interacts with
SWITCHES = [
    "", "invest=eager", "invest=never", "invest=hand", "endgame=off", "safety=off", "bonus=off",
    "deny=off", "pass=off", "rho=0.3", "rho=1.6", "open=0", "open=14", "danger=0.4", "danger=2.5",
    "drawbase=-2", "drawbase=8", "open_hand=14", "invest_hand=20", "open_from=9", "count=off",
    "skip_low=off", "last_play=off", "bonus_from=1", "bonus_from=4", "count=off,skip_low=off",
    "invest=eager,bonus_from=2,skip_low=off", "invest=hand,open_hand=10,open_from=4,danger=0",
    "pass=pays", "pass=pays,pass_at=3", "pass=pays,pass_at=-5", "pass=on,pass_at=0",
]
# the staller: its lead, and expert's switches under it
STALLER = ["", "lead=-1000", "lead=15", "pass=pays,lead=0", "deny=off,drawbase=8,lead=5"]
BOTS = {"expert": expert_bits.EXPERT, "staller": staller_bits.STALLER}
GAMES = [("expeditions", 2, {}), ("expeditions", 4, {}), ("expeditions", 1, {}),
         ("lost-cities", 2, {}), ("lost-cities", 4, {}), ("lost-cities", 1, {})]
# rulesets that reach the branches the presets leave alone (extra low copies, 6 suits, no
# investments, stall limits, short hands, solitaire with few suits)
TWEAKED = [
    ("expeditions", 2, {"hand_size": 8, "bonus_cards": 4, "stall_limit": 2}),
    ("expeditions", 4, {"pass_min_hand": 4, "pass_twice": True, "extra_low": (2, 5, 9)}),
    ("expeditions", 4, {"pass_min_hand": 3, "stall_limit": 1, "hand_size": 4}),
    ("lost-cities", 2, {"turn_cap": 60, "suits": 6, "numbers": (2, 4, 6, 8, 10)}),
    ("lost-cities", 2, {"suits": 6, "investments": 0, "cost": 5, "bonus_points": 7}),
    ("expeditions", 1, {"investments": 1, "suits": 3, "hand_size": 3}),
    ("lost-cities", 1, {"suits": 6, "hand_size": 10}),
    ("expeditions", 2, {"cost": 40, "bonus_points": 60, "bonus_cards": 3}),
]


def _ids(game):
    preset, players, over = game
    return f"{preset}-{players}p" + "".join(f"-{k}" for k in over)


def check_same(game, spec, rounds, seed, sample=8, bot="expert"):
    """Old and new bot on the same rounds: statistics of every round, records of a sample."""
    preset, players, over = game
    r = rules(preset, players=players, **over)
    old_spec = bot + (":" + spec if spec else "")
    kernel, params = BOTS[bot].kernel, BOTS[bot].with_params(spec).params
    old = play(r, old_spec, old_spec, rounds=rounds, seed=seed, first=-1)
    new = bit.play_arrays(r, kernel, params, kernel, params, rounds, seed, first=-1)
    for name, a, b in zip(("round_info", "seats", "seat_suits", "side_suits"),
                          (old.round_info, old.seats, old.seat_suits, old.side_suits), new):
        bad = np.flatnonzero((a != b).reshape(rounds, -1).any(axis=1))
        assert bad.size == 0, f"{spec or 'defaults'}: {name} differs in {bad.size} rounds, first {bad[0]}"
    idx = list(range(0, rounds, max(1, rounds // sample)))
    assert bit.records(r, kernel, params, kernel, params, idx, seed, first=-1) == \
        play_records(r, old_spec, old_spec, idx, seed=seed, first=-1), spec


@pytest.mark.parametrize("game", GAMES, ids=[_ids(g) for g in GAMES])
def test_defaults_play_the_same_rounds(game):
    check_same(game, "", 300, seed=21 + game[1])


@pytest.mark.parametrize("spec", SWITCHES[1:])
def test_every_switch_plays_the_same_rounds(spec):
    for k, game in enumerate(GAMES[:3]):
        check_same(game, spec, 100, seed=31 + k, sample=3)


@pytest.mark.parametrize("game", TWEAKED, ids=[_ids(g) for g in TWEAKED])
def test_tweaked_rulesets_play_the_same_rounds(game):
    check_same(game, "", 200, seed=41 + game[1])


def test_pass_pays_passes():
    """pass=pays is not a no-op: with 4 players it passes more than pass=on (so the test above
    compares rounds that differ from the defaults')."""
    r = rules("expeditions", players=4)
    on = play(r, "expert", "expert", rounds=200, seed=3, first=-1)
    pays = play(r, "expert:pass=pays", "expert:pass=pays", rounds=200, seed=3, first=-1)
    assert (on.round_info != pays.round_info).any()


@pytest.mark.parametrize("spec", STALLER)
def test_staller_plays_the_same_rounds(spec):
    for k, game in enumerate(GAMES[:3] + TWEAKED[:3]):
        check_same(game, spec, 150, seed=61 + k, sample=3, bot="staller")


@pytest.mark.slow
@pytest.mark.parametrize("game", GAMES + TWEAKED, ids=[_ids(g) for g in GAMES + TWEAKED])
@pytest.mark.parametrize("spec", STALLER)
def test_staller_thousands_of_rounds(game, spec):
    check_same(game, spec, 3000, seed=71 + game[1], sample=20, bot="staller")


@pytest.mark.slow
@pytest.mark.parametrize("game", GAMES + TWEAKED, ids=[_ids(g) for g in GAMES + TWEAKED])
@pytest.mark.parametrize("spec", SWITCHES)
def test_thousands_of_rounds(game, spec):
    check_same(game, spec, 2000 if spec else 10000, seed=51 + game[1], sample=20)


# ---- digests: today's rounds kept, so the port stays checked once today's engine is gone ----

DIGEST_ROUNDS = 300


def _digest_cases():
    for bot, specs, games in (("expert", SWITCHES, GAMES), ("expert", [""], TWEAKED),
                              ("staller", STALLER, GAMES[:3] + TWEAKED[:3])):
        for game in games:
            for spec in specs:
                yield bot, game, spec


def _key(bot, game, spec):
    return f"{bot}:{spec}|{_ids(game)}"


def digest(arrays) -> str:
    """A short hash of a batch's four arrays (round_info, seats, seat_suits, side_suits)."""
    h = hashlib.sha256()
    for a in arrays:
        h.update(np.ascontiguousarray(a, np.int64).tobytes())
    return h.hexdigest()[:16]


def test_digests_of_todays_rounds():
    """The bit-engine bots against digests of today's engine's rounds (tests/expert_port_digests.py)."""
    from expert_port_digests import DIGESTS
    assert len(DIGESTS) == len(list(_digest_cases()))
    for bot, game, spec in _digest_cases():
        preset, players, over = game
        r = rules(preset, players=players, **over)
        kernel, params = BOTS[bot].kernel, BOTS[bot].with_params(spec).params
        got = digest(bit.play_arrays(r, kernel, params, kernel, params, DIGEST_ROUNDS, 81, first=-1))
        assert got == DIGESTS[_key(bot, game, spec)], _key(bot, game, spec)


def write_digests(path="tests/expert_port_digests.py"):
    """Digests of today's engine's rounds (run once, while lostcards.engine is today's engine)."""
    lines = ['"""Digests of today\'s engine\'s rounds for tests/test_expert_port.py (written by its '
             'write_digests)."""', "DIGESTS = {"]
    for bot, game, spec in _digest_cases():
        preset, players, over = game
        r = rules(preset, players=players, **over)
        name = bot + (":" + spec if spec else "")
        b = play(r, name, name, rounds=DIGEST_ROUNDS, seed=81, first=-1)
        lines.append(f"    {_key(bot, game, spec)!r}: "
                     f"{digest((b.round_info, b.seats, b.seat_suits, b.side_suits))!r},")
    lines.append("}")
    Path(path).write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    write_digests()
