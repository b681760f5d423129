"""The independent line (`blueprint`, `learned`, `learned-mc`): always legal, reproducible training,
independent of expert.

Legality: ``runner.play`` raises ``PolicyFailure`` on the first illegal move, and a sample of
the rounds is recorded and replayed on the reference engine.  Training: one tiny generation,
twice, gives the same weights.  Independence: the training code imports no other policy, and a run of
the network line never resolves expert.
"""
import ast
import json
from pathlib import Path

import numpy as np
import pytest

from lostcards.policies import resolve
from lostcards.policies.learned import load_weights, mc_policy_of, policy_of
from lostcards.policies.learned.blueprint import FEATURES, N_WEIGHTS
from lostcards.records.replay import replay_record
from lostcards.rules.ruleset import rules
from lostcards.run import runner

PACKAGE = Path(__file__).resolve().parent.parent / "lostcards"


def _legal(r, a, b, n, seed):
    for x, y in ((a, b), (b, a)):
        batch = runner.play(r, x, y, rounds=n, seed=seed, first=-1, threads=1)
        assert (batch.scores == batch.side_suits[..., 2].sum(axis=2)).all()
        idx = [0, n - 1]
        for rec in runner.play_records(r, x, y, idx, seed=seed, first=-1):
            assert replay_record(rec)["ok"]


def test_shipped_weights_load_and_are_registered():
    w = load_weights()
    assert w.shape == (N_WEIGHTS,) and np.isfinite(w).all()
    assert np.allclose(resolve("blueprint").params[1:], w)
    assert resolve("learned-mc:samples=8").params[0] == 8
    doc = json.loads((PACKAGE / "policies" / "learned" / "weights.json").read_text())
    assert doc["command"].startswith("lostcards train ")
    assert set(doc["weights"]) == set(FEATURES)


@pytest.mark.parametrize("preset", ["expeditions", "lost-cities"])
@pytest.mark.parametrize("players", [1, 2, 4])
def test_blueprint_legal(preset, players):
    r = rules(preset, players=players)
    _legal(r, "blueprint", "random" if players > 1 else "blueprint", 40, seed=3)
    _legal(r, policy_of(np.zeros(N_WEIGHTS), temp=1.0), "blueprint", 20, seed=4)   # softmax sampling


@pytest.mark.slow          # learned-mc's compile (20 s) is nowhere else in the fast suite
@pytest.mark.parametrize("preset", ["expeditions", "lost-cities"])
@pytest.mark.parametrize("players", [2, 4])
def test_mc_legal(preset, players):
    _legal(rules(preset, players=players), mc_policy_of(load_weights(), samples=2, candidates=3), "greedy", 3, seed=5)


def test_training_is_reproducible(tmp_path):
    from lostcards.training.selfplay import Settings, train
    st = Settings(generations=1, seed=7, pairs=1, deals=10, gate=4000, pool=1)
    w1 = train(st, tmp_path / "a", say=lambda m: None)
    w2 = train(st, tmp_path / "b", say=lambda m: None)
    assert np.array_equal(w1, w2)
    assert (tmp_path / "a" / "curve.csv").read_text().count("\n") == 2
    assert json.loads((tmp_path / "a" / "gen_001.json").read_text())["generation"] in (0, 1)


def test_training_imports_no_other_policy():
    """The training code never imports expert (nor any other policy): checked on its source, the
    blueprint's evolution strategy and the network line's loop, teacher, fit and kernels alike."""
    folder = PACKAGE / "policies" / "learned"
    network = PACKAGE / "policies" / "network"
    for f in [PACKAGE / "training" / "selfplay.py", folder / "blueprint.py", folder / "rollout.py",
              folder / "__init__.py", folder / "net.py", PACKAGE / "cli" / "train.py", PACKAGE / "cli" / "iterate.py",
              *sorted(network.glob("*.py")), *(PACKAGE / "training" / f for f in
                                               ("loop.py", "teacher.py", "fit.py", "measure.py"))]:
        for node in ast.walk(ast.parse(f.read_text())):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [node.module or ""] + [f"{node.module}.{a.name}" for a in node.names]
            for n in names:
                assert "expert" not in n and "search" not in n and "greedy" not in n, (f.name, n)


@pytest.mark.parametrize("args", [["--rules", "nope"], ["--rules", "expeditions/1"], ["--reference", "nobot"]])
def test_train_refuses_bad_input_in_one_line(tmp_path, args):
    from click.testing import CliRunner

    from lostcards.cli.train import train
    res = CliRunner().invoke(train, [*args, "--out", str(tmp_path / "run")])
    assert res.exit_code == 1
    assert len(res.output.strip().splitlines()) == 1 and "Error" in res.output
    assert not (tmp_path / "run").exists()
