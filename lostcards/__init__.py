"""lostcards: play the Expeditions card game millions of times and test what players say about it.

>>> import lostcards
>>> r = lostcards.rules("expeditions", hand_size=8)
>>> lostcards.score_expedition(["JH", "QH", "6H", "8H", "10H"], lostcards.rules())
12

The public API is here; heavy modules (numba, pandas) load on first use, so
``import lostcards`` stays quick.  ``lostcards.rules(...)`` is the function (the
package ``lostcards.rules`` is imported below, before the name is bound to
the function, so the name never changes meaning); round records of a batch
come from ``lostcards.play_records(...)`` (``lostcards.records`` is the package
of the SPEC §5 format).
"""
__version__ = "0.1.0"

import _signal  # noqa: E402  (the C module: `signal` itself takes milliseconds to import)
import sys as _sys  # noqa: E402


def _started_as_the_command_line() -> bool:
    """True in a `lostcards ...` or `python -m lostcards ...` process (not when a program imports lostcards)."""
    orig = getattr(_sys, "orig_argv", [])
    return any(a == "-m" and b == "lostcards" for a, b in zip(orig, orig[1:])) or \
        _sys.argv[0].replace("\\", "/").rsplit("/", 1)[-1] in ("lostcards", "lostcards.exe", "lostcards-script.py")


def _interrupted_while_starting(signum, frame):
    # Ctrl-C before the command line's own handler is in place (lostcards.cli.run): one line, status 130
    import os
    try:
        _sys.stderr.write("lostcards: interrupted\n")
        _sys.stderr.flush()
    finally:
        os._exit(130)


if _started_as_the_command_line() and _signal.getsignal(_signal.SIGINT) is _signal.default_int_handler:
    _signal.signal(_signal.SIGINT, _interrupted_while_starting)

from lostcards.numba_cache import use_cache_folder  # noqa: E402

use_cache_folder()

from lostcards.errors import LostcardsError, RulesError  # noqa: E402
from lostcards.rules.cards import format_card, parse_card  # noqa: E402
from lostcards.rules.ruleset import PRESETS, Ruleset, rules  # noqa: E402
from lostcards.rules.scoring import score_expedition  # noqa: E402

_LAZY = {"play": "lostcards.run.runner", "play_records": "lostcards.run.runner",
         "load": "lostcards.run.load", "summary": "lostcards.run.summary"}


def __getattr__(name):
    # heavy modules (numba, pandas) load on first use, so `import lostcards` stays quick
    if name in _LAZY:
        import importlib
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'lostcards' has no attribute {name!r}")


__all__ = ["rules", "Ruleset", "RulesError", "LostcardsError", "PRESETS", "parse_card", "format_card",
           "score_expedition", "play", "play_records", "load", "summary"]
