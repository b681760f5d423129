"""Issue 11, findings 12, 17, 18, 19 and 20: Ctrl-C, first contact, exit statuses and help."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest
from safety_tools import ROOT, cli, default_sigint, env, leftovers, lines, one_line, sub

from lostcards.cli.app import COMMANDS, EXIT_HELP
from lostcards.cli.status import EXIT_BROKEN_PIPE, EXIT_FAILED, EXIT_FLAGGED, EXIT_INTERRUPTED, EXIT_OK, EXIT_USAGE


def interrupt(args, cwd, after: float, wait: float = 60, started=None):
    """Start `lostcards ARGS` in its own process group and press Ctrl-C (SIGINT to the group) after `after` s
    (counted from when the file `started` appears, if given: a loaded machine may take a while to get there)."""
    p = subprocess.Popen([sys.executable, "-m", "lostcards", *map(str, args)], cwd=cwd, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, env=env(), start_new_session=True,
                         preexec_fn=default_sigint)
    limit = time.time() + wait
    while started is not None and not started.exists() and p.poll() is None and time.time() < limit:
        time.sleep(0.05)
    time.sleep(after)
    t = time.time()
    os.killpg(p.pid, signal.SIGINT)
    try:
        out, err = p.communicate(timeout=wait)
    except subprocess.TimeoutExpired:         # the premise is lost: fail now, not after the whole batch
        os.killpg(p.pid, signal.SIGKILL)
        p.communicate()
        pytest.fail(f"Ctrl-C not honoured within {wait} s: lostcards {' '.join(map(str, args))}")
    return p.returncode, out, err, time.time() - t


def test_a_child_sees_ctrl_c_even_when_the_test_runner_ignores_it():
    """The premise of every Ctrl-C test: a suite started from a background job ignores SIGINT, and a child
    inherits that unless it is started with the default disposition."""
    probe = [sys.executable, "-c",
             "import signal; print(signal.getsignal(signal.SIGINT) is signal.default_int_handler)"]
    old = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        plain = subprocess.run(probe, capture_output=True, text=True).stdout.strip()
        fixed = subprocess.run(probe, capture_output=True, text=True, preexec_fn=default_sigint).stdout.strip()
    finally:
        signal.signal(signal.SIGINT, old)
    assert (plain, fixed) == ("False", "True")


@pytest.mark.parametrize("after", [0.15, 0.4, 0.8])
def test_finding_12_ctrl_c_while_starting_is_one_line_and_130(tmp_path, after):
    """Finding 12: Ctrl-C in the first second (imports) gave a traceback and exit -2."""
    code, out, err, _ = interrupt(["simulate", "--rounds", 1000, "--no-progress", "--out", tmp_path / "b"], tmp_path,
                                  after)
    if code == 0:        # the machine was quick: it was done before the signal came, so nothing was tested
        pytest.skip(f"the command finished before Ctrl-C at {after} s")
    one_line((code, out, err), EXIT_INTERRUPTED, "interrupted")


@pytest.mark.slow      # a subprocess or a whole small run: make test-slow
def test_finding_8_and_12_ctrl_c_inside_a_long_shard_is_honoured_at_once(tmp_path):
    """Finding 8: with --shard-size 100000000 SIGINT was not honoured for 90 s+. Here one shard of expert
    self-play takes most of a minute; Ctrl-C after a few seconds stops it within seconds, loses nothing."""
    out = tmp_path / "long"
    # compile (or load) expert's decider first: a signal is not seen while LLVM compiles, and this test is
    # about a shard that is playing
    sub("simulate", "--rounds", 20, "--policies", "expert,expert", "--no-progress", "--out", tmp_path / "warm")
    code, so, se, took = interrupt(["simulate", "--rounds", 2_000_000, "--shard-size", 2_000_000, "--policies",
                                    "expert,expert", "--no-progress", "--out", out], tmp_path, after=2,
                                   wait=20, started=out / "manifest.json")
    one_line((code, so, se), EXIT_INTERRUPTED, "interrupted: finished shards are kept", "run the same command")
    assert took < 10, took
    m = json.loads((out / "manifest.json").read_text())
    assert m["shards_done"] == [] and not leftovers(out)


@pytest.mark.slow      # two Dask workers each compile the page's policy cold
def test_finding_12_dask_local_prints_no_worker_log_for_an_illegal_policy(tmp_path):
    """Finding 12: ~7 lines of `distributed.worker` log came before the clean message."""
    pytest.importorskip("distributed")
    (tmp_path / "illbots.py").write_text(
        "from numba import njit\nfrom lostcards.engine.core import make_play, TO_DISCARD\n"
        "from lostcards.engine.observation import hand_card\n\n\n@njit(cache=True)\n"
        "def illegal(obs, params, rng):\n    return make_play(hand_card(obs, 0), TO_DISCARD, 1)\n")
    res = sub("simulate", "--policies", "illbots:illegal,random", "--rounds", 20, "--dask-local", 2, "--no-progress",
              "--out", tmp_path / "d", cwd=tmp_path)
    one_line(res, EXIT_FAILED, "a policy made an illegal move")


@pytest.mark.slow
def test_finding_12_dask_local_ctrl_c_is_one_line(tmp_path):
    pytest.importorskip("distributed")
    code, out, err, _ = interrupt(["simulate", "--rounds", 100_000_000, "--shard-size", 1_000_000, "--dask-local", 2,
                                   "--no-progress", "--out", tmp_path / "d"], tmp_path, after=25)
    one_line((code, out, err), EXIT_INTERRUPTED, "interrupted")


def test_finding_19_a_broken_pipe_is_not_a_verdict(tmp_path):
    """Finding 19: `lostcards replay FILE | head` exited 1, replay's status for an illegal turn."""
    import lostcards
    recs = lostcards.play_records(lostcards.rules(), "random", round_indices=range(400))
    f = tmp_path / "many.jsonl"
    f.write_text("\n".join(json.dumps(r) for r in recs) + "\n")
    p = subprocess.Popen([sys.executable, "-m", "lostcards", "replay", f], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, env=env())
    p.stdout.readline()
    p.stdout.close()                           # what `head -1` does
    err = p.stderr.read().decode()
    assert p.wait(timeout=120) == EXIT_BROKEN_PIPE and err == ""


@pytest.mark.parametrize("args, status", [
    (["rules"], EXIT_OK),
    (["simulate", "--set", "hand_size=0"], EXIT_FAILED),
    (["simulate", "--policies", "nosuchbot"], EXIT_FAILED),
    (["summary", "/nonexistent/batch"], EXIT_FAILED),
    (["simulate", "--no-such-option"], EXIT_USAGE),
    (["simulate", "--rounds", "abc"], EXIT_USAGE),
    (["simulate", "--rounds", 0], EXIT_USAGE),
    (["no-such-command"], EXIT_USAGE),
    (["replay"], EXIT_USAGE),
])
def test_finding_19_every_row_of_the_exit_status_table(args, status):
    """Finding 19: click's usage errors exit 2, lostcards' refusals 1, each in one line."""
    res = cli(*args)
    if status == EXIT_OK:
        assert res[0] == EXIT_OK and "Traceback" not in res[1] + res[2]
    else:
        one_line(res, status)


def test_finding_19_fail_on_flag_is_3(tmp_path):
    code, out, err = cli("sweep", "--rounds", 30, "--policy", "random", "--opponents", "random", "--skill-rounds", 30,
                         "--max-stall", 0, "--fail-on-flag", "--no-progress", "--out", tmp_path / "sw")
    assert code == EXIT_FLAGGED and "FLAG" in out, out + err


def test_finding_19_the_table_is_documented_where_users_look():
    readme = (ROOT / "README.md").read_text()
    table = readme.split("## Exit statuses", 1)[1].split("\n## ", 1)[0]
    code, out, _ = cli("--help")
    for status in (EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_FLAGGED, EXIT_INTERRUPTED, EXIT_BROKEN_PIPE):
        assert f"| {status} |" in table and f"  {status} " in EXIT_HELP and f"{status}" in out


@pytest.mark.parametrize("args", [["rules"], ["--help"], ["simulate", "--help"], ["tournament", "--help"],
                                  ["replay", "RECORD"], ["summary", "BATCH"]])
def test_finding_17_commands_that_need_no_engine_do_not_import_numba(tmp_path, args):
    """Finding 17: the first command after install (`lostcards rules`) compiled numba silently for a minute."""
    import lostcards
    rec = tmp_path / "r.json"
    rec.write_text(json.dumps(lostcards.play_records(lostcards.rules(), "random", round_indices=[0])[0]))
    batch = tmp_path / "b"
    assert cli("simulate", "--rounds", 20, "--no-progress", "--out", batch)[0] == 0
    args = [str(rec) if a == "RECORD" else str(batch) if a == "BATCH" else a for a in args]
    code = ("import sys\nfrom lostcards.cli.app import main_status\n"
            f"rc = main_status({args!r})\nprint('NUMBA', 'numba' in sys.modules, rc)\n")
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env(), timeout=120)
    assert res.stdout.strip().splitlines()[-1] == "NUMBA False 0", res.stdout + res.stderr


def test_finding_18_a_small_shard_size_warns(tmp_path):
    """Finding 18: --shard-size 1 ran 11 rounds/s rewriting the manifest per shard, silently."""
    code, out, err = cli("simulate", "--rounds", 200, "--shard-size", 10, "--no-progress", "--out", tmp_path / "s")
    assert code == 0 and "warning: --shard-size 10 is small: each of the 20 shards rewrites the manifest" in err


def test_finding_18_and_20_every_option_says_what_it_does():
    """Finding 20: simulate --rounds, --seed and bench --json had no description; claims --quick promised
    "about a minute" (it took two)."""
    import click

    from lostcards.cli.app import main
    ctx = click.Context(main)
    for name, (_, _, short) in COMMANDS.items():
        cmd = main.get_command(ctx, name)
        assert cmd.get_short_help_str(limit=200) == short, name
        for p in cmd.params:
            if isinstance(p, click.Option) and p.name != "help":
                assert p.help and len(p.help) > 10, f"{name} {p.opts}"
    quick = next(p for p in main.get_command(ctx, "claims").params if p.name == "quick")
    assert "about a minute" not in quick.help


def test_finding_20_the_license_is_an_spdx_expression():
    """Finding 20: setuptools warned about the `project.license` table (builds break after 2027-02-18)."""
    import tomllib
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert isinstance(project["license"], str) and project["license-files"] == ["LICENSE"]
    assert not any("License ::" in c for c in project.get("classifiers", []))


def test_the_command_line_still_names_what_was_refused():
    assert lines(*cli("simulate", "--set", "hand_size=0")[1:]) == [
        "Error: hand_size = 0 is not allowed: 1..23 (2 hands must leave a draw pile from 48 cards)"]


@pytest.mark.slow      # a subprocess or a whole small run: make test-slow
def test_ctrl_c_inside_a_long_search_decision_is_honoured_within_a_second(tmp_path):
    """Issue 21: with search:iterations=1000000 one decision takes minutes; Ctrl-C ended the run 318 s later."""
    out = tmp_path / "s"
    sub("simulate", "--rounds", 2, "--policies", "search:iterations=10,random", "--no-progress",
        "--out", tmp_path / "warm")                      # load (or compile) search's decider first
    code, so, se, took = interrupt(["simulate", "--rounds", 1000, "--policies", "search:iterations=1000000,random",
                                    "--no-progress", "--out", out], tmp_path, after=3, wait=20,
                                   started=out / "manifest.json")
    one_line((code, so, se), EXIT_INTERRUPTED, "interrupted")
    assert took < 3, took


def test_ctrl_c_at_any_moment_is_the_interrupted_line_or_a_finished_run():
    """Issue 21: a SIGINT in a command's last moments killed it by the signal, with no line (12 of 30 tries).
    Sent at random moments over a whole `lostcards rules`: exit 130 and the line, or exit 0 and all of it.
    The moments start after the bare interpreter's own start-up (site and its .pth files, before any line of
    lostcards runs: a signal there is Python's, not the command's); `rules` takes about 0.1 s when warm."""
    import random
    rng = random.Random(21)

    def took(cmd):
        t = time.time()
        done = subprocess.run(cmd, capture_output=True, text=True, env=env(), preexec_fn=default_sigint)
        return done, time.time() - t

    bare = max(took([sys.executable, "-c", "pass"])[1] for _ in range(3))
    cmd = [sys.executable, "-m", "lostcards", "rules"]
    whole, whole_s = took(cmd)
    assert whole.returncode == 0
    for _ in range(12):
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env(),
                             preexec_fn=default_sigint)
        time.sleep(rng.uniform(min(2 * bare, whole_s), 1.1 * whole_s))
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=60)
        assert p.returncode in (EXIT_OK, EXIT_INTERRUPTED), (p.returncode, err[-300:])
        if p.returncode == EXIT_OK:
            assert out == whole.stdout
        else:
            assert "interrupted" in err and "Traceback" not in err, err[-300:]
