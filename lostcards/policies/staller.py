"""The `staller` policy: `expert`, except that it stalls when it is ahead and a stall ending pays it.

A stall turn discards a card and draws off a discard pile; once every seat has
made ``stall_limit`` of them in a row (``stall_limit`` x players turns), the
round ends and is scored as it stands (SPEC §2).  `expert` never stalls: after
a discard it takes the deck once a run of stall turns reaches 2 x players.  The
staller decides each turn in this order:

1. Ask `expert` (its kernel, with the same parameters: every expert switch
   works here too).  Its move stands in solitaire, under rules without a stall
   limit, for a pass, and whenever the staller's side is not ahead on the board
   by at least ``lead`` points (the round's score as it stands, the side's
   expeditions against the other side's: what a stall ending would give).
2. Ahead: a discard that draws off the deck becomes a stall turn (the same
   discard, then the discard pile, not the one just discarded onto, whose top
   card suits this side best: ``_pile``) when a run of stall turns is going
   (every other seat since this one's last turn stalled), or when that top
   card goes on one of the side's opened expeditions (a run started at no
   cost).  A play to an expedition stands, unless this turn's stall would end
   the round: then the card goes to its discard pile instead and the round
   ends with the side ahead.
3. No pile to draw from: expert's move.

Parameters: every `expert` parameter, and ``lead`` (points ahead on the board
the side needs before it stalls, default 1: any lead).  Measured against
expert in ``reports/rule-tweaks.md`` (its stall turns a round and its margin on
duplicate deals).
"""
from numba import njit

from lostcards.engine.core import DRAW_DECK, PASS_FLAG, TO_DISCARD, TO_EXPEDITION, expedition_score, make_play
from lostcards.engine.observation import (
    NSUITS,
    O_EXP_COUNT,
    O_EXP_INV,
    O_EXP_SUM,
    O_RULES,
    O_SIDE,
    O_STALL,
    exp_count,
    exp_top,
    pile_top,
)
from lostcards.policies import Float, Policy, register
from lostcards.policies.expert import EXPERT, expert_policy
from lostcards.rules.cards import SLOTS
from lostcards.rules.ruleset import P_PLAYERS, P_STALL, P_SUITS

K_LEAD = len(EXPERT.parameters)          # the staller's own parameter, after expert's


@njit(cache=True, inline="always")
def board_lead(obs):
    """This side's round score as the board stands, minus the other side's."""
    rules = obs[O_RULES:]
    side = obs[O_SIDE]
    lead = 0
    for s in range(obs[O_RULES + P_SUITS]):
        for sd in range(2):
            xi = sd * NSUITS + s
            v = expedition_score(rules, obs[O_EXP_SUM + xi], obs[O_EXP_INV + xi], obs[O_EXP_COUNT + xi])
            lead += v if sd == side else -v
    return lead


@njit(cache=True, inline="always")
def _mine(obs, code):
    """Whether this side can still lay the card on an expedition it has opened."""
    side = obs[O_SIDE]
    s = code // SLOTS
    slot = code % SLOTS
    return exp_count(obs, side, s) > 0 and slot >= 3 and slot > exp_top(obs, side, s)


@njit(cache=True, inline="always")
def _pile(obs, not_suit):
    """The discard pile to stall on (-1: none): the highest top card this side can still lay on an
    opened expedition; else the lowest top card the other side cannot lay (it leaves them nothing)."""
    side = obs[O_SIDE]
    best = -1
    best_v = -1000
    for s in range(obs[O_RULES + P_SUITS]):
        c = pile_top(obs, s)
        if c < 0 or s == not_suit:
            continue
        slot = c % SLOTS
        mine = _mine(obs, c)
        theirs = (slot >= 3 and slot > exp_top(obs, 1 - side, s)) or (slot < 3 and exp_top(obs, 1 - side, s) == 0)
        v = 100 + slot if mine else (50 - slot if not theirs else -slot)
        if v > best_v:
            best_v = v
            best = s
    return best


@njit(cache=True)
def staller_policy(obs, params, rng):
    """Expert's move, turned into a stall turn when the side is ahead on the board (docs above)."""
    move = expert_policy(obs, params, rng)
    players = obs[O_RULES + P_PLAYERS]
    limit = obs[O_RULES + P_STALL]
    if players == 1 or limit == 0 or (move & PASS_FLAG) != 0:
        return move
    if board_lead(obs) < params[K_LEAD]:
        return move
    card = move & 255
    to = (move >> 8) & 1
    stall = obs[O_STALL]
    ends = stall + 1 >= limit * players
    if to == TO_EXPEDITION and not ends:
        return move
    if to == TO_DISCARD and (move >> 9) & 7 != DRAW_DECK:
        return move                                    # expert's own pile draw: a stall turn already
    pile = _pile(obs, card // SLOTS)
    if pile < 0:
        return move
    # start no run on a card that is no use here; join one every other seat kept going
    if not ends and stall < players - 1 and not _mine(obs, pile_top(obs, pile)):
        return move
    return make_play(card, TO_DISCARD, 1 + pile)


STALLER = register(Policy(
    "staller", staller_policy,
    parameters={**EXPERT.parameters,
                "lead": Float(1.0, -1000, 1000, "points ahead on the board the side needs before it stalls")},
    doc="expert, but stalls (discards and draws off a discard pile) while its side is ahead on the board, "
        "to end the round by the stall rule"))
