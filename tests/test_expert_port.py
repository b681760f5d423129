"""`expert` and `staller` play the rounds the expert before its port played: digests of its rounds.

The expert and staller on the old observation row (the old array engine, gone
since) were played on 230 cases, 300 rounds each: 1, 2 and 4 players, both
presets, tweaked rulesets and every switch of expert set away from its
default; tests/expert_port_digests.py keeps a hash of every per-round statistic
(first seat, turns, ending, scores, per seat, per suit and per side).  The
port played all of them identically (and 392 cases of 2,000-10,000 rounds, with
records, while both engines lived: branch ``bots``, tests/test_expert_port.py
before the merge).  The digests are of the suit-ordered tie-breaks, so every
case runs with ``ties=suit``.
"""
import hashlib

import numpy as np

from lostcards.rules.ruleset import rules
from lostcards.run.runner import play

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


def test_pass_pays_passes():
    """pass=pays is not a no-op: with 4 players it passes more than pass=on (so the digests
    below compare rounds that differ from the defaults')."""
    r = rules("expeditions", players=4)
    on = play(r, "expert", "expert", rounds=200, seed=3, first=-1)
    pays = play(r, "expert:pass=pays", "expert:pass=pays", rounds=200, seed=3, first=-1)
    assert (on.round_info != pays.round_info).any()


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
    """expert and staller (ties=suit) against the digests of the old engine's rounds."""
    from expert_port_digests import DIGESTS
    assert len(DIGESTS) == len(list(_digest_cases()))
    bad = []
    for bot, game, spec in _digest_cases():
        preset, players, over = game
        r = rules(preset, players=players, **over)
        name = f"{bot}:{spec + ',' if spec else ''}ties=suit"
        b = play(r, name, name, rounds=DIGEST_ROUNDS, seed=81, first=-1)
        if digest((b.round_info, b.seats, b.seat_suits, b.side_suits)) != DIGESTS[_key(bot, game, spec)]:
            bad.append(_key(bot, game, spec))
    assert not bad, f"{len(bad)} cases differ, first {bad[:3]}"
