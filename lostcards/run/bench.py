"""`make bench`: rounds per second of the numba engine, random vs random.

Prints a table (one core and all cores, for 2-player expeditions, 4 players,
solitaire and 2-player lost-cities), the compile time apart from the runs, and
writes the numbers as JSON.  With the C yardstick's folder it also builds and
runs the C engine in the same go and prints the ratio, which survives a noisy
machine better than a raw rate.
"""
from __future__ import annotations

import json
import re
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import numba

from lostcards.rules.ruleset import rules
from lostcards.run.runner import play

CASES = [("2p expeditions", "expeditions", 2), ("4p expeditions", "expeditions", 4),
         ("solitaire expeditions", "expeditions", 1), ("2p lost-cities", "lost-cities", 2)]


def _rate(r, rounds, threads, repeats=3):
    best = 0.0
    for k in range(repeats):
        t = time.perf_counter()
        play(r, "random", "random", rounds=rounds, seed=k + 1, threads=threads)
        best = max(best, rounds / (time.perf_counter() - t))
    return best


def yardstick_rate(folder: str, rounds: int) -> dict:
    """Build the C yardstick in a scratch copy and run its scalar engine on one core."""
    tmp = Path(tempfile.mkdtemp()) / "ys"
    shutil.copytree(folder, tmp)
    subprocess.run(["make", "-s", "cengine"], cwd=tmp, check=True, capture_output=True)
    pin = ["taskset", "-c", "0"] if shutil.which("taskset") else []
    out = {}
    for name, flag in (("scalar", ["--scalar"]), ("default", [])):
        rates = []
        for _ in range(3):
            p = subprocess.run(pin + ["./cengine", "-n", str(rounds), "-q"] + flag, cwd=tmp,
                               check=True, capture_output=True, text=True)
            m = re.search(r"= ([0-9.]+) rounds/s", p.stdout)
            rates.append(float(m.group(1)))
        out[name] = sorted(rates)[1]
    return out


def run_bench(rounds: int, json_path: str, yardstick: str | None):
    cores = numba.config.NUMBA_NUM_THREADS
    t = time.perf_counter()
    for _, preset, players in CASES:
        play(rules(preset, players=players), "random", rounds=10, seed=0, threads=1)
    compile_s = time.perf_counter() - t
    print(f"numba compile (or load from cache): {compile_s:.1f} s, not counted below")
    print(f"{'case':<24}{'1 core':>14}{f'{cores} cores':>14}{'speed-up':>10}")
    results = {"compile_seconds": compile_s, "rounds": rounds, "cores": cores, "cases": {}}
    for label, preset, players in CASES:
        r = rules(preset, players=players)
        n = rounds if players != 2 or preset == "expeditions" else rounds // 2
        one = _rate(r, max(n // 4, 1000), 1)
        many = _rate(r, n, cores)
        results["cases"][label] = {"one_core": one, "all_cores": many}
        print(f"{label:<24}{one:>14,.0f}{many:>14,.0f}{many / one:>9.2f}x")
    # the bots: expert self-play (goal: 1,000,000 rounds in under a minute on 2 cores)
    r2 = rules("expeditions")
    play(r2, "expert", rounds=10, seed=0)
    n = max(rounds // 10, 10_000)
    t = time.perf_counter()
    b = play(r2, "expert", "expert", rounds=n, seed=3)
    secs = time.perf_counter() - t
    ex = n / secs
    results["expert_vs_expert"] = {"rounds_per_second": ex, "seconds_per_million": 1e6 / ex}
    print(f"expert vs expert, 2p expeditions, {cores} cores: {ex:,.0f} rounds/s "
          f"({1e6 / ex:.0f} s per 1,000,000 rounds)")
    try:
        play(r2, "search", "expert", rounds=1, seed=0)
        k = 6
        t = time.perf_counter()
        b = play(r2, "search", "expert", rounds=k, seed=4)
        secs = time.perf_counter() - t
        moves = int(b.seats[:, 0, 0].sum() + b.seats[:, 0, 4].sum())
        results["search"] = {"moves_per_second": moves / secs, "seconds_per_round": secs / k}
        print(f"search (default budget) vs expert: {moves / secs:,.1f} search moves/s, "
              f"{secs / k:.2f} s per round ({k} rounds, {cores} cores)")
    except Exception as e:  # the search bot is optional for the engine's benchmark
        print(f"search: not measured ({e})")
    if yardstick and Path(yardstick, "cengine.c").exists():
        c = yardstick_rate(yardstick, min(rounds, 2_000_000))
        ours = results["cases"]["2p expeditions"]["one_core"]
        results["yardstick"] = c
        results["ratio_one_core_vs_c_scalar"] = ours / c["scalar"]
        print(f"C yardstick, one core: scalar {c['scalar']:,.0f} rounds/s, best {c['default']:,.0f} rounds/s")
        print(f"ratio, 2p expeditions one core, numba / C scalar: {ours / c['scalar']:.3f} "
              f"(goal >= 0.5); / C best: {ours / c['default']:.3f}")
    elif yardstick:
        print(f"(no C yardstick at {yardstick}; ratio not measured)")
    Path(json_path).write_text(json.dumps(results, indent=2) + "\n")
    print(f"written: {json_path}")
