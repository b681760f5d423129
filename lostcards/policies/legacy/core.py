"""The move codec names ``expert`` still imports from here (until it is ported): the engine's own.

The old array engine that lived here (a second copy of the rules) is gone; moves
are the same codes in both, so these are ``lostcards.engine.moves``'s.
"""
from lostcards.engine.moves import DRAW_DECK, DRAW_NONE, TO_DISCARD, TO_EXPEDITION, make_pass, make_play

__all__ = ["DRAW_DECK", "DRAW_NONE", "TO_DISCARD", "TO_EXPEDITION", "make_pass", "make_play"]
