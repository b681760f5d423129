"""Issue 29: the newer surfaces refuse bad input in one line and lose nothing: the ladder, train (its weights
files, its state, its folder), analyze's figure, a batch's records, and the API's constructors."""
from __future__ import annotations

import json
import math

import numpy as np
import pytest
from safety_tools import cli, lines, one_line, snapshot

from lostcards.errors import LostcardsError

# ---- the ladder -------------------------------------------------------------------------------------------

@pytest.mark.parametrize("args, status, words", [
    (["--deals", "0"], 2, ["--deals", "0 is not allowed", "2..10,000,000"]),
    (["--deals", "1"], 2, ["--deals", "1 is not allowed"]),
    (["--deals", "-1"], 2, ["--deals"]),
    (["--solitaire-deals", "0", "--tables", "solitaire"], 2, ["--solitaire-deals"]),
    (["--seed", "-1"], 2, ["--seed"]),
    (["--start", "-5"], 2, ["--start"]),
    (["--tables", "nope"], 1, ["--tables 'nope' is not a table", "2p, 4p, lost-cities, solitaire"]),
    (["--tables", ""], 1, ["--tables '' has an empty entry"]),
    (["--tables", "2p,2p"], 1, ["--tables names '2p' twice"]),
    (["--bots", "nosuch"], 1, ["unknown policy 'nosuch'"]),
    (["--bots", ""], 1, ["--bots '' has an empty entry"]),
    (["--bots", "greedy,"], 1, ["--bots 'greedy,' has an empty entry"]),
    (["--bots", "improve:k=-1"], 1, ["improve:k=-1 is not allowed"]),
    (["--bots", "greedy,greedy"], 1, ["--bots names 'greedy' twice"]),
    (["--bots", "expert", "--tables", "2p"], 1, ["nothing to play"]),
])
def test_the_ladder_refuses_in_one_line(args, status, words):
    one_line(cli("ladder", *args), status, *words)


def test_the_ladder_plays_its_rows_as_the_blocks_add_up():
    """Rows of a few deals: one per bot and table (expert only in solitaire), the margin that play_pair gives
    on the same deals, whatever the blocks the progress is counted in."""
    import lostcards.analysis.ladder as ladder
    from lostcards.analysis.tournament import play_pair
    from lostcards.rules.ruleset import rules
    code, out, err = cli("ladder", "--bots", "greedy,expert", "--tables", "2p,solitaire", "--deals", 5,
                         "--solitaire-deals", 3, "--seed", 9)
    assert code == 0, err
    rows = [ln for ln in out.splitlines() if ln.startswith("| ") and "---" not in ln][1:]
    assert [r.split("|")[1:3] for r in rows] == [[" greedy ", " 2p "], [" greedy ", " solitaire "],
                                                 [" expert ", " solitaire "]]
    m = play_pair(rules("expeditions", players=2), "greedy", "expert", rounds=5, seed=9, threads=1)["margin"]
    assert f" {m.mean():+.1f} " in rows[0]
    old = ladder.BLOCK
    try:
        ladder.BLOCK = 2
        from lostcards.policies import resolve
        row = ladder.margin_row("2p", resolve("greedy"), 5, 9)
    finally:
        ladder.BLOCK = old
    assert row["n"] == 5 and math.isclose(row["value"], m.mean()) and row["lo"] < row["value"] < row["hi"]
    assert "ladder: greedy on 2p (5 deals)" in err


# ---- the API validates as the command line does --------------------------------------------------------------

@pytest.mark.parametrize("call, words", [
    (lambda imp, po, w: imp("expert", k=-1), "k=-1 is not allowed: an integer in 0..512"),
    (lambda imp, po, w: imp("expert", k=10**6), "k=1000000 is not allowed"),
    (lambda imp, po, w: imp("expert", k=2.5), "k=2.5 is not allowed"),
    (lambda imp, po, w: imp("expert", z=float("nan")), "z=nan is not allowed"),
    (lambda imp, po, w: imp("expert", z=-1.0), "z=-1 is not allowed"),
    (lambda imp, po, w: imp("nosuch"), "unknown policy 'nosuch'"),
    (lambda imp, po, w: po(w[:29]), "30 weights"),
    (lambda imp, po, w: po(np.append(w, 1.0)), "got 31 numbers"),
    (lambda imp, po, w: po(np.where(np.arange(30) == 3, np.nan, w)), "is nan: finite numbers only"),
    (lambda imp, po, w: po("abc"), "30 finite numbers"),
    (lambda imp, po, w: po(w, temp=-1), "temp=-1 is not allowed: a number in 0..100"),
    (lambda imp, po, w: po(w, temp=float("inf")), "temp=inf is not allowed"),
])
def test_the_constructors_refuse_what_the_specs_refuse(call, words):
    from lostcards.policies.improve import improved
    from lostcards.policies.learned import load_weights, policy_of
    with pytest.raises(LostcardsError) as e:
        call(improved, policy_of, load_weights())
    assert words in str(e.value) and "\n" not in str(e.value)


def test_a_policy_built_in_code_takes_only_allowed_values():
    from lostcards.errors import PolicyError
    from lostcards.policies import Float, Int, Policy, Switch, resolve
    params = {"a": Int(1, 0, 5), "b": Float(0.5, 0, 1), "c": Switch("on")}
    assert Policy("mine", None, params, (2.0, 0.25, 0.0)).spec == "mine:a=2,b=0.25,c=off"
    for values, words in [((9.0, 0.5, 1.0), "mine:a=9 is not allowed"), ((1.0, math.nan, 1.0), "mine:b=nan"),
                          ((1.0, 0.5, 3.0), "mine:c=3"), ((1.0, 0.5), "given 2 values"),
                          ((True, 0.5, 1.0), "mine:a=True")]:
        with pytest.raises(PolicyError, match=words):
            Policy("mine", None, params, values)
    assert resolve("improve:k=64").spec == "improve:k=64"       # the registered ones still build


# ---- train: its weights files, its state, its folder -------------------------------------------------------

SMALL = ["--generations", "1", "--pairs", "1", "--deals", "10", "--gate", "4000", "--pool", "1"]


def _weights_doc() -> dict:
    from lostcards.policies.learned import WEIGHTS_FILE
    return json.loads(WEIGHTS_FILE.read_text())


@pytest.mark.parametrize("content, words", [
    (bytes(range(256)) * 2, "is not a weights file: not JSON"),
    (b"{}", 'no "weights" in it'),
    ({"weights": list(range(29))}, "30 weights (one a feature of blueprint.FEATURES), got 29 numbers"),
    ("nan", "is nan: finite numbers only"),
    ({"weights": {}}, 'its "weights" lacks'),
    ("jsonl", "not JSON (Extra data, line 2)"),
    ({"weights": "abc"}, 'its "weights" are not 30 numbers'),
])
def test_train_init_refuses_a_bad_weights_file_in_one_line(tmp_path, content, words):
    f = tmp_path / "w.json"
    doc = _weights_doc()
    if content == "nan":
        doc["weights"][next(iter(doc["weights"]))] = float("nan")
        content = json.dumps(doc).encode()
    elif content == "jsonl":
        content = (json.dumps(doc) + "\n" + json.dumps(doc) + "\n").encode()
    elif isinstance(content, dict):
        content = json.dumps(content).encode()
    f.write_bytes(content)
    one_line(cli("train", *SMALL, "--init", f, "--out", tmp_path / "run"), 1, words)
    assert not (tmp_path / "run").exists()


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """A finished two-generation run, to damage in copies."""
    out = tmp_path_factory.mktemp("train") / "run"
    code, _, err = cli("train", *SMALL[2:], "--generations", "2", "--out", out)
    assert code == 0, err
    return out


def _copy(src, dst):
    import shutil
    shutil.copytree(src, dst)
    (dst / ".lock").unlink(missing_ok=True)
    return dst


def _state(d):
    return json.loads((d / "state.json").read_text())


@pytest.mark.parametrize("damage, words", [
    (lambda s: bytes(range(256)), "state.json is damaged (not JSON text)"),
    (lambda s: b"", "state.json is damaged (not JSON text)"),
    (lambda s: s[:len(s) // 2], "state.json is damaged (not JSON text)"),
    (lambda s: b"[]", "state.json is damaged (a JSON list, not an object)"),
    (lambda s: json.dumps({"settings": json.loads(s)["settings"]}).encode(), "damaged (no generation, mu"),
    (lambda s: json.dumps({**json.loads(s), "mu": [1, 2, 3, 4, 5]}).encode(), "damaged (mu: 30 finite numbers)"),
    (lambda s: json.dumps({**json.loads(s), "mu": [float("nan")] + json.loads(s)["mu"][1:]}).encode(),
     "damaged (mu: 30 finite numbers)"),
    (lambda s: json.dumps({**json.loads(s), "generation": 7}).encode(), "damaged (curve: 7 rows"),
])
def test_a_damaged_state_is_refused_in_one_line_and_nothing_written(trained, tmp_path, damage, words):
    d = _copy(trained, tmp_path / "run")
    p = d / "state.json"
    p.write_bytes(damage(p.read_bytes()))
    before = snapshot(d)
    one_line(cli("train", *SMALL[2:], "--generations", "3", "--out", d), 1, words)
    assert snapshot(d) == before


def test_a_deleted_curve_comes_back_whole_from_the_state(trained, tmp_path):
    d = _copy(trained, tmp_path / "run")
    curve = (d / "curve.csv").read_text()
    (d / "curve.csv").unlink()
    code, _, err = cli("train", *SMALL[2:], "--generations", "2", "--out", d)
    assert code == 0 and "all 2 generations are done" in err, err
    assert (d / "curve.csv").read_text() == curve and curve.startswith("generation,accepted,")


def test_a_kill_between_a_generation_and_its_state_resumes_to_the_same_weights(trained, tmp_path):
    """A run stopped after generation 1 (its state, curve and weights as they were then) and a generation-2
    file written before the kill: resumed, it ends where the uninterrupted run ended, one curve row a
    generation."""
    d = _copy(trained, tmp_path / "run")
    s = _state(d)
    code, _, err = cli("train", *SMALL, "--out", tmp_path / "one")        # the state after generation 1
    assert code == 0, err
    (d / "state.json").write_text((tmp_path / "one" / "state.json").read_text())
    (d / "curve.csv").write_text((tmp_path / "one" / "curve.csv").read_text())
    code, _, err = cli("train", *SMALL[2:], "--generations", "2", "--out", d)
    assert code == 0 and "resuming at generation 2" in err, err
    assert _state(d)["mu"] == s["mu"] and _state(d)["champion"] == s["champion"]
    gens = [ln.split(",")[0] for ln in (d / "curve.csv").read_text().splitlines()[1:]]
    assert gens == ["1", "2"]


def test_a_resume_past_its_generations_is_refused(trained, tmp_path):
    d = _copy(trained, tmp_path / "run")
    before = snapshot(d)
    one_line(cli("train", *SMALL, "--out", d), 1, "--generations 1:", "trained to generation 2 already")
    assert snapshot(d) == before


@pytest.mark.parametrize("make, words", [
    (lambda d: [(d / n).write_text("mine") for n in ("curve.csv", "weights.json", "notes.txt")],
     "is not empty and holds no lostcards output"),
    (lambda d: (d / "manifest.json").write_text(json.dumps({"kind": "tournament", "command": "x"})),
     "holds a tournament output"),
])
def test_train_claims_its_folder(tmp_path, make, words):
    d = tmp_path / "mine"
    d.mkdir()
    make(d)
    before = snapshot(d)
    one_line(cli("train", *SMALL, "--out", d), 1, words)
    assert snapshot(d) == before


def test_another_train_run_is_refused(trained, tmp_path):
    d = _copy(trained, tmp_path / "run")
    one_line(cli("train", *SMALL[2:], "--generations", "2", "--seed", "3", "--out", d), 1,
             "already holds a different train run (seed 0 there, 3 here)")


def test_train_refuses_a_ruleset_named_twice(tmp_path):
    for rules in ("expeditions/2,expeditions/2", "expeditions,expeditions/2"):
        one_line(cli("train", *SMALL, "--rules", rules, "--out", tmp_path / "x"), 1,
                 "--rules names expeditions/2 twice")
    assert not (tmp_path / "x").exists()


# ---- analyze's figure, a batch's records --------------------------------------------------------------------

def test_analyze_figure_over_a_file_another_program_wrote_is_refused(tmp_path):
    import lostcards
    rec = tmp_path / "r.json"
    rec.write_text(json.dumps(lostcards.play_records("expeditions", "random", "expert", round_indices=(1,),
                                                     seed=2)[0]))
    for name in ("mynotes.png", "mine.svgz", "x.jpg"):
        f = tmp_path / name
        f.write_bytes(b"not a figure of lostcards")
        one_line(cli("analyze", rec, "--samples", 2, "--figure", f), 1, "holds a file no lostcards run wrote")
        assert f.read_bytes() == b"not a figure of lostcards"
    ours = tmp_path / "m.svgz"
    for _ in range(2):                 # its own figure is replaced
        code, out, err = cli("analyze", rec, "--samples", 2, "--figure", ours)
        assert code == 0 and "final scores" in out, err


def test_analyze_says_scores_so_far_for_an_unfinished_round(tmp_path):
    import lostcards
    r = lostcards.play_records("expeditions", "random", "expert", round_indices=(1,), seed=2)[0]
    r["turns"] = r["turns"][:4]
    rec = tmp_path / "r.json"
    rec.write_text(json.dumps(r))
    code, out, err = cli("analyze", rec, "--samples", 2)
    assert code == 0 and "scores so far" in out and "final scores" not in out, out + err
    assert " play " in out or " discard " in out          # the moves in play's notation


def test_an_edited_records_file_is_refused_not_rewritten(tmp_path):
    out = tmp_path / "b"
    args = ["simulate", "--policies", "random,random", "--rounds", 300, "--seed", 4, "--records", 5,
            "--no-progress", "--out", out]
    assert cli(*args)[0] == 0
    rec = out / "records.jsonl"
    first = rec.read_bytes()
    mtime = rec.stat().st_mtime_ns
    assert cli(*args)[0] == 0 and rec.stat().st_mtime_ns == mtime       # the same records are left alone
    rec.write_bytes(first.replace(b'"turns"', b'"Turns"', 1))
    before = snapshot(out)
    code, o, e = cli(*args)
    assert code == 1 and "records.jsonl is not the file this batch wrote" in e, o + e
    assert len(lines("", e)) == 1 and snapshot(out) == before
    rec.unlink()
    assert cli(*args)[0] == 0 and rec.read_bytes() == first


def test_an_edited_csv_table_is_refused_not_rewritten(tmp_path):
    out = tmp_path / "b"
    args = ["simulate", "--policies", "random,random", "--rounds", 300, "--seed", 4, "--csv", "--no-progress",
            "--out", out]
    assert cli(*args)[0] == 0
    table = out / "rounds.csv"
    first, mtime = table.read_bytes(), table.stat().st_mtime_ns
    assert cli(*args)[0] == 0 and table.stat().st_mtime_ns == mtime        # the same table is left alone
    table.write_bytes(first + b"my own notes\n")
    before = snapshot(out)
    one_line(cli(*args), 1, "rounds.csv is not the file this batch wrote")
    assert snapshot(out) == before
    table.unlink()
    assert cli(*args)[0] == 0 and table.read_bytes() == first


def test_sweep_refuses_an_empty_depth_and_claims_a_claim_named_twice(tmp_path):
    one_line(cli("sweep", "--depth", "", "--out", tmp_path / "s"), 1, "--depth '' has an empty entry")
    one_line(cli("claims", "expedition-cost", "expedition-cost", "--out", tmp_path / "c"), 1,
             "claim expedition-cost is named twice")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.slow
def test_ctrl_c_in_a_mixed_round_while_a_numba_bot_thinks(tmp_path):
    """A plain-Python bot beside improve over search plays on the reference engine, the numba bot through the
    bridge: one long numba call a decision, on a thread of its own, so Ctrl-C stops the batch at once."""
    import subprocess
    import sys
    import time

    from safety_tools import default_sigint, env, interrupt

    from lostcards.policies import resolve
    from lostcards.run.bridge import prepare
    prepare([resolve("improve:base=search")])       # compiled here first: the child's decisions start at once
    p = subprocess.Popen([sys.executable, "-m", "lostcards", "simulate", "--policies",
                          "lostcards.policies.py_random:random_policy,improve:base=search", "--rounds", "4",
                          "--no-progress", "--out", str(tmp_path / "mix")], stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, env=env(), preexec_fn=default_sigint, cwd=tmp_path)
    time.sleep(15)
    assert p.poll() is None, p.stdout.read().decode()[-800:]
    rc = interrupt(p, "a mixed round while the numba bot thought")
    assert rc == 130, p.stdout.read().decode()[-800:]


@pytest.mark.slow      # a subprocess or a whole small run: make test-slow
@pytest.mark.parametrize("sig", ["SIGINT", "SIGKILL"])
def test_train_stopped_mid_run_resumes_to_the_uninterrupted_result(tmp_path, sig):
    """Ctrl-C or a kill during generation 2 of 4; the same command then ends where an uninterrupted run ends
    (the state, the weights, one curve row a generation)."""
    import signal
    import subprocess
    import sys
    import time

    from safety_tools import default_sigint, env
    args = [*SMALL[2:], "--generations", "4"]
    whole = tmp_path / "whole"
    assert cli("train", *args, "--out", whole)[0] == 0
    out = tmp_path / "cut"
    p = subprocess.Popen([sys.executable, "-m", "lostcards", "train", *args, "--out", str(out)],
                         stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, env=env(), preexec_fn=default_sigint)
    err = b""
    end = time.monotonic() + 300
    while b"generation 1/4" not in err and time.monotonic() < end and p.poll() is None:
        err += p.stderr.readline()
    assert b"generation 1/4" in err, err.decode()
    p.send_signal(getattr(signal, sig))
    rc = p.wait(timeout=60)
    assert rc in ((130, 0) if sig == "SIGINT" else (-9, 0)), (rc, p.stderr.read().decode())
    code, _, e = cli("train", *args, "--out", out)
    assert code == 0, e
    for name in ("state.json", "weights.json", "gen_004.json"):
        a, b = json.loads((whole / name).read_text()), json.loads((out / name).read_text())
        for k in ("mu", "champion", "adam_m", "adam_v", "weights", "generation", "champion_generation"):
            assert a.get(k) == b.get(k), (name, k)
    cut = [ln.split(",")[:6] for ln in (out / "curve.csv").read_text().splitlines()]
    assert cut == [ln.split(",")[:6] for ln in (whole / "curve.csv").read_text().splitlines()]
    assert len(cut) == 5


@pytest.mark.parametrize("args, words", [
    (["train", *SMALL, "--out", ""], "--out '' is not allowed"),
    (["train", *SMALL, "--reference", "expert,expert:invest=normal", "--out", "x"], "--reference names expert twice"),
    (["train", *SMALL, "--reference", "expert,", "--out", "x"], "--reference 'expert,' has an empty entry"),
    (["analyze", "r.json", "--search", ""], "--search '' is not allowed"),
    (["analyze", "r.json", "--figure", ""], "--figure '' is not allowed"),
    (["train", *SMALL, "--rules", "expeditions/2,", "--out", "x"], "--rules 'expeditions/2,' has an empty entry"),
    (["train", *SMALL, "--rules", "expeditions/", "--out", "x"], "the players '' must be 2 or 4"),
    (["train", *SMALL, "--rules", "expeditions/x", "--out", "x"], "the players 'x' must be 2 or 4"),
    (["train", *SMALL, "--rules", "expeditions/1", "--out", "x"], "the players '1' must be 2 or 4"),
    (["iterate", "--generations", "1", "--rules", "expeditions/", "--out", "x"], "the players '' must be 1, 2 or 4"),
    (["iterate", "--generations", "1", "--rules", "expeditions/2,", "--out", "x"], "has an empty entry"),
    (["iterate", "--generations", "1", "--rules", "nosuch/2", "--out", "x"], "unknown preset 'nosuch'"),
    (["iterate", "--generations", "1", "--ship-generation", "2", "--out", "x"],
     "--ship-generation 2 goes with --ship FILE"),
    (["simulate", "--set", "=5", "--rounds", "10", "--out", "x"], "--set '=5': no parameter before ="),
    (["sweep", "--grid", "=1,2", "--rounds", "3", "--out", "x"], "--grid '=1,2': no parameter before ="),
    (["iterate", "--generations", "1", "--ship", "w.npz", "--ship-generation", "2", "--out", "x"],
     "--ship-generation 2 is after the last generation run (--generations 1)"),
])
def test_empty_and_repeated_values_are_refused(tmp_path, args, words):
    (tmp_path / "r.json").write_text("{}")
    one_line(cli(*args, cwd=tmp_path), 1, words)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.json"]
