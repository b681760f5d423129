"""Rulesets (SPEC §1): a small immutable value, two presets, every parameter overridable.

``rules("expeditions", hand_size=8)`` builds one; a value out of range raises
``RulesError`` whose message names the parameter and what is allowed.
"""
from __future__ import annotations

import dataclasses
import json
import re
from dataclasses import dataclass
from numbers import Integral

from lostcards.errors import RulesError, huge_int_text
from lostcards.rules.cards import FAMILY_LETTERS, SLOTS, deck_codes
from lostcards.rules.parameters import PARAMETERS


@dataclass(frozen=True)
class Ruleset:
    """Every parameter of one game variant; see SPEC §1 for their meaning."""

    preset: str = "expeditions"
    suits: int = 4
    numbers: tuple = tuple(range(2, 11))
    investments: int = 3
    hand_size: int = 6
    cost: int = 20
    bonus_cards: int = 6
    bonus_points: int = 20
    stall_limit: int = 8
    extra_low: tuple = (2, 3, 4)
    pass_min_hand: int = 6
    pass_twice: bool = False
    turn_cap: int = 0
    players: int = 2
    rounds: int = 3

    # -- derived -----------------------------------------------------------
    @property
    def letters(self) -> str:
        """The suit letters in play, in order."""
        return FAMILY_LETTERS[self.preset][: self.suits]

    @property
    def deck_size(self) -> int:
        return len(deck_codes(self))

    @property
    def sides(self) -> int:
        return 1 if self.players == 1 else 2

    def checked(self) -> "Ruleset":
        """This ruleset, validated once (then marked so): one built by hand reaches the API unchecked, and a
        card or a score asked of it checks it on the way."""
        if not self.__dict__.get("_valid"):
            validate(self)
            object.__setattr__(self, "_valid", True)       # not a field: equality, hash and replace ignore it
        return self

    def with_(self, **overrides) -> "Ruleset":
        """A copy with some parameters changed, validated."""
        return make_rules(self, overrides)

    def overrides(self) -> dict:
        """The parameters that differ from this ruleset's preset."""
        base = PRESETS[self.preset]
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)
                if f.name != "preset" and getattr(self, f.name) != getattr(base, f.name)}

    def to_record(self):
        """The `rules` value of a round record: the preset name, or an object with overrides."""
        over = {k: (list(v) if isinstance(v, tuple) else v) for k, v in self.overrides().items()
                if k not in ("players",)}
        if not over:
            return self.preset
        return {"preset": self.preset, **over}

    def describe(self) -> str:
        over = self.overrides()
        over.pop("players", None)
        if not over:
            return self.preset
        return self.preset + "(" + ", ".join(f"{k}={format_value(v)}" for k, v in over.items()) + ")"

    def params(self):
        """The ruleset as a small int64 array: a key for it, and a sweep cell's ``params`` record
        (``NUMBERED``, a slot mask for a list, then the deck's size and the count of numbers)."""
        import numpy as np  # here, so that `import lostcards` needs no numpy
        vals = [PARAMETERS[n].obs_value(getattr(self, n)) for n in NUMBERED]
        return np.array([*vals, self.deck_size, len(self.numbers)], dtype=np.int64)


# the order of Ruleset.params() (sweep cells record it; keep it)
NUMBERED = ("suits", "investments", "hand_size", "cost", "bonus_cards", "bonus_points", "stall_limit",
            "pass_min_hand", "pass_twice", "turn_cap", "players", "numbers", "extra_low")


def format_value(v) -> str:
    """A parameter value as the command line writes it: ``2,3,4``, ``true``, ``8``."""
    if isinstance(v, tuple):
        return ",".join(map(str, v))
    return str(v).lower() if isinstance(v, bool) else str(v)


PRESETS = {
    "expeditions": Ruleset(),
    "lost-cities": Ruleset(preset="lost-cities", suits=5, hand_size=8, bonus_cards=8,
                           stall_limit=0, pass_min_hand=8, pass_twice=True, turn_cap=2000),
}

INT_TEXT = re.compile(r"[+-]?[0-9]+")
MAX_DIGITS = 30


def shorten(text, width: int = 24) -> str:
    """A value as a message shows it: cut to `width` characters, saying how long it was (an integer of
    thousands of digits by its size: Python will not turn it into text)."""
    huge = huge_int_text(text)
    if huge:
        return huge
    try:
        t = text if isinstance(text, str) else repr(text)
    except ValueError:                  # e.g. a list holding an integer of thousands of digits
        return f"a {type(text).__name__} too long to show"
    return t if len(t) <= width else f"{t[:width - 12]}... ({len(t):,} characters)"


def _shown(value) -> str:
    """A value a user gave, as a message shows it: text quoted, anything cut (``shorten``)."""
    return shorten(repr(value) if isinstance(value, str) else value)


def parse_int(text, what: str, allowed: str, error=RulesError) -> int:
    """An integer from text (digits, an optional sign) or an int; `error` names `what` and `allowed` otherwise.

    Huge values are refused from their length, before Python turns thousands of digits into a number.
    """
    if isinstance(text, bool):
        raise error(f"{what} = {text!r} is not allowed: {allowed}")
    if isinstance(text, Integral):
        return int(text)
    if isinstance(text, str) and INT_TEXT.fullmatch(text.strip()):
        t = text.strip()
        if len(t.lstrip("+-").lstrip("0")) > MAX_DIGITS:
            raise error(f"{what} = {shorten(t)} is not allowed: {allowed}")
        return int(t)
    shown = shorten(text)
    raise error(f"{what} = {shown} is not allowed: {allowed}{'' if 'integer' in allowed else ' (an integer)'}")


def check_int(what: str, value, lo: int, hi: int | None, why: str = "", error=RulesError, text: bool = True) -> int:
    """`value` as an int in lo..hi; `error` says the bound and `why` otherwise (used for every count a user gives).

    text=False (the Python API): only an int is an int, not the text of one.
    """
    allowed = f"an integer {lo:,}..{hi:,}" if hi is not None else f"an integer >= {lo:,}"
    allowed += f" {why}" if why else ""
    if not text and isinstance(value, str):
        raise error(f"{what} = {_shown(value)} is not allowed: {allowed} (an int, not text)")
    v = parse_int(value, what, allowed, error)
    if v < lo or (hi is not None and v > hi):
        raise error(f"{what} = {shorten(v)} is not allowed: {allowed}")
    return v


def _as_int(name, value):
    return parse_int(value, name, PARAMETERS[name].meaning)


def _as_ints(name, value):
    meaning = PARAMETERS[name].meaning
    if isinstance(value, str):
        text = value.replace(" ", "")
        parts = [p for p in text.split(",") if p]
        if len(parts) == 1 and ".." in parts[0]:
            lo, hi = (parse_int(t, name, meaning + ", written a..b or a,b,c") for t in parts[0].split("..", 1))
            # checked before any range is built: 2..100000000 must not build a hundred million numbers
            if not (2 <= lo <= hi <= 10):
                raise RulesError(f"{name} = {shorten(text)} is not allowed: {meaning}"
                                 + (" (the range is empty: write low..high)" if lo > hi else ""))
            return tuple(range(lo, hi + 1))
        if len(parts) > 64:
            raise RulesError(f"{name} = {shorten(text)} is not allowed: {meaning}")
        return tuple(parse_int(p, name, meaning) for p in parts)
    if isinstance(value, (list, tuple)):
        if len(value) > 64:
            raise RulesError(f"{name} = {_shown(value)} is not allowed: {meaning}")
        return tuple(parse_int(v, name, meaning) for v in value)
    raise RulesError(f"{name} = {_shown(value)} is not allowed: {meaning} (a list of integers)")


def _as_bool(name, value):
    if isinstance(value, bool) or type(value).__name__ == "bool_":      # numpy's bool too
        return bool(value)
    if isinstance(value, str) and value.lower() in ("yes", "true", "1", "no", "false", "0"):
        return value.lower() in ("yes", "true", "1")
    raise RulesError(f"{name} = {shorten(value if isinstance(value, str) else repr(value))} is not allowed: "
                     "true or false")


_CONVERT = {"int": _as_int, "ints": _as_ints, "bool": _as_bool}


def convert(name: str, value):
    """One parameter's value from text or a Python value (``"2..8"`` -> ``(2, ..., 8)``); RulesError if it is none."""
    if name not in PARAMETERS:
        raise RulesError(f"unknown rule parameter {name!r} (known: {', '.join(PARAMETERS)})")
    return _CONVERT[PARAMETERS[name].kind](name, value)


def parse_overrides(items, option: str = "--set") -> dict:
    """``["hand_size=8", "numbers=2..8"]`` (the ``--set PARAM=VALUE`` options) -> ``{"hand_size": "8", ...}``.

    The values stay text (``rules`` converts and checks them); an item without
    ``=`` or an unknown parameter is refused, naming it.
    """
    out = {}
    for item in items:
        if "=" not in item:
            raise RulesError(f"{option} {item!r} must be PARAM=VALUE (parameters: {', '.join(PARAMETERS)})")
        k, v = (t.strip() for t in item.split("=", 1))
        if k not in PARAMETERS:
            what = f"unknown rule parameter {shorten(k, 30)!r}" if k else "no parameter before ="
            raise RulesError(f"{option} {shorten(item, 40)!r}: {what} (known: {', '.join(PARAMETERS)})")
        if k in out:
            raise RulesError(f"{option} {k} is given twice ({shorten(out[k])} and {shorten(v)}): "
                             "give each parameter once")
        out[k] = v
    return out


def build_rules(preset: str, sets=(), players: int | None = None) -> "Ruleset":
    """The ruleset of the command-line options ``--rules PRESET --set PARAM=VALUE ... --players N``."""
    overrides = parse_overrides(sets)
    if players is not None:
        if "players" in overrides and overrides["players"] != str(players):
            raise RulesError(f"--players {players} and --set players={shorten(overrides['players'])} disagree: "
                             "give the number of players once")
        overrides["players"] = players
    r = text_rules(preset, overrides)
    if r.players == 4 and r.hand_size < r.pass_min_hand and "pass_min_hand" not in overrides:
        allows = (f"--set pass_min_hand=N (3..{r.hand_size}) allows passes, " if r.hand_size >= 3 else
                  "a pass needs a hand of 3 or more, so ")
        raise RulesError(f"hand_size = {r.hand_size} with 4 players is below {r.preset}'s pass_min_hand = "
                         f"{r.pass_min_hand}: no seat could ever pass; {allows}--set pass_min_hand="
                         f"{r.pass_min_hand} says no passing is meant")
    return r


def make_rules(base: Ruleset, overrides: dict) -> Ruleset:
    values = {}
    for name, value in overrides.items():
        if name not in PARAMETERS:
            raise RulesError(f"unknown rule parameter {name!r} (known: {', '.join(PARAMETERS)})")
        values[name] = _CONVERT[PARAMETERS[name].kind](name, value)
    if "numbers" in values and "extra_low" not in values:
        # fewer numbers: the extra copies follow them rather than refuse the tweak
        values["extra_low"] = tuple(n for n in base.extra_low if n in values["numbers"])
    r = dataclasses.replace(base, **values)
    validate(r)
    return r


def _check(ok, name, allowed, value):
    if not ok:
        try:
            shown = shorten(format_value(value))
        except ValueError:                  # an integer of thousands of digits: shown by its size
            shown = shorten(value if not isinstance(value, tuple) else list(value))
        raise RulesError(f"{name} = {shown} is not allowed: {allowed}")


def _suits(r):
    most = len(FAMILY_LETTERS[r.preset])
    _check(1 <= r.suits <= most, "suits", f"1..{most} for the {r.preset} family", r.suits)


def _numbers(r):
    p = PARAMETERS["numbers"]
    _check(len(r.numbers) >= 1 and p.ok(r.numbers) and len(set(r.numbers)) == len(r.numbers), "numbers",
           p.says(), r.numbers)
    object.__setattr__(r, "numbers", tuple(sorted(r.numbers)))


def _bonus_cards(r):
    most = len(r.numbers) + r.investments
    _check(1 <= r.bonus_cards <= most, "bonus_cards", f"1..{most} (numbers + investments)", r.bonus_cards)


def _extra_low(r):
    _check(len(set(r.extra_low)) == len(r.extra_low) and set(r.extra_low) <= set(r.numbers),
           "extra_low", PARAMETERS["extra_low"].says(), r.extra_low)
    object.__setattr__(r, "extra_low", tuple(sorted(r.extra_low)))


def _turn_cap(r):
    _check(PARAMETERS["turn_cap"].ok(r.turn_cap), "turn_cap", PARAMETERS["turn_cap"].says(), r.turn_cap)
    _check(not (r.stall_limit == 0 and r.turn_cap == 0), "turn_cap",
           "at least 1 when stall_limit is 0 (a round might never end)", r.turn_cap)


def _hand_size(r):
    n = r.deck_size
    if (n // 2 if r.players == 1 else (n - 1) // r.players) < 1:     # not even a card a hand: the deck is short
        raise RulesError(f"the deck holds {n} card{'s' if n != 1 else ''}: too "
                         f"few for {r.players} hand{'s' if r.players != 1 else ''} and a draw pile; add suits, "
                         "numbers or investments")
    if r.players == 1:
        half = n // 2
        _check(1 <= r.hand_size <= min(30, half), "hand_size",
               f"1..{min(30, half)} (solitaire: the hand must fit in half the deck of {n})", r.hand_size)
    else:
        most = min(30, (n - 1) // r.players)
        _check(1 <= r.hand_size <= most, "hand_size",
               f"1..{most} ({r.players} hands must leave a draw pile from {n} cards)", r.hand_size)


# what a parameter's own range cannot say; hand_size is checked last (it needs the deck: every other parameter)
_FURTHER = {"suits": _suits, "numbers": _numbers, "bonus_cards": _bonus_cards, "extra_low": _extra_low,
            "turn_cap": _turn_cap, "hand_size": lambda r: None}


def validate(r: Ruleset) -> None:
    """Refuse a ruleset that makes no sense, naming the first bad parameter (in the table's order)."""
    if not isinstance(r.preset, str) or r.preset not in PRESETS:
        raise RulesError(f"preset = {shorten(r.preset)} is not allowed: one of {', '.join(PRESETS)}")
    for name, p in PARAMETERS.items():
        if name in _FURTHER:
            _FURTHER[name](r)
        else:
            _check(p.ok(getattr(r, name)), name, p.says(), getattr(r, name))
    _hand_size(r)
    _check(r.suits * SLOTS <= 72, "suits", "at most 6", r.suits)


def rules(preset: str = "expeditions", **overrides) -> Ruleset:
    """A ruleset: a preset (``expeditions`` or ``lost-cities``) with parameters overridden.

    >>> rules("expeditions", hand_size=8).hand_size
    8
    """
    for name, value in overrides.items():     # the Python API takes values, not their text (as play() does)
        if isinstance(value, str) and name in PARAMETERS and PARAMETERS[name].kind != "ints":
            raise RulesError(f"{name} = {_shown(value)} is not allowed: {PARAMETERS[name].meaning} "
                             f"({'true or false' if PARAMETERS[name].kind == 'bool' else 'an int'}, not text)")
    return text_rules(preset, overrides)


def parse_table_list(text: str, option: str = "--rules", players=(1, 2, 4), error=RulesError) -> tuple:
    """'expeditions/2,lost-cities/4' -> ('expeditions/2', 'lost-cities/4'), each a preset and a player count
    among `players` (PRESET alone: 2 players); an empty entry, an empty or foreign count, an unknown preset
    and a table named twice are refused in one line (`error`)."""
    example = "e.g. " + ",".join(f"expeditions/{p}" for p in players)
    out = []
    for item in (t.strip() for t in str(text).split(",")):
        if not item:
            raise error(f"{option} {shorten(text, 40)!r} has an empty entry: PRESET/PLAYERS separated by commas "
                        f"({example})")
        preset, slash, p = item.partition("/")
        if preset not in PRESETS:
            raise error(f"{option} {shorten(item, 40)!r}: unknown preset {shorten(preset, 30)!r} (presets: "
                        f"{', '.join(PRESETS)})")
        count = p if slash else "2"
        if not (count.isascii() and count.isdigit() and len(count) <= 2 and int(count) in players):
            allowed = ", ".join(map(str, players[:-1])) + f" or {players[-1]}" if len(players) > 1 else str(players[0])
            raise error(f"{option} {shorten(item, 40)!r}: the players {shorten(count, 10)!r} must be {allowed} "
                        f"(PRESET/PLAYERS, {example})")
        name = f"{preset}/{int(count)}"
        if name in out:
            raise error(f"{option} names {name} twice: give each table once")
        out.append(name)
    return tuple(out)


def table_rules(name: str) -> Ruleset:
    """The ruleset of a table ``parse_table_list`` gave ('lost-cities/4': that preset for 4 players)."""
    preset, _, p = name.partition("/")
    return make_rules(PRESETS[preset], {"players": int(p) if p else 2})


def text_rules(preset, overrides: dict) -> Ruleset:
    """``rules`` with values that may also be text, as the command line gives them (``--set hand_size=7``)."""
    if isinstance(preset, Ruleset):
        return make_rules(preset, overrides)
    if not isinstance(preset, str):
        raise RulesError(f"rules = {shorten(repr(preset))} is not allowed: a preset name "
                         f"({', '.join(PRESETS)}) or a Ruleset; overrides go as keywords, "
                         "e.g. lostcards.rules('expeditions', hand_size=7)")
    if preset not in PRESETS:
        raise RulesError(f"unknown ruleset {shorten(preset)!r} (presets: {', '.join(PRESETS)})")
    return make_rules(PRESETS[preset], overrides)


def _as_written(value) -> str:
    """A record's value in a message as the record wrote it (JSON text: null, true, "x"), cut short."""
    try:
        text = json.dumps(value)
    except (TypeError, ValueError, RecursionError):
        return shorten(value, 40)
    return shorten(text, 40)


def from_record(value, players: int) -> Ruleset:
    """The ruleset of a record's `rules` value (SPEC §5.1); RulesError if malformed."""
    if isinstance(value, str):
        r = rules(value)
    elif isinstance(value, dict):
        value = dict(value)
        preset = value.pop("preset", "expeditions")
        if not isinstance(preset, str):
            raise RulesError(f"rules.preset must be a preset name, got {_as_written(preset)}")
        if "players" in value and value["players"] != players:
            raise RulesError(f"rules.players = {_as_written(value['players'])} differs from the record's "
                             f"players = {players}")
        for k, v in value.items():
            if k not in PARAMETERS:
                raise RulesError(f"unknown rule parameter {_as_written(k)} in the record's rules")
            kind = PARAMETERS[k].kind
            if kind == "ints" and (not isinstance(v, list)
                                   or any(isinstance(x, bool) or not isinstance(x, int) for x in v)):
                raise RulesError(f"rules.{k} must be a list of integers, got {_as_written(v)}")
            if kind == "int" and (isinstance(v, bool) or not isinstance(v, int)):
                raise RulesError(f"rules.{k} must be an integer, got {_as_written(v)}")
            if kind == "bool" and not isinstance(v, bool):
                raise RulesError(f"rules.{k} must be true or false, got {_as_written(v)}")
        value["players"] = players
        r = rules(preset, **value)
    else:
        raise RulesError(f"rules must be a preset name or an object, got {_as_written(value)}")
    return r.with_(players=players) if r.players != players else r
