"""reach-22-plus-60: the numbers of a suit that reach a hand, against what the deal gave."""
import numpy as np

from lostcards.analysis.claims import (
    BOTS,
    Claim,
    Result,
    Row,
    about,
    band_plot,
    between,
    binned,
    color,
    est_cluster_mean,
    fmt_est,
    index,
    new_figure,
    ols_clustered,
    ref_line,
)

CLAIM = Claim(
    id="reach-22-plus-60",
    order=2,
    title="22 plus 60% of what you hold",
    tip=("Count what an expedition can bring you. Over a two-player round, the numbers of one suit that "
         "reach your hand come to about 22 plus 60% of what you already hold in it. That counts every card "
         "you'll see, not the ones you'll manage to play in order, so it's a ceiling: a suit you hold "
         "nothing of barely pays its 20 even if every card arrives in the right order."),
    measured=("For every seat and suit of 2-player rounds: `held_sum`, the numbers of that suit in the dealt "
              "hand, and `reached_sum`, the numbers of that suit that were in the hand at any time in the "
              "round (each card once). A least-squares line reached = a + b × held over all seats and suits "
              "(intervals clustered by round); the mean reached sum of suits held empty; the ceiling: what "
              "the seat's expedition of that suit laid in numbers against what reached the hand; and what "
              "a player ends up scoring in a suit it was dealt none of."),
    tolerance=("Intercept about 22 and slope about 0.60: within ±10% holds, ±20% roughly. \"Barely pays its "
               "20\" at held = 0: the mean reached sum between 20 and 24.2 (the rule's own 22 + 10%) holds, "
               "17.6 to 26.4 roughly. \"Barely pays\" in play: what a player ends up scoring in a suit it was "
               "dealt none of (0 when it never opens it) lies within 5 points of zero."),
    primary=("intercept", "slope", "reached_at_held_0"),
)


def measure(ctx):
    rows = []
    data = {}
    for p in BOTS:
        spec = ctx.spec(p)
        ss = ctx.seat_tables(p)["seat_suits"]
        fit = ols_clustered(ss.held_sum, ss.reached_sum, ss.cluster)
        rows.append(Row("intercept", spec, fit.intercept, about(22), "points", label="reached = a + b × held: a"))
        rows.append(Row("slope", spec, fit.slope, about(0.6), "", label="reached = a + b × held: b"))
        z = ss[ss.held_sum == 0]
        e0 = est_cluster_mean(z.reached_sum, z.cluster)
        rows.append(Row("reached_at_held_0", spec, e0,
                        between(20, 24.2, 22, 17.6, 26.4, "barely over 20 (20 to 24.2; roughly 17.6 to 26.4)"),
                        "points", label="mean reached sum, suit held empty"))
        zo = z[z.exp_cards > 0]
        es = est_cluster_mean(z.exp_score, z.cluster)
        rows.append(Row("score_suit_held_0", spec, es,
                        between(-5, 5, 0, text="close to 0: within ±5 points (a quarter of the cost)"),
                        "points", label="points scored in a suit held empty (0 if never opened)"))
        op = ss[ss.exp_cards > 0]
        ceiling = est_cluster_mean(op.reached_sum - op.exp_numbers_sum, op.cluster)
        share = op.exp_numbers_sum.sum() / max(op.reached_sum.sum(), 1)
        data[spec] = (ss, fit, e0, ceiling, share, len(zo) / max(len(z), 1))

    fig, ax = new_figure(2, 1, width=6.4, height=4.8,
                         title="What reaches your hand: the tip's 22 + 60% of what you hold")
    a = ax[0, 0]
    edges = np.concatenate([np.arange(0, 42, 3), [np.inf]])
    xs = np.linspace(0, 33, 12)
    for spec, (ss, fit, *_r) in data.items():
        cs, es = binned(ss.held_sum, ss.reached_sum, ss.cluster, edges)
        band_plot(a, cs, es, color(spec), f"{spec}: fit {fit.intercept.estimate:.1f} + "
                                          f"{fit.slope.estimate:.2f} × held")
        a.plot(xs, fit.intercept.estimate + fit.slope.estimate * xs, color=color(spec), lw=1, ls="-.")
    a.plot(xs, 22 + 0.6 * xs, color="#d55e00", ls="--", lw=2.2, label="the tip: 22 + 0.6 × held")
    ref_line(a, y=20, label="the cost: 20", color_="#777777")
    a.set_xlabel("numbers of the suit in the dealt hand (sum of face values)")
    a.set_ylabel("numbers of the suit that reached the hand (sum)")
    a.set_title("Reached against held: means (bands) and fitted lines (dash-dot)")
    a.legend(fontsize=7.5, loc="upper left")
    a = ax[0, 1]
    for spec, (ss, fit, *_r) in data.items():
        op = ss[ss.exp_cards > 0]
        cs, es = binned(op.held_sum, op.reached_sum, op.cluster, edges)
        band_plot(a, cs, es, color(spec), f"{spec}: reached", marker="o")
        cs, es = binned(op.held_sum, op.exp_numbers_sum, op.cluster, edges)
        band_plot(a, cs, es, color(spec), f"{spec}: laid", marker="x")
        if len(es):
            a.lines[-1].set_linestyle(":")
    ref_line(a, y=20, label="the cost: 20", color_="#d55e00")
    a.set_xlabel("numbers of the suit in the dealt hand (sum of face values)")
    a.set_ylabel("sum of numbers (mean, 95% band)")
    a.set_title("The ceiling: reached (solid) vs laid (dotted), opened suits")
    a.legend(fontsize=6.5, ncol=2, loc="upper left")
    fig.tight_layout()

    by = index(rows)
    ex, se = "expert", ctx.search_spec
    fe, fr, fs, fg = data[ex][1], data["random"][1], data[se][1], data["greedy"][1]
    v = {k: by[f"{ex}/{k}"].verdict for k in ("intercept", "slope", "reached_at_held_0") if f"{ex}/{k}" in by}
    vs = {k: by[f"{se}/{k}"].verdict for k in ("intercept", "slope") if f"{se}/{k}" in by}
    close = all(x == "holds" for x in v.values())
    close_g = all(by[f"greedy/{k}"].verdict == "holds" for k in ("intercept", "slope") if f"greedy/{k}" in by)
    summary = (f"{'Close' if close else 'Roughly right'} for a player who draws from the deck: "
               f"{fe.intercept.estimate:.1f} + {fe.slope.estimate:.2f} × held for expert, "
               f"{fs.intercept.estimate:.1f} + {fs.slope.estimate:.2f} × held for search; a suit held empty "
               f"brings about {data[ex][2].estimate:.0f}.")
    reading = (
        f"The rule is a good estimate of what a suit will bring. Fitted over every seat and suit, the numbers "
        f"that reach the hand are {fe.intercept.estimate:.1f} + {fe.slope.estimate:.2f} × held for expert "
        f"and {fg.intercept.estimate:.1f} + {fg.slope.estimate:.2f} × held for greedy ("
        f"{'both within the tolerance of' if close and close_g else 'compare with'} 22 + 0.60 × held); search "
        f"{'sees a little more from a thin suit' if fs.intercept.estimate > fe.intercept.estimate + 0.5 else 'is close'} "
        f"({fs.intercept.estimate:.1f} + {fs.slope.estimate:.2f} × held, on far fewer rounds: "
        f"{', '.join(f'{k} {w}' for k, w in vs.items())}). The rule describes a game "
        f"played off the deck: random play, which takes discards all the time, sees "
        f"{fr.intercept.estimate:.1f} + {fr.slope.estimate:.2f} × held. A suit held empty brings "
        f"{data[ex][2].estimate:.1f} points of numbers to expert's hand, just over the 20 it costs, and that is "
        f"a ceiling: in the suits expert opens it lays on average {data[ex][3].estimate:.1f} points less than "
        f"reached its hand ({100 * data[ex][4]:.0f}% of what arrived gets laid). In the end a suit dealt empty "
        f"is worth {by[ex + '/score_suit_held_0'].est.estimate:+.1f} points to expert (it opens "
        f"{100 * data[ex][5]:.0f}% of them, on cards drawn later) and "
        f"{by['greedy/score_suit_held_0'].est.estimate:+.1f} to greedy"
        f"{': it barely pays, as the tip says' if by[ex + '/score_suit_held_0'].verdict == 'holds' else ''}. Use the "
        f"rule to price a suit before opening it: 22 plus 60% of what you hold, minus what will come too late "
        f"to lay in order.")
    details = ("| policy | reached minus laid, opened suits (points) | share of reached numbers laid | "
               "suits held empty that got opened |\n|---|---|---|---|\n" +
               "\n".join(f"| {s} | {fmt_est(d[3])} | {100 * d[4]:.1f}% | {100 * d[5]:.1f}% |"
                         for s, d in data.items()))
    return Result(rows, fig, reading, details, summary=summary)
