"""How a round ends and who won: the ``Ending`` names (with the engines' integer codes) and ``Outcome``.

``Ending`` is the one list of ending names: the reference engine's
``ended_by``, the numba engine's codes, the ``ended_by`` column of the tables
and the tournament's capped count all come from it.  ``Outcome`` is a finished
round's result, as python-chess's ``Outcome``: how it ended, the scores, and
the winners (the sides with the highest score; several on a draw).
"""
from __future__ import annotations

import enum
from dataclasses import dataclass


class Ending(str, enum.Enum):
    """How a round ended (SPEC §2); a ``str`` so it compares equal to its name (``Ending.DECK == "deck"``)."""

    DECK = "deck"                # the draw pile ran out
    STALL = "stall"              # stall_limit stall turns per player in a row
    HAND_EMPTY = "hand-empty"    # solitaire: the hand is empty
    CAPPED = "capped"            # the turn cap stopped it
    UNFINISHED = "unfinished"    # still being played

    __str__ = str.__str__        # "deck", not "Ending.DECK", in text and f-strings

    @property
    def code(self) -> int:
        """The stable integer code the numba engine and the tables use (-1: unfinished)."""
        return _CODES[self]

    @classmethod
    def of_code(cls, code: int) -> "Ending":
        """The ending of an integer code; ValueError for a code that is none."""
        try:
            return _BY_CODE[int(code)]
        except KeyError:
            raise ValueError(f"no ending has code {code!r} (codes: {sorted(_BY_CODE)})") from None


_CODES = {Ending.DECK: 0, Ending.STALL: 1, Ending.HAND_EMPTY: 2, Ending.CAPPED: 3, Ending.UNFINISHED: -1}
_BY_CODE = {c: e for e, c in _CODES.items()}

# the endings of a finished round, in code order (the categories of the tables' `ended_by`)
FINISHED = tuple(sorted((e for e in Ending if e.code >= 0), key=lambda e: e.code))


@dataclass(frozen=True)
class Outcome:
    """A finished round's result: how it ended, each side's score, and the winning sides."""

    ending: Ending
    scores: tuple

    @property
    def winners(self) -> tuple:
        """The sides with the highest score (two on a draw; the one side in solitaire)."""
        if not self.scores:
            return ()
        best = max(self.scores)
        return tuple(side for side, s in enumerate(self.scores) if s == best)

    @property
    def winner(self):
        """The one winning side, or None on a draw."""
        w = self.winners
        return w[0] if len(w) == 1 else None
