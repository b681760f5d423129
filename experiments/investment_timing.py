"""investment-timing: lay an investment only when the numbers to justify it are already in your hand."""

from lostcards.analysis.claims import FAILS, HOLDS, PUBLISHED_HAND, Claim, Control, Measure, described, gains
from lostcards.analysis.claims.held import held_measures, held_tips
from lostcards.analysis.claims.measures import event_mean, sweep
from lostcards.analysis.claims.plots import sweep_plot, tip_figure
from lostcards.analysis.claims.tolerance import WIN
from lostcards.analysis.claims.words import across, by_verdict, changes, row_text, value

PAIRED = ("2p", "4p-team", "1p", "lc")
THRESHOLDS = (5, 10, 15, 20, 25, 30)
OPTIMIST = "an optimist: expert counting each unseen card at 5 times its expected value (a documented switch)"
FUNDED = 20                 # the cost: numbers in hand that pay it

CLAIM = Claim(
    id="investment-timing",
    order=4,
    title="Invest only on numbers in hand",
    tip=("Lay an investment only when the numbers to justify it are already in your hand. It must go down "
         "before any number, and the multiplier applies to a loss too: ×2 on −14 is −28."),
    measured=("Tested by doing it, two ways. Held to a move rule: `improve:rules=fund20` (improve, none of whose "
              "own candidate moves lays an investment unless the suit's numbers in hand add up to 20) against improve "
              "unheld, on the same duplicate deals (2 players; `rules=fund20` holds any bot to it, and expert held "
              "so is shown for context in every table). Through expert's own switch, the second reading: "
              "`expert:invest_hand=20` (expert, laying an investment only with at least "
              "20, the cost, in the suit's numbers in hand; its endgame is exempt) against expert as it is, on "
              "duplicate deals, in every table; the threshold swept from 5 to 30 (2 players); expert against "
              "its eager and never-investing versions. For context, from the move logs: the final score of "
              "invested expeditions whose first investment went down on less than 20 in hand, and on 20 or "
              "more (the bot's own choices, so not a test)."),
    statements={"funded": "lay an investment only on numbers already in hand"},
    measures=(
        Measure("margin_invest_20", "invest only with 20+ in hand, against expert", gains(basis=WIN), "points a round",
                tables=PAIRED, bots=("expert",), pair=("invest_hand=20", ""), statement="funded",
                controls=(Control(HOLDS, switches="rho=5", variant=OPTIMIST, tables=("2p", "1p", "lc")),
                          Control(HOLDS, overrides=(("hand_size", 12),), tables=("4p-team",)),
                          Control(FAILS, overrides=(("hand_size", 8),), variant=PUBLISHED_HAND),
                          Control(FAILS, overrides=(("cost", 0),)))),
        *held_measures("fund20", "held to fund20 (an investment only on 20+ of its numbers in hand), against "
                       "itself unheld", "funded", context=PAIRED,
                       controls=(Control(HOLDS, switches="rho=5", overrides=(("cost", 30),)),
                                 Control(FAILS, overrides=(("hand_size", 8),), variant=PUBLISHED_HAND))),
        *sweep("margin_invest", "invest only with {v}+ in hand, against expert", "invest_hand", [t for t in THRESHOLDS if t != 20]),
        Measure("margin_eager", "invest on hope (eager), against expert", described(), "points a round",
                decides=False, context=("2p",), bots=("expert",), pair=("invest=eager", "")),
        Measure("margin_never", "expert against never investing", described(), "points a round",
                decides=False, context=("2p",), bots=("expert",), pair=("", "invest=never")),
        Measure("score_invested_short", "final score, first investment on less than 20 in hand (the bot's choice)",
                described(), "points", decides=False, context=("2p", "lc")),
        Measure("score_invested_funded", "final score, first investment on 20 or more in hand (the bot's choice)",
                described(), "points", decides=False, context=("2p", "lc")),
    ),
    not_run=("search and the casual bots: weaker than expert; improve's held rows are 2 players only (its "
             "rounds are costly)."),
)


def measure(s):
    x = s.facts("expeditions")
    x = x[x.investments > 0]
    return {"score_invested_short": event_mean(x[x.invest_held < FUNDED], "score"),
            "score_invested_funded": event_mean(x[x.invest_held >= FUNDED], "score")}


def figure(res):
    def thresholds(a):
        names = [(f"margin_invest_{t}", t) for t in THRESHOLDS]
        sweep_plot(a, res, names, tables=("2p",), xlabel="lay an investment only with at least this in hand "
                   "(the suit's numbers)", title="Any threshold costs expert (context, 2 players)")
        a.title.set_fontsize(10)
        a.axvline(FUNDED, color="#333333", ls=":", lw=1.2, label=f"the deciding rule: {FUNDED}+ in hand")
        a.legend(fontsize=7)

    return tip_figure(res, "Investments: only on numbers already in hand?", (thresholds,))


def reading(res):
    return (f"Holding expert to the tip (an investment only on 20 or more in hand) changes its score by "
            f"{across(res, 'margin_invest_20')}. Investing at all pays "
            f"(expert against never investing: {row_text(res.get('margin_never'))}); investing on hope instead "
            f"of expert's rule: {row_text(res.get('margin_eager'))}. Expert's own investments on less than 20 in "
            f"hand end at {value(res.get('score_invested_short'), sign=True)} on average, those on 20 or more at "
            f"{value(res.get('score_invested_funded'), sign=True)}; random's on less than 20 at "
            f"{value(res.get('score_invested_short', 'random'), sign=True)}: the multiplier does punish an "
            "investment that its numbers never pay.")


def tips(res):
    m2 = res.get("margin_invest_20")
    return [f"A strong bot that lays an investment only on 20 or more already in hand "
            f"{changes(res, 'margin_invest_20', tables=('2p', '4p-team', '1p', 'lc'))}: "
            + by_verdict(m2, "wait for the numbers before you invest.",
                         "waiting for the numbers does not pay.", "whether waiting pays stays open.",
                         harmful="waiting for the numbers costs points.",
                         no_effect="waiting for the numbers makes no material difference."),
            *held_tips(res, "fund20", "laying an investment only on 20 or more in hand")]
