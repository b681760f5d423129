"""Two example policies written outside lostcards, found by import path.

    lostcards simulate --policies examples.cautious:cautious,random      # numba: fast engine
    lostcards simulate --policies examples.cautious:prototype,random     # plain Python: reference engine

`cautious` (numba) never opens an expedition with a card below 6 and draws only
off the deck; `prototype` is the same idea in plain Python, for trying an idea
out before writing it in numba.  Neither needs any change to lostcards.
"""
from numba import njit

from lostcards.engine.core import DRAW_DECK, DRAW_NONE, TO_DISCARD, TO_EXPEDITION, make_play
from lostcards.engine.observation import O_HAND, O_HAND_LEN, O_RULES, O_SIDE, exp_count, expedition_allows
from lostcards.reference.moves import Play
from lostcards.rules.cards import SLOTS
from lostcards.rules.ruleset import P_PLAYERS


@njit(cache=True)
def cautious(obs, params, rng):
    """Play the first card that extends a started expedition or opens one at 6 or more; else discard the lowest."""
    side = obs[O_SIDE]
    draw = DRAW_NONE if obs[O_RULES + P_PLAYERS] == 1 else DRAW_DECK
    for i in range(obs[O_HAND_LEN]):
        card = obs[O_HAND + i]
        if not expedition_allows(obs, side, card):
            continue
        started = exp_count(obs, side, card // SLOTS) > 0
        if started or card % SLOTS >= 7:          # slot 7 is the number 6
            return make_play(card, TO_EXPEDITION, draw)
    lowest = obs[O_HAND]
    for i in range(obs[O_HAND_LEN]):
        if obs[O_HAND + i] % SLOTS < lowest % SLOTS:
            lowest = obs[O_HAND + i]
    return make_play(lowest, TO_DISCARD, draw)


def prototype(obs, stream):
    """The same idea on the reference engine's Observation (plain Python)."""
    draw = None if obs.players == 1 else "deck"
    for card, to in obs.legal_plays():
        if to == "expedition" and (obs.expedition(card // SLOTS) or card % SLOTS >= 7):
            return Play(card, "expedition", draw)
    lowest = min(obs.hand, key=lambda c: c % SLOTS)
    return Play(lowest, "discard", draw)
