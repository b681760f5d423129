"""Round records (SPEC §5, §5.1): read and validate a record's deal, parse its turns, write JSON Lines.

A record whose deal is wrong is *malformed* (``MalformedRecord``); a wrong
turn is not malformed but illegal at that turn (``reference.IllegalMove``),
which ``move_of_turn`` raises and ``replay.py`` reports.  Nothing is repaired.
"""
from __future__ import annotations

import json
import os
from collections import Counter
from dataclasses import dataclass
from typing import IO, Iterable, Optional, Union

from lostcards.errors import BadArgument, CardError, IllegalMove, MalformedRecord, OutputError, RulesError, shown_path
from lostcards.reference.moves import Pass, Play
from lostcards.reference.round import RECORD_FORMAT, Round
from lostcards.rules.cards import aside_count, deck_codes, format_card, parse_card
from lostcards.rules.ruleset import Ruleset, from_record

TURN_KEYS = {"play", "to", "draw"}




@dataclass(frozen=True)
class Deal:
    """A validated deal: the ruleset, who plays first, the hands, the deck (top first) and, in solitaire, the aside."""

    rules: Ruleset
    players: int
    first: int
    hands: tuple            # per seat, tuple of codes
    deck: tuple             # codes, top first
    aside: Optional[tuple]  # codes (solitaire, when given)

    def round(self) -> Round:
        """A fresh Round in the position this deal describes."""
        return Round.from_codes(self.rules, self.hands, self.deck, self.first, self.aside)


@dataclass(frozen=True)
class Record:
    """A record read from JSON: its validated deal and its turns, still raw (each is checked on replay)."""

    deal: Deal
    turns: list


# ---------------------------------------------------------------------------
# Cards
# ---------------------------------------------------------------------------

def card_code(text, rules: Ruleset) -> int:
    """The code of a card text (case-insensitive, ``T`` for 10); CardError otherwise.

    Stricter than ``cards.parse_card``: surrounding white space is not repaired.
    """
    if not isinstance(text, str) or text != text.strip():
        raise CardError(f"not a card: {text!r}")
    return parse_card(text, rules)


def card_texts(codes: Iterable[int], rules: Ruleset) -> list:
    return [format_card(int(c), rules.letters) for c in codes]


# ---------------------------------------------------------------------------
# Reading
# ---------------------------------------------------------------------------

def _is_int(x) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def loads(text: Union[str, bytes]):
    """Parse one JSON value; MalformedRecord if it is not JSON."""
    if isinstance(text, (bytes, bytearray)):
        try:
            text = bytes(text).decode("utf-8-sig")
        except UnicodeDecodeError as e:
            raise MalformedRecord(f"not UTF-8 text: {e}") from None
    try:
        return json.loads(text, parse_constant=_no_constant, parse_int=_int)
    except (json.JSONDecodeError, ValueError) as e:
        raise MalformedRecord(f"not valid JSON: {e}") from None
    except RecursionError:
        raise MalformedRecord("not valid JSON: nested too deeply") from None


def _no_constant(name):
    raise ValueError(f"{name} is not JSON")


def _int(text: str) -> int:
    """A JSON integer; one of more digits than any record holds is refused by its length (int() would say
    to raise Python's own limit)."""
    if len(text) > 30:
        raise ValueError(f"a number of {len(text):,} digits ({text[:12]}...): no field of a record is that long")
    return int(text)


def _cards(value, what: str, rules: Ruleset) -> tuple:
    if not isinstance(value, list):
        raise MalformedRecord(f"{what} must be a list of cards, got {_short(value)}")
    out = []
    for i, text in enumerate(value):
        try:
            out.append(card_code(text, rules))
        except CardError:
            raise MalformedRecord(f"unknown card {_short(text)} in {what} (position {i + 1}) "
                                  f"for the ruleset {rules.describe()}") from None
    return tuple(out)


def _short(value) -> str:
    """A value as JSON text, cut to 60 characters, for messages."""
    try:
        r = json.dumps(value)
    except (TypeError, ValueError, RecursionError):
        r = repr(value)
    return r if len(r) <= 60 else r[:57] + "..."


def read_deal(rec) -> Deal:
    """Validate everything of a record but its turns (SPEC §5.1); MalformedRecord says what is wrong."""
    if not isinstance(rec, dict):
        raise MalformedRecord(f"a record must be a JSON object, got {_short(rec)}")
    if "format" not in rec:
        raise MalformedRecord(f"the record has no \"format\" (expected \"{RECORD_FORMAT}\")")
    if rec["format"] != RECORD_FORMAT:
        raise MalformedRecord(f"unknown format {_short(rec['format'])} (expected \"{RECORD_FORMAT}\")")
    if "players" not in rec:
        raise MalformedRecord("the record has no \"players\"")
    players = rec["players"]
    if not _is_int(players) or players not in (1, 2, 4):
        raise MalformedRecord(f"players must be 1, 2 or 4, got {_short(players)}")
    if "rules" not in rec:
        raise MalformedRecord("the record has no \"rules\"")
    try:
        rules = from_record(rec["rules"], players)
    except RulesError as e:
        raise MalformedRecord(f"bad rules: {e}") from None
    first = rec.get("first", 0)
    if not _is_int(first) or not 0 <= first < players:
        raise MalformedRecord(f"first must be a seat, 0..{players - 1}, got {_short(first)}")

    if "hands" not in rec:
        raise MalformedRecord("the record has no \"hands\"")
    hands = rec["hands"]
    if not isinstance(hands, list) or len(hands) != players:
        raise MalformedRecord(f"hands must be a list of {players} hand(s), got {_short(hands)}")
    hands = tuple(_cards(h, f"hand {seat}", rules) for seat, h in enumerate(hands))
    if "deck" not in rec:
        raise MalformedRecord("the record has no \"deck\"")
    deck = _cards(rec["deck"], "the deck", rules)
    aside = None
    if "aside" in rec:
        if players != 1:
            raise MalformedRecord("only a solitaire record may have \"aside\"")
        aside = _cards(rec["aside"], "the aside", rules)

    full = Counter(deck_codes(rules))
    dealt = Counter(c for h in hands for c in h) + Counter(deck) + Counter(aside or ())
    for code, n in sorted(dealt.items()):
        if n > full[code]:
            copies = "once" if full[code] == 1 else f"{full[code]} times"
            raise MalformedRecord(f"{format_card(code, rules.letters)} is dealt {n} times; "
                                  f"the deck has it {copies}")
    for seat, h in enumerate(hands):
        if len(h) != rules.hand_size:
            raise MalformedRecord(f"hand {seat} holds {len(h)} cards; the ruleset deals {rules.hand_size}")
    n = sum(full.values())
    in_play = len(deck) + sum(len(h) for h in hands)
    if players == 1:
        if in_play != n - aside_count(1, n):
            raise MalformedRecord(f"solitaire plays half the deck: hand and deck must hold {n - aside_count(1, n)} "
                                  f"cards, they hold {in_play}")
        if aside is not None and len(aside) != aside_count(1, n):
            raise MalformedRecord(f"the aside must hold the other half of the deck, {aside_count(1, n)} cards, "
                                  f"it holds {len(aside)}")
    elif in_play != n:
        raise MalformedRecord(f"the hands and the deck must be the full deck of {n} cards, they hold {in_play}")

    return Deal(rules=rules, players=players, first=first, hands=hands, deck=deck, aside=aside)


def read_record(value) -> Record:
    """A record (a dict, or JSON text) as a validated Deal and its raw turns; MalformedRecord if wrong."""
    rec = loads(value) if isinstance(value, (str, bytes, bytearray)) else value
    deal = read_deal(rec)
    if "turns" not in rec:
        raise MalformedRecord("the record has no \"turns\"")
    if not isinstance(rec["turns"], list):
        raise MalformedRecord(f"turns must be a list, got {_short(rec['turns'])}")
    return Record(deal=deal, turns=rec["turns"])


def split_records(text: Union[str, bytes]) -> list:
    """The records of a file (SPEC §5.1): one JSON value is one record, else one per non-blank line.

    Each item is a parsed JSON object, or a MalformedRecord for a line that is not one (SPEC §5.1: a
    JSON string holding a record, double-encoded, is not a record either: nothing is repaired).
    """
    return [v if isinstance(v, (dict, MalformedRecord))
            else MalformedRecord(f"a record must be a JSON object, got {_kind(v)} {_short(v)}")
            for v in _split_values(text)]


def _kind(v) -> str:
    return {str: "a string", list: "an array", bool: "a boolean", type(None): "null"}.get(
        type(v), "a number")


def _split_values(text: Union[str, bytes]) -> list:
    """The JSON values of a file: the whole of it if it parses, else one per non-blank line."""
    if isinstance(text, (bytes, bytearray)):
        try:
            text = bytes(text).decode("utf-8-sig")
        except UnicodeDecodeError as e:
            return [MalformedRecord(f"not UTF-8 text: {e}")]
    try:
        return [loads(text)]
    except MalformedRecord:
        pass
    out = []
    for line in text.splitlines():
        if not line.strip():
            continue
        try:
            out.append(loads(line))
        except MalformedRecord as e:
            out.append(e)
    if not out:
        out.append(MalformedRecord("the file holds no record"))
    return out


# ---------------------------------------------------------------------------
# Turns
# ---------------------------------------------------------------------------

def move_of_turn(turn, rules: Ruleset):
    """The Play or Pass a record's turn describes; IllegalMove (not MalformedRecord) if it is not one.

    Solitaire: a missing ``draw`` is ``None`` (the deck while it lasts).
    """
    if not isinstance(turn, dict):
        raise IllegalMove('a turn must be an object with "play", "to" and "draw", or "pass"; '
                          f"got {_short(turn)}")
    if "pass" in turn:
        extra = sorted(set(turn) - {"pass"})
        if extra:
            raise IllegalMove(f"a pass turn holds only \"pass\", not also {', '.join(map(json.dumps, extra))}")
        cards = turn["pass"]
        if rules.players != 4:
            raise IllegalMove("only a 4-player game allows a pass")
        if not isinstance(cards, list):
            raise IllegalMove(f"a pass lists 2 cards, got {_short(cards)}")
        if len(cards) != 2:
            raise IllegalMove(f"a pass hands exactly 2 cards to the partner, not {len(cards)}")
        codes = []
        for text in cards:
            try:
                codes.append(card_code(text, rules))
            except CardError:
                raise IllegalMove(f"{_short(text)} is not a card of this ruleset") from None
        return Pass(tuple(codes))
    if "play" not in turn:
        raise IllegalMove(f"a turn must have \"play\" (or \"pass\"), got {_short(turn)}")
    extra = sorted(set(turn) - TURN_KEYS)
    if extra:
        raise IllegalMove(f"unknown key(s) {', '.join(map(json.dumps, extra))} in a play turn")
    try:
        card = card_code(turn["play"], rules)
    except CardError:
        raise IllegalMove(f"{_short(turn['play'])} is not a card of this ruleset") from None
    if "to" not in turn:
        raise IllegalMove("the turn does not say where the card goes (\"to\" is missing)")
    to = turn["to"]
    if not isinstance(to, str) or to not in ("expedition", "discard"):
        raise IllegalMove(f"a card goes to \"expedition\" or \"discard\", not {_short(to)}")
    if "draw" not in turn:
        if rules.players == 1:
            return Play(card, to, None)
        raise IllegalMove("the turn does not say where it draws from (\"draw\" is missing)")
    draw = turn["draw"]
    if draw == "deck" and isinstance(draw, str):
        return Play(card, to, "deck")
    if isinstance(draw, str) and len(draw) == 1 and draw.upper() in rules.letters:
        if rules.players == 1:
            raise IllegalMove("solitaire draws only off the deck, never off a discard pile")
        return Play(card, to, rules.letters.index(draw.upper()))
    raise IllegalMove(f"a card is drawn off \"deck\" or a discard pile ({', '.join(rules.letters)}), "
                      f"not {_short(draw)}")


# ---------------------------------------------------------------------------
# Writing
# ---------------------------------------------------------------------------

def dumps(record: dict) -> str:
    """A record as one line of JSON (no trailing newline); a record is a JSON object of finite numbers."""
    if not isinstance(record, dict):
        raise MalformedRecord(f"a record must be a dict (a JSON object), got {_kind(record)} {_short(record)}")
    try:
        return json.dumps(record, separators=(", ", ": "), ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError) as e:        # NaN or infinity, a value JSON has no form for
        raise MalformedRecord(f"a record holds a value JSON cannot write (NaN, infinity or not JSON): {e}") from None


def write_jsonl(records: Iterable[dict], out: Union[str, "os.PathLike", "IO[str]"]) -> int:
    """Write records as JSON Lines to a path or an open text file; returns how many were written."""
    if isinstance(out, (str, os.PathLike)):
        lines = [dumps(rec) + "\n" for rec in records]          # every record checked before the file is made
        try:
            with open(out, "w", encoding="utf-8") as f:
                f.writelines(lines)
        except OSError as e:
            raise OutputError(f"cannot write {shown_path(out)}: {e.strerror or e}") from None
        return len(lines)
    if not hasattr(out, "write"):
        raise BadArgument(f"out = {repr(out)[:40]} is not allowed: a path or an open text file")
    n = 0
    for rec in records:
        out.write(dumps(rec) + "\n")
        n += 1
    return n


def read_jsonl(path: Union[str, "os.PathLike"]) -> list:
    """The records of a file (see ``split_records``); a path, not a file descriptor."""
    if not isinstance(path, (str, os.PathLike)):
        raise BadArgument(f"path = {repr(path)[:40]} is not allowed: a file's path")
    try:
        with open(path, "rb") as f:
            return split_records(f.read())
    except OSError as e:
        raise BadArgument(f"cannot read {shown_path(path)}: {e.strerror or e}") from None
