"""What a numba policy sees (SPEC §3): one flat int32 array per seat.

The engine keeps one such array for every seat and writes only what that seat
may know into it: its own hand, the table (expeditions, discard piles), the
draw pile's size, the cards other seats are known to hold, the stall count, the
turn and the ruleset.  Other hands and the deck order live elsewhere, so a
policy cannot read them.  A flat array keeps the call into a policy cheap.

Read it with the ``O_*`` offsets or the small inline helpers below, e.g.
``hand_card(obs, i)``, ``exp_top(obs, side, suit)``, ``pile_top(obs, suit)``.
Policies must not write into it.
"""
from numba import njit

from lostcards.rules.cards import MAX_CODES, SLOTS
from lostcards.rules.ruleset import P_LEN

HMAX = 64     # most cards a hand can hold (two partners' cards, with room)
PMAX = 32     # most cards one discard pile can hold
NSUITS = 6

O_RULES = 0                          # the ruleset's parameter array (P_* offsets)
O_SEAT = O_RULES + P_LEN
O_SIDE = O_SEAT + 1
O_DECK = O_SIDE + 1                  # cards left in the draw pile
O_STALL = O_DECK + 1                 # the stall count
O_TURN = O_STALL + 1                 # turns played this round (passes included)
O_CAN_PASS = O_TURN + 1              # 1 if a pass is legal for this seat now
O_HAND_LEN = O_CAN_PASS + 1
O_HAND = O_HAND_LEN + 1              # own hand, card codes sorted, O_HAND_LEN of them
O_EXP_TOP = O_HAND + HMAX            # [side * 6 + suit]: highest number's slot, 0 if none
O_EXP_SUM = O_EXP_TOP + 2 * NSUITS   # sum of the numbers
O_EXP_INV = O_EXP_SUM + 2 * NSUITS   # investment cards
O_EXP_COUNT = O_EXP_INV + 2 * NSUITS  # cards in the expedition
O_EXP_MASK = O_EXP_COUNT + 2 * NSUITS  # bit `slot` set for each card in it
O_PILE_LEN = O_EXP_MASK + 2 * NSUITS  # [suit]: cards in that discard pile
O_PILE = O_PILE_LEN + NSUITS         # [suit * PMAX + k]: k-th card from the bottom
O_KNOWN = O_PILE + NSUITS * PMAX     # [seat * 72 + code]: copies that seat is known to hold
OBS_LEN = O_KNOWN + 4 * MAX_CODES


@njit(cache=True, inline="always")
def hand_len(obs):
    return obs[O_HAND_LEN]


@njit(cache=True, inline="always")
def hand_card(obs, i):
    return obs[O_HAND + i]


@njit(cache=True, inline="always")
def rule(obs, p):
    """A ruleset parameter, e.g. ``rule(obs, P_HAND)``."""
    return obs[O_RULES + p]


@njit(cache=True, inline="always")
def exp_top(obs, side, suit):
    return obs[O_EXP_TOP + side * NSUITS + suit]


@njit(cache=True, inline="always")
def exp_sum(obs, side, suit):
    return obs[O_EXP_SUM + side * NSUITS + suit]


@njit(cache=True, inline="always")
def exp_inv(obs, side, suit):
    return obs[O_EXP_INV + side * NSUITS + suit]


@njit(cache=True, inline="always")
def exp_count(obs, side, suit):
    return obs[O_EXP_COUNT + side * NSUITS + suit]


@njit(cache=True, inline="always")
def pile_len(obs, suit):
    return obs[O_PILE_LEN + suit]


@njit(cache=True, inline="always")
def pile_top(obs, suit):
    """The code of the top card of a discard pile, -1 if it is empty."""
    n = obs[O_PILE_LEN + suit]
    return obs[O_PILE + suit * PMAX + n - 1] if n > 0 else -1


@njit(cache=True, inline="always")
def known(obs, seat, code):
    return obs[O_KNOWN + seat * MAX_CODES + code]


@njit(cache=True, inline="always")
def expedition_allows(obs, side, code):
    """An investment only before any number; a number only above the highest one."""
    slot = code % SLOTS
    top = obs[O_EXP_TOP + side * NSUITS + code // SLOTS]
    if slot < 3:
        return top == 0
    return slot > top


def describe(obs) -> dict:
    """A plain-Python view of an observation array, for debugging and tests."""
    from lostcards.rules.ruleset import P_PLAYERS, P_SUITS
    suits = int(obs[O_RULES + P_SUITS])
    players = int(obs[O_RULES + P_PLAYERS])
    sides = 1 if players == 1 else 2
    return {
        "seat": int(obs[O_SEAT]), "side": int(obs[O_SIDE]), "deck": int(obs[O_DECK]),
        "stall": int(obs[O_STALL]), "turn": int(obs[O_TURN]), "can_pass": bool(obs[O_CAN_PASS]),
        "hand": [int(c) for c in obs[O_HAND:O_HAND + obs[O_HAND_LEN]]],
        "exp_top": [[int(obs[O_EXP_TOP + sd * NSUITS + s]) for s in range(suits)] for sd in range(sides)],
        "exp_count": [[int(obs[O_EXP_COUNT + sd * NSUITS + s]) for s in range(suits)] for sd in range(sides)],
        "piles": [[int(c) for c in obs[O_PILE + s * PMAX:O_PILE + s * PMAX + obs[O_PILE_LEN + s]]]
                  for s in range(suits)],
        "known": {o: [c for c in range(MAX_CODES) for _ in range(obs[O_KNOWN + o * MAX_CODES + c])]
                  for o in range(players)},
    }
