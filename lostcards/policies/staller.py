"""The `staller` policy: `expert`, except that it stalls when it is ahead
and a stall ending pays it.

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
the side needs before it stalls, default 1: any lead).
"""
from lostcards.engine.moves import (
    DRAW_DECK,
    TO_DISCARD,
    TO_EXPEDITION,
    is_pass,
    make_play,
    move_card,
    move_draw,
    move_to,
)
from lostcards.engine.observation import (
    RULE_STALL_LIMIT,
    expedition_count,
    expedition_top,
    legal_draws,
    pile_top,
    players,
    rule2,
    side,
    side_score,
    slot_of,
    stall_count,
    suit_of,
    suits,
    value_of,
)
from lostcards.numba_cache import jit
from lostcards.policies.expert import PARAMETERS, expert_policy
from lostcards.policies.parameters import Float, Policy

K_LEAD = len(PARAMETERS)          # the staller's own parameter, after expert's


@jit(inline=True)
def _mine(obs, code):
    """Whether this side can still lay the card on an expedition it has opened."""
    sd = side(obs)
    s = suit_of(code)
    # expedition_top is the highest number's value (0: none), so numbers compare by value
    return expedition_count(obs, sd, s) > 0 and slot_of(code) >= 3 and value_of(code) > expedition_top(obs, sd, s)


@jit(inline=True)
def _pile(obs, legal):
    """The discard pile to stall on (-1: none), among the `legal` ones (``legal_draws``): the highest
    top card this side can still lay on an opened expedition; else the lowest top card the other
    side cannot lay (it leaves them nothing)."""
    other = 1 - side(obs)
    best = -1
    best_v = -1000
    for s in range(suits(obs)):
        c = pile_top(obs, s)
        if (legal >> s) & 1 == 0:
            continue
        slot = slot_of(c)
        ot = expedition_top(obs, other, s)
        theirs = (slot >= 3 and value_of(c) > ot) or (slot < 3 and ot == 0)
        v = 100 + slot if _mine(obs, c) else (50 - slot if not theirs else -slot)
        if v > best_v:
            best_v = v
            best = s
    return best


@jit
def staller_policy(obs, params, mem):
    """Expert's move, turned into a stall turn when the side is ahead on the board (docs above)."""
    move = expert_policy(obs, params, mem)
    p = players(obs)
    limit = rule2(obs, RULE_STALL_LIMIT)
    if p == 1 or limit == 0 or is_pass(move):
        return move
    sd = side(obs)
    if side_score(obs, sd) - side_score(obs, 1 - sd) < params[K_LEAD]:
        return move
    card = move_card(move)
    to = move_to(move)
    stall = stall_count(obs)
    ends = stall + 1 >= limit * p
    if to == TO_EXPEDITION and not ends:
        return move
    if to == TO_DISCARD and move_draw(move) != DRAW_DECK:
        return move                                    # expert's own pile draw: a stall turn already
    pile = _pile(obs, legal_draws(obs, card, TO_DISCARD))
    if pile < 0:
        return move
    # start no run on a card that is no use here; join one every other seat kept going
    if not ends and stall < p - 1 and not _mine(obs, pile_top(obs, pile)):
        return move
    return make_play(card, TO_DISCARD, 1 + pile)


STALLER = Policy(
    "staller", staller_policy,
    parameters={**PARAMETERS,
                "lead": Float(1.0, -1000, 1000, "points ahead on the board the side needs before it stalls")},
    doc="expert, but stalls (discards and draws off a discard pile) while its side is ahead on the board, "
        "to end the round by the stall rule",
    compile_s=15.0, improvable=True, test_rounds=20_000)
POLICIES = (STALLER,)
