"""The numba engine seen through the reference's words: the one place the engine-facing tests touch it.

Every function is plain: deal a round (from a seed, or from a deal given as
card codes), the observation of any seat as a reference ``Observation``, "is
this move legal now" (without changing the state), apply a move, and read how
the round stands.  Moves go in as the reference's ``Play`` / ``Pass``.  When
the engine's core changes, only this module changes.

Error codes are the engine's own; ``category`` maps them onto a few shared
words (``lockstep.reference_category`` maps the reference's reasons onto the
same words), so the tests can ask the engines to agree on *why* a move is illegal.
"""
from __future__ import annotations

import numpy as np

from lostcards.engine import core
from lostcards.engine.convert import to_observation
from lostcards.engine.intrinsics import ptr
from lostcards.engine.layout import MEM_WORDS, S_ENDED, S_ERROR, S_SEAT, S_TURN, STATE_WORDS, Obs
from lostcards.engine.moves import Illegal, from_reference
from lostcards.engine.moves import message as _message
from lostcards.numba_cache import jit
from lostcards.reference.moves import Pass
from lostcards.reference.observation import Observation
from lostcards.rules.cards import deck_codes
from lostcards.rules.outcome import Ending
from lostcards.rules.ruleset import Ruleset

# The engine checks a pass in SPEC §5.1's order (4 players; the two cards held; the hand; not
# twice), so a pass breaking two rules gets the reference's first reason.
PASS_CHECKS_IN_SPEC_ORDER = True

ROUND_OVER = int(Illegal.ROUND_OVER)
# the two words an illegal move writes (the round stops there, with its code): nothing else changes
_STOP = np.array([S_ENDED, S_ERROR])


class EngineRound:
    """One round on the numba engine: its state block and its seats' memory."""

    def __init__(self, rules: Ruleset, round_index: int = 0):
        self.rules = rules
        self.rb = core.rules_block(rules)
        self.state = np.zeros(STATE_WORDS, np.int64)
        self.mem = np.zeros(4 * MEM_WORDS, np.uint64)
        self.round_index = round_index


@jit
def _deal(state, rb, mem, seed, round_index, first):
    st = ptr(state)
    core.load_rules(st, ptr(rb))
    core.deal(st, ptr(mem), seed, round_index, first, 0)


@jit
def _deal_order(state, rb, mem, order, round_index, first):
    st = ptr(state)
    core.load_rules(st, ptr(rb))
    core.deal_order(st, ptr(mem), ptr(order), 0, round_index, first, 0)


@jit
def _observe(state, seat):
    return core.observe(ptr(state), seat)


@jit
def _apply(state, m):
    return core.apply(ptr(state), m)


@jit
def _check(state, m):
    return core.check(ptr(state), m)


@jit
def _side_score(state, side):
    return core.side_score(ptr(state), side)


def deal(rules: Ruleset, seed: int, round_index: int, first: int = 0) -> EngineRound:
    """A round dealt by the engine from stream (seed, round_index, 0), seat `first` to move."""
    e = EngineRound(rules, round_index)
    _deal(e.state, e.rb, e.mem, np.int64(seed), np.int64(round_index), np.int64(first))
    return e


def from_deal(rules: Ruleset, hands, deck, first: int = 0, aside=None, round_index: int = 0) -> EngineRound:
    """A round from a deal given as card codes (hands per seat, deck top first, solitaire's aside).

    Copies of a code are told apart in order of appearance (aside, hands, deck), as the
    engine's own deal tells them apart by physical id.
    """
    e = EngineRound(rules, round_index)
    codes = deck_codes(rules)
    if rules.players == 1 and aside is None:
        rest = list(codes)
        for c in [c for h in hands for c in h] + list(deck):
            rest.remove(c)
        aside = rest
    order, seen = [], set()
    for c in list(aside or ()) + [c for h in hands for c in h] + list(deck):
        order.append(int(c) | (128 if c in seen else 0))
        seen.add(c)
    if sorted(c & 127 for c in order) != sorted(codes):
        raise ValueError("the deal does not use the whole deck")
    _deal_order(e.state, e.rb, e.mem, np.array(order, np.uint8), np.int64(round_index), np.int64(first))
    return e


# ---- reading the round -----------------------------------------------------------

def ended(e: EngineRound) -> bool:
    return int(e.state[S_ENDED]) != core.END_NONE


def ending(e: EngineRound) -> Ending:
    return Ending.of_code(int(e.state[S_ENDED]))


def seat_to_move(e: EngineRound) -> int:
    return int(e.state[S_SEAT])


def turn(e: EngineRound) -> int:
    return int(e.state[S_TURN])


def scores(e: EngineRound) -> list:
    """Each side's score as the table stands, by the engine's scoring."""
    return [int(_side_score(e.state, np.int64(sd))) for sd in range(e.rules.sides)]


def snapshot(e: EngineRound) -> tuple:
    """Everything the engine holds about the round, to check that an illegal move changed nothing."""
    return (e.state.tobytes(), e.mem.tobytes())


def raw_observation(e: EngineRound, seat: int):
    """Seat `seat`'s ``Obs`` as the engine hands it to a policy (plain ints)."""
    return Obs(*(int(w) for w in _observe(e.state, np.int64(seat))))


def observe(e: EngineRound, seat: int) -> Observation:
    """Seat `seat`'s observation (the engine's ``Obs``), as the reference's ``Observation``
    (``engine.convert``: expeditions in slot order)."""
    return to_observation(_observe(e.state, np.int64(seat)), e.rules)


# ---- moves -----------------------------------------------------------------------

def encode(move, rules: Ruleset) -> int:
    """A reference move as the engine's move code; a move it cannot express raises ValueError."""
    if isinstance(move, Pass) and len(move.cards) != 2:
        raise ValueError("the engine's move code holds a pass of exactly 2 cards")
    if not isinstance(move, Pass) and move.draw not in (None, "deck") and not 0 <= int(move.draw) <= 5:
        raise ValueError(f"no pile index {move.draw} in the engine's move code")
    return int(from_reference(move))


def _tried(e: EngineRound, m: int) -> tuple:
    """Move code m applied to a copy of the round: (code, whether an illegal one changed nothing
    but the two words that stop the round with its code)."""
    st = e.state.copy()
    code = int(_apply(st, np.int64(m)))
    if code == 0:
        return 0, False
    stop_ok = int(st[S_ENDED]) == core.END_ILLEGAL and int(st[S_ERROR]) == code
    st[_STOP] = e.state[_STOP]
    return code, stop_ok and (st == e.state).all()


def try_moves(e: EngineRound, moves) -> tuple:
    """Each reference move tried on a copy of the round: (codes, unchanged).

    ``codes[k]`` is 0 if the seat to move may make move k now, else the engine's
    error code (``check`` and ``apply`` must agree on it); ``unchanged[k]`` says
    whether an illegal move k left the copy as it was, but for the round stopped
    with that code.  ``e`` itself never changes.
    """
    codes, unchanged = [], []
    for mv in moves:
        m = encode(mv, e.rules)
        code, same = _tried(e, m)
        checked = int(_check(e.state, np.int64(m)))
        if checked != code:
            raise AssertionError(f"check says {checked}, apply says {code} for {mv!r}")
        codes.append(code)
        unchanged.append(same)
    return codes, unchanged


def check(e: EngineRound, move) -> int:
    """0 if the seat to move may make `move` now, else the engine's error code; changes nothing."""
    return int(_check(e.state, np.int64(encode(move, e.rules))))


def apply(e: EngineRound, move) -> int:
    """Apply the seat to move's move: 0 and the turn passes on, or the engine's error code.

    An illegal move stops the engine's round with its code and changes nothing else; the
    adapter checks that, then takes the stop back, so a test can go on with the round."""
    m = np.int64(encode(move, e.rules))
    before = e.state.copy()
    code = int(_apply(e.state, m))
    if code:
        stopped = int(e.state[S_ENDED]) in (core.END_ILLEGAL, int(before[S_ENDED]))
        e.state[_STOP] = before[_STOP]
        if not stopped or not (e.state == before).all():
            raise AssertionError(f"the illegal move {move!r} changed the engine's state")
    return code


# ---- why a move is illegal, in shared words ------------------------------------------

_CATEGORY = {
    Illegal.NOT_HELD: "not-held", Illegal.EXPEDITION_REFUSES: "expedition", Illegal.EMPTY_PILE: "draw",
    Illegal.DRAW_BACK: "draw-back", Illegal.PASS_NOT_FOUR: "pass-refused",
    Illegal.PASS_NOT_HELD: "pass-not-held", Illegal.NOT_A_MOVE: "not-a-move", Illegal.LOG_FULL: "log-full",
    Illegal.NO_SUCH_PILE: "draw", Illegal.DECK_EMPTY: "draw", Illegal.NO_DRAW: "draw",
    Illegal.SOLITAIRE_PILE: "draw", Illegal.PASS_HAND_SMALL: "pass-refused",
    Illegal.PASS_TWICE: "pass-refused", Illegal.ROUND_OVER: "round-over",
}


def category(code: int) -> str:
    """The shared word for an engine error code ('' for 0: legal)."""
    return _CATEGORY[Illegal(code)] if code else ""


def error_text(code: int) -> str:
    """The engine's own words for an error code (what a PolicyFailure message quotes)."""
    return _message(code)


ERROR_CODES = tuple(int(c) for c in Illegal)
