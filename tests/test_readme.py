"""The README's Quick start runs as written (issue 9: its `replay` line once failed).

The fast test runs every `lostcards` line of the Quick start in a scratch
directory, with the batch sizes shrunk (``--rounds 100000`` -> 2000, and a few
rounds where a line gives none); the slow one runs them exactly as
written.  `make` lines are the Makefile's business and are left out; so is
`claims --quick` in the fast test (tests/test_claims.py
runs it).
"""
from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"


def quick_start() -> list[list[str]]:
    """The Quick start's `lostcards` commands, as argument lists (comments dropped)."""
    text = README.read_text(encoding="utf-8")
    block = text.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    cmds = []
    for line in block.splitlines():
        line = line.strip()
        if not line.startswith(".venv/bin/lostcards "):
            continue
        cmds.append(shlex.split(line, comments=True)[1:])
    return cmds


def shrink(args: list[str]) -> list[str]:
    """The same command on a few rounds: --rounds 100000 -> 2000, a few hundred rounds where none is given."""
    args = ["2000" if a == "100000" else a for a in args]
    small = {"simulate": ["--rounds", "500"], "tournament": ["--rounds", "100", "--block", "100"],
             "sweep": ["--rounds", "30", "--skill-rounds", "20", "--no-progress"]}
    if args[0] in small and "--rounds" not in args:
        args += small[args[0]]
    if args[0] == "rule-tweaks":
        args = [{"300": "30", "3000": "300"}.get(a, a) for a in args]
    return args


def run(args, cwd):
    res = subprocess.run([sys.executable, "-m", "lostcards", *args], cwd=cwd, capture_output=True, text=True,
                         timeout=900)
    assert res.returncode == 0, f"lostcards {' '.join(args)} exited {res.returncode}:\n{res.stdout}\n{res.stderr}"
    return res


def test_the_quick_start_lists_the_commands():
    names = [c[0] for c in quick_start()]
    for cmd in ("rules", "simulate", "replay", "summary", "tournament", "sweep", "claims"):
        assert cmd in names, cmd
    i_sim = next(i for i, c in enumerate(quick_start()) if "runs/demo" in c and c[0] == "simulate")
    assert "--records" in quick_start()[i_sim], "replay runs/demo/records.jsonl needs simulate --records"


@pytest.mark.slow      # a subprocess or a whole small run: make test-slow
def test_the_quick_start_runs_small(tmp_path):
    """In this process (the slow test below starts each command afresh, as a user does)."""
    from safety_tools import cli
    for args in quick_start():
        if args[0] == "claims":
            continue
        code, out, err = cli(*shrink(args), cwd=tmp_path)
        assert code == 0, f"lostcards {' '.join(args)} exited {code}:\n{out}\n{err}"
        if args[0] == "replay":
            assert out.count('"ok": true') == 200, out[:500]


@pytest.mark.slow
def test_the_quick_start_runs_as_written(tmp_path):
    for args in quick_start():
        run(args, tmp_path)
