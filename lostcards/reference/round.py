"""The plain-Python reference engine: one round of Expeditions, written to read like the rule sheet.

It is the correctness reference for the numba engine (``lostcards/engine/``):
both follow ``docs/engine.md`` exactly, so the same (seed, round index) gives
the same record, move for move.  Cards are tracked by *physical id* (their
position in ``cards.deck_codes``) so that the per-round statistics are exact;
policies and records only ever see card codes, and what a seat knows of
another's hand is counted in codes too: two copies of a card look the same.

Vocabulary, as on the rule sheet: a *side* is a seat (1 or 2 players) or a team
(4 players: seats 0 & 2 against 1 & 3); each side has one *expedition* per suit;
each suit has one *discard pile*; the *deck* is the draw pile; an *investment*
is a J, Q or K; a *stall* turn discards and then draws off a discard pile.
"""
from __future__ import annotations

import bisect
from collections import Counter
from dataclasses import dataclass, field
from typing import Optional

import numpy as np

from lostcards.errors import Illegal, IllegalMove
from lostcards.reference.moves import Move, Pass, Play
from lostcards.reference.observation import Observation, side_of
from lostcards.rules.cards import aside_count, deck_codes, format_card, is_investment, suit_of, value_of
from lostcards.rules.outcome import Ending
from lostcards.rules.ruleset import Ruleset
from lostcards.rules.scoring import expedition_refusal, expedition_score
from lostcards.rules.streams import STREAM_DEAL, Stream

RECORD_FORMAT = "lostcards-round/1"

# column order of the statistics arrays (docs/engine.md, "Per-round statistics")
SEAT_STATS = ("plays", "discards", "deck_draws", "pile_draws", "passes")
SEAT_SUIT_STATS = ("held_count", "held_sum", "reached_count", "reached_sum")
SIDE_SUIT_STATS = ("exp_cards", "exp_investments", "exp_score")


# ---------------------------------------------------------------------------
# The deal
# ---------------------------------------------------------------------------

def deal(rules: Ruleset, seed: int, round_index: int):
    """Shuffle and deal exactly as docs/engine.md says: (hands, deck, aside) as physical ids.

    Fisher-Yates with stream (seed, round_index, 0); solitaire first sets aside
    the first N - N//2 cards; hands come next, seat by seat; the rest is the deck, top first.
    """
    n = rules.deck_size
    order = list(range(n))
    stream = Stream(seed, round_index, STREAM_DEAL)
    for i in range(n - 1, 0, -1):
        j = stream.below(i + 1)
        order[i], order[j] = order[j], order[i]
    pos = 0
    aside = []
    if rules.players == 1:
        pos = aside_count(1, n)
        aside = order[:pos]
    hands = []
    for _ in range(rules.players):
        hands.append(order[pos:pos + rules.hand_size])
        pos += rules.hand_size
    return hands, order[pos:], aside


# ---------------------------------------------------------------------------
# The state of a round
# ---------------------------------------------------------------------------

class Round:
    """One round in progress: hands, deck, expeditions, discard piles, whose turn, and how it ended.

    Build it with ``Round.dealt`` (from a seed), ``Round.from_codes`` (from a
    record's deal) or directly from physical ids; change it only with ``apply``.
    """

    def __init__(self, rules: Ruleset, hands, deck, first: int = 0, aside=(), round_index: int = 0):
        """``hands``, ``deck`` (top first) and ``aside`` are physical ids (positions in the canonical deck)."""
        self.rules = rules
        self.players = rules.players
        self.sides = rules.sides
        self.round_index = round_index
        self.codes = deck_codes(rules)            # physical id -> card code
        self._code_set = frozenset(self.codes)
        if isinstance(first, bool) or not isinstance(first, (int, np.integer)) or not 0 <= first < self.players:
            raise ValueError(f"first = {first!r} is not a seat (0..{self.players - 1})")
        first = int(first)
        self.first = first
        self.seat = first
        self.hands = [sorted(h) for h in hands]
        self.deck = list(deck)
        self._top = 0                      # deck[self._top] is the next card drawn
        self.aside = list(aside)
        self.expeditions = [[[] for _ in range(rules.suits)] for _ in range(self.sides)]
        self.discard_piles = [[] for _ in range(rules.suits)]
        self.out_of_game = []             # solitaire discards
        self.turn = 0                     # turns played, passes included
        self.stall_count = 0
        self.ended_by: Optional[Ending] = None
        self._passed_last = [False] * self.players
        self._drew_deck = False           # whether the last turn drew off the deck
        # _known[observer][holder]: the cards (codes, with copies counted) that `observer`
        # knows `holder` to hold; copies look the same, so it is knowledge of codes, not of cards
        self._known = [[Counter() for _ in range(self.players)] for _ in range(self.players)]
        # statistics
        self._seat_stats = [[0] * 5 for _ in range(self.players)]
        self._dealt = [list(h) for h in hands]      # as dealt (the record keeps this order)
        self._reached = [set(h) for h in self.hands]

    # -- construction --------------------------------------------------------
    @classmethod
    def dealt(cls, rules: Ruleset, seed: int, round_index: int, first: int = 0) -> "Round":
        """A fresh round dealt from the stream (seed, round_index, 0)."""
        hands, deck, aside = deal(rules, seed, round_index)
        return cls(rules, hands, deck, first, aside, round_index)

    @classmethod
    def from_codes(cls, rules: Ruleset, hands, deck, first: int = 0, aside=None, round_index: int = 0) -> "Round":
        """A round from a deal given as card codes (a record's).

        Copies of a code get physical ids in order of appearance: aside, hands by seat, deck.
        The deal must fit the deck (records.py checks that first).
        """
        codes = deck_codes(rules)
        free: dict = {}
        for pid, c in enumerate(codes):
            free.setdefault(c, []).append(pid)
        for ids in free.values():
            ids.reverse()

        def ids_of(seq):
            try:
                return [free[c].pop() for c in seq]
            except (KeyError, IndexError):
                raise ValueError("the deal holds a card the deck does not have (or too many copies)") from None

        aside_ids = ids_of(aside) if aside is not None else []
        hand_ids = [ids_of(h) for h in hands]
        deck_ids = ids_of(deck)
        if aside is None and rules.players == 1:
            aside_ids = sorted(pid for ids in free.values() for pid in ids)
        return cls(rules, hand_ids, deck_ids, first, aside_ids, round_index)

    # -- reading the state ---------------------------------------------------
    @property
    def letters(self) -> str:
        return self.rules.letters

    @property
    def deck_size(self) -> int:
        return len(self.deck) - self._top

    @property
    def ended(self) -> bool:
        return self.ended_by is not None

    def text(self, code: int) -> str:
        return format_card(code, self.rules.letters)

    def hand(self, seat: int) -> tuple:
        """A seat's hand as codes, sorted."""
        return tuple(self.codes[p] for p in self.hands[seat])

    def deck_cards(self) -> tuple:
        """The deck as codes, top first."""
        return tuple(self.codes[p] for p in self.deck[self._top:])

    def expedition(self, side: int, suit: int) -> tuple:
        """One expedition as codes, in the order laid."""
        return tuple(self.codes[p] for p in self.expeditions[side][suit])

    def discard_pile(self, suit: int) -> tuple:
        """One discard pile as codes, bottom first (top last)."""
        return tuple(self.codes[p] for p in self.discard_piles[suit])

    def side_score(self, side: int) -> int:
        return sum(expedition_score(self.expedition(side, s), self.rules) for s in range(self.rules.suits))

    @property
    def scores(self) -> list:
        """Each side's round score as the table stands: [solitaire], [seat 0, seat 1] or [team A, team B]."""
        return [self.side_score(side) for side in range(self.sides)]

    def physical_places(self) -> dict:
        """Where every physical card is: {phys id: place}; for checking that no card is lost or doubled."""
        places = {}

        def put(pid, where):
            if pid in places:
                raise AssertionError(f"card {pid} is both in {places[pid]} and {where}")
            places[pid] = where

        for seat, h in enumerate(self.hands):
            for p in h:
                put(p, f"hand {seat}")
        for p in self.deck[self._top:]:
            put(p, "deck")
        for side, exps in enumerate(self.expeditions):
            for suit, e in enumerate(exps):
                for p in e:
                    put(p, f"expedition {side}/{suit}")
        for suit, pile in enumerate(self.discard_piles):
            for p in pile:
                put(p, f"discard pile {suit}")
        for p in self.out_of_game:
            put(p, "out of the game")
        for p in self.aside:
            put(p, "aside")
        return places

    def can_pass(self, seat: Optional[int] = None) -> bool:
        """Whether a seat may pass now (4 players, hand >= pass_min_hand, not twice in a row unless allowed)."""
        seat = self.seat if seat is None else seat
        return (self.players == 4 and not self.ended
                and len(self.hands[seat]) >= self.rules.pass_min_hand
                and (self.rules.pass_twice or not self._passed_last[seat]))

    def known_to(self, observer: int) -> tuple:
        """For each seat, the codes ``observer`` knows that seat to hold, copies repeated (its own entry empty)."""
        return tuple(tuple(sorted(self._known[observer][holder].elements())) for holder in range(self.players))

    # -- what the seats know of each other's hands (docs/engine.md, "What a seat knows") --
    def _seen_taking(self, holder: int, code: int) -> None:
        """Every other seat saw ``holder`` take a card of ``code`` off a discard pile: one more copy known."""
        for observer in range(self.players):
            if observer != holder:
                self._known[observer][holder][code] += 1

    def _seen_giving_up(self, holder: int, code: int) -> None:
        """``holder`` played or passed a card of ``code``: whoever knew it held copies now knows one fewer.

        Nobody can tell which copy left, so a seat that knew of one copy knows of none.
        """
        for observer in range(self.players):
            known = self._known[observer][holder]
            if known[code] > 0:
                known[code] -= 1

    def observation(self, seat: Optional[int] = None, totals: tuple = ()) -> Observation:
        """What ``seat`` (the seat to move by default) may see now."""
        seat = self.seat if seat is None else seat
        codes = self.codes
        return Observation(
            rules=self.rules,
            seat=seat,
            players=self.players,
            hand=self.hand(seat),
            expeditions=tuple(tuple(tuple(codes[p] for p in e) for e in exps) for exps in self.expeditions),
            discards=tuple(tuple(codes[p] for p in pile) for pile in self.discard_piles),
            deck_size=self.deck_size,
            known=self.known_to(seat),
            hand_sizes=tuple(len(h) for h in self.hands),
            stall_count=self.stall_count,
            turn=self.turn,
            can_pass=self.can_pass(seat) if seat == self.seat else False,
            round_index=self.round_index,
            totals=tuple(totals) if totals else (0,) * self.sides,
        )

    # -- playing -------------------------------------------------------------
    def _position(self, seat: int, code: int, skip: int = -1) -> int:
        """Position in a seat's hand of the lowest physical id of ``code`` (not at ``skip``), or -1."""
        codes = self.codes
        for i, p in enumerate(self.hands[seat]):
            if i != skip and codes[p] == code:
                return i
        return -1

    def _valid_code(self, card) -> bool:
        return (isinstance(card, (int, np.integer)) and not isinstance(card, bool)
                and 0 <= int(card) < 72 and int(card) in self._code_set)

    def check(self, move: Move) -> None:
        """Raise IllegalMove if the seat to move may not make ``move`` now; change nothing."""
        self._checked(move)

    def _checked(self, move):
        if self.ended:
            raise IllegalMove(f"the round is already over (ended by {self.ended_by} after turn {self.turn})",
                              Illegal.ROUND_OVER)
        if isinstance(move, Play):
            return self._check_play(move)
        if isinstance(move, Pass):
            return self._check_pass(move)
        raise IllegalMove(f"a move is a Play or a Pass, got {move!r}", Illegal.NOT_A_MOVE)

    def _check_play(self, move: Play):
        seat, rules, letters = self.seat, self.rules, self.rules.letters
        card = move.card
        if not self._valid_code(card):
            raise IllegalMove(f"{card!r} is not a card of this ruleset", Illegal.NOT_A_MOVE)
        card = int(card)
        pos = self._position(seat, card)
        if pos < 0:
            raise IllegalMove(f"{self.text(card)} is not in seat {seat}'s hand", Illegal.NOT_HELD)
        suit = suit_of(card)
        if move.to == "expedition":
            refusal = expedition_refusal(self.expedition(side_of(seat, self.players), suit), card, letters)
            if refusal:
                raise IllegalMove(refusal, Illegal.EXPEDITION_REFUSES)
        elif move.to != "discard":
            raise IllegalMove(f"a card goes to \"expedition\" or \"discard\", not {move.to!r}", Illegal.NOT_A_MOVE)
        draw = move.draw
        if self.players == 1:
            if draw is None:
                pass
            elif isinstance(draw, str) and draw == "deck":
                if self.deck_size == 0:
                    raise IllegalMove("the deck is empty: once it is, a solitaire turn draws nothing",
                                      Illegal.DECK_EMPTY)
            else:
                raise IllegalMove("solitaire draws only off the deck, never off a discard pile", Illegal.SOLITAIRE_PILE)
        else:
            if draw is None:
                raise IllegalMove("a turn must draw a card, off the deck or a discard pile", Illegal.NO_DRAW)
            if isinstance(draw, str):
                if draw != "deck":
                    raise IllegalMove(f"a card is drawn off \"deck\" or a discard pile, not {draw!r}",
                                      Illegal.NO_SUCH_PILE)
                if self.deck_size == 0:
                    raise IllegalMove("the deck is empty", Illegal.DECK_EMPTY)
            elif isinstance(draw, (int, np.integer)) and not isinstance(draw, bool) and 0 <= draw < rules.suits:
                draw = int(draw)
                if move.to == "discard" and draw == suit:
                    raise IllegalMove(f"the card discarded this turn cannot be drawn back "
                                      f"(drawing off the {letters[draw]} discard pile just discarded onto)",
                                      Illegal.DRAW_BACK)
                if not self.discard_piles[draw]:
                    raise IllegalMove(f"the {letters[draw]} discard pile is empty", Illegal.EMPTY_PILE)
            else:
                raise IllegalMove(f"no discard pile {draw!r} in this ruleset", Illegal.NO_SUCH_PILE)
        return pos, draw

    def _check_pass(self, move: Pass):
        seat, rules = self.seat, self.rules
        if self.players != 4:
            raise IllegalMove("only a 4-player game allows a pass", Illegal.PASS_NOT_FOUR)
        cards = tuple(move.cards)
        if len(cards) != 2:
            raise IllegalMove(f"a pass hands exactly 2 cards to the partner, not {len(cards)}", Illegal.NOT_A_MOVE)
        for c in cards:
            if not self._valid_code(c):
                raise IllegalMove(f"{c!r} is not a card of this ruleset", Illegal.NOT_A_MOVE)
        a, b = int(cards[0]), int(cards[1])
        pa = self._position(seat, a)
        if pa < 0:
            raise IllegalMove(f"{self.text(a)} is not in seat {seat}'s hand, so it cannot be passed",
                              Illegal.PASS_NOT_HELD)
        pb = self._position(seat, b, skip=pa)
        if pb < 0:
            if a == b:
                raise IllegalMove(f"seat {seat} holds only one {self.text(b)}, so it cannot pass two",
                                  Illegal.PASS_NOT_HELD)
            raise IllegalMove(f"{self.text(b)} is not in seat {seat}'s hand, so it cannot be passed",
                              Illegal.PASS_NOT_HELD)
        if len(self.hands[seat]) < rules.pass_min_hand:
            raise IllegalMove(f"a pass needs a hand of at least {rules.pass_min_hand} cards "
                              f"(seat {seat} holds {len(self.hands[seat])})", Illegal.PASS_HAND_SMALL)
        if self._passed_last[seat] and not rules.pass_twice:
            raise IllegalMove(f"seat {seat} passed on its previous turn and may not pass on two "
                              f"of its turns in a row (pass_twice is off)", Illegal.PASS_TWICE)
        return pa, pb

    def apply(self, move: Move) -> None:
        """Make the seat to move play ``move``: check it, carry it out, end the round if due, pass the turn on.

        Raises IllegalMove (and changes nothing) if the move is not allowed.
        """
        if isinstance(move, Play):
            pos, draw = self._checked(move)
            self._do_play(move, pos, draw)
        else:
            pa, pb = self._checked(move)
            self._do_pass(pa, pb)
        self.turn += 1
        self._check_end()
        if not self.ended:
            self.seat = (self.seat + 1) % self.players

    def _do_play(self, move: Play, pos: int, draw):
        seat, codes = self.seat, self.codes
        stats = self._seat_stats[seat]
        hand = self.hands[seat]
        pid = hand.pop(pos)
        self._seen_giving_up(seat, codes[pid])
        suit = suit_of(codes[pid])
        stats[0] += 1
        if move.to == "expedition":
            side = side_of(seat, self.players)
            self.expeditions[side][suit].append(pid)
        elif self.players == 1:
            stats[1] += 1
            self.out_of_game.append(pid)
        else:
            stats[1] += 1
            self.discard_piles[suit].append(pid)
        # the draw
        drew_pile = False
        new = None
        if draw == "deck" or (draw is None and self.deck_size > 0):
            new = self.deck[self._top]
            self._top += 1
            stats[2] += 1
        elif draw is not None:
            new = self.discard_piles[draw].pop()
            drew_pile = True
            stats[3] += 1
            self._seen_taking(seat, codes[new])
        if new is not None:
            bisect.insort(hand, new)
            self._reached[seat].add(new)
        self._drew_deck = new is not None and not drew_pile
        # a stall turn discards and draws off a discard pile; any other play resets the count
        if move.to == "discard" and drew_pile:
            self.stall_count += 1
        else:
            self.stall_count = 0
        self._passed_last[seat] = False

    def _do_pass(self, pa: int, pb: int):
        seat = self.seat
        partner = (seat + 2) % 4
        hand = self.hands[seat]
        given = [hand[pa], hand[pb]]
        for i in sorted((pa, pb), reverse=True):
            hand.pop(i)
        for pid in given:
            # the others know one copy fewer in the passer's hand; the passer knows its partner holds it
            self._seen_giving_up(seat, self.codes[pid])
            self._known[seat][partner][self.codes[pid]] += 1
            bisect.insort(self.hands[partner], pid)
            self._reached[partner].add(pid)
        self._seat_stats[seat][4] += 1
        self._passed_last[seat] = True
        self._drew_deck = False

    def _check_end(self):
        """Deck, stall, hand-empty, capped: checked in that order after every turn (docs/engine.md)."""
        rules = self.rules
        if self.players > 1 and self._drew_deck and self.deck_size == 0:
            self.ended_by = Ending.DECK
        elif rules.stall_limit > 0 and self.stall_count >= rules.stall_limit * self.players:
            self.ended_by = Ending.STALL
        elif self.players == 1 and not self.hands[0]:
            self.ended_by = Ending.HAND_EMPTY
        elif rules.turn_cap > 0 and self.turn >= rules.turn_cap:
            self.ended_by = Ending.CAPPED

    # -- statistics ------------------------------------------------------------
    def stats(self) -> dict:
        """The per-round statistics of docs/engine.md as numpy arrays (see SEAT_STATS etc.)."""
        rules, codes = self.rules, self.codes
        seats = np.array(self._seat_stats, dtype=np.int64).reshape(self.players, 5)
        seat_suits = np.zeros((self.players, rules.suits, 4), dtype=np.int64)
        for seat in range(self.players):
            for pid in self._dealt[seat]:
                c = codes[pid]
                if not is_investment(c):
                    seat_suits[seat, suit_of(c), 0] += 1
                    seat_suits[seat, suit_of(c), 1] += value_of(c)
            for pid in self._reached[seat]:
                c = codes[pid]
                if not is_investment(c):
                    seat_suits[seat, suit_of(c), 2] += 1
                    seat_suits[seat, suit_of(c), 3] += value_of(c)
        side_suits = np.zeros((self.sides, rules.suits, 3), dtype=np.int64)
        for side in range(self.sides):
            for suit in range(rules.suits):
                e = self.expedition(side, suit)
                side_suits[side, suit, 0] = len(e)
                side_suits[side, suit, 1] = sum(1 for c in e if is_investment(c))
                side_suits[side, suit, 2] = expedition_score(e, rules)
        return {
            "first": self.first,
            "turns": self.turn,
            "ended_by": self.ended_by,
            "scores": self.scores,
            "seats": seats,
            "seat_suits": seat_suits,
            "side_suits": side_suits,
        }


# ---------------------------------------------------------------------------
# Records of moves
# ---------------------------------------------------------------------------

def turn_record(move: Move, rules: Ruleset) -> dict:
    """A move as a record's turn (SPEC §5); solitaire turns omit ``draw``."""
    letters = rules.letters
    if isinstance(move, Pass):
        return {"pass": [format_card(int(c), letters) for c in move.cards]}
    turn = {"play": format_card(int(move.card), letters), "to": move.to}
    if rules.players > 1:
        turn["draw"] = "deck" if move.draw == "deck" else letters[int(move.draw)]
    return turn


def deal_record(rnd: Round) -> dict:
    """The record of a round's deal, before any turn (SPEC §5 key order)."""
    rules, codes = rnd.rules, rnd.codes
    text = rnd.text
    rec = {
        "format": RECORD_FORMAT,
        "rules": rules.to_record(),
        "players": rules.players,
        "first": rnd.first,
        "hands": [[text(codes[p]) for p in h] for h in rnd._dealt],
        "deck": [text(codes[p]) for p in rnd.deck],
    }
    if rules.players == 1:
        rec["aside"] = [text(codes[p]) for p in rnd.aside]
    rec["turns"] = []
    return rec


# ---------------------------------------------------------------------------
# Playing a whole round
# ---------------------------------------------------------------------------

@dataclass
class RoundResult:
    """A finished round: its record (SPEC §5), how it ended, scores per side, turn count and statistics."""

    record: dict
    ended_by: Ending
    scores: list
    turns: int
    stats: dict
    state: Round = field(repr=False)


def play_round(rules: Ruleset, seed: int, round_index: int, policies, first: int = 0,
               totals: tuple = ()) -> RoundResult:
    """Deal with stream (seed, round_index, 0) and play to the end with one policy per side.

    ``policies[side]`` is called as ``policy(observation, stream)`` and returns a
    Play or Pass; seat s draws its random numbers from stream (seed, round_index,
    1 + s).  With 4 players both seats of a team use the team's policy.
    A single callable is used for every side.
    """
    if callable(policies):
        policies = [policies] * rules.sides
    if len(policies) != rules.sides:
        raise ValueError(f"{rules.players} players need {rules.sides} policies (one per side), got {len(policies)}")
    rnd = Round.dealt(rules, seed, round_index, first)
    record = deal_record(rnd)
    streams = [Stream(seed, round_index, 1 + seat) for seat in range(rules.players)]
    turns = record["turns"]
    while not rnd.ended:
        seat = rnd.seat
        move = policies[side_of(seat, rules.players)](rnd.observation(totals=totals), streams[seat])
        try:
            rnd.apply(move)
        except IllegalMove as e:
            raise IllegalMove(f"the policy of seat {seat} made an illegal move on turn {rnd.turn + 1} "
                              f"({move!r}): {e.reason}", e.code) from None
        turns.append(turn_record(move, rules))
    return RoundResult(record=record, ended_by=rnd.ended_by, scores=rnd.scores, turns=rnd.turn,
                       stats=rnd.stats(), state=rnd)
