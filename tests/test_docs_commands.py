"""Issue 11, finding 16: every `lostcards` command of README.md and docs/*.md runs as written.

Commands are taken from code blocks and from inline code that gives options;
sizes are shrunk (`--rounds N` to a few, a few rounds where none is given, `...`
dropped) and each runs in a scratch directory.  `docs/policies.md`'s
`mymodule:first_card_away` runs with that page's own code saved as
`mymodule.py` in the working directory, as the page says.  README's Quick start
is tests/test_readme.py's.
"""
from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
from safety_tools import ROOT, cli, sub

PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
SMALL = {"simulate": 40, "tournament": 20, "sweep": 30, "rule-tweaks": 30}


def commands(page: Path) -> list[list[str]]:
    """The page's `lostcards` commands (code-block lines, and inline code with options), as argument lists."""
    text = page.read_text(encoding="utf-8")
    if page.name == "README.md":        # the Quick start is tests/test_readme.py's
        text = text.replace(text.split("## Quick start", 1)[1].split("\n## ", 1)[0], "")
    found = []
    for line in text.splitlines():
        s = line.strip()
        s = s[len(".venv/bin/"):] if s.startswith(".venv/bin/lostcards ") else s
        if s.startswith("lostcards ") and (line.startswith("    ") or line.startswith("lostcards ")):
            found.append(s)
    found += re.findall(r"`(lostcards [a-z-]+ --[^`]*)`", text)
    out = []
    for cmd in found:
        args = [a for a in shlex.split(cmd, comments=True)[1:] if a != "..."]
        if any(a.isupper() for a in args):      # a placeholder such as DIR or FILE
            continue
        out.append(args)
    return out


def _plays_out(args: list[str]) -> bool:
    """A bot of the command's --policies (or a ladder's --bots) plays games out at every decision (its
    ``slow`` fact)."""
    from lostcards.errors import PolicyError
    from lostcards.policies import resolve, split_policies
    for prev, a in zip(["", *args], args):
        if prev in ("--policies", "--bots"):
            try:
                return any(resolve(p).slow for p in split_policies(a))
            except PolicyError:         # a user's module of the page (mymodule:...), written in the test's folder
                return False
    return False


def shrink(args: list[str]) -> list[str]:
    if args[0] == "ladder":            # two deals a table: the command as written, its sample cut
        args = ["2" if prev in ("--deals", "--solitaire-deals") else a for prev, a in zip(["", *args], args)]
        return args + [a for opt in ("--deals", "--solitaire-deals") if opt not in args for a in (opt, "2")]
    n = SMALL.get(args[0])
    if n is None:
        return args
    if any("search" in a for a in args) or _plays_out(args):
        n = 2 if args[0] == "simulate" else 4       # search, improve, learned-mc: about a second a round
    args = [str(n) if prev == "--rounds" else a for prev, a in zip(["", *args], args)]
    if "--rounds" not in args:
        args += ["--rounds", str(n)]
    extra = {"tournament": ["--block", str(n), "--bootstrap", "0"], "sweep": ["--skill-rounds", "10"],
             "simulate": ["--no-progress"]}.get(args[0], [])
    return args + extra


def _unique(pairs):
    """Each command once (the page that gives it first), however many pages repeat it."""
    seen, out = set(), []
    for page, args in pairs:
        if tuple(args) not in seen:
            seen.add(tuple(args))
            out.append((page, args))
    return out


ALL = _unique((page.name, args) for page in PAGES for args in commands(page))
# a cold compile of every entry point: tests/test_numba_cache.py runs it (make test-slow)
ELSEWHERE = {("bench", "--compile")}


def test_the_pages_have_commands_to_run():
    names = {p for p, _ in ALL}
    assert {"policies.md", "tournament.md", "search.md"} <= names
    assert ["simulate", "--policies", "mymodule:first_card_away,random"] in [a for _, a in ALL]


RUN = [(p, a) for p, a in ALL if tuple(a) not in ELSEWHERE]
# a bot that plays out at every decision costs seconds even at two rounds: the first such command stays in
# the fast suite, the others run in make test-slow
PLAYS_OUT = [i for i, (_, a) in enumerate(RUN) if _plays_out(a)]


@pytest.mark.parametrize("page, args", [
    pytest.param(p, a, id=f"{p}:{' '.join(a)[:60]}", marks=pytest.mark.slow if i in PLAYS_OUT[1:] else ())
    for i, (p, a) in enumerate(RUN)])
def test_every_documented_command_runs(tmp_path, page, args):
    if "mymodule" in " ".join(args):
        policies = (ROOT / "docs" / "policies.md").read_text(encoding="utf-8")
        code = policies.split("```python", 1)[1].split("```", 1)[0]
        (tmp_path / "mymodule.py").write_text(code)
        res = sub(*shrink(args), cwd=tmp_path)       # a fresh process: the page's module is found in its folder
        code, out, err = res.returncode, res.stdout, res.stderr
    else:                                               # in this process: the compiled bots stay loaded
        code, out, err = cli(*shrink(args), cwd=tmp_path)
    assert code == 0, f"lostcards {' '.join(args)}: exit {code}\n{out}\n{err}"
    assert "Traceback" not in err
