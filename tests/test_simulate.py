"""`lostcards simulate`: tables, manifest, resume, refusal of a different batch, records that replay."""
import json

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

import lostcards
from lostcards.cli import main
from lostcards.errors import BatchError
from lostcards.records.replay import replay_record
from lostcards.rules.ruleset import rules
from lostcards.run.load import load
from lostcards.run.shards import BatchSpec
from lostcards.run.simulate import run

ROUNDS_COLS = ["round", "seed", "players", "rules", "policy_a", "policy_b", "first", "turns",
               "ended_by", "score_a", "score_b"]
SEATS_COLS = ["round", "seat", "side", "plays", "discards", "deck_draws", "pile_draws", "passes"]
SUITS_COLS = ["round", "seat", "suit", "held_count", "held_sum", "reached_count", "reached_sum",
              "exp_cards", "exp_investments", "exp_score"]


def test_tables_have_the_promised_columns(tmp_path):
    spec = BatchSpec(rules("expeditions"), ("random", "random"), 5, 1000, 0, 400)
    m = run(spec, tmp_path / "b", records=10)
    t = load(tmp_path / "b")
    assert list(t["rounds"].columns) == ROUNDS_COLS
    assert list(t["seats"].columns) == SEATS_COLS
    assert list(t["seat_suits"].columns) == SUITS_COLS
    assert len(t["rounds"]) == 1000 and len(t["seats"]) == 2000 and len(t["seat_suits"]) == 8000
    assert m["complete"] and m["shards"] == 3
    # the seat_suits expedition scores add up to the round scores
    s = t["seat_suits"].merge(t["seats"][["round", "seat", "side"]], on=["round", "seat"])
    by_side = s.groupby(["round", "side"])["exp_score"].sum().unstack()
    np.testing.assert_array_equal(by_side[0].to_numpy(), t["rounds"]["score_a"].to_numpy())
    # reached includes the dealt hand
    assert (t["seat_suits"]["reached_sum"] >= t["seat_suits"]["held_sum"]).all()
    # plays = deck draws + pile draws in 2 players (every play is followed by a draw)
    seats = t["seats"]
    assert (seats["plays"] == seats["deck_draws"] + seats["pile_draws"]).all()
    recs = [json.loads(line) for line in (tmp_path / "b" / "records.jsonl").read_text().splitlines()]
    assert len(recs) == 10
    rounds = t["rounds"].set_index("round")
    for rec, idx in zip(recs, np.unique(np.linspace(0, 999, 10).astype(int))):
        v = replay_record(rec)
        assert v["ok"], v
        assert v["scores"] == [rounds.loc[idx, "score_a"], rounds.loc[idx, "score_b"]]
        assert v["turns"] == rounds.loc[idx, "turns"]
        assert v["ended_by"] == rounds.loc[idx, "ended_by"]


def test_resume_keeps_finished_shards_and_gives_the_same_tables(tmp_path):
    spec = BatchSpec(rules("expeditions", players=4), ("random", "random"), 3, 900, -1, 200)
    whole = run(spec, tmp_path / "whole")
    # an interrupted run: stop after two shards by raising from the progress callback
    calls = []

    def interrupt(n):
        calls.append(n)
        if len(calls) == 2:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run(spec, tmp_path / "cut", progress=interrupt)
    partial = json.loads((tmp_path / "cut" / "manifest.json").read_text())
    assert partial["shards_done"] == [0, 1]
    run(spec, tmp_path / "cut")
    a, b = load(tmp_path / "whole"), load(tmp_path / "cut")
    for name in a:
        pd.testing.assert_frame_equal(a[name], b[name])
    assert whole["complete"]


def test_a_directory_with_another_batch_is_refused(tmp_path):
    run(BatchSpec(rules("expeditions"), ("random", "random"), 1, 100, 0, 100), tmp_path / "x")
    with pytest.raises(BatchError, match="different batch"):
        run(BatchSpec(rules("expeditions"), ("random", "random"), 2, 100, 0, 100), tmp_path / "x")
    assert len(load(tmp_path / "x")["rounds"]) == 100


def test_shard_size_and_threads_do_not_change_results(tmp_path):
    r = rules("lost-cities")
    run(BatchSpec(r, ("random", "random"), 7, 600, 0, 600), tmp_path / "a", threads=1)
    run(BatchSpec(r, ("random", "random"), 7, 600, 0, 250), tmp_path / "b", threads=2)
    a, b = load(tmp_path / "a"), load(tmp_path / "b")
    for name in a:
        pd.testing.assert_frame_equal(a[name], b[name])


def test_solitaire_tables(tmp_path):
    run(BatchSpec(rules("expeditions", players=1), ("random", "random"), 1, 200, 0, 200), tmp_path / "s")
    t = load(tmp_path / "s")
    assert t["rounds"]["score_b"].isna().all()
    assert (t["rounds"]["ended_by"] == "hand-empty").all()
    assert (t["seats"]["plays"] == 24).all()


def test_cli_simulate_writes_csv_manifest_and_summary(tmp_path):
    out = tmp_path / "cli"
    res = CliRunner().invoke(main, ["simulate", "--rounds", "300", "--seed", "4", "--out", str(out),
                                    "--csv", "--set", "hand_size=7", "--policies", "random"])
    assert res.exit_code == 0, res.output
    assert "turns per round" in res.output
    for name in ("rounds", "seats", "seat_suits"):
        assert (out / f"{name}.csv").exists()
    m = json.loads((out / "manifest.json").read_text())
    assert m["batch"]["rules"] == {"preset": "expeditions", "hand_size": 7}
    assert m["batch"]["seed"] == 4 and m["batch"]["rounds"] == 300 and "numba" in m["versions"]
    res = CliRunner().invoke(main, ["summary", str(out)])
    assert res.exit_code == 0 and "rounds: 300" in res.output


@pytest.mark.parametrize("args, words", [
    (["--set", "hand_size=0"], "hand_size"),
    (["--set", "bonus_cards=99"], "bonus_cards"),
    (["--set", "colour=3"], "colour"),
    (["--set", "hand_size"], "PARAM=VALUE"),
    (["--policies", "nosuchbot"], "nosuchbot"),
    (["--policies", "random:speed=3"], "speed"),
    (["--policies", "a.b.c:d"], "a.b.c"),
    (["--players", "3"], "3"),
    (["--rounds", "0"], "rounds"),
    (["--first", "5"], "first"),
    (["--records", "some"], "records"),
])
def test_bad_input_is_one_clear_line(tmp_path, args, words):
    res = CliRunner().invoke(main, ["simulate", "--rounds", "10", "--out", str(tmp_path / "o")] + args)
    assert res.exit_code != 0
    assert res.exception is None or isinstance(res.exception, SystemExit)
    assert words in res.output
    assert "Traceback" not in res.output


def test_unwritable_directory_is_refused(tmp_path):
    f = tmp_path / "file"
    f.write_text("x")
    res = CliRunner().invoke(main, ["simulate", "--rounds", "10", "--out", str(f / "sub")])
    assert res.exit_code != 0 and "cannot write" in res.output


def test_rules_command_lists_presets_and_parameters():
    res = CliRunner().invoke(main, ["rules"])
    assert res.exit_code == 0
    for word in ("expeditions", "lost-cities", "hand_size", "stall_limit", "turn_cap", "pass_twice"):
        assert word in res.output


def test_python_entry_points():
    r = lostcards.rules("expeditions", hand_size=8)
    assert r.hand_size == 8 and r.suits == 4
    assert lostcards.score_expedition(["JH", "QH", "6H", "8H", "10H"], lostcards.rules()) == 12
    with pytest.raises(lostcards.RulesError, match="suits"):
        lostcards.rules("expeditions", suits=5)
    assert lostcards.rules("lost-cities", suits=6).letters == "YBWGRP"
