"""The registry: a bot is one module declaring ``POLICIES``, and every tool and test finds it by ``names()``.

A toy bot added to a copy of the package (one new file, nothing else touched) shows
up in the list of bots, among improve's bases, in the suit-symmetry test's bots and in
``bench --compile``'s entries; and a bot's numba cache key holds the code it compiles,
not the registry's (an edit of the registry's text recompiles no bot).
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from package_copy import copy_package

from lostcards.numba_cache import PACKAGE, sources
from lostcards.policies import bases, names, resolve

TESTS = Path(__file__).resolve().parent
TOY = '''"""`toy`: the lowest card of the hand onto its discard pile, then a deck draw."""
from lostcards.engine.moves import DRAW_DECK, TO_DISCARD, make_play
from lostcards.engine.observation import hand_card
from lostcards.numba_cache import jit
from lostcards.policies.parameters import Policy


@jit
def toy_policy(obs, params, mem):
    return make_play(hand_card(obs, 0), TO_DISCARD, DRAW_DECK)


POLICIES = (Policy("toy", toy_policy, doc="the lowest card away", compile_s=3.0, improvable=True,
                   test_rounds=1_000),)
'''

# in the copy: where the toy bot is found, as JSON (nothing compiles)
LISTS = """
import importlib.util, json, sys
from lostcards.policies import bases, names, resolve
from lostcards.run.compile_report import _entries
spec = importlib.util.spec_from_file_location("suit_symmetry", sys.argv[1])
suit = importlib.util.module_from_spec(spec)
spec.loader.exec_module(suit)
improved = resolve("improve:base=toy") if "toy" in names() else None
print(json.dumps({"names": names(), "bases": list(bases()), "suit": suit.BOTS,
                  "improve": improved and [improved.spec, improved.base.name], "bench": [n for n, _ in _entries()]}))
"""

# in the copy: the cache key (stamp) of each bot's kernel
STAMPS = """
import json
from lostcards.numba_cache import source_hash, sources
from lostcards.policies import names, resolve
out = {}
for n in names():
    k = resolve(n).kernel
    if k is not None:
        out[n] = source_hash(sources(k.py_func.__code__.co_filename))
print(json.dumps(out))
"""


@pytest.fixture(scope="module")
def package_copy(tmp_path_factory):
    """A copy of the package (no caches) and a way to run Python in it: (top, run)."""
    top, python = copy_package(tmp_path_factory, timeout=300)

    def run(code, *args):
        return json.loads(python("-c", code, *args).stdout.strip().splitlines()[-1])
    return top, run


def test_a_toy_bot_in_one_file_is_found_everywhere(package_copy):
    top, run = package_copy
    before = run(LISTS, str(TESTS / "test_suit_symmetry.py"))
    assert "toy" not in before["names"]
    (top / "lostcards" / "policies" / "toy.py").write_text(TOY)
    got = run(LISTS, str(TESTS / "test_suit_symmetry.py"))
    assert got["names"] == sorted([*before["names"], "toy"])
    assert got["bases"] == [*before["bases"], "toy"] and got["bases"][0] == "expert"   # expert stays the default
    assert got["suit"] == {**before["suit"], "toy": 1_000}
    assert got["improve"] == ["improve:base=toy", "toy"]
    assert "toy decider" in got["bench"] and "toy decider" not in before["bench"]


@pytest.mark.slow      # worker processes, a package copy or a long play: make test-slow
def test_an_edit_of_the_registry_changes_no_bots_cache_key(package_copy):
    top, run = package_copy
    before = run(STAMPS)
    assert {"random", "greedy", "expert", "staller", "search", "improve", "blueprint", "learned",
            "learned-mc"} <= set(before)
    for f in ("policies/__init__.py", "policies/registry.py", "policies/user.py"):
        p = top / "lostcards" / f
        p.write_text(p.read_text().replace('"""', '"""An edited docstring. ', 1))
    assert run(STAMPS) == before
    p = top / "lostcards" / "policies" / "expert.py"          # while an edit of a bot's own code does
    p.write_text(p.read_text() + "\n# an edit\n")
    after = run(STAMPS)
    assert after["expert"] != before["expert"] and after["staller"] != before["staller"]
    assert after["greedy"] == before["greedy"]


def test_no_bot_kernel_imports_the_registry():
    registry = {PACKAGE / "policies" / f for f in ("__init__.py", "registry.py", "user.py")}
    for name in names():
        k = resolve(name).kernel
        if k is not None:
            assert not registry & set(sources(k.py_func.__code__.co_filename)), name


def test_a_bots_facts_are_on_its_policy():
    assert resolve("expert").improvable and not resolve("improve").improvable
    assert bases()[0] == "expert" and set(bases()) == {n for n in names() if resolve(n).improvable}
    assert resolve("search").slow and resolve("search").quick_spec == "search:iterations=150"
    assert resolve("search:iterations=9").slow                 # the facts survive parameters
    assert resolve("improve:base=greedy").compile_s == resolve("improve").compile_s
    assert all(resolve(n).compile_s > 0 and resolve(n).test_rounds > 0 for n in names())
