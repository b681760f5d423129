"""The package's layout rules, checked on the code itself (the import graph drawn from the AST).

- no import cycle among lostcards' modules (imports inside functions count);
- nothing outside ``lostcards.cli`` imports ``lostcards.cli`` or click;
- no module imports another module's ``_private`` name;
- modules stay under ``MAX_LINES`` lines, but for the few named below;
- the state's bit layout is read through the engine's named helpers only (``engine/layout.py``,
  ``engine/state.py``, ``engine/cardsets.py``): no raw layout arithmetic outside ``lostcards/engine``.
"""
from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1] / "lostcards"
MAX_LINES = 450
# long by nature: the expert bot's decision procedure and the reference engine (it reads like the rule sheet)
LONG_OK = {"lostcards.policies.expert", "lostcards.reference.round"}
# known exceptions, to be split by their owners (none at present)
LONG_FOR_NOW: set = set()



def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules() -> dict[str, Path]:
    return {module_name(p): p for p in sorted(ROOT.rglob("*.py")) if "__pycache__" not in p.parts}


MODULES = modules()


def imports(name: str, path: Path):
    """(imported module, imported names) for every import in the module, at any depth."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                yield a.name, ()
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            yield mod, tuple(a.name for a in node.names)


def graph() -> dict[str, set]:
    """module -> the lostcards modules it imports (``from pkg import mod`` counts as importing mod)."""
    g = {}
    for name, path in MODULES.items():
        deps = set()
        for mod, names in imports(name, path):
            if mod in MODULES:
                deps.add(mod)
            for n in names:
                if f"{mod}.{n}" in MODULES:
                    deps.add(f"{mod}.{n}")
        deps.discard(name)
        # Python runs lostcards/__init__.py before any submodule, so a submodule's import of the
        # root package itself (for __version__) orders nothing; the root's own (lazy) imports count.
        deps.discard("lostcards")
        g[name] = deps
    return g


def cycles(g: dict[str, set]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(g.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(g):
        if v not in index:
            visit(v)
    return out


def test_there_are_modules():
    assert "lostcards.rules.ruleset" in MODULES and "lostcards.cli" in MODULES


def test_no_import_cycle():
    found = cycles(graph())
    assert not found, "import cycles: " + "; ".join(" -> ".join(c) for c in found)


def test_the_library_never_imports_the_cli_or_click():
    bad = []
    for name, path in MODULES.items():
        if name in ("lostcards.cli", "lostcards.__main__") or name.startswith("lostcards.cli."):
            continue
        for mod, _ in imports(name, path):
            if mod == "lostcards.cli" or mod.startswith("lostcards.cli.") or mod.split(".")[0] == "click":
                bad.append(f"{name} imports {mod}")
    assert not bad, "\n".join(bad)


def test_no_module_uses_another_modules_private_names():
    bad = []
    for name, path in MODULES.items():
        for mod, names in imports(name, path):
            if not mod.startswith("lostcards"):
                continue
            for n in names:
                if n.startswith("_") and not n.startswith("__"):
                    bad.append(f"{name} imports {mod}.{n}")
            if any(p.startswith("_") and not p.startswith("__") for p in mod.split(".")):
                bad.append(f"{name} imports the private module {mod}")
    assert not bad, "\n".join(bad)


def test_no_private_attribute_of_a_lostcards_module():
    """``engine._new_state`` after ``from lostcards.engine import core as engine`` is private use too."""
    bad = []
    for name, path in MODULES.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        aliases = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("lostcards"):
                for a in node.names:
                    if f"{node.module}.{a.name}" in MODULES:
                        aliases.add(a.asname or a.name)
            elif isinstance(node, ast.Import):
                for a in node.names:
                    if a.name.startswith("lostcards"):
                        aliases.add(a.asname or a.name.split(".")[0])
        for node in ast.walk(tree):
            if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                    and node.value.id in aliases and node.attr.startswith("_") and not node.attr.startswith("__")):
                bad.append(f"{name}:{node.lineno} uses {node.value.id}.{node.attr}")
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize("name", sorted(MODULES))
def test_module_size(name):
    lines = len(MODULES[name].read_text(encoding="utf-8").splitlines())
    if name in LONG_OK:
        return
    if name in LONG_FOR_NOW:
        if lines <= MAX_LINES:
            pytest.fail(f"{name} is down to {lines} lines: take it off LONG_FOR_NOW")
        pytest.xfail(f"{name}: {lines} lines, a known exception until it is split")
    assert lines <= MAX_LINES, f"{name} has {lines} lines (at most {MAX_LINES})"


def test_every_package_is_installed():
    """pyproject lists its packages by hand (for the experiments mapping): none may be missing."""
    tomllib = pytest.importorskip("tomllib")        # Python 3.11+
    cfg = tomllib.loads((ROOT.parent / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    listed = set(cfg["packages"])
    packages = {module_name(p) for p in ROOT.rglob("__init__.py")}
    assert packages | {"lostcards.experiments"} == listed
    assert cfg["package-dir"] == {"lostcards.experiments": "experiments"}


# raw layout arithmetic: a suit from a code, the high word's base, offsets into the state's hand, table
# and knowledge words, a discard-pile entry decoded by hand, a lane or slot mask spelt out
RAW_LAYOUT = re.compile(r"\*\s*43\)\s*>>\s*9|HI_BASE\s*=|\bS_(HAND|PILE|EXP|ACC|KNOWN|NONEMPTY)\s*\+"
                        r"|&\s*15\b|>>\s*\(4\s*\*|\b(NUMBER_SLOTS|LANE)\s*=\s*(0x|\()")


def test_no_raw_layout_arithmetic_outside_the_engine():
    """Every bit of the state is read through engine/ (one rules core): a bot or an analysis that decodes
    the layout itself breaks silently when the layout changes."""
    found = [f"{name}:{i}: {line.strip()}" for name, path in MODULES.items()
             if not name.startswith("lostcards.engine")
             for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
             if RAW_LAYOUT.search(line.split("#")[0])]
    assert not found, "\n".join(found)


# a lane's slot masks spelt out: the numbers (0xFF8), the investments (7, 0b111), the whole lane (0xFFF)
RAW_MASK = re.compile(r"\b(0x[fF]{2}8|0x[fF]{3}|0b111)\b|&\s*7\b|\b7\s*&")


def test_lane_masks_are_named_everywhere():
    """NUMBER_SLOTS, INVESTMENT_SLOTS and LANE (engine/layout.py, where they are defined) instead of
    their raw values, in the engine too: a raw 0xFF8 beside a named NUMBER_SLOTS reads as two things."""
    found = [f"{name}:{i}: {line.strip()}" for name, path in MODULES.items()
             if name not in ("lostcards.engine.layout", "lostcards.engine.bits")   # bits: bit tricks, no lanes
             for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
             if RAW_MASK.search(line.split("#")[0])]
    assert not found, "\n".join(found)


def test_the_raw_mask_check_can_fail():
    for line in ["n = ln & 0xFF8", "inv = popcount(hl & 7)", "x = 0b111", "ln = w & 0xfff", "7 & lane"]:
        assert RAW_MASK.search(line), line
    for line in ["n = ln & NUMBER_SLOTS", "x = y & 70", "z = 0xFF80"]:
        assert not RAW_MASK.search(line), line


def test_the_raw_layout_check_can_fail():
    for line in ["s = (c * 43) >> 9", "HI_BASE = 60", "b = S_HAND + me * 4", "t = (w & 15) - 1",
                 "e = (lo >> (4 * k))", "NUMBER_SLOTS = 0xFF8", "x = st[S_PILE + 2 * s]"]:
        assert RAW_LAYOUT.search(line), line
