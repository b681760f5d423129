"""discards-feed-opponent: a 9 thrown into an expedition the opponent has started is a 9 handed over."""
from lostcards.analysis.claims import FAILS, HOLDS, Claim, Control, Measure, at_least, described, gains
from lostcards.analysis.claims.measures import event_share
from lostcards.analysis.claims.plots import new_figure, rows_panel
from lostcards.analysis.claims.words import by_verdict, value
from lostcards.analysis.stats import cluster_diff, cluster_ratio

TABLES = ("2p", "4p-team", "lc")
CONTROLS = (Control(FAILS, policy="random"), Control(HOLDS))

CLAIM = Claim(
    id="discards-feed-opponent",
    order=8,
    title="Your discards feed your opponent",
    tip=("Your discards are your opponent's draw pile. Their board shows which 20-point bets they have made, "
         "and a 9 thrown into one of those is a 9 handed over."),
    measured=("Every number a bot discarded (move logs), by the other side's board when it was thrown: into an "
              "expedition of its suit that side has started and can still lay it on, into a suit it has not "
              "started, or a card it can no longer lay. \"A 9 handed over\": the points the other side scores "
              "with the numbers thrown into its started expeditions, per point of their face value (the card's "
              "value times that expedition's multiplier when laid, 0 otherwise). \"Their board shows\": the "
              "share of such throws the other side lays, minus the share it lays of those thrown into suits it "
              "has not started."),
    statements={"handed": "a card thrown into a started expedition is handed over",
                "board": "their board shows which throws feed them"},
    measures=(
        Measure("handed_per_point", "points handed over per point of face value, thrown into a started expedition",
                at_least(0.9, 0.1), "", tables=TABLES, statement="handed", controls=CONTROLS),
        Measure("laid_started_minus_unstarted", "share laid by the other side: started minus not started",
                gains(0.1, "(a share)", "at least 10 percentage points more often"), "share", tables=TABLES,
                statement="board", controls=CONTROLS),
        Measure("laid_started", "share laid by the other side, thrown into a started expedition", described(),
                "share", decides=False, context=TABLES),
        Measure("laid_unstarted", "share laid by the other side, thrown into a suit it has not started",
                described(), "share", decides=False, context=TABLES),
        Measure("throws_started", "share of the bot's number discards thrown into a started expedition",
                described(), "share", decides=False, context=TABLES),
    ),
    not_run="solitaire: no opponent.",
)


def measure(s):
    d = s.facts("discards")
    d = d[~d.investment.to_numpy(bool)]
    started = d.opp_started.to_numpy(bool) & ~d.opp_dead.to_numpy(bool)
    unstarted = ~d.opp_started.to_numpy(bool)
    a, b = d[started], d[unstarted]
    return {"handed_per_point": cluster_ratio(a.opp_points.to_numpy(float), a.value.to_numpy(float), a.cluster),
            "laid_started_minus_unstarted": cluster_diff(a.laid_by_opp.to_numpy(float), a.cluster,
                                                         b.laid_by_opp.to_numpy(float), b.cluster),
            "laid_started": event_share(a, a.laid_by_opp.to_numpy(bool)),
            "laid_unstarted": event_share(b, b.laid_by_opp.to_numpy(bool)),
            "throws_started": event_share(d, started)}


def figure(res):
    fig, ax = new_figure(2, 1, width=6.2, height=4.6, title="Your discards feed your opponent")
    rows_panel(ax[0, 0], [r for r in res.rows if r.measure.name == "handed_per_point"],
               "points handed over per point of face value", "points", ref=0.9, ref_label="the tip (at least 0.9)")
    rows_panel(ax[0, 1], [r for r in res.rows if r.measure.name == "laid_started_minus_unstarted"],
               "laid by the other side: started minus not started", "percentage points", ref=0, scale=100)
    fig.tight_layout()
    return fig


def reading(res):
    g = res.get
    return (f"A number expert throws into an expedition its opponent has started (and can still lay it on) brings "
            f"the opponent {value(g('handed_per_point'))} points per point of its face value (search "
            f"{value(g('handed_per_point', 'search'))}; a 4-player team "
            f"{value(g('handed_per_point', table='4p-team'))}); the opponent lays {value(g('laid_started'))} of "
            f"them, against {value(g('laid_unstarted'))} of those thrown into suits it has not started. Random "
            f"play's throws bring {value(g('handed_per_point', 'random'))}, because a random opponent rarely lays "
            f"them. Expert makes that throw rarely: {value(g('throws_started'))} of its number discards, against "
            f"{value(g('throws_started', 'random'))} of random's.")


def tips(res):
    h, b = res.get("handed_per_point"), res.get("laid_started_minus_unstarted")
    return [by_verdict(h, "Your discards are your opponent's draw pile: a number thrown into an expedition they have "
                          f"started is a number handed over ({value(h)} points for every point of face value, "
                          "multipliers included).",
                       f"A number thrown into an expedition the opponent has started brings them {value(h)} points "
                       "per point of face value, less than the tip says.",
                       f"A number thrown into a started expedition brings the opponent {value(h)} points per point "
                       "of face value."),
            f"Read their board: they lay {value(res.get('laid_started'))} of the throws into their started "
            f"expeditions, {value(res.get('laid_unstarted'))} of those into suits they have not opened"
            + by_verdict(b, ".", " (no clear difference).", ".")]
