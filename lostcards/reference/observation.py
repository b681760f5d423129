"""What a seat sees on its turn in the reference engine (SPEC §3): the ``Observation`` a Python policy gets."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Optional

from lostcards.reference.moves import Move
from lostcards.rules.cards import format_card, suit_of
from lostcards.rules.ruleset import Ruleset
from lostcards.rules.scoring import expedition_score, expedition_takes
from lostcards.rules.streams import Stream


def side_of(seat: int, players: int) -> int:
    """The side a seat plays for: itself with 1 or 2 players, its team (seat mod 2) with 4."""
    return seat % 2 if players == 4 else seat


@dataclass(frozen=True)
class Observation:
    """What one seat may see when it is its turn (SPEC §3), never the deck order or hidden hands.

    Cards are codes.  ``expeditions[side][suit]`` and ``discards[suit]`` list
    cards in the order they were laid (a pile's top card is last).
    ``known[seat]`` holds the cards this seat knows that seat to hold, a
    code repeated for each copy known (docs/engine.md, "What a seat knows");
    its own entry is empty.
    """

    rules: Ruleset
    seat: int
    players: int
    hand: tuple
    expeditions: tuple
    discards: tuple
    deck_size: int
    known: tuple
    hand_sizes: tuple
    stall_count: int
    turn: int
    can_pass: bool
    round_index: int = 0
    totals: tuple = ()

    # -- who is who ------------------------------------------------------
    @property
    def side(self) -> int:
        return side_of(self.seat, self.players)

    @property
    def partner(self) -> Optional[int]:
        """The partner's seat (4 players), else None."""
        return (self.seat + 2) % 4 if self.players == 4 else None

    @property
    def letters(self) -> str:
        return self.rules.letters

    def card_text(self, code: int) -> str:
        return format_card(code, self.rules.letters)

    # -- the table ---------------------------------------------------------
    def expedition(self, suit: int, side: Optional[int] = None) -> tuple:
        """The cards of one expedition (own side by default), in the order laid."""
        return self.expeditions[self.side if side is None else side][suit]

    def pile_top(self, suit: int) -> Optional[int]:
        """The top card of a suit's discard pile, or None when it is empty."""
        pile = self.discards[suit]
        return pile[-1] if pile else None

    def can_play(self, card: int) -> bool:
        """Whether ``card`` may be added to the own expedition of its suit now."""
        return expedition_takes(self.expedition(suit_of(card)), card)

    def legal_plays(self) -> list:
        """Every legal (card, to) in the `random` policy's order: expedition plays, then discards.

        Cards follow the hand's order and copies are listed separately.
        """
        plays = [(c, "expedition") for c in self.hand if self.can_play(c)]
        plays.extend((c, "discard") for c in self.hand)
        return plays

    def draw_sources(self, after_discard_suit: Optional[int] = None) -> list:
        """Where a draw may come from after the play: ``"deck"``, then each non-empty pile's suit index.

        The pile just discarded onto (``after_discard_suit``) is left out.  In
        solitaire there is no choice (the draw is automatic): the list is empty.
        """
        if self.players == 1:
            return []
        sources = ["deck"] if self.deck_size > 0 else []
        sources.extend(s for s, pile in enumerate(self.discards) if pile and s != after_discard_suit)
        return sources

    def score(self, side: Optional[int] = None) -> int:
        """A side's score as the table stands (own side by default)."""
        exps = self.expeditions[self.side if side is None else side]
        return sum(expedition_score(e, self.rules) for e in exps)


Policy = Callable[[Observation, Stream], Move]
