"""A user's policies, written outside the package, play by import path with no change to lostcards."""
from pathlib import Path

import pytest
from click.testing import CliRunner

from lostcards.cli import main
from lostcards.errors import PolicyError
from lostcards.policies import resolve
from lostcards.run.runner import play

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(autouse=True)
def examples_on_path(monkeypatch):
    monkeypatch.syspath_prepend(str(ROOT))


@pytest.mark.parametrize("players", [1, 2, 4])
def test_numba_user_policy_plays_by_import_path(players):
    from lostcards.rules.ruleset import rules
    b = play(rules("expeditions", players=players), "examples.cautious:cautious", "random",
             rounds=2000, seed=3)
    assert b.n == 2000
    if players == 2:
        # opening only at 6 or more loses far less than random play
        assert b.scores[:, 0].mean() > b.scores[:, 1].mean() + 10


def test_python_user_policy_plays_on_the_reference_engine():
    b = play("expeditions", "examples.cautious:prototype", "random", rounds=30, seed=3)
    assert b.n == 30 and (b.round_info[:, 1] > 0).all()


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
