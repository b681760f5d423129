"""What a person types at the prompt, read into moves; a refused move named as the engine names it.

A turn is typed in two steps, as the rule sheet plays it: the card first
(``play 7H`` to the own expedition, ``discard QS``; in a 4-player round also
``pass 2C 5D``), then the draw (``draw deck``, ``draw S``; solitaire draws by
itself).  ``play 7H draw deck`` in one line does both.  ``help``, ``undo``
(before the draw is given) and ``quit`` are words of their own; at the draw prompt ``deck`` or a
suit letter alone is the draw.  Cards are
case-insensitive and take ``T`` for 10 (SPEC §4).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from lostcards.engine.moves import Illegal
from lostcards.errors import CardError, IllegalMove
from lostcards.reference.moves import Play
from lostcards.rules.cards import parse_card, suit_of
from lostcards.rules.scoring import expedition_refusal

HELP = """\
  play CARD         add a card to your expedition of its suit (e.g. play 7H)
  discard CARD      put a card face up on its suit's discard pile (e.g. discard QS)
  pass CARD CARD    4 players: hand two cards to your partner instead of a turn
  draw deck         then draw off the draw pile (or just: deck), or
  draw S            the top card of a suit's discard pile, not the card just discarded (or just: S)
  play 7H draw deck both steps in one line
  undo              take back the card chosen, before the draw is given
  help              this list
  quit              stop here (the round so far is saved)
Cards: rank then suit, 2..10 (or T), J, Q, K; case does not matter."""


class InputRefused(Exception):
    """A line that is not a command, or a move the rules refuse: `reason` says which and why."""

    def __init__(self, reason: str, name: Optional[str] = None):
        super().__init__(reason)
        self.reason = reason
        self.name = name          # the engine's name for a refused move (engine.moves.Illegal)

    def __str__(self):
        return f"{self.name}: {self.reason}" if self.name else self.reason


@dataclass(frozen=True)
class Command:
    """One line read: a word (play, discard, pass, draw, undo, help, quit) and its arguments."""

    word: str
    card: Optional[int] = None
    cards: tuple = ()
    draw: object = None          # "deck" or a suit index, for `draw` (or a play with its draw)


WORDS = ("play", "discard", "pass", "draw", "undo", "help", "quit")
ALIASES = {"p": "play", "d": "discard", "x": "discard", "exit": "quit", "q": "quit", "?": "help", "h": "help",
           "u": "undo"}


def _card(text: str, rules) -> int:
    try:
        return parse_card(text, rules)
    except CardError as e:
        raise InputRefused(str(e)) from None


def _source(text: str, rules):
    t = text.strip()
    if t.lower() in ("deck", "pile", "draw-pile"):
        return "deck"
    if len(t) == 1 and t.upper() in rules.letters:
        return rules.letters.index(t.upper())
    raise InputRefused(f"draw from 'deck' or a suit letter ({', '.join(rules.letters)}), not {t[:20]!r}")


def draw_only(line: str, rules) -> Optional[Command]:
    """At the draw prompt a line may name just the source: ``deck`` or a suit letter (``d`` is then the
    D pile, not discard); None for any other line (read by ``parse``)."""
    parts = line.lstrip("\ufeff").strip().split()
    if len(parts) != 1:
        return None
    try:
        return Command("draw", draw=_source(parts[0], rules))
    except InputRefused:
        if len(parts[0]) == 1 and parts[0].isalpha() and parts[0].lower() not in ALIASES:
            raise                        # a letter that is no suit's: say where a card is drawn from
        return None


def parse(line: str, rules) -> Command:
    """A typed line as a Command; InputRefused says what is wrong with it."""
    parts = line.lstrip("\ufeff").strip().split()         # a byte-order mark: a file saved by Notepad
    if not parts:
        raise InputRefused("type a move, e.g. 'play 7H' or 'discard QS' ('help' lists them)")
    word = ALIASES.get(parts[0].lower(), parts[0].lower())
    args = parts[1:]
    if word not in WORDS:
        raise InputRefused(f"{parts[0][:20]!r} is not a command: play, discard, pass, draw, undo, help or quit")
    if word in ("undo", "help", "quit"):
        if args:
            raise InputRefused(f"'{word}' takes nothing after it")
        return Command(word)
    if word == "draw":
        if len(args) != 1:
            raise InputRefused("draw from one place: 'draw deck' or 'draw' and a suit letter, e.g. 'draw S'")
        return Command("draw", draw=_source(args[0], rules))
    if word == "pass":
        if len(args) != 2:
            raise InputRefused("a pass hands exactly two cards, e.g. 'pass 2C 5D'")
        return Command("pass", cards=(_card(args[0], rules), _card(args[1], rules)))
    if not args:
        raise InputRefused(f"{word} which card? e.g. '{word} 7H'")
    card = _card(args[0], rules)
    rest = args[1:]
    draw = None
    if rest:
        if rest[0].lower() == "draw":
            rest = rest[1:]
        if len(rest) != 1:
            raise InputRefused(f"after the card, only the draw: '{word} {args[0]} draw deck'")
        draw = _source(rest[0], rules)
    return Command(word, card=card, draw=draw)


def refusal(rnd, move) -> Optional[InputRefused]:
    """Why the seat to move may not make `move` now, with the engine's code for it; None when legal."""
    try:
        rnd.check(move)
        return None
    except IllegalMove as e:
        return InputRefused(e.reason, e.code.name)


def card_choice(cmd: Command) -> Play:
    """The Play a `play`/`discard` command chooses (its draw still to come unless given)."""
    return Play(cmd.card, "expedition" if cmd.word == "play" else "discard", cmd.draw)


def card_refusal(rnd, play: Play) -> Optional[InputRefused]:
    """Why the card part of `play` is refused (before its draw is known), or None."""
    seat = rnd.seat
    if play.card not in rnd.hand(seat):
        return InputRefused(f"{rnd.text(play.card)} is not in your hand", Illegal.NOT_HELD.name)
    if play.to == "expedition":
        side = seat % 2 if rnd.players == 4 else seat
        why = expedition_refusal(rnd.expedition(side, suit_of(play.card)), play.card, rnd.letters)
        if why:
            return InputRefused(why, Illegal.EXPEDITION_REFUSES.name)
    return None
