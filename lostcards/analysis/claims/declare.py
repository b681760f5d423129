"""What a strategy tip's experiment declares: the tables, the bots, its measures, their controls.

An experiment (``experiments/<tip>.py``) is a ``Claim``: the tip's words, its
statements, and its ``Measure`` s, each with what the tip says it should be
(an ``Expect``), whether it decides the verdict, the tables it is taken in,
and the control (``Control``) under which it comes out the other way.  A
measure is either a paired comparison on duplicate deals (``pair``: two
switch sets of the same bot, the one the tip prescribes first) or one of the
values the claim's ``measure(subject)`` function returns.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Optional, Union

from lostcards.analysis.claims.verdict import (
    FAILS,
    HARMFUL,
    HOLDS,
    LEFT_OUT,
    NO_EFFECT,
    TOO_FEW,
    Expect,
    across_tables,
    combine,
    combine_bots,
)
from lostcards.stats import Estimate

# The bots whose rows decide the verdicts, per table: expert and the bots stronger than it (``STRONG``:
# a new strong bot is one entry there, and one in ``data.Sizes`` if its games are costly), and those
# measured beside them for contrast and as controls (``search`` among them: weaker than expert).
STRONG = ("improve",)
DECIDING_BY_TABLE = {t: ("expert", *STRONG) for t in ("2p", "1p", "4p-seat", "4p-team", "lc")}
DECIDING = tuple(dict.fromkeys(b for bots in DECIDING_BY_TABLE.values() for b in bots))
CONTEXT_BOTS = ("random", "greedy", "search")
BOTS = (*CONTEXT_BOTS, *DECIDING)
OPPONENT = "opponent"       # expert, on search's deals, as search's opponent (context)
LOGGED = ("search", OPPONENT, *STRONG)   # bots whose rounds are costly: played once, every move logged


@dataclass(frozen=True)
class Table:
    """Where a tip is measured: a preset, a player count, and what a row counts (a seat or a team)."""

    key: str
    preset: str
    players: int
    unit: str                # "seat" or "team"
    label: str
    data: str                # tables that share their rounds share this key (4 players: seat and team)


TABLES = {t.key: t for t in (
    Table("2p", "expeditions", 2, "seat", "2 players", "2p"),
    Table("4p-seat", "expeditions", 4, "seat", "4 players (per seat)", "4p"),
    Table("4p-team", "expeditions", 4, "team", "4 players (per team)", "4p"),
    Table("1p", "expeditions", 1, "seat", "solitaire", "1p"),
    Table("lc", "lost-cities", 2, "seat", "lost-cities", "lc"),
)}
ALL_TABLES = tuple(TABLES)

# Controls a player could meet, in words (``Control.variant``).
LADDER_RANDOM, LADDER_GREEDY = "the ladder's random bot", "the ladder's casual bot"
PUBLISHED_HAND, PUBLISHED_BONUS = "the published rules' hand of 8", "the published rules' bonus at 8 cards"
EXPEDITIONS_HAND = "the Expeditions hand of 6 (under lost-cities)"
SEARCH_TABLES = ("2p", "1p")       # search is too slow for the others within the report's budget


@dataclass(frozen=True)
class Setting:
    """A table, possibly with ruleset parameters changed (a control)."""

    table: str = "2p"
    overrides: tuple = ()            # ((name, value), ...)

    @property
    def spec(self) -> Table:
        return TABLES[self.table]

    def rules(self):
        from lostcards.rules.ruleset import rules
        t = self.spec
        return rules(t.preset, players=t.players, **dict(self.overrides))

    @property
    def data(self) -> str:
        """Settings that share their rounds (4 players: per seat and per team) share this."""
        extra = ",".join(f"{k}={_text(v)}" for k, v in self.overrides)
        return self.spec.data + (f"({extra})" if extra else "")

    @property
    def label(self) -> str:
        extra = ", ".join(f"{k}={_text(v)}" for k, v in self.overrides)
        return self.spec.label + (f" with {extra}" if extra else "")


def _text(v) -> str:
    return ",".join(map(str, v)) if isinstance(v, tuple) else str(v)


@dataclass(frozen=True)
class Control:
    """A setting under which a deciding measure comes out a given way, and the verdict it gives there.

    ``policy`` replaces the bot (``greedy``, ``random``: other bots of the ladder), ``switches`` are added
    to it, ``overrides`` change the ruleset (e.g. ``bonus_cards=8``, the published rules' bonus).  A
    control runs in the table of the row it is a control for (``table``: only for a control that names its
    own); ``gives``: holds, does not hold (``FAILS``), or a comparison that does not hold one way
    (``HARMFUL``, ``NO_EFFECT``: ``Expect.way``).  ``variant``: a ruleset or bot a player could meet, in
    words (the published rules' hand, the casual bot); a control without one is a constructed case.
    """

    gives: str = FAILS
    policy: str = ""
    switches: str = ""
    table: str = ""
    overrides: tuple = ()
    variant: str = ""
    tables: tuple = ()               # the deciding tables it is a control for (default: all of its measure's)

    def __post_init__(self):
        assert self.gives in (HOLDS, FAILS, HARMFUL, NO_EFFECT), self.gives

    def applies(self, table: str) -> bool:
        return not self.tables or table in self.tables

    def setting(self, table: str = "2p") -> Setting:
        return Setting(self.table or table, tuple(self.overrides))

    def matches(self, verdict: str, way: str = "") -> bool:
        """Whether a row's verdict (and, for a comparison, the way it fails) is the one this control declares."""
        if self.gives in (HARMFUL, NO_EFFECT):
            return verdict == FAILS and way == self.gives
        return verdict == self.gives

    @property
    def bot(self) -> str:
        who = self.policy or "expert"
        return who + ((":" if ":" not in who else ",") + self.switches if self.switches else "")

    def text(self, table: str = "2p") -> str:
        where = ", ".join(f"{k}={_text(v)}" for k, v in self.overrides)
        what = f" [{self.variant}]" if self.variant else ""
        return f"{self.bot} ({TABLES[self.table or table].label}{', ' + where if where else ''}){what}: {self.gives}"


ExpectSpec = Union[Expect, Callable[["Setting"], Expect]]


@dataclass(frozen=True)
class Measure:
    """One measure of a tip.

    ``expect`` may be a function of the setting (the tip's arithmetic, e.g. the deck
    divided by the players, per seat or per team).  ``pair`` makes it a paired comparison on duplicate
    deals: (the switches of the bot the tip prescribes, those of the other), each a
    string or a function of the ruleset; the estimate is the first's margin over the
    second, points a round.  ``tables`` are where it decides, ``context`` where it
    is only shown.  ``bots``: who it is measured for (default: the claim's).
    A deciding measure names ``controls``: at least one setting where it holds and
    one where it does not (the tests run each one on a small run), so that it
    cannot hold, or fail, by construction.
    """

    name: str
    label: str
    expect: ExpectSpec
    unit: str = ""
    decides: bool = True
    tables: tuple = ("2p",)
    context: tuple = ()
    bots: Optional[tuple] = None
    pair: Optional[tuple] = None
    controls: tuple = ()            # Control, ...: settings where it holds and where it does not
    statement: str = ""             # which of the tip's statements it tests (a short name)

    def expect_for(self, setting, feel=None) -> Expect:
        """What the tip says in `setting`, its tolerance derived from that table's ``tolerance.Feel``
        where it declares a basis (``Expect.felt``)."""
        e = self.expect(setting) if callable(self.expect) else self.expect
        return e.felt(feel)

    def where(self) -> tuple:
        return tuple(dict.fromkeys(self.tables + self.context))


def switches_for(part, rules) -> str:
    return part(rules) if callable(part) else part


@dataclass(frozen=True)
class Claim:
    """One strategy tip as an experiment, declared before it is run."""

    id: str
    order: int
    title: str
    tip: str                         # the tip's own words, quoted from the rule sheet
    measured: str                    # what is measured, in plain words
    measures: tuple                  # Measure, ...
    statements: dict = field(default_factory=dict)   # short name -> the statement in words
    bots: tuple = BOTS
    not_run: str = ""                # what is left out, and why
    scope: tuple = ALL_TABLES        # the tables the tip's own words speak of: only these decide
    deciding: Optional[tuple] = None  # the bots the tip speaks of (default: each table's DECIDING_BY_TABLE)
    untested: str = ""               # the tip's words no row tests, and why

    def __post_init__(self):
        for m in self.measures:
            extra = set(m.tables) - set(self.scope)
            assert not extra, f"{self.id}/{m.name} decides outside the tip's scope: {sorted(extra)}"

    def deciding_bots(self, table: str) -> tuple:
        bots = DECIDING_BY_TABLE.get(table, ())
        return tuple(b for b in bots if self.deciding is None or b in self.deciding)

    def measure_named(self, name: str) -> Measure:
        return next(m for m in self.measures if m.name == name)

    def tables(self) -> tuple:
        out = []
        for m in self.measures:
            out.extend(m.where())
        return tuple(t for t in ALL_TABLES if t in out)


@dataclass
class Row:
    """One measure of one bot in one table: the estimate, what the tip says, and the verdict."""

    claim: str
    measure: Measure
    bot: str
    policy: str                      # the policy spec the row is about
    baseline: str                    # paired rows: the policy it is compared with
    setting: Setting
    est: Estimate
    expect: Expect
    decides: bool
    verdict: str = ""
    data: frozenset = frozenset()    # the data keys it was measured on (what more rounds would cost)
    stage: int = 1                   # the stage that measured it last
    way: str = ""                    # a comparison that does not hold: harmful or no material effect
    cause: str = ""                  # an undecided strong bot's row at its plan's most games: too few games

    @property
    def left_out(self) -> bool:
        """Undecided with too few games: its statement is left to the other bots."""
        return self.cause == TOO_FEW

    @property
    def key(self) -> tuple:
        return (self.measure.name, self.bot, self.setting.table)

    @property
    def table(self) -> str:
        return self.setting.table


@dataclass
class Result:
    """A claim's rows, figure and words, once measured."""

    claim: Claim
    rows: list
    skipped: list = field(default_factory=list)      # (measure, bot, table, why)
    figure: object = None
    reading: str = ""
    tips: list = field(default_factory=list)         # sentences for tips.md
    details: str = ""
    subjects: dict = field(default_factory=dict)     # (bot, table) -> Subject: the data, for figures
    tip_checks: list = field(default_factory=list)   # what tips.md's sentences say of their rows (words.noting)

    def subject(self, bot: str = "expert", table: str = "2p"):
        return self.subjects.get((bot, table))

    def get(self, measure: str, bot: str = "expert", table: str = "2p") -> Optional[Row]:
        return next((r for r in self.rows if r.measure.name == measure and r.bot == bot and r.table == table), None)

    def value(self, measure: str, bot: str = "expert", table: str = "2p") -> float:
        r = self.get(measure, bot, table)
        return r.est.estimate if r else float("nan")

    def table_verdicts(self) -> dict:
        """{table: the tip's verdict there}, over its statements' verdicts in each table."""
        out = {}
        for (_, t), v in self.statement_verdicts().items():
            out.setdefault(t, []).append(v)
        return {t: combine(out[t]) for t in self.claim.tables() if t in out}

    def bot_verdicts(self, statement: str, table: str) -> dict:
        """{bot: its verdict on one statement in one table} (its measures of the statement combined)."""
        per = {}
        for r in self.rows:
            if r.decides and r.table == table and (r.measure.statement or r.measure.name) == statement:
                per.setdefault(r.bot, []).append(LEFT_OUT if r.left_out else r.verdict)
        return {b: combine(vs) for b, vs in per.items()}

    def statement_verdicts(self) -> dict:
        """{(statement, table): verdict} over the deciding rows of each of the tip's statements: each bot's
        rows combined, then the bots (``combine_bots``: they may disagree)."""
        keys = dict.fromkeys((r.measure.statement or r.measure.name, r.table) for r in self.rows if r.decides)
        return {k: combine_bots(self.bot_verdicts(*k).values()) for k in keys}

    def overall(self) -> str:
        """The tip's verdict over its tables (``where`` in the report says which); none decided: not tested."""
        return across_tables(self.table_verdicts().values())
