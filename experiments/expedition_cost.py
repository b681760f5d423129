"""expedition-cost: an expedition starts 20 down; the first card is the decision, not the fifth."""
import numpy as np

from lostcards.analysis.claims import (
    BOTS,
    Claim,
    Result,
    Row,
    at_least,
    at_most,
    band_plot,
    binned,
    color,
    est_cluster_diff,
    est_cluster_mean,
    fmt_est,
    index,
    new_figure,
    ref_line,
)

CLAIM = Claim(
    id="expedition-cost",
    order=1,
    title="An expedition costs 20",
    tip=("An expedition costs 20 before it pays. 2, 3, 4 and 5 together come to 14, so the decision that "
         "matters is the first card on an expedition, not the fifth."),
    measured=("From the move logs of 2-player rounds, for every expedition a bot opened: the numbers of that "
              "suit in its hand when it laid the first card (that card included) and the expedition's final "
              "score; the share of opened expeditions that end below zero; and the points each card adds "
              "when it is laid (the expedition's score just after minus just before, bonus included, so the "
              "cards of an expedition add up to its final score)."),
    tolerance=("Two statements, one-sided, no slack. (1) \"2, 3, 4 and 5 come to 14\": an expedition opened on "
               "a hand of at most 14 in its suit ends below zero on average (mean final score at most 0). "
               "(2) \"The first card, not the fifth\": the first card moves the expedition's score by more than "
               "the fifth (mean |points added by the 1st card| minus mean |points added by the 5th| at least "
               "0). Intervals cluster the events of a round."),
    primary=("score_opened_on_14_or_less", "stake_1st_minus_5th"),
)

EDGES = np.array([0, 5, 10, 15, 20, 25, 30, 35, np.inf])


def measure(ctx):
    rows = []
    keep = {}
    for p in BOTS:
        spec = ctx.spec(p)
        f = ctx.facts(p)
        x = f["expeditions"]
        c = f["cards"]
        low = x[x.held_at_open <= 14]
        rows.append(Row("score_opened_on_14_or_less", spec, est_cluster_mean(low.score, low["round"]),
                        at_most(0, text="below 0"), "points",
                        label="final score, opened holding ≤ 14 in the suit"))
        c1 = c[c.k == 1]
        c5 = c[c.k == 5]
        rows.append(Row("stake_1st_minus_5th", spec,
                        est_cluster_diff(c1.points.abs(), c1["round"], c5.points.abs(), c5["round"]),
                        at_least(0, text="above 0: the 1st card moves more"), "points",
                        label="size of the 1st card's points minus the 5th's (absolute values)"))
        below = est_cluster_mean((x.score < 0).astype(float), x["round"])
        pts = {k: est_cluster_mean(c[c.k == k].points, c[c.k == k]["round"]) for k in range(1, 9)
               if (c.k == k).sum() >= 20}
        keep[spec] = (x, c, below, pts, est_cluster_mean(x.score, x["round"]))

    fig, ax = new_figure(2, 1, width=6.4, height=4.6, title="An expedition costs 20: what the opening hand "
                                                             "and each card are worth")
    a = ax[0, 0]
    for spec, (x, *_r) in keep.items():
        cs, es = binned(x.held_at_open, x.score, x["round"], EDGES)
        band_plot(a, np.minimum(cs, 37.5), es, color(spec), spec)
    ref_line(a, y=0)
    a.axvline(14, color="#d55e00", ls=":", lw=1.6, label="2+3+4+5 = 14")
    a.axvline(20, color="#777777", ls=":", lw=1.4, label="the cost: 20")
    a.set_xlabel("numbers of the suit in hand when the expedition was opened (sum, bins of 5)")
    a.set_ylabel("final score of the expedition (mean, 95% band)")
    a.set_title("Final score against the opening hand")
    a.legend(fontsize=8)
    a = ax[0, 1]
    specs = list(keep)
    w = 0.8 / len(specs)
    for i, spec in enumerate(specs):
        pts = keep[spec][3]
        ks = np.array(sorted(pts))
        v = np.array([pts[k].estimate for k in ks])
        lo = v - np.array([pts[k].ci_low for k in ks])
        hi = np.array([pts[k].ci_high for k in ks]) - v
        a.bar(ks + (i - (len(specs) - 1) / 2) * w, v, w, yerr=[lo, hi], color=color(spec), label=spec,
              capsize=2, ecolor="#333333")
    ref_line(a, y=-20, label="the cost: −20")
    a.axhline(0, color="#333333", lw=0.8)
    a.set_xlabel("position of the card in its expedition (1st, 2nd, ...)")
    a.set_ylabel("points the card adds when laid (mean, 95% interval)")
    a.set_title("Points added by the k-th card (the 6th brings the bonus)")
    a.set_xticks(range(1, 9))
    a.legend(fontsize=8)
    fig.tight_layout()

    by = index(rows)
    ex = "expert"
    x, c, below, pts, mean_score = keep[ex]
    stake = by.get(ex + "/stake_1st_minus_5th")
    low_e = by.get(ex + "/score_opened_on_14_or_less")
    low_s = by.get(ctx.search_spec + "/score_opened_on_14_or_less")
    low_r = by.get("random/score_opened_on_14_or_less")
    first_holds = stake is not None and stake.est.ci_low > 0
    low_holds = low_e is not None and low_e.est.ci_high <= 0
    summary = (("The first card is the big decision: it moves an expedition by "
                f"{pts[1].estimate:+.1f} points on average for expert, the fifth by {pts[5].estimate:+.1f}"
                if first_holds else
                "The first card is not clearly the bigger decision: it moves an expedition by "
                f"{pts[1].estimate:+.1f} points on average for expert, the fifth by {pts[5].estimate:+.1f}")
               + ("; and an expedition opened on 14 or less does end below zero." if low_holds else
                  (f"; but an expedition expert opens on 14 or less in hand ends at {low_e.est.estimate:+.1f}, "
                   "not below zero." if low_e else ".")))
    reading = (
        f"{summary} The cost is real: {100 * below.estimate:.0f}% of expert's expeditions end below zero "
        f"({100 * keep['greedy'][2].estimate:.0f}% of greedy's, which opens only on 20 in hand, and "
        f"{100 * keep['random'][2].estimate:.0f}% of random's), and an opening number leaves the expedition 10 "
        f"to 18 points under water (an opening investment, 40). But the tip's arithmetic, four low cards come to "
        f"14, does not make a low opening hand a losing bet: more cards arrive (see 22 + 60%), and a player "
        f"that opens on what it expects to come ends above zero even from a hand of 14 or less in the suit"
        + (f" ({low_e.est.estimate:+.1f} for expert" if low_e else "")
        + (f", {low_s.est.estimate:+.1f} for search)" if low_s else (")" if low_e else ""))
        + (f", while random, opening blindly, ends at {low_r.est.estimate:+.1f}" if low_r else "")
        + ". The left panel shows the final score climbing with what the hand held at the opening. Write "
        "it as: the decision is the first card; make it by counting the suit's numbers in hand and those "
        "still to come, not the four low cards alone; later cards add their face value (times the "
        "multiplier), and the sixth brings the bonus.")
    details = ("| policy | opened expeditions | ending below zero | mean final score | points of 1st card | "
               "points of 5th card |\n|---|---|---|---|---|---|\n" +
               "\n".join(f"| {s} | {len(k[0]):,} | {fmt_est(k[2], 'share')} | {fmt_est(k[4])} | "
                         f"{fmt_est(k[3][1]) if 1 in k[3] else '–'} | {fmt_est(k[3][5]) if 5 in k[3] else '–'} |"
                         for s, k in keep.items()))
    return Result(rows, fig, reading, details, summary=summary)
