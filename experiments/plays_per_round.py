"""plays-per-round: how many plays a seat gets, and what a pile draw adds."""
import numpy as np

from lostcards.analysis.claims import (
    BOTS,
    Claim,
    Result,
    Row,
    about,
    band_plot,
    color,
    est_cluster_mean,
    exactly,
    index,
    interval_bars,
    new_figure,
    ols_clustered,
    ref_line,
)

CLAIM = Claim(
    id="plays-per-round",
    order=3,
    title="About 18 plays each",
    tip=("A round is about 18 plays each. The deck starts at 36 and every draw off it uses one card, so two "
         "players get 18 plays each, and every card either of you takes off a discard pile adds one more "
         "turn to the round. At four seats each partner gets about 9, which is 18 for the team, and the "
         "solitaire plays all 24 of its cards."),
    measured=("Plays (cards played to an expedition or discarded) per seat and round with 2 players; per "
              "partner and per team with 4 (a pass is not a play); in solitaire. The turns of a 2-player "
              "round regressed on the cards both players took off discard piles in it (slope: turns added "
              "per pile draw; intercept: turns of a round with no pile draw). Every bot plays itself; "
              "search plays expert."),
    tolerance=("\"About 18\", \"about 9\" and \"one more turn\" per pile draw: within ±10% holds, ±20% "
               "roughly. The 36 turns of a round without pile draws: about 36, same bands. \"All 24\" in "
               "solitaire: exactly 24. Intervals cluster the two seats of a round."),
    players=(2, 4, 1),
    not_run=("search with 4 players and in solitaire: too slow for this run's budget (and the solitaire "
             "count is fixed by the rules whoever plays)."),
    primary=("plays_per_seat", "turns_per_pile_draw", "plays_per_partner", "plays_per_team", "solitaire_plays"),
)


def measure(ctx):
    rows = []
    dists = {}
    fits = {}
    for p in BOTS:
        spec = ctx.spec(p)
        seats = ctx.seat_tables(p)["seats"]
        e = est_cluster_mean(seats.plays, seats.cluster)
        rows.append(Row("plays_per_seat", spec, e, about(18), "plays", label="plays per seat"))
        dists[spec] = seats.plays.to_numpy()
        rt = ctx.round_table(p)
        fit = ols_clustered(rt.pile_draws, rt.turns, rt.cluster)
        fits[spec] = (rt, fit)
        rows.append(Row("turns_per_pile_draw", spec, fit.slope, about(1), "turns",
                        label="turns added per pile draw (slope)"))
        rows.append(Row("turns_without_pile_draws", spec, fit.intercept, about(36), "turns",
                        label="turns with no pile draw (intercept)"))
    four = {}
    for p in ("random", "greedy", "expert"):
        b = ctx.batch(p, players=4)
        plays = b.seats[:, :, 0].astype(float)          # [round, seat]
        cl = np.repeat(np.arange(b.n), 4)
        e_partner = est_cluster_mean(plays.ravel(), cl)
        team = np.concatenate([plays[:, 0] + plays[:, 2], plays[:, 1] + plays[:, 3]])
        e_team = est_cluster_mean(team, np.concatenate([np.arange(b.n)] * 2))
        rows.append(Row("plays_per_partner", p, e_partner, about(9), "plays", players=4, label="plays per partner"))
        rows.append(Row("plays_per_team", p, e_team, about(18), "plays", players=4, label="plays per team"))
        four[p] = (e_partner, e_team, b.seats[:, :, 4].mean())
    solo = {}
    for p in ("random", "greedy", "expert"):
        b = ctx.batch(p, players=1)
        plays = b.seats[:, 0, 0].astype(float)
        e = est_cluster_mean(plays, np.arange(b.n))
        rows.append(Row("solitaire_plays", p, e, exactly(24), "plays", players=1, label="solitaire plays"))
        solo[p] = e

    # ---- figure
    fig, ax = new_figure(3, 1, width=5.6, title="Plays per round: the tip says 18 each (2 players), 9 per "
                                                   "partner (4), 24 (solitaire)")
    a = ax[0, 0]
    bins = np.arange(10, 41) - 0.5
    for spec, x in dists.items():
        lab = spec if x.mean() < 35 else f"{spec} (mean {x.mean():.0f}: off the scale)"
        a.hist(np.clip(x, 10, 40), bins=bins, density=True, histtype="step", lw=2, color=color(spec), label=lab)
    ref_line(a, x=18, label="the tip: 18")
    a.set_xlim(10, 40)
    a.set_xlabel("plays per seat in a round (2 players)")
    a.set_ylabel("share of seats")
    a.set_title("Distribution of plays per seat")
    a.legend(fontsize=8)
    a = ax[0, 1]
    top = 30
    for spec, (rt, fit) in fits.items():
        x = rt.pile_draws.to_numpy()
        edges = np.unique(np.concatenate([np.arange(0, x.max() + 3, 3)]))
        from lostcards.analysis.claims import binned
        cs, es = binned(x, rt.turns, rt.cluster, edges)
        band_plot(a, cs, es, color(spec), f"{spec}: {fit.intercept.estimate:.1f} + "
                                          f"{fit.slope.estimate:.2f} × draws")
    xs = np.array([0, top])
    a.plot(xs, 36 + xs, color="#d55e00", ls="--", lw=1.6, label="the tip: 36 + 1 × draws")
    a.set_xlim(0, top)
    a.set_ylim(30, 36 + top + 4)
    a.set_xlabel("cards taken off discard piles in the round (both players)")
    a.set_ylabel("turns in the round (mean, 95% band)")
    a.set_title("Each pile draw adds a turn")
    a.legend(fontsize=7)
    a = ax[0, 2]
    labels, ests, cols = [], [], []
    for p in ("random", "greedy", "expert"):
        labels += [f"{p}: per partner (4p)", f"{p}: per team (4p)", f"{p}: solitaire"]
        ests += [four[p][0], four[p][1], solo[p]]
        cols += [color(p)] * 3
    interval_bars(a, labels, ests, cols, unit="plays per round (mean, 95% interval)")
    for x, ls, lab in ((9, "--", "the tip: 9 per partner"), (18, "-.", "the tip: 18 per team"),
                       (24, ":", "the tip: 24 in solitaire")):
        a.axvline(x, color="#d55e00", ls=ls, lw=1.5, label=lab)
    a.legend(fontsize=7, loc="lower right")
    a.set_title("4 players and solitaire")
    fig.tight_layout()

    # ---- reading
    by = index(rows)
    ex = by["expert/plays_per_seat"]
    se = by.get(f"{ctx.search_spec}/plays_per_seat")
    gr = by["greedy/plays_per_seat"].est
    rn = by["random/plays_per_seat"].est
    fe = fits["expert"][1]
    summary = (f"The arithmetic holds exactly (36 turns plus one per pile draw), but 18 is a floor: expert gets "
               f"{ex.est.estimate:.1f} plays" + (f", search {se.est.estimate:.1f}" if se else "") +
               f", greedy {gr.estimate:.1f}; four players {four['expert'][0].estimate:.1f} per partner (expert); "
               f"solitaire 24.")
    reading = (
        f"The tip's arithmetic is exact: a round without pile draws has {fe.intercept.estimate:.1f} turns and each "
        f"card taken off a discard pile adds {fe.slope.estimate:.2f} turn (expert; the few rounds the stall rule "
        f"ends early pull the intercept under 36 for random). So 18 plays each is what a player who never "
        f"takes a discard gets (greedy: {gr.estimate:.1f}); a player who does takes more: expert "
        f"{ex.est.estimate:.1f} plays a round ({ex.verdict} against 'about 18'"
        f"{', at the edge of the band' if ex.verdict == 'holds' and ex.est.estimate > 19.5 else ''})"
        + (f", search {se.est.estimate:.1f} ({se.verdict})" if se else "")
        + f", random, which keeps drawing discards, {rn.estimate:.0f}. With four players each partner of the "
        f"expert team gets {four['expert'][0].estimate:.1f} plays and the team {four['expert'][1].estimate:.1f} "
        f"(greedy, which takes no discards: {four['greedy'][0].estimate:.2f} and {four['greedy'][1].estimate:.1f}); "
        f"the solitaire plays exactly 24 cards every time. For planning, count 18 plays plus one for each "
        f"discard either of you will take: about {ex.est.estimate - 18:.0f} more each for strong players.")
    details = ("| policy | 4 players: passes per seat and round |\n|---|---|\n" +
               "\n".join(f"| {p} | {four[p][2]:.2f} |" for p in four))
    return Result(rows, fig, reading, details, summary=summary)
