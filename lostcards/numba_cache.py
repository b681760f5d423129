"""numba's disk cache and compiles: one cache folder, each function keyed on the sources it compiles in.

numba reuses a cached function while its own file keeps its modification
time and size; code compiled into it from other modules (the rules core
inlined into a policy) is not checked, and a fresh checkout recompiles
everything.  ``jit`` replaces that stamp with the SHA-256 of the function's
module and of every lostcards module it imports, directly or through
others (``sources``): an edit recompiles exactly the functions that depend
on the edited file, an edit anywhere else recompiles nothing, and stale code
never runs.

``compile_all`` compiles (or loads) the entry points a command needs before
it starts: it says on stderr, once and before anything compiles, what it is
about to compile and roughly how long that takes, and it holds a file lock
per function, so processes started together (test workers, ``--workers``)
compile each function once and the others load it.
"""
from __future__ import annotations

import ast
import contextlib
import functools
import hashlib
import json
import os
import sys
import threading
import time
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent
# lostcards.experiments: a folder of the package once installed, the repository's experiments/ in a checkout
EXPERIMENTS = PACKAGE / "experiments" if (PACKAGE / "experiments").is_dir() else PACKAGE.parent / "experiments"
_STAMP_TAG = "lostcards-sources"
_HERE = Path(__file__).resolve()        # this module compiles nothing into a function: never a source


# ---- which sources a function compiles in ---------------------------------------------------------

def _module_file(name: str) -> Path | None:
    """The source file of a lostcards module name (None for other modules)."""
    parts = name.split(".")
    if parts[0] != "lostcards":
        return None
    root, rest = (EXPERIMENTS, parts[2:]) if parts[1:2] == ["experiments"] else (PACKAGE, parts[1:])
    base = root.joinpath(*rest)
    for f in (base.with_suffix(".py") if rest else None, base / "__init__.py"):
        if f is not None and f.is_file():
            return f
    return None


@functools.lru_cache(maxsize=None)
def _imports(path: Path) -> tuple:
    """The lostcards modules a source file imports (at any depth of its code), as files."""
    try:
        tree = ast.parse(path.read_bytes())
    except (OSError, SyntaxError, ValueError):
        return ()
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
            names.update(f"{node.module}.{a.name}" for a in node.names)   # `from pkg import module`
    return tuple(sorted({f for f in map(_module_file, names) if f is not None and f not in (path, _HERE)}))


@functools.lru_cache(maxsize=None)
def sources(path) -> tuple:
    """A source file and every lostcards module it imports, directly or through others (sorted)."""
    seen = {Path(path).resolve()}
    todo = list(seen)
    while todo:
        for f in _imports(todo.pop()):
            if f not in seen:
                seen.add(f)
                todo.append(f)
    return tuple(sorted(seen))


def source_hash(files=None, length: int | None = None) -> str:
    """SHA-256 of source files, each with its name (default: every .py file of the package)."""
    h = hashlib.sha256()
    if files is None:
        files = sorted(f for f in PACKAGE.rglob("*.py") if "__pycache__" not in f.parts)
    for f in files:
        f = Path(f)
        h.update(f.as_posix().encode() if not f.is_relative_to(PACKAGE) else f.relative_to(PACKAGE).as_posix().encode())
        try:
            h.update(f.read_bytes())
        except OSError:
            h.update(b"<missing>")
    d = h.hexdigest()
    return d[:length] if length else d


def key_on_sources(dispatcher, files) -> None:
    """Make a cached numba function's cache entries valid only for these sources' contents.

    numba stamps a cache index with its file's (mtime, size); this replaces the
    stamp (a numba internal, ``_cache._cache_file._source_stamp``) with the hash
    of `files`.  Without that internal, numba's own stamp stays.
    """
    cache_file = getattr(getattr(dispatcher, "_cache", None), "_cache_file", None)
    if cache_file is not None and hasattr(cache_file, "_source_stamp"):
        stamp = source_hash(files)
        if os.environ.get("LOSTCARDS_SELECT"):      # engine/bits.py: it changes what kth_bit compiles to
            stamp += ":select=" + os.environ["LOSTCARDS_SELECT"]
        cache_file._source_stamp = (_STAMP_TAG, stamp)


def jit(fn=None, *, inline: bool = False, also=(), **options):
    """``numba.njit(cache=True)``, cached per the sources it compiles in (``sources``).

    ``inline=True`` has LLVM inline the function into every caller (``forceinline``): the
    caller's constants fold through it at no cost to numba's own compile.  ``also``: more
    source files the function depends on (a generated module names the policy it wraps).
    ``cache=False`` for a function that takes other jitted functions as arguments: numba keys its cache
    on their types, which it cannot write again once an entry of another process is in the index (the
    callers, compiled with the function in them, are cached as usual).
    """
    from numba import njit

    def wrap(f):
        d = njit(**{"cache": True, **options}, forceinline=inline)(f)
        files = set(sources(f.__code__.co_filename))
        for extra in also:
            files.update(sources(extra))
        key_on_sources(d, sorted(files))
        return d
    return wrap(fn) if fn is not None else wrap


# ---- where the cache lives -------------------------------------------------------------------------

def cache_folder() -> Path:
    """LOSTCARDS_NUMBA_CACHE, else the package's ``__pycache__/numba`` (NUMBA_CACHE_DIR wins over both)."""
    if os.environ.get("NUMBA_CACHE_DIR"):
        return Path(os.environ["NUMBA_CACHE_DIR"])
    return Path(os.environ.get("LOSTCARDS_NUMBA_CACHE", PACKAGE / "__pycache__")) / "numba"


def use_cache_folder() -> None:
    """Point numba's cache at ``cache_folder()`` (run on ``import lostcards``, before numba loads)."""
    if os.environ.get("NUMBA_CACHE_DIR"):
        return
    path = cache_folder()
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError:
        return                              # numba falls back to its own default
    os.environ["NUMBA_CACHE_DIR"] = str(path)
    if "numba" in sys.modules:              # numba imported first: tell its config directly
        sys.modules["numba"].config.CACHE_DIR = str(path)


# ---- compiling entry points before a command starts ----------------------------------------------

class Entry:
    """One entry point to have ready: a jitted function, its one signature, and what to call it.

    Once ready, the function compiles nothing more: a call converts its arguments to that
    signature (a decider passed as a dispatcher becomes the first-class function type), as
    with a signature given to ``njit`` itself, so one compile serves every policy."""

    def __init__(self, dispatcher, sig, what: str, about: float):
        self.dispatcher, self.sig, self.what, self.about = dispatcher, sig, what, about

    @property
    def ready(self) -> bool:
        """Compiled in this process already, or in the disk cache for these sources."""
        d = self.dispatcher
        if tuple(self.sig.args) in d.overloads:
            return True
        cache = getattr(d, "_cache", None)
        try:
            key = cache._index_key(self.sig, d.targetctx.codegen())
            return key in cache._cache_file._load_index()
        except Exception:                   # no cache, or numba's internals moved: assume not
            return False

    @property
    def key(self) -> str:
        py = self.dispatcher.py_func
        return f"{py.__module__}.{py.__qualname__}"


def _times_file() -> Path:
    return cache_folder() / "compile-seconds.json"


def _times() -> dict:
    try:
        return json.loads(_times_file().read_text())
    except (OSError, ValueError):
        return {}


def _remember(key: str, seconds: float) -> None:
    t = _times()
    t[key] = round(seconds, 1)
    try:
        tmp = _times_file().with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps(t, indent=0, sort_keys=True))
        os.replace(tmp, _times_file())
    except OSError:
        pass


@contextlib.contextmanager
def _locked(key: str):
    """An exclusive lock on `key` shared by every process using this cache folder (POSIX)."""
    try:
        import fcntl
        folder = cache_folder() / "locks"
        folder.mkdir(parents=True, exist_ok=True)
        f = open(folder / (hashlib.sha256(key.encode()).hexdigest()[:16] + ".lock"), "w")
    except (ImportError, OSError):
        yield
        return
    with f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def _say(text: str) -> None:
    try:
        sys.stderr.write(text + "\n")
        sys.stderr.flush()
    except (OSError, ValueError):
        pass


say = _say          # the notice's writer (a command line may replace it)
_timings: list = []


def compile_all(entries) -> float:
    """Compile or load `entries` (``Entry``); one notice on stderr first if anything compiles.

    Returns the seconds spent compiling (0 when everything came from the cache).
    """
    todo = [e for e in entries if not e.ready]
    if not todo:
        for e in entries:
            _load(e)
        return 0.0
    times = _times()
    about = sum(times.get(e.key, e.about) for e in todo)
    what = ", ".join(dict.fromkeys(e.what for e in todo))
    say(f"lostcards: compiling {what} (once after an install or a change of lostcards; about "
        f"{_roughly(about)} on one core, later runs load it in a second) ...")
    spent = 0.0
    for e in entries:
        with _locked(e.key):
            t = time.perf_counter()
            c = time.process_time()
            fresh = not e.ready
            _load(e)
            if fresh:
                cpu = time.process_time() - c
                _remember(e.key, cpu)
                _timings.append((e.what, time.perf_counter() - t, cpu))
                spent += time.perf_counter() - t
    return spent


_LOADING = threading.Lock()     # two threads loading one entry: the second must not compile after the first disabled it


def _load(e: Entry) -> None:
    with _LOADING:
        if tuple(e.sig.args) not in e.dispatcher.overloads:
            e.dispatcher.compile(e.sig)
            e.dispatcher.disable_compile()


def _roughly(seconds: float) -> str:
    if seconds < 60:
        return f"{max(5, 5 * round(seconds / 5)):.0f} s"
    return f"{seconds / 60:.1f} minutes"


def compile_timings() -> list:
    """(what, wall seconds, CPU seconds) of every entry point this process compiled."""
    return list(_timings)


class CompileCounter:
    """Counts numba compiles in this process (every function, callees included) while active."""

    def __init__(self):
        self.count = 0
        self.names: list = []

    def __enter__(self):
        from numba.core import event

        counter = self

        class _Listener(event.Listener):
            def on_start(self, ev):
                counter.count += 1
                counter.names.append(str(ev.data["dispatcher"].py_func.__qualname__))

            def on_end(self, ev):
                pass
        self._listener = _Listener()
        event.register("numba:compile", self._listener)
        return self

    def __exit__(self, *exc):
        from numba.core import event
        event.unregister("numba:compile", self._listener)
