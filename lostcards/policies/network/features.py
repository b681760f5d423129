"""A network policy's inputs: the seat's information-set features and each candidate move's features.

Everything is read from the observation alone (what the seat may see), so the
teacher that writes training data and the network that plays compute the same
numbers with the same functions.  Per suit (room for ``NS`` suits, missing
suits are zeros) a block of ``SUIT_DIM`` numbers: the own and the opposing
side's expedition (sum of numbers / 10, investments / 3, top number / 10,
opened), the seat's hand in the suit (cards / 4, sum / 10, investments / 3),
the unseen numbers (sum / 10, count / 9), the discard pile (its top's value / 10,
its length / 6).  Then ``GLOBAL_DIM`` numbers: deck / 44,
late (``max(0, 1 - deck / (8 x players))``), the side scores / 50,
solitaire, 4 players, turn / 100, 1.

A candidate is an *action* (a card to its expedition, or discarded; drawn
as the base draws) or, once the action is chosen, a *draw* (the deck or a
pile).  Its features: the kind (4 one-hot), the card's value / 10 and
investment flag, its suit's block, the expedition's score change / 10, the
hand's and the unseen numbers it skips, dead for the seat / for the
opponents, late, and the *reference flag* (1 when it is the reference
policy's action, or its draw after its action): the reference policy's own
evaluation of the move (expert for ``student``, the self-play blueprint for
``learned``).  This module imports no policy: the caller runs the reference.
"""
from __future__ import annotations

from lostcards.engine.bits import highest, popcount
from lostcards.engine.intrinsics import offset
from lostcards.engine.layout import INVESTMENT_SLOTS, NUMBER_SLOTS
from lostcards.engine.moves import is_pass, move_card, move_draw, move_to
from lostcards.engine.observation import (
    accepts,
    deck_size,
    expedition,
    hand_cards,
    lane,
    lane_score,
    pile_len,
    pile_top,
    players,
    side,
    side_score,
    slot_of,
    suit_of,
    suits,
    unseen,
)
from lostcards.engine.state import lane_sum
from lostcards.numba_cache import jit

NS = 6                       # suits a table has room for
SUIT_DIM = 15
GLOBAL_DIM = 8
S_DIM = NS * SUIT_DIM + GLOBAL_DIM
C_DIM = 4 + 2 + SUIT_DIM + 7
K_PLAY, K_DISCARD, K_DECK, K_PILE = range(4)
NUMBERS = NUMBER_SLOTS


@jit(inline=True)
def _top_value(ln):
    n = ln & NUMBERS
    return highest(n) - 1.0 if n else 0.0


@jit(inline=True)
def suit_block(obs, s, f, un):
    """The SUIT_DIM numbers of suit s into f (see the module's text)."""
    sd = side(obs)
    ex = expedition(obs, sd, s)
    f[0] = lane_sum(ex) / 10.0
    f[1] = popcount(ex & INVESTMENT_SLOTS) / 3.0
    f[2] = _top_value(ex) / 10.0
    f[3] = 1.0 if ex != 0 else 0.0
    if players(obs) > 1:
        ox = expedition(obs, sd ^ 1, s)
        f[4] = lane_sum(ox) / 10.0
        f[5] = popcount(ox & INVESTMENT_SLOTS) / 3.0
        f[6] = _top_value(ox) / 10.0
        f[7] = 1.0 if ox != 0 else 0.0
    else:
        for i in range(4, 8):
            f[i] = 0.0
    hl = lane(hand_cards(obs), s)
    f[8] = popcount(hl) / 4.0
    f[9] = lane_sum(hl) / 10.0
    f[10] = popcount(hl & INVESTMENT_SLOTS) / 3.0
    ul = lane(un, s)
    f[11] = lane_sum(ul) / 10.0
    f[12] = popcount(ul & NUMBERS) / 9.0
    t = pile_top(obs, s) if players(obs) > 1 else -1
    if t >= 0:
        sl = slot_of(t)
        f[13] = (sl - 1.0) / 10.0 if sl >= 3 else 0.0
        f[14] = pile_len(obs, s) / 6.0
    else:
        f[13] = 0.0
        f[14] = 0.0


@jit(inline=True)
def late(obs):
    v = 1.0 - deck_size(obs) / (8.0 * players(obs))
    return v if v > 0.0 else 0.0


@jit(inline=True)
def info_features(obs, f):
    """The S_DIM information-set features of the seat to move into f; returns the unseen cards (at
    least one copy), which every candidate's features read too (computed once a decision)."""
    un, _ = unseen(obs)
    n = suits(obs)
    for s in range(NS):
        b = offset(f, s * SUIT_DIM)
        if s < n:
            suit_block(obs, s, b, un)
        else:
            for i in range(SUIT_DIM):
                b[i] = 0.0
    g = offset(f, NS * SUIT_DIM)
    p = players(obs)
    sd = side(obs)
    g[0] = deck_size(obs) / 44.0
    g[1] = late(obs)
    g[2] = side_score(obs, sd) / 50.0
    g[3] = side_score(obs, sd ^ 1) / 50.0 if p > 1 else 0.0
    g[4] = 1.0 if p == 1 else 0.0
    g[5] = 1.0 if p == 4 else 0.0
    g[6] = obs.turn / 100.0
    g[7] = 1.0
    return un


@jit(inline=True)
def candidate_features(obs, kind, card, s_info, un, f):
    """The C_DIM features of a candidate, the reference flag left 0 (``set_reference``): an action
    (kind K_PLAY / K_DISCARD of `card`) or a draw (K_DECK with `card` -1, K_PILE with `card` the
    pile's top); `s_info` the info features (the card's suit block is reused), `un` the unseen
    cards ``info_features`` returned."""
    for i in range(C_DIM):
        f[i] = 0.0
    f[kind] = 1.0
    f[C_DIM - 2] = late(obs)
    if card < 0:
        return
    s = suit_of(card)
    sl = slot_of(card)
    f[4] = (sl - 1.0) / 10.0 if sl >= 3 else 0.0
    f[5] = 1.0 if sl < 3 else 0.0
    b = offset(s_info, s * SUIT_DIM)
    for i in range(SUIT_DIM):
        f[6 + i] = b[i]
    o = 6 + SUIT_DIM
    sd = side(obs)
    ex = expedition(obs, sd, s)
    if kind == K_PLAY:
        f[o] = (lane_score(obs, ex | (1 << sl)) - lane_score(obs, ex)) / 10.0
        if sl >= 3:
            top = highest(ex & NUMBERS) if ex & NUMBERS else 2
            skip = ((1 << sl) - 1) & ~((2 << top) - 1) & NUMBERS
            f[o + 1] = popcount(lane(hand_cards(obs), s) & skip) / 4.0
            f[o + 2] = lane_sum(lane(un, s) & skip) / 10.0
    f[o + 3] = 1.0 if (accepts(obs, sd, s) >> sl) & 1 == 0 else 0.0
    if players(obs) > 1:
        f[o + 4] = 1.0 if (accepts(obs, sd ^ 1, s) >> sl) & 1 == 0 else 0.0


@jit(inline=True)
def action_is_reference(rm, card, to):
    """Whether playing `card` to `to` is the reference move `rm`'s action."""
    return (not is_pass(rm)) and move_card(rm) == card and move_to(rm) == to


@jit(inline=True)
def draw_is_reference(rm, card, to, draw):
    """Whether the draw `draw` after `card` to `to` is the reference move `rm`."""
    return action_is_reference(rm, card, to) and move_draw(rm) == draw


@jit(inline=True)
def set_reference(f, flag):
    """The candidate's reference flag (its last feature)."""
    f[C_DIM - 1] = 1.0 if flag else 0.0
