"""What README.md and docs/*.md name exists: module paths, files of the repository and functions.

A dotted ``lostcards.x.y`` resolves (a module, then attributes), a file path
(``lostcards/engine/moves.py``, ``engine/moves.py``, ``tests/...``, ``docs/...``)
exists, and a ``name(...)`` in backticks is defined somewhere in the repository's
Python (or is a builtin).  The exceptions are named below, each with why.
"""
from __future__ import annotations

import ast
import builtins
import importlib
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", ROOT / "CONTRIBUTING.md", *sorted((ROOT / "docs").glob("*.md"))]
# names the documents use that are not this repository's
EXCEPTIONS = {
    "numpy.random.default_rng()",        # numpy's
    "sqrt()",                            # a formula's square root
}
CODE = re.compile(r"`([^`\n]+)`")
DOTTED = re.compile(r"\blostcards(?:\.[A-Za-z_]\w*)+")
FILE = re.compile(r"(?<![\w./-])((?:lostcards|engine|policies|rules|run|analysis|records|reference|cli|interactive"
                  r"|tests|docs|experiments|examples)/[\w/.-]*\.(?:py|md))")
BARE_FILE = re.compile(r"(?<![\w./-])(lostcards/[\w/.-]*\.py)")
CALL = re.compile(r"(?<![\w.])([A-Za-z_][\w.]*)\(")


def defined_names() -> set:
    """Every function, class and assigned name of the repository's Python."""
    out = set()
    for folder in ("lostcards", "experiments", "tests", "examples"):
        for f in (ROOT / folder).rglob("*.py"):
            if "__pycache__" in f.parts:
                continue
            for node in ast.walk(ast.parse(f.read_text())):
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    out.add(node.name)
                elif isinstance(node, ast.Assign):
                    out.update(n.id for t in node.targets for n in ast.walk(t) if isinstance(n, ast.Name))
    return out


def resolves(dotted: str) -> bool:
    parts = dotted.split(".")
    for k in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:k]))
        except ModuleNotFoundError:
            continue
        try:
            for p in parts[k:]:
                obj = getattr(obj, p)
        except AttributeError:
            return False
        return True
    return False


def missing(text: str, names: set) -> list:
    """(line, what) of every documented path or name in `text` that does not exist."""
    bad = []
    for i, line in enumerate(text.splitlines(), 1):
        bad += [(i, p) for p in BARE_FILE.findall(line) if not (ROOT / p).exists()]
        for code in CODE.findall(line):
            bad += [(i, d) for d in DOTTED.findall(code) if not resolves(d)]
            bad += [(i, p) for p in FILE.findall(code)
                    if not ((ROOT / p).exists() or (ROOT / "lostcards" / p).exists())]
            bad += [(i, c + "()") for c in CALL.findall(code)
                    if c.split(".")[-1] not in names and not hasattr(builtins, c.split(".")[-1])]
    return [(i, what) for i, what in bad if what not in EXCEPTIONS]


@pytest.fixture(scope="module")
def names():
    return defined_names()


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.name)
def test_every_documented_path_and_name_exists(doc, names):
    assert not missing(doc.read_text(), names), missing(doc.read_text(), names)


def test_the_check_finds_what_is_gone(names):
    text = ("`lostcards.policies.resolve` and `lostcards.policies.no_such_thing`; `engine/moves.py`, "
            "`engine/gone.py`, lostcards/rules/gone.py; `names()`, `no_such_function(x)`")
    assert missing(text, names) == [(1, "lostcards/rules/gone.py"), (1, "lostcards.policies.no_such_thing"),
                                    (1, "engine/gone.py"), (1, "no_such_function()")]
