"""Scoring (SPEC §2) and the expedition rule, plain Python: what an expedition scores, and what it takes."""
from __future__ import annotations

from typing import Optional, Sequence

from lostcards.rules.cards import format_card, is_investment, parse_card, suit_of, value_of
from lostcards.rules.ruleset import Ruleset


def _code(card, rules: Ruleset) -> int:
    if isinstance(card, str):
        return parse_card(card, rules)
    return int(card)


def score_expedition(cards: Sequence, rules: Ruleset) -> int:
    """An expedition's score (SPEC §2): (numbers - cost) x (investments + 1), + bonus at enough cards; empty = 0.

    ``cards`` are card texts (``"JH"``) or codes.
    """
    codes = [_code(c, rules) for c in cards]
    if not codes:
        return 0
    investments = sum(1 for c in codes if is_investment(c))
    numbers = sum(value_of(c) for c in codes)
    score = (numbers - rules.cost) * (investments + 1)
    if len(codes) >= rules.bonus_cards:
        score += rules.bonus_points
    return score


def expedition_refusal(expedition: Sequence[int], card: int, letters: str) -> Optional[str]:
    """Why ``card`` cannot be added to an expedition holding ``expedition`` (codes), or None if it can."""
    high = max((value_of(c) for c in expedition if not is_investment(c)), default=0)
    text = format_card(card, letters)
    if is_investment(card):
        if high:
            return (f"{text} is an investment card and the {letters[suit_of(card)]} expedition "
                    f"already holds a number ({high}); investments go down before any number")
        return None
    if value_of(card) <= high:
        return (f"{text} cannot go on the {letters[suit_of(card)]} expedition: "
                f"a number must be higher than the highest already there ({high})")
    return None
