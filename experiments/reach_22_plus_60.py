"""reach-22-plus-60: the numbers of a suit that reach a hand, against what the deal gave."""
from dataclasses import replace

import numpy as np

from lostcards.analysis.claims import (
    BOTS,
    FAILS,
    HOLDS,
    LADDER_GREEDY,
    LADDER_RANDOM,
    OPPONENT,
    PUBLISHED_HAND,
    Claim,
    Control,
    Measure,
    about,
    between,
    described,
)
from lostcards.analysis.claims.declare import TABLES
from lostcards.analysis.claims.measures import distribution, event_mean, fit, percentiles
from lostcards.analysis.claims.plots import REGION_STYLE, band_plot, binned, color, tip_figure
from lostcards.analysis.claims.tolerance import Basis
from lostcards.analysis.claims.words import by_verdict, short, value

DECIDE = ("2p",)                  # "over a two-player round": the other tables are context
CONTEXT = ("4p-seat", "lc", "1p")
CONTROLS = (Control(FAILS, policy="random", variant=LADDER_RANDOM),
            Control(HOLDS, policy="greedy", variant=LADDER_GREEDY),
            Control(HOLDS, overrides=(("hand_size", 8),), variant=PUBLISHED_HAND))

TIP_A, TIP_B = 22, 0.6


def _band(setting) -> float:
    """The tolerance of "about 22", tied to the decision it informs: how far the tip's 22 lies above the
    table's cost (20), so that the band stops where a suit held empty would no longer pay its cost."""
    return TIP_A - setting.rules().cost


def _cost(setting) -> Basis:
    d = _band(setting)
    return Basis("cost", f"down to the cost of {TIP_A - d:g}", f"the tip's {TIP_A} less the cost ({d:g}): below "
                 f"{TIP_A - d:g} a suit held empty no longer pays its cost", lambda f: d)


def _intercept(setting):
    return about(TIP_A, basis=_cost(setting))


def _slope(setting):
    """ "60% of what you hold": a tolerance that moves the reach of a suit dealt its typical numbers by the
    intercept's band: the band over the numbers a seat is dealt in a suit it holds any of (that table's)."""
    d = _band(setting)
    return about(TIP_B, basis=Basis("reach", f"{d:g} over a suit's dealt numbers",
                                    f"the intercept's band ({d:g}) over the numbers a seat is dealt in a suit it "
                                    "holds any of", lambda f: d / f.held.estimate))


def _empty(setting):
    d = _band(setting)
    return replace(between(TIP_A - d, TIP_A + d, TIP_A, f"barely over its cost: {TIP_A - d:g} to {TIP_A + d:g} "
                           f"(the band of 'about {TIP_A}')"), basis=_cost(setting))


CLAIM = Claim(
    id="reach-22-plus-60",
    order=2,
    title="22 plus 60% of what you hold",
    tip=("Count what an expedition can bring you. Over a two-player round, the numbers of one suit that "
         "reach your hand come to about 22 plus 60% of what you already hold in it. That counts every card "
         "you'll see, not the ones you'll manage to play in order, so it's a ceiling: a suit you hold "
         "nothing of barely pays its 20 even if every card arrives in the right order."),
    measured=("For every seat and suit: `held_sum`, the numbers of that suit in the dealt hand, and "
              "`reached_sum`, the numbers of that suit that were in the hand at any time in the round (each card "
              "once). A least-squares line reached = a + b × held over all seats and suits (intervals clustered "
              "by round); the mean reached sum of a suit held empty and its distribution; and, for context, "
              "what a side ends up scoring in a suit its seat was dealt none of. The tip speaks of two players; "
              "the 4-player and lost-cities tables (context) say whether the rule carries over; in solitaire "
              "every card of the half deck reaches the hand, so it is context too."),
    scope=DECIDE,
    statements={"intercept": "about 22", "slope": "plus about 60% of what you hold",
                "empty": "a suit held empty barely pays its 20"},
    bots=(*BOTS, OPPONENT),
    measures=(
        Measure("intercept", "reached = a + b × held: a", _intercept, "points", tables=DECIDE, context=CONTEXT,
                statement="intercept", controls=CONTROLS),
        Measure("slope", "reached = a + b × held: b", _slope, "", tables=DECIDE, context=CONTEXT,
                statement="slope", controls=CONTROLS),
        Measure("reached_empty", "numbers reaching the hand in a suit held empty", _empty, "points",
                tables=DECIDE, context=CONTEXT, statement="empty", controls=CONTROLS),
        *distribution("reached_empty", "numbers reaching the hand in a suit held empty", "points",
                      ("2p", "4p-seat", "lc")),
        Measure("score_empty", "points a side scores in a suit its seat was dealt none of (0 if never opened)",
                described(), "points", decides=False, context=("2p", "lc")),
    ),
)


def measure(s):
    ss = s.table("seat_suits")
    out = {}
    f = fit(ss, "held_sum", "reached_sum", "fit")
    out.update(intercept=f["fit_intercept"], slope=f["fit_slope"])
    z = ss[ss.held_sum == 0]
    out["reached_empty"] = event_mean(z, "reached_sum")
    out.update(percentiles(z.reached_sum.to_numpy(float), z.cluster.to_numpy(), "reached_empty"))
    out["score_empty"] = event_mean(z, "exp_score")
    return out


def figure(res):
    table = DECIDE[0]

    def curves(a):
        edges = np.concatenate([np.arange(0, 42, 3), [np.inf]])
        for bot in ("random", "greedy", "expert", "search", "improve"):
            s = res.subject(bot, table)
            r_a, r_b = res.get("intercept", bot, table), res.get("slope", bot, table)
            if s is None or s.available() or r_a is None or r_b is None:
                continue
            ss = s.table("seat_suits")
            cs, es = binned(ss.held_sum, ss.reached_sum, ss.cluster, edges)
            band_plot(a, cs, es, color(bot), f"{bot}: {short(r_a.est.estimate)} + {short(r_b.est.estimate)} × held")
        r_a, r_b = res.get("intercept", "expert", table), res.get("slope", "expert", table)
        if r_a is not None and r_b is not None:
            xs = np.linspace(0, edges[-2], 12)
            a_, b_ = r_a.expect, r_b.expect
            a.plot(xs, a_.value + b_.value * xs, color="#333333", lw=1.6,
                   label=f"the tip: {a_.value:g} + {b_.value:g} × held")
            a.fill_between(xs, a_.low + b_.value * xs, a_.high + b_.value * xs, color=REGION_STYLE["holds"][0],
                           alpha=REGION_STYLE["holds"][1], lw=0, label=f"its band: {a_.low:g} to {a_.high:g} + "
                           f"{b_.value:g} × held")
        a.set_xlabel("numbers of the suit in the dealt hand (sum)")
        a.set_ylabel("numbers of the suit that reached the hand\n(mean, 95% band)")
        a.set_title(f"The line the rows fit, and the tip's ({TABLES[table].label}; context)", fontsize=10)
        a.legend(fontsize=7, loc="upper left")

    return tip_figure(res, "What reaches your hand: the tip's 22 + 60% of what you hold", (curves,))


def _line(res, bot="expert", table="2p"):
    return f"{value(res.get('intercept', bot, table))} + {value(res.get('slope', bot, table))} × held"


def reading(res):
    e = res.get("reached_empty")
    return (f"With two players the numbers reaching a strong player's hand come to {_line(res)} (expert; improve "
            f"{_line(res, 'improve')}), against the tip's 22 + 0.6 × held; a suit held empty brings "
            f"{value(e)} ({value(res.get('reached_empty_p10'))} to {value(res.get('reached_empty_p90'))} in most "
            f"rounds). The rule describes a player who draws off the deck: random play, which keeps taking "
            f"discards, sees {_line(res, 'random')}. With four players a seat sees {_line(res, table='4p-seat')}, "
            f"so the rule does not carry over; under lost-cities {_line(res, table='lc')}. In the end a suit "
            f"dealt empty is worth {value(res.get('score_empty'), sign=True)} points to expert's side.")


def _words(res, bot: str) -> str:
    a, b = res.get("intercept", bot), res.get("slope", bot)
    few = "too few games to tell"
    if a is not None and b is not None and a.left_out and b.left_out:
        return by_verdict(a, "", "", "", too_few=few)
    return (by_verdict(a, "about the tip's 22", "not the tip's 22", "undecided against the tip's 22", too_few=few)
            + " and " + by_verdict(b, "about its 60%", "not its 60%", "undecided against its 60%", too_few=few))


def tips(res):
    e = res.get("reached_empty")
    return [f"Count what an expedition can bring you: over a two-player round the numbers of a suit that reach a "
            f"strong player's hand come to {_line(res)} (expert: {_words(res, 'expert')}), against the tip's "
            "22 plus 60% of what it already holds.",
            by_verdict(e, "A suit you hold nothing of barely pays its 20, and only if every card arrives in order.",
                       "A suit you hold nothing of does not barely pay its 20.",
                       "Whether a suit you hold nothing of barely pays its 20 is undecided.")
            + f" It brings {value(e)} (most rounds {value(res.get('reached_empty_p10'))} to "
            f"{value(res.get('reached_empty_p90'))}; improve {_line(res, 'improve')}: {_words(res, 'improve')}).",
            f"For context (not the tip's tables): with four players a seat sees {_line(res, table='4p-seat')}, "
            f"under lost-cities {_line(res, table='lc')}."]
