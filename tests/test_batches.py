"""Batches at scale: identical tables whatever the backend, kill-and-resume, checked shards,
the turns table, lazy loading, and bad input that costs one line and destroys nothing."""
import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from safety_tools import default_sigint

from lostcards import cli
from lostcards.errors import BatchError
from lostcards.records.replay import replay_record
from lostcards.rules.ruleset import rules
from lostcards.run import backends
from lostcards.run.batchdir import DirLock
from lostcards.run.load import load, read_manifest, table_hash, table_hashes, verify
from lostcards.run.progress import Progress
from lostcards.run.runner import play_records as records
from lostcards.run.shards import BatchSpec
from lostcards.run.simulate import run
from lostcards.run.summary import summarize

ROOT = Path(__file__).resolve().parents[1]


def lostcards_cmd(*args) -> list[str]:
    return [sys.executable, "-m", "lostcards", "simulate", "--no-progress", *map(str, args)]


def env():
    e = dict(os.environ, PYTHONUNBUFFERED="1")
    e["PYTHONPATH"] = str(ROOT) + os.pathsep + e.get("PYTHONPATH", "")
    return e


def snapshot(d: Path) -> dict:
    """Every file under d with its bytes and modification time."""
    return {str(p.relative_to(d)): (p.read_bytes(), p.stat().st_mtime_ns)
            for p in sorted(d.rglob("*")) if p.is_file() and p.name != ".lock"}


def files_equal(a: Path, b: Path, table="seat_suits"):
    pa_, pb = sorted((a / table).glob("part-*.parquet")), sorted((b / table).glob("part-*.parquet"))
    assert [p.name for p in pa_] == [p.name for p in pb]
    return all(x.read_bytes() == y.read_bytes() for x, y in zip(pa_, pb))


# ---- identical tables whatever the backend ---------------------------------------------------

SMALL = BatchSpec(rules("expeditions", players=4), ("random", "random"), 11, 6000, -1, 1000, 40)


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    out = tmp_path_factory.mktemp("ref") / "b"
    run(SMALL, out, threads=1)
    return out


@pytest.fixture(scope="module")
def dask_cluster():
    distributed = pytest.importorskip("distributed")
    import logging
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                       dashboard_address=None, silence_logs=logging.ERROR)
    yield cluster
    cluster.close()


@pytest.mark.slow      # worker processes, a package copy or a long play: make test-slow
def test_two_worker_processes_give_the_same_tables(reference, tmp_path):
    run(SMALL, tmp_path / "p2", backend=backends.Processes(2))
    assert table_hash(tmp_path / "p2") == table_hash(reference)
    assert files_equal(reference, tmp_path / "p2")        # the same files, byte for byte


@pytest.mark.slow      # worker processes, a package copy or a long play: make test-slow
def test_a_dask_cluster_gives_the_same_tables(reference, tmp_path, dask_cluster):
    out = tmp_path / "dask"
    code, stdout, err = invoke(["simulate", "--rules", "expeditions", "--players", "4", "--seed", "11",
                                "--rounds", "6000", "--first", "-1", "--shard-size", "1000", "--turns", "40",
                                "--scheduler", dask_cluster.scheduler_address, "--no-progress", "--out", str(out)])
    assert code == 0, err
    assert table_hash(out) == table_hash(reference)
    assert files_equal(reference, out, "turns")
    m = read_manifest(out)
    assert m["backend"]["kind"] == "dask" and m["backend"]["scheduler"] == dask_cluster.scheduler_address


def test_shard_size_does_not_change_the_hash(reference, tmp_path):
    spec = BatchSpec(SMALL.rules, SMALL.policies, SMALL.seed, SMALL.rounds, SMALL.first, 1700, SMALL.turns)
    run(spec, tmp_path / "s")
    assert table_hashes(tmp_path / "s") == table_hashes(reference)
    other = BatchSpec(SMALL.rules, SMALL.policies, 12, SMALL.rounds, SMALL.first, 1000, SMALL.turns)
    run(other, tmp_path / "o")
    assert table_hash(tmp_path / "o") != table_hash(reference)


@pytest.mark.slow
def test_100k_rounds_identical_with_1_worker_2_workers_and_a_local_dask_cluster(tmp_path):
    args = ["--rounds", 100_000, "--seed", 3, "--shard-size", 10_000, "--turns", 200]
    outs = {}
    for name, extra in (("one", ["--workers", 1]), ("two", ["--workers", 2]), ("dask", ["--dask-local", 2])):
        outs[name] = tmp_path / name
        subprocess.run(lostcards_cmd(*args, *extra, "--out", outs[name]), check=True, env=env(),
                       capture_output=True)
    hashes = {name: table_hash(o) for name, o in outs.items()}
    assert len(set(hashes.values())) == 1, hashes
    assert len(load(outs["one"], tables=["rounds"])["rounds"]) == 100_000


# ---- kill and resume -------------------------------------------------------------------------

# 64 shards: enough that a signal sent a moment after the third one lands mid-batch (a shard takes ~10 ms)
KILL_SPEC = BatchSpec(rules("expeditions"), ("random", "random"), 5, 96_000, 0, 1500, 30)
KILL_ARGS = ["--rounds", 96_000, "--seed", 5, "--shard-size", 1500, "--turns", 30]


def shards_done(out: Path) -> int:
    try:
        return len(json.loads((out / "manifest.json").read_text())["shards_done"])
    except (OSError, ValueError, KeyError):
        return 0


def start_and_stop(out: Path, sig, at_least: int, extra: float, args=()):
    """Start the command; once `at_least` shards are done, wait `extra` s and send `sig`."""
    p = subprocess.Popen(lostcards_cmd(*KILL_ARGS, *args, "--out", out), env=env(), preexec_fn=default_sigint,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 60
    while p.poll() is None and shards_done(out) < at_least and time.time() < deadline:
        time.sleep(0.02)
    time.sleep(extra)
    if p.poll() is None:
        p.send_signal(sig)
    stdout, stderr = p.communicate(timeout=60)
    return p.returncode, stdout, stderr


def check_whole(out: Path, expected: str):
    m = read_manifest(out)
    assert m["complete"] and m["shards_done"] == list(range(KILL_SPEC.shards))
    assert verify(out) == {}
    r = load(out, {"rounds": ["round"]}, tables=["rounds"])["rounds"]
    np.testing.assert_array_equal(r["round"].to_numpy(), np.arange(KILL_SPEC.rounds))   # none missing, none twice
    assert table_hash(out) == expected


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory):
    out = tmp_path_factory.mktemp("whole") / "b"
    run(KILL_SPEC, out)
    return table_hash(out)


def kill_and_resume(out: Path, plan, uninterrupted: str):
    """SIGKILL the command at each (shards done, extra seconds, extra args) of `plan`, then finish it."""
    kills = 0
    for target, extra, args in plan:
        code, _, _ = start_and_stop(out, signal.SIGKILL, target, extra, args)
        kills += code == -signal.SIGKILL
    assert kills >= len(plan) - 1             # (a kill may come after a fast finish on an idle machine)
    res = subprocess.run(lostcards_cmd(*KILL_ARGS, "--out", out), env=env(), capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    assert f"rounds: {KILL_SPEC.rounds:,}" in res.stdout
    check_whole(out, uninterrupted)


@pytest.mark.slow      # three kills and a resume (the Ctrl-C test below resumes in make test)
def test_killed_several_times_and_resumed_gives_the_uninterrupted_tables(tmp_path, uninterrupted):
    rng = random.Random(20240611)
    # at random moments: during start-up, then mid-batch twice
    plan = [(0, rng.uniform(0, 0.5), ()), (rng.randint(2, 6), rng.uniform(0, 0.1), ()),
            (rng.randint(8, 13), rng.uniform(0, 0.1), ())]
    kill_and_resume(tmp_path / "k", plan, uninterrupted)
    assert len(read_manifest(tmp_path / "k")["sessions"]) >= 3


@pytest.mark.slow
def test_killed_many_times_with_worker_processes_and_resumed(tmp_path, uninterrupted):
    rng = random.Random()
    plan, done = [], 0
    for i in range(8):      # the coordinator dies with its workers mid-shard: they must not write on
        done = min(done + rng.randint(0, 2), KILL_SPEC.shards - 2)
        plan.append((done, rng.uniform(0, 0.3), ("--workers", 2) if i % 2 else ()))
    kill_and_resume(tmp_path / "k", plan, uninterrupted)


@pytest.mark.slow      # a subprocess or a whole small run: make test-slow
def test_ctrl_c_stops_cleanly_and_the_same_command_resumes(tmp_path, uninterrupted):
    out = tmp_path / "c"
    code, _, err = start_and_stop(out, signal.SIGINT, 3, 0.05)
    assert code == 130, err
    assert "interrupted" in err and "run the same command" in err and "Traceback" not in err
    done = shards_done(out)
    assert 3 <= done < KILL_SPEC.shards
    res = subprocess.run(lostcards_cmd(*KILL_ARGS, "--out", out), env=env(), capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    check_whole(out, uninterrupted)
    assert read_manifest(out)["sessions"][-1]["shards_played"] == KILL_SPEC.shards - done


def test_a_corrupt_or_missing_shard_is_redone(tmp_path, reference):
    out = tmp_path / "x"
    run(SMALL, out)
    good = table_hash(out)
    before = {p.name: p.stat().st_mtime_ns for p in (out / "rounds").glob("*.parquet")}
    p = out / "seat_suits" / "part-00002.parquet"
    p.write_bytes(p.read_bytes()[:-100])                      # a partial file
    q = out / "seats" / "part-00004.parquet"
    data = bytearray(q.read_bytes())
    data[len(data) // 2] ^= 0xFF                                # flipped bits, same size
    q.write_bytes(bytes(data))
    (out / "turns" / "part-00005.parquet").unlink()             # gone
    (out / "rounds" / "part-00001.parquet.tmp").write_bytes(b"half a file")   # a leftover
    assert set(verify(out)) == {2, 4, 5}
    lines = []
    run(SMALL, out, log=lines.append)
    assert len(lines) == 3 and all("playing it again" in line for line in lines)
    assert table_hash(out) == good == table_hash(reference)
    after = {p.name: p.stat().st_mtime_ns for p in (out / "rounds").glob("*.parquet")}
    assert sorted(n for n in before if before[n] != after[n]) == [
        "part-00002.parquet", "part-00004.parquet", "part-00005.parquet"]      # only those were played again
    assert verify(out) == {}


def test_a_batch_written_before_checksums_is_checked_by_rows_and_resumed(tmp_path, reference):
    out = tmp_path / "old"
    run(SMALL, out)
    m = read_manifest(out)
    for key in ("shard_files", "format", "sessions", "rounds_done"):
        del m[key]
    (out / "manifest.json").write_text(json.dumps(m))
    p = out / "seats" / "part-00001.parquet"
    p.write_bytes(p.read_bytes()[: len(p.read_bytes()) // 2])
    lines = []
    run(SMALL, out, log=lines.append)
    assert lines == ["shard 1: seats file unreadable; playing it again"]
    assert table_hash(out) == table_hash(reference) and verify(out) == {}
    assert set(read_manifest(out)["shard_files"]) == {str(k) for k in range(SMALL.shards)}


def test_a_full_disk_stops_with_one_line_and_the_same_command_resumes(tmp_path, reference, monkeypatch):
    import errno

    from lostcards.run import batchdir
    from lostcards.run import simulate as sim
    real = batchdir.write_bytes_atomic
    calls = []

    def fill_up(data, path):
        calls.append(path)
        if len(calls) == 11:          # in the middle of shard 2's files
            path.with_name(path.name + ".tmp").write_bytes(data[:10])
            raise OSError(errno.ENOSPC, "No space left on device")
        real(data, path)

    monkeypatch.setattr(sim, "write_bytes_atomic", fill_up)        # the shard files
    monkeypatch.setattr(batchdir, "write_bytes_atomic", fill_up)   # the manifest
    out = tmp_path / "full"
    with pytest.raises(BatchError, match="No space left on device.*run the same command again"):
        run(SMALL, out)
    assert read_manifest(out)["shards_done"] == [0, 1]
    monkeypatch.setattr(sim, "write_bytes_atomic", real)
    monkeypatch.setattr(batchdir, "write_bytes_atomic", real)
    run(SMALL, out)
    assert table_hash(out) == table_hash(reference)


# ---- the turns table, lazy loading, summary, manifest, progress --------------------------------

def test_turns_table_agrees_with_the_other_tables_and_the_records(reference):
    t = load(reference)
    turns, rounds, seats = t["turns"], t["rounds"].set_index("round"), t["seats"]
    assert list(turns.columns) == ["round", "turn", "seat", "kind", "card", "suit", "rank", "card2", "draw"]
    sampled = np.unique(turns["round"])
    assert len(sampled) == SMALL.turns
    per_round = turns.groupby("round").size()
    np.testing.assert_array_equal(per_round.to_numpy(), rounds.loc[sampled, "turns"].to_numpy())
    first = rounds.loc[turns["round"], "first"].to_numpy()
    np.testing.assert_array_equal(turns["seat"].to_numpy(), (first + turns["turn"].to_numpy()) % 4)
    s = seats[seats["round"].isin(sampled)].set_index(["round", "seat"]).sort_index()
    g = turns.groupby(["round", "seat"])
    counts = pd.DataFrame({
        "plays": g["kind"].apply(lambda k: (k != "pass").sum()),
        "discards": g["kind"].apply(lambda k: (k == "discard").sum()),
        "passes": g["kind"].apply(lambda k: (k == "pass").sum()),
        "deck_draws": g["draw"].apply(lambda d: (d == "deck").sum()),
        "pile_draws": g["draw"].apply(lambda d: (d.notna() & (d != "deck")).sum()),
    }).reindex(s.index, fill_value=0)
    for c in counts:
        np.testing.assert_array_equal(counts[c].to_numpy(), s[c].to_numpy(), err_msg=c)
    # one round against its SPEC §5 record
    i = int(sampled[7])
    rec = records(SMALL.rules, "random", "random", [i], seed=SMALL.seed, first=SMALL.first)[0]
    assert replay_record(rec)["ok"]
    mine = turns[turns["round"] == i]
    for row, tr in zip(mine.itertuples(), rec["turns"]):
        if "pass" in tr:
            assert row.kind == "pass" and [row.card, row.card2] == tr["pass"] and pd.isna(row.draw)
        else:
            assert row.card == tr["play"] and row.kind == ("discard" if tr["to"] == "discard" else "play")
            assert row.draw == tr["draw"] and pd.isna(row.card2)
            assert row.suit == tr["play"][-1] and row.rank == tr["play"][:-1]


@pytest.mark.filterwarnings("ignore::DeprecationWarning", "ignore::FutureWarning", "ignore:.*inplace")
def test_lazy_and_column_loading(reference):
    eager = load(reference)
    arrow = load(reference, lazy=True)
    assert set(arrow) == {"rounds", "seats", "seat_suits", "turns"}
    assert arrow["seat_suits"].count_rows() == len(eager["seat_suits"]) == 6000 * 4 * 4
    scores = arrow["rounds"].to_table(columns=["score_a"]).column("score_a").to_numpy()
    np.testing.assert_array_equal(scores, eager["rounds"]["score_a"].to_numpy())
    cols = load(reference, {"seats": ["round", "plays"]}, tables=["seats"])
    assert list(cols) == ["seats"] and list(cols["seats"].columns) == ["round", "plays"]
    pytest.importorskip("dask.dataframe")
    d = load(reference, {"rounds": ["turns"]}, lazy="dask")["rounds"]
    assert int(d["turns"].sum().compute()) == int(eager["rounds"]["turns"].sum())


def test_manifest_records_what_the_issue_asks(reference):
    m = read_manifest(reference)
    for key in ("command", "ruleset", "policies", "seed", "shard_size", "backend", "versions", "seconds",
                "shard_files", "sessions", "complete"):
        assert key in m, key
    assert m["batch"]["turns"] == 40 and m["backend"]["kind"] == "local"
    info = m["shard_files"]["3"]
    assert info["rounds"]["rows"] == 1000 and info["seats"]["rows"] == 4000 and info["seat_suits"]["rows"] == 16000
    assert len(info["turns"]["sha256"]) == 64


def test_summary_of_a_partial_batch(tmp_path, capsys):
    calls = []

    def stop(n):
        calls.append(n)
        if len(calls) == 2:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run(SMALL, tmp_path / "p", progress=stop)
    text = summarize(tmp_path / "p")
    assert "partial: 2 of 6 shards" in text and "rounds: 2,000" in text
    code, out, err = invoke(["summary", str(tmp_path / "p")])
    assert code == 0 and "partial" in out and not err


def test_progress_line_shows_rate_and_time_left():
    class Sink:
        def __init__(self):
            self.text = ""

        def write(self, s):
            self.text += s

        def flush(self):
            pass

        def isatty(self):
            return True

    s = Sink()
    p = Progress(s)
    p.start(10_000, 2_000)
    time.sleep(0.05)
    p(1_000)
    line = s.text.split("\r")[-1]
    assert "3,000/10,000" in line and "30%" in line and "rounds/s" in line and "left" in line


# ---- bad input: one line, a non-zero exit, nothing destroyed -------------------------------------

def invoke(args):
    """The real entry point (lostcards.cli.run) in this process: (exit code, stdout, stderr)."""
    import contextlib
    import io
    out, err = io.StringIO(), io.StringIO()
    old = sys.argv
    sys.argv = ["lostcards", *map(str, args)]
    code = 0
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            cli.run()
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    finally:
        sys.argv = old
    return code, out.getvalue(), err.getvalue()


@pytest.fixture(scope="module")
def finished(tmp_path_factory):
    out = tmp_path_factory.mktemp("fin") / "b"
    code, _, err = invoke(["simulate", "--rounds", 500, "--shard-size", 200, "--seed", 9, "--no-progress",
                           "--records", 3, "--csv", "--out", out])
    assert code == 0, err
    return out


BASE = ["simulate", "--rounds", 500, "--shard-size", 200, "--seed", 9, "--no-progress"]


@pytest.mark.parametrize("extra, words", [
    (["--policies", "nosuchbot"], "unknown policy 'nosuchbot'"),
    (["--policies", "random:speed=3"], "speed"),
    (["--set", "hand_size=0"], "hand_size"),
    (["--set", "nonsense=3"], "nonsense"),
    (["--set", "hand_size"], "PARAM=VALUE"),
    (["--seed", 10], "different batch"),
    (["--shard-size", 100], "different batch"),
    (["--turns", 5], "different batch"),
    (["--rounds", 0], "rounds"),
    (["--records", "some"], "records"),
    (["--workers", 2, "--scheduler", "tcp://127.0.0.1:1"], "not allowed"),
    (["--scheduler", "tcp://127.0.0.1:1", "--dask-local", 2], "not allowed"),
    (["--workers", 0], "workers"),
])
def test_bad_input_into_a_finished_batch_is_one_line_and_destroys_nothing(finished, extra, words):
    before = snapshot(finished)
    code, out, err = invoke(BASE + ["--out", finished] + extra)
    assert code != 0
    lines = [line for line in (out + err).splitlines() if line.strip()]
    assert len(lines) == 1, out + err
    assert words in lines[0] and "Traceback" not in lines[0]
    assert snapshot(finished) == before


def test_other_bad_directories_are_refused_in_one_line(tmp_path, finished):
    cases = []
    f = tmp_path / "a-file"
    f.write_text("x")
    cases.append((f / "sub", "cannot write"))
    cases.append((f, "is a file"))
    foreign = tmp_path / "theirs"
    foreign.mkdir()
    (foreign / "thesis.tex").write_text("precious")
    cases.append((foreign, "not empty"))
    garbled = tmp_path / "garbled"
    garbled.mkdir()
    (garbled / "manifest.json").write_text("{not json")
    cases.append((garbled, "unreadable manifest"))
    for out, words in cases:
        before = snapshot(out) if out.is_dir() else None
        code, so, se = invoke(BASE + ["--out", out])
        lines = [line for line in (so + se).splitlines() if line.strip()]
        assert code != 0 and len(lines) == 1 and words in lines[0], (out, so + se)
        if before is not None:
            assert snapshot(out) == before
    assert f.read_text() == "x"
    # a directory another command is writing right now
    before = snapshot(finished)
    with DirLock(finished):
        code, so, se = invoke(BASE + ["--out", finished])
    assert code != 0 and "being written by another" in se and len((so + se).strip().splitlines()) == 1
    assert snapshot(finished) == before
    code, so, se = invoke(["summary", str(tmp_path / "nothing-here")])
    assert code != 0 and "no lostcards batch" in se and len((so + se).strip().splitlines()) == 1


def test_unreachable_scheduler_is_one_line_and_leaves_no_directory(tmp_path, monkeypatch):
    pytest.importorskip("distributed")
    monkeypatch.setenv("LOSTCARDS_DASK_TIMEOUT", "1")
    out = tmp_path / "never"
    code, so, se = invoke(BASE + ["--out", out, "--scheduler", "tcp://127.0.0.1:9"])
    lines = [line for line in (so + se).splitlines() if line.strip()]
    assert code != 0 and len(lines) == 1 and "cannot reach the Dask scheduler" in lines[0], so + se
    assert not out.exists()


def test_run_refuses_another_batch_without_touching_it(finished):
    before = snapshot(finished)
    spec = BatchSpec(rules("expeditions"), ("random", "random"), 9, 501, 0, 200)
    with pytest.raises(BatchError, match="different batch"):
        run(spec, finished)
    assert snapshot(finished) == before
