"""Two example policies written outside lostcards, found by import path.

    lostcards simulate --policies examples.cautious:cautious,random      # numba: fast engine
    lostcards simulate --policies examples.cautious:prototype,random     # plain Python: reference engine

`cautious` (numba) never opens an expedition with a card below 6 and draws only
off the deck; `prototype` is the same idea in plain Python, for trying an idea
out before writing it in numba.  Neither needs any change to lostcards.
"""
from numba import njit

from lostcards.engine.moves import DRAW_DECK, DRAW_NONE, TO_DISCARD, TO_EXPEDITION, make_play
from lostcards.engine.observation import (
    expedition_count,
    hand_card,
    hand_count,
    has,
    legal_plays,
    players,
    side,
    suit_of,
)
from lostcards.reference.moves import Play
from lostcards.rules.cards import SLOTS


@njit(cache=True)
def cautious(obs, params, mem):
    """Play the first card that extends a started expedition or opens one at 6 or more; else discard the lowest."""
    draw = DRAW_NONE if players(obs) == 1 else DRAW_DECK
    playable = legal_plays(obs)
    lowest = hand_card(obs, 0)
    for i in range(hand_count(obs)):
        card = hand_card(obs, i)
        if card % SLOTS < lowest % SLOTS:
            lowest = card
        if not has(playable, card):
            continue
        started = expedition_count(obs, side(obs), suit_of(card)) > 0
        if started or card % SLOTS >= 7:          # slot 7 is the number 6
            return make_play(card, TO_EXPEDITION, draw)
    return make_play(lowest, TO_DISCARD, draw)


def prototype(obs, stream):
    """The same idea on the reference engine's Observation (plain Python)."""
    draw = None if obs.players == 1 else "deck"
    for card, to in obs.legal_plays():
        if to == "expedition" and (obs.expedition(card // SLOTS) or card % SLOTS >= 7):
            return Play(card, "expedition", draw)
    lowest = min(obs.hand, key=lambda c: c % SLOTS)
    return Play(lowest, "discard", draw)
