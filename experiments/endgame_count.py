"""endgame-count: at the end, play what scores now; count the plays left; skip the low cards; the last play."""
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
from lostcards.analysis.claims.measures import event_mean
from lostcards.analysis.claims.plots import rows_panel, tip_figure
from lostcards.analysis.claims.tolerance import WIN
from lostcards.analysis.claims.words import across, by_verdict, changes, row_text, value

ALL = ("2p", "4p-team", "1p", "lc")
SHORT = ("2p", "4p-team", "lc")           # solitaire's plan is never short of plays, and its last play is forced
HANDS = (Control(HOLDS, overrides=(("hand_size", 8),), variant=PUBLISHED_HAND, tables=("2p", "4p-team")),
         Control(HOLDS, overrides=(("hand_size", 6),), variant=EXPEDITIONS_HAND, tables=("lc",)))
TINY = (Control(FAILS, overrides=(("hand_size", 2),)), *HANDS)

CLAIM = Claim(
    id="endgame-count",
    order=10,
    title="At the end, play what scores now",
    tip=("At the end, play what scores now. A card still in your hand when the deck runs out is worth "
         "nothing. Count your plays left (the deck divided by the players), and when you can't lay "
         "everything, skip the low cards and play the high ones. On your last play, take whatever adds "
         "most to the board, even the card you were saving."),
    measured=("The tip's three rules, each switched off alone in expert's endgame (docs/expert.md, step 1) and "
              "tested on duplicate deals: `count=off` (the endgame waits for the last play instead of counting "
              "the plays left), `skip_low=off` (when plays are short the plan lays a suit's numbers from the "
              "bottom instead of keeping its high ones) and `last_play=off` (the last play is chosen like any "
              "other). For context: expert without its endgame at all, and the points of numbers left in hand "
              "at the end that could still have gone on the seat's side's opened expeditions (move logs)."),
    statements={"count": "count your plays left", "skip": "when you can't lay everything, skip the low cards",
                "last": "on your last play, take whatever adds most"},
    measures=(
        Measure("margin_count", "expert against not counting the plays left", gains(basis=WIN), "points a round",
                tables=SHORT, context=("1p",), bots=("expert",), pair=("", "count=off"), statement="count",
                controls=TINY),
        Measure("margin_skip_low", "expert against laying from the bottom when plays are short", gains(basis=WIN),
                "points a round", tables=SHORT, bots=("expert",), pair=("", "skip_low=off"), statement="skip",
                controls=(Control(HOLDS, overrides=(("hand_size", 10),), tables=("2p",)),
                          Control(HOLDS, overrides=(("hand_size", 12),), tables=("4p-team", "lc")),
                          Control(FAILS, overrides=(("hand_size", 8),), variant=PUBLISHED_HAND, tables=("2p",)),
                          Control(FAILS, overrides=(("hand_size", 4),), tables=("4p-team",)),
                          Control(FAILS, overrides=(("hand_size", 6),), variant=EXPEDITIONS_HAND, tables=("lc",)))),
        Measure("margin_last_play", "expert against a last play like any other", gains(basis=WIN), "points a round",
                tables=SHORT, bots=("expert",), pair=("", "last_play=off"), statement="last",
                controls=(Control(FAILS, switches="endgame=off",
                                  variant="expert without its endgame plan (a documented switch)"),
                          *HANDS)),
        Measure("margin_endgame", "expert against no endgame at all", described(), "points a round", decides=False,
                context=("2p",), bots=("expert",), pair=("", "endgame=off")),
        Measure("stranded_points", "playable points left in hand at the end", described(), "points", decides=False,
                context=("2p", "lc")),
    ),
    scope=SHORT,
    not_run=("solitaire: the tip's premise, a card stranded in hand when the deck runs out, does not arise "
             "there (its endgame plan is never short of plays and its last play is its last card), so its "
             "counting row is context and it has no rows for the other two rules."),
)


def measure(s):
    return {"stranded_points": event_mean(s.facts("hands"), "stranded_points")}


def figure(res):
    def stranded(a):
        rows_panel(a, [r for r in res.rows if r.measure.name == "stranded_points"],
                   "What a card left in hand costs (context)",
                   "playable points left in hand at the end of a round (mean, 95% interval)")

    return tip_figure(res, "The endgame's three rules, each switched off alone", (stranded,))


def reading(res):
    g = res.get
    return (f"Counting the plays left is worth {across(res, 'margin_count')} to expert; keeping the high cards when plays are short {row_text(g('margin_skip_low'))}; "
            f"taking the best last play {row_text(g('margin_last_play'))}. Without its endgame at all expert "
            f"scores {row_text(g('margin_endgame'))} less, but that measures how much this bot leans on its endgame "
            f"(its mid-round play holds cards back), not what counting is worth to any player. With the endgame it "
            f"ends a round with {value(g('stranded_points'))} points of playable numbers in hand "
            f"(search {value(g('stranded_points', 'search'))}, random {value(g('stranded_points', 'random'))}).")


def tips(res):
    c, s, last = (res.get(k) for k in ("margin_count", "margin_skip_low", "margin_last_play"))
    return [by_verdict(c, "At the end, count your plays left and play what scores now.",
                       "Counting your plays left at the end is not worth a point of win rate.",
                       "Whether counting your plays left at the end pays is undecided."),
            f"A strong bot that stops counting {changes(res, 'margin_count', 'loses', 'gains')}; in solitaire "
            f"nothing is stranded when the deck runs out, so it is not a test there "
            f"({row_text(res.get('margin_count', table='1p'))} points a round).",
            by_verdict(s, "With two players, when you can't lay everything, skip the low cards and keep the high ones.",
                       "With two players, when you can't lay everything, skipping the low cards is not worth a "
                       "point of win rate.",
                       "With two players, whether skipping the low cards pays when plays are short is undecided.",
                       harmful="With two players, when you can't lay everything, keep the low cards: skipping them "
                               "costs points.",
                       no_effect="With two players, when you can't lay everything, skipping the low cards makes no "
                                 "material difference."),
            f"A strong bot that lays a suit from the bottom instead of keeping the high cards "
            f"{changes(res, 'margin_skip_low', 'loses', 'gains')}.",
            by_verdict(last, "On your last play, take whatever adds most to the board.",
                       "Taking whatever adds most on your last play is not worth a point of win rate.",
                       "Whether the last play should take whatever adds most is undecided."),
            f"A strong bot that plays its last card like any other {changes(res, 'margin_last_play', 'loses', 'gains')}."]
