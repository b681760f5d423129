"""Issue 11, findings 1, 2, 4, 10, 11: one output-directory guard for every command that writes a directory.

Each test names its finding.  A refusal is one line, exit status 1, before anything
is played, and the directory is left byte for byte as it was.
"""
from __future__ import annotations

import errno
import json
import os
import shutil
from pathlib import Path

import pytest
from safety_tools import ROOT, cli, fails_last, leftovers, one_line, snapshot

from lostcards.errors import BatchError
from lostcards.run import batchdir

SMALL = ["simulate", "--rounds", 300, "--shard-size", 100, "--seed", 3, "--no-progress"]
TOURNAMENT = ["tournament", "--policies", "random,greedy", "--rounds", 40, "--block", 40, "--bootstrap", 0]
SWEEP = ["sweep", "--grid", "hand_size=5,6", "--rounds", 30, "--skill-rounds", 10, "--opponents", "random",
         "--no-progress"]


@pytest.fixture(scope="module")
def batch(tmp_path_factory):
    out = tmp_path_factory.mktemp("outdir") / "b1"
    code, _, err = cli(*SMALL, "--out", out)
    assert code == 0, err
    return out


@pytest.mark.parametrize("command", [
    TOURNAMENT,
    SWEEP,
    ["claims", "--quick", "plays-per-round"],
    ["rule-tweaks", "--rounds", 30, "--depth-deals", 0, "--players", 2],
])
def test_finding_1_no_command_overwrites_a_simulate_batch(batch, command):
    """Finding 1: tournament, sweep, claims and rule-tweaks refuse a simulate batch (it used to lose its manifest)."""
    before = snapshot(batch)
    one_line(cli(*command, "--out", batch), 1, "holds a simulate batch", "use another --out")
    assert snapshot(batch) == before
    code, out, _ = cli("summary", batch)
    assert code == 0 and "random vs random, seed 3" in out
    assert cli(*SMALL, "--out", batch)[0] == 0          # still resumable: the same command is accepted


def test_finding_1_simulate_refuses_a_tournament_and_a_different_tournament_is_refused(tmp_path):
    """Finding 1: a tournament's directory takes neither a batch nor another tournament, but the same one again."""
    out = tmp_path / "t"
    assert cli(*TOURNAMENT, "--out", out)[0] == 0
    before = snapshot(out)
    one_line(cli(*SMALL, "--out", out), 1, "holds a tournament output")
    one_line(cli(*TOURNAMENT[:2], "random,expert", *TOURNAMENT[3:], "--out", out), 1,
             "different tournament run", 'policies ["random","greedy"] there, ["random","expert"] here')
    assert snapshot(out) == before
    assert cli(*TOURNAMENT, "--out", out)[0] == 0
    m = json.loads((out / "manifest.json").read_text())
    assert m["kind"] == "tournament" and m["complete"] is True and "pairs.csv" in m["outputs"]


def test_finding_2_claims_defaults_to_a_run_directory_and_make_report_names_reports():
    """Finding 2: `claims` from the repository root no longer writes reports/."""
    from lostcards.cli.claims import claims
    out = next(p for p in claims.params if p.name == "out")
    assert out.default == "runs/claims"
    make = (ROOT / "Makefile").read_text()
    assert "lostcards claims --out reports" in make


@pytest.mark.parametrize("args, words", [
    (["--quick"], "holds a full claims report; a quick run would replace it"),
    (["plays-per-round"], "a partial run (plays-per-round) would replace it"),
    (["--quick", "plays-per-round"], "a quick run would replace it"),
])
def test_finding_2_a_quick_or_partial_claims_run_never_replaces_a_full_report(tmp_path, args, words):
    """Finding 2: a copy of the committed reports/ refuses a quick or partial run in one line, untouched."""
    rep = tmp_path / "reports"
    shutil.copytree(ROOT / "reports", rep)
    before = snapshot(rep)
    one_line(cli("claims", *args, "--out", rep), 1, words)
    assert snapshot(rep) == before


def test_finding_2_claims_and_rule_tweaks_share_the_report_directory(tmp_path):
    """The report directory holds both claims and rule-tweaks output: neither refuses the other."""
    rep = tmp_path / "reports"
    shutil.copytree(ROOT / "reports", rep)
    old, owned = batchdir.check_dir(rep, "rule-tweaks", batchdir.identity_of(
        "rule-tweaks", json.loads((rep / "rule-tweaks.json").read_text())), ["rule-tweaks.csv"])
    assert old is not None and "rule-tweaks.csv" in owned


def test_finding_4_simulate_never_overwrites_a_users_csv_or_records(tmp_path, batch):
    """Finding 4: a user's rounds.csv in a new directory, or seats.csv / records.jsonl put into a batch."""
    u = tmp_path / "u"
    u.mkdir()
    (u / "rounds.csv").write_text("my,precious\n")
    one_line(cli("simulate", "--rounds", 10, "--out", u, "--csv", "--no-progress"), 1, "not empty", "rounds.csv")
    assert (u / "rounds.csv").read_text() == "my,precious\n"
    b = tmp_path / "b"
    shutil.copytree(batch, b)
    for name, option in (("seats.csv", ["--csv"]), ("records.jsonl", ["--records", 5])):
        (b / name).write_text("mine\n")
        before = snapshot(b)
        one_line(cli(*SMALL, "--out", b, *option), 1, name, "would overwrite")
        assert snapshot(b) == before
        (b / name).unlink()
    assert cli(*SMALL, "--out", b, "--csv", "--records", 5)[0] == 0      # now they are the batch's own
    assert cli(*SMALL, "--out", b, "--csv", "--records", 5)[0] == 0      # and stay its own
    m = json.loads((b / "manifest.json").read_text())
    assert {"rounds.csv", "records.jsonl"} <= set(m["outputs"])


def _failing_open(target: Path, err: int, after: int = 0, suffix: str = ""):
    """An `open` that fails (errno `err`) for files under `target` ending in `suffix`, after `after` bytes."""
    real = open

    class Full:
        def __init__(self, f):
            self.f, self.n = f, 0

        def write(self, data):
            self.n += len(data)
            if self.n > after:
                raise OSError(err, os.strerror(err))
            return self.f.write(data)

        def __getattr__(self, name):
            return getattr(self.f, name)

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.f.close()

    def fake(path, mode="r", *a, **kw):
        p = Path(path)
        if "w" in mode and str(p).startswith(str(target)) and p.name.endswith(suffix):
            if after == 0:
                raise OSError(err, os.strerror(err), str(p))
            return Full(real(path, mode, *a, **kw))
        return real(path, mode, *a, **kw)
    return fake


@pytest.mark.parametrize("command", [TOURNAMENT, SWEEP, ["claims", "--quick", "plays-per-round"], SMALL])
def test_finding_10_an_unwritable_out_is_refused_before_anything_is_played(tmp_path, monkeypatch, command):
    """Finding 10: a read-only --out (EROFS: root may write anywhere, so the file system says no) is one
    line before any play; `sweep` used to crash with a traceback after every cell was played."""
    import lostcards.cli.sweep as cli_sweep
    import lostcards.run.runner as runner
    out = tmp_path / "ro"
    monkeypatch.setattr(batchdir, "open", _failing_open(out, errno.EROFS), raising=False)

    def no_play(*a, **k):
        raise AssertionError("played before checking the directory")
    monkeypatch.setattr(runner, "play", no_play)
    monkeypatch.setattr(cli_sweep, "run_sweep", no_play)
    one_line(cli(*command, "--out", out), 1, f"cannot write to {out}", "Read-only file system")


@pytest.mark.parametrize("command, module, name", [
    (TOURNAMENT, "lostcards.analysis.tournament_report", "write"),
    (SWEEP, "lostcards.cli.sweep", "write"),
])
def test_finding_10_a_full_disk_while_writing_leaves_the_last_results_whole(tmp_path, monkeypatch, command, module,
                                                                            name):
    """Finding 10: the disk fills while a rerun writes its files: one line, no temporary file, and the
    files of the earlier run of the same command are as they were."""
    import importlib
    out = tmp_path / "o"
    assert cli(*command, "--out", out)[0] == 0
    before = snapshot(out)
    mod = importlib.import_module(module)
    real = getattr(mod, name)

    def full(*args, **kw):
        real(*args, **kw)                       # writes every file into the scratch folder, then:
        raise OSError(errno.ENOSPC, "No space left on device")
    monkeypatch.setattr(mod, name, full)
    fails_last(cli(*command, "--out", out), 1, "No space left on device", "nothing of this run was written")
    assert snapshot(out) == before and not leftovers(out)


@pytest.mark.parametrize("option, suffix", [(["--csv"], ".csv.tmp"), (["--records", "all"], "records.jsonl.tmp")])
def test_finding_11_a_full_disk_during_csv_or_records_leaves_no_temporary_file(tmp_path, monkeypatch, option,
                                                                              suffix):
    """Finding 11: rounds.csv.tmp / records.jsonl.tmp were left behind on a full disk."""
    out = tmp_path / "full"
    monkeypatch.setattr(batchdir, "open", _failing_open(out, errno.ENOSPC, after=100, suffix=suffix), raising=False)
    one_line(cli(*SMALL, "--out", out, *option), 1, "No space left on device", "the tables are complete")
    assert not leftovers(out)
    assert json.loads((out / "manifest.json").read_text())["complete"] is True
    monkeypatch.undo()
    assert cli(*SMALL, "--out", out, *option)[0] == 0 and not leftovers(out)


def test_a_stale_staging_folder_is_not_foreign_and_an_unfinished_claim_that_wrote_nothing_is_free(tmp_path):
    """A run killed before it wrote anything leaves only its claim: another run may take the directory."""
    out = tmp_path / "k"
    with batchdir.claim(out, "tournament", {"policies": ["a"]}, ("pairs.csv", "manifest.json"), "x"):
        (out / ".staging-1").mkdir()
    batchdir.check_dir(out, "tournament", {"policies": ["b"]}, ("pairs.csv",))
    (out / "pairs.csv").write_text("from the first run\n")
    with pytest.raises(BatchError, match="different tournament run"):
        batchdir.check_dir(out, "tournament", {"policies": ["b"]}, ("pairs.csv",))
