"""The `random` policy: uniform among legal plays, then among legal draws, exactly as docs/engine.md defines it.

Options in order: each held card its expedition accepts (hand order, copies
counted), then each held card as a discard, then a pass if legal; one
``below`` picks the option.  A pass picks positions i, j with two more.  After a
play, the sources in order: the deck, then each non-empty pile but the one just
discarded onto; one ``below`` picks (none in solitaire).  The choices are
selects, not branches: a random hand makes branches unpredictable.  The
reference engine's twin is ``py_random.py``; tests hold them equal.
"""
from lostcards.engine.bits import choose, kth_of_six, opaque, popcount
from lostcards.engine.moves import DRAW_DECK, DRAW_NONE, TO_DISCARD, make_pass, make_play
from lostcards.engine.observation import (
    can_pass,
    count,
    hand_cards,
    hand_doubles,
    kth_of_hand,
    legal_plays,
    nonempty_piles,
    players,
    suit_of,
)
from lostcards.engine.rng import below_held
from lostcards.numba_cache import jit


@jit(inline=True)
def _keep(mem, s0, s1, s2, s3):
    """The stream's words back into the seat's memory."""
    mem[0] = s0
    mem[1] = s1
    mem[2] = s2
    mem[3] = s3


@jit
def random_policy(obs, params, mem):
    """Uniform over legal options (expedition plays, discards, a pass), then over draw sources."""
    once = hand_cards(obs)
    twice = hand_doubles(obs)
    acc = legal_plays(obs)
    acc2 = (twice[0] & acc[0], twice[1] & acc[1])
    n_exp = count(acc) + count(acc2)
    h = count(once) + count(twice)
    cp = can_pass(obs)
    # the seat's stream in registers for the turn: loaded once, stored once
    s0, s1, s2, s3 = mem[0], mem[1], mem[2], mem[3]
    k, s0, s1, s2, s3 = below_held(n_exp + h + cp, s0, s1, s2, s3)
    if cp and k >= n_exp + h:
        i, s0, s1, s2, s3 = below_held(h, s0, s1, s2, s3)
        j, s0, s1, s2, s3 = below_held(h - 1, s0, s1, s2, s3)
        _keep(mem, s0, s1, s2, s3)
        j += j >= i
        return make_pass(kth_of_hand(once, twice, i), kth_of_hand(once, twice, j))
    me = opaque(-(k < n_exp))           # all ones: to the expedition
    one = (choose(me, acc[0], once[0]), choose(me, acc[1], once[1]))
    two = (choose(me, acc2[0], twice[0]), choose(me, acc2[1], twice[1]))
    card = kth_of_hand(one, two, k - (n_exp & ~me))
    to = TO_DISCARD + me                # TO_EXPEDITION is TO_DISCARD - 1
    if players(obs) == 1:
        _keep(mem, s0, s1, s2, s3)
        return make_play(card, to, DRAW_NONE)
    # legal_draws(obs, card, to) without its branch on the way played: a discard (me = 0)
    # leaves out its own pile
    src = nonempty_piles(obs) & ~((1 + me) << suit_of(card))
    j, s0, s1, s2, s3 = below_held(1 + popcount(src), s0, s1, s2, s3)
    _keep(mem, s0, s1, s2, s3)
    mj = opaque(-(j > 0))               # all ones: off a pile
    pile = 1 + kth_of_six(src, (j - 1) & mj)    # six piles at most: a table
    return make_play(card, to, choose(mj, pile, DRAW_DECK))



from lostcards.policies.parameters import Policy  # noqa: E402


def _python_twin(obs, stream):
    from lostcards.policies.py_random import random_policy as twin
    return twin(obs, stream)


RANDOM = Policy("random", random_policy, doc="uniform among legal plays, then among legal draws",
                python=_python_twin, compile_s=5.0, improvable=True)
POLICIES = (RANDOM,)
