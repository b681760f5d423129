"""What ``expert`` and ``staller`` still import from here until they are ported: the engine's move codec.

The old array engine that lived here (a second copy of the rules) is gone.  Moves
are the same codes in both, so the move names are ``lostcards.engine.moves``'s;
``expedition_score`` is the old row's form of the score (sum, investments and card
count of an expedition, the rules row ``P``) for the bots that read that row.
"""
from __future__ import annotations

from numba import njit

from lostcards.engine.moves import DRAW_DECK, DRAW_NONE, TO_DISCARD, TO_EXPEDITION, make_pass, make_play
from lostcards.engine.moves import PASS_BIT as PASS_FLAG
from lostcards.rules.ruleset import P_BONUS_CARDS, P_BONUS_POINTS, P_COST

__all__ = ["DRAW_DECK", "DRAW_NONE", "PASS_FLAG", "TO_DISCARD", "TO_EXPEDITION", "expedition_score", "make_pass",
           "make_play"]


@njit(cache=True, inline="always")
def expedition_score(P, total, investments, cards):
    """(sum - cost) x (investments + 1), + the bonus at bonus_cards; 0 if empty."""
    if cards == 0:
        return 0
    s = (total - P[P_COST]) * (investments + 1)
    if cards >= P[P_BONUS_CARDS]:
        s += P[P_BONUS_POINTS]
    return s
