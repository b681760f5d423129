"""`make bench`: the engine's speed beside the C yardstick's, measured in the same run.

Random vs random, 2-player expeditions: lostcards on one pinned core, the C
yardstick's scalar engine and (where the CPU has AVX-512) its vector engine on
the same core, repeated and interleaved (a busy machine slows all three alike),
medians of the CPU time a round and their ratio; then lostcards on two cores
against one; a short table of the other player counts; expert vs expert and
`improve` (k=128) vs expert on one core, each as CPU seconds a round and as the
C yardstick's rounds in that time (each run beside a C scalar run, the ratios
taken pair by pair: a shared machine's speed drifts between minutes).  A line
says what is being measured before each row, the CPU model and which select
(the k-th set bit) each engine compiled, and a stage that runs longer than 10 s
says so every 10 s.  The numbers go to JSON too.
"""
from __future__ import annotations

import contextlib
import json
import os
import re
import resource
import shutil
import statistics
import subprocess
import tempfile
import threading
import time
from pathlib import Path

import numba

from lostcards.errors import BadArgument, shown_path
from lostcards.rules.ruleset import rules
from lostcards.run.cores import CORE, pin
from lostcards.run.outfile import check_file, write_file
from lostcards.run.runner import play

SHARD = 100_000             # rounds a `play` call: simulate's default shard size
OTHERS = [("4p expeditions", "expeditions", 4), ("solitaire expeditions", "expeditions", 1),
          ("2p lost-cities", "lost-cities", 2)]


def _say(text: str) -> None:
    print(text, flush=True)


def _all_cores() -> set:
    return set(range(os.cpu_count() or 1))


def play_shards(r, a, b, rounds: int, seed: int, threads: int) -> None:
    """Rounds 0..rounds-1 of `seed`, played as `simulate` plays them: SHARD rounds a call (one call of
    millions of rounds would spend a fifth of its time in the kernel, zeroing fresh result pages)."""
    for start in range(0, rounds, SHARD):
        play(r, a, b, rounds=min(SHARD, rounds - start), seed=seed, start=start, threads=threads)


def _cpu(r, rounds: int, threads: int, policy="random", seed=1, other=None) -> tuple[float, float]:
    """(CPU seconds a round, wall seconds a round) of `rounds` rounds played shard by shard."""
    t, c = time.perf_counter(), time.process_time()
    play_shards(r, policy, other or policy, rounds, seed, threads)
    return (time.process_time() - c) / rounds, (time.perf_counter() - t) / rounds


@contextlib.contextmanager
def stage(what: str, every: float = 10.0):
    """`what` before a stage starts, and its elapsed time every `every` seconds while it runs."""
    _say(f"... {what}")
    done = threading.Event()
    t0 = time.perf_counter()

    def tick():
        while not done.wait(every):
            _say(f"    ({what}: {time.perf_counter() - t0:.0f} s so far)")
    th = threading.Thread(target=tick, daemon=True)
    th.start()
    try:
        yield
    finally:
        done.set()
        th.join()


def cpu_model() -> str:
    """The CPU's model name (/proc/cpuinfo), with its vendor and family."""
    try:
        info = Path("/proc/cpuinfo").read_text()
    except OSError:
        import platform
        return platform.processor() or "unknown"
    field = {k.strip(): v.strip() for k, _, v in (ln.partition(":") for ln in info.split("\n\n")[0].splitlines())}
    name, vendor = field.get("model name", "unknown"), field.get("vendor_id", "?")
    return f"{name} ({vendor}, family {field.get('cpu family', '?')}, model {field.get('model', '?')})"


def c_select() -> str:
    """The select the C yardstick's scalar engine picks here (its rule: PDEP, except on AMD before Zen 3)."""
    try:
        info = Path("/proc/cpuinfo").read_text().split("\n\n")[0]
    except OSError:
        return "unknown (no /proc/cpuinfo)"
    amd = "AuthenticAMD" in info
    fam = re.search(r"cpu family\s*:\s*(\d+)", info)
    if "bmi2" not in info:
        return "clears the lowest bit k times (no BMI2)"
    if amd and fam and int(fam.group(1)) < 0x19:
        return "clears the lowest bit k times (AMD before Zen 3: PDEP is microcoded)"
    return "PDEP"


def ours_select() -> str:
    """The select lostcards' kth_bit compiles to here, and why."""
    from lostcards.engine.bits import HAS_PDEP, select_kind, select_probe
    kind = select_kind()
    if os.environ.get("LOSTCARDS_SELECT"):
        return f"{kind} (LOSTCARDS_SELECT)"
    if not HAS_PDEP:
        return f"{kind} (no BMI2)"
    probe = select_probe()
    ns = ", ".join(f"{k} {v:.1f} ns" for k, v in probe["ns"].items()) if probe else "?"
    return f"{kind} (timed once on this machine: {ns} a select)"


class Yardstick:
    """The C yardstick built in a scratch copy of its folder; ``run(mode)`` runs it on CORE."""

    def __init__(self, folder: str):
        self.tmp = Path(tempfile.mkdtemp()) / "ys"
        shutil.copytree(folder, self.tmp)
        subprocess.run(["make", "-s", "cengine"], cwd=self.tmp, check=True, capture_output=True)
        flags = (Path("/proc/cpuinfo").read_text() if Path("/proc/cpuinfo").exists() else "")
        self.modes = {"C scalar": ["--scalar"]}
        if "avx512f" in flags:
            self.modes["C AVX-512"] = []

    def run(self, mode: str, rounds: int) -> tuple[float, float]:
        """(CPU seconds a round, wall seconds a round by its own clock) of one run of `rounds`."""
        pin = ["taskset", "-c", str(CORE)] if shutil.which("taskset") else []
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        p = subprocess.run(pin + ["./cengine", "-n", str(rounds), "-q"] + self.modes[mode], cwd=self.tmp,
                           check=True, capture_output=True, text=True)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        return cpu / rounds, 1 / float(re.search(r"= ([0-9.]+) rounds/s", p.stdout).group(1))


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


NO_YARDSTICK = ("x C scalar: not measured, the C yardstick was not found (make bench looks for "
                "../shared/yardstick; lostcards bench --yardstick DIR)")


def _paired(top: list, bottom: list) -> list:
    """top[k] / bottom[k] for each repetition k: a ratio of two runs made a minute apart at most, so
    that a machine that speeds up or slows down between repetitions moves both alike."""
    return [t / b for t, b in zip(top, bottom)]


def run_bench(rounds: int, json_path: str, yardstick: str | None, repeats: int = 5):
    check_bench(json_path, yardstick)
    cores = max(1, min(2, numba.config.NUMBA_NUM_THREADS, len(_all_cores())))
    r2 = rules("expeditions")
    load0 = os.getloadavg()[0] if hasattr(os, "getloadavg") else 0.0
    _say(f"CPU: {cpu_model()}; load average {load0:.1f} (a shared machine: CPU times, medians of "
         "interleaved repetitions)")
    with stage("numba compile (or load from cache), not counted below"):
        t = time.perf_counter()
        for threads in (1, cores):
            play(r2, "random", rounds=100, seed=0, threads=threads)
        _say(f"numba compile (or load from cache): {time.perf_counter() - t:.1f} s")
    select = {"lostcards": ours_select(), "C scalar": c_select()}
    _say(f"select (the k-th set bit): lostcards {select['lostcards']}; C scalar {select['C scalar']}")
    ys = Yardstick(yardstick) if yardstick else None
    one = "lostcards 1 core"
    rows = {one: [], f"lostcards {cores} cores": []}
    for mode in (ys.modes if ys else ()):
        rows[mode] = []
    walls: dict = {name: [] for name in rows}
    for k in range(repeats):
        with stage(f"repetition {k + 1}/{repeats}: {', '.join(rows)} ({rounds:,} rounds each)"):
            pin({CORE})
            cpu, wall = _cpu(r2, rounds, 1, seed=k + 1)
            rows[one].append(cpu)
            walls[one].append(wall)
            for mode in (ys.modes if ys else ()):
                cpu, wall = ys.run(mode, rounds)
                rows[mode].append(cpu)
                walls[mode].append(wall)
            pin(_all_cores())
            cpu, wall = _cpu(r2, rounds, cores, seed=k + 1)
            rows[f"lostcards {cores} cores"].append(wall)       # several cores: rounds a wall second
            walls[f"lostcards {cores} cores"].append(wall)
    med = {name: statistics.median(v) for name, v in rows.items()}
    c_round = med.get("C scalar")
    paired = _paired(rows["C scalar"], rows[one]) if c_round else []
    _say(f"\nrandom vs random, 2p expeditions, median of {repeats} (core {CORE} pinned for one core; "
         f"rounds/s = 1 / CPU time a round, {cores} cores: rounds a wall second)")
    _say(f"{'engine':<22}{'ns a round':>12}{'rounds/s':>12}{'min':>12}{'max':>12}{'x C scalar':>12}")
    for name, v in rows.items():
        ratio = f"{c_round / med[name]:.3f}" if c_round else ""
        _say(f"{name:<22}{med[name] * 1e9:>12,.0f}{1 / med[name]:>12,.0f}{1 / max(v):>12,.0f}{1 / min(v):>12,.0f}"
             f"{ratio:>12}")
    if not c_round:
        _say(NO_YARDSTICK)
    else:
        _say(f"lostcards / C scalar, CPU time a round on one core: {c_round / med[one]:.3f}x")
        _say(f"  the same, repetition by repetition (each pair a minute apart at most): median "
             f"{statistics.median(paired):.3f}x, from {min(paired):.3f} to {max(paired):.3f}")
    _say(f"{cores} cores / 1 core: {med[one] / med[f'lostcards {cores} cores']:.2f}x")
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else 0.0
    if load > 0.5:
        # the kernel shares the CPU among session groups (autogroup): a second thread gets no
        # more of a busy machine than one
        _say(f"(load average {load:.1f}: the {cores}-core row only means something on an idle machine)")
    results = {"kind": "lostcards bench", "rounds": rounds, "repeats": repeats, "core": CORE, "cpu": cpu_model(),
               "select": select, "cpu_seconds_a_round": rows, "wall_seconds_a_round": walls,
               "medians": {name: 1 / v for name, v in med.items()},
               "two_cores_over_one": med[one] / med[f"lostcards {cores} cores"], "load_average": load}
    if c_round:
        results["ratio_one_core_vs_c_scalar"] = c_round / med[one]
        results["ratio_one_core_vs_c_scalar_by_repetition"] = paired
    pin({CORE})
    others = {}
    for label, preset, players in OTHERS:
        with stage(f"{label}, one core"):
            r = rules(preset, players=players)
            play(r, "random", rounds=100, seed=0, threads=1)
            others[label] = 1 / statistics.median(_cpu(r, rounds // 8, 1, seed=k)[0] for k in range(3))
        _say(f"{label:<22}{others[label]:>12,.0f} rounds/s (one core, CPU time, median of 3)")
    results["other_cases_one_core"] = others
    bots = {}
    for label, a, b, n in (("expert vs expert", "expert", "expert", max(rounds // 40, 10_000)),
                           ("improve (k=128) vs expert", "improve", "expert", 4)):
        with stage(f"{label}, one core ({n:,} rounds, 3 times{', each beside a C scalar run' if ys else ''})"):
            play(r2, a, b, rounds=1, seed=0, threads=1)
            secs, c_near = [], []
            for k in range(3):
                secs.append(_cpu(r2, n, 1, a, seed=k + 1, other=b)[0])
                if ys:          # the yardstick right after, so that each ratio is taken in the same minute
                    c_near.append(ys.run("C scalar", rounds // 2)[0])
            sec = statistics.median(secs)
        c_rounds = statistics.median(_paired(secs, c_near)) if c_near else None
        in_c = f", {c_rounds:,.0f} C rounds a round" if c_rounds else " (C rounds: no yardstick)"
        _say(f"{label}, 2p expeditions, one core: {sec:.3g} CPU s a round{in_c}")
        bots[label] = {"cpu_seconds_a_round": sec, "rounds": n, "c_rounds_a_round": c_rounds}
    results["bots_one_core"] = bots
    pin(_all_cores())
    with stage(f"search vs expert, {cores} cores"):
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
