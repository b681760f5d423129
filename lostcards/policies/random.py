"""The `random` policy: uniform among legal plays, then among legal draw sources.

Exactly as docs/engine.md defines it (the option order and the calls to the
random stream are part of the definition, so the reference engine's twin in
``py_random.py`` makes the same moves on the same stream).
"""
import numpy as np
from numba import njit

from lostcards.engine.core import DRAW_DECK, DRAW_NONE, TO_DISCARD, TO_EXPEDITION, make_pass, make_play
from lostcards.engine.observation import NSUITS, O_CAN_PASS, O_EXP_TOP, O_HAND, O_HAND_LEN, O_PILE_LEN, O_RULES, O_SIDE
from lostcards.engine.rng import below
from lostcards.rules.cards import SLOTS
from lostcards.rules.ruleset import P_PLAYERS, P_SUITS


@njit(cache=True)
def random_policy(obs, params, rng):
    """Options: each legal expedition play, each discard, a pass if legal; then a draw source."""
    h = obs[O_HAND_LEN]
    side = obs[O_SIDE]
    # counting without a branch per card: random hands make such branches unpredictable
    n_exp = 0
    for i in range(h):
        c = obs[O_HAND + i]
        slot = c % SLOTS
        top = obs[O_EXP_TOP + side * NSUITS + c // SLOTS]
        lim = top if top > 0 else -1
        n_exp += np.int64(slot > lim)
    k = below(rng, n_exp + h + obs[O_CAN_PASS])
    if k >= n_exp + h:
        i = below(rng, h)
        j = below(rng, h - 1)
        if j >= i:
            j += 1
        return make_pass(obs[O_HAND + i], obs[O_HAND + j])
    discarded = -1
    if k < n_exp:
        to = TO_EXPEDITION
        card = obs[O_HAND]
        for i in range(h):
            c = obs[O_HAND + i]
            top = obs[O_EXP_TOP + side * NSUITS + c // SLOTS]
            lim = top if top > 0 else -1
            if c % SLOTS > lim:
                if k == 0:
                    card = c
                    break
                k -= 1
    else:
        to = TO_DISCARD
        card = obs[O_HAND + k - n_exp]
        discarded = card // SLOTS
    if obs[O_RULES + P_PLAYERS] == 1:
        return make_play(card, to, DRAW_NONE)
    suits = obs[O_RULES + P_SUITS]
    n_src = 1
    for s in range(suits):
        n_src += np.int64((obs[O_PILE_LEN + s] > 0) & (s != discarded))
    k = below(rng, n_src)
    if k > 0:
        for s in range(suits):
            if obs[O_PILE_LEN + s] > 0 and s != discarded:
                k -= 1
                if k == 0:
                    return make_play(card, to, 1 + s)
    return make_play(card, to, DRAW_DECK)

from lostcards.policies import Policy, register  # noqa: E402


def _python_twin(obs, stream):
    from lostcards.policies.py_random import random_policy as twin
    return twin(obs, stream)


RANDOM = register(Policy("random", random_policy, doc="uniform among legal plays, then among legal draws",
                         python=_python_twin))
