"""The verdict rule: what a tip says, its tolerance, and six verdict words, each meaning one thing.

Every deciding measure declares, before anything is run, the region of values
in which the tip's statement is true (``Expect``), with a tolerance (its
smallest effect) derived from the table's own rounds (``tolerance``): "about
18 plays" is 18 +/- one card; "A beats B" is a margin of at least the points
worth one percentage point of win rate; "over 40%" is at least 40% less one
card of the plays.  A row's verdict compares its (simultaneous) interval with
that region:

- **holds**: the whole interval lies inside the region, further from its edges
  than its own width;
- **does not hold**: the whole interval lies outside it, as far from its edges.
  A comparison also says which way (``Expect.way``): *harmful* when the whole
  interval lies below -e (doing what the tip says costs at least e), *no
  material effect* when it lies within [-e, e]; that is the row's cause, not
  another verdict;
- **at the edge**: it holds or does not, but within its own width of an edge,
  so a slightly different tolerance or seed could turn it;
- **undecided**: the interval straddles an edge; the runner then plays more
  rounds, up to the plan's most.  A strong bot's row still undecided there has
  *too few games* (its cause): it is left out of its statement
  (``LEFT_OUT``), which the other bots decide.

A statement in one table combines its bots' rows (``combine_bots``), a tip in
one table its statements (``combine``), a tip over its tables its tables'
verdicts (``across_tables``); where the parts come out differently the verdict
is **mixed** (the report names the parts: the bots, the statements, the
tables), and a tip no row tests is **not tested**.  The rules are pure
functions, tested branch by branch.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace

HOLDS, FAILS, AT_EDGE, UNDECIDED = "holds", "does not hold", "at the edge", "undecided"
MIXED, NOT_TESTED = "mixed", "not tested"
VERDICTS = (HOLDS, FAILS, AT_EDGE, UNDECIDED, MIXED, NOT_TESTED)   # every verdict word, one meaning each
ROW_VERDICTS = (HOLDS, FAILS, AT_EDGE, UNDECIDED)                  # what a single row can say
HARMFUL, NO_EFFECT = "harmful", "no material effect"  # which way a comparison does not hold (``Expect.way``)
TOO_FEW = "too few games"   # the cause of a strong bot's row undecided at its plan's most games
LEFT_OUT = "left out"       # such a row, as its statement's combination sees it: the other bots decide
FAILING = (FAILS, HARMFUL, NO_EFFECT)   # does not hold, with or without its way (``Expect.judged``)
INF = math.inf
ALPHA = 0.05            # the family-wise error rate of the report's deciding intervals


@dataclass(frozen=True)
class Expect:
    """The values for which a tip's statement is true: [low, high], with its smallest effect."""

    low: float
    high: float
    smallest_effect: float
    text: str
    value: float = math.nan          # the number the tip names, if it names one
    equivalence: bool = False        # a comparison: below it, tell "harmful" from "no material effect"
    edges: tuple = ()                # (low anchor, sign, high anchor, sign): the region at tolerance t is
    #                                  [anchor + sign t, ...] (nan: that side is open); () fixed
    basis: object = None             # a ``tolerance.Basis``: the tolerance is derived from the table's rounds
    #                                  (``felt``); None: the declared one

    def felt(self, feel) -> "Expect":
        """The statement with its tolerance derived from one table's rounds (``tolerance.Feel``); its text's
        {t}, {low} and {high} filled in.  A declared tolerance stays as it is."""
        if self.basis is None:
            return self
        if feel is None:
            raise ValueError(f"'{self.text}' derives its tolerance from the table's rounds: none given")
        t = float(self.basis.of(feel))
        e = self.at(t)
        return replace(e, text=self.text.format(t=_g3(t), low=_g3(e.low), high=_g3(e.high)))

    def at(self, t: float) -> "Expect":
        """The same statement with tolerance (smallest effect) `t` in place of its own."""
        if not self.edges:
            return self
        la, ls, ha, hs = self.edges
        low = -INF if math.isnan(la) else la + ls * t
        high = INF if math.isnan(ha) else ha + hs * t
        return replace(self, low=low, high=high, smallest_effect=t)

    def plain(self, ci_low: float, ci_high: float) -> str:
        """The verdict before the edge rule: holds, does not hold, or undecided (a comparison whose interval
        lies within [-e, e], touching e, does not hold: no material effect)."""
        v = row_verdict(ci_low, ci_high, self.low, self.high)
        return FAILS if v != HOLDS and self.way(ci_low, ci_high) else v

    def way(self, ci_low: float, ci_high: float) -> str:
        """Which way a comparison that does not hold fails: harmful (its interval wholly below -e), no
        material effect (wholly within [-e, e]), or '' (neither, or not a comparison)."""
        if not self.equivalence:
            return ""
        return effect_verdict(ci_low, ci_high, self.smallest_effect, "")

    def judged(self, ci_low: float, ci_high: float) -> str:
        """``plain``, with a comparison that does not hold named by its way (harmful, no material effect):
        one word for a report that keeps the way in its verdict column (the rule tweaks)."""
        return self.way(ci_low, ci_high) or self.plain(ci_low, ci_high)

    def verdict(self, ci_low: float, ci_high: float) -> str:
        """``plain``, except that an interval lying within its own width of an edge is at the edge (a
        statement with a tolerance; a fixed region, ``edges`` empty, keeps its plain verdict)."""
        v = self.plain(ci_low, ci_high)
        if self.edges and v in (HOLDS, FAILS) and self.edge_distance(ci_low, ci_high) < ci_high - ci_low:
            return AT_EDGE
        return v

    def edge_distance(self, ci_low: float, ci_high: float) -> float:
        """How far the interval lies from the nearest edge that can change its verdict (0: across one)."""
        marks = [x for x in (self.low, self.high) if math.isfinite(x)]
        return min((0.0 if ci_low <= x <= ci_high else min(abs(x - ci_low), abs(x - ci_high)) for x in marks),
                   default=INF)

    def flip(self, ci_low: float, ci_high: float) -> float:
        """The tolerance nearest the declared one at which the row's plain verdict changes (nan: never, or
        a fixed region)."""
        if not self.edges or not (math.isfinite(ci_low) and math.isfinite(ci_high)):
            return math.nan
        la, ls, ha, hs = self.edges
        cands = set()
        for anchor, sign in ((la, ls), (ha, hs)):
            if math.isnan(anchor) or math.isnan(sign) or sign == 0:
                continue
            for c in (ci_low, ci_high):
                t = (c - anchor) / sign
                if t > 0:
                    cands.add(t)
        t0 = self.smallest_effect
        now = self.plain(ci_low, ci_high)
        for t in sorted(cands, key=lambda t: abs(t - t0)):
            step = 1e-7 * max(1.0, abs(t))
            beyond = t + step if t >= t0 else t - step
            if beyond > 0 and self.at(beyond).plain(ci_low, ci_high) != now:
                return t
        return math.nan


def _g(x: float) -> str:
    return f"{x:g}"


def _g3(x: float) -> str:
    return f"{x:.3g}"


def _derived(e: Expect, basis) -> Expect:
    """`e` with its tolerance left to be derived from the table's rounds (``Expect.felt``)."""
    return replace(e, low=math.nan, high=math.nan, smallest_effect=math.nan, basis=basis)


def about(x: float, d: float = None, text: str = "", basis=None) -> Expect:
    """'about x': within x +/- d, d the tolerance (or derived from the table's rounds by `basis`); a
    difference smaller than that does not matter."""
    if basis is not None:
        return _derived(Expect(x, x, 0.0, text or f"about {_g(x)} (±{{t}}, {basis.short}: {{low}} to {{high}})", x,
                               edges=(x, -1.0, x, 1.0)), basis)
    if d is None:
        raise ValueError(f"about({x:g}) needs its tolerance: a band or a basis to derive it from")
    d = abs(float(d))
    return Expect(x - d, x + d, d, text or f"about {_g(x)} (±{_g(d)}: {_g(x - d)} to {_g(x + d)})", x,
                  edges=(x, -1.0, x, 1.0))


def gains(effect: float = None, unit: str = "points a round", text: str = "", basis=None) -> Expect:
    """'A beats B': a margin of at least `effect` (the smallest effect that matters), or of at least the
    tolerance `basis` derives from the table's rounds (``tolerance.WIN``: one percentage point of win rate)."""
    if basis is not None:
        return _derived(Expect(0.0, INF, 0.0, text or f"a gain of at least {{t}} {unit} ({basis.short})", 0.0,
                               equivalence=True, edges=(0.0, 1.0, math.nan, 0.0)), basis)
    if effect is None:
        raise ValueError("gains() needs its smallest effect: a number or a basis to derive it from")
    return Expect(effect, INF, effect, text or f"a gain of at least {_g(effect)} {unit}", 0.0, equivalence=True,
                  edges=(0.0, 1.0, math.nan, 0.0))


def at_least(x: float, effect: float = None, text: str = "", basis=None) -> Expect:
    """'at least / over x': x less the smallest effect (or the tolerance `basis` derives), or more."""
    if basis is not None:
        return _derived(Expect(x, INF, 0.0, text or f"at least {_g(x)} (less than {{t}} short, {basis.short}: "
                               "no difference)", x, edges=(x, -1.0, math.nan, 0.0)), basis)
    if effect is None:
        raise ValueError(f"at_least({x:g}) needs its smallest effect: a number or a basis to derive it from")
    return Expect(x - effect, INF, effect, text or f"at least {_g(x)} (less than {_g(effect)} short: no difference)", x,
                  edges=(x, -1.0, math.nan, 0.0))


def more_than(x: float, effect: float = None, text: str = "", basis=None) -> Expect:
    """'more than x': at least x plus the smallest effect (or the tolerance `basis` derives) — a difference
    the tip says is there, with no way of failing to tell apart (unlike ``gains``)."""
    if basis is not None:
        return _derived(Expect(x, INF, 0.0, text or f"more than {_g(x)} by at least {{t}} ({basis.short})", x,
                               edges=(x, 1.0, math.nan, 0.0)), basis)
    if effect is None:
        raise ValueError(f"more_than({x:g}) needs its smallest effect: a number or a basis to derive it from")
    return Expect(x + effect, INF, effect, text or f"more than {_g(x)} by at least {_g(effect)}", x,
                  edges=(x, 1.0, math.nan, 0.0))


def at_most(x: float, effect: float, text: str = "") -> Expect:
    """'at most / below x': up to x plus the smallest effect."""
    return Expect(-INF, x + effect, effect, text or f"at most {_g(x)} (less than {_g(effect)} over: no difference)", x,
                  edges=(math.nan, 0.0, x, 1.0))


def between(lo: float, hi: float, value: float, text: str = "") -> Expect:
    """A band the tip's words allow, e.g. 'barely pays its 20'."""
    mid = (lo + hi) / 2
    return Expect(lo, hi, (hi - lo) / 2, text or f"between {_g(lo)} and {_g(hi)}", value, edges=(mid, -1.0, mid, 1.0))


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


def effect_verdict(ci_low: float, ci_high: float, effect: float, plain: str) -> str:
    """A comparison that does not hold, told apart with the equivalence margin [-effect, effect]:
    harmful (wholly below -effect), no material effect (wholly within), else `plain`."""
    if not (math.isfinite(ci_low) and math.isfinite(ci_high)):
        return plain
    eps = 1e-9 * max(1.0, abs(ci_low), abs(ci_high))
    if ci_high < -effect - eps:
        return HARMFUL
    if -effect - eps <= ci_low and ci_high <= effect + eps:
        return NO_EFFECT
    return plain


def combine_bots(verdicts) -> str:
    """One statement in one table, over its bots: all the same: that verdict (at the edge beside holds or
    does not hold: at the edge); one bot holds and another does not: mixed (whatever else is undecided);
    otherwise undecided.  A bot left out (too few games) leaves the others to decide (all left out:
    undecided)."""
    given = list(verdicts)
    vs = [v for v in given if v != LEFT_OUT] or [UNDECIDED] * len(given)
    if (HOLDS in vs and FAILS in vs) or MIXED in vs:
        return MIXED
    if UNDECIDED in vs or not vs:
        return UNDECIDED
    if AT_EDGE in vs:
        return AT_EDGE
    return vs[0]


def combine(verdicts) -> str:
    """One verdict from a tip's statements in one table: all hold: holds; all fail: does not hold; some
    hold and some do not, or a statement's bots disagree: mixed (whatever else is undecided); otherwise
    (undecided among agreeing ones, or nothing to go on): undecided; at the edge beside agreeing ones: at
    the edge.  A statement left out (its only bot has too few games) stays left out, and is left out
    beside other verdicts."""
    given = list(verdicts)
    vs = [v for v in given if v != LEFT_OUT]
    if given and not vs:
        return LEFT_OUT
    if (HOLDS in vs and FAILS in vs) or MIXED in vs:
        return MIXED
    if UNDECIDED in vs or not vs:
        return UNDECIDED
    if AT_EDGE in vs:
        return AT_EDGE
    return vs[0]


def across_tables(verdicts) -> str:
    """A tip's verdict over its tables: the tables' verdict when they agree, else mixed (the report says
    which table gives what); no table decided: not tested."""
    vs = list(verdicts)
    if not vs:
        return NOT_TESTED
    return vs[0] if len(set(vs)) == 1 else MIXED


def simultaneous_level(rows: int, looks: int = 1, alpha: float = ALPHA) -> float:
    """Bonferroni: the level of each of `rows` x `looks` intervals for a family-wise error `alpha`."""
    return 1.0 - alpha / max(1, rows * looks)
