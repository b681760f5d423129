"""Every error the library raises on purpose: one family, so the command line can turn them into one line;
and how their messages show a path or an integer too long to print (``shown_path``, ``huge_int_text``).

``LostcardsError`` is the base; the command line catches it (and only it) and
prints its message with exit status 1.  Errors that callers have long caught as
``ValueError`` keep it as a second base.
"""
from __future__ import annotations

from enum import IntEnum
from numbers import Integral


class LostcardsError(Exception):
    """Base of every error lostcards raises on purpose (the message says what and what is allowed)."""


class BadArgument(LostcardsError, ValueError):
    """An argument of a library function out of its allowed range (the message names it and what is allowed)."""


class RulesError(LostcardsError, ValueError):
    """A ruleset parameter out of its allowed range (the message names it)."""


class CardError(LostcardsError, ValueError):
    """A card text that is not a card of the ruleset."""


class Illegal(IntEnum):
    """Why the engine refused a move (0 = legal); the round stops and nothing changes."""

    NOT_HELD = 1
    EXPEDITION_REFUSES = 2
    EMPTY_PILE = 3
    DRAW_BACK = 4
    PASS_NOT_FOUR = 5
    PASS_NOT_HELD = 6
    NOT_A_MOVE = 7
    LOG_FULL = 8
    NO_SUCH_PILE = 9
    DECK_EMPTY = 10
    NO_DRAW = 11
    SOLITAIRE_PILE = 12
    PASS_HAND_SMALL = 13
    PASS_TWICE = 14
    ROUND_OVER = 15

    @property
    def message(self) -> str:
        return MESSAGES[self]


MESSAGES = {
    Illegal.NOT_HELD: "the card played is not in the hand",
    Illegal.EXPEDITION_REFUSES: "the expedition does not take that card (an investment after a "
                                "number, or a number not higher than its highest)",
    Illegal.EMPTY_PILE: "the draw names an empty discard pile",
    Illegal.DRAW_BACK: "the draw takes back the card just discarded",
    Illegal.PASS_NOT_FOUR: "only a 4-player game allows a pass",
    Illegal.PASS_NOT_HELD: "the passed cards are not in the hand (copies counted)",
    Illegal.NOT_A_MOVE: "not a move code",
    Illegal.LOG_FULL: "the round is longer than the turn log",
    Illegal.NO_SUCH_PILE: "the draw names a discard pile this ruleset does not have",
    Illegal.DECK_EMPTY: "the draw names the deck, which is empty",
    Illegal.NO_DRAW: "a turn must draw a card, off the deck or a discard pile",
    Illegal.SOLITAIRE_PILE: "solitaire draws only off the deck, never off a discard pile",
    Illegal.PASS_HAND_SMALL: "a pass needs a hand of at least pass_min_hand cards",
    Illegal.PASS_TWICE: "a seat may not pass on two of its turns in a row (pass_twice is off)",
    Illegal.ROUND_OVER: "the round is already over",
}


class IllegalMove(LostcardsError, ValueError):
    """A move the rules do not allow; the message names the rule broken, ``code`` (an ``Illegal``)
    says which check refused it, as the engine numbers its checks (None: the text of a record
    turn did not name a move at all)."""

    def __init__(self, reason: str, code: "Illegal | None" = None):
        super().__init__(reason)
        self.reason = reason
        self.code = code


class MalformedRecord(LostcardsError, ValueError):
    """A round record that does not follow SPEC §5.1 (the message says where)."""


class PolicyError(LostcardsError, ValueError):
    """An unknown policy or a bad policy parameter (the message says which)."""


class PolicyFailure(LostcardsError, RuntimeError):
    """A policy returned an illegal move (the message names the round and the rule)."""


class BatchError(LostcardsError, ValueError):
    """A batch that cannot run as asked (the message says why)."""


class TournamentError(LostcardsError, ValueError):
    """A tournament that cannot run as asked."""


class SweepError(LostcardsError, ValueError):
    """A sweep that cannot run as asked."""


class ClaimsError(LostcardsError, ValueError):
    """Claims that cannot run as asked (no experiments, an unknown claim id)."""


class OutputError(LostcardsError, ValueError):
    """An output file a command cannot or must not write (the message names it and why)."""


def shown_path(p) -> str:
    """A path as a message shows it: cut when very long, saying how long it was."""
    t = str(p)
    return t if len(t) <= 100 else f"{t[:80]}... ({len(t):,} characters)"


def huge_int_text(value) -> str | None:
    """An integer of thousands of digits as a message shows it, by its size (Python will not turn it into
    text); None for any other value."""
    if isinstance(value, Integral) and not isinstance(value, bool) and abs(int(value)).bit_length() > 96:
        return f"an integer of about {int(abs(int(value)).bit_length() * 0.30103):,} digits"
    return None
