"""Card vocabulary: card codes, notation (SPEC §4) and the deck of a ruleset.

A card *code* is ``suit * 12 + slot``: slots 0, 1, 2 are the investment cards
J, Q, K and slot ``n + 1`` is the number ``n`` (2..10 -> 3..11).  Copies of a
card (the second 2, 3 and 4 with four players) share a code; where the engines
need to tell copies apart they use *physical ids*, the positions of the cards
in the canonical deck (ordered by code, copies adjacent).
"""
from __future__ import annotations

from numbers import Integral

from lostcards.errors import CardError, huge_int_text

SLOTS = 12
INVESTMENT_RANKS = ("J", "Q", "K")
FAMILY_LETTERS = {"expeditions": "CDHS", "lost-cities": "YBWGRP"}
MAX_SUITS = 6
MAX_CODES = MAX_SUITS * SLOTS




def code_of(suit: int, slot: int) -> int:
    return suit * SLOTS + slot


def suit_of(code: int) -> int:
    return code // SLOTS


def slot_of(code: int) -> int:
    return code % SLOTS


def is_investment(code: int) -> bool:
    return code % SLOTS < 3


def value_of(code: int) -> int:
    """Face value of a number card; 0 for an investment card."""
    slot = code % SLOTS
    return slot - 1 if slot >= 3 else 0


def number_code(suit: int, number: int) -> int:
    return suit * SLOTS + number + 1


def rank_text(slot: int) -> str:
    return INVESTMENT_RANKS[slot] if slot < 3 else str(slot - 1)


def _letters_of(letters) -> str:
    """The suit letters of a ruleset (checked) or given as text; CardError otherwise."""
    if hasattr(letters, "checked"):          # a Ruleset (its letters come from its preset, checked first)
        return letters.checked().letters
    if not isinstance(letters, str):
        raise CardError(f"letters = {letters!r:.40} is not allowed: the suit letters (e.g. 'CDHS') or a ruleset")
    return letters


def format_card(code: int, letters) -> str:
    """Canonical text of a card: rank then suit letter (``10C``, ``JC``).

    `letters`: the suit letters (``"CDHS"``) or a ruleset.  A code that is no card of them is refused
    (CardError naming it and the allowed range)."""
    letters = _letters_of(letters)
    if isinstance(code, bool) or not isinstance(code, Integral) or not 0 <= code < SLOTS * len(letters):
        shown = huge_int_text(code) or f"{code!r:.40}"
        raise CardError(f"card code {shown} is not allowed: an integer 0..{SLOTS * len(letters) - 1} "
                        f"for the suits {letters}")
    return rank_text(code % SLOTS) + letters[code // SLOTS]


def parse_card(text: object, rules) -> int:
    """The code of a card text under ``rules``; case-insensitive, ``T`` = 10.

    Raises CardError for anything that is not a card of this ruleset.
    """
    if not isinstance(text, str) or len(text) < 2 or not text.isascii():
        raise CardError(f"not a card: {text!r:.40}")       # ASCII only: "ſ".upper() is "S"
    t = text.strip().upper()
    if len(t) < 2:
        raise CardError(f"not a card: {text!r:.40}")
    rank, letter = t[:-1], t[-1]
    if hasattr(rules, "checked"):            # a Ruleset (its letters come from its preset, checked first)
        rules.checked()
    letters = getattr(rules, "letters", None)
    if not isinstance(letters, str) or not hasattr(rules, "numbers"):
        raise CardError(f"rules = {rules!r:.40} is not allowed: a ruleset (lostcards.rules(...))")
    if letter not in letters:
        raise CardError(f"not a card: {text!r:.40} (suits are {', '.join(letters)})")
    suit = letters.index(letter)
    if rank in ("T", "10"):
        rank = "10"
    if rank in INVESTMENT_RANKS:
        slot = INVESTMENT_RANKS.index(rank)
        if slot >= rules.investments:
            raise CardError(f"not a card: {text!r:.40} (this ruleset has {rules.investments} investment cards a suit)")
        return code_of(suit, slot)
    # ASCII digits only, and few of them: str.isdigit also takes "²", and int() refuses over 4,300 digits
    if len(rank) <= 3 and rank.isascii() and rank.isdigit() and str(int(rank)) == rank and int(rank) in rules.numbers:
        return number_code(suit, int(rank))
    ranks = [*INVESTMENT_RANKS[:rules.investments], *map(str, sorted(rules.numbers))]
    raise CardError(f"not a card: {text!r:.40} (ranks are {', '.join(ranks)}; T is 10)")


def aside_count(players: int, deck_size: int) -> int:
    """Cards set aside unseen before the deal: solitaire plays half the deck (rounded down) and sets
    the rest aside; 2 and 4 players set nothing aside."""
    return deck_size - deck_size // 2 if players == 1 else 0


def deck_codes(rules, players: int | None = None) -> list[int]:
    """The full deck of the ruleset in canonical order (physical id -> code)."""
    players = rules.players if players is None else players
    deck = []
    for suit in range(rules.suits):
        for slot in range(rules.investments):
            deck.append(code_of(suit, slot))
        for n in rules.numbers:
            copies = 2 if players == 4 and n in rules.extra_low else 1
            deck.extend([number_code(suit, n)] * copies)
    return deck
