"""Every error the library raises on purpose: one family, so the command line can turn them into one line.

``LostcardsError`` is the base; the command line catches it (and only it) and
prints its message with exit status 1.  Errors that callers have long caught as
``ValueError`` keep it as a second base.
"""
from __future__ import annotations


class LostcardsError(Exception):
    """Base of every error lostcards raises on purpose (the message says what and what is allowed)."""


class BadArgument(LostcardsError, ValueError):
    """An argument of a library function out of its allowed range (the message names it and what is allowed)."""


class RulesError(LostcardsError, ValueError):
    """A ruleset parameter out of its allowed range (the message names it)."""


class CardError(LostcardsError, ValueError):
    """A card text that is not a card of the ruleset."""


class IllegalMove(LostcardsError, ValueError):
    """A move the rules do not allow; the message names the rule broken."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


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
