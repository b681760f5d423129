"""The package's surface: the public names, the error family, Ending/Outcome, entry points, the CLI's mapping."""
from __future__ import annotations

import subprocess
import sys

import pytest
from click.testing import CliRunner

import lostcards
from lostcards import errors
from lostcards.rules.outcome import FINISHED, Ending, Outcome


def test_import_lostcards_loads_no_numba_or_pandas():
    code = "import sys, lostcards; print(sorted(m for m in ('numba', 'pandas') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_names_do_not_change_meaning_when_subpackages_load():
    """`lostcards.rules` stays the function and `lostcards.play_records` the records function,
    whatever was imported before (records was once a module or a function depending on imports)."""
    code = ("import lostcards, lostcards.records.replay, lostcards.rules.streams, lostcards.run.load; "
            "print(callable(lostcards.rules), lostcards.rules.__module__, lostcards.play_records.__module__, "
            "type(lostcards.records).__name__, lostcards.load.__module__)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["True", "lostcards.rules.ruleset", "lostcards.run.runner", "module", "lostcards.run.load"]


def test_every_error_raised_on_purpose_is_a_lostcards_error():
    family = [v for v in vars(errors).values() if isinstance(v, type) and issubclass(v, Exception)]
    assert len(family) >= 10
    assert all(issubclass(e, errors.LostcardsError) for e in family)
    for e in (errors.RulesError, errors.CardError, errors.MalformedRecord, errors.PolicyError, errors.BatchError):
        assert issubclass(e, ValueError)        # callers have caught these as ValueError
    with pytest.raises(errors.RulesError):
        lostcards.rules(hand_size=0)


def test_ending_codes_are_stable_and_shared():
    assert [(e.value, e.code) for e in Ending] == [("deck", 0), ("stall", 1), ("hand-empty", 2), ("capped", 3),
                                                    ("unfinished", -1)]
    assert FINISHED == (Ending.DECK, Ending.STALL, Ending.HAND_EMPTY, Ending.CAPPED)
    assert Ending.of_code(3) is Ending.CAPPED and Ending.CAPPED == "capped" and f"{Ending.STALL}" == "stall"
    with pytest.raises(ValueError):
        Ending.of_code(7)
    from lostcards.engine import core
    assert (core.END_NONE, core.END_DECK, core.END_STALL, core.END_HAND_EMPTY, core.END_CAPPED) == (-1, 0, 1, 2, 3)


def test_outcome_winners_are_the_best_sides():
    assert Outcome(Ending.DECK, (12, -4)).winners == (0,)
    assert Outcome(Ending.STALL, (5, 5)).winners == (0, 1) and Outcome(Ending.STALL, (5, 5)).winner is None
    assert Outcome(Ending.HAND_EMPTY, (30,)).winners == (0,)


def test_a_broken_entry_point_is_named_not_dropped(monkeypatch, capsys):
    import importlib.metadata

    from lostcards import policies
    from lostcards.policies import registry

    class BrokenEP:
        name, value = "shiny", "shinybots:policy"

        def load(self):
            raise ImportError("No module named 'shinybots'")

    monkeypatch.setattr(importlib.metadata, "entry_points", lambda group=None: [BrokenEP()])
    monkeypatch.setattr(registry, "_loaded", False)
    monkeypatch.setattr(registry, "BROKEN", {})
    policies.names()
    policies.names()
    err = capsys.readouterr().err
    assert err.count("warning") == 1 and "'shiny'" in err and "shinybots" in err
    with pytest.raises(errors.PolicyError, match="shiny.*cannot be loaded"):
        policies.resolve("shiny")


def test_the_cli_maps_lostcards_errors_only():
    from lostcards.cli import main
    res = CliRunner().invoke(main, ["simulate", "--set", "hand_size=0", "--out", "unused"])
    assert res.exit_code == 1 and "hand_size" in res.output and "Traceback" not in res.output

    import click

    @main.command("boom-for-test")
    def boom():
        raise ValueError("a bug, not bad input")
    try:
        res = CliRunner().invoke(main, ["boom-for-test"])
        assert isinstance(res.exception, ValueError)     # a bug keeps its traceback
    finally:
        main.commands.pop("boom-for-test")
    assert isinstance(main, click.Group)
