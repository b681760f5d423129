"""Issue 11's measure: a battery of bad inputs and faults, at least one per finding, each one line with the
right exit status and nothing lost; and tournaments and sweeps killed mid-run and run again.  Issue 21's
findings (output paths, a full stdout, failing user policies, bench's own file, values refused, the Python
API) are the cases numbered "21.N" and the tests after the table.

Each case is (finding, command, exit status, words the line names).  Words in
capitals are filled in from a shared set of directories: BATCH (a simulate
batch), TOURNAMENT, REPORTS (a copy of the committed reports), BOTS (a folder
of user policies, the working directory of the BOTS cases), NEW (a fresh path).
Refused cases must leave BATCH, TOURNAMENT and REPORTS byte for byte as they were.
"""
from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time

import pytest
from safety_tools import ROOT, cli, default_sigint, env, one_line, snapshot

import lostcards

BOTS = {
    "battery_raiser.py": "x = 1\nraise RuntimeError('boom')\n",
    "battery_broken.py": "def f(:\n    pass\n",
    "battery_pybots.py": "def raising(obs, stream):\n    return 1 / 0\n\n\ndef exiting(obs, stream):\n"
                         "    import sys\n    sys.exit(5)\n",
    "battery_numba.py": ("from numba import njit\n\n\n@njit(cache=True)\ndef one_argument(obs):\n    return 0\n\n\n"
                         "@njit(cache=True)\ndef a_list(obs, params, rng):\n    return [1, 2]\n\n\n"
                         "@njit(cache=True)\ndef illegal(obs, params, rng):\n    return 999999\n"),
    "mymodule.py": ("from numba import njit\nfrom lostcards.engine.core import make_play, TO_DISCARD, DRAW_DECK\n"
                    "from lostcards.engine.observation import hand_card\n\n\n@njit(cache=True)\n"
                    "def first_card_away(obs, params, rng):\n"
                    "    return make_play(hand_card(obs, 0), TO_DISCARD, DRAW_DECK)\n"),
}
HUGE = "9" * 5000
SIM = ["simulate", "--no-progress", "--rounds", 20]
T = ["tournament", "--rounds", 20, "--block", 20, "--bootstrap", 0]

CASES = [
    # 1: another command's output
    (1, [*T, "--policies", "random,greedy", "--out", "BATCH"], 1, ["holds a simulate batch"]),
    (1, ["sweep", "--grid", "hand_size=5,6", "--rounds", 30, "--out", "BATCH"], 1, ["holds a simulate batch"]),
    (1, ["claims", "--quick", "--out", "BATCH"], 1, ["holds a simulate batch"]),
    (1, ["rule-tweaks", "--rounds", 30, "--out", "BATCH"], 1, ["holds a simulate batch"]),
    (1, [*SIM, "--out", "TOURNAMENT"], 1, ["holds a tournament output"]),
    (1, ["sweep", "--rounds", 30, "--out", "TOURNAMENT"], 1, ["holds a tournament output"]),
    (1, [*T, "--policies", "random,expert", "--out", "TOURNAMENT"], 1, ["different tournament run", "policies"]),
    (1, [*SIM, "--out", "REPORTS"], 1, ["holds a claims output"]),
    # 2: a full report is never replaced by a quick or partial run
    (2, ["claims", "--quick", "--out", "REPORTS"], 1, ["full claims report", "quick run"]),
    (2, ["claims", "plays-per-round", "--out", "REPORTS"], 1, ["partial run (plays-per-round)"]),
    (2, ["claims", "--seed", 2, "--out", "REPORTS"], 1, ["seed 1, not 2"]),
    (2, ["claims", "no-such-claim", "--out", "NEW"], 1, ["unknown claim no-such-claim"]),
    # 3: what the manifest promises
    (3, ["summary", "HOLED"], 1, ["rounds/part-00001.parquet is missing"]),
    # 4: the user's files
    (4, [*SIM, "--csv", "--out", "USERCSV"], 1, ["not empty", "rounds.csv"]),
    (4, ["simulate", "--no-progress", "--rounds", 300, "--shard-size", 100, "--seed", 3, "--records", 5,
         "--out", "USERRECORDS"], 1, ["records.jsonl", "would overwrite"]),
    # 5: replay
    (5, ["replay", "DOUBLE"], 2, ["a record must be a JSON object, got a string"]),
    (5, ["replay", "ARRAY"], 2, ["a record must be a JSON object, got an array"]),
    # 6: summary of what is no batch
    (6, ["summary", "TOURNAMENT"], 1, ["holds a tournament output, not a simulate batch"]),
    (6, ["summary", "EMPTYOBJ"], 1, ["not a lostcards batch manifest"]),
    (6, ["summary", "LISTMANIFEST"], 1, ["(a JSON list)"]),
    (6, ["summary", "REPORTS"], 1, ["no lostcards batch"]),
    # 7: a user's policy that fails
    (7, [*SIM, "--policies", "battery_raiser:x,random", "--out", "NEW"], 1,
     ["RuntimeError: boom", "battery_raiser.py:2"]),
    (7, [*SIM, "--policies", "battery_broken:x,random", "--out", "NEW"], 1, ["SyntaxError", "battery_broken.py:1"]),
    (7, [*SIM, "--policies", "battery_pybots:raising,random", "--out", "NEW"], 1,
     ["ZeroDivisionError", "battery_pybots.py:2"]),
    (7, [*T, "--policies", "battery_pybots:raising,random", "--out", "NEW"], 1,
     ["ZeroDivisionError", "battery_pybots.py:2"]),
    # 8: bounds
    (8, ["simulate", "--rounds", "99999999999999999999", "--out", "NEW"], 2, ["1..100,000,000,000 per batch"]),
    (8, ["simulate", "--rounds", 10**11, "--out", "NEW"], 1, ["at most 100,000"]),
    (8, ["simulate", "--rounds", 10, "--shard-size", 10**12, "--out", "NEW"], 1, ["shard size", "2 GiB"]),
    (8, ["simulate", "--records", 10**9, "--out", "NEW"], 1, ["records", "10,000,000"]),
    (8, ["tournament", "--policies", "random,greedy", "--rounds", 10**12, "--out", "NEW"], 2, ["--rounds"]),
    # 9: ranges from the text
    (9, ["simulate", "--set", "numbers=2..20000000", "--out", "NEW"], 1, ["numbers = 2..20000000"]),
    (9, ["simulate", "--set", "numbers=2..100000000", "--out", "NEW"], 1, ["numbers = 2..100000000"]),
    (9, ["sweep", "--grid", "numbers=2..100000000", "--out", "NEW"], 1, ["numbers"]),
    # 10: the directory is checked before playing (a file where the directory should be)
    (10, ["sweep", "--rounds", 30, "--out", "AFILE/sub"], 1, ["cannot write to"]),
    (10, ["claims", "--quick", "--out", "AFILE/sub"], 1, ["cannot write to"]),
    (10, [*T, "--policies", "random,greedy", "--out", "AFILE/sub"], 1, ["cannot write to"]),
    # 12 is in test_safety_cli (signals); 13: policy parameters
    (13, [*SIM, "--policies", "search:iterations=-1,random", "--out", "NEW"], 1,
     ["search:iterations=-1", "1..10000000"]),
    (13, [*SIM, "--policies", "search:iterations=0.5,random", "--out", "NEW"], 1, ["an integer in 1..10000000"]),
    (13, [*SIM, "--policies", "search:iterations=inf,random", "--out", "NEW"], 1, ["search:iterations=inf"]),
    (13, [*SIM, "--policies", "expert:rho=nan,random", "--out", "NEW"], 1, ["expert:rho=nan", "0..5"]),
    (13, [*SIM, "--policies", "expert:rho=-1e308,random", "--out", "NEW"], 1, ["expert:rho=-1e308"]),
    (13, [*SIM, "--policies", "greedy:open=nan,random", "--out", "NEW"], 1, ["greedy:open=nan", "0..10"]),
    (13, [*T, "--policies", "random,search:c=-1", "--out", "NEW"], 1, ["search:c=-1", "0..100"]),
    (13, ["sweep", "--policy", "expert:danger=1e99", "--out", "NEW"], 1, ["expert:danger=1e99"]),
    # 15: clear messages
    (15, ["simulate", "--set", "hand_size=--5", "--out", "NEW"], 1, ["hand_size = --5"]),
    (15, ["simulate", "--set", "numbers=5..2", "--out", "NEW"], 1, ["numbers = 5..2", "empty"]),
    (15, ["simulate", "--set", "hand_size=" + HUGE, "--out", "NEW"], 1, ["(5,000 characters)"]),
    (15, ["simulate", "--no-progress", "--rounds", 300, "--shard-size", 100, "--seed", 4, "--out", "BATCH"], 1,
     ["different batch (seed 3 there, 4 here)"]),
    (15, ["simulate", "--first", HUGE, "--out", "NEW"], 2, ["(5,000 characters)"]),
    (15, ["sweep", "--depth", HUGE, "--out", "NEW"], 1, ["--depth budget", "(5,000 characters)"]),
    (15, ["tournament", "--policies", "random,greedy", "--target", "nan", "--out", "NEW"], 2, ["--target"]),
    # 19: usage errors are 2, refusals 1
    (19, ["simulate", "--bogus"], 2, ["No such option"]),
    (19, ["simulate", "--rounds", "abc"], 2, ["--rounds"]),
    (19, ["nosuchcommand"], 2, ["No such command"]),
    (19, ["replay", "/nonexistent/file.json"], 2, ["cannot read"]),
    # issue 21, 3: tracebacks (output paths go through the --out guard; a full stdout is in test_full_stdout_...)
    ("21.3", ["analyze", "REC", "--samples", 2, "--figure", "NEW.xyz"], 1, ["--figure", ".xyz is not allowed", ".png"]),
    ("21.3", ["analyze", "REC", "--samples", 2, "--figure", "/proc/lostcards.png"], 1,
     ["--figure /proc/lostcards.png", "cannot write to /proc"]),
    ("21.3", ["analyze", "REC", "--samples", 2, "--figure", "NEW/" + "f" * 300 + ".png"], 1,
     ["--figure", "(", "characters)", "File name too long"]),
    ("21.3", ["bench", "--rounds", 1000, "--json", "/proc/bench.json"], 1, ["--json /proc/bench.json", "cannot write"]),
    ("21.3", ["bench", "--rounds", 1000, "--json", "NEW/" + "b" * 300 + ".json"], 1, ["File name too long"]),
    ("21.3", [*SIM, "--out", "NEW/" + "x" * 300], 1, ["cannot write to", "characters)", "File name too long"]),
    ("21.3", [*SIM, "--policies", "battery_numba:one_argument,random", "--out", "NEW"], 1,
     ["battery_numba:one_argument", "does not compile", "Signature mismatch"]),
    ("21.3", [*SIM, "--policies", "battery_numba:a_list,random", "--out", "NEW"], 1,
     ["battery_numba:a_list", "does not compile", "returns list", "not a move"]),
    ("21.3", [*SIM, "--policies", "battery_pybots:exiting,random", "--out", "NEW"], 1,
     ["battery_pybots:exiting", "SystemExit: 5", "battery_pybots.py:7"]),
    ("21.3", ["analyze", "REC", "--samples", 2, "--evaluator", "battery_numba:illegal"], 1,
     ["evaluator 'battery_numba:illegal'", "illegal move", "keeps the rules"]),
    # issue 21, 4: bench never replaces a file it did not write (the default path: test_bench_keeps_...)
    ("21.4", ["bench", "--rounds", 1000, "--json", "USERBENCH/bench.json"], 1,
     ["userbench/bench.json holds a file no lostcards run wrote", "another path"]),
    # issue 21, 5: values a user would call a mistake
    ("21.5", [*SIM, "--policies", "random,", "--out", "NEW"], 1, ["--policies 'random,'", "empty entry"]),
    ("21.5", [*SIM, "--policies", ",random", "--out", "NEW"], 1, ["--policies ',random'", "empty entry"]),
    ("21.5", [*SIM, "--policies", "expert:rho=0.5,rho=0.6", "--out", "NEW"], 1, ["expert:rho is given twice"]),
    ("21.5", [*SIM, "--records", 21, "--out", "NEW"], 1, ["records = 21", "at most the batch's 20 rounds"]),
    ("21.5", [*SIM, "--turns", 21, "--out", "NEW"], 1, ["turns = 21", "at most the batch's 20 rounds"]),
    ("21.5", [*SIM, "--set", "hand_size=6", "--set", "hand_size=7", "--out", "NEW"], 1,
     ["--set hand_size is given twice (6 and 7)"]),
    ("21.5", [*SIM, "--players", 2, "--set", "players=4", "--out", "NEW"], 1,
     ["--players 2 and --set players=4 disagree"]),
    ("21.5", ["sweep", "--players", 2, "--set", "players=4", "--out", "NEW"], 1,
     ["--players 2 and --set players=4 disagree"]),
    ("21.5", [*SIM, "--players", 1, "--policies", "random,random", "--out", "NEW"], 1,
     ["--policies 'random,random'", "2 policies", "one seat: give one policy"]),
    ("21.5", ["simulate", "--no-progress", "--rounds", 20, "--records", 20, "--out", "RECS"], 1,
     ["records.jsonl of 10 rounds", "--records 20 would replace it"]),
    ("21.5", ["summary", "EDITED"], 1, ["1,000,000,000,000 rounds done of a batch of 300", "edited or damaged"]),
    ("21.5", ["bench", "--rounds", 1000, "--json", "NEW/b.json", "--yardstick", "/nonexistent"], 1,
     ["--yardstick /nonexistent", "cengine.c"]),
    ("21.5", ["sweep", "--opponents", "", "--out", "NEW"], 1, ["--opponents ''", "empty entry"]),
    ("21.5", ["sweep", "--grid", "hand_size=5,,6", "--out", "NEW"], 1, ["--grid hand_size=5,,6", "empty entry"]),
    ("21.5", ["sweep", "--depth", "250,250", "--out", "NEW"], 1, ["--depth '250,250'", "twice"]),
    ("21.5", ["tournament", "--target", "nan", "--out", "NEW"], 2, ["--target", "nan is not allowed"]),
    ("21.5", ["sweep", "--max-stall", "inf", "--out", "NEW"], 2, ["--max-stall", "inf is not allowed"]),
    ("21.5", ["rule-tweaks", "--players", "2,2", "--out", "NEW"], 2, ["--players", "'2,2' gives 2 twice"]),
    ("21.5", ["rule-tweaks", "--budgets", "250,", "--out", "NEW"], 2, ["--budgets", "empty entry"]),
    ("21.5", [*SIM, "--rules", "lost-cities", "--players", 4, "--set", "hand_size=6", "--out", "NEW"], 1,
     ["hand_size = 6 with 4 players", "pass_min_hand = 8", "no seat could ever pass"]),
]


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    w = tmp_path_factory.mktemp("battery")
    d = {"BATCH": w / "batch", "TOURNAMENT": w / "tournament", "REPORTS": w / "reports", "BOTS": w / "bots"}
    assert cli("simulate", "--no-progress", "--rounds", 300, "--shard-size", 100, "--seed", 3, "--out",
               d["BATCH"])[0] == 0
    assert cli(*T, "--policies", "random,greedy", "--out", d["TOURNAMENT"])[0] == 0
    shutil.copytree(ROOT / "reports", d["REPORTS"])
    d["BOTS"].mkdir()
    for name, text in BOTS.items():
        (d["BOTS"] / name).write_text(text)
    d["HOLED"] = w / "holed"
    shutil.copytree(d["BATCH"], d["HOLED"])
    (d["HOLED"] / "rounds" / "part-00001.parquet").unlink()
    d["USERCSV"] = w / "usercsv"
    d["USERCSV"].mkdir()
    (d["USERCSV"] / "rounds.csv").write_text("my,precious\n")
    d["USERRECORDS"] = w / "userrecords"
    shutil.copytree(d["BATCH"], d["USERRECORDS"])
    (d["USERRECORDS"] / "records.jsonl").write_text("mine\n")
    rec = lostcards.play_records(lostcards.rules(), "random", round_indices=[0])[0]
    d["DOUBLE"] = w / "double.json"
    d["DOUBLE"].write_text(json.dumps(json.dumps(rec)))
    d["ARRAY"] = w / "array.json"
    d["ARRAY"].write_text(json.dumps([rec]))
    for name, value in (("EMPTYOBJ", {}), ("LISTMANIFEST", [1, 2])):
        d[name] = w / name.lower()
        d[name].mkdir()
        (d[name] / "manifest.json").write_text(json.dumps(value))
    d["AFILE"] = w / "a-file"
    d["AFILE"].write_text("x")
    d["REC"] = w / "rec.json"
    d["REC"].write_text(json.dumps(rec))
    d["USERBENCH"] = w / "userbench"
    d["USERBENCH"].mkdir()
    (d["USERBENCH"] / "bench.json").write_text('{"my": "own numbers"}\n')
    d["RECS"] = w / "recs"
    assert cli(*SIM, "--records", 10, "--out", d["RECS"])[0] == 0
    d["EDITED"] = w / "edited"
    shutil.copytree(d["BATCH"], d["EDITED"])
    m = json.loads((d["EDITED"] / "manifest.json").read_text())
    (d["EDITED"] / "manifest.json").write_text(json.dumps({**m, "rounds_done": 10**12}))
    d["_snap"] = {k: snapshot(d[k]) for k in ("BATCH", "TOURNAMENT", "REPORTS", "USERRECORDS", "USERBENCH", "RECS",
                                              "EDITED")}
    return d


@pytest.mark.parametrize("finding, args, status, words", CASES,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_the_battery(world, tmp_path, finding, args, status, words):
    def fill(a):
        a = str(a)
        for k, v in world.items():
            if k.isupper() and (a == k or a.startswith(k + "/")):
                return str(v) + a[len(k):]
        return str(tmp_path / "new") + a[3:] if a == "NEW" or a.startswith(("NEW/", "NEW.")) else a
    cwd = world["BOTS"] if any(b.split(".")[0] in " ".join(map(str, args)) for b in BOTS) else None
    one_line(cli(*map(fill, args), cwd=cwd), status, *words)
    for k, before in world["_snap"].items():
        assert snapshot(world[k]) == before, f"{k} changed"
    if not {"ZeroDivisionError", "SystemExit: 5"} & {w.split(" (")[0] for w in words}:
        # refused before anything was played: nothing was written
        assert not (tmp_path / "new").exists() or not any((tmp_path / "new").iterdir())
    assert not list(tmp_path.glob("new.*"))


FULL_STDOUT = [["rules"], ["summary", "BATCH"], ["replay", "--json", "REC"], ["replay", "REC"],
               [*SIM, "--out", "NEW"]]


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full here")
@pytest.mark.parametrize("args", FULL_STDOUT, ids=["-".join(map(str, a[:2])) for a in FULL_STDOUT])
def test_a_full_stdout_is_one_line_and_exit_1(world, tmp_path, args):
    """Issue 21, 3: `lostcards ... > /dev/full` says so in one line (exit 1), no traceback."""
    args = [str(world[a]) if a in world else str(tmp_path / "new") if a == "NEW" else str(a) for a in args]
    with open("/dev/full", "w") as full:
        res = subprocess.run([sys.executable, "-m", "lostcards", *args], stdout=full, stderr=subprocess.PIPE,
                             text=True, env=env(), timeout=300)
    one_line((res.returncode, "", res.stderr), 1, "cannot write to standard output", "No space left on device")


def test_bench_keeps_a_bench_json_it_did_not_write(tmp_path):
    """Issue 21, 4: `lostcards bench` in a folder holding the user's bench.json refuses before measuring."""
    (tmp_path / "bench.json").write_text("my numbers\n")
    one_line(cli("bench", "--rounds", 1000, cwd=tmp_path), 1, "--json bench.json holds a file no lostcards run wrote")
    assert (tmp_path / "bench.json").read_text() == "my numbers\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bench.json"]
    from lostcards.run.bench import _ours
    (tmp_path / "bench.json").write_text(json.dumps({"kind": "lostcards bench", "rounds": 1000}))
    assert _ours(tmp_path / "bench.json")          # its own file it replaces


def test_a_figure_goes_to_a_new_folder_and_a_failed_figure_keeps_the_analysis(world, tmp_path, monkeypatch):
    """Issue 21, 3: --figure into a missing folder makes it (as --out does); a figure that fails to write
    comes after the analysis, which is printed, and is one line, exit 1, leaving no temporary file."""
    fig = tmp_path / "figs" / "margin.png"
    code, out, err = cli("analyze", world["REC"], "--samples", 2, "--figure", fig)
    assert code == 0 and fig.stat().st_size > 0 and "total:" in out, out + err
    import lostcards.analysis.analyze as an

    def broken(res, path, **savefig):
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(an, "figure", broken)
    code, out, err = cli("analyze", world["REC"], "--samples", 2, "--figure", tmp_path / "figs" / "b.png")
    assert code == 1 and "total:" in out, out + err
    assert err.strip() == f"Error: cannot write --figure {tmp_path / 'figs' / 'b.png'}: No space left on device"
    assert sorted(p.name for p in (tmp_path / "figs").iterdir()) == ["margin.png"]


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() == 0, reason="root writes into read-only folders")
def test_a_read_only_folder_is_refused_before_the_work(world, tmp_path):
    """Issue 21, 3: --figure and bench --json into a read-only folder: one line, before anything is played."""
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o500)
    try:
        one_line(cli("analyze", world["REC"], "--samples", 2, "--figure", ro / "f.png"), 1, "--figure", "cannot write")
        one_line(cli("bench", "--rounds", 1000, "--json", ro / "b.json"), 1, "--json", "cannot write")
        assert not any(ro.iterdir())
    finally:
        ro.chmod(0o700)


def test_lostcards_alone_prints_its_help():
    """Issue 21, 6: `lostcards` with no command prints the help as help (usage status 2), not one Error line."""
    code, out, err = cli()
    assert code == 2 and "Error" not in out + err
    assert "Commands:" in err and "simulate" in err and len(err.splitlines()) > 10


def test_the_python_api_refuses_in_one_lostcards_error():
    """Issue 21, 6: the API validates like the command line: a LostcardsError naming the value, never a
    TypeError or an IndexError, nor a wrong card."""
    from lostcards.errors import CardError, PolicyFailure, RulesError
    from lostcards.policies import Policy
    with pytest.raises(RulesError, match=r"rules = \{'hand_size': 7\} is not allowed: a preset name"):
        lostcards.play({"hand_size": 7}, "random", rounds=10)
    for code in (48, -1, 1.5, True, "3"):
        with pytest.raises(CardError, match=r"card code .* is not allowed: an integer 0..47"):
            lostcards.format_card(code, "CDHS")
    assert lostcards.format_card(47, lostcards.rules()) == "10S" and lostcards.format_card(0, "CDHS") == "JC"
    with pytest.raises(RulesError, match=r"hand_size = '7' is not allowed: .*an int, not text"):
        lostcards.rules(hand_size="7")
    with pytest.raises(RulesError, match=r"pass_twice = 'yes' is not allowed"):
        lostcards.rules(pass_twice="yes")
    assert lostcards.rules(hand_size=7).hand_size == 7
    from lostcards.errors import BatchError
    with pytest.raises(CardError, match="rules = None is not allowed: a ruleset"):
        lostcards.parse_card("7H", None)
    with pytest.raises(BatchError, match="out = None is not allowed: a batch directory"):
        lostcards.load(None)
    with pytest.raises(BatchError, match="tabs = None is not allowed"):
        lostcards.summary(None)

    def exits(obs, stream):
        sys.exit(5)
    with pytest.raises(PolicyFailure, match=r"raised SystemExit: 5 \(.*test_safety_battery.py:\d+\)"):
        lostcards.play(lostcards.rules(), Policy("exits", None, python=exits), "random", rounds=2)


@pytest.mark.slow      # about 25 s of compiling and playing
def test_ctrl_c_ends_a_run_stuck_in_an_endless_numba_policy(tmp_path):
    """Issue 21, 3: a numba policy that never returns cannot be stopped mid-decision, but Ctrl-C still ends
    the run at once (the batch plays on worker threads; the main thread takes the signal): exit 130."""
    (tmp_path / "loop_bot.py").write_text(
        "from numba import njit\n\n\n@njit(cache=True)\ndef endless(obs, params, rng):\n    i = 0\n"
        "    while i >= 0:\n        i += 1\n    return i\n")
    p = subprocess.Popen([sys.executable, "-m", "lostcards", *map(str, SIM), "--policies", "loop_bot:endless,random",
                          "--out", "out"], cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         env=env(), preexec_fn=default_sigint)
    time.sleep(25)                        # compiled (a cold cache) and in the loop
    assert p.poll() is None
    p.send_signal(signal.SIGINT)
    t = time.time()
    out, err = p.communicate(timeout=30)
    assert p.returncode == 130 and time.time() - t < 10, out + err
    assert "Traceback" not in out + err


def test_the_battery_covers_every_finding_but_the_signal_and_help_ones():
    covered = {c[0] for c in CASES}
    assert set(range(1, 21)) - covered <= {11, 12, 14, 16, 17, 18, 20}   # in tests/test_safety_*.py (fault injection,
    assert len(CASES) >= 50                                              # signals, Python calls, help)


def _kill_and_rerun(args, where, after):
    """Run `lostcards ARGS`, SIGKILL it after `after` s, run it again to the end: (killed early?, status, out)."""
    p = subprocess.Popen([sys.executable, "-m", "lostcards", *map(str, args)], cwd=where, stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL, env=env(), start_new_session=True)
    time.sleep(after)
    early = p.poll() is None
    with contextlib.suppress(ProcessLookupError):       # it ended first: `early` says so
        os.killpg(p.pid, signal.SIGKILL)
    p.wait()
    res = subprocess.run([sys.executable, "-m", "lostcards", *map(str, args)], cwd=where, capture_output=True,
                         text=True, env=env(), timeout=600)
    return early, res


@pytest.mark.slow      # three runs each: about 15 s apiece, so `make test-slow` (make test stays under 5 minutes)
@pytest.mark.parametrize("args, files", [
    (["tournament", "--policies", "random,greedy,expert", "--rounds", 80000, "--block", 500, "--bootstrap", 50,
      "--fixed"],
     ["pairs.csv", "ratings.csv", "looks.csv"]),
    (["sweep", "--grid", "hand_size=5,6,7", "--policy", "greedy", "--opponents", "random", "--rounds", 30000,
      "--skill-rounds", 3000, "--no-progress"], ["metrics.csv", "diffs.csv", "flags.csv"]),
])
def test_a_killed_tournament_or_sweep_runs_again_to_the_same_result(tmp_path, args, files):
    """Killed (SIGKILL) mid-run, then the same command again: accepted, and the same files as a run never killed."""
    code, _, err = cli(*args, "--out", tmp_path / "whole")
    assert code == 0, err
    early, res = _kill_and_rerun([*args, "--out", tmp_path / "killed"], tmp_path, after=3)
    assert early, "the run ended before it could be killed: make it longer"
    assert res.returncode == 0, res.stdout + res.stderr
    import pandas as pd
    for f in files:                            # the same results; only the timings differ
        a, b = (pd.read_csv(tmp_path / d / f).drop(columns=["seconds"], errors="ignore") for d in ("killed", "whole"))
        pd.testing.assert_frame_equal(a, b)
    m = json.loads((tmp_path / "killed" / "manifest.json").read_text())
    assert m["complete"] is True and not any(p.name.startswith(".staging-") for p in (tmp_path / "killed").iterdir())
    one_line(cli(*args, "--seed", 9, "--out", tmp_path / "killed"), 1, "different", "seed 0 there, 9 here")
