"""Mixed rounds: a numba policy on the reference engine (run/bridge.py) plays exactly as in the engine.

Every registered numba policy plays through the bridge against itself and against `random` (the
numba `random` bridged, and the plain-Python twin) on 1, 2 and 4 players; each round must be the
engine's round of the same (seed, round index), move for move (its SPEC §5 record) and score for
score.  Then the entry points: `play`, records, and the commands that take policies, with a
plain-Python policy beside a numba one.
"""
import json

import numpy as np
import pytest
from click.testing import CliRunner

import lostcards
from lostcards.cli.app import main
from lostcards.policies import guarded, names, resolve
from lostcards.reference.round import play_round
from lostcards.rules.ruleset import rules
from lostcards.run import runner
from lostcards.run.bridge import Bridged, prepare

# each registered numba policy, tested with its quick parameters (a small search budget keeps it quick)
NUMBA = [n for n in names() if resolve(n).kernel is not None]
SLOW_BOTS = {n for n in NUMBA if resolve(n).slow and not resolve(n).quick}   # play-outs each decision: test-slow
ROUNDS = {1: 3, 2: 3, 4: 2}
SEED = 7


def _spec(name):
    return resolve(name).quick_spec


def _bridged_rounds(r, pols, n, seed=SEED, first=-1):
    out = []
    for i in range(n):
        res = play_round(r, seed, i, pols, first=first if first >= 0 else i % r.players)
        out.append((res.record, list(res.scores)))
    return out


@pytest.mark.parametrize("players", [1, 2, 4])
@pytest.mark.parametrize("name", [pytest.param(n, marks=[pytest.mark.slow] if n in SLOW_BOTS else []) for n in NUMBA])
def test_each_numba_policy_plays_through_the_bridge_as_in_the_engine(name, players):
    r = rules("expeditions", players=players)
    p = resolve(_spec(name))
    rnd = resolve("random")
    n = ROUNDS[players]
    prepare([p, rnd])
    opponents = [("itself", p, Bridged(p)), ("random", rnd, Bridged(rnd))]
    if players > 1:
        opponents.append(("plain-Python random", rnd, guarded(rnd)))
    for what, opp, opp_bridged in opponents[: 1 if players == 1 else None]:
        engine = runner.play_records(r, p, opp, range(n), seed=SEED, first=-1)
        batch = runner.play(r, p, opp, rounds=n, seed=SEED, first=-1, threads=1)
        mine = _bridged_rounds(r, [Bridged(p), opp_bridged][:r.sides], n)
        for i, ((rec, scores), want) in enumerate(zip(mine, engine)):
            assert rec["hands"] == want["hands"] and rec["deck"] == want["deck"]
            for t, (a, b) in enumerate(zip(rec["turns"], want["turns"]), start=1):
                assert a == b, f"{name} vs {what}, {players}p, round {i}, turn {t}: bridge {a}, engine {b}"
            assert len(rec["turns"]) == len(want["turns"]), (name, what, players, i)
            assert scores == list(batch.scores[i]), (name, what, players, i)
            assert len(rec["turns"]) == batch.round_info[i, 1]


def test_the_bridge_keeps_a_seat_memory_per_round_and_seat():
    """Two rounds interleaved through one bridged policy give the rounds played one at a time."""
    r = rules("expeditions", players=2)
    p = resolve("expert")
    alone = [play_round(r, SEED, i, [Bridged(p), Bridged(p)]).record for i in range(2)]
    from lostcards.reference.round import Round, turn_record
    from lostcards.rules.streams import Stream
    b = Bridged(p)
    rounds = [Round.dealt(r, SEED, i, 0) for i in range(2)]
    streams = [[Stream(SEED, i, 1 + s) for s in range(2)] for i in range(2)]
    turns = [[], []]
    while not all(x.ended for x in rounds):
        for i, x in enumerate(rounds):
            if not x.ended:
                m = b(x.observation(), streams[i][x.seat])
                x.apply(m)
                turns[i].append(turn_record(m, r))
    assert turns == [a["turns"] for a in alone]


@pytest.mark.parametrize("players", [1, 2, 4])
def test_play_mixes_a_plain_python_and_a_numba_policy(players):
    r = rules("expeditions", players=players)
    b = lostcards.play(r, "examples.cautious:prototype", "greedy", rounds=4, seed=2, first=-1)
    assert b.n == 4 and (b.round_info[:, 2] >= 0).all()
    recs = lostcards.play_records(r, "examples.cautious:prototype", "greedy", round_indices=range(4), seed=2,
                                  first=-1)
    from lostcards.records.replay import replay_record
    for i, rec in enumerate(recs):
        v = replay_record(rec)
        assert v["ok"] and v["scores"] == list(b.scores[i]) and v["turns"] == b.round_info[i, 1]


def test_tournament_with_expert_beside_a_plain_python_bot(tmp_path):
    res = CliRunner().invoke(main, ["tournament", "--policies", "expert,examples.cautious:prototype",
                                    "--rounds", "4", "--fixed", "--bootstrap", "10",
                                    "--out", str(tmp_path / "t")])
    assert res.exit_code == 0, res.output
    assert "has no plain-Python version" not in res.output


def test_simulate_with_records_beside_a_plain_python_bot(tmp_path):
    out = tmp_path / "s"
    res = CliRunner().invoke(main, ["simulate", "--policies", "examples.cautious:prototype,greedy", "--rounds", "3",
                                    "--records", "all", "--turns", "2", "--out", str(out), "--no-progress"])
    assert res.exit_code == 0, res.output
    lines = (out / "records.jsonl").read_text().splitlines()
    assert len(lines) == 3
    from lostcards.records.replay import replay_record
    assert all(replay_record(json.loads(x))["ok"] for x in lines)


def test_sweep_with_a_plain_python_bot(tmp_path):
    res = CliRunner().invoke(main, ["sweep", "--policy", "examples.cautious:prototype", "--opponents", "greedy",
                                    "--grid", "hand_size=6,7", "--rounds", "3", "--skill-rounds", "2",
                                    "--out", str(tmp_path / "w"), "--no-progress"])
    assert res.exit_code == 0, res.output


def test_bridged_moves_are_the_engines_under_a_tweaked_ruleset():
    r = rules("lost-cities", players=2, stall_limit=8, turn_cap=0)
    p = resolve("greedy")
    eng = runner.play_records(r, p, p, range(2), seed=4, first=0)
    mine = _bridged_rounds(r, [Bridged(p), Bridged(p)], 2, seed=4, first=0)
    assert [m[0]["turns"] for m in mine] == [e["turns"] for e in eng]
    assert np.array_equal([m[1] for m in mine], runner.play(r, p, p, rounds=2, seed=4).scores)


@pytest.mark.parametrize("players", [1, 2, 4])
def test_turn_logs_of_reference_rounds_are_the_engines(players):
    """The `turns` table's logs (moves and dealt order) of a round played on the reference engine."""
    r = rules("expeditions", players=players)
    p = resolve("greedy")
    idx = np.arange(3)
    cap = runner.max_turns(r)
    n = r.deck_size
    want = [np.full((3, cap), -1, np.int64), np.zeros((3, n), np.int32), np.zeros(3, np.int64)]
    got = [np.full((3, cap), -1, np.int64), np.zeros((3, n), np.int32), np.zeros(3, np.int64)]
    runner.log_rounds(r, p, p, idx, 5, -1, *want)
    runner._log_reference(r, p, p, idx, 5, -1, *got)
    for x, y in zip(want, got):
        assert np.array_equal(x, y)


def test_claims_data_of_a_plain_python_bot_beside_a_numba_one():
    """`claims --experiments` plays through the runner's `play` and `play_records`: an experiment's bot may be
    a plain-Python policy, with numba bots beside it."""
    from lostcards.analysis.claims.data import _walked
    r = rules("expeditions", players=2)
    w = _walked(r, "examples.cautious:prototype", "expert", range(3), 1, 0)
    assert len(w["tables"]["rounds"]) == 3 and len(w["facts"])
    b = lostcards.play(r, "examples.cautious:prototype", "expert", rounds=3, seed=1)
    assert list(w["tables"]["rounds"].sort_values("round")["turns"]) == list(b.round_info[:, 1])


def test_a_raising_plain_python_bot_beside_expert_is_one_line(tmp_path):
    from safety_tools import cli, lines
    (tmp_path / "mixbots.py").write_text("def raising(obs, stream):\n    return 1 / 0\n")
    code, out, err = cli("tournament", "--policies", "mixbots:raising,expert", "--rounds", 2, "--block", 2,
                         "--bootstrap", 0, "--out", tmp_path / "t", cwd=tmp_path)
    assert code == 1 and "ZeroDivisionError" in err and "mixbots.py:2" in err and len(lines(out, err)) == 1, err
