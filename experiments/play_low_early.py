"""play-low-early: low cards are playable only early; play them early or lose them."""
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
    index,
    new_figure,
)
from lostcards.analysis.movelog import DEALT, DISCARDED, LAID, STRANDED

CLAIM = Claim(
    id="play-low-early",
    order=9,
    title="Play low cards early",
    tip=("Play low cards early or lose them. A 2 goes down only before any other number, so if you mean to "
         "set off, set off early."),
    measured=("Every time a 2, 3 or 4 entered a hand in 2-player rounds (dealt, or drawn off the deck or a "
              "pile; move logs), what became of it in that hand: laid on the holder's expedition, discarded, "
              "or stranded in hand at the end, by when it arrived: in the deal, or drawn with 24-35, 12-23 or "
              "0-11 cards left in the deck. 8s, 9s and 10s are shown for contrast."),
    tolerance=("One-sided, no slack. \"Early\": a 2-4 that was dealt is laid more often than one drawn late "
               "(deck 0-11 after the draw): the difference of the laid shares lies above 0. \"Or lose them\": "
               "of the 2-4s drawn late, at least half are discarded or stranded. Intervals cluster the cards "
               "of a round."),
    primary=("laid_share_dealt_minus_late", "lost_share_late"),
)

BUCKETS = (("dealt", "dealt"), ("early", "deck 24-35"), ("middle", "deck 12-23"), ("late", "deck 0-11"))


def bucket(e):
    deck = e.deck.to_numpy()
    dealt = e.source.to_numpy() == DEALT
    return {"dealt": dealt, "early": ~dealt & (deck >= 24), "middle": ~dealt & (deck >= 12) & (deck < 24),
            "late": ~dealt & (deck < 12)}


def measure(ctx):
    rows = []
    res = {}
    for p in BOTS:
        spec = ctx.spec(p)
        e = ctx.facts(p)["entries"]
        e = e[~e.investment.astype(bool)]
        b = bucket(e)
        low = e.value.between(2, 4).to_numpy()
        d, l = e[b["dealt"] & low], e[b["late"] & low]
        rows.append(Row("laid_share_dealt_minus_late", spec,
                        est_cluster_diff((d.fate == LAID).astype(float), d["round"],
                                         (l.fate == LAID).astype(float), l["round"]),
                        at_least(0, text="above 0"), "share", label="2-4: laid share, dealt minus drawn late"))
        rows.append(Row("lost_share_late", spec, est_cluster_mean((l.fate != LAID).astype(float), l["round"]),
                        at_least(0.5, text="at least half"), "share",
                        label="2-4 drawn late: share discarded or stranded"))
        fates = {}
        laid = {}
        for key, _ in BUCKETS:
            t = e[b[key] & low]
            fates[key] = [(t.fate == f).mean() if len(t) else np.nan for f in (LAID, DISCARDED, STRANDED)]
            for name, mask in (("2", e.value == 2), ("3", e.value == 3), ("4", e.value == 4),
                               ("8-10", e.value >= 8)):
                u = e[b[key] & mask.to_numpy()]
                laid[(name, key)] = est_cluster_mean((u.fate == LAID).astype(float), u["round"])
        res[spec] = (fates, laid, len(e[low]))

    specs = list(res)
    fig, ax = new_figure(len(specs), 2, width=4.0, height=3.6,
                         title="What becomes of a 2, 3 or 4, by when it reached the hand")
    fcols = ("#009e73", "#e69f00", "#999999")
    xs = np.arange(len(BUCKETS))
    for i, spec in enumerate(specs):
        fates, laid, _n = res[spec]
        a = ax[0, i]
        bottom = np.zeros(len(BUCKETS))
        for j, lab in enumerate(("laid", "discarded", "stranded in hand")):
            v = np.array([100 * np.nan_to_num(fates[k][j]) for k, _ in BUCKETS])
            a.bar(xs, v, 0.7, bottom=bottom, color=fcols[j], label=lab)
            bottom += v
        a.axhline(50, color="#d55e00", ls="--", lw=1.4, label="half")
        a.set_xticks(xs, [lab for _, lab in BUCKETS], fontsize=8)
        a.set_ylabel("% of 2s, 3s and 4s")
        a.set_title(f"{spec}: fate of 2-4s", fontsize=10)
        if i == 0:
            a.legend(fontsize=7, loc="upper right", framealpha=0.95)
        a = ax[1, i]
        for name, col in (("2", "#000000"), ("3", "#0072b2"), ("4", "#56b4e9"), ("8-10", "#cc79a7")):
            pts = [(x, laid[(name, k)]) for x, (k, _) in zip(xs, BUCKETS) if laid[(name, k)].n >= 20]
            if pts:
                band_plot(a, np.array([p_[0] for p_ in pts], float), [p_[1] for p_ in pts], col, name)
        a.set_xticks(xs, [lab for _, lab in BUCKETS], fontsize=8)
        a.set_ylim(0, 1)
        a.set_ylabel("share laid on an expedition")
        a.set_xlabel("when the card reached the hand")
        a.set_title(f"{spec}: laid share by value", fontsize=10)
        if i == 0:
            a.legend(fontsize=7)
    fig.tight_layout()

    by = index(rows)
    ex = "expert"
    fates, laid, _n = res[ex]
    summary = (f"Expert lays {100 * fates['dealt'][0]:.0f}% of the 2s, 3s and 4s it is dealt, "
               f"{100 * fates['late'][0]:.0f}% of those drawn with fewer than 12 cards left; "
               f"{100 * by[ex + '/lost_share_late'].est.estimate:.0f}% of the late ones are lost.")
    se = res.get(ctx.search_spec)
    reading = (
        f"{summary} The drop is steady through the round (left to right in the panels): a dealt 2 is laid "
        f"{100 * laid[('2', 'dealt')].estimate:.0f}% of the time, a 2 drawn mid-deck (12-23 cards left) "
        f"{100 * laid[('2', 'middle')].estimate:.0f}%, while 8s, 9s and 10s stay playable much longer "
        f"({100 * laid[('8-10', 'middle')].estimate:.0f}% laid when drawn mid-deck). "
        + (f"Search shows the same pattern ({100 * se[0]['dealt'][0]:.0f}% of dealt 2-4s laid, "
           f"{100 * se[0]['late'][0]:.0f}% of late ones). " if se else "")
        + "Late low cards are lost in two ways: discarded when the suit has moved on, or stranded in hand "
        "when the round ends. Write it as: if you will open a suit, open it with its low cards while they "
        "still fit; a low card that arrives after the suit has moved on is a discard.")
    return Result(rows, fig, reading, summary=summary)
