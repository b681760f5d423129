"""A user's policies, written outside the package, play by import path with no change to lostcards."""
from pathlib import Path

import pytest
from click.testing import CliRunner

from lostcards.cli import main
from lostcards.errors import PolicyError
from lostcards.policies import resolve
from lostcards.run.runner import play, play_records

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(autouse=True)
def examples_on_path(monkeypatch):
    monkeypatch.syspath_prepend(str(ROOT))


PILE_DRAWS, PASSES = 3, 4            # columns of Batch.seats


def assert_cautious(b, r, records):
    """The cautious seats (side A: seat 0, and seat 2 with 4 players) did what `cautious` does: never
    a draw off a discard pile nor a pass, and never an expedition opened below 6, while the
    `random` seats do draw off piles."""
    mine = [s for s in range(r.players) if s % 2 == 0]
    assert (b.seats[:, mine, PILE_DRAWS] == 0).all() and (b.seats[:, mine, PASSES] == 0).all()
    if r.players > 1:
        assert b.seats[:, 1::2, PILE_DRAWS].sum() > 0
    opened = 0
    for rec in records:
        laid = set()
        for k, turn in enumerate(rec["turns"]):
            seat = (rec["first"] + k) % r.players
            if "play" not in turn or turn["to"] != "expedition":
                continue
            suit = (seat % 2 if r.players == 4 else seat, turn["play"][-1])
            if seat in mine and suit not in laid:
                opened += 1
                assert turn["play"][:-1] not in "JQK" and int(turn["play"][:-1]) >= 6, (k, turn)
            laid.add(suit)
    assert opened > 0


@pytest.mark.parametrize("players", [1, 2, 4])
def test_numba_user_policy_plays_by_import_path(players):
    from lostcards.rules.ruleset import rules
    r = rules("expeditions", players=players)
    b = play(r, "examples.cautious:cautious", "random", rounds=2000, seed=3)
    assert_cautious(b, r, play_records(r, "examples.cautious:cautious", "random", range(40), seed=3))
    if players == 2:
        # opening only at 6 or more loses far less than random play
        assert b.scores[:, 0].mean() > b.scores[:, 1].mean() + 10


def test_python_user_policy_plays_on_the_reference_engine():
    from lostcards.reference.round import play_round
    from lostcards.rules.ruleset import rules
    r = rules("expeditions")
    b = play(r, "examples.cautious:prototype", "random", rounds=30, seed=3)
    proto = resolve("examples.cautious:prototype").python
    recs = [play_round(r, 3, i, [proto, resolve("random").python]).record for i in range(30)]
    assert [len(rec["turns"]) for rec in recs] == list(b.round_info[:, 1])
    assert_cautious(b, r, recs)


def test_cli_accepts_import_paths(tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT)
    res = CliRunner().invoke(main, ["simulate", "--rounds", "500", "--out", str(tmp_path / "u"),
                                    "--policies", "examples.cautious:cautious,random"])
    assert res.exit_code == 0, res.output
    assert "examples.cautious:cautious" in res.output


def test_bad_import_paths_are_clear():
    with pytest.raises(PolicyError, match="cannot load"):
        resolve("examples.nosuch:thing")
    with pytest.raises(PolicyError, match="cannot load"):
        resolve("examples.cautious:nothing")
