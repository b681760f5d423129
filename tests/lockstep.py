"""Both engines in lockstep: the same moves on the reference and on the numba engine (through
``engine_adapter``), every seat's observation compared field by field after every turn, and
optionally the verdict on every candidate move of every turn.

A difference raises ``AssertionError`` with one readable line: where (round, turn, seat), which
field, and both values, cards as text.
"""
from __future__ import annotations

from itertools import combinations

import engine_adapter as ea

from lostcards.errors import IllegalMove
from lostcards.reference.moves import Pass, Play
from lostcards.reference.round import Round, turn_record
from lostcards.rules.cards import SLOTS, deck_codes, format_card
from lostcards.rules.ruleset import Ruleset
from lostcards.rules.streams import Stream

# the fields of an Observation both engines must give alike (totals are the match's, not the round's)
FIELDS = ("seat", "players", "hand", "expeditions", "discards", "deck_size", "known", "hand_sizes",
          "stall_count", "turn", "can_pass", "round_index")
CARD_FIELDS = {"hand": 1, "discards": 2, "known": 2, "expeditions": 3}     # nesting depth of card codes


def canonical(obs, field: str):
    """A field's value, comparable across engines: an expedition as the set of its cards, in
    slot order (the engine's row keeps which cards, not the order of the investments)."""
    v = getattr(obs, field)
    if field == "expeditions":
        return tuple(tuple(tuple(sorted(e)) for e in side) for side in v)
    return v


def show(value, depth: int, letters: str) -> str:
    if depth == 0:
        return repr(value)
    if depth == 1:
        return "[" + " ".join(format_card(c, letters) for c in value) + "]"
    return "[" + ", ".join(show(v, depth - 1, letters) for v in value) + "]"


def differences(ref_obs, eng_obs) -> list:
    """(field, reference value, engine value) for each field that differs, values as text."""
    out = []
    letters = ref_obs.rules.letters
    for f in FIELDS:
        a, b = canonical(ref_obs, f), canonical(eng_obs, f)
        if a != b:
            d = CARD_FIELDS.get(f, 0)
            out.append((f, show(a, d, letters), show(b, d, letters)))
    return out


def move_text(move, rules: Ruleset) -> str:
    try:
        return str(turn_record(move, rules))
    except (KeyError, ValueError, TypeError, IndexError):
        return repr(move)


class _Text:
    """A move's text, formatted only when a message is (``move_text``)."""

    def __init__(self, move, rules: Ruleset):
        self.move, self.rules = move, rules

    def __str__(self) -> str:
        return move_text(self.move, self.rules)


def reference_verdict(rnd: Round, move) -> str:
    """'' if the reference takes the move now, else its reason; changes nothing."""
    try:
        rnd.check(move)
    except IllegalMove as e:
        return e.reason
    return ""


def reference_check(rnd: Round, move) -> tuple[str, int]:
    """('', 0) if the reference takes the move now, else its reason and the engine's code its
    IllegalMove carries; changes nothing."""
    try:
        rnd.check(move)
    except IllegalMove as e:
        assert e.code is not None, f"the reference refused {move!r} without a code ({e.reason})"
        return e.reason, int(e.code)
    return "", 0


def reference_category(reason: str) -> str:
    """The shared word (engine_adapter.category's) for a reason the reference gives."""
    for words, cat in _REASONS:
        if words in reason:
            return cat
    raise AssertionError(f"no category for the reference's reason {reason!r}")


# first match wins: the pass rules before "hand", the card rules before "expedition" and "deck"
_REASONS = [
    ("round is already over", "round-over"),
    ("so it cannot be passed", "pass-not-held"), ("holds only one", "pass-not-held"),
    ("only a 4-player game", "pass-refused"), ("a pass needs a hand", "pass-refused"),
    ("may not pass on two", "pass-refused"),
    ("not a card of this ruleset", "not-a-move"), ("a move is a Play or a Pass", "not-a-move"),
    ("exactly 2 cards", "not-a-move"), ("a card goes to", "not-a-move"), ("a pass lists", "not-a-move"),
    ("a pass turn holds only", "not-a-move"), ("a turn must have", "not-a-move"),
    ("a turn must be an object", "not-a-move"), ("unknown key", "not-a-move"),
    ("does not say where the card goes", "not-a-move"),
    ("hand", "not-held"),
    ("expedition", "expedition"),
    ("cannot be drawn back", "draw-back"),
    ("deck", "draw"), ("discard pile", "draw"), ("draw", "draw"),
]


def reference_state(rnd: Round) -> tuple:
    """Everything the reference shows of a round (every seat's view, the deck, where each physical
    card is, the statistics, whose turn), to check that an illegal move changed nothing."""
    stats = rnd.stats()
    return (rnd.seat, rnd.ended_by, rnd.deck_cards(), rnd.physical_places(),
            tuple(rnd.observation(s) for s in range(rnd.players)),
            tuple(rnd.can_pass(s) for s in range(rnd.players)),
            tuple((k, v.tobytes() if hasattr(v, "tobytes") else v) for k, v in stats.items()))


# ---------------------------------------------------------------------------
# Candidate moves
# ---------------------------------------------------------------------------

def candidates(obs) -> tuple:
    """Every move worth asking about now, legal or not: (moves the engine's move code can hold,
    moves only the reference can be handed).

    Every card held x {expedition, discard} x every draw source (the deck, every pile, empty or
    not, the one just discarded onto, a pile index the ruleset lacks, no draw); a card not held
    and a card of no suit here; every pass of two held cards, two copies of a card held once,
    a card not held.
    """
    r = obs.rules
    hand = obs.hand
    held = sorted(set(hand))
    draws = ["deck", *range(r.suits), None] + ([r.suits] if r.suits < 6 else [])
    moves = [Play(c, to, d) for c in held for to in ("expedition", "discard") for d in draws]
    absent = next((c for c in deck_codes(r) if c not in hand), None)
    draw = None if r.players == 1 else "deck"
    if absent is not None:
        moves += [Play(absent, "expedition", draw), Play(absent, "discard", draw)]
    if r.suits < 6:
        moves.append(Play(r.suits * SLOTS + 5, "discard", draw))            # a 4 of a suit not in play
    moves += [Pass(p) for p in sorted({tuple(sorted(p)) for p in combinations(hand, 2)})]
    moves += [Pass((c, c)) for c in held if hand.count(c) == 1]
    if absent is not None and hand:
        moves.append(Pass((hand[0], absent)))
    ref_only = []
    if hand:
        c = hand[0]
        ref_only += [Pass((c,)), Pass(tuple(hand[:3])), Play(c, "pile", draw), Play(c, "discard", "pile"),
                     Play(c, "discard", -1), Play(-1, "discard", draw), Play(True, "discard", draw)]
    return moves, ref_only


# ---------------------------------------------------------------------------
# The lockstep
# ---------------------------------------------------------------------------

class Lockstep:
    """One round on both engines; ``step`` plays a move on both and compares what every seat sees."""

    def __init__(self, rules: Ruleset, ref: Round, eng, label: str):
        self.rules, self.ref, self.eng, self.label = rules, ref, eng, label
        self.last = "the deal"
        self.compare()

    @classmethod
    def dealt(cls, rules: Ruleset, seed: int, round_index: int, first: int = 0, label: str = ""):
        return cls(rules, Round.dealt(rules, seed, round_index, first), ea.deal(rules, seed, round_index, first),
                   f"{label or rules.describe()} seed {seed} round {round_index}")

    @classmethod
    def from_deal(cls, rules: Ruleset, hands, deck, first: int = 0, aside=None, label: str = "a constructed deal"):
        ref = Round.from_codes(rules, hands, deck, first, aside)
        return cls(rules, ref, ea.from_deal(rules, hands, deck, first, aside), label)

    def where(self) -> str:
        return f"{self.label}, after turn {self.ref.turn} ({self.last})"

    def compare(self) -> None:
        """Every seat's observation, the seat to move, the ending and the scores: equal in both."""
        ref, eng = self.ref, self.eng
        for seat in range(self.rules.players):
            diffs = differences(ref.observation(seat), ea.observe(eng, seat))
            if diffs:
                f, a, b = diffs[0]
                raise AssertionError(f"{self.where()}: seat {seat}'s {f}: reference {a}, engine {b}"
                                     + (f" (and {len(diffs) - 1} more fields)" if len(diffs) > 1 else ""))
        pairs = [("ended", ref.ended, ea.ended(eng)), ("scores", ref.scores, ea.scores(eng))]
        if ref.ended:
            pairs.append(("ending", ref.ended_by, ea.ending(eng)))
        else:
            pairs.append(("seat to move", ref.seat, ea.seat_to_move(eng)))
        for what, a, b in pairs:
            if a != b:
                raise AssertionError(f"{self.where()}: {what}: reference {a}, engine {b}")

    def step(self, move) -> str:
        """Play `move` on both engines and compare; returns '' (played) or the reference's reason
        (refused by both, neither changed)."""
        why = reference_verdict(self.ref, move)
        text = move_text(move, self.rules)
        if why:
            before = reference_state(self.ref), ea.snapshot(self.eng)
            try:
                self.ref.apply(move)
            except IllegalMove:
                pass
            else:
                raise AssertionError(f"{self.where()}: the reference checked {text} illegal but applied it")
            err = ea.apply(self.eng, move)
            if not err:
                raise AssertionError(f"{self.where()}: {text}: the reference refuses it ({why}), the engine plays it")
            after = reference_state(self.ref), ea.snapshot(self.eng)
            for name, a, b in zip(("reference", "engine"), before, after):
                if a != b:
                    raise AssertionError(f"{self.where()}: the illegal {text} changed the {name}'s state")
            return why
        self.ref.apply(move)
        err = ea.apply(self.eng, move)
        if err:
            raise AssertionError(f"{self.where()}: {text}: the reference plays it, the engine refuses it "
                                 f"({ea.category(err)}: {ea.error_text(err)})")
        self.last = text
        self.compare()
        return ""

    def verdicts(self) -> int:
        """Every candidate move now: both engines agree on legal or not, and on the reason's category;
        every illegal one leaves both states as they were.  Returns how many were asked."""
        ref, rules = self.ref, self.rules
        obs = ref.observation()
        moves, ref_only = candidates(obs)
        codes, unchanged = ea.try_moves(self.eng, moves)
        for move, code, same in zip(moves, codes, unchanged):
            why, ref_code = reference_check(ref, move)
            eng_cat, ref_cat = ea.category(code), reference_category(why) if why else ""
            if ea.category(ref_code) != ref_cat:
                raise AssertionError(f"{self.where()}: seat {ref.seat}: the reference's code for {move!r} "
                                     f"({ea.category(ref_code)}) is not its reason's ({why})")
            text = _Text(move, rules)       # written only into a failure's message
            if bool(why) != bool(code):
                raise AssertionError(f"{self.where()}: seat {ref.seat} {text}: reference "
                                     f"{'refuses (' + why + ')' if why else 'plays it'}, engine "
                                     f"{'refuses (' + ea.error_text(code) + ')' if code else 'plays it'}")
            if code and not same:
                raise AssertionError(f"{self.where()}: seat {ref.seat} {text}: the engine refuses it but its "
                                     "state changed")
            if eng_cat != ref_cat and not self._two_pass_rules(move, {eng_cat, ref_cat}, obs):
                raise AssertionError(f"{self.where()}: seat {ref.seat} {text}: both refuse it, the reference "
                                     f"because {ref_cat} ({why}), the engine because {eng_cat} "
                                     f"({ea.error_text(code)})")
        for move in ref_only:
            if not reference_verdict(ref, move):
                raise AssertionError(f"{self.where()}: the reference takes {move!r}")
        # one illegal move, of a kind taken in turn, applied for real: neither engine changes
        kinds = sorted({ea.category(c) for c in codes if c})
        if kinds:
            kind = kinds[ref.turn % len(kinds)]
            self.step(next(m for m, c in zip(moves, codes) if ea.category(c) == kind))
        return len(moves) + len(ref_only)

    @staticmethod
    def _two_pass_rules(move, cats, obs) -> bool:
        """A pass breaking both 'may pass now' and 'holds the cards': today's engine names the first."""
        return (not ea.PASS_CHECKS_IN_SPEC_ORDER and isinstance(move, Pass) and not obs.can_pass
                and cats == {"pass-not-held", "pass-refused"})


def play_lockstep(rules: Ruleset, seed: int, round_index: int, first: int, policy, legality: bool = False,
                  label: str = "") -> Lockstep:
    """Deal (seed, round_index) on both engines and play it out with `policy` (a reference policy,
    seat s drawing from stream (seed, round_index, 1 + s)), comparing after every turn."""
    ls = Lockstep.dealt(rules, seed, round_index, first, label)
    streams = [Stream(seed, round_index, 1 + s) for s in range(rules.players)]
    asked = 0
    while not ls.ref.ended:
        if legality:
            asked += ls.verdicts()
        move = policy(ls.ref.observation(), streams[ls.ref.seat])
        if ls.step(move):
            raise AssertionError(f"{ls.where()}: the policy's move {move!r} is illegal")
    ls.asked = asked
    return ls
