"""lostcards: play the Expeditions card game millions of times and test what players say about it.

>>> import lostcards
>>> r = lostcards.rules("expeditions", hand_size=8)
>>> lostcards.score_expedition(["JH", "QH", "6H", "8H", "10H"], lostcards.rules())
12
"""
__version__ = "0.1.0"


def _numba_cache_per_source():
    """Keep numba's on-disk cache in a folder named after a hash of the package's sources.

    numba checks only a function's own file before reusing its cached machine
    code, so a change to a file it calls into (a policy's rollout bot, the
    random streams) could leave stale code in use.  A folder per source
    version rules that out; LOSTCARDS_NUMBA_CACHE or NUMBA_CACHE_DIR override it.
    """
    import hashlib
    import os
    from pathlib import Path
    if os.environ.get("NUMBA_CACHE_DIR"):
        return
    here = Path(__file__).resolve().parent
    h = hashlib.sha256()
    for f in sorted(here.rglob("*.py")):
        if "__pycache__" in f.parts:        # generated code (policy deciders) lives there
            continue
        h.update(f.relative_to(here).as_posix().encode())
        h.update(f.read_bytes())
    base = Path(os.environ.get("LOSTCARDS_NUMBA_CACHE", here / "__pycache__"))
    path = base / f"numba-{h.hexdigest()[:16]}"
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError:
        return                              # numba falls back to its own default
    os.environ["NUMBA_CACHE_DIR"] = str(path)
    import sys
    if "numba" in sys.modules:              # numba imported first: tell its config directly
        sys.modules["numba"].config.CACHE_DIR = str(path)


_numba_cache_per_source()

from .cards import format_card, parse_card  # noqa: E402
from .ruleset import PRESETS, Ruleset, RulesError, rules  # noqa: E402


def __getattr__(name):
    # heavy modules (numba, pandas) load on first use, so `import lostcards` stays quick
    if name == "score_expedition":
        from .reference import score_expedition
        return score_expedition
    if name in ("play", "records"):
        from . import runner
        return getattr(runner, name)
    if name in ("load", "summary"):
        from . import simulate
        return getattr(simulate, name)
    raise AttributeError(f"module 'lostcards' has no attribute {name!r}")


__all__ = ["rules", "Ruleset", "RulesError", "PRESETS", "parse_card", "format_card",
           "score_expedition", "play", "records", "load", "summary"]
