"""safe-discard: the safe throw is a number both sides have already played past."""
import numpy as np

from lostcards.analysis.claims import (
    BOTS,
    Claim,
    Result,
    Row,
    at_least,
    color,
    est_cluster_mean,
    exactly,
    fmt_est,
    new_figure,
)

CLAIM = Claim(
    id="safe-discard",
    order=7,
    title="The safe throw",
    tip="The safe throw is a number both sides have already played past.",
    measured=("Every number card a bot discarded in 2-player rounds (move logs), grouped by the table at the "
              "moment it was thrown: dead for both (both expeditions of its suit already hold a higher "
              "number), dead for the discarder only (the opponent can still lay it), dead for the opponent "
              "only, alive for both. For each group: how often the opponent later takes the card off the "
              "pile, and the points it then scores for them (its face value times the multiplier of the "
              "opponent's expedition, when the opponent lays it; 0 otherwise), per discard."),
    tolerance=("A dead-for-both throw hands over exactly 0 points (the rules guarantee it: a check of the "
               "measurement). The tip holds in substance when the throws it does not call safe, those the "
               "opponent can still lay, hand over something: at least 0.1 points per discard on average "
               "(one-sided). Intervals cluster the discards of a round."),
    primary=("opp_points_dead_for_discarder_only", "opp_points_alive_for_both"),
)

GROUPS = (("dead_for_both", "dead for both"), ("dead_for_discarder_only", "dead for the discarder only"),
          ("dead_for_opponent_only", "dead for the opponent only"), ("alive_for_both", "alive for both"))


def groups(d):
    own, opp = d.own_dead.to_numpy(bool), d.opp_dead.to_numpy(bool)
    return {"dead_for_both": own & opp, "dead_for_discarder_only": own & ~opp,
            "dead_for_opponent_only": ~own & opp, "alive_for_both": ~own & ~opp}


def measure(ctx):
    rows = []
    res = {}
    for p in BOTS:
        spec = ctx.spec(p)
        d = ctx.facts(p)["discards"]
        d = d[~d.investment.astype(bool)]
        g = groups(d)
        out = {}
        for key, _label in GROUPS:
            t = d[g[key]]
            out[key] = (len(t) / max(len(d), 1),
                        est_cluster_mean(t.taken_by_opp.astype(float), t["round"]),
                        est_cluster_mean(t.opp_points, t["round"]))
        res[spec] = out
        rows.append(Row("opp_points_dead_for_both", spec, out["dead_for_both"][2], exactly(0), "points",
                        label="points handed over per throw dead for both"))
        for key in ("dead_for_discarder_only", "alive_for_both"):
            rows.append(Row(f"opp_points_{key}", spec, out[key][2],
                            at_least(0.1, text="more than 0 (≥ 0.1): not safe"), "points",
                            label=f"points handed over per throw {dict(GROUPS)[key]}"))

    fig, ax = new_figure(2, 1, width=6.6, height=4.6, title="Which discards are safe? What the opponent "
                                                             "takes and scores, by the table when thrown")
    specs = list(res)
    w = 0.8 / len(specs)
    xs = np.arange(len(GROUPS))
    for j, (k, ylabel, title, scale) in enumerate((
            (1, "% of throws the opponent takes (95% interval)", "Taken by the opponent", 100),
            (2, "points scored for the opponent per throw (95% interval)", "Points handed over", 1))):
        a = ax[0, j]
        for i, spec in enumerate(specs):
            es = [res[spec][key][k] for key, _ in GROUPS]
            v = np.array([e.estimate if e.n else np.nan for e in es]) * scale
            lo = v - np.array([e.ci_low if e.n > 1 else np.nan for e in es]) * scale
            hi = np.array([e.ci_high if e.n > 1 else np.nan for e in es]) * scale - v
            a.bar(xs + (i - (len(specs) - 1) / 2) * w, np.nan_to_num(v), w, color=color(spec), label=spec,
                  yerr=[np.nan_to_num(lo), np.nan_to_num(hi)], capsize=2, ecolor="#333333")
        a.set_xticks(xs, [lab.replace(" only", "\nonly").replace("dead for ", "dead for\n")
                          for _k, lab in GROUPS], fontsize=8)
        a.set_ylabel(ylabel)
        a.set_title(title)
        a.axhline(0, color="#d55e00", ls="--", lw=1.4, label="safe: 0" if j == 1 else None)
        if j == 1:
            a.axhline(0.1, color="#d55e00", ls=":", lw=1.4, label="not safe: at least 0.1 (the tolerance)")
        a.legend(fontsize=8)
    fig.tight_layout()

    ex = res["expert"]
    se = res.get(ctx.search_spec)
    summary = (f"A number both sides have played past hands over nothing; "
               f"one only the discarder has played past hands expert's opponent "
               f"{ex['dead_for_discarder_only'][2].estimate:.2f} points per throw, one alive for both "
               f"{ex['alive_for_both'][2].estimate:.2f}.")
    reading = (
        f"A number both sides have played past is safe by the rules: nobody can lay it, so it hands over "
        f"nothing (the opponent still takes {100 * ex['dead_for_both'][1].estimate:.0f}% of expert's, only to "
        f"hold it or to stall). The throws that are not safe are the ones the opponent can still lay: a card "
        f"only the discarder has played past hands expert's opponent "
        f"{ex['dead_for_discarder_only'][2].estimate:.2f} points per throw on average, and one alive for both "
        f"{ex['alive_for_both'][2].estimate:.2f}"
        + (f" (search's: {se['dead_for_discarder_only'][2].estimate:.2f} and {se['alive_for_both'][2].estimate:.2f})"
           if se else "")
        + f". These are averages over every such throw; the danger is concentrated in cards the opponent can "
        f"lay on an expedition it has already started (next tip). Against a player who never takes discards (greedy) every throw is safe, which is why greedy's rows "
        f"do not hold. Safety is decided by the opponent's board: a card dead for the opponent only is just as "
        f"safe for the table, and costs the discarder only the card it could still have used. Expert throws "
        f"{100 * ex['dead_for_both'][0]:.0f}% of its discarded numbers dead for both and "
        f"{100 * ex['dead_for_opponent_only'][0]:.0f}% dead for the opponent only"
        + (f" (search: {100 * se['dead_for_both'][0]:.0f}% and {100 * se['dead_for_opponent_only'][0]:.0f}%)" if se
           else "")
        + ". Write it as: throw what the opponent can no longer lay; best of all, what neither of you can.")
    details = ("| policy | group | share of its number discards | taken by the opponent | points handed over per "
               "throw |\n|---|---|---|---|---|\n" +
               "\n".join(f"| {s} | {lab} | {100 * o[k][0]:.1f}% | "
                         f"{fmt_est(o[k][1], 'share') if o[k][1].n > 1 else '–'} | "
                         f"{fmt_est(o[k][2]) if o[k][2].n > 1 else '–'} |"
                         for s, o in res.items() for k, lab in GROUPS))
    return Result(rows, fig, reading, details, summary=summary)
