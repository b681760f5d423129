"""The verdict rule: what a tip says, the smallest effect that matters, and four verdicts.

Every deciding measure declares, before anything is run, the region of values
in which the tip's statement is true (``Expect``): "about 18" is 18 +/- 10%;
"A beats B" is a margin of at least the smallest effect that matters; "over
40%" is at least 40% less the smallest effect.  An effect smaller than the
smallest effect is no effect, whichever side of zero it falls.  A row's
verdict compares its (simultaneous) interval with that region:

- holds: the whole interval lies inside the region;
- does not hold: the whole interval lies outside it;
- undecided: the interval straddles an edge (too wide to tell); the runner then
  plays more rounds, up to its budget.

A tip's verdict in one table (2 players, 4 players, ...) combines the verdicts
of its deciding rows there (``combine``); "partly" means some of its statements
hold and others do not.  The rule is ``row_verdict`` and ``combine``: pure
functions, tested branch by branch.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

HOLDS, PARTLY, FAILS, UNDECIDED = "holds", "partly", "does not hold", "undecided"
VERDICTS = (HOLDS, PARTLY, FAILS, UNDECIDED)
INF = math.inf
ALPHA = 0.05            # the family-wise error rate of the report's deciding intervals
ABOUT = 0.10            # "about X" holds within X +/- 10%


@dataclass(frozen=True)
class Expect:
    """The values for which a tip's statement is true: [low, high], with its smallest effect."""

    low: float
    high: float
    smallest_effect: float
    text: str
    value: float = math.nan          # the number the tip names, if it names one

    def verdict(self, ci_low: float, ci_high: float) -> str:
        return row_verdict(ci_low, ci_high, self.low, self.high)


def _g(x: float) -> str:
    return f"{x:g}"


def about(x: float, tol: float = ABOUT, text: str = "") -> Expect:
    """'about x': within x +/- tol x; a difference smaller than that does not matter."""
    d = abs(x) * tol
    return Expect(x - d, x + d, d, text or f"about {_g(x)} (±{tol:.0%}: {_g(x - d)} to {_g(x + d)})", x)


def gains(effect: float, unit: str = "points a round", text: str = "") -> Expect:
    """'A beats B': a margin of at least `effect` (the smallest effect that matters)."""
    return Expect(effect, INF, effect, text or f"a gain of at least {_g(effect)} {unit}", 0.0)


def at_least(x: float, effect: float, text: str = "") -> Expect:
    """'at least / over x': x less the smallest effect, or more."""
    return Expect(x - effect, INF, effect, text or f"at least {_g(x)} (less than {_g(effect)} short: no difference)", x)


def at_most(x: float, effect: float, text: str = "") -> Expect:
    """'at most / below x': up to x plus the smallest effect."""
    return Expect(-INF, x + effect, effect, text or f"at most {_g(x)} (less than {_g(effect)} over: no difference)", x)


def between(lo: float, hi: float, value: float, text: str = "") -> Expect:
    """A band the tip's words allow, e.g. 'barely pays its 20'."""
    return Expect(lo, hi, (hi - lo) / 2, text or f"between {_g(lo)} and {_g(hi)}", value)


def described(text: str = "a description: no verdict") -> Expect:
    """A context measure's 'expectation': none (it is shown, not judged)."""
    return Expect(-INF, INF, math.nan, text)


def row_verdict(ci_low: float, ci_high: float, low: float, high: float) -> str:
    """holds: [ci_low, ci_high] inside [low, high]; does not hold: entirely outside; else undecided.

    An interval that is not a number (too few observations) is undecided.
    """
    if not (math.isfinite(ci_low) and math.isfinite(ci_high)) or ci_low > ci_high:
        return UNDECIDED
    eps = 1e-9 * max(1.0, abs(ci_low), abs(ci_high))
    if low - eps <= ci_low and ci_high <= high + eps:
        return HOLDS
    if ci_high < low - eps or ci_low > high + eps:
        return FAILS
    return UNDECIDED


def combine(verdicts) -> str:
    """One verdict from several (a tip's statements in a table, or a tip's tables):

    all hold: holds; all fail: does not hold; some hold and some fail: partly
    (whatever else is undecided); otherwise (undecided among agreeing ones, or
    nothing to go on): undecided.  A "partly" counts as one that holds and one that fails.
    """
    vs = list(verdicts)
    h = sum(v in (HOLDS, PARTLY) for v in vs)
    f = sum(v in (FAILS, PARTLY) for v in vs)
    u = sum(v == UNDECIDED for v in vs)
    if h and f:
        return PARTLY
    if u or not vs:
        return UNDECIDED
    return HOLDS if h else FAILS


def simultaneous_level(rows: int, looks: int = 1, alpha: float = ALPHA) -> float:
    """Bonferroni: the level of each of `rows` x `looks` intervals for a family-wise error `alpha`."""
    return 1.0 - alpha / max(1, rows * looks)
