"""The package's layers, checked on the code itself (the import graph of test_layout, drawn from the AST).

Each package of lostcards sits on a floor, and a module imports only from its
own floor's package or from below (imports inside functions count):

    ground (errors, stats, numba_cache) -> rules -> reference -> records -> engine -> policies
    -> run -> analysis, training -> interactive -> cli, web

``lostcards/__init__.py`` (the public API) and ``__main__`` stand above them
all.  And no module outside ``lostcards.policies`` imports a bot's internals
(``lostcards.policies.<bot>``): the registry (``lostcards.policies``) is how
the rest of the package reaches a bot.
"""
from __future__ import annotations

from test_layout import MODULES, graph

GROUND = ("errors", "stats", "numba_cache")
FLOORS = {**{g: 0 for g in GROUND}, "rules": 1, "reference": 2, "records": 3, "engine": 4, "policies": 5,
          "run": 6, "analysis": 7, "training": 7, "interactive": 8, "cli": 9, "web": 9}
TOP = {"lostcards", "lostcards.__main__"}
# known exceptions, each to go when its module moves (and then this test says so)
PENDING: set[tuple[str, str]] = set()


def floor_of(module: str) -> int:
    package = module.split(".")[1]
    assert package in FLOORS, f"{module}: the package {package!r} has no floor in FLOORS (put it on one)"
    return FLOORS[package]


def _edges():
    return sorted((m, d) for m, deps in graph().items() for d in deps if m not in TOP)


def test_every_package_has_a_floor():
    for m in MODULES:
        if m not in TOP:
            floor_of(m)


def test_no_import_runs_from_a_lower_floor_to_a_higher_one():
    bad = [f"{m} (floor {floor_of(m)}) imports {d} (floor {floor_of(d)})" for m, d in _edges()
           if d not in TOP and floor_of(d) > floor_of(m) and (m, d) not in PENDING]
    assert not bad, "\n".join(bad)


def _bot_internal(module: str) -> bool:
    """A module inside a bot's package (lostcards.policies.BOT.MODULE): the bot's own business.  A bot's
    package itself (what its __init__ exports) and a one-module bot are its public face."""
    return module.startswith("lostcards.policies.") and module.count(".") >= 3


def test_no_module_outside_the_bots_imports_a_bots_internals():
    bad = [f"{m} imports {d}" for m, d in _edges()
           if not m.startswith("lostcards.policies") and _bot_internal(d) and (m, d) not in PENDING]
    assert not bad, "\n".join(bad)


def test_the_pending_exceptions_still_exist():
    """An exception that no longer occurs is taken off PENDING (so it cannot come back unnoticed)."""
    edges = set(_edges())
    gone = sorted(p for p in PENDING if p not in edges)
    assert not gone, "no longer imported, take off PENDING: " + ", ".join(f"{m} -> {d}" for m, d in gone)


def test_the_checks_can_fail():
    assert floor_of("lostcards.run.summary") < floor_of("lostcards.analysis.stats_anything")
    assert floor_of("lostcards.stats") < floor_of("lostcards.rules.ruleset")
    assert _bot_internal("lostcards.policies.improve.decision") and not _bot_internal("lostcards.policies")
