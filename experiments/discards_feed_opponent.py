"""discards-feed-opponent: a 9 thrown into an expedition the opponent has started is a 9 handed over."""
import numpy as np

from lostcards.analysis.claims import (
    BOTS,
    Claim,
    Result,
    Row,
    at_least,
    band_plot,
    est_cluster_diff,
    est_cluster_mean,
    est_ratio,
    fmt_est,
    index,
    new_figure,
)

CLAIM = Claim(
    id="discards-feed-opponent",
    order=8,
    title="Your discards feed your opponent",
    tip=("Your discards are your opponent's draw pile. Their board shows which 20-point bets they have made, "
         "and a 9 thrown into one of those is a 9 handed over."),
    measured=("Every number card a bot discarded in 2-player rounds (move logs), by its value and by the "
              "opponent's board when it was thrown: an expedition of that suit the opponent has started and "
              "can still lay it on, a suit the opponent has not started, or a card the opponent can no longer "
              "lay. Outcomes: the share the opponent takes off the pile, the share that ends in the "
              "opponent's expedition, and the points it scores there (face value times that expedition's "
              "multiplier)."),
    tolerance=("\"Is a 9 handed over\", read for the high cards (8, 9, 10) thrown into a started expedition "
               "that can still take them: at least 90% of them end in the opponent's expedition and the "
               "points handed over come to at least 0.9 of their face value (both: at least 0.8 is roughly). "
               "\"Their board shows\": such throws feed the opponent more often than the same cards thrown "
               "into suits the opponent has not started (difference of shares above 0). Intervals cluster "
               "the discards of a round."),
    primary=("laid_share_high_into_started", "points_per_face_value_high_into_started"),
)

STATUS = (("started", "opponent started the suit and can lay it"), ("not_started", "opponent has not started it"),
          ("dead", "opponent can no longer lay it"))


def status(d):
    opp_dead = d.opp_dead.to_numpy(bool)
    started = d.opp_started.to_numpy(bool)
    return {"started": started & ~opp_dead, "not_started": ~started, "dead": opp_dead & started}


def measure(ctx):
    rows = []
    res = {}
    for p in BOTS:
        spec = ctx.spec(p)
        d = ctx.facts(p)["discards"]
        d = d[~d.investment.astype(bool)]
        st = status(d)
        high = d.value.to_numpy() >= 8
        hs = d[st["started"] & high]
        hn = d[st["not_started"] & high]
        rows.append(Row("laid_share_high_into_started", spec,
                        est_cluster_mean(hs.laid_by_opp.astype(float), hs["round"]),
                        at_least(0.9, rough=0.8, text="at least 90% (roughly: 80%)"), "share",
                        label="8-10 thrown into a started suit: share the opponent lays"))
        rows.append(Row("points_per_face_value_high_into_started", spec,
                        est_ratio(hs.opp_points, hs.value, hs["round"]),
                        at_least(0.9, rough=0.8, text="at least 0.9 of face value (roughly: 0.8)"), "",
                        label="8-10 thrown into a started suit: points handed over / face value"))
        rows.append(Row("laid_share_started_minus_not_started", spec,
                        est_cluster_diff(hs.laid_by_opp.astype(float), hs["round"],
                                         hn.laid_by_opp.astype(float), hn["round"]),
                        at_least(0, text="above 0"), "share",
                        label="8-10: share laid by the opponent, started minus not started"))
        per = {}
        for key, _lab in STATUS:
            t = d[st[key]]
            per[key] = {v: (est_cluster_mean(t[t.value == v].taken_by_opp.astype(float), t[t.value == v]["round"]),
                            est_cluster_mean(t[t.value == v].opp_points, t[t.value == v]["round"]))
                        for v in range(2, 11) if (t.value == v).sum() >= 20}
        res[spec] = (per, hs, hn, d, st)

    specs = list(res)
    fig, ax = new_figure(len(specs), 2, width=4.2, height=3.6,
                         title="What the opponent takes and scores from your discards, by card value and by "
                               "their board")
    cols = {"started": "#d55e00", "not_started": "#0072b2", "dead": "#999999"}
    for i, spec in enumerate(specs):
        per = res[spec][0]
        for j in range(2):
            a = ax[j, i]
            for key, lab in STATUS:
                vs = sorted(per[key])
                band_plot(a, np.array(vs, float), [per[key][v][j] for v in vs], cols[key], lab)
            if j == 1:
                xs = np.arange(2, 11)
                a.plot(xs, xs, color="#d55e00", ls="--", lw=1.4, label="the tip: the face value")
                a.set_ylabel("points scored for the opponent per throw")
            else:
                a.set_ylabel("share the opponent takes")
                a.set_ylim(0, 1)
            a.set_xlabel("value of the discarded number")
            a.set_title(f"{spec}: {'taken' if j == 0 else 'points handed over'}", fontsize=10)
            a.set_xticks(range(2, 11))
            if i == 0:
                a.legend(fontsize=7, loc="upper left")
    fig.tight_layout()

    by = index(rows)
    ex = "expert"
    ls = by.get(ex + "/laid_share_high_into_started")
    pv = by.get(ex + "/points_per_face_value_high_into_started")
    df = by.get(ex + "/laid_share_started_minus_not_started")
    lss = by.get(ctx.search_spec + "/laid_share_high_into_started")
    shares = {s: 100 * (res[s][4]["started"] & (res[s][3].value.to_numpy() >= 8)).mean() for s in specs}
    summary = ("A high number thrown into an expedition the opponent has started ends there "
               + (f"{100 * ls.est.estimate:.0f}% of the time for expert" if ls else "often")
               + (f" ({100 * lss.est.estimate:.0f}% for search)" if lss else "")
               + (f", handing over {pv.est.estimate:.2f} of its face value on average" if pv else "")
               + (f"; {100 * df.est.estimate:.0f} percentage points more often than into an unstarted suit."
                  if df else "."))
    unstarted = est_cluster_mean(res[ex][2].laid_by_opp.astype(float), res[ex][2]["round"])
    reading = (
        f"{summary} "
        + ("The tip's wording is right: a 9 thrown into a started expedition is a 9 handed over. "
           if ls and ls.verdict == "holds" else
           "So the tip's direction is right and its wording a little strong: a 9 thrown into a started "
           "expedition is usually, not always, a 9 handed over (the opponent may have moved past it, be short "
           "of plays, or prefer the deck). ")
        + f"The board is what to read: the same high cards thrown into "
        f"suits the opponent has not opened are laid far less often ({100 * unstarted.estimate:.0f}% for "
        f"expert's opponent), and cards the opponent can no longer lay never are (grey lines). Expert rarely makes the dangerous throw: {shares[ex]:.1f}% of its number "
        f"discards are 8-10s into a started suit, against "
        + ", ".join(f"{shares[s]:.1f}% for {s}" for s in specs if s != ex) + ". "
        "Advise readers to look at the opponent's expeditions before every discard: a card they can still lay "
        "on one of their bets is a gift worth most of its face value; a card for a suit they have not opened "
        "is a far smaller one.")
    details = ("| policy | 8-10 into a started suit: throws | taken by the opponent | laid by the opponent | "
               "8-10 into an unstarted suit: laid by the opponent |\n|---|---|---|---|---|\n" +
               "\n".join(f"| {s} | {len(v[1]):,} | "
                         f"{fmt_est(est_cluster_mean(v[1].taken_by_opp.astype(float), v[1]['round']), 'share') if len(v[1]) > 1 else '–'} | "
                         f"{fmt_est(est_cluster_mean(v[1].laid_by_opp.astype(float), v[1]['round']), 'share') if len(v[1]) > 1 else '–'} | "
                         f"{fmt_est(est_cluster_mean(v[2].laid_by_opp.astype(float), v[2]['round']), 'share') if len(v[2]) > 1 else '–'} |"
                         for s, v in res.items()))
    return Result(rows, fig, reading, details, summary=summary)
