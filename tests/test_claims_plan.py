"""The claims report is the same on every machine: its stages and sample sizes follow from the declared plan
and the seed alone (a budget in rounds and deals, never seconds)."""
import json
import re
import subprocess
import sys

import pandas as pd
import pytest
from click.testing import CliRunner

from lostcards.analysis.claims.data import QUICK, STANDARD
from lostcards.cli import main

IDS = ["endgame-count", "plays-per-round"]          # paired margins that go to later stages, and search's games
TIMINGS = (r"in \d+(\.\d+)? minutes", r"\d+(\.\d+)?s\b")


def _report(out):
    res = CliRunner().invoke(main, ["claims", *IDS, "--quick", "--out", str(out)], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    md = (out / "claims.md").read_text().replace(str(out), "<out>")
    for pat in TIMINGS:
        md = re.sub(pat, "<time>", md)
    man = json.loads((out / "claims.manifest.json").read_text())
    tips = (out / "tips.md").read_text().replace(str(out), "<out>")
    return pd.read_csv(out / "claims.csv", keep_default_na=False), md, tips, man


@pytest.mark.slow      # two quick reports, one beside three CPU-bound processes
def test_the_same_report_under_a_competing_cpu_load(tmp_path):
    quiet = _report(tmp_path / "quiet")
    burners = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(3)]
    try:
        busy = _report(tmp_path / "busy")
    finally:
        for p in burners:
            p.kill()
            p.wait()
    (c1, md1, tips1, m1), (c2, md2, tips2, m2) = quiet, busy
    pd.testing.assert_frame_equal(c1, c2)                    # every row, every column
    assert md1 == md2 and tips1 == tips2
    assert m1["played"] == m2["played"]                       # every sample size
    assert [s[:3] + s[4:] for s in m1["stages"]] == [s[:3] + s[4:] for s in m2["stages"]]   # all but seconds
    assert len(m1["stages"]) > 1                              # the later stages were exercised


def test_the_plan_caps_every_kind_of_data_in_rounds():
    for sizes in (STANDARD, QUICK):
        for kind in ("rounds", "records", "deals", "search_deals"):
            for data, n in getattr(sizes, kind).items():
                assert sizes.cap(kind, data) >= n
    assert STANDARD.cap("search_deals", "2p") == STANDARD.search_deals["2p"]     # search's 2-player games: once


def test_the_runner_never_reads_the_clock_to_plan():
    import inspect

    from lostcards.analysis.claims import runner
    src = inspect.getsource(runner._next_stage) + inspect.getsource(runner.Context.may_grow)
    assert "time" not in src.replace("times", "")
