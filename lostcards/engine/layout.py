"""Every packed layout of the numba engine, generated from tables of (name, size, meaning).

Two kinds of layout, both built from one table each (as OpenSpiel's observers
build theirs), so no offset is ever chained by hand:

- ``Block``: a run of int64 words, each piece ``count`` words long, laid out
  one after the other (the round state, the rules block, the observation).
- ``Fields``: one int64 word split into bit fields, each ``bits`` wide
  (the packed words: a move, a seat's counters, the observation's ``info``).

``Block.split`` and ``Fields.unpack`` turn a block or a word back into a dict that
names every piece, so tests and debugging never read raw offsets.

Card sets are two words: word 0 holds suits 0-4 (bit = card code,
``suit * 12 + slot``, as in ``cards.py``), word 1 holds suit 5 (bit = code - 60).
"""
from __future__ import annotations

from collections import namedtuple

from lostcards.rules.cards import SLOTS
from lostcards.rules.parameters import obs_fields

CARD_WORDS = 2              # a card set: suits 0-4, then suit 5
LO_SUITS = 5                # suits held in word 0
HI_BASE = LO_SUITS * SLOTS  # the code of suit 5's slot 0: bit 0 of a card set's second word
LANE = (1 << SLOTS) - 1     # one suit's slots, as a 12-bit lane
INVESTMENT_SLOTS = 0b111    # slots 0-2 of a lane: J, Q, K
NUMBER_SLOTS = LANE & ~INVESTMENT_SLOTS     # slots 3..11: the numbers 2..10 (a ruleset may use fewer)
PILE_BITS = 4               # a discard pile is a stack of 4-bit entries (slot + 1; 0: no card), top lowest
PILE_ENTRIES = 64 // PILE_BITS              # entries a pile word holds
PILE_ENTRY = (1 << PILE_BITS) - 1
SEATS = 4
SIDES = 2
SUITS = 6
PLANES = 2                  # copies: plane 0 = at least one (or: the first copy), plane 1 = two


class Block:
    """A block of int64 words: named pieces of ``count`` words each, in table order."""

    def __init__(self, name: str, pieces):
        self.name = name
        self.pieces = tuple(pieces)
        self.offsets = {}
        at = 0
        for piece, count, meaning in self.pieces:
            if piece in self.offsets:
                raise ValueError(f"{name}: piece {piece!r} twice")
            self.offsets[piece] = (at, count, meaning)
            at += count
        self.size = at

    def at(self, *names):
        """The offsets of the named pieces (one int for one name)."""
        out = tuple(self.offsets[n][0] for n in names)
        return out[0] if len(out) == 1 else out

    def count(self, name: str) -> int:
        return self.offsets[name][1]

    def names(self):
        return [p[0] for p in self.pieces]

    def split(self, words) -> dict:
        """{piece: its word (count 1) or list of words}, plain ints."""
        out = {}
        for piece, (at, count, _) in self.offsets.items():
            vals = [int(w) for w in words[at:at + count]]
            out[piece] = vals[0] if count == 1 else vals
        return out


class Fields:
    """One int64 word split into bit fields (name, bits, meaning), lowest bits first.

    ``field(name)`` is a ``(shift, mask)`` pair: numba code reads a field with
    ``get(word, F)`` and writes one with ``put(F, value)`` (``observation.py``).
    """

    def __init__(self, name: str, pieces, signed=()):
        self.name = name
        self.pieces = tuple(pieces)
        self.signed = frozenset(signed)
        self.fields = {}
        shift = 0
        for piece, bits, meaning in self.pieces:
            self.fields[piece] = (shift, (1 << bits) - 1, meaning)
            shift += bits
        if shift > 63:
            raise ValueError(f"{name}: {shift} bits do not fit in one int64")
        self.bits = shift

    def field(self, *names):
        out = tuple((self.fields[n][0], self.fields[n][1]) for n in names)
        return out[0] if len(out) == 1 else out

    def pack(self, **values) -> int:
        word = 0
        for k, v in values.items():
            shift, mask, _ = self.fields[k]
            v = int(v)
            if k not in self.signed and not 0 <= v <= mask:
                raise ValueError(f"{self.name}.{k} = {v} does not fit in {mask.bit_length()} bits")
            word |= (v & mask) << shift
        return word

    def unpack(self, word) -> dict:
        word = int(word)
        out = {}
        for k, (shift, mask, _) in self.fields.items():
            v = (word >> shift) & mask
            if k in self.signed and v > mask >> 1:
                v -= mask + 1
            out[k] = v
        return out


# ---- the rules block: what the engine needs of a ruleset, per batch ---------------
RULES = Block("rules", [
    ("players", 1, "1, 2 or 4"),
    ("suits", 1, "suits in play"),
    ("hand_size", 1, "cards dealt to each seat"),
    ("cost", 1, "what an opened expedition owes"),
    ("bonus_cards", 1, "cards an expedition needs for the bonus"),
    ("bonus_points", 1, "the bonus"),
    ("stall_end", 1, "stall count that ends the round: stall_limit x players (2**62: never)"),
    ("turn_cap", 1, "turns after which the round is capped (2**62: no cap)"),
    ("pass_min", 1, "4 players: the hand a pass needs"),
    ("pass_twice", 1, "1 if a seat may pass on two own turns in a row"),
    ("cards", 1, "cards in the deck (physical)"),
    ("aside", 1, "solitaire: cards set aside unseen before the deal (0 otherwise)"),
    ("all", CARD_WORDS, "card set: every code the deck holds"),
    ("numbers", CARD_WORDS, "card set: the number cards"),
    ("doubles", CARD_WORDS, "card set: codes with two copies (4 players, extra_low)"),
    ("obs_rules", 2, "the observation's two ruleset words (OBS_RULES, OBS_RULES2)"),
    ("simple", 1, "1 when every card set fits its first word (at most 5 suits) and no card has a "
                  "second copy: the engine then runs a version with those parts left out"),
    ("canon", 16, "bytes: the canonical deck, physical id -> card byte (code | copy << 7)"),
])

# ---- the round state: one block of words per round in play ------------------------
ROUND = Block("round", [
    ("seat", 1, "the seat to move"),
    ("turn", 1, "turns played (passes included)"),
    ("stall", 1, "stall count: consecutive turns that discarded and drew off a discard pile"),
    ("deck_pos", 1, "byte index in `order` of the next card of the draw pile"),
    ("ended", 1, "how the round ended (Ending), -1 while it goes on"),
    ("error", 1, "the illegal-move code (Illegal) that stopped the round, 0 if none"),
    ("passed", 1, "bit per seat: it passed on its previous own turn"),
    ("sizes", 1, "hand sizes, 8 bits a seat (SIZES)"),
    ("nonempty", 1, "bit per suit: its discard pile holds cards"),
    ("first", 1, "the seat that played first"),
    ("round", 1, "the round index"),
    ("totals", 1, "match totals before this round (TOTALS)"),
    ("hand", SEATS * PLANES * CARD_WORDS, "[seat][copy][word]: card sets of the first and second copies held"),
    ("exp", SIDES * CARD_WORDS, "[side][word]: card set of each side's expeditions"),
    ("acc", SIDES * CARD_WORDS, "[side][word]: cards each side's expeditions accept now"),
    ("pile", (SUITS + 2) * 2, "[suit][2]: discard pile, a stack of 4-bit slot+1 entries, top lowest "
                              "(two words); piles 6 and 7 are dummies that a turn which pushes or "
                              "pops nothing works on, so no store and load alias by accident"),
    ("pile_copy", SUITS + 2, "[suit]: stack of copy bits beside the pile's entries"),
    ("known", SEATS * 2 * PLANES * CARD_WORDS,
     "[holder][view][plane][word]: cards others know `holder` holds; view 0 = every other seat, "
     "1 = its partner; plane 0 = at least one copy, 1 = two"),
    ("counts", SEATS * 2, "[seat][2]: packed counters (COUNTS, COUNTS2)"),
    ("reached", SEATS * PLANES * CARD_WORDS, "[seat][copy][word]: physical cards ever in the hand this round"),
    ("dealt", SEATS * PLANES * CARD_WORDS, "[seat][copy][word]: the dealt hand"),
    ("order", 16, "bytes: the shuffled deck, card bytes (code | copy << 7), draw pile from deck_pos"),
])

STATE = Block("state", [("rules", RULES.size, "the rules block (RULES)"),
                        ("round", ROUND.size, "the round (ROUND)")])
STATE_WORDS = STATE.size
_R0 = STATE.at("rules")
_S0 = STATE.at("round")


def _state_offsets(block, base, names):
    return tuple(base + block.at(n) for n in names)


(R_PLAYERS, R_SUITS, R_HAND_SIZE, R_COST, R_BONUS_CARDS, R_BONUS_POINTS, R_STALL_END, R_TURN_CAP,
 R_PASS_MIN, R_PASS_TWICE, R_CARDS, R_ASIDE, R_ALL, R_NUMBERS, R_DOUBLES, R_OBS_RULES,
 R_SIMPLE, R_CANON) = _state_offsets(RULES, _R0, RULES.names())
(S_SEAT, S_TURN, S_STALL, S_DECK_POS, S_ENDED, S_ERROR, S_PASSED, S_SIZES, S_NONEMPTY, S_FIRST,
 S_ROUND, S_TOTALS, S_HAND, S_EXP, S_ACC, S_PILE, S_PILE_COPY, S_KNOWN, S_COUNTS, S_REACHED,
 S_DEALT, S_ORDER) = _state_offsets(ROUND, _S0, ROUND.names())
PILE_NO_PUSH, PILE_NO_POP = SUITS, SUITS + 1     # the dummy piles
MAX_TURNS = 4000            # a play-out never runs longer (a guard; rounds end long before)
ORDER_CARD = 127            # a byte of the deal order: the card's code; bit 7 is which copy
ORDER_COPY_SHIFT = 7
ROUND_START = _S0           # words from here on are reset by a deal (up to S_ORDER)

# ---- a seat's memory: what a policy gets besides its observation --------------------
SEAT_MEM = Block("seat memory", [
    ("rng", 4, "the seat's xoshiro256** stream (seed, round, 1 + seat)"),
    ("scratch", 28, "the policy's own words: zero when a round is dealt, kept across its turns"),
])
MEM_WORDS = SEAT_MEM.size
# one round's seat memories: every seat's, plus a pad so that rounds in flight do not sit a
# multiple of 4 KiB apart (the CPU would see false store-to-load dependencies between them)
SLOT_MEM_WORDS = SEATS * MEM_WORDS + 8
M_RNG, M_SCRATCH = SEAT_MEM.at("rng", "scratch")

# ---- packed words -------------------------------------------------------------------
MOVE = Fields("move", [
    ("card", 8, "the card played or the first card passed (code)"),
    ("to", 1, "play: 0 = to the expedition, 1 = discard"),
    ("draw", 3, "play: 0 = the deck, 1 + suit = that discard pile, 7 = nothing (solitaire)"),
    ("unused", 4, "zero"),
    ("kind", 1, "0 = play, 1 = pass"),
])
# a pass keeps its second card where a play keeps `to` and `draw`
PASS = Fields("pass", [
    ("card", 8, "the first card passed (code)"),
    ("card2", 8, "the second card passed (code)"),
    ("kind", 1, "1 = pass"),
])
# a seat's counters, two words: [seat][0] is COUNTS, [seat][1] is COUNTS2
COUNTS = Fields("counts", [
    ("plays", 22, "turns that played a card (to an expedition or a discard pile)"),
    ("discards", 22, "of those, discards"),
    ("deck", 8, "draws off the deck"),
])
COUNTS2 = Fields("counts2", [
    ("pile", 22, "draws off a discard pile"),
    ("passes", 22, "passes"),
])
SIZES = Fields("sizes", [(f"seat{s}", 8, f"cards in seat {s}'s hand") for s in range(SEATS)])
TOTALS = Fields("totals", [("side0", 31, "match total of side 0 before this round"),
                           ("side1", 31, "match total of side 1")], signed=("side0", "side1"))

# the observation's words
OBS_RULES = Fields("rules", obs_fields("rules"))      # the ruleset, as rules/parameters.py lays it out
OBS_RULES2 = Fields("rules2", obs_fields("rules2"))
INFO = Fields("info", [
    ("seat", 2, "the seat this observation belongs to (the seat to move)"),
    ("side", 1, "its side"),
    ("deck", 7, "cards left in the draw pile"),
    ("stall", 17, "the stall count"),
    ("can_pass", 1, "1 if a pass is legal now"),
    ("nonempty", 6, "bit per suit: its discard pile holds cards"),
])

OBS = Block("observation", [
    ("rules", 1, "ruleset parameters (OBS_RULES)"),
    ("rules2", 1, "more ruleset parameters (OBS_RULES2)"),
    ("info", 1, "seat, side, deck size, stall count, can_pass, non-empty piles (INFO)"),
    ("turn", 1, "turns played this round, passes included"),
    ("round", 1, "the round index"),
    ("totals", 1, "match totals before this round, per side (TOTALS)"),
    ("sizes", 1, "every seat's hand size (SIZES)"),
    ("hand", 1, "own hand: cards held (suits 0-4)"), ("hand_hi", 1, "the same, suit 5"),
    ("hand2", 1, "own hand: cards held twice (4 players)"), ("hand2_hi", 1, "the same, suit 5"),
    ("exp0", 1, "side 0's expeditions: cards laid"), ("exp0_hi", 1, "the same, suit 5"),
    ("exp1", 1, "side 1's expeditions"), ("exp1_hi", 1, "the same, suit 5"),
    ("acc0", 1, "cards side 0's expeditions accept now"), ("acc0_hi", 1, "the same, suit 5"),
    ("acc1", 1, "cards side 1's expeditions accept now"), ("acc1_hi", 1, "the same, suit 5"),
    *[(f"pile{s}", 1, f"suit {s}'s discard pile: 4-bit slot+1 entries, top lowest")
      for s in range(SUITS)],
    *[(f"pile{s}_hi", 1, f"suit {s}'s discard pile below its 16th card") for s in range(SUITS)],
    *[(f"known{k}{x}{w}", 1, f"cards the seat {k} after this one is known to hold "
       f"{'twice' if x else 'at least once'}{' (suit 5)' if w else ''}")
      for k in (1, 2, 3) for x in ("", "x2") for w in ("", "_hi")],
])
Obs = namedtuple("Obs", OBS.names())
OBS_FIELDS = len(Obs._fields)
