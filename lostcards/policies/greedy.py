"""The `greedy` policy: a casual player's simple heuristic (no card counting).

Each turn, in this order:

1. **Extend.** If a card in hand fits an expedition the side has already
   started (a number above its highest number, or an investment while it holds
   no number yet), play the one that skips the fewest numbers (an investment
   skips none; ties: the lowest card).
2. **Open.** Otherwise, if the numbers of one suit in hand add up to at least
   ``open`` x the cost (parameter ``open``, default 1.0: they would already pay
   for the expedition on their own), open the suit with the largest such sum:
   with an investment card first when that sum reaches the cost + 10 (and
   ``invest=yes``), else with its lowest number.
3. **Discard** the least useful card: first a card the side can no longer use
   (a number at or below its expedition's highest, an investment once it holds
   a number), then the lowest card of a suit not started (investments count as
   10), and only then the lowest card of a started suit.
4. **Draw** the top of a discard pile only when it is a number that is
   immediately playable on an expedition the side has started (not the pile
   just discarded onto); the one that skips the fewest numbers. Otherwise the
   deck. Solitaire draws nothing by choice (draw = 7).

It never passes (4 players).  Every move it makes is legal.
"""
from numba import njit

from lostcards.engine.core import DRAW_DECK, DRAW_NONE, TO_DISCARD, TO_EXPEDITION, make_play
from lostcards.engine.observation import (
    NSUITS,
    O_EXP_COUNT,
    O_EXP_TOP,
    O_HAND,
    O_HAND_LEN,
    O_PILE,
    O_PILE_LEN,
    O_RULES,
    O_SIDE,
    PMAX,
)
from lostcards.rules.cards import SLOTS
from lostcards.rules.ruleset import P_COST, P_PLAYERS, P_SUITS


@njit(cache=True)
def greedy_policy(obs, params, rng):
    """Extend a started expedition, else open a suit that pays, else discard the least useful card."""
    open_share = params[0]
    invest = params[1] == 0.0
    h = obs[O_HAND_LEN]
    side = obs[O_SIDE]
    suits = obs[O_RULES + P_SUITS]
    cost = obs[O_RULES + P_COST]
    players = obs[O_RULES + P_PLAYERS]
    xb = O_EXP_TOP + side * NSUITS
    cb = O_EXP_COUNT + side * NSUITS

    # 1. extend a started expedition: the fitting card that skips the fewest numbers
    card = -1
    best_gap = 1 << 20
    for i in range(h):
        c = obs[O_HAND + i]
        s = c // SLOTS
        slot = c % SLOTS
        if obs[cb + s] == 0:
            continue
        top = obs[xb + s]
        if slot < 3:
            gap = 0 if top == 0 else -1
        elif slot > top:
            gap = slot - (top if top > 0 else 2) - 1
        else:
            gap = -1
        if gap >= 0 and gap < best_gap:
            best_gap = gap
            card = c
    to = TO_EXPEDITION

    # 2. open the suit whose numbers in hand pay for it
    if card < 0:
        best_sum = -1
        best_s = -1
        for s in range(suits):
            if obs[cb + s] != 0:
                continue
            tot = 0
            nums = 0
            for i in range(h):
                c = obs[O_HAND + i]
                if c // SLOTS == s and c % SLOTS >= 3:
                    tot += c % SLOTS - 1
                    nums += 1
            if nums > 0 and tot >= open_share * cost and tot > best_sum:
                best_sum = tot
                best_s = s
        if best_s >= 0:
            low_num = -1
            inv = -1
            for i in range(h):
                c = obs[O_HAND + i]
                if c // SLOTS == best_s:
                    if c % SLOTS < 3:
                        if inv < 0:
                            inv = c
                    elif low_num < 0:
                        low_num = c
            if invest and inv >= 0 and best_sum >= cost + 10:
                card = inv
            else:
                card = low_num

    # 3. discard the least useful card
    if card < 0:
        to = TO_DISCARD
        worst = 1 << 20
        for i in range(h):
            c = obs[O_HAND + i]
            s = c // SLOTS
            slot = c % SLOTS
            top = obs[xb + s]
            value = slot - 1 if slot >= 3 else 10
            if (slot < 3 and top != 0) or (slot >= 3 and slot <= top):
                use = 0                        # dead for this side
            elif obs[cb + s] == 0:
                use = 1 + value                # a suit not started
            else:
                use = 100 + value              # a started suit
            if use < worst:
                worst = use
                card = c

    if players == 1:
        return make_play(card, to, DRAW_NONE)

    # 4. draw off a pile only what is immediately playable on a started expedition
    played_suit = card // SLOTS
    draw = DRAW_DECK
    best_gap = 1 << 20
    for s in range(suits):
        n = obs[O_PILE_LEN + s]
        if n == 0 or obs[cb + s] == 0:
            continue
        if to == TO_DISCARD and s == played_suit:
            continue
        c = obs[O_PILE + s * PMAX + n - 1]
        slot = c % SLOTS
        top = obs[xb + s]
        if to == TO_EXPEDITION and s == played_suit and card % SLOTS >= 3:
            top = card % SLOTS                 # the card just played is now the highest
        if slot >= 3 and slot > top:
            gap = slot - (top if top > 0 else 2) - 1
            if gap < best_gap:
                best_gap = gap
                draw = 1 + s
    return make_play(card, to, draw)


from lostcards.policies import Choice, Float, Policy, register  # noqa: E402

GREEDY = register(Policy(
    "greedy", greedy_policy,
    parameters={"open": Float(1.0, 0, 10, "the share of the cost a suit's numbers in hand must reach to open it"),
                "invest": Choice({"yes": 0, "no": 1})},
    doc="casual heuristic: extend started expeditions, open a suit whose numbers in hand pay "
        "its cost, else discard the least useful card; draws a pile only to extend"))
