"""The rule-tweaks statements on the claims framework: every control gives the verdict it declares,
the deciding rows and their Bonferroni level, the sweep's checks fire where they should, and every
number a sentence of rule-tweaks.md shows is in rule-tweaks.csv."""
from __future__ import annotations

import pandas as pd
import pytest
from click.testing import CliRunner

from lostcards.analysis.claims.verdict import FAILING, FAILS, HOLDS, simultaneous_level
from lostcards.analysis.rule_tweaks.data import Data
from lostcards.analysis.rule_tweaks.declare import FIRES, STATEMENTS
from lostcards.analysis.rule_tweaks.play import fire_rows
from lostcards.analysis.rule_tweaks.rows import control_row, deciding_count, planned
from lostcards.cli import main
from tests.test_claims import _csv_numbers, _in_csv, _numbers

CONTROLS = [(t, c) for s in STATEMENTS for t in s.tweaks for c in t.controls]


@pytest.fixture(scope="module")
def small():
    return Data(seed=7, rounds=2000, edge_rounds=4000)


def test_every_deciding_measure_has_a_control_each_way():
    for s in STATEMENTS:
        for t in s.tweaks:
            assert {c.gives for c in t.controls} == {HOLDS, FAILS}, t.name


@pytest.mark.parametrize("t,control", CONTROLS, ids=[f"{t.name}-{c.gives.replace(' ', '_')}" for t, c in CONTROLS])
def test_each_control_gives_the_verdict_it_declares(small, t, control):
    """Under each control the deciding measure comes out as declared: so a row that holds has a
    setting where it fails, and the other way round (95%, a small run)."""
    got = control_row(t, control, small)
    ok = got["verdict"] == control.gives or (control.gives == FAILS and got["verdict"] in FAILING)
    assert ok, (t.name, control, got)


def test_the_deciding_rows_and_their_simultaneous_level():
    m = deciding_count()
    assert m == sum(len([p for p in t.players]) * len(t.where) for s in STATEMENTS for t in s.tweaks) > 0
    assert simultaneous_level(m) == pytest.approx(1 - 0.05 / m)
    assert deciding_count((2,)) < m and all(d for *_, d in planned()[:1])


def test_every_check_fires_on_its_ruleset():
    """A check that cannot fire checks nothing: each is shown tripped (skill: expert against greedy)."""
    f = fire_rows(seed=3, rounds=1500)
    assert list(f["check"]) == [c for c, *_ in FIRES]
    assert f["flagged"].all(), f[["check", "estimate", "ci_low", "ci_high"]]


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    out = tmp_path_factory.mktemp("rt")
    res = CliRunner().invoke(main, ["rule-tweaks", "--out", str(out), "--rounds", "300", "--edge-rounds", "300",
                                    "--fire-rounds", "300",
                                    "--seed", "1", "--depth-deals", "2", "--budgets", "1,2"])
    assert res.exit_code == 0, res.output
    return out


@pytest.mark.slow      # a subprocess or a whole small run: make test-slow
def test_every_number_of_rule_tweaks_md_is_in_its_csv(report):
    csv = pd.read_csv(report / "rule-tweaks.csv", low_memory=False)
    vals = _csv_numbers(csv)
    lines = [x for x in (report / "rule-tweaks.md").read_text().splitlines()
             if x and not x.startswith(("|", "#", "![", "- `"))]        # prose: not tables, headings, definitions
    missing = [(t, x[:60]) for x in lines for t in _numbers(x) if not _in_csv(t, vals)]
    assert not missing, missing


@pytest.mark.slow      # a subprocess or a whole small run: make test-slow
def test_each_deciding_row_names_the_control_that_turns_it(report):
    csv = pd.read_csv(report / "rule-tweaks.csv", low_memory=False, keep_default_na=False)
    rows = csv[(csv["kind"] == "statement") & (csv["decides"].astype(str).str.lower() == "true")]
    m = deciding_count()
    assert len(rows) == m and all(float(x) == pytest.approx(1 - 0.05 / m) for x in rows["level"])
    for r in rows.itertuples():
        if r.verdict in (HOLDS, *FAILING):
            other = FAILS if r.verdict == HOLDS else HOLDS
            assert r.fails_under and r.fails_under.endswith(other), r
    md = (report / "rule-tweaks.md").read_text()
    for word in ("tuned", "by others", "author"):
        assert word not in md.lower(), word
    assert "34 deciding rows" in md and "99.85%" in md


def test_each_check_has_the_smallest_real_rule_change_that_trips_it():
    """The checks' sensitivity: each real rule stepped from the Expeditions value until a check trips; the
    report gives, per check, the smallest change that does (or the closest step when none does)."""
    from lostcards.analysis.rule_tweaks.declare import SENSITIVITY, SENSITIVITY_BOT
    from lostcards.analysis.rule_tweaks.play import sensitivity_rows, smallest_trips
    s = sensitivity_rows(seed=3, rounds=800, players=(2,))
    assert set(s["rule"]) == set(SENSITIVITY) and set(s["check"]) == set(SENSITIVITY_BOT)
    assert s[s["first"]]["flagged"].all()
    for (check, rule, direction), g in s.groupby(["check", "rule", "direction"]):
        assert g["first"].sum() <= 1 and (g["policy"] == SENSITIVITY_BOT[check]).all()
    small = smallest_trips(s)
    assert set(small["check"]) == set(SENSITIVITY_BOT)
    st = small[small["check"] == "stall_or_cap"]
    assert (st["rule"] != "").all() and (st["step"] == 1).any()      # random play trips the stall check at once
