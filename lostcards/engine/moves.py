"""The one move codec: a move is an int64 with named fields (layout ``MOVE`` / ``PASS``).

A play is ``make_play(card, to, draw)``: a card code, ``TO_EXPEDITION`` or
``TO_DISCARD``, then ``DRAW_DECK``, ``draw_pile(suit)`` or ``DRAW_NONE``
(solitaire: the deck while it lasts, nothing after).  A 4-player pass is
``make_pass(card, card2)``.  Read a move with ``is_pass``, ``move_card``,
``move_to``, ``move_draw``, ``move_card2``; nothing else in the package takes
a move apart.  ``Illegal`` names every reason the engine refuses a move.
"""
from __future__ import annotations

import numpy as np

from lostcards.engine.layout import MOVE, PASS
from lostcards.errors import MESSAGES, Illegal  # noqa: F401 (the engine's refusal codes, named here too)
from lostcards.numba_cache import jit
from lostcards.rules.cards import format_card, parse_card

TO_EXPEDITION, TO_DISCARD = 0, 1
DRAW_DECK, DRAW_NONE = 0, 7

_CARD = MOVE.field("card")
_TO = MOVE.field("to")
_DRAW = MOVE.field("draw")
_KIND = MOVE.field("kind")
_CARD2 = PASS.field("card2")
PASS_BIT = 1 << _KIND[0]
_PLAY_END = _DRAW[0] + _DRAW[1].bit_length()        # a play's fields end below this bit
MOVE_LIMIT = 1 << MOVE.bits            # every move code is below this
_UNUSED = ((1 << MOVE.bits) - 1) & ~(((_CARD[1] << _CARD[0]) | (_TO[1] << _TO[0])
                                      | (_DRAW[1] << _DRAW[0]) | PASS_BIT))


# the codes as plain ints, for numba (which returns them beside a 0)
(E_NOT_HELD, E_EXPEDITION_REFUSES, E_EMPTY_PILE, E_DRAW_BACK, E_PASS_NOT_FOUR, E_PASS_NOT_HELD,
 E_NOT_A_MOVE, E_LOG_FULL, E_NO_SUCH_PILE, E_DECK_EMPTY, E_NO_DRAW, E_SOLITAIRE_PILE,
 E_PASS_HAND_SMALL, E_PASS_TWICE, E_ROUND_OVER) = (int(e) for e in Illegal)


def message(code: int) -> str:
    """The text of an error code (any int), for error messages."""
    try:
        return Illegal(int(code)).message
    except ValueError:
        return f"unknown error code {int(code)}"


@jit(inline=True)
def draw_pile(suit):
    """The `draw` value naming a suit's discard pile."""
    return 1 + suit


@jit(inline=True)
def make_play(card, to, draw):
    """Play `card` (a code) to the expedition or the discard pile, then draw."""
    return (np.int64(card) << _CARD[0]) | (np.int64(to) << _TO[0]) | (np.int64(draw) << _DRAW[0])


@jit(inline=True)
def make_pass(card, card2):
    """4 players: hand two cards (codes) to the partner."""
    return np.int64(PASS_BIT) | (np.int64(card) << _CARD[0]) | (np.int64(card2) << _CARD2[0])


@jit(inline=True)
def is_pass(m):
    return (m >> _KIND[0]) & 1 == 1


@jit(inline=True)
def move_card(m):
    return (m >> _CARD[0]) & _CARD[1]


@jit(inline=True)
def move_to(m):
    return (m >> _TO[0]) & _TO[1]


@jit(inline=True)
def move_draw(m):
    return (m >> _DRAW[0]) & _DRAW[1]


@jit(inline=True)
def move_card2(m):
    return (m >> _CARD2[0]) & _CARD2[1]


@jit(inline=True)
def plain_play(m):
    """True for a play with no bit set past its card, destination and draw (no pass, no stray bits):
    the one test a ruleset without passes needs before the play's own checks."""
    return (m >> _PLAY_END) == 0


@jit(inline=True)
def malformed(m):
    """True for a value that is no move code at all (out of range, stray bits)."""
    return m < 0 or m >= MOVE_LIMIT or (not is_pass(m) and (m & _UNUSED) != 0)


# ---- plain Python: records and the reference engine --------------------------------

def decode(m: int) -> dict:
    """A move's fields: {"pass": (c1, c2)} or {"card", "to", "draw"} (plain ints)."""
    m = int(m)
    if (m >> _KIND[0]) & 1:
        return {"pass": ((m >> _CARD[0]) & _CARD[1], (m >> _CARD2[0]) & _CARD2[1])}
    return {"card": (m >> _CARD[0]) & _CARD[1], "to": (m >> _TO[0]) & _TO[1],
            "draw": (m >> _DRAW[0]) & _DRAW[1]}


def fields(m) -> dict:
    """The fields of an array of move codes, as arrays: is_pass, card, to, draw, card2
    (to and draw mean nothing for a pass, card2 nothing for a play)."""
    m = np.asarray(m, np.int64)
    return {"is_pass": ((m >> _KIND[0]) & 1) == 1, "card": (m >> _CARD[0]) & _CARD[1],
            "to": (m >> _TO[0]) & _TO[1], "draw": (m >> _DRAW[0]) & _DRAW[1],
            "card2": (m >> _CARD2[0]) & _CARD2[1]}


def encode_play(card: int, to: int, draw: int) -> int:
    return (int(card) << _CARD[0]) | (int(to) << _TO[0]) | (int(draw) << _DRAW[0])


def encode_pass(card: int, card2: int) -> int:
    return PASS_BIT | (int(card) << _CARD[0]) | (int(card2) << _CARD2[0])


def turn_record(m: int, rules) -> dict:
    """A move as a SPEC §5 record turn (solitaire turns omit `draw`)."""
    letters = rules.letters
    f = decode(m)
    if "pass" in f:
        return {"pass": [format_card(c, letters) for c in f["pass"]]}
    t = {"play": format_card(f["card"], letters),
         "to": "discard" if f["to"] == TO_DISCARD else "expedition"}
    if rules.players > 1:
        t["draw"] = "deck" if f["draw"] == DRAW_DECK else letters[f["draw"] - 1]
    return t


def from_turn_record(turn: dict, rules) -> int:
    """The move of a well-formed record turn (records/format.py validates turns first)."""
    if "pass" in turn:
        a, b = (parse_card(c, rules) for c in turn["pass"])
        return encode_pass(a, b)
    card = parse_card(turn["play"], rules)
    to = TO_DISCARD if turn["to"] == "discard" else TO_EXPEDITION
    d = turn.get("draw")
    if d is None:
        draw = DRAW_NONE
    elif d == "deck":
        draw = DRAW_DECK
    else:
        draw = 1 + rules.letters.index(d.upper())
    return encode_play(card, to, draw)


def to_reference(m: int, players: int):
    """The reference engine's Play/Pass for a move code."""
    from lostcards.reference.moves import Pass, Play
    f = decode(m)
    if "pass" in f:
        return Pass(tuple(f["pass"]))
    to = "discard" if f["to"] == TO_DISCARD else "expedition"
    d = f["draw"]
    draw = None if d == DRAW_NONE else ("deck" if d == DRAW_DECK else d - 1)
    return Play(f["card"], to, draw)


def from_reference(move) -> int:
    """The move code of a reference Play/Pass."""
    from lostcards.reference.moves import Pass
    if isinstance(move, Pass):
        return encode_pass(*move.cards)
    to = TO_DISCARD if move.to == "discard" else TO_EXPEDITION
    draw = DRAW_NONE if move.draw is None else (DRAW_DECK if move.draw == "deck" else 1 + int(move.draw))
    return encode_play(move.card, to, draw)
