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
    for name in ("claims.csv", "claims.md", "claims-context.md", "tips.md", "claims.manifest.json",
                 "figures/summary.svg", "figures/summary.png",             # the same bytes, timings included
                 *(f"figures/{cid}.{ext}" for cid in IDS for ext in ("svg", "png"))):
        a, b = ((tmp_path / d / name).read_bytes().replace(str(tmp_path / d).encode(), b"<out>")
                for d in ("quiet", "busy"))
        assert a == b, name
    assert m1["played"] == m2["played"]                       # every sample size
    assert [s[:3] + s[4:] for s in m1["stages"]] == [s[:3] + s[4:] for s in m2["stages"]]   # all but seconds
    assert len(m1["stages"]) > 1                              # the later stages were exercised


def test_the_plan_caps_every_kind_of_data_in_rounds():
    for sizes in (STANDARD, QUICK):
        for kind in ("rounds", "records", "deals", "search_deals", "improve_rounds"):
            for data, n in getattr(sizes, kind).items():
                assert sizes.cap(kind, data) >= n
    assert STANDARD.cap("search_deals", "2p") == STANDARD.search_deals["2p"]     # search's 2-player games: once


def test_the_runner_never_reads_the_clock_to_plan():
    import inspect

    from lostcards.analysis.claims import runner
    src = inspect.getsource(runner._next_stage) + inspect.getsource(runner.Context.may_grow)
    assert "time" not in src.replace("times", "")


def test_a_slow_data_set_is_played_in_chunks_and_the_rounds_are_the_same(monkeypatch):
    """Progress lines come from playing in chunks; round i is the same whatever the chunks."""
    from lostcards.analysis.claims import data
    from lostcards.analysis.claims.declare import Setting
    sizes = data.Sizes(rounds={"2p": 24}, records={"2p": 6}, deals={"2p": 6}, search_deals={"2p": 1})
    whole = data.Context(seed=3, sizes=sizes)
    said = []
    chunked = data.Context(seed=3, sizes=sizes, say=said.append)
    a = whole.selfplay("greedy", Setting("2p"))
    monkeypatch.setattr(data, "PROGRESS_SECONDS", 0.0)        # every chunk is "slow": one round a chunk
    b = chunked.selfplay("greedy", Setting("2p"))
    for k in a:
        pd.testing.assert_frame_equal(a[k].reset_index(drop=True), b[k].reset_index(drop=True))
    assert sum("playing self-play greedy 2p" in s for s in said) >= 20
    m1 = whole.pair("greedy", "random", Setting("2p"))
    m2 = chunked.pair("greedy", "random", Setting("2p"))
    pd.testing.assert_frame_equal(m1.reset_index(drop=True), m2.reset_index(drop=True))


def test_a_figure_is_saved_as_the_same_bytes_twice(tmp_path):
    from lostcards.analysis.claims.plots import close, new_figure, save
    for d in ("a", "b"):
        fig, ax = new_figure(1, 1, title="t")
        ax[0, 0].plot([0, 1], [1, 0])
        (tmp_path / d).mkdir()
        save(fig, tmp_path / d / "f")
        close(fig)
    for ext in ("png", "svg"):
        assert (tmp_path / "a" / f"f.{ext}").read_bytes() == (tmp_path / "b" / f"f.{ext}").read_bytes()
    assert b"<dc:date>" not in (tmp_path / "a" / "f.svg").read_bytes()


def test_a_strong_bots_row_still_undecided_reads_too_few_games():
    from types import SimpleNamespace

    from lostcards.analysis.claims.runner import too_few
    from lostcards.analysis.claims.verdict import TOO_FEW, UNDECIDED
    rows = [SimpleNamespace(decides=True, verdict=UNDECIDED, bot=b, cause="") for b in ("improve", "expert")]
    too_few(rows)
    assert [(r.verdict, r.cause) for r in rows] == [(UNDECIDED, TOO_FEW), (UNDECIDED, "")]
