"""`learned`, the network line started from the self-play blueprint: legal everywhere, its parameters laid
out as the kernel reads them, and trained without expert ever being resolved (not a base, a reference
flag, a gate; with no reference deals not even measured against)."""
import numpy as np
import pytest

from lostcards.policies import resolve
from lostcards.policies.learned import N_WEIGHTS as N_BLUEPRINT_WEIGHTS
from lostcards.policies.learned import learned_of, load_weights
from lostcards.policies.learned.net import N_BLUEPRINT, OFF_W
from lostcards.policies.network import C_DIM, N_WEIGHTS
from lostcards.records.replay import replay_record
from lostcards.rules.ruleset import rules
from lostcards.run import runner
from lostcards.training.fit import initial


def _noisy(seed=0):
    return initial(seed) + np.random.default_rng(seed).normal(0, 0.3, N_WEIGHTS)


@pytest.mark.parametrize("preset,players", [("expeditions", 2), ("expeditions", 4), ("lost-cities", 2),
                                            ("expeditions", 1)])
@pytest.mark.parametrize("margin", [0.0, 1.0])
def test_learned_plays_legal_moves(preset, players, margin):
    r = rules(preset, players=players)
    p = learned_of(_noisy(), margin=margin)
    other = "random" if players > 1 else p
    b = runner.play(r, p, other, rounds=30, seed=3, first=-1, threads=1)
    assert (b.scores == b.side_suits[..., 2].sum(axis=2)).all()
    for rec in runner.play_records(r, p, other, [0, 29], seed=3, first=-1):
        assert replay_record(rec)["ok"]


def test_learneds_parameters_are_temp_margin_the_blueprint_then_the_weights():
    """... then the weights again, as solitaire's set (learned has none of its own)."""
    w = _noisy(1)
    p = learned_of(w, margin=2.5)
    assert N_BLUEPRINT == 1 + N_BLUEPRINT_WEIGHTS
    params = p.params
    assert params.shape == (OFF_W + 2 * N_WEIGHTS,)
    assert params[0] == 0.0 and params[1] == 2.5
    assert np.array_equal(params[2:OFF_W], resolve("blueprint").params)
    assert np.array_equal(params[2 + 1:OFF_W], load_weights())
    assert np.array_equal(params[OFF_W:OFF_W + N_WEIGHTS], w) and np.array_equal(params[OFF_W + N_WEIGHTS:], w)


def test_the_learned_line_never_resolves_expert(tmp_path, monkeypatch):
    """A generation of --line learned (teacher, fit, gate; no reference deals) resolves no policy whose
    name, or whose reference's name, is expert; its labels' reference flag marks the blueprint's move."""
    import sys

    import lostcards.policies.registry as registry
    from lostcards.training.loop import LoopSettings, iterate
    from lostcards.training.teacher import read_shards
    seen = []
    real = registry.resolve

    def spy(spec):
        p = real(spec)
        seen.append(p.name)
        ref = getattr(p, "reference", None)
        if ref is not None:
            seen.append(ref.name)
        return p
    for mod in list(sys.modules.values()):
        if getattr(mod, "__name__", "").startswith("lostcards") and getattr(mod, "resolve", None) is real:
            monkeypatch.setattr(mod, "resolve", spy)
    st = LoopSettings(generations=1, line="learned", rules="expeditions/2,expeditions/4", rounds=2, other_rounds=1,
                      shard=1, k=4, epochs=1, gate=100, reference=0, loss="gain", margin=1.0)
    state = iterate(st, tmp_path / "run", command="test", say=lambda m: None)
    assert len(state["rows"]) == 1 and seen
    assert "expert" not in seen, seen
    assert "blueprint" in seen
    g, c = read_shards(tmp_path / "run" / "teacher-001")
    actions = c[c["group"].isin(g.loc[g["stage"] == 0, "group"])]
    flag = f"c{C_DIM - 1}"
    # the base is the blueprint, deciding on the same stream: its move, candidate 0, is the flagged one
    assert (actions.groupby("group")[flag].sum() == 1).all()
    assert (actions.groupby("group")[flag].first() == 1).all()


def test_a_bad_line_is_refused_before_the_folder(tmp_path):
    from lostcards.errors import LostcardsError
    from lostcards.training.loop import LoopSettings, iterate
    with pytest.raises(LostcardsError, match="--line 'nope' is not allowed"):
        iterate(LoopSettings(line="nope"), tmp_path / "run", say=lambda m: None)
    assert not (tmp_path / "run").exists()


def test_weights_fitted_beside_another_reference_are_refused(tmp_path):
    """A weights file records its reference's digest; played beside another reference it is an error."""
    from lostcards.errors import PolicyError
    from lostcards.policies.learned import net_of, policy_of
    from lostcards.policies.network import reference_digest, write_weights
    bp = resolve("blueprint")
    ok, bad = tmp_path / "ok.npz", tmp_path / "bad.npz"
    write_weights(ok, _noisy(), {"reference_digest": reference_digest(bp.params)})
    write_weights(bad, _noisy(), {"reference_digest": reference_digest(np.zeros(3))})
    assert net_of(bp, source=ok).params.shape == (OFF_W + 2 * N_WEIGHTS,)
    with pytest.raises(PolicyError, match="fitted beside another blueprint"):
        net_of(bp, source=bad).params
    other = policy_of(load_weights() + 1.0)
    with pytest.raises(PolicyError, match="fitted beside another blueprint"):
        net_of(other, source=ok).params


def test_a_run_refuses_init_weights_of_another_line(tmp_path):
    from lostcards.errors import LostcardsError
    from lostcards.policies.network import reference_digest, write_weights
    from lostcards.training.loop import LoopSettings, iterate
    f = tmp_path / "student-like.npz"
    write_weights(f, _noisy(), {"reference_digest": reference_digest(resolve("expert").params)})
    with pytest.raises(LostcardsError, match="fitted beside another reference policy, not --line learned's blueprint"):
        iterate(LoopSettings(line="learned", init=str(f)), tmp_path / "run", say=lambda m: None)
    assert not (tmp_path / "run").exists()
