"""Scoring (SPEC §2) and the expedition rule, plain Python: what an expedition scores, and what it takes."""
from __future__ import annotations

import functools
from numbers import Integral
from typing import Optional, Sequence

from lostcards.errors import BadArgument, CardError, IllegalMove
from lostcards.rules.cards import deck_codes, format_card, is_investment, parse_card, suit_of, value_of
from lostcards.rules.ruleset import Ruleset, shorten


@functools.lru_cache(maxsize=64)
def _deck(rules: Ruleset) -> frozenset:
    """The codes of a ruleset's deck, once a ruleset (a ruleset is an immutable value)."""
    return frozenset(deck_codes(rules))


def _code(card, rules: Ruleset) -> int:
    if isinstance(card, str):
        return parse_card(card, rules)
    if isinstance(card, bool) or not isinstance(card, Integral) or int(card) not in _deck(rules):
        raise CardError(f"not a card of this ruleset: {shorten(card, 40)}")
    return int(card)


def score_expedition(cards: Sequence, rules: Ruleset) -> int:
    """An expedition's score (SPEC §2): (numbers - cost) x (investments + 1), + bonus at enough cards; empty = 0.

    ``cards`` are card texts (``"JH"``) or codes, in the order laid; they must make a legal
    expedition (one suit, each card once, investments before any number, each number above
    the one before): IllegalMove says which card breaks which rule (CardError: no such card).
    """
    if not isinstance(rules, Ruleset):
        raise BadArgument(f"rules must be a Ruleset (lostcards.rules(...)), got {type(rules).__name__}")
    rules.checked()
    if isinstance(cards, (str, bytes)) or not hasattr(cards, "__iter__"):
        raise BadArgument(f"cards must be a list of cards such as ['JH', '6H'], got {cards!r:.40}")
    codes = [_code(c, rules) for c in cards]
    letters = rules.letters
    for i, c in enumerate(codes):
        if suit_of(c) != suit_of(codes[0]):
            raise IllegalMove(f"{format_card(c, letters)} is not of the {letters[suit_of(codes[0])]} suit: "
                              "an expedition holds one suit")
        if c in codes[:i]:
            raise IllegalMove(f"{format_card(c, letters)} is laid twice: an expedition holds each card once")
        why = expedition_refusal(codes[:i], c, letters)
        if why:
            raise IllegalMove(f"not a legal expedition, in the order laid: {why}")
    return expedition_score(codes, rules)


def expedition_score(codes: Sequence[int], rules: Ruleset) -> int:
    """``score_expedition`` of card codes known to make a legal expedition (the engines' own, unchecked)."""
    if not codes:
        return 0
    investments = sum(1 for c in codes if is_investment(c))
    numbers = sum(value_of(c) for c in codes)
    score = (numbers - rules.cost) * (investments + 1)
    if len(codes) >= rules.bonus_cards:
        score += rules.bonus_points
    return score


def _highest_number(expedition: Sequence[int]) -> int:
    return max((value_of(c) for c in expedition if not is_investment(c)), default=0)


def expedition_takes(expedition: Sequence[int], card: int) -> bool:
    """Whether ``card`` may be added to an expedition holding ``expedition`` (codes): an investment before
    any number, a number above the highest (``expedition_refusal`` says why not)."""
    high = _highest_number(expedition)
    return not high if is_investment(card) else value_of(card) > high


def expedition_refusal(expedition: Sequence[int], card: int, letters: str) -> Optional[str]:
    """Why ``card`` cannot be added to an expedition holding ``expedition`` (codes), or None if it can
    (the rule itself is ``expedition_takes``)."""
    if expedition_takes(expedition, card):
        return None
    high = _highest_number(expedition)
    if is_investment(card):
        return (f"{format_card(card, letters)} is an investment card and the {letters[suit_of(card)]} expedition "
                f"already holds a number ({high}); investments go down before any number")
    return (f"{format_card(card, letters)} cannot go on the {letters[suit_of(card)]} expedition: "
            f"a number must be higher than the highest already there ({high})")
