"""play-low-early: low cards are playable only early; if you mean to set off, set off early."""
import numpy as np

from lostcards.analysis.claims import (
    EXPEDITIONS_HAND,
    FAILS,
    HOLDS,
    LADDER_GREEDY,
    PUBLISHED_HAND,
    Claim,
    Control,
    Measure,
    described,
    gains,
)
from lostcards.analysis.claims.held import held_measures, held_tips
from lostcards.analysis.claims.measures import event_share
from lostcards.analysis.claims.plots import band_plot, color, tip_figure
from lostcards.analysis.claims.tolerance import WIN
from lostcards.analysis.claims.words import across, by_verdict, changes, value
from lostcards.analysis.movelog import DEALT, LAID
from lostcards.stats import cluster_diff

PAIRED = ("2p", "4p-team", "1p", "lc")
DELAY = 6                   # own turns without opening an expedition: 6 x players turns of the round


CLAIM = Claim(
    id="play-low-early",
    order=9,
    title="Play low cards early",
    tip=("Play low cards early or lose them. A 2 goes down only before any other number, so if you mean to "
         "set off, set off early."),
    measured=("\"Set off early\", tested by doing otherwise, two ways. Held to a move rule: improve against "
              "`improve:rules=open6` (improve, none of whose own candidate moves opens an expedition in the round's "
              "first 6 turns per player) on the same duplicate deals (2 players; `rules=open6` holds any bot to it, "
              "and expert held so is shown for context in every table). Through expert's own switch, the second "
              "reading: expert against `expert:open_from=N` (the same bot, "
              "opening no expedition in the round's first N turns, N = 6 turns per player: 12 with 2 players, 24 "
              "with 4, 6 in solitaire; its endgame is exempt) on duplicate deals, in every table; N swept with 2 "
              "players. For context, from the move logs: what became of every 2, 3 and 4 that entered a hand "
              "(laid, discarded or stranded), dealt or drawn late (12 cards or fewer left in the deck); that a "
              "late low card is lost holds for random play too, so it decides nothing."),
    statements={"early": "if you mean to set off, set off early"},
    measures=(
        Measure("margin_set_off_early", "expert against opening only after 6 turns per player", gains(basis=WIN),
                "points a round", tables=PAIRED, bots=("expert",), pair=("", lambda r: f"open_from={DELAY * r.players}"),
                statement="early",
                controls=(Control(FAILS, overrides=(("numbers", (7, 8, 9, 10)),), tables=("2p",)),
                          Control(FAILS, overrides=(("numbers", (5, 6, 7, 8, 9, 10)),), tables=("4p-team",)),
                          Control(FAILS, overrides=(("numbers", (8, 9, 10)),), tables=("1p",)),
                          Control(FAILS, overrides=(("numbers", (8, 9, 10)), ("bonus_cards", 6)), tables=("lc",)),
                          Control(HOLDS, overrides=(("hand_size", 8),), variant=PUBLISHED_HAND, tables=("2p", "4p-team", "1p")),
                          Control(HOLDS, overrides=(("hand_size", 6),), variant=EXPEDITIONS_HAND, tables=("lc",)))),
        *held_measures("open6", "against itself held to open6 (no opening in the first 6 turns per player)",
                       "early", context=PAIRED, prescribed=False,
                       controls=(Control(HOLDS, overrides=(("hand_size", 8),), variant=PUBLISHED_HAND),
                                 Control(FAILS, policy="greedy", variant=LADDER_GREEDY))),
        *(Measure(f"margin_delay_{n}", f"expert against opening only from turn {n}", described(), "points a round",
                  decides=False, context=("2p",), bots=("expert",), pair=("", f"open_from={n}")) for n in (4, 8, 20)),
        Measure("laid_dealt_low", "2-4 dealt: share laid", described(), "share", decides=False, context=("2p", "lc")),
        Measure("laid_late_low", "2-4 drawn late: share laid", described(), "share", decides=False,
                context=("2p", "lc")),
        Measure("laid_dealt_minus_late", "2-4: laid share, dealt minus drawn late", described(), "share",
                decides=False, context=("2p", "lc")),
        Measure("laid_late_high", "8-10 drawn late: share laid", described(), "share", decides=False,
                context=("2p",)),
    ),
    not_run=("search and the casual bots: weaker than expert; improve's held rows are 2 players only (its "
             "rounds are costly)."),
)


def measure(s):
    e = s.facts("entries")
    e = e[~e.investment.to_numpy(bool)]
    dealt = e.source.to_numpy() == DEALT
    late = ~dealt & (e.deck.to_numpy() <= 12)
    low = (e.value >= 2).to_numpy() & (e.value <= 4).to_numpy()
    high = e.value.to_numpy() >= 8
    laid = e.fate.to_numpy() == LAID
    d, la = e[dealt & low], e[late & low]
    return {"laid_dealt_low": event_share(d, laid[dealt & low]), "laid_late_low": event_share(la, laid[late & low]),
            "laid_dealt_minus_late": cluster_diff(laid[dealt & low].astype(float), d.cluster,
                                                  laid[late & low].astype(float), la.cluster),
            "laid_late_high": event_share(e[late & high], laid[late & high])}


def figure(res):
    def waiting(a):
        early = res.get("margin_set_off_early")
        pts = [(n, res.get(f"margin_delay_{n}")) for n in (4, 8, 20)]
        if early:
            pts.append((DELAY * early.setting.spec.players, early))
        pts = sorted((n, r.est) for n, r in pts if r)
        if pts:
            band_plot(a, np.array([p[0] for p in pts], float), [p[1] for p in pts], color("expert"), "2 players")
        a.axhline(0, color="#333333", lw=0.8)
        a.set_xlabel("no expedition opened before this turn of the round")
        a.set_ylabel("expert's margin over the delayed version\n(points a round, 95% band)")
        a.set_title("The longer the wait, the more it costs (context)", fontsize=10)
        a.legend(fontsize=8)

    return tip_figure(res, "Set off early? Openings delayed", (waiting,))


def reading(res):
    g = res.get
    return (f"Opening nothing in the first 6 turns per player costs expert {across(res, 'margin_set_off_early')}. "
            f"Expert lays "
            f"{value(g('laid_dealt_low'))} of the 2s, 3s and 4s it is dealt and {value(g('laid_late_low'))} of those "
            f"drawn late, while it lays {value(g('laid_late_high'))} of late 8s, 9s and 10s; random play loses late "
            f"low cards as well ({value(g('laid_late_low', 'random'))} laid), which is why that count cannot decide "
            "the tip and the delayed-opening test does.")


def tips(res):
    m = res.get("margin_set_off_early")
    return [f"If you mean to set off, set off early: waiting six turns before opening anything "
            f"{changes(res, 'margin_set_off_early', 'costs', 'gains', tables=('2p', '4p-team', '1p', 'lc'))}"
            + by_verdict(m, ": opening early pays.", ": the tip does not hold here.", ": undecided.",
                         harmful=": waiting pays here.", no_effect=": no material difference."),
            f"Low cards are laid early or lost: a strong bot lays {value(res.get('laid_dealt_low'))} of the 2s, 3s "
            f"and 4s it is dealt but only {value(res.get('laid_late_low'))} of those it draws late.",
            *held_tips(res, "open6", "opening nothing in its first six turns", prescribed=False)]
