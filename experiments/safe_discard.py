"""safe-discard: the safe throw is a number both sides have already played past."""
import textwrap

import numpy as np

from lostcards.analysis.claims import (
    FAILS,
    HOLDS,
    LADDER_GREEDY,
    LADDER_RANDOM,
    Claim,
    Control,
    Measure,
    described,
)
from lostcards.analysis.claims.held import held_measures, held_tips
from lostcards.analysis.claims.measures import event_mean, event_share
from lostcards.analysis.claims.plots import color, tip_figure
from lostcards.analysis.claims.words import across, row_text, value

PAIRED = ("2p", "4p-team", "lc")
GROUPS = (("dead_both", "dead for both"), ("dead_own", "dead for the discarder only"),
          ("dead_opp", "dead for the opponent only"), ("alive", "alive for both"))

CLAIM = Claim(
    id="safe-discard",
    order=7,
    title="The safe throw",
    tip="The safe throw is a number both sides have already played past.",
    measured=("Tested on its own words by a move rule: `improve:rules=safe` (improve, whose own candidate "
              "discards are only numbers both sides have played past whenever it holds one) against improve "
              "unheld, on the same duplicate deals (2 players; `rules=safe` holds any bot to it, and expert held "
              "so is shown for context in every table). For context only: expert against `expert:safety=off` (the same bot, blind to what a discard is "
              "worth to the other side) on duplicate deals, which is the comparison of `discards-feed-opponent` "
              "and is counted there, once. For context too, every number a bot "
              "discarded (move logs), by the table when it was thrown: dead for both sides (both expeditions "
              "of its suit already hold a higher number), dead for the discarder only, dead for the opponent "
              "only, alive for both; for each, the share of the bot's number discards, how often the other side "
              "takes it, and the points it scores for them per throw. A throw dead for both hands over 0 points "
              "by the rules themselves, and throws the other side can still lay hand over points for random play "
              "too, so neither can decide anything."),
    statements={"safety": "choose safe throws"},
    measures=(
        *held_measures("safe", "held to safe (throw only numbers both sides have played past, when it holds "
                       "one), against itself unheld", "safety", context=PAIRED,
                       controls=(Control(HOLDS, policy="random", variant=LADDER_RANDOM),
                                 Control(FAILS, policy="greedy", variant=LADDER_GREEDY))),
        Measure("margin_safety", "expert against its safety-blind self (discards-feed-opponent's comparison)",
                described("a description: counted in discards-feed-opponent"), "points a round", decides=False,
                tables=(), context=PAIRED, bots=("expert",), pair=("", "safety=off")),
        *(Measure(f"points_{k}", f"points handed over per throw {words}", described(), "points", decides=False,
                  context=PAIRED) for k, words in GROUPS),
        *(Measure(f"share_{k}", f"share of the bot's number discards {words}", described(), "share",
                  decides=False, context=PAIRED) for k, words in GROUPS),
        *(Measure(f"taken_{k}", f"share taken by the other side, {words}", described(), "share", decides=False,
                  context=("2p",)) for k, words in GROUPS),
    ),
    not_run="solitaire: its discards leave the game, so no throw is safe or unsafe.",
)


def groups(d):
    own, opp = d.own_dead.to_numpy(bool), d.opp_dead.to_numpy(bool)
    return {"dead_both": own & opp, "dead_own": own & ~opp, "dead_opp": ~own & opp, "alive": ~own & ~opp}


def measure(s):
    d = s.facts("discards")
    d = d[~d.investment.to_numpy(bool)]
    out = {}
    for k, m in groups(d).items():
        t = d[m]
        out[f"points_{k}"] = event_mean(t, "opp_points")
        out[f"share_{k}"] = event_share(d, m)
        out[f"taken_{k}"] = event_share(t, t.taken_by_opp.to_numpy(bool))
    return out


def figure(res):
    def handed(a):
        bots = [b for b in ("random", "greedy", "expert", "search", "improve") if res.get("points_alive", b)]
        xs = np.arange(len(GROUPS))
        w = 0.8 / max(len(bots), 1)
        for i, bot in enumerate(bots):
            es = [r.est if r else None for r in (res.get(f"points_{k}", bot) for k, _ in GROUPS)]
            v = np.array([e.estimate if e else np.nan for e in es])
            err = np.nan_to_num([[x - e.ci_low if e else 0 for x, e in zip(v, es)],
                                 [e.ci_high - x if e else 0 for x, e in zip(v, es)]])
            a.bar(xs + (i - (len(bots) - 1) / 2) * w, np.nan_to_num(v), w, yerr=err, color=color(bot), label=bot,
                  error_kw={"lw": 0.8, "capsize": 1.5})
        a.set_xticks(xs, [textwrap.fill(w_, 14) for _, w_ in GROUPS], fontsize=8)
        a.set_ylabel("points handed to the other side per number thrown\n(2 players; mean, 95% interval)")
        a.set_title("What a throw hands over, by the table when thrown (context)", fontsize=10)
        a.legend(fontsize=8)

    return tip_figure(res, "Which discards are safe? The tip's rule, held", (handed,))


def reading(res):
    g = res.get
    return (f"Held to throwing only numbers both sides have played past whenever it holds one, improve changes "
            f"by {row_text(g('margin_safe', 'improve'))} points a round with two players, expert by "
            f"{across(res, 'margin_safe_expert', PAIRED)}. "
            f"Weighing what a discard is worth to the other side pays expert "
            f"{across(res, 'margin_safety', PAIRED)}. A number both sides have played past "
            f"hands over nothing, by the rules; one only the discarder has played past hands expert's opponent "
            f"{value(g('points_dead_own'))} points per throw, one alive for both {value(g('points_alive'))} "
            f"(search's: {value(g('points_dead_own', 'search'))} and {value(g('points_alive', 'search'))}). Expert "
            f"throws {value(g('share_dead_both'))} of its discarded numbers dead for both and "
            f"{value(g('share_dead_opp'))} dead for the opponent only: a card the opponent can no longer lay is as "
            "safe for the table, and costs only the card the discarder could still have used.")


def tips(res):
    g = res.get
    return [*held_tips(res, "safe", "throwing only numbers both sides have played past whenever it holds one"),
            f"For context: expert throws {value(g('share_dead_both'))} of its discarded numbers dead for "
            f"both sides, which hand over nothing by the rules, and {value(g('share_dead_opp'))} dead for the "
            f"opponent only; one alive for both hands the other side {value(g('points_alive'))} points per throw."]
