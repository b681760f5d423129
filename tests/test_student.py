"""The student: legal in every table, reproducible, weights read by name and refused when damaged;
the teacher's labels consistent; a tiny expert-iteration run end to end."""
from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest

from lostcards.engine import core
from lostcards.engine.intrinsics import alive, offset, ptr
from lostcards.engine.layout import MEM_WORDS, STATE_WORDS
from lostcards.errors import LostcardsError, PolicyError
from lostcards.numba_cache import jit
from lostcards.policies import resolve
from lostcards.policies import student as student_pkg
from lostcards.policies.expert import expert_policy
from lostcards.policies.student import N_WEIGHTS, load_weights, read_weights, student_of, weights_path, write_weights
from lostcards.policies.student.net import student_policy
from lostcards.rules.ruleset import rules
from lostcards.run import runner
from lostcards.training.fit import initial

TABLES = [("expeditions", 2), ("expeditions", 4), ("lost-cities", 2), ("lost-cities", 4), ("expeditions", 1)]


def _noisy():
    """Weights that do not simply copy expert: the expert prior plus noise."""
    return initial(3) + np.random.default_rng(7).normal(0, 0.3, N_WEIGHTS)


@pytest.mark.parametrize("preset,players", TABLES)
def test_every_move_is_legal_in_every_table(preset, players):
    r = rules(preset, players=players)
    for w, temp in ((_noisy(), 0.0), (_noisy(), 1.0), (np.zeros(N_WEIGHTS), 0.0)):
        b = runner.play(r, student_of(w, temp=temp), "expert", rounds=60, seed=11, first=-1)
        assert (b.round_info[:, 2] >= 0).all()
        b = runner.play(r, "expert", student_of(w, temp=temp), rounds=60, seed=12, first=-1)
        assert (b.round_info[:, 2] >= 0).all()


def test_the_shipped_student_plays_and_improve_takes_it_as_its_base():
    r = rules("expeditions")
    b = runner.play(r, "student", "expert", rounds=50, seed=3, first=-1)
    assert (b.round_info[:, 2] >= 0).all()
    imp = resolve("improve:base=student,k=4")
    assert imp.base.name == "student" and "base=student" in imp.spec
    b = runner.play(r, imp, "expert", rounds=2, seed=3, first=-1)
    assert (b.round_info[:, 2] >= 0).all()


def test_same_seed_same_rounds_and_temp_changes_play():
    r = rules("expeditions")
    w = _noisy()
    a = runner.play(r, student_of(w), "expert", rounds=100, seed=5).scores
    b = runner.play(r, student_of(w), "expert", rounds=100, seed=5).scores
    assert np.array_equal(a, b)
    c = runner.play(r, student_of(w, temp=2.0), "expert", rounds=100, seed=5).scores
    assert not np.array_equal(a, c)


def test_weights_are_read_by_name(tmp_path, monkeypatch):
    monkeypatch.setattr(student_pkg, "WEIGHTS_DIR", tmp_path)
    w = _noisy()
    write_weights(weights_path("mine"), w, {"command": "lostcards iterate --test"})
    assert np.array_equal(load_weights("mine"), w)
    assert read_weights(tmp_path / "mine.npz")[1]["command"] == "lostcards iterate --test"
    assert np.array_equal(student_of(source="mine").params[-N_WEIGHTS:], w)


def _suits_tied(w) -> bool:
    """Whether the trunk's weights of every suit's block are the same (a suit-blind network)."""
    from lostcards.policies.network.features import NS, SUIT_DIM
    from lostcards.training.fit import split
    ws = split(np.asarray(w, np.float64))["Ws"][:NS * SUIT_DIM].reshape(NS, SUIT_DIM, -1)
    return bool(np.all(ws == ws[:1]))


def test_the_shipped_network_is_suit_blind_by_construction():
    """Its trunk weighs every suit's block alike (``fit.tie_suits``); untied weights are not."""
    assert _suits_tied(load_weights("student"))
    assert not _suits_tied(_noisy())


def test_shipped_weights_carry_the_command_that_made_them():
    w, meta = read_weights(weights_path("student"))
    assert w.shape == (N_WEIGHTS,) and meta["command"].startswith("lostcards iterate")
    # the registered student plays them at the margin they were fitted, gated and measured at
    assert "--loss gain" in meta["command"] and meta["settings"]["margin"] == student_pkg.SHIPPED_MARGIN
    assert resolve("student").values == (0.0, student_pkg.SHIPPED_MARGIN)
    assert resolve("student:margin=0").values == (0.0, 0.0)


@pytest.mark.parametrize("damage", ["missing", "garbage", "short", "nan", "format"])
def test_missing_or_corrupt_weights_are_refused(tmp_path, monkeypatch, damage):
    monkeypatch.setattr(student_pkg, "WEIGHTS_DIR", tmp_path)
    path = weights_path("bad")
    if damage == "garbage":
        path.write_bytes(b"not a weights file")
    elif damage == "short":
        np.savez(path, weights=np.zeros(10), meta=np.array(json.dumps({"format": student_pkg.FORMAT})))
    elif damage == "nan":
        np.savez(path, weights=np.full(N_WEIGHTS, np.nan), meta=np.array(json.dumps({"format": student_pkg.FORMAT})))
    elif damage == "format":
        np.savez(path, weights=np.zeros(N_WEIGHTS), meta=np.array(json.dumps({"format": "other/1"})))
    with pytest.raises(PolicyError, match="bad.npz"):
        load_weights("bad")
    with pytest.raises(PolicyError, match="bad.npz"):
        student_of(source="bad").params


def test_solitaire_plays_the_second_set_and_the_other_tables_the_first():
    """A network policy carries two sets of weights: the tables with other seats play the first, solitaire
    the second (the first's copy where none is given)."""
    from lostcards.policies.network import NetworkPolicy
    a, b = _noisy(), initial(3) + np.random.default_rng(8).normal(0, 0.3, N_WEIGHTS)
    plain_a = student_of(a, name="sa")
    both = dataclasses.replace(plain_a, name="sab", solo_weights=tuple(map(float, b)))
    plain_b = student_of(b, name="sb")
    assert both.params.size == plain_a.params.size and np.array_equal(plain_a.params[-N_WEIGHTS:], a)
    for preset, players in (("expeditions", 2), ("expeditions", 4), ("lost-cities", 2)):
        r = rules(preset, players=players)
        g1 = runner.play(r, both, "expert", rounds=30, seed=5, threads=1)
        g2 = runner.play(r, plain_a, "expert", rounds=30, seed=5, threads=1)
        assert np.array_equal(g1.scores, g2.scores) and np.array_equal(g1.round_info, g2.round_info)
    r = rules("expeditions", players=1)
    s_both = runner.play(r, both, both, rounds=60, seed=5, threads=1).scores
    assert np.array_equal(s_both, runner.play(r, plain_b, plain_b, rounds=60, seed=5, threads=1).scores)
    assert not np.array_equal(s_both, runner.play(r, plain_a, plain_a, rounds=60, seed=5, threads=1).scores)
    assert isinstance(resolve("student"), NetworkPolicy) and resolve("student").solo_source.endswith(
        "student-solitaire.npz")


def test_the_shipped_solitaire_weights_carry_their_command_and_a_missing_file_is_refused(tmp_path, monkeypatch):
    w, meta = read_weights(weights_path("student-solitaire"))
    assert "--rules expeditions/1" in meta["command"] and meta["settings"]["margin"] == student_pkg.SHIPPED_MARGIN
    assert _suits_tied(w)
    monkeypatch.setattr(student_pkg, "WEIGHTS_DIR", tmp_path)
    write_weights(weights_path("student"), w, meta)
    with pytest.raises(PolicyError, match="student-solitaire.npz are missing"):
        student_of(solo_source="student-solitaire").params


def test_given_weights_still_play_the_named_solitaire_set(tmp_path, monkeypatch):
    """student_of(weights, solo_source=...): the given weights at the tables with other seats, the named
    file in solitaire (it was once ignored when weights were given)."""
    a, b = _noisy(), initial(3) + np.random.default_rng(9).normal(0, 0.3, N_WEIGHTS)
    monkeypatch.setattr(student_pkg, "WEIGHTS_DIR", tmp_path)
    write_weights(weights_path("solo-b"), b, {"command": "lostcards iterate --test"})
    both = student_of(a, name="sa", solo_source="solo-b")
    assert np.array_equal(both.params[-2 * N_WEIGHTS:-N_WEIGHTS], a) and np.array_equal(both.params[-N_WEIGHTS:], b)
    assert np.array_equal(student_of(a, name="sa").params[-N_WEIGHTS:], a)
    with pytest.raises(PolicyError, match="missing"):
        student_of(a, name="sa", solo_source="absent").params


def test_a_bad_weights_name_is_refused():
    with pytest.raises(PolicyError, match="not allowed"):
        weights_path("../etc/passwd")


@pytest.mark.parametrize("preset,players", [("expeditions", 2), ("expeditions", 4), ("lost-cities", 2),
                                            ("expeditions", 1)])
def test_the_teachers_labels_are_consistent(preset, players):
    from lostcards.engine.moves import move_card, move_draw, move_to
    from lostcards.training.teacher import TeacherSettings, label_rounds
    r = rules(preset, players=players)
    st = TeacherSettings(k=6, explore=0.3, reference="expert")
    g, c = label_rounds(r, "expert", 9, 0, 2, st)
    assert len(g) > 20 and g["n"].sum() == len(c)
    first = c.groupby("group", sort=True).head(1).set_index("group")
    assert (first["gain"] == 0).all()                         # the base's move: gain 0
    assert (c["se"] > 0).all() and np.isfinite(c["gain"]).all()
    assert ((g["played"] >= 0) & (g["played"] < g["n"])).all()
    by = {k: v for k, v in c.groupby("group")}
    for _, row in g.iterrows():
        moves = by[row["group"]]["move"].to_numpy()
        assert len(set(moves.tolist())) == len(moves)         # each candidate once
        if row["stage"] == 1:                                 # draws: one action, different draws
            assert len({(move_card(m), move_to(m)) for m in moves}) == 1
            assert len({move_draw(m) for m in moves}) == len(moves)
    if players == 1:
        assert (g["stage"] == 0).all()
    # the same labels again (reproducible from the seed), and other ones from another seed
    g2, c2 = label_rounds(r, "expert", 9, 0, 2, st)
    assert g.equals(g2) and c.equals(c2)
    g3, _ = label_rounds(r, "expert", 10, 0, 2, st)
    assert not g3[["round", "turn"]].equals(g[["round", "turn"]]) or not g3.equals(g)


@pytest.mark.slow      # worker processes, a package copy or a long play: make test-slow
def test_the_teacher_plays_legal_moves_only():
    """label_rounds raises on an illegal move of the teacher; every played move is among its candidates."""
    from lostcards.training.teacher import TeacherSettings, label_rounds
    r = rules("lost-cities", players=4)
    g, c = label_rounds(r, student_of(_noisy()), 4, 0, 1, TeacherSettings(k=4, explore=1.0, reference="expert"))
    assert g["explored"].any()


def test_a_tiny_run_end_to_end(tmp_path):
    from lostcards.training.loop import LoopSettings, iterate, ship
    st = LoopSettings(generations=1, rounds=2, shard=1, k=4, epochs=2, gate=100, reference=50, workers=1)
    state = iterate(st, tmp_path / "run", command="test", say=lambda m: None)
    assert len(state["rows"]) == 1
    assert (tmp_path / "run" / "curve.csv").read_text().count("\n") == 2
    assert (tmp_path / "run" / "curve.png").stat().st_size > 0
    w, meta = read_weights(tmp_path / "run" / "gen-001.npz")
    assert meta["generation"] == 1 and meta["fit"]["groups"] > 0
    again = iterate(st, tmp_path / "run", command="test", say=lambda m: None)          # resumes: nothing to do
    assert again["rows"] == state["rows"]
    with pytest.raises(LostcardsError, match="another iterate run"):
        iterate(LoopSettings(generations=1, rounds=3, shard=1, k=4), tmp_path / "run", say=lambda m: None)
    if state["champion"] == "expert":
        with pytest.raises(LostcardsError, match="nothing to ship"):
            ship(tmp_path / "run", tmp_path / "s.npz")
    else:
        assert np.array_equal(read_weights(ship(tmp_path / "run", tmp_path / "s.npz"))[0],
                              read_weights(tmp_path / "run" / state["champion"])[0])
    shipped, meta = read_weights(ship(tmp_path / "run", tmp_path / "g1.npz", "cmd", generation=1))
    assert np.array_equal(shipped, w) and meta["gate"]["generation"] == 1 and meta["ship_command"] == "cmd"
    with pytest.raises(LostcardsError, match="has not run"):
        ship(tmp_path / "run", tmp_path / "g2.npz", generation=2)


def test_a_gain_fitted_gated_run_over_two_tables(tmp_path):
    """--loss gain --margin M over two tables: each table's shards in its folder, the fit on both,
    the gate and the reference played by students gated at M, the margin kept with the weights."""
    from lostcards.training.loop import LoopSettings, iterate
    from lostcards.training.teacher import read_shards
    st = LoopSettings(generations=1, rules="expeditions/2,lost-cities/2", rounds=2, other_rounds=1, shard=1, k=4,
                      epochs=2, gate=100, reference=50, loss="gain", margin=1.5)
    state = iterate(st, tmp_path / "run", command="test", say=lambda m: None)
    run = tmp_path / "run"
    g1, _ = read_shards(run / "teacher-001")
    g2, _ = read_shards(run / "teacher-001-lost-cities-2")
    assert g1["round"].nunique() == 2 and g2["round"].nunique() == 1
    w, meta = read_weights(run / "gen-001.npz")
    assert meta["fit"]["groups"] == len(g1) + len(g2) and meta["fit"]["settings"]["loss"] == "gain"
    assert meta["settings"]["margin"] == 1.5 and state["rows"][0]["teacher_rounds"] == 3
    with pytest.raises(LostcardsError, match="another iterate run"):
        iterate(LoopSettings(generations=1, rules="expeditions/2,lost-cities/2", rounds=2, other_rounds=1, shard=1,
                             k=4, epochs=2, gate=100, reference=50, loss="gain", margin=2.0), run, say=lambda m: None)
    with pytest.raises(LostcardsError, match="--loss 'hinge' is not allowed"):
        iterate(LoopSettings(loss="hinge"), tmp_path / "c", say=lambda m: None)


def test_the_gain_fit_learns_the_gains_and_its_offline_guide_is_honest():
    """gain_loss_grad's gradient matches finite differences; on labels where one challenger kind is worth
    +3 points and the rest -3, a fit scores that kind above the base's move and the gated choice's
    held-out gain is near +3 where it switches."""
    import pandas as pd

    from lostcards.policies.student import C_DIM, S_DIM
    from lostcards.training.fit import Data, FitSettings, fit, gain_loss_grad, held_out_gains
    rng = np.random.default_rng(0)
    G, n = 400, 4
    groups = pd.DataFrame({"group": np.arange(G), "n": n, **{f"s{i}": rng.normal(size=G) for i in range(S_DIM)}})
    C = rng.normal(size=(G * n, C_DIM))
    good = rng.random(G * n) < 0.3
    C[:, 0] = good
    C[:, C_DIM - 1] = 0.0
    C[::n, C_DIM - 1] = 1.0                    # the first candidate of each group: the base's move
    good[::n] = False
    gain = np.where(good, 3.0, -3.0) + rng.normal(0, 1, G * n)
    gain[::n] = 0.0
    cands = pd.DataFrame({"group": np.repeat(np.arange(G), n), "gain": gain, "se": 1.0,
                          **{f"c{i}": C[:, i] for i in range(C_DIM)}})
    data = Data(groups, cands)
    w = initial(1) + rng.normal(0, 0.05, N_WEIGHTS)
    idx = np.arange(50)
    _, g, _ = gain_loss_grad(w, data, idx, dtype=np.float64)
    for j in rng.choice(N_WEIGHTS, 12, replace=False):
        e = np.zeros(N_WEIGHTS)
        e[j] = 1e-5
        num = (gain_loss_grad(w + e, data, idx, dtype=np.float64)[0]
               - gain_loss_grad(w - e, data, idx, dtype=np.float64)[0]) / 2e-5
        assert num == pytest.approx(g[j], rel=1e-3, abs=1e-6)
    st = FitSettings(epochs=30, batch=64, lr=0.01, loss="gain", holdout=0.25)
    wf, rep = fit(groups, cands, settings=st, say=lambda m: None)
    assert _suits_tied(wf)
    res = held_out_gains(wf, groups, cands, [1.0], st)
    mean, se, switched = res[1.0]
    has_good = np.add.reduceat(good.astype(int), np.arange(0, G * n, n)) > 0
    assert 0.5 * has_good.mean() < switched <= 1.0 and mean > 2.0 * switched
    with pytest.raises(ValueError, match="fit loss 'l1' is not allowed"):
        fit(groups, cands, settings=FitSettings(loss="l1"), say=lambda m: None)


def test_a_solitaire_run_gates_on_points_of_the_same_deals(tmp_path):
    """Solitaire has no other side: the gate and the reference are the new network's points less the
    champion's (expert's) on the same deals, as ``measure.margins`` gives them."""
    from lostcards.training.loop import LoopSettings, iterate
    from lostcards.training.measure import margins, solo_points
    r = rules("expeditions", players=1)
    d = margins(r, "greedy", "expert", 20, 3)
    assert np.array_equal(d, solo_points(r, "greedy", 20, 3) - solo_points(r, "expert", 20, 3))
    assert np.array_equal(margins(r, "expert", "expert", 20, 3), np.zeros(20))
    st = LoopSettings(generations=1, rules="expeditions/1", rounds=2, shard=1, k=4, epochs=1, gate=30, reference=20,
                      loss="gain", margin=1.0)
    state = iterate(st, tmp_path / "run", command="test", say=lambda m: None)
    row = state["rows"][0]
    w, meta = read_weights(tmp_path / "run" / "gen-001.npz")
    cand = student_of(w, margin=1.0)
    assert row["vs_previous"] == pytest.approx(margins(r, cand, "expert", 30, st.seed * 1000 + 500 + 1).mean())
    assert row["vs_expert"] == pytest.approx(margins(r, cand, "expert", 20, st.seed * 1000 + 900 + 1).mean())
    assert meta["fit"]["groups"] > 0


def test_iterate_refuses_a_foreign_folder(tmp_path):
    from lostcards.training.loop import LoopSettings, iterate
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "x.txt").write_text("mine")
    with pytest.raises(LostcardsError, match="something else"):
        iterate(LoopSettings(), tmp_path / "b", say=lambda m: None)


def test_iterate_command_refuses_bad_input_in_one_line(tmp_path):
    from click.testing import CliRunner

    from lostcards.cli.app import main
    res = CliRunner().invoke(main, ["iterate", "--rules", "expeditions/3", "--out", str(tmp_path / "x")])
    assert res.exit_code == 1 and "expeditions/3" in res.output and "Traceback" not in res.output
    assert len(res.output.strip().splitlines()) == 1
    res = CliRunner().invoke(main, ["iterate", "--gate", "10", "--out", str(tmp_path / "y")])
    assert res.exit_code == 2 and "--gate" in res.output


@jit
def _agreement(rb, seed, rounds, spar, epar, mem_a, work):
    """Expert plays both seats of `rounds` rounds; at each decision the student (params `spar`) and
    expert (`epar`) decide from the same observation and a copy of the same seat memory.  Returns
    (decisions, decisions where they differ)."""
    st = ptr(work)
    mem = ptr(mem_a)
    m1 = offset(mem, 4 * MEM_WORDS)
    m2 = offset(mem, 5 * MEM_WORDS)
    core.load_rules(st, ptr(rb))
    n = 0
    diff = 0
    for rnd in range(rounds):
        for w in range(4 * MEM_WORDS):
            mem[w] = np.uint64(0)
        core.deal(st, mem, seed, rnd, 0, 0)
        while not core.ended(st):
            s = core.seat_to_move(st)
            own = offset(mem, s * MEM_WORDS)
            for w in range(MEM_WORDS):
                m1[w] = own[w]
                m2[w] = own[w]
            obs = core.observe(st, s)
            a = student_policy(obs, ptr(spar), m1)
            b = expert_policy(obs, ptr(epar), m2)
            n += 1
            diff += a != b
            core.apply(st, expert_policy(obs, ptr(epar), own))
    alive(mem_a)
    alive(work)
    alive(spar)
    alive(epar)
    return n, diff


def test_a_gated_student_keeps_experts_move_below_its_margin():
    """margin > 0: expert's move stays unless another move's score beats it by more than the margin;
    weights that score every other move 5 points above expert's then switch at margin 1, not at 6."""
    from lostcards.policies.expert import EXPERT
    from lostcards.training.fit import split
    rb = core.rules_block(rules("expeditions"))
    w = np.zeros(N_WEIGHTS)
    split(w)["v"][-1] = -5.0                  # the expert flag: 5 points below every other move
    epar = np.asarray(EXPERT.params, np.float64)
    mem = np.zeros(6 * MEM_WORDS, np.uint64)
    work = np.zeros(STATE_WORDS, np.int64)
    for margin, switched in ((6.0, False), (1.0, True), (0.0, True)):
        spar = np.asarray(student_of(w, margin=margin).params, np.float64)
        n, diff = _agreement(rb, 3, 20, spar, epar, mem, work)
        assert n > 500
        assert (diff > n // 2) if switched else diff == 0, (margin, n, diff)
    noisy = np.asarray(student_of(_noisy(), margin=100.0).params, np.float64)
    assert _agreement(rb, 4, 20, noisy, epar, mem, work)[1] == 0


def test_a_run_started_from_a_students_weights(tmp_path):
    """--init: generation 0's champion is a weights file, copied into the run, its teacher improve
    around it; the file is part of the run's identity (by its weights, not its path)."""
    from lostcards.training.loop import INIT, LoopSettings, iterate, ship
    w0 = initial(3)
    write_weights(tmp_path / "w0.npz", w0, {"settings": {"margin": 0.5}})
    st = LoopSettings(generations=1, rounds=2, shard=1, k=4, epochs=1, gate=100, reference=0, loss="gain",
                      margin=0.5, init=str(tmp_path / "w0.npz"))
    lines = []
    state = iterate(st, tmp_path / "run", command="test", say=lines.append)
    assert np.array_equal(read_weights(tmp_path / "run" / INIT)[0], w0)
    assert any(f"improve(base={INIT})" in m for m in lines)
    assert state["identity"]["init"] and len(state["rows"]) == 1
    if state["champion"] == INIT:
        with pytest.raises(LostcardsError, match="nothing to ship"):
            ship(tmp_path / "run", tmp_path / "s.npz")
    write_weights(tmp_path / "w1.npz", initial(4), {"settings": {"margin": 0.5}})
    with pytest.raises(LostcardsError, match="another iterate run"):
        iterate(LoopSettings(**{**st.__dict__, "init": str(tmp_path / "w1.npz")}), tmp_path / "run",
                say=lambda m: None)
    (tmp_path / "bad.npz").write_bytes(b"not a weights file")
    with pytest.raises(PolicyError, match="corrupt or foreign"):
        iterate(LoopSettings(init=str(tmp_path / "bad.npz")), tmp_path / "other", say=lambda m: None)
    assert not (tmp_path / "other").exists()


def _labels_digest(g, c):
    import pandas as pd
    return (pd.util.hash_pandas_object(g).values.tobytes(), pd.util.hash_pandas_object(c).values.tobytes())


def test_the_teachers_play_outs_take_improves_others_depth_and_luck():
    """others/depth/luck reach the teacher's play-outs: the base as `others` (any depth, no luck) is the
    default teacher; in solitaire (no other side) a depth past the round's end is too; each of
    another `others`, a short depth, and the luck changes the labels; the base's move keeps gain 0."""
    from lostcards.training.teacher import TeacherSettings, label_rounds
    two, one = rules("expeditions", players=2), rules("expeditions", players=1)

    def lab(r, **kw):
        return label_rounds(r, "expert", 11, 0, 1, TeacherSettings(k=6, explore=0.2, reference="expert", **kw))

    plain2, plain1 = _labels_digest(*lab(two)), _labels_digest(*lab(one))
    assert _labels_digest(*lab(two, others="expert", depth=3)) == plain2
    assert _labels_digest(*lab(one, others="greedy", depth=200)) == plain1
    assert _labels_digest(*lab(one, others="greedy", depth=2)) != plain1
    assert _labels_digest(*lab(two, others="greedy")) != plain2
    g, c = lab(two, luck=1.0)
    assert _labels_digest(g, c) != plain2
    first = c.groupby("group", sort=True).head(1)
    assert (first["gain"] == 0).all() and (c["se"] > 0).all() and np.isfinite(c["gain"]).all()


@pytest.mark.parametrize("kw,msg", [({"depth": -1}, "teacher depth=-1 is not allowed"),
                                    ({"luck": 5.0}, "teacher luck=5.0 is not allowed")])
def test_bad_teacher_play_out_settings_are_refused(kw, msg):
    from lostcards.training.teacher import TeacherSettings
    with pytest.raises(LostcardsError, match=msg):
        TeacherSettings(reference="expert", **kw).check()


def test_iterate_refuses_a_bad_others_in_one_line(tmp_path):
    from click.testing import CliRunner

    from lostcards.cli.app import main
    res = CliRunner().invoke(main, ["iterate", "--others", "nobody", "--out", str(tmp_path / "x")])
    assert res.exit_code == 1 and "nobody" in res.output and "Traceback" not in res.output
    assert not (tmp_path / "x").exists()
    res = CliRunner().invoke(main, ["iterate", "--line", "learned", "--others", "expert", "--out",
                                    str(tmp_path / "y")])
    assert res.exit_code == 1 and "not allowed with --line learned" in res.output
    res = CliRunner().invoke(main, ["iterate", "--depth", "-2", "--out", str(tmp_path / "z")])
    assert res.exit_code == 2 and "--depth" in res.output
