"""numba's cache: each function keyed on the sources it compiles in, one compile notice, one lock.

An edit recompiles exactly what depends on the edited file (a CLI edit: nothing; an
engine edit: the engine, and the change takes effect), and the notice is on stderr
before anything compiles (the first command after an install used to compile for minutes in
silence).  The edits are made in a copy of the package.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from package_copy import copy_package

from lostcards import numba_cache
from lostcards.numba_cache import PACKAGE, sources

# a tiny batch in a fresh process: prints the compiles it made, then the first scores
PLAY = """
import json, lostcards
from lostcards.numba_cache import CompileCounter
from lostcards.run.runner import play
with CompileCounter() as c:
    b = play(lostcards.rules(), "random", "random", rounds=20, seed=3, threads=1)
print(json.dumps({"compiles": c.count, "scores": b.scores[:5].tolist()}))
"""


def rel(files):
    return {Path(f).relative_to(PACKAGE).as_posix() for f in files}


def test_a_function_depends_on_the_modules_it_imports_and_no_others():
    loop = rel(sources(PACKAGE / "engine" / "batch.py"))
    assert {"engine/batch.py", "engine/apply.py", "engine/state.py", "engine/policy.py", "engine/rng.py",
            "rules/cards.py"} <= loop
    assert not any(f.startswith(("cli/", "run/", "analysis/", "policies/")) for f in loop)
    assert "numba_cache.py" not in loop                   # it compiles nothing into a function
    expert = rel(sources(PACKAGE / "policies" / "expert.py"))
    assert "engine/observation.py" in expert and "policies/greedy.py" not in expert
    assert "policies/expert.py" in rel(sources(PACKAGE / "policies" / "staller.py"))


def test_the_stamp_is_the_sources_contents(tmp_path):
    (tmp_path / "m.py").write_text("import lostcards.engine.bits\n")
    first = numba_cache.source_hash(sources(tmp_path / "m.py"))
    assert first == numba_cache.source_hash(sources(tmp_path / "m.py"))
    from lostcards.engine import state
    assert state.ended._cache._cache_file._source_stamp == (
        "lostcards-sources", numba_cache.source_hash(sources(Path(state.__file__))))


@pytest.fixture(scope="module")
def package_copy(tmp_path_factory):
    """A copy of the package with a cache of its own, warmed by a first command: (top, run, scores)."""
    top, run = copy_package(tmp_path_factory)
    cold = run("-m", "lostcards", "simulate", "--rounds", "20", "--no-progress", "--out", str(top / "a"))
    notice = [ln for ln in cold.stderr.splitlines() if "compiling" in ln]
    # the first command says once, before compiling, what it compiles and roughly how long
    assert len(notice) == 1 and cold.stderr.index(notice[0]) == 0, cold.stderr
    assert "the batch loop" in notice[0] and "the random policy" in notice[0] and "about" in notice[0]

    def play():
        return json.loads(run("-c", PLAY).stdout.strip().splitlines()[-1])
    first = play()
    assert first["compiles"] == 0                        # the command's compiles serve the library too
    return top, run, play, first


@pytest.mark.slow      # the package copy compiles the batch loop and `random` cold: about 30 s of CPU
def test_an_edit_outside_the_numba_code_recompiles_nothing(package_copy):
    top, run, play, first = package_copy
    for f in ("cli/simulate.py", "run/runner.py", "stats.py", "policies/expert.py"):
        p = top / "lostcards" / f
        p.write_text(p.read_text() + "\n# an edit\n")
    assert play() == {"compiles": 0, "scores": first["scores"]}
    warm = run("-m", "lostcards", "simulate", "--rounds", "20", "--no-progress", "--out", str(top / "b"))
    assert "compiling" not in warm.stderr


@pytest.mark.slow      # recompiles the engine in the copy: about 15 s of CPU
def test_an_engine_edit_takes_effect(package_copy):
    top, run, play, first = package_copy
    p = top / "lostcards" / "engine" / "state.py"
    text = p.read_text()
    line = "    return s if cards > 0 else 0\n"
    assert text.count(line) == 1
    p.write_text(text.replace(line, "    return s + 1000 if cards > 0 else 0\n"))
    edited = play()
    assert edited["compiles"] > 0
    assert edited["scores"] != first["scores"] and max(max(s) for s in edited["scores"]) > 500


def test_compile_all_locks_says_once_and_then_loads(tmp_path, monkeypatch):
    from numba import types
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    said = []
    monkeypatch.setattr(numba_cache, "say", said.append)
    src = tmp_path / "tiny.py"
    src.write_text("from lostcards.numba_cache import jit\n\n\n@jit\ndef twice(x):\n    return 2 * x\n")
    sys.path.insert(0, str(tmp_path))
    try:
        import tiny
        entry = numba_cache.Entry(tiny.twice, types.int64(types.int64), "a tiny function", 1.0)
        assert not entry.ready
        numba_cache.compile_all([entry])
        assert entry.ready and len(said) == 1 and "a tiny function" in said[0]
        assert tiny.twice(21) == 42
        numba_cache.compile_all([entry])
        assert len(said) == 1
        assert (tmp_path / "locks").is_dir()
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("tiny", None)


@pytest.mark.slow      # a cold compile of everything: about a minute of CPU
def test_bench_compile_lists_every_entry_point_on_a_cold_cache():
    res = subprocess.run([sys.executable, "-m", "lostcards", "bench", "--compile"], capture_output=True, text=True,
                         timeout=900)
    assert res.returncode == 0, res.stderr
    for entry in ("batch loop", "random decider", "expert decider", "search decider", "analyze play-outs"):
        assert entry in res.stdout, res.stdout
    cpu = {ln.split()[0]: float(ln.split()[-6]) for ln in res.stdout.splitlines() if ln.endswith("s wall")}
    assert all(v > 0 for v in cpu.values()), cpu


TAKES = '''
from lostcards.numba_cache import jit


@jit(inline=True, cache=CACHE)
def apply_rule(rule, x):
    return rule(x)


@jit
def double(x):
    return 2 * x


@jit
def square(x):
    return x * x


@jit
def by_double(x):
    return apply_rule(double, x)


@jit
def by_square(x):
    return apply_rule(square, x)
'''


def test_a_function_taking_functions_compiles_beside_another_machines_entry(tmp_path):
    """Once, learned-mc's first compile on a second machine failed in numba's cache ('underlying object has
    vanished', writing an entry keyed on a jitted function's type); functions that take functions
    (play_to_end, improvement_step) are cache=False, cached inside their callers, as here."""
    (tmp_path / "takes.py").write_text(TAKES.replace("CACHE", "False"))
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache"), "PYTHONPATH": str(tmp_path)}
    for call, want, cpu in (("by_double(3)", "6", "generic"), ("by_double(3)", "6", ""), ("by_square(3)", "9", "")):
        e = {**env, "NUMBA_CPU_NAME": cpu} if cpu else env        # another machine's entry first
        res = subprocess.run([sys.executable, "-c", f"import takes; print(takes.{call})"], env=e,
                             capture_output=True, text=True, timeout=300)
        assert res.returncode == 0 and res.stdout.strip() == want, res.stderr[-2000:]


def test_the_play_out_loop_the_improvement_step_and_the_race_are_cached_in_their_callers():
    from numba.core.caching import NullCache

    from lostcards.engine.improvement import improvement_step, raced
    from lostcards.engine.playouts import play_to_end
    for f in (play_to_end, improvement_step, raced):
        assert isinstance(f._cache, NullCache), f
