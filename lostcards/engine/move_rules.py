"""Move rules: filters on the legal plays that any numba bot can be held to (docs/policies.md, "Held bots").

A move rule keeps some of the seat's legal plays: the cards it may still lay
on its expeditions and the cards it may still throw on a discard pile.  Each
rule is a named mask function of the observation (``RULES``: name, bit, one
line of meaning); a set of rules is a bitmask, their masks intersected.  A
rule never touches the draw, and never a 4-player pass.  When the rules leave
no play at all, every legal play is allowed again (the fallback: a held bot is
never left without a move); with the rules below that cannot happen, since
each keeps some discard.

``hold`` turns any bot's move into a held one: the bot's own move if it obeys;
after a forbidden lay, the bot asked again with the cards it may not lay set
aside (out of its sight for that decision); a forbidden throw becomes the
lowest allowed throw; and if the move still breaks a rule, the first allowed
lay, else the first allowed throw.  ``lostcards.reference.move_rules`` is the
plain-Python twin of the masks (tests/test_move_rules.py compares them).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from lostcards.engine.cardsets import INVESTMENT_SLOTS, LANE, NUMBER_SLOTS
from lostcards.engine.intrinsics import call_policy_at
from lostcards.engine.layout import Obs
from lostcards.engine.moves import (
    DRAW_DECK,
    DRAW_NONE,
    TO_DISCARD,
    TO_EXPEDITION,
    is_pass,
    make_play,
    move_card,
    move_draw,
    move_to,
)
from lostcards.engine.observation import (
    accepted,
    count,
    deck_size,
    expedition,
    hand_cards,
    hand_doubles,
    has,
    is_empty,
    lane,
    lane_cards,
    legal_draws,
    legal_plays,
    lowest_card,
    minus,
    players,
    seat,
    side,
    suits,
)
from lostcards.engine.state import lane_sum
from lostcards.numba_cache import jit

FUND = 20               # fund20: the numbers of the suit in hand that pay for an investment (the cost)
OPEN_TURNS = 6          # open6: the turns per player before which no expedition is opened
FUND20, OPEN6, SAFE = 1, 2, 4


@dataclass(frozen=True)
class MoveRule:
    """A move rule by name: its bit in a rules mask and what it means in a line."""

    name: str
    bit: int
    meaning: str


RULES = {r.name: r for r in (
    MoveRule("fund20", FUND20, f"no investment unless the suit's numbers in hand add up to {FUND} or more"),
    MoveRule("open6", OPEN6, f"no expedition opened in the round's first {OPEN_TURNS} turns per player"),
    MoveRule("safe", SAFE, "throw only a number both sides have played past, when the hand holds one"),
)}
ALL = sum(r.bit for r in RULES.values())


def names_of(mask: int) -> list:
    """The names of the rules in a mask, in ``RULES`` order."""
    return [r.name for r in RULES.values() if int(mask) & r.bit]


def mask_of(names) -> int:
    """The mask of some rule names (KeyError for an unknown one: the caller says which are allowed)."""
    return sum({RULES[n].bit for n in names})


# ---- the masks: (cards it may lay, cards it may throw), each a card set ------------------------

@jit(inline=True)
def fund20_mask(obs):
    """fund20: an investment goes down only while the suit's numbers in hand add up to ``FUND``."""
    lays = legal_plays(obs)
    hand = hand_cards(obs)
    for s in range(suits(obs)):
        if lane_sum(lane(hand, s) & NUMBER_SLOTS) < FUND:
            lays = minus(lays, lane_cards(s, INVESTMENT_SLOTS))
    return lays, hand


@jit(inline=True)
def open6_mask(obs):
    """open6: no card goes on an empty expedition of the side in its first ``OPEN_TURNS`` turns per player."""
    lays = legal_plays(obs)
    if obs.turn < OPEN_TURNS * players(obs):
        sd = side(obs)
        for s in range(suits(obs)):
            if expedition(obs, sd, s) == 0:
                lays = minus(lays, lane_cards(s, LANE))
    return lays, hand_cards(obs)


@jit(inline=True)
def safe_mask(obs):
    """safe: a throw is a number neither side's expedition takes any more, when the hand holds one."""
    hand = hand_cards(obs)
    own = accepted(obs, side(obs))
    opp = accepted(obs, side(obs) ^ 1) if players(obs) > 1 else (np.int64(0), np.int64(0))
    dead = minus(minus(hand, own), opp)
    for s in range(suits(obs)):
        dead = minus(dead, lane_cards(s, INVESTMENT_SLOTS))
    return legal_plays(obs), (dead if not is_empty(dead) else hand)


@jit(inline=True)
def _meet(a, b):
    return (a[0] & b[0], a[1] & b[1])


@jit(inline=True)
def allowed(obs, rules):
    """(lays, throws): the card sets the rules in the mask `rules` allow this seat to lay and to throw;
    every legal play when they allow none (the fallback)."""
    lays = legal_plays(obs)
    throws = hand_cards(obs)
    if rules & FUND20:
        m = fund20_mask(obs)
        lays, throws = _meet(lays, m[0]), _meet(throws, m[1])
    if rules & OPEN6:
        m = open6_mask(obs)
        lays, throws = _meet(lays, m[0]), _meet(throws, m[1])
    if rules & SAFE:
        m = safe_mask(obs)
        lays, throws = _meet(lays, m[0]), _meet(throws, m[1])
    if is_empty(lays) and is_empty(throws):
        return legal_plays(obs), hand_cards(obs)
    return lays, throws


@jit(inline=True)
def obeys(obs, rules, m):
    """Whether the move `m` keeps to the rules in the mask (a pass always does)."""
    if rules == 0 or is_pass(m):
        return True
    lays, throws = allowed(obs, rules)
    return has(lays if move_to(m) == TO_EXPEDITION else throws, move_card(m))


@jit(inline=True)
def draw_after(obs, card, to, draw):
    """`draw` if it is still legal after playing `card` to `to`; else the deck (or, the deck empty, the
    lowest legal pile); solitaire: none."""
    if players(obs) == 1:
        return DRAW_NONE
    legal = legal_draws(obs, card, to)
    if draw != DRAW_DECK and draw != DRAW_NONE and (legal >> (draw - 1)) & 1 == 1:
        return draw
    if deck_size(obs) > 0 or legal == 0:
        return DRAW_DECK
    s = 0
    while (legal >> s) & 1 == 0:
        s += 1
    return 1 + s


_HAND, _HAND_HI = Obs._fields.index("hand"), Obs._fields.index("hand_hi")
_HAND2, _HAND2_HI = Obs._fields.index("hand2"), Obs._fields.index("hand2_hi")
_SIZES = Obs._fields.index("sizes")


@jit(inline=True)
def hold(obs, words, rules, m, policy_at, params, mem):
    """The held move, from the bot's own move `m` (module docstring): `words` hold `obs` (they are
    changed and put back for the second ask), `policy_at`, `params` and `mem` are the bot's."""
    if obeys(obs, rules, m):
        return m
    lays, throws = allowed(obs, rules)
    if move_to(m) == TO_EXPEDITION:
        aside = minus(legal_plays(obs), lays)
        once = hand_cards(obs)
        twice = hand_doubles(obs)
        if not is_empty(minus(once, aside)):
            n = count(aside) + count(_meet(aside, twice))
            words[_HAND] = once[0] & ~aside[0]
            words[_HAND_HI] = once[1] & ~aside[1]
            words[_HAND2] = twice[0] & ~aside[0]
            words[_HAND2_HI] = twice[1] & ~aside[1]
            words[_SIZES] = obs.sizes - (np.int64(n) << (8 * seat(obs)))
            m = call_policy_at(policy_at, words, params, mem)
            words[_HAND], words[_HAND_HI] = once[0], once[1]
            words[_HAND2], words[_HAND2_HI] = twice[0], twice[1]
            words[_SIZES] = obs.sizes
            if obeys(obs, rules, m):
                return m
    draw = DRAW_DECK if is_pass(m) else move_draw(m)
    if not is_pass(m) and move_to(m) == TO_DISCARD and not is_empty(throws):
        c = lowest_card(throws)
        return make_play(c, TO_DISCARD, draw_after(obs, c, TO_DISCARD, draw))
    if not is_empty(lays):
        c = lowest_card(lays)
        return make_play(c, TO_EXPEDITION, draw_after(obs, c, TO_EXPEDITION, draw))
    c = lowest_card(throws)
    return make_play(c, TO_DISCARD, draw_after(obs, c, TO_DISCARD, draw))


__all__ = ["ALL", "FUND", "FUND20", "MoveRule", "OPEN6", "OPEN_TURNS", "RULES", "SAFE", "allowed", "allowed_words",
           "draw_after",
           "fund20_mask", "hold", "mask_of", "names_of", "obeys", "open6_mask", "safe_mask"]


@jit
def allowed_words(obs, rules):
    """``allowed`` as four words (lays lo, hi, throws lo, hi): the masks seen from Python (the tests)."""
    lays, throws = allowed(obs, rules)
    return lays[0], lays[1], throws[0], throws[1]
