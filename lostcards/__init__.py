"""lostcards: play the Expeditions card game millions of times and test what players say about it.

>>> import lostcards
>>> r = lostcards.rules("expeditions", hand_size=8)
>>> lostcards.score_expedition(["JH", "QH", "6H", "8H", "10H"], lostcards.rules())
12
"""
__version__ = "0.1.0"

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
