"""investment-timing: invest only on numbers already in hand; the multiplier doubles losses too."""
import numpy as np
import pandas as pd

from lostcards.analysis.claims import (
    Claim,
    Result,
    Row,
    at_least,
    at_most,
    band_plot,
    binned,
    color,
    est_cluster_mean,
    est_mean,
    fmt_est,
    index,
    interval_bars,
    new_figure,
    ref_line,
    says,
)
from lostcards.analysis.movelog import TIP_INVEST
from lostcards.policies.expert import EXPERT

CLAIM = Claim(
    id="investment-timing",
    order=4,
    title="Invest only on numbers in hand",
    tip=("Lay an investment only when the numbers to justify it are already in your hand. It must go down "
         "before any number, and the multiplier applies to a loss too: ×2 on −14 is −28."),
    measured=("Bots against the same bot with only its investment rule changed, on duplicate deals (each deal "
              "played twice with the seats swapped; margin = first bot's points minus the second's, per "
              "round). The direct test of the tip: `expert+tip-invest:invest=eager` (the eager expert, which "
              "invests when the numbers in hand plus those expected to come pay the cost, held to the tip: it "
              "lays an investment only when the numbers of that suit already in its hand, plus any already "
              "laid, reach the cost of 20, and otherwise makes its best other move) against "
              "`expert:invest=eager` itself; and, where expert has it, its own switch for the tip's rule, "
              "`expert:invest=hand`, against expert as it is. Also, with the bots' own switches: expert "
              "against `expert:invest=eager` and `expert:invest=never`, greedy against `greedy:invest=no`. From the "
              "move logs: every expedition with an investment, the numbers of its suit in hand when its first "
              "investment went down, its investments and its final score; \"justified\" means those numbers "
              "reached 20."),
    tolerance=("One-sided, no slack: a comparison supports the tip when its margin's interval lies above 0 "
               "(the bot that invests less eagerly, or follows the tip, scores more). Expeditions invested on "
               "less than 20 in hand end below 0 on average; those invested on 20 or more above 0. Intervals "
               "of expedition scores cluster the expeditions of a round."),
    policies=("random", "greedy", "expert", "expert:invest=eager", "search"),
    not_run=("search: it has no investment switch; its invested expeditions are measured, its margin is not. "
             "The tip's rule is imposed by a wrapper (`lostcards.analysis.TIP_INVEST`) rather than taken from "
             "expert's own `invest` switch, so that the test does not depend on how that switch is defined."),
    primary=("margin_tip_rule_vs_eager", "margin_hand_vs_normal", "score_invested_unjustified"),
)

COMPARISONS = ((TIP_INVEST.with_params("invest=eager"), "expert:invest=eager", "margin_tip_rule_vs_eager"),
               *((("expert:invest=hand", "expert", "margin_hand_vs_normal"),)      # when the bot has the tip's rule
                 if "hand" in EXPERT.parameters["invest"] else ()),
               ("expert", "expert:invest=eager", "margin_vs_invest_eager"),
               ("expert", "expert:invest=never", "margin_vs_invest_never"),
               ("greedy", "greedy:invest=no", "margin_vs_invest_no"))
EDGES = np.array([0, 5, 10, 15, 20, 25, 30, np.inf])


def measure(ctx):
    rows = []
    margins = {}
    for a, b, name in COMPARISONS:
        spec_a = a.spec if hasattr(a, "spec") else a
        d = ctx.pair(a, b)
        e = est_mean(d.margin)
        rows.append(Row(name, spec_a, e, at_least(0, text="above 0"), "points per round",
                        label=f"margin against {b}"))
        margins[name] = (e, spec_a, b)
    inv = {}
    for p in CLAIM.policies:
        spec = ctx.spec(p)
        x = ctx.facts(p)["expeditions"]
        x = x[x.investments > 0]
        un = x[x.invest_held < 20]
        ju = x[x.invest_held >= 20]
        rows.append(Row("score_invested_unjustified", spec, est_cluster_mean(un.score, un["round"]),
                        at_most(0, text="below 0"), "points",
                        label="final score, invested holding < 20 in the suit"))
        rows.append(Row("score_invested_justified", spec, est_cluster_mean(ju.score, ju["round"]),
                        at_least(0, text="above 0"), "points",
                        label="final score, invested holding ≥ 20 in the suit"))
        inv[spec] = x

    fig, ax = new_figure(2, 1, width=6.4, height=4.6,
                         title="Investments: lay them only on numbers already in hand?")
    a = ax[0, 0]
    labels = [f"{m[1]}\n− {m[2]}" for m in margins.values()]
    interval_bars(a, labels, [m[0] for m in margins.values()], [color(m[1]) for m in margins.values()],
                  ref=0, ref_label="no difference", unit="margin, points per round (mean, 95% interval)")
    a.set_title("Investment rules compared (duplicate deals)")
    a.legend(fontsize=8)
    a = ax[0, 1]
    pooled = pd.concat([inv[s] for s in inv if s != "random"], ignore_index=True)
    pooled["cl"] = pooled["round"].astype(np.int64) * 16 + pooled.groupby("policy").ngroup()
    shades = {1: "#56b4e9", 2: "#0072b2", 3: "#000055"}
    for k in (1, 2, 3):
        t = pooled[pooled.investments == k]
        cs, es = binned(t.invest_held, t.score, t.cl, EDGES)
        band_plot(a, np.minimum(cs, 32.5), es, shades[k], f"{k} investment{'s' if k > 1 else ''} (×{k + 1})")
    t = inv["random"]
    cs, es = binned(t.invest_held, t.score, t["round"], EDGES)
    band_plot(a, np.minimum(cs, 32.5), es, color("random"), "random, any number of investments")
    ref_line(a, y=0)
    a.axvline(20, color="#d55e00", ls=":", lw=1.6, label="the tip's line: 20 in hand")
    a.set_xlabel("numbers of the suit in hand when the first investment went down (sum, bins of 5)")
    a.set_ylabel("final score of the expedition (mean, 95% band)")
    a.set_title("Invested expeditions (greedy, expert, eager expert, search)")
    a.legend(fontsize=7.5)
    fig.tight_layout()

    by = index(rows)
    tip, eager, never, greedy = (margins[k][0] for k in ("margin_tip_rule_vs_eager", "margin_vs_invest_eager",
                                                          "margin_vs_invest_never", "margin_vs_invest_no"))
    hand = margins.get("margin_hand_vs_normal", (None,))[0]
    ex = inv["expert"]
    eu = by.get("expert/score_invested_unjustified")
    ej = by.get("expert/score_invested_justified")
    gu = by.get("expert:invest=eager/score_invested_unjustified")
    su = by.get(f"{ctx.search_spec}/score_invested_unjustified")
    ru = by.get("random/score_invested_unjustified")
    share_un = 100 * (ex.invest_held < 20).mean() if len(ex) else float("nan")
    summary = (says(tip, f"Holding a bot to the tip gains it {tip.estimate:.1f} points a round",
                    f"Holding a bot to the tip costs it {abs(tip.estimate):.1f} points a round",
                    f"Holding a bot to the tip changes little ({fmt_est(tip)} points a round)")
               + (f": investments laid on less than 20 in hand still end at {gu.est.estimate:+.1f} on average "
                  "(eager expert)." if gu and gu.est.estimate > 0 else "."))
    own = (f"Expert's own default lays {share_un:.0f}% of its first investments with less than 20 in the suit "
           f"in hand" + (f", and those expeditions end at {eu.est.estimate:+.1f}" if eu else "")
           + (f" (against {ej.est.estimate:+.1f} when 20 or more was in hand)" if ej else "")
           + f"; against its eager version it scores {fmt_est(eager)} points a round. ")
    reading = (
        f"{summary} The direct test holds everything else fixed: the eager expert, which invests on the numbers "
        f"in hand plus those it expects to draw, against the same bot forbidden to invest without 20 in hand "
        f"already, on the same deals: {fmt_est(tip)} points a round for the tip's rule"
        + (f"; expert's own switch for the tip's rule (`invest=hand`) against expert as it is: {fmt_est(hand)}"
           if hand is not None else "")
        + f". {own}"
        + (f"Search, which decides by looking ahead, also invests on hope and its investments on less than 20 "
           f"end at {su.est.estimate:+.1f}. " if su else "")
        + f"Investing at all is clearly right (expert beats its never-investing self by {fmt_est(never)}; greedy "
        f"with and without investments: {fmt_est(greedy)}). The multiplier does punish a plan without numbers: "
        + (f"random's investments made on less than 20 end at {ru.est.estimate:+.1f}. " if ru else
           "random's investments lose. ")
        + says(tip,
               "For a strategy writer: the tip pays even for strong play; keep it as written.",
               "For a strategy writer: the tip is safe advice for beginners but too strict for good play; a "
               "better rule is to invest early in a suit whose numbers in hand plus those likely to come "
               "(see 22 + 60%) clear the cost, and never in a suit you cannot fund.",
               "For a strategy writer: following the tip to the letter makes no measurable difference "
               "for strong play; it is a safe rule, not a necessary one."))
    details = ("| policy | invested expeditions | first investment on < 20 in hand | mean investments |\n"
               "|---|---|---|---|\n" +
               "\n".join(f"| {s} | {len(x):,} | {100 * (x.invest_held < 20).mean() if len(x) else 0:.0f}% | "
                         f"{x.investments.mean() if len(x) else 0:.2f} |" for s, x in inv.items()))
    return Result(rows, fig, reading, details, summary=summary)
