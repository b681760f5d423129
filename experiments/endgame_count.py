"""endgame-count: at the end, play what scores now; count the plays left."""
from lostcards.analysis.claims import (
    Claim,
    Result,
    Row,
    at_least,
    color,
    est_cluster_mean,
    est_mean,
    fmt_est,
    interval_bars,
    new_figure,
    says,
)

CLAIM = Claim(
    id="endgame-count",
    order=10,
    title="At the end, play what scores now",
    tip=("At the end, play what scores now. A card still in your hand when the deck runs out is worth "
         "nothing. Count your plays left (the deck divided by the players), and when you can't lay "
         "everything, skip the low cards and play the high ones. On your last play, take whatever adds "
         "most to the board, even the card you were saving."),
    measured=("Points left in hand at the end of a 2-player round: the face values of the numbers still in "
              "hand that could have gone on one of the seat's opened expeditions (move logs). Expert against "
              "`expert:endgame=off` (the same bot without its count of plays left and its end-of-round "
              "knapsack) on duplicate deals: the margin in points per round; and, on the same deals in "
              "self-play, how many more points the version without the count leaves in hand."),
    tolerance=("One-sided, no slack: counting helps when expert beats its endgame-off self (margin interval "
               "above 0) and leaves fewer playable points in hand (difference, off minus on, above 0)."),
    policies=("random", "greedy", "expert", "expert:endgame=off", "search"),
    not_run="greedy and search: no endgame switch, so the comparison is made for expert only.",
    primary=("margin_vs_endgame_off", "stranded_points_saved"),
)


def measure(ctx):
    rows = []
    d = ctx.pair("expert", "expert:endgame=off")
    m = est_mean(d.margin)
    rows.append(Row("margin_vs_endgame_off", "expert", m, at_least(0, text="above 0"), "points per round",
                    label="margin against expert:endgame=off"))
    on = ctx.facts("expert")["seats"].groupby("round").stranded_points.mean()
    off = ctx.facts("expert:endgame=off")["seats"].groupby("round").stranded_points.mean()
    common = on.index.intersection(off.index)
    saved = est_mean((off[common] - on[common]).to_numpy())
    rows.append(Row("stranded_points_saved", "expert", saved, at_least(0, text="above 0"), "points",
                    label="playable points left in hand: endgame off minus on (per seat, same deals)"))
    stranded = {}
    for p in CLAIM.policies:
        spec = ctx.spec(p)
        s = ctx.facts(p)["seats"]
        stranded[spec] = (est_cluster_mean(s.stranded_points, s["round"]),
                          est_cluster_mean(s.stranded_cards, s["round"]),
                          est_cluster_mean(s.hand_points, s["round"]))

    fig, ax = new_figure(2, 1, width=6.2, height=4.4, title="The endgame: points left in hand, and what "
                                                             "counting the plays left is worth")
    a = ax[0, 0]
    specs = list(stranded)
    interval_bars(a, specs, [stranded[s][0] for s in specs], [color(s) for s in specs], ref=0,
                  ref_label="the tip: nothing playable left",
                  unit="playable points left in hand at the end, per seat (mean, 95% interval)")
    a.set_title("Points stranded in hand")
    a.legend(fontsize=8)
    a = ax[0, 1]
    interval_bars(a, ["margin: expert − expert:endgame=off\n(points per round)",
                      "points stranded: off − on\n(points per seat)"], [m, saved],
                  [color("expert"), color("variant")], ref=0, ref_label="no difference",
                  unit="points (mean, 95% interval)")
    a.set_title("Counting the plays left (duplicate deals)")
    a.legend(fontsize=8)
    fig.tight_layout()

    ex = stranded["expert"]
    eo = stranded["expert:endgame=off"]
    se = stranded.get(ctx.search_spec)
    summary = says(m, f"Counting the plays left is worth {m.estimate:.1f} points a round to expert; "
                      f"without it, it leaves {saved.estimate:.1f} more playable points in hand.",
                   f"The count costs expert {abs(m.estimate):.1f} points a round.",
                   f"The count makes no clear difference ({fmt_est(m)} points a round).")
    reading = (
        f"{summary} With the count, expert ends a round with {ex[0].estimate:.1f} points of numbers it could "
        f"still have laid on its opened expeditions ({ex[1].estimate:.2f} cards)"
        + (f", search {se[0].estimate:.1f}" if se else "")
        + f", greedy {stranded['greedy'][0].estimate:.1f}; without it, {eo[0].estimate:.1f}. "
        + ("The size of the margin also says something about the bot: expert's mid-round play holds cards back "
           "for later, and only its endgame count turns them into points; a player who saves cards the same "
           "way must count as carefully. " if saved.estimate > 5 else "")
        + "Readers should hear it as: from about six plays before the end (the deck divided by the "
        "players), stop saving; lay the high cards that fit rather than wait for the low ones, and make the "
        "last play the one that adds most.")
    details = ("| policy | playable points left in hand | playable cards left | all number points in hand "
               "|\n|---|---|---|---|\n" +
               "\n".join(f"| {s} | {fmt_est(v[0])} | {fmt_est(v[1])} | {fmt_est(v[2])} |"
                         for s, v in stranded.items()))
    return Result(rows, fig, reading, details, summary=summary)
