"""`make bench` end to end, beside the C yardstick when it is there (slow: it plays and builds)."""
import json
import statistics
from pathlib import Path

import pytest

from lostcards.run import bench

YARDSTICK = Path(__file__).resolve().parents[2] / "shared" / "yardstick"


def test_paired_divides_each_repetition_by_its_own():
    assert bench._paired([2.0, 9.0], [1.0, 3.0]) == [2.0, 3.0]


@pytest.mark.slow
@pytest.mark.skipif(not (YARDSTICK / "cengine.c").exists(), reason="the C yardstick is not beside the project")
def test_bench_ratios_are_taken_pair_by_pair(tmp_path, capsys):
    out = tmp_path / "bench.json"
    bench.run_bench(20_000, str(out), str(YARDSTICK), repeats=3)
    d = json.loads(out.read_text())
    rows = d["cpu_seconds_a_round"]
    by_rep = d["ratio_one_core_vs_c_scalar_by_repetition"]
    assert by_rep == pytest.approx([c / o for c, o in zip(rows["C scalar"], rows["lostcards 1 core"])])
    text = capsys.readouterr().out
    assert f"median {statistics.median(by_rep):.3f}x" in text
    for bot in d["bots_one_core"].values():
        assert bot["c_rounds_a_round"] > 0
        # taken beside its own C runs: near the CPU time over the repetitions' C time, not equal to it
        assert 0.2 < bot["c_rounds_a_round"] * statistics.median(rows["C scalar"]) / bot["cpu_seconds_a_round"] < 5


def test_the_pinned_core_is_one_this_process_may_use(monkeypatch):
    from lostcards.run import cores
    monkeypatch.setattr(cores.os, "sched_getaffinity", lambda pid: {0}, raising=False)
    assert cores.pinned_core() == 0          # a one-core machine: core 0, not a core that is not there
    monkeypatch.setattr(cores.os, "sched_getaffinity", lambda pid: {2, 3}, raising=False)
    assert cores.pinned_core() == 2
    monkeypatch.setattr(cores.os, "sched_getaffinity", lambda pid: {0, 1, 2}, raising=False)
    assert cores.pinned_core() == 1          # core 0 takes the interrupts
