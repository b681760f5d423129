"""`lostcards bench --compile`: what a cold cache costs, entry point by entry point.

A fresh process with an empty cache folder compiles, in order, the batch loop, each
registered numba policy's decider (``names()``) and the analysis kernels, and reports the CPU and wall
seconds of each (an entry includes the engine functions it is the first to need, so the
order is part of the reading).  Nothing in the user's own cache is touched.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile


def _entries():
    """(name, Entry) of every entry point a command may compile, in the order a run meets them."""
    from lostcards.engine import batch
    from lostcards.engine.playouts import CHOOSE_SIG, MARGINS_SIG, choose, margins
    from lostcards.engine.policy import decider_entry
    from lostcards.numba_cache import Entry
    from lostcards.policies import names, resolve
    out = [("batch loop", Entry(batch.play_chunk, batch.CHUNK_SIG, "the batch loop", 15.0))]
    for name in names():
        p = resolve(name)
        if p.kernel is not None:
            out.append((f"{name} decider", decider_entry(p.kernel, name, p.compile_s)))
    out.append(("analyze play-outs", Entry(margins, MARGINS_SIG, "the play-outs", 10.0)))
    out.append(("analyze search chooser", Entry(choose, CHOOSE_SIG, "the search's chooser", 10.0)))
    return out


def _child() -> None:
    """In the cold process: compile each entry, one JSON line each on stdout."""
    import time

    from lostcards import numba_cache
    numba_cache.say = lambda text: None
    for name, entry in _entries():
        t, c = time.perf_counter(), time.process_time()
        numba_cache.compile_all([entry])
        print(json.dumps({"entry": name, "cpu_s": round(time.process_time() - c, 2),
                          "wall_s": round(time.perf_counter() - t, 2)}), flush=True)


def compile_times(say=print) -> list[dict]:
    """Compile every entry point in a fresh process on an empty cache; print and return the times."""
    with tempfile.TemporaryDirectory(prefix="lostcards-cold-") as cold:
        env = dict(os.environ, NUMBA_CACHE_DIR=cold)
        say("compile seconds on a cold cache, in the order a run meets them (each entry includes the engine "
            "code it is the first to need):")
        p = subprocess.Popen([sys.executable, "-c", "from lostcards.run.compile_report import _child; _child()"],
                             stdout=subprocess.PIPE, text=True, env=env)
        rows = []
        for line in p.stdout:
            row = json.loads(line)
            rows.append(row)
            say(f"  {row['entry']:<24} {row['cpu_s']:7.1f} s CPU  {row['wall_s']:7.1f} s wall")
        if p.wait() != 0:
            raise RuntimeError(f"the cold compile stopped with status {p.returncode}")
    cpu = {r["entry"]: r["cpu_s"] for r in rows}
    say(f"  {'total':<24} {sum(cpu.values()):7.1f} s CPU")
    for pair in ("random", "expert"):
        say(f"  a cold `simulate --policies {pair},{pair}` compiles the batch loop and the {pair} decider: "
            f"{cpu['batch loop'] + cpu[pair + ' decider']:.1f} s CPU")
    return rows
