"""discards-feed-opponent: a 9 thrown into an expedition the opponent has started is a 9 handed over."""
from lostcards.analysis.claims import (
    EXPEDITIONS_HAND,
    FAILS,
    HOLDS,
    PUBLISHED_HAND,
    Claim,
    Control,
    Measure,
    described,
    gains,
)
from lostcards.analysis.claims.measures import event_share
from lostcards.analysis.claims.plots import rows_panel, tip_figure
from lostcards.analysis.claims.tolerance import WIN
from lostcards.analysis.claims.words import across, by_verdict, changes, value
from lostcards.stats import cluster_diff, cluster_ratio

TABLES = ("2p", "4p-team", "lc")

CLAIM = Claim(
    id="discards-feed-opponent",
    order=8,
    title="Your discards feed your opponent",
    tip=("Your discards are your opponent's draw pile. Their board shows which 20-point bets they have made, "
         "and a 9 thrown into one of those is a 9 handed over."),
    measured=("Tested by doing otherwise: expert against `expert:safety=off` (the same bot, blind to what a "
              "discard is worth to the other side, whose board it no longer reads) on duplicate deals. For "
              "context, every number a bot discarded (move logs), by the other side's board when it was thrown: into an "
              "expedition of its suit that side has started and can still lay it on, into a suit it has not "
              "started, or a card it can no longer lay. \"A 9 handed over\": the points the other side scores "
              "with the numbers thrown into its started expeditions, per point of their face value (the card's "
              "value times that expedition's multiplier when laid, 0 otherwise). \"Their board shows\": the "
              "share of such throws the other side lays, minus the share it lays of those thrown into suits it "
              "has not started."),
    statements={"feed": "your discards feed your opponent: read their board before you throw"},
    scope=TABLES,
    measures=(
        Measure("margin_feed", "expert against discarding blind to what the other side can lay", gains(basis=WIN),
                "points a round", tables=TABLES, bots=("expert",), pair=("", "safety=off"), statement="feed",
                controls=(Control(FAILS, switches="danger=0",
                                  variant="expert with its danger weight at 0 (a documented switch)"),
                          Control(HOLDS, overrides=(("hand_size", 8),), variant=PUBLISHED_HAND, tables=("2p", "4p-team")),
                          Control(HOLDS, overrides=(("hand_size", 6),), variant=EXPEDITIONS_HAND, tables=("lc",)))),
        Measure("handed_per_point", "points handed over per point of face value, thrown into a started expedition "
                "(the throws the bot chose)", described(), "", decides=False, context=TABLES),
        Measure("laid_started_minus_unstarted", "share laid by the other side: started minus not started "
                "(the throws the bot chose)", described(), "share", decides=False, context=TABLES),
        Measure("laid_started", "share laid by the other side, thrown into a started expedition", described(),
                "share", decides=False, context=TABLES),
        Measure("laid_unstarted", "share laid by the other side, thrown into a suit it has not started",
                described(), "share", decides=False, context=TABLES),
        Measure("throws_started", "share of the bot's number discards thrown into a started expedition",
                described(), "share", decides=False, context=TABLES),
    ),
    not_run=("solitaire: no opponent. The throws a bot chose to make into started expeditions (a few percent "
             "of its discards) are a selected sample, so what they hand over is context; the tip is decided by "
             "the paired intervention (expert against its version blind to the other side's board)."),
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
    def handed(a):
        rows_panel(a, [r for r in res.rows if r.measure.name == "handed_per_point"],
                   "A thrown number handed over (context: the throws the bot chose)",
                   "points handed over per point of face value, thrown into a started expedition")

    def laid(a):
        rows_panel(a, [r for r in res.rows if r.measure.name == "laid_started_minus_unstarted"],
                   "Their board says what they lay (context)",
                   "laid by the other side: started minus not started (percentage points)", ref=0,
                   ref_label="no difference", scale=100)

    return tip_figure(res, "Your discards feed your opponent", (handed, laid))


def reading(res):
    g = res.get
    return (f"Reading the other side's board before a throw is worth {across(res, 'margin_feed', TABLES)} to "
            f"expert (against its version blind to what the other side can lay: the same comparison decides the "
            f"safe throw, a statement about which card to throw). For context, the throws expert "
            f"chose to make into an expedition its opponent has started (and can still lay them on) are "
            f"{value(g('throws_started'))} of its number discards ({value(g('throws_started', 'random'))} of "
            f"random's), and bring the opponent {value(g('handed_per_point'))} points per point of face value "
            f"(search's {value(g('handed_per_point', 'search'))}); the opponent lays {value(g('laid_started'))} of "
            f"them, against {value(g('laid_unstarted'))} of those thrown into suits it has not started. Those "
            "throws are the bot's own choice (it throws there when it judges the card safe enough), so they "
            "describe, and do not decide.")


def tips(res):
    m = res.get("margin_feed")
    return [by_verdict(m, "Your discards feed your opponent: read their board before you throw.",
                       "Reading the other side's board before you throw is not worth a point of win rate.",
                       "Whether reading the other side's board before a throw pays is undecided.",
                       harmful="Reading the other side's board before you throw costs points."),
            f"A strong bot that stops reading the other side's board before it throws "
            f"{changes(res, 'margin_feed', 'loses', 'gains', tables=TABLES)}."]
