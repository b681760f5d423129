"""The verdict rule: what a tip says, the smallest effect that matters, and four verdicts.

Every deciding measure declares, before anything is run, the region of values
in which the tip's statement is true (``Expect``): "about 18" is 18 +/- 10%;
"A beats B" is a margin of at least the smallest effect that matters; "over
40%" is at least 40% less the smallest effect.  An effect smaller than the
smallest effect is no effect, whichever side of zero it falls.  A row's
verdict compares its (simultaneous) interval with that region:

- holds: the whole interval lies inside the region;
- does not hold: the whole interval lies outside it.  A comparison ("A beats
  B by at least e") says which way it fails, with the smallest effect e as the
  equivalence margin: **harmful** when the whole interval lies below -e (doing
  what the tip says costs at least e), **no material effect** when it lies
  within [-e, e]; "does not hold" is left for an interval below e that spans -e;
- undecided: the interval straddles an edge (too wide to tell); the runner then
  plays more rounds, up to the plan's most rounds.

A statement's verdict in one table combines its bots' rows (``combine_bots``):
when one bot's rows hold and another's do not, the **bots disagree**.  A tip's
verdict in one table combines its statements (``combine``): **partly** means
some of its statements hold and others do not.  Across tables, a tip whose
tables disagree **varies by table** (``across_tables``).  The rules are pure
functions, tested branch by branch.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace

HOLDS, PARTLY, FAILS, UNDECIDED = "holds", "partly", "does not hold", "undecided"
HARMFUL, NO_EFFECT = "harmful", "no material effect"
BOTS_DISAGREE, BY_TABLE, NOT_TESTED = "bots disagree", "varies by table", "not tested"
AT_EDGE = "at the edge"      # holds or fails, but the interval lies within its own width of an edge
TOO_FEW = "too few games"   # a strong bot's row still undecided at its plan's cap: the other bots decide
ROW_VERDICTS = (HOLDS, HARMFUL, NO_EFFECT, FAILS, AT_EDGE, UNDECIDED, TOO_FEW)  # what a single row can say
FAILING = (FAILS, HARMFUL, NO_EFFECT)                                  # the ways a statement does not hold
VERDICTS = (HOLDS, PARTLY, BOTS_DISAGREE, HARMFUL, NO_EFFECT, FAILS, BY_TABLE, AT_EDGE, UNDECIDED, NOT_TESTED,
            TOO_FEW)
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
        """The verdict before the edge rule: holds, a way of failing, or undecided."""
        v = row_verdict(ci_low, ci_high, self.low, self.high)
        if self.equivalence and v != HOLDS:
            return effect_verdict(ci_low, ci_high, self.smallest_effect, v)
        return v

    def verdict(self, ci_low: float, ci_high: float) -> str:
        """``plain``, except that an interval lying within its own width of an edge is at the edge (a
        statement with a tolerance; a fixed region, ``edges`` empty, keeps its plain verdict)."""
        v = self.plain(ci_low, ci_high)
        if self.edges and v in (HOLDS, *FAILING) and self.edge_distance(ci_low, ci_high) < ci_high - ci_low:
            return AT_EDGE
        return v

    def edge_distance(self, ci_low: float, ci_high: float) -> float:
        """How far the interval lies from the nearest edge that can change its verdict (0: across one)."""
        marks = [x for x in (self.low, self.high) if math.isfinite(x)]
        if self.equivalence and math.isfinite(self.smallest_effect):
            marks += [-self.smallest_effect, self.smallest_effect]
        return min((0.0 if ci_low <= x <= ci_high else min(abs(x - ci_low), abs(x - ci_high)) for x in marks),
                   default=INF)

    def flip(self, ci_low: float, ci_high: float) -> float:
        """The tolerance nearest the declared one at which the row's plain verdict changes (nan: never, or
        a fixed region)."""
        if not self.edges or not (math.isfinite(ci_low) and math.isfinite(ci_high)):
            return math.nan
        la, ls, ha, hs = self.edges
        cands = set()
        for anchor, sign in ((la, ls), (ha, hs), (0.0, -1.0 if self.equivalence else math.nan),
                             (0.0, 1.0 if self.equivalence else math.nan)):
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
    if plain == UNDECIDED and not (math.isfinite(ci_low) and math.isfinite(ci_high)):
        return UNDECIDED
    eps = 1e-9 * max(1.0, abs(ci_low), abs(ci_high))
    if ci_high < -effect - eps:
        return HARMFUL
    if -effect - eps <= ci_low and ci_high <= effect + eps:
        return NO_EFFECT
    return plain


def _failing(vs) -> str:
    """Several ways of not holding as one: the same one, or plain "does not hold"."""
    kinds = set(vs)
    return kinds.pop() if len(kinds) == 1 else FAILS


def combine_bots(verdicts) -> str:
    """One statement in one table, over its bots: all hold: holds; all fail: how they fail; one bot holds
    and another fails: the bots disagree (whatever else is undecided); otherwise undecided.  A bot with
    too few games is left out while another bot has a verdict (all too few: undecided)."""
    given = list(verdicts)
    vs = [v for v in given if v != TOO_FEW] or [UNDECIDED] * len(given)
    h = [v for v in vs if v == HOLDS]
    f = [v for v in vs if v in FAILING]
    if (h and f) or BOTS_DISAGREE in vs:
        return BOTS_DISAGREE
    if any(v == UNDECIDED for v in vs) or not vs:
        return UNDECIDED
    if AT_EDGE in vs:
        return AT_EDGE
    return HOLDS if h else _failing(f)


def combine(verdicts) -> str:
    """One verdict from a tip's statements in one table:

    all hold: holds; all fail: how they fail; some hold and some fail: partly
    (whatever else is undecided); else a statement whose bots disagree: bots
    disagree; otherwise (undecided among agreeing ones, or nothing to go on):
    undecided.  A "partly" counts as one that holds and one that fails.  Too few games (a strong bot's
    rows) stays too few games, and is left out beside other verdicts.
    """
    given = list(verdicts)
    vs = [v for v in given if v != TOO_FEW]
    if given and not vs:
        return TOO_FEW
    h = sum(v in (HOLDS, PARTLY) for v in vs)
    f = [v for v in vs if v in FAILING or v == PARTLY]
    if h and f:
        return PARTLY
    if BOTS_DISAGREE in vs:
        return BOTS_DISAGREE
    if any(v == UNDECIDED for v in vs) or not vs:
        return UNDECIDED
    if AT_EDGE in vs:
        return AT_EDGE
    return HOLDS if h else _failing(f)


def across_tables(verdicts) -> str:
    """A tip's verdict over its tables: the tables' verdict when they agree, else "varies by table"
    (the report says where); no table decided: not tested."""
    vs = list(verdicts)
    if not vs:
        return NOT_TESTED
    return vs[0] if len(set(vs)) == 1 else BY_TABLE


def simultaneous_level(rows: int, looks: int = 1, alpha: float = ALPHA) -> float:
    """Bonferroni: the level of each of `rows` x `looks` intervals for a family-wise error `alpha`."""
    return 1.0 - alpha / max(1, rows * looks)
