"""The `random` policy in plain Python, for the reference engine (docs/engine.md, "The `random` policy").

The option order and the calls to the seat's stream are part of the definition,
so this makes the same moves as the numba twin (``policies/random.py``).
"""
from __future__ import annotations

from lostcards.reference.moves import Pass, Play
from lostcards.reference.observation import Observation
from lostcards.rules.cards import suit_of
from lostcards.rules.streams import Stream


def random_policy(obs: Observation, stream: Stream):
    """Uniform over legal options (expedition plays, discards, a pass), then over draw sources."""
    options = obs.legal_plays()          # expedition plays in hand order, then every discard
    n = len(options) + (1 if obs.players == 4 and obs.can_pass else 0)
    k = stream.below(n)
    if k == len(options):
        hand = obs.hand
        h = len(hand)
        i = stream.below(h)
        j = stream.below(h - 1)
        if j >= i:
            j += 1
        return Pass((hand[i], hand[j]))
    card, to = options[k]
    if obs.players == 1:
        return Play(card, to, None)      # solitaire: no choice, no number drawn
    sources = obs.draw_sources(suit_of(card) if to == "discard" else None)
    return Play(card, to, sources[stream.below(len(sources))])


policy = random_policy
