"""`make bench`: the engine's speed beside the C yardstick's, measured in the same run.

Random vs random, 2-player expeditions: lostcards on one pinned core, the C
yardstick's scalar engine and (where the CPU has AVX-512) its vector engine on
the same core, repeated and interleaved (a busy machine slows all three alike),
medians and the ratio; then lostcards on two cores against one; a short table
of the other player counts; expert vs expert; search moves a second.  A line
says what is being measured before each row.  The numbers go to JSON too.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

import numba

from lostcards.errors import BadArgument
from lostcards.rules.ruleset import rules
from lostcards.run.batchdir import shown_path
from lostcards.run.outfile import check_file, write_file
from lostcards.run.runner import play

CORE = 1                    # the pinned core (core 0 takes the machine's interrupts)
OTHERS = [("4p expeditions", "expeditions", 4), ("solitaire expeditions", "expeditions", 1),
          ("2p lost-cities", "lost-cities", 2)]


def _say(text: str) -> None:
    print(text, flush=True)


def _pin(cores) -> None:
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, cores)


def _all_cores() -> set:
    return set(range(os.cpu_count() or 1))


def _rate(r, rounds: int, threads: int, policy="random", seed=1) -> float:
    t = time.perf_counter()
    play(r, policy, policy, rounds=rounds, seed=seed, threads=threads)
    return rounds / (time.perf_counter() - t)


class Yardstick:
    """The C yardstick built in a scratch copy of its folder; ``rate(mode)`` runs it on CORE."""

    def __init__(self, folder: str):
        self.tmp = Path(tempfile.mkdtemp()) / "ys"
        shutil.copytree(folder, self.tmp)
        subprocess.run(["make", "-s", "cengine"], cwd=self.tmp, check=True, capture_output=True)
        flags = (Path("/proc/cpuinfo").read_text() if Path("/proc/cpuinfo").exists() else "")
        self.modes = {"C scalar": ["--scalar"]}
        if "avx512f" in flags:
            self.modes["C AVX-512"] = []

    def rate(self, mode: str, rounds: int) -> float:
        pin = ["taskset", "-c", str(CORE)] if shutil.which("taskset") else []
        p = subprocess.run(pin + ["./cengine", "-n", str(rounds), "-q"] + self.modes[mode], cwd=self.tmp,
                           check=True, capture_output=True, text=True)
        return float(re.search(r"= ([0-9.]+) rounds/s", p.stdout).group(1))


def _ours(path: Path) -> bool:
    """A file an earlier `lostcards bench` wrote (the only kind of file it may replace)."""
    try:
        m = json.loads(path.read_text())
    except (OSError, ValueError):
        return False
    return isinstance(m, dict) and (m.get("kind") == "lostcards bench" or {"rounds", "runs", "medians"} <= set(m))


def check_bench(json_path: str, yardstick: str | None) -> None:
    """Refuse, before minutes of measuring, an output the run could not write or must not replace, and a
    yardstick asked for by name that is not there."""
    check_file(json_path, "--json", ("json",), ours=_ours)
    if yardstick is not None and not Path(yardstick, "cengine.c").is_file():
        raise BadArgument(f"--yardstick {shown_path(yardstick)} is not allowed: the C yardstick's folder "
                          "(holding cengine.c); leave the option out to measure lostcards alone")


def run_bench(rounds: int, json_path: str, yardstick: str | None, repeats: int = 5):
    check_bench(json_path, yardstick)
    cores = max(1, min(2, numba.config.NUMBA_NUM_THREADS, len(_all_cores())))
    r2 = rules("expeditions")
    _say("machine: shared with other work; rates are medians of interleaved repetitions")
    t = time.perf_counter()
    for threads in (1, cores):
        play(r2, "random", rounds=100, seed=0, threads=threads)
    _say(f"numba compile (or load from cache): {time.perf_counter() - t:.1f} s, not counted below")
    ys = Yardstick(yardstick) if yardstick else None
    rows = {"lostcards 1 core": [], f"lostcards {cores} cores": []}
    for mode in (ys.modes if ys else ()):
        rows[mode] = []
    for k in range(repeats):
        _say(f"... repetition {k + 1}/{repeats}: {', '.join(rows)} ({rounds:,} rounds each)")
        _pin({CORE})
        rows["lostcards 1 core"].append(_rate(r2, rounds, 1, seed=k + 1))
        for mode in (ys.modes if ys else ()):
            rows[mode].append(ys.rate(mode, rounds))
        _pin(_all_cores())
        rows[f"lostcards {cores} cores"].append(_rate(r2, rounds, cores, seed=k + 1))
    med = {name: statistics.median(v) for name, v in rows.items()}
    one = med["lostcards 1 core"]
    _say(f"\nrandom vs random, 2p expeditions, median of {repeats} (core {CORE} pinned for one core)")
    _say(f"{'engine':<22}{'rounds/s':>12}{'min':>12}{'max':>12}{'x C scalar':>12}")
    for name, v in rows.items():
        ratio = f"{med[name] / med['C scalar']:.3f}" if "C scalar" in med else "-"
        _say(f"{name:<22}{med[name]:>12,.0f}{min(v):>12,.0f}{max(v):>12,.0f}{ratio:>12}")
    _say(f"{cores} cores / 1 core: {med[f'lostcards {cores} cores'] / one:.2f}x")
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else 0.0
    if load > 0.5:
        # the kernel shares the CPU among session groups (autogroup): a second thread gets no
        # more of a busy machine than one
        _say(f"(load average {load:.1f}: the {cores}-core row only means something on an idle machine)")
    results = {"kind": "lostcards bench", "rounds": rounds, "repeats": repeats, "core": CORE, "runs": rows,
               "medians": med,
               "two_cores_over_one": med[f"lostcards {cores} cores"] / one, "load_average": load}
    if "C scalar" in med:
        results["ratio_one_core_vs_c_scalar"] = one / med["C scalar"]
    _pin({CORE})
    others = {}
    for label, preset, players in OTHERS:
        _say(f"... {label}, one core")
        r = rules(preset, players=players)
        play(r, "random", rounds=100, seed=0, threads=1)
        others[label] = statistics.median(_rate(r, rounds // 8, 1, seed=k) for k in range(3))
        _say(f"{label:<22}{others[label]:>12,.0f} rounds/s (one core, median of 3)")
    results["other_cases_one_core"] = others
    _pin(_all_cores())
    _say(f"... expert vs expert, {cores} cores")
    play(r2, "expert", rounds=100, seed=0)
    n = max(rounds // 40, 10_000)         # ~5 min for all of `make bench` on a shared machine
    ex = statistics.median(_rate(r2, n, cores, "expert", seed=k) for k in range(3))
    results["expert_vs_expert"] = {"rounds_per_second": ex, "seconds_per_million": 1e6 / ex}
    _say(f"expert vs expert, 2p expeditions, {cores} cores: {ex:,.0f} rounds/s ({1e6 / ex:.0f} s a million)")
    _say(f"... search vs expert, {cores} cores")
    try:
        play(r2, "search", "expert", rounds=1, seed=0)
        k = 4
        t = time.perf_counter()
        b = play(r2, "search", "expert", rounds=k, seed=4)
        secs = time.perf_counter() - t
        moves = int(b.seats[:, 0, [0, 1, 4]].sum())      # seat 0's decisions: plays, discards, passes
        results["search"] = {"moves_per_second": moves / secs, "seconds_per_round": secs / k}
        _say(f"search (default budget) vs expert: {moves / secs:,.1f} search moves/s, "
             f"{secs / k:.2f} s a round ({k} rounds)")
    except Exception as e:  # noqa: BLE001 - the search bot is not the engine: report and go on
        _say(f"search: not measured ({e})")
    text = json.dumps(results, indent=2) + "\n"
    write_file(json_path, "--json", lambda tmp: Path(tmp).write_text(text))
    _say(f"written: {json_path}")
