"""A seat's move in the reference engine: ``Play`` (a card to an expedition or a discard pile, then a draw)
or ``Pass`` (4 players: two cards to the partner)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Union

Draw = Union[Literal["deck"], int, None]


@dataclass(frozen=True)
class Play:
    """Play ``card`` (a code) to the own expedition or its discard pile, then draw.

    ``draw`` is ``"deck"``, a suit index (that suit's discard pile), or ``None``:
    no choice, which only solitaire allows (it draws off the deck while it lasts).
    """

    card: int
    to: Literal["expedition", "discard"]
    draw: Draw = None


@dataclass(frozen=True)
class Pass:
    """4 players: hand these two cards (codes) to the partner instead of playing and drawing."""

    cards: tuple


Move = Union[Play, Pass]
