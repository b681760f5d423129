"""The move rules in plain Python, on the reference engine's ``Observation``: the twin of ``engine.move_rules``.

Each rule by name gives the (card, to) plays it allows among ``obs.legal_plays()``;
``allowed`` intersects the rules named and falls back to every legal play when
they leave none.  tests/test_move_rules.py checks these against the engine's masks.
"""
from __future__ import annotations

from lostcards.reference.observation import Observation
from lostcards.rules.cards import is_investment, suit_of, value_of
from lostcards.rules.scoring import expedition_takes

FUND = 20           # fund20: numbers of the suit in hand that pay for an investment
OPEN_TURNS = 6      # open6: turns per player before which no expedition is opened


def _takes(obs: Observation, side: int, card: int) -> bool:
    return expedition_takes(obs.expedition(suit_of(card), side), card)


def fund20(obs: Observation) -> set:
    """No investment unless the suit's numbers in hand (each value once) add up to FUND or more."""
    def funded(suit):
        return sum({value_of(c) for c in obs.hand if suit_of(c) == suit and not is_investment(c)}) >= FUND
    return {(c, to) for c, to in obs.legal_plays()
            if not (to == "expedition" and is_investment(c) and not funded(suit_of(c)))}


def open6(obs: Observation) -> set:
    """No card on an empty expedition of the side in the round's first OPEN_TURNS turns per player."""
    early = obs.turn < OPEN_TURNS * obs.players
    return {(c, to) for c, to in obs.legal_plays()
            if not (to == "expedition" and early and not obs.expedition(suit_of(c)))}


def safe(obs: Observation) -> set:
    """Throw only a number no expedition of either side takes any more, when the hand holds one."""
    sides = (obs.side, 1 - obs.side) if obs.players > 1 else (obs.side,)
    dead = {c for c in obs.hand if not is_investment(c) and not any(_takes(obs, s, c) for s in sides)}
    return {(c, to) for c, to in obs.legal_plays() if to == "expedition" or not dead or c in dead}


RULES = {"fund20": fund20, "open6": open6, "safe": safe}


def allowed(obs: Observation, names) -> set:
    """The (card, to) plays the rules named allow; every legal play when they allow none."""
    plays = set(obs.legal_plays())
    out = set(plays)
    for n in names:
        out &= RULES[n](obs)
    return out or plays
