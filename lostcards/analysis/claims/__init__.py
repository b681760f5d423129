"""`lostcards claims`: the strategy tips of the rule sheet, checked on simulated rounds.

Every tip is an experiment in ``experiments/<name>.py`` (installed as
``lostcards.experiments``): its ``Claim`` (the tip's words, its statements and
measures, each with what the tip says it should be, its smallest effect that
matters, the tables it is taken in and the control under which it comes out
the other way) and a short ``measure(subject)`` built from the helpers below.
The package's modules, one job each:

- ``verdict``: the six verdict words, ``Expect`` and the rule (pure functions);
- ``tolerance``: each table's tolerances, derived from its rounds (``Feel``);
- ``declare``: ``Claim``, ``Measure``, ``Control``, the tables and the bots that decide;
- ``data``: ``Context`` (the rounds, played once and shared) and ``Subject``;
- ``measures``: shared measurement helpers for experiments;
- ``runner``: measuring, simultaneous intervals, more rounds where undecided;
- ``report`` (``claims.csv``, ``claims.md``), ``sheet`` (``tips.md``), ``plots``, ``words``, ``loader``.
"""
from lostcards.analysis.claims.data import Context, Sizes, Subject, with_switches
from lostcards.analysis.claims.declare import (
    ALL_TABLES,
    BOTS,
    DECIDING,
    DECIDING_BY_TABLE,
    EXPEDITIONS_HAND,
    LADDER_GREEDY,
    LADDER_RANDOM,
    OPPONENT,
    PUBLISHED_BONUS,
    PUBLISHED_HAND,
    TABLES,
    Claim,
    Control,
    Measure,
    Result,
    Row,
    Setting,
)
from lostcards.analysis.claims.loader import experiments_dir, load_experiments
from lostcards.analysis.claims.runner import measure_claim, run_claims
from lostcards.analysis.claims.verdict import (
    AT_EDGE,
    FAILING,
    FAILS,
    HARMFUL,
    HOLDS,
    MIXED,
    NO_EFFECT,
    NOT_TESTED,
    ROW_VERDICTS,
    TOO_FEW,
    UNDECIDED,
    VERDICTS,
    Expect,
    about,
    across_tables,
    at_least,
    at_most,
    between,
    combine,
    combine_bots,
    described,
    gains,
    more_than,
    row_verdict,
)

__all__ = [
    "ALL_TABLES", "AT_EDGE", "BOTS", "DECIDING", "DECIDING_BY_TABLE", "EXPEDITIONS_HAND",
    "FAILING", "LADDER_GREEDY", "LADDER_RANDOM", "PUBLISHED_BONUS", "PUBLISHED_HAND", "FAILS", "HARMFUL",
    "HOLDS", "MIXED", "NOT_TESTED", "NO_EFFECT", "OPPONENT", "ROW_VERDICTS", "TABLES", "TOO_FEW", "UNDECIDED",
    "VERDICTS",
    "Claim", "Context", "Control", "Expect", "Measure", "Result", "Row", "Setting", "Sizes", "Subject",
    "about", "across_tables", "at_least", "at_most", "between", "combine", "combine_bots", "described",
    "experiments_dir", "gains", "load_experiments", "measure_claim", "more_than", "row_verdict", "run_claims",
    "with_switches",
]
