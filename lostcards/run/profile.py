"""`make profile`: where the engine's CPU time goes, by JIT function and by instruction (perf, software clock).

numba writes no perf map, so ``perf report`` cannot name JIT code.  This module
builds one from numba's own object code: each compiled function's library keeps
the ELF object it was loaded from (``keep_objects`` holds on to it when it came
from the disk cache), its symbol table gives every function's offset and size
(``objdump -t``: section, offset, size), and one runtime address
(``library.get_pointer_to_function`` of its entry point) places the section in
memory.  The workload runs in a child process under ``perf record -e cpu-clock``
(a software event: no hardware counters needed) on one pinned core; the child
writes ``/tmp/perf-<pid>.map`` (so ``perf report`` names the functions too) and
the objects; the parent reads the samples (``perf script``), counts them by
function and by instruction, and lists the hottest instructions beside the
assembly (``objdump -d`` of the object).  docs/engine.md says how to read it.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from lostcards.errors import BadArgument
from lostcards.run.cores import CORE, pin

FREQUENCY = 4000            # samples a second
TOOLS = {"perf": "apt-get install -y linux-perf", "objdump": "apt-get install -y binutils",
         "taskset": "apt-get install -y util-linux"}
# name -> (what it plays, rules preset, players, side A, side B, rounds)
WORKLOADS = {
    "random2": ("random vs random, 2p expeditions", "expeditions", 2, "random", "random", 2_000_000),
    "expert2": ("expert vs expert, 2p expeditions", "expeditions", 2, "expert", "expert", 100_000),
    "expert4": ("expert vs expert, 4p expeditions", "expeditions", 4, "expert", "expert", 30_000),
    "improve": ("improve (k=128) vs expert, 2p expeditions: every decision of improve's seat", "expeditions", 2,
                "improve", "expert", 6),
    "strongest": ("improve:base=student,others=expert,k=256,race=2.5,depth=4,luck=1 vs expert, 2p expeditions: "
                  "every decision of its seat (the student plays out its own side's next two moves, expert the "
                  "rest)", "expeditions", 2,
                  "improve:base=student,others=expert,k=256,race=2.5,depth=4,luck=1", "expert", 4),
    "student2": ("student vs student, 2p expeditions (a network: the teacher's play-outs after generation 1)",
                 "expeditions", 2, "student", "student", 20_000),
}


# ---- the perf map, from numba's object code --------------------------------------------------------

def keep_objects() -> None:
    """Keep each numba library's object code as it is loaded from the disk cache (numba hands the
    buffer to the JIT linker and drops it); a fresh compile keeps its own.  Call before any jitted
    function loads."""
    from numba.core import codegen
    from numba.core.registry import cpu_target

    lib_class = codegen.JITCPUCodegen._library_class
    if getattr(lib_class, "_lostcards_keeps", False):
        return
    fetch = lib_class._object_getbuffer_hook.__func__

    def getbuffer(cls, ll_module):
        buf = fetch(cls, ll_module)
        lib = getattr(ll_module, "_CPUCodeLibrary__library", None)
        if buf and lib is not None:
            lib._lostcards_object = bytes(buf)
        return buf
    lib_class._object_getbuffer_hook = classmethod(getbuffer)
    lib_class._lostcards_keeps = True
    engine = cpu_target.target_context.codegen()._engine          # registered once, at its creation
    engine.set_object_cache(lib_class._object_compiled_hook, lib_class._object_getbuffer_hook)


def object_code(library) -> bytes | None:
    """The ELF object of a numba library (None when neither kept nor compiled in this process)."""
    return getattr(library, "_lostcards_object", None) or getattr(library, "_compiled_object", None)


@dataclass(frozen=True)
class Symbol:
    """A function in an object file: its code section, offset there, size and (demangled) name."""

    section: str
    offset: int
    size: int
    name: str


_SYMBOL_LINE = re.compile(r"^([0-9a-f]+)\s+(.{7})\s+(\S+)\s+([0-9a-f]+)\s+(.+)$")


def parse_symbols(text: str) -> list[Symbol]:
    """The functions (type F, size > 0) of ``objdump -t -C`` output."""
    out = []
    for line in text.splitlines():
        m = _SYMBOL_LINE.match(line)
        if m and m.group(2)[6] == "F" and int(m.group(4), 16) > 0:
            out.append(Symbol(m.group(3), int(m.group(1), 16), int(m.group(4), 16), m.group(5).strip()))
    return out


def short_name(name: str) -> str:
    """A numba function's demangled name without its ABI tags and argument types."""
    cut = [i for i in (name.find("[abi:"), name.find("(")) if i > 0]
    return name[:min(cut)] if cut else name


@dataclass(frozen=True)
class Placed:
    """A function of the JIT code at its runtime address: `obj` is the object file it was read from."""

    start: int
    size: int
    name: str
    obj: str
    section: str
    offset: int


def place(symbols: list[Symbol], entry: str, entry_address: int, obj: str) -> list[Placed]:
    """The functions of `entry`'s code section at their runtime addresses, given `entry`'s (the
    section is loaded whole, so offsets within it are kept).  Functions of other sections are left
    out: the JIT linker places each section on its own."""
    anchor = next((s for s in symbols if s.name == entry), None)
    if anchor is None:
        raise ValueError(f"{entry!r} is not a function of {obj}")
    base = entry_address - anchor.offset
    return [Placed(base + s.offset, s.size, s.name, obj, s.section, s.offset)
            for s in symbols if s.section == anchor.section]


def perf_map_lines(placed: list[Placed]) -> list[str]:
    """``/tmp/perf-<pid>.map`` lines: start and size in hex, then the name (perf's JIT map format)."""
    return [f"{p.start:x} {p.size:x} {short_name(p.name)}" for p in sorted(placed, key=lambda p: p.start)]


def _libraries():
    """(what, library, entry symbol) of every numba function compiled or loaded in this process."""
    import gc

    from numba.core.ccallback import CFunc
    from numba.core.dispatcher import Dispatcher
    seen = set()
    for x in gc.get_objects():
        if isinstance(x, Dispatcher):
            for cres in list(x.overloads.values()):
                yield x.py_func.__qualname__, cres.library, cres.fndesc.llvm_func_name
        elif isinstance(x, CFunc) and id(x) not in seen:
            seen.add(id(x))
            yield f"cfunc {x.__qualname__}", x._library, x._wrapper_name


def _demangle(raw: str) -> str:
    p = subprocess.run(["c++filt"], input=raw, capture_output=True, text=True)
    return p.stdout.strip() if p.returncode == 0 and p.stdout.strip() else raw


def build_perf_map(folder: Path, pid: int | None = None) -> tuple[Path, list[Placed]]:
    """Write each loaded function's object into `folder` and the perf map of them all
    (``/tmp/perf-<pid>.map``, this process by default); returns its path and the functions."""
    folder.mkdir(parents=True, exist_ok=True)
    placed: list[Placed] = []
    for i, (what, lib, entry) in enumerate(_libraries()):
        obj = object_code(lib)
        if obj is None:
            continue
        path = folder / f"{i:03d}.o"
        path.write_bytes(obj)
        text = subprocess.run(["objdump", "-t", "-C", str(path)], capture_output=True, text=True,
                              check=True).stdout
        placed += place(parse_symbols(text), _demangle(entry), lib.get_pointer_to_function(entry), str(path))
    where = Path(f"/tmp/perf-{pid if pid is not None else os.getpid()}.map")
    where.write_text("\n".join(perf_map_lines(placed)) + "\n")
    return where, placed


# ---- samples, by function and by instruction --------------------------------------------------------

def attribute(ips: list[int], placed: list[Placed]) -> tuple[dict, dict, list]:
    """Samples per JIT function (name -> n) and per instruction ((obj, section, offset) -> n), and
    the indexes of the samples outside the JIT code (left to perf's own names)."""
    import bisect
    table = sorted(placed, key=lambda p: p.start)
    starts = [p.start for p in table]
    by_fn: dict = {}
    by_ins: dict = {}
    outside = []
    for n, ip in enumerate(ips):
        i = bisect.bisect_right(starts, ip) - 1
        if i < 0 or ip >= table[i].start + table[i].size:
            outside.append(n)
            continue
        p = table[i]
        by_fn[p.name] = by_fn.get(p.name, 0) + 1
        key = (p.obj, p.section, p.offset + ip - p.start)
        by_ins[key] = by_ins.get(key, 0) + 1
    return by_fn, by_ins, outside


_INS_LINE = re.compile(r"^\s*([0-9a-f]+):\s+(.*)$")
_JUMP_TARGET = re.compile(r"<(.+?)(\+0x[0-9a-f]+)?>$")


def disassembly(obj: str, section: str) -> list[tuple[int, str]]:
    """(offset, instruction text) of one code section of an object (``objdump -d``)."""
    text = subprocess.run(["objdump", "-d", "-C", "--no-show-raw-insn", "-j", section, obj],
                          capture_output=True, text=True, check=True).stdout
    return [(int(m.group(1), 16), _JUMP_TARGET.sub(lambda t: f"<{short_name(t.group(1))}{t.group(2) or ''}>",
                                                    m.group(2).strip()))
            for m in map(_INS_LINE.match, text.splitlines()) if m]


def hottest(by_ins: dict, placed: list[Placed], total: int, top: int = 15, context: int = 3) -> list[str]:
    """The `top` instructions by samples, each with its function and `context` instructions either
    side, every line with its own share of the samples."""
    lines = []
    listings: dict = {}
    for (obj, section, off), n in sorted(by_ins.items(), key=lambda kv: -kv[1])[:top]:
        if (obj, section) not in listings:
            listings[(obj, section)] = disassembly(obj, section)
        ins = listings[(obj, section)]
        where = next((p for p in placed if p.obj == obj and p.section == section
                      and p.offset <= off < p.offset + p.size), None)
        fn = short_name(where.name) if where else "?"
        at = next((j for j, (o, _) in enumerate(ins) if o == off), None)
        lines.append(f"{100 * n / total:6.2f}%  {fn}+0x{off - (where.offset if where else 0):x}")
        if at is None:
            continue
        for o, text in ins[max(0, at - context):at + context + 1]:
            c = by_ins.get((obj, section, o), 0)
            mark = ">" if o == off else " "
            lines.append(f"   {mark} {100 * c / total:6.2f}%  {o:8x}:  {text}")
    return lines


# ---- the child: the workload, pinned, after its perf map --------------------------------------------

def _child(workload: str, rounds: int, folder: str) -> None:
    keep_objects()
    from lostcards.rules.ruleset import rules
    from lostcards.run.bench import play_shards
    from lostcards.run.runner import play
    what, preset, players, a, b, _ = WORKLOADS[workload]
    r = rules(preset, players=players)
    play(r, a, b, rounds=min(rounds, 2), seed=0, threads=1)           # compile or load, not measured
    mapped, placed = build_perf_map(Path(folder))
    Path(folder, "placed.json").write_text(json.dumps([p.__dict__ for p in placed]))
    pin({CORE})
    t0, c0 = time.clock_gettime(time.CLOCK_MONOTONIC), time.process_time()
    play_shards(r, a, b, rounds, seed=1, threads=1)
    t1, c1 = time.clock_gettime(time.CLOCK_MONOTONIC), time.process_time()
    Path(folder, "window.json").write_text(json.dumps({"start": t0, "end": t1, "cpu": c1 - c0,
                                                       "rounds": rounds, "map": str(mapped)}))


# ---- the parent: perf around the child, then the report ---------------------------------------------

def missing_tools() -> list[str]:
    """The tools the profile needs that are not on PATH, each with its install command."""
    return [f"{t} ({how})" for t, how in TOOLS.items() if shutil.which(t) is None]


def _samples(data: Path, window: dict) -> tuple[list[int], list[str]]:
    """The samples in the workload's window: their addresses, and perf's names for them."""
    p = subprocess.run(["perf", "script", "-i", str(data), "-F", "time,ip,sym,dso"],
                       capture_output=True, text=True, check=True)
    ips, names = [], []
    for line in p.stdout.splitlines():
        parts = line.split(None, 2)
        if len(parts) < 2:
            continue
        try:
            t = float(parts[0].rstrip(":"))
            ip = int(parts[1], 16)
        except ValueError:
            continue
        if not window["start"] <= t <= window["end"]:
            continue
        ips.append(ip)
        names.append(re.sub(r"\+0x[0-9a-f]+", "", parts[2] if len(parts) > 2 else "?").strip())
    return ips, names


def profile(workload: str, rounds: int | None, out: Path) -> list[str]:
    """Profile one workload (WORKLOADS) under perf; returns the report's lines (also written to
    `out`/<workload>.txt)."""
    what, preset, players, a, b, default = WORKLOADS[workload]
    rounds = rounds or default
    folder = out / f"{workload}.objects"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    data = out / f"{workload}.perf.data"
    cmd = ["perf", "record", "-q", "-e", "cpu-clock", "-F", str(FREQUENCY), "-k", "mono", "-o", str(data),
           "--", sys.executable, "-m", "lostcards.run.profile", "--child", workload, str(rounds), str(folder)]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0 or not (folder / "window.json").exists():
        tail = (p.stderr.strip().splitlines() or ["no output"])[-1]
        raise BadArgument(f"perf record failed for {workload} (exit {p.returncode}): {tail}")
    window = json.loads((folder / "window.json").read_text())
    placed = [Placed(**d) for d in json.loads((folder / "placed.json").read_text())]
    ips, names = _samples(data, window)
    n = len(ips)
    by_fn, by_ins, outside = attribute(ips, placed)
    lines = [f"== {what}: {rounds:,} rounds, {window['cpu'] / rounds * 1e9:,.0f} ns CPU a round, "
             f"{n:,} samples (cpu-clock, {FREQUENCY} Hz, core {CORE})",
             f"perf map: {window['map']} ({len(placed)} JIT functions); perf data: {data}",
             "  share  function (JIT functions by their numba names; the rest by perf's)"]
    rows = {short_name(k): v for k, v in by_fn.items()}
    for i in outside:
        rows[names[i]] = rows.get(names[i], 0) + 1
    for name, c in sorted(rows.items(), key=lambda kv: -kv[1])[:15]:
        lines.append(f"{100 * c / max(n, 1):6.1f}%  {name}")
    lines.append("hottest instructions (share of all samples; > marks the instruction, its neighbours "
                 "beside it; offsets in the function and in the object's code section):")
    lines += hottest(by_ins, placed, max(n, 1))
    (out / f"{workload}.txt").write_text("\n".join(lines) + "\n")
    return lines


def run_profile(workloads, rounds: int | None, out: str) -> None:
    """`lostcards bench --profile`: each workload under perf, its report on stdout and in `out`."""
    unknown = [w for w in workloads if w not in WORKLOADS]
    if unknown:
        raise BadArgument(f"--profile {unknown[0]!r:.40} is not allowed: one of {', '.join(WORKLOADS)}, or 'all'")
    missing = missing_tools()
    if missing:
        raise BadArgument(f"the profile needs {', '.join(missing)}: not found on PATH")
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    for w in workloads:
        print(f"... profiling {WORKLOADS[w][0]} under perf (one pinned core)", flush=True)
        print("\n".join(profile(w, rounds, folder)) + "\n", flush=True)
    print(f"written: {folder}/<workload>.txt (perf report -i {folder}/<workload>.perf.data names the "
          "JIT functions too, while the perf maps in /tmp are there)", flush=True)


if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[1] == "--child":
        _child(sys.argv[2], int(sys.argv[3]), sys.argv[4])
    else:
        sys.exit("usage: python -m lostcards.run.profile --child WORKLOAD ROUNDS FOLDER (run by lostcards bench "
                 "--profile)")
