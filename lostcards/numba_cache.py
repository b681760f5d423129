"""numba's on-disk cache, kept per version of the package's sources (one source hash for everything).

numba checks only a function's own file before reusing its cached machine
code, so a change to a file it calls into (a policy's rollout bot, the random
streams) could leave stale code in use.  Two remedies, both keyed on
``source_hash``: the cache lives in a folder named after the hash of all the
package's sources (``use_cache_per_source``, run on ``import lostcards``), and a
module that compiles other modules' code into its functions folds their
digest into its functions' cache stamps (``bind_cache``).
"""
from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent


def source_hash(files=None, length: int | None = None) -> str:
    """SHA-256 of source files (default: every .py file of the package, with its relative path)."""
    h = hashlib.sha256()
    if files is None:
        for f in sorted(PACKAGE.rglob("*.py")):
            if "__pycache__" in f.parts:    # generated code (policy deciders) lives there
                continue
            h.update(f.relative_to(PACKAGE).as_posix().encode())
            h.update(f.read_bytes())
    else:
        for f in files:
            try:
                h.update(Path(f).read_bytes())
            except OSError:
                h.update(os.fsencode(str(f)))
    d = h.hexdigest()
    return d[:length] if length else d


def use_cache_per_source() -> None:
    """Point NUMBA_CACHE_DIR at a folder named after ``source_hash()``.

    LOSTCARDS_NUMBA_CACHE (the base folder) or NUMBA_CACHE_DIR (the folder itself) override it.
    """
    if os.environ.get("NUMBA_CACHE_DIR"):
        return
    base = Path(os.environ.get("LOSTCARDS_NUMBA_CACHE", PACKAGE / "__pycache__"))
    path = base / f"numba-{source_hash(length=16)}"
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError:
        return                              # numba falls back to its own default
    os.environ["NUMBA_CACHE_DIR"] = str(path)
    if "numba" in sys.modules:              # numba imported first: tell its config directly
        sys.modules["numba"].config.CACHE_DIR = str(path)


def module_files(*modules) -> list[str]:
    """The source files of some modules (for ``bind_cache``)."""
    return [m.__file__ for m in modules]


def bind_cache(namespace: dict, files) -> None:
    """Make the cached numba functions in `namespace` depend on `files` too.

    numba keys a cached function on its own source file only, so code compiled
    into it from other modules (the expert's rollouts, the engine's layout
    constants) would stay old after those files change.  This folds
    ``source_hash(files)`` into each function's cache stamp.  It uses a numba
    internal (``_cache._cache_file._source_stamp``); if that is missing, nothing changes.
    """
    digest = source_hash(files)
    for obj in list(namespace.values()):
        cache_file = getattr(getattr(obj, "_cache", None), "_cache_file", None)
        stamp = getattr(cache_file, "_source_stamp", None)
        if stamp is not None and not (isinstance(stamp, tuple) and len(stamp) == 3):
            cache_file._source_stamp = (stamp[0], stamp[1], digest) if isinstance(stamp, tuple) \
                else (stamp, None, digest)


def cache_is_cold() -> bool:
    """True when numba's cache folder for these sources holds no compiled function yet (no index
    file), so the next engine call compiles for a minute or so; cheap (one directory walk)."""
    d = os.environ.get("NUMBA_CACHE_DIR")
    if not d:
        return False
    try:
        return next(Path(d).rglob("*.nbi"), None) is None
    except OSError:
        return False
