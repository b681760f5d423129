"""Helpers of the safety tests (issue 11): run a command in this process or in a fresh one, and check
that a refusal is one line with the right exit status and nothing touched."""
from __future__ import annotations

import contextlib
import io
import os
import signal
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def cli(*args, cwd=None) -> tuple[int, str, str]:
    """`lostcards ARGS` in this process: (exit status, stdout, stderr)."""
    from lostcards.cli.app import main_status
    args = [str(a) for a in args]
    out, err = io.StringIO(), io.StringIO()
    old_argv, old_cwd = sys.argv, os.getcwd()
    sys.argv = ["lostcards", *args]
    try:
        if cwd is not None:
            os.chdir(cwd)
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = main_status(args)
            except SystemExit as e:
                code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    finally:
        sys.argv = old_argv
        os.chdir(old_cwd)
    return code, out.getvalue(), err.getvalue()


def env(**extra) -> dict:
    e = dict(os.environ)
    e["PYTHONPATH"] = str(ROOT) + (os.pathsep + e["PYTHONPATH"] if e.get("PYTHONPATH") else "")
    e.update(extra)
    return e


def default_sigint() -> None:
    """`preexec_fn` for a child a test will interrupt: Ctrl-C works in it whatever the test runner ignores
    (a job started in the background inherits SIGINT ignored, and Python keeps it so)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


COMPILE_NOTICE = "lostcards: compiling "


def sub(*args, cwd=None, timeout=600, **popen) -> subprocess.CompletedProcess:
    """`python -m lostcards ARGS` in a fresh process."""
    return subprocess.run([sys.executable, "-m", "lostcards", *map(str, args)], cwd=cwd, capture_output=True,
                          text=True, timeout=timeout, env=env(), **popen)


def lines(out: str, err: str = "") -> list[str]:
    """The non-empty lines of a command's output, the one-line compile notice aside (a cold cache prints it)."""
    return [ln for ln in (out + err).splitlines() if ln.strip() and not ln.startswith(COMPILE_NOTICE)]


def one_line(res, status: int, *words):
    """A refusal: exit `status`, exactly one non-empty line of output, no traceback, naming `words`."""
    code, out, err = (res.returncode, res.stdout, res.stderr) if hasattr(res, "returncode") else res
    got = lines(out, err)
    assert code == status, f"exit {code}, not {status}: {out + err}"
    assert len(got) == 1, f"{len(got)} lines, not one:\n{out + err}"
    assert "Traceback" not in got[0]
    for w in words:
        assert w in got[0], f"{w!r} not in {got[0]!r}"
    return got[0]


def snapshot(d: Path) -> dict:
    """Every file under d with its bytes and modification time (the lock file aside)."""
    d = Path(d)
    return {str(p.relative_to(d)): (p.read_bytes(), p.stat().st_mtime_ns)
            for p in sorted(d.rglob("*")) if p.is_file() and p.name != ".lock"}


def leftovers(d: Path) -> list[str]:
    """Temporary files and scratch folders a run left behind."""
    return sorted(str(p.relative_to(d)) for p in Path(d).rglob("*")
                  if p.name.endswith(".tmp") or p.name.startswith((".staging-", ".write-test-")))


def fails_last(res, status: int, *words):
    """A failure after progress lines: exit `status`, no traceback, one error line and it is the last."""
    code, out, err = (res.returncode, res.stdout, res.stderr) if hasattr(res, "returncode") else res
    got = lines(out, err)
    assert code == status, f"exit {code}, not {status}: {out + err}"
    assert "Traceback" not in out + err and sum(ln.startswith("Error") for ln in got) == 1, out + err
    for w in words:
        assert w in got[-1], f"{w!r} not in {got[-1]!r}"
    return got[-1]


def interrupt(p: subprocess.Popen, what: str, within: float = 10.0) -> int:
    """Ctrl-C to child `p` (started with `default_sigint`); its exit status, or AssertionError naming `what`
    when it is still running `within` seconds later (the child is then killed)."""
    p.send_signal(signal.SIGINT)
    try:
        return p.wait(timeout=within)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()
        raise AssertionError(f"Ctrl-C did not stop {what} within {within:g} s") from None
