"""Issue 11, findings 7, 13 and 16 (a module in the working directory): policies fail in one line."""
from __future__ import annotations

import textwrap

import pytest
from safety_tools import cli, one_line

from lostcards.errors import PolicyError
from lostcards.policies import Choice, Float, Int, Policy, names, resolve

MODULES = {
    "raiser.py": "x = 1\nraise RuntimeError('boom at import')\n",
    "broken.py": "def f(:\n    pass\n",
    "needs.py": "import nosuchpackage_for_lostcards\n",
    "bots.py": textwrap.dedent('''\
        from numba import njit
        from lostcards.engine.core import make_play, TO_DISCARD, DRAW_DECK
        from lostcards.engine.observation import hand_card


        def raising(obs, stream):
            """A plain-Python policy with a bug."""
            raise ZeroDivisionError("division by zero in my bot")


        @njit(cache=True)
        def untyped(obs, params, rng):
            return obs.no_such_attribute


        @njit(cache=True)
        def first_card_away(obs, params, rng):
            return make_play(hand_card(obs, 0), TO_DISCARD, DRAW_DECK)
        '''),
}


@pytest.fixture(scope="module")
def where(tmp_path_factory):
    d = tmp_path_factory.mktemp("userbots")
    for name, text in MODULES.items():
        (d / name).write_text(text)
    return d


SIM = ["simulate", "--rounds", 20, "--no-progress"]
TOUR = ["tournament", "--rounds", 10, "--block", 10, "--bootstrap", 0]


@pytest.mark.parametrize("spec, words", [
    ("raiser:x", ["importing raiser failed: RuntimeError: boom at import", "raiser.py:2"]),
    ("broken:x", ["importing broken failed: SyntaxError", "broken.py:1"]),
    ("needs:x", ["importing needs failed: ModuleNotFoundError", "nosuchpackage_for_lostcards", "needs.py:1"]),
    ("bots:raising", ["policy 'bots:raising' raised ZeroDivisionError: division by zero in my bot", "bots.py:8"]),
    ("bots:nothing", ["module bots has no 'nothing'"]),
    ("nosuchmodule:x", ["no module named 'nosuchmodule'"]),
])
@pytest.mark.parametrize("command", ["simulate", "tournament"])
def test_finding_7_a_users_policy_that_fails_is_one_line_naming_it_and_where(where, spec, words, command):
    """Finding 7: a module raising on import, or a plain-Python policy raising in play, gave a traceback."""
    args = [*SIM, "--policies", f"{spec},random", "--out", where / f"o-{command}"] if command == "simulate" else \
        [*TOUR, "--policies", f"{spec},random", "--out", where / f"o-{command}"]
    one_line(cli(*args, cwd=where), 1, *words)


def test_finding_7_a_numba_policy_that_does_not_compile_is_one_line(where):
    one_line(cli(*SIM, "--policies", "bots:untyped,random", "--out", where / "o-untyped", cwd=where), 1,
             "policy 'bots:untyped' does not compile as a numba policy")


def test_finding_16_a_module_in_the_working_directory_is_a_policy(where):
    """Finding 16: docs/policies.md's `--policies mymodule:first_card_away,random` said `unknown policy`."""
    code, out, err = cli(*SIM, "--policies", "bots:first_card_away,random", "--out", where / "o-first", cwd=where)
    assert code == 0, out + err
    assert "bots:first_card_away vs random" in out


@pytest.mark.parametrize("spec, allowed", [
    ("search:iterations=-1", "an integer in 1..10000000"),
    ("search:iterations=0", "an integer in 1..10000000"),
    ("search:iterations=0.5", "an integer in 1..10000000"),
    ("search:iterations=nan", "an integer in 1..10000000"),
    ("search:iterations=inf", "an integer in 1..10000000"),
    ("search:c=1e9", "a number in 0..100"),
    ("search:seconds=-1", "a number in 0..3600"),
    ("expert:rho=nan", "a number in 0..5"),
    ("expert:rho=-1e308", "a number in 0..5"),
    ("expert:rho=" + "9" * 400, "a number in 0..5"),
    ("greedy:open=nan", "a number in 0..10"),
    ("expert:invest=sometimes", "one of normal, eager, never, hand"),
    ("expert:endgame=maybe", "one of on, off"),
])
def test_finding_13_policy_parameters_are_checked_against_their_type_and_range(spec, allowed):
    """Finding 13: `search:rollouts=-1`, `0`, `0.5`, `nan`, `inf`, `expert:rho=nan` ... all ran (search's
    budget is `iterations` now)."""
    with pytest.raises(PolicyError) as e:
        resolve(spec)
    msg = str(e.value)
    name = spec.split("=", 1)[0]
    assert msg.startswith(name + "=") and msg.endswith(allowed) and len(msg) < 120, msg
    one_line(cli("simulate", "--policies", f"{spec},random", "--rounds", 10, "--out", "/nonexistent/never"), 1, name,
             allowed)


def test_finding_13_every_built_in_parameter_declares_a_finite_range():
    for name in names():
        for k, d in resolve(name).parameters.items():
            assert isinstance(d, (Choice, Float)), (name, k)
            if isinstance(d, Float):
                assert -1000 <= d.lo <= float(d) <= d.hi <= 1e9, (name, k, d.lo, d.hi)
    assert isinstance(resolve("search").parameters["iterations"], Int)
    assert resolve("search:iterations=8,c=1").spec == "search:iterations=8,c=1"


def test_finding_13_old_style_declarations_still_work_and_are_finite():
    p = Policy("legacy", None, parameters={"threshold": 6, "mode": {"a": 0, "b": 1}})
    assert p.with_params("threshold=7,mode=b").values == (7.0, 1.0)
    with pytest.raises(PolicyError, match="legacy:threshold=inf is not allowed"):
        p.with_params("threshold=inf")
