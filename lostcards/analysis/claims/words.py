"""Numbers in words: how the report and the tip sheet write an estimate.

Every number a sentence shows is an estimate, interval end or declared value
of a row of ``claims.csv``, written by one of these functions, so that a
reader (and ``tests/test_claims.py``) can find it in the CSV.
"""
from __future__ import annotations

import math
from contextlib import contextmanager

from lostcards.analysis.claims.verdict import AT_EDGE, FAILS, HARMFUL, HOLDS, NO_EFFECT, UNDECIDED

_NOTES = None


@contextmanager
def noting():
    """Record what the sentences written inside say of their rows (a sign, a verdict, a table), so that a
    test can check every one against ``claims.csv``: yields the list of notes."""
    global _NOTES
    old, _NOTES = _NOTES, []
    try:
        yield _NOTES
    finally:
        _NOTES = old


def _note(row, says: str, words: str = "") -> None:
    if _NOTES is not None and row is not None:
        _NOTES.append({"claim": row.claim, "measure": row.measure.name, "policy": row.policy, "table": row.table,
                       "says": says, "words": words})

TABLE_DIGITS = ((100, 0), (10, 1), (1, 2), (0, 3))     # |x| from .. : decimals, for tables
SENTENCE_DIGITS = ((10, 0), (1, 1), (0, 2))             # ... for sentences


def _number(x: float, digits) -> str:
    a = abs(x)
    d = next(d for lo, d in digits if a >= lo)
    return f"{x:.{d}f}"


def fmt(x: float, unit: str = "") -> str:
    """A number as the report's tables write it (shares as percentages)."""
    if not math.isfinite(x):
        return "∞" if x == math.inf else ("-∞" if x == -math.inf else "–")
    return f"{100 * x:.1f}%" if unit == "share" else _number(x, TABLE_DIGITS)


def short(x: float, unit: str = "") -> str:
    """A number as a sentence writes it: two or three figures (shares as whole percentages)."""
    if not math.isfinite(x):
        return "–"
    if unit == "share":
        p = 100 * x
        return f"{p:.0f}%" if abs(p) >= 10 else f"{p:.1f}%"
    return _number(x, SENTENCE_DIGITS)


def signed(x: float, unit: str = "") -> str:
    s = short(x, unit)
    return s if s.startswith("-") or s == "–" else "+" + s


def fmt_est(e, unit: str = "") -> str:
    """estimate [low, high]."""
    return f"{fmt(e.estimate, unit)} [{fmt(e.ci_low, unit)}, {fmt(e.ci_high, unit)}]"


def row_text(row, unit: str = "") -> str:
    """A row's estimate and interval, short, for a sentence."""
    if row is None:
        return "–"
    u = unit or row.measure.unit
    e = row.est
    text = f"{short(e.estimate, u)} [{short(e.ci_low, u)}, {short(e.ci_high, u)}]"
    _note(row, "value", text)
    return text


def value(row, unit: str = "", sign: bool = False) -> str:
    """A row's estimate alone, short."""
    if row is None:
        return "–"
    u = unit or row.measure.unit
    if sign:
        text = signed(row.est.estimate, u)
        _note(row, "-" if text.startswith("-") else "+", text)
        return text
    text = short(row.est.estimate, u)
    _note(row, "value", text)
    return text


def change(row, up: str = "gains", down: str = "loses", unit: str = "") -> str:
    """'gains 3.1' or 'loses 12' for a row's estimate (its size, in words that carry the sign)."""
    if row is None:
        return "–"
    x = row.est.estimate
    text = f"{up if x >= 0 else down} {short(abs(x), unit or row.measure.unit)}"
    _note(row, "+" if x >= 0 else "-", text)
    return text


def by_verdict(row, holds: str, fails: str, other: str, harmful: str | None = None,
               no_effect: str | None = None, too_few: str | None = None) -> str:
    """The words that fit a row's verdict (or, for a context row, the sign of its estimate): `harmful` and
    `no_effect` for a comparison that does not hold that way (default: `fails`); at the edge: the words of
    the way it leans, marked "(at the edge)"; undecided: `other` (`too_few` when its cause is too few
    games).  The words chosen are noted with the verdict that chose them (``noting``)."""
    if row is None:
        return other
    v = row.verdict or (HOLDS if row.est.estimate > 0 else FAILS)
    if v == AT_EDGE:
        lean = row.expect.plain(row.est.ci_low, row.est.ci_high)
        words = holds if lean == HOLDS else _failing_words(row, fails, harmful, no_effect)
        _note(row, "verdict:" + v, _core(words))
        _note(row, "lean:" + lean)
        return words[:-1] + " (at the edge)." if words.endswith(".") else words + " (at the edge)"
    if v == UNDECIDED:
        words = other if too_few is None or not getattr(row, "left_out", False) else too_few
        if getattr(row, "left_out", False):
            _note(row, "cause:" + row.cause)
    elif v == FAILS:
        words = _failing_words(row, fails, harmful, no_effect)
    else:
        words = holds
    _note(row, ("verdict:" + v) if row.verdict else ("sign:" + ("+" if v == HOLDS else "-")), _core(words))
    return words


def _core(words: str) -> str:
    """A phrase as it stands in any sentence it ends or starts ('', for punctuation alone)."""
    return words.strip().strip(":;.,()").strip()


def _failing_words(row, fails: str, harmful: str | None, no_effect: str | None) -> str:
    """`harmful` or `no_effect` for a comparison that fails that way (noted), else `fails`."""
    way = row.expect.way(row.est.ci_low, row.est.ci_high) if row.verdict else ""
    if way:
        _note(row, "way:" + way)
    if way == HARMFUL and harmful is not None:
        return harmful
    if way == NO_EFFECT and no_effect is not None:
        return no_effect
    return fails


def effect(row) -> str:
    """A deciding row's verdict in a few words ('the tip holds', 'does not hold: harmful', ...); context: ''."""
    if row is None or not row.verdict:
        return ""
    _note(row, "verdict:" + row.verdict)
    if row.verdict == HOLDS:
        return "the tip holds"
    if row.verdict == UNDECIDED and getattr(row, "left_out", False):
        _note(row, "cause:" + row.cause)
        return f"undecided ({row.cause})"
    way = row.expect.way(row.est.ci_low, row.est.ci_high) if row.verdict in (FAILS, AT_EDGE) else ""
    if way:
        _note(row, "way:" + way)
        return f"{row.verdict}: {way}"
    return row.verdict


PLACES = {"2p": "with 2 players", "4p-team": "for a 4-player team", "4p-seat": "for a seat of 4",
          "1p": "in solitaire", "lc": "under lost-cities"}


def across(res, measure: str, tables=("2p", "4p-team", "1p", "lc"), bot: str = "expert") -> str:
    """'X [lo, hi] points a round with 2 players, Y for a 4-player team, ... and Z under lost-cities'."""
    parts = [f"{row_text(res.get(measure, bot, t))} {PLACES[t]}" for t in tables if res.get(measure, bot, t)]
    if parts and parts[0].endswith(PLACES[tables[0]]):
        parts[0] = parts[0].replace(PLACES[tables[0]], "points a round " + PLACES[tables[0]])
    return join(parts)


PLACES_SHORT = {"4p-team": "for a four-player team", "1p": "in solitaire", "lc": "under lost-cities"}


def changes(res, measure: str, up: str = "gains", down: str = "loses", bot: str = "expert",
            tables=("2p", "4p-team", "lc")) -> str:
    """'loses 13 points a round with two players (loses 2.8 for a four-player team, loses 4.8 under
    lost-cities)' for a paired measure, over the tables it was measured in."""
    def c(t, place):
        row = res.get(measure, bot, t)
        text = f"{change(row, up, down)} {place}"
        _note(row, "table:" + t, text)
        v = effect(row)
        return text + (f": {v}" if v else "")
    rest = [c(t, PLACES_SHORT[t]) for t in tables[1:] if res.get(measure, bot, t)]
    return c(tables[0], "points a round with two players") + (f" ({'; '.join(rest)})" if rest else "")


def join(items, last: str = "and") -> str:
    items = [i for i in items if i]
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + f" {last} " + items[-1]
