"""plays-per-round: how many plays a seat (or a team) gets in a round."""
from lostcards.analysis.claims import (
    BOTS,
    FAILS,
    HOLDS,
    LADDER_GREEDY,
    LADDER_RANDOM,
    OPPONENT,
    Claim,
    Control,
    Measure,
    about,
    described,
)
from lostcards.analysis.claims.measures import distribution, fit, unit_mean, unit_percentiles
from lostcards.analysis.claims.plots import color, interval_bars, ref_line, tip_figure
from lostcards.analysis.claims.tolerance import CARD
from lostcards.analysis.claims.words import by_verdict, short, value

ALL = ("2p", "4p-seat", "4p-team", "1p", "lc")


def plays_each(setting) -> float:
    """The tip's arithmetic: the draw pile after the deal, divided by the players (per team: by the sides);
    solitaire plays every card of its half deck."""
    r = setting.rules()
    if r.players == 1:
        return r.deck_size // 2
    pile = r.deck_size - r.players * r.hand_size
    return pile / (r.sides if setting.spec.unit == "team" else r.players)


CLAIM = Claim(
    id="plays-per-round",
    order=3,
    title="About 18 plays each",
    tip=("A round is about 18 plays each. The deck starts at 36 and every draw off it uses one card, so two "
         "players get 18 plays each, and every card either of you takes off a discard pile adds one more "
         "turn to the round. At four seats each partner gets about 9, which is 18 for the team, and the "
         "solitaire plays all 24 of its cards."),
    measured=("Plays (cards played to an expedition or discarded; a pass is not a play) per seat and round, "
              "per team with 4 players; the expected number is the tip's arithmetic for each table: the draw "
              "pile after the deal divided by the players (18 with 2 players, 9 per partner and 18 per team "
              "with 4, 22 under lost-cities). It decides with 2 players and per seat with 4; a team's plays "
              "are its two seats' (the same quantity, twice), the solitaire's 24 is the rules' arithmetic, and "
              "lost-cities is not the tip's deck: those are context. Their distribution (10th, 50th, 90th percentile). Turns against "
              "the cards taken off discard piles in a round (a line): an identity of the rules (each turn "
              "draws once, and the round ends when the draw pile does), so it is context, as is the "
              "solitaire's 24."),
    statements={"plays": "about the deck divided by the players each"},
    bots=(*BOTS, OPPONENT),
    scope=("2p", "4p-seat", "4p-team", "1p"),
    measures=(
        Measure("plays", "plays per seat (team tables: per team)", lambda st: about(plays_each(st), basis=CARD), "plays",
                tables=("2p", "4p-seat"), context=("4p-team", "1p", "lc"), statement="plays",
                controls=(Control(FAILS, policy="random", variant=LADDER_RANDOM),
                          Control(HOLDS, policy="greedy", variant=LADDER_GREEDY))),
        *distribution("plays", "plays per seat (team tables: per team)", "plays", ALL),
        Measure("turns_slope", "turns added per pile draw (slope)", described("1 by the rules"), "turns",
                decides=False, context=("2p", "lc")),
        Measure("turns_intercept", "turns of a round with no pile draw (intercept)",
                described("the draw pile, by the rules"), "turns", decides=False, context=("2p", "lc")),
    ),
)


def measure(s):
    out = {"plays": unit_mean(s, "seats", "plays"), **unit_percentiles(s, "seats", "plays", "plays")}
    if s.players == 2:
        seats = s.whole("seats")
        per_round = seats.groupby(["round", "game"] if "game" in seats else ["round"], observed=True)
        t = per_round.pile_draws.sum().to_frame().join(
            s.whole("rounds").set_index(["round", "game"] if "game" in seats else ["round"]).turns)
        t = t.reset_index()
        f = fit(t.assign(cluster=t["round"]), "pile_draws", "turns", "turns")
        out.update(turns_slope=f["turns_slope"], turns_intercept=f["turns_intercept"])
    return out


def figure(res):
    tables = tuple(dict.fromkeys(r.table for r in res.rows if r.decides))

    def every_bot(a):
        rows = [r for t in tables for r in res.rows if r.measure.name == "plays" and r.table == t]
        interval_bars(a, [f"{r.bot} · {r.table}" for r in rows], [r.est for r in rows], [color(r.bot) for r in rows],
                      unit="plays in a round, per seat (mean, interval)")
        for t in tables:
            x = next(r.expect.value for r in rows if r.table == t)
            ref_line(a, x=x, label=f"the tip's arithmetic, {t}: {x:g}", color_="#333333")
        a.set_title("Every bot's plays, in the deciding tables (context)", fontsize=10)
        a.legend(fontsize=7)

    return tip_figure(res, "Plays per round against the tip's arithmetic", (every_bot,))


def reading(res):
    ex, im = res.get("plays"), res.get("plays", "improve")
    sl = res.get("turns_slope")
    parts = [f"A strong 2-player bot gets {value(ex)} plays a round (expert; improve {value(im)}), the tip's "
             f"18 plus about half the cards both players take off discard piles"]
    if sl:
        parts.append(f"each pile draw adds {value(sl)} turn to the round, as the rules make it")
    p4, t4 = res.get("plays", table="4p-seat"), res.get("plays", table="4p-team")
    parts.append(f"with four players a partner gets {value(p4)} and the team {value(t4)}")
    lc = res.get("plays", table="lc")
    parts.append(f"under lost-cities {value(lc)} against the tip's arithmetic of {short(lc.expect.value) if lc else '–'}")
    rn = res.get("plays", "random")
    parts.append(f"random play, which keeps taking discards, gets {value(rn)}, which is why 'about 18' is a "
                 "strong player's count")
    return "; ".join(parts) + "."


def _other_bot(ex, other, bot: str, holds: str, fails: str) -> str:
    """' (improve: N, words)' for the other deciding bot, with its own verdict's words."""
    if other is None:
        return ""
    return (f" ({bot}: {value(other)}, "
            f"{by_verdict(other, holds, fails, 'undecided', no_effect=fails, too_few='too few games to tell')})")


def tips(res):
    ex, im = res.get("plays"), res.get("plays", "improve")
    lo, hi = res.get("plays_p10"), res.get("plays_p90")
    p4, t4 = res.get("plays", table="4p-seat"), res.get("plays", table="4p-team")
    sl = res.get("turns_slope")
    out = [by_verdict(ex, "A two-player round is about 18 plays each.",
                      "A two-player round is not about 18 plays each but more.",
                      "Whether a two-player round is about 18 plays each is undecided."),
           f"A strong bot gets {value(ex)} plays a round (expert; most rounds {value(lo)} to {value(hi)})"
           + _other_bot(ex, im, "improve", "about 18 too", "not about 18")
           + (f": each card taken off a discard pile adds {value(sl)} turn to the round, shared by both players."
              if sl else ".")]
    out.append(f"At four seats a partner gets {value(p4)} plays a round, "
               + by_verdict(p4, "about the tip's 9", "not the tip's 9", "undecided against the tip's 9")
               + f", and the team {value(t4)}.")
    return out
