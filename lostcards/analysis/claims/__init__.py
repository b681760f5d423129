"""`lostcards claims`: the strategy tips of the rule sheet, checked on simulated rounds.

Every tip is an experiment in ``experiments/<name>.py`` (installed as
``lostcards.experiments``): its ``Claim`` (the tip's words, its statements and
measures, each with what the tip says it should be, its smallest effect that
matters, the tables it is taken in and the control under which it comes out
the other way) and a short ``measure(subject)`` built from the helpers below.
The package's modules, one job each:

- ``verdict``: the four verdicts, ``Expect`` and the rule (pure functions);
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
    BOTS_DISAGREE,
    BY_TABLE,
    FAILING,
    FAILS,
    HARMFUL,
    HOLDS,
    NO_EFFECT,
    NOT_TESTED,
    PARTLY,
    ROW_VERDICTS,
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
    row_verdict,
)

__all__ = [
    "ALL_TABLES", "BOTS", "BOTS_DISAGREE", "BY_TABLE", "DECIDING", "DECIDING_BY_TABLE", "EXPEDITIONS_HAND",
    "FAILING", "LADDER_GREEDY", "LADDER_RANDOM", "PUBLISHED_BONUS", "PUBLISHED_HAND", "FAILS", "HARMFUL",
    "HOLDS", "NOT_TESTED", "NO_EFFECT", "OPPONENT", "PARTLY", "ROW_VERDICTS", "TABLES", "UNDECIDED", "VERDICTS",
    "Claim", "Context", "Control", "Expect", "Measure", "Result", "Row", "Setting", "Sizes", "Subject",
    "about", "across_tables", "at_least", "at_most", "between", "combine", "combine_bots", "described",
    "experiments_dir", "gains", "load_experiments", "measure_claim", "row_verdict", "run_claims", "with_switches",
]
