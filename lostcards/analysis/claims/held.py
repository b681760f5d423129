"""The prescriptive tips' move-rule rows: a strong bot held to the tip's rule against itself unheld.

A move rule (``engine.move_rules``: fund20, open6, safe) holds any bot to a tip
by filtering its legal plays (``policies.held``), so the tip is tested on a
bot stronger than expert, not only through one of expert's own switches.
``held_measures`` declares the two rows of one rule: the strong bots' (deciding
in 2 players, on ``Sizes.strong_pairs`` deals) and expert's (context, every
table the tip is measured in); ``held_tips`` says in tips.md what the
strong bot's row found.
"""
from __future__ import annotations

from lostcards.analysis.claims.declare import STRONG, Measure
from lostcards.analysis.claims.tolerance import WIN
from lostcards.analysis.claims.verdict import described, gains
from lostcards.analysis.claims.words import by_verdict, change

TABLES = ("2p",)        # where the strong bots' held rows decide (their rounds are costly)


def held_measures(rule: str, label: str, statement: str, controls: tuple, context: tuple,
                  prescribed: bool = True) -> tuple:
    """The rows of one move rule: ``margin_<rule>`` (the strong bots, deciding) and ``margin_<rule>_expert``
    (expert, context).  `prescribed`: the tip prescribes the rule (held first); else it prescribes
    breaking it (unheld first: the margin is what the rule costs)."""
    pair = (f"rules={rule}", "") if prescribed else ("", f"rules={rule}")
    return (Measure(f"margin_{rule}", label, gains(basis=WIN), "points a round", tables=TABLES, bots=STRONG, pair=pair,
                    statement=statement, controls=controls),
            Measure(f"margin_{rule}_expert", f"expert: {label}", described(), "points a round", decides=False,
                    context=context, bots=("expert",), pair=pair))


def held_tips(res, rule: str, doing: str, prescribed: bool = True) -> list:
    """['Held to the rule on the same deals, improve (a bot stronger than expert), laying ..., loses 17 points
    a round with two players against itself unheld: the tip costs it points.'], or [] when the row was not
    measured."""
    r = res.get(f"margin_{rule}", STRONG[0], TABLES[0])
    if r is None:
        return []
    up, down = ("gains", "loses") if prescribed else ("loses", "gains")
    return [f"Held to the rule on the same deals, {STRONG[0]} (a bot stronger than expert), {doing}, "
            f"{change(r, up, down)} points a round with two players against itself unheld"
            + by_verdict(r, ": the tip holds for it.", ": the tip does not hold for it.", ": undecided for it.",
                         harmful=": the tip costs it points.", no_effect=": no material difference for it.",
                         too_few=": too few games to tell.")]
