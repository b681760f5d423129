"""expedition-cost: an expedition costs 20; is opening on the four low cards (14 in hand) a losing decision?"""

from lostcards.analysis.claims import FAILS, HOLDS, PUBLISHED_HAND, Claim, Control, Measure, described, more_than
from lostcards.analysis.claims.measures import event_mean, event_share, rms, rms_difference, sweep
from lostcards.analysis.claims.plots import rows_panel, tip_figure
from lostcards.analysis.claims.tolerance import WIN
from lostcards.analysis.claims.words import across, by_verdict, row_text, value

PAIRED = ("2p", "4p-team", "1p", "lc")
THRESHOLDS = (0, 5, 10, 15, 20, 25)
LOW = 14                   # 2 + 3 + 4 + 5: the tip's four low cards
STAKES = ("2p", "1p")      # where the first card's stake is set against the fifth's
STAKE_CONTEXT = ("lc",)

CLAIM = Claim(
    id="expedition-cost",
    order=1,
    title="An expedition costs 20",
    tip=("An expedition costs 20 before it pays. 2, 3, 4 and 5 together come to 14, so the decision that "
         "matters is the first card on an expedition, not the fifth."),
    measured=("What a decision is worth, from the analysis kernel (docs/analyze.md): on every turn of "
              "expert's own rounds, for the first card in hand that would open an expedition of the seat's side "
              "and the first that would be the fifth card of one, two moves are played out from the same 64 "
              "determinizations of the hidden cards, by expert for every seat: lay the card, or throw it (both "
              "drawing off the deck). The difference of the side's mean final margins is that decision's "
              "stake; every card the seat may lay counts, laid or not, so nothing conditions on the bot's "
              "choice. The statement holds when the first card's stake, as a root mean square (split-half "
              "products, so the play-outs' noise does not inflate it), is larger than the fifth's by at least "
              "the points worth one percentage point of win rate. For context, one reading of the tip as a "
              "rule: open only with at least 15 points of the suit's numbers in hand, a threshold the tip does "
              "not name: `expert:open_hand=15` against expert on duplicate deals, in every table, and the "
              "threshold swept from 5 to 25 (2 players); from the move logs, how often an opened expedition "
              "ends below zero, what one opened on 14 or less ends at (the bot's own choice), and the points "
              "the 1st and 5th card add (the 1st card's include the cost by bookkeeping)."),
    statements={"first": "the decision that matters is the first card on an expedition, not the fifth"},
    measures=(
        Measure("stake_first_minus_fifth", "the stake of a first card's lay-or-throw decision less a fifth card's "
                "(root mean squares)", more_than(0, basis=WIN, text="the first card's stake larger, by at least "
                                                 "{t} points ({basis})".replace("{basis}", WIN.short)),
                "points", tables=STAKES, context=STAKE_CONTEXT, bots=("expert",), statement="first",
                controls=(Control(HOLDS, overrides=(("cost", 45), ("investments", 0))),
                          Control(FAILS, overrides=(("cost", 0),)),
                          Control(FAILS, overrides=(("hand_size", 8),), variant=PUBLISHED_HAND, tables=("2p",)))),
        Measure("stake_first", "stake of a decision to lay or throw a card that would open an expedition (root "
                "mean square)", described(), "points", decides=False, context=STAKES + STAKE_CONTEXT,
                bots=("expert",)),
        Measure("stake_fifth", "stake of a decision to lay or throw a card that would be an expedition's fifth "
                "(root mean square)", described(), "points", decides=False, context=STAKES + STAKE_CONTEXT,
                bots=("expert",)),
        Measure("stake_noise", "the play-outs' standard error of one decision's stake (mean)", described(),
                "points", decides=False, context=STAKES + STAKE_CONTEXT, bots=("expert",)),
        Measure("margin_open_15", "open only with 15+ in hand, against expert (a reading of the tip)", described(),
                "points a round", decides=False, tables=(), context=PAIRED, bots=("expert",),
                pair=("open_hand=15", ""), statement="first"),
        *sweep("margin_open", "open only with {v}+ in hand, against expert", "open_hand", [t for t in THRESHOLDS if t not in (0, 15)]),
        Measure("below_zero", "opened expeditions ending below 0", described(), "share", decides=False,
                context=("2p", "lc", "4p-team")),
        Measure("score_open_low", f"final score of expeditions opened on {LOW} or less in hand (the bot's choice)",
                described(), "points", decides=False, context=("2p", "lc")),
        Measure("points_1st", "points the 1st card adds (the cost included, by bookkeeping)", described(),
                "points", decides=False, context=("2p",)),
        Measure("points_5th", "points the 5th card adds", described(), "points", decides=False, context=("2p",)),
    ),
    not_run=("the stakes of improve's decisions: its rounds are logged as facts, not replayable records, within "
             "the report's budget, so the stakes are played out on expert's rounds (by expert, for every seat); "
             "search and the casual bots: no switch for the opening rule, so the paired rows are expert's."),
)


def measure(s):
    x = s.facts("expeditions")
    c = s.facts("cards")
    low = x[x.held_at_open <= LOW]
    out = {"below_zero": event_share(x, x.score < 0), "score_open_low": event_mean(low, "score"),
           "points_1st": event_mean(c[c.k == 1], "points"), "points_5th": event_mean(c[c.k == 5], "points")}
    if s.bot == "expert" and s.setting.table in STAKES + STAKE_CONTEXT:
        d = s.ctx.stakes(s.spec, s.setting)
        first = (d.k == 1).to_numpy()
        out.update(stake_first_minus_fifth=rms_difference(d.stake2, first, d["round"]),
                   stake_first=rms(d.stake2[first], d["round"][first]),
                   stake_fifth=rms(d.stake2[~first], d["round"][~first]),
                   stake_noise=event_mean(d.assign(cluster=d["round"]), "noise"))
    return out


def _sweep_names():
    return [(f"margin_open_{t}" if t != 15 else "margin_open_15", t) for t in THRESHOLDS if t != 0]


def figure(res):
    def stakes(a):
        rows_panel(a, [r for r in res.rows if r.measure.name in ("stake_first", "stake_fifth", "stake_noise")],
                   "The two stakes the deciding row sets against each other (context)",
                   "points of the side's final margin (root mean square; the noise: a mean)")

    return tip_figure(res, "An expedition costs 20: is the first card the decision that matters?", (stakes,))


def _stakes(res, table: str = "2p") -> str:
    return (f"{value(res.get('stake_first', table=table))} points ride on a card that would open an expedition "
            f"and {value(res.get('stake_fifth', table=table))} on one that would be its fifth")


def reading(res):
    best = max((r for r in res.rows if r.measure.name.startswith("margin_open") and r.table == "2p"),
               key=lambda r: r.est.estimate, default=None)
    d, d1 = res.get("stake_first_minus_fifth"), res.get("stake_first_minus_fifth", table="1p")
    return (f"With two players {_stakes(res)} (lay it or throw it, played out by expert; root mean squares), "
            f"a difference of {row_text(d)}: "
            + by_verdict(d, "the first card is the decision that matters.",
                         "the fifth card's decision carries more than the first's, so the tip's 'not the fifth' "
                         "does not hold.", "undecided.")
            + f" In solitaire {_stakes(res, '1p')} ({row_text(d1)}). "
            f"For context, holding expert to one reading of the tip (open only with 15 or more in the suit's "
            f"numbers in hand) changes its score by {across(res, 'margin_open_15')}. "
            + (f"No threshold tried beats expert's own opening rule with 2 players (the nearest, "
               f"`{best.policy}`, {value(best, sign=True)}): a strong player opens on less than the four low "
               f"cards, because more of the suit arrives (see 22 plus 60%). " if best and best.est.estimate < 0 else
               f"The best threshold tried for 2 players is `{best.policy if best else '–'}` "
               f"({value(best, sign=True)}). ")
            + f"The cost is real all the same: {value(res.get('below_zero'))} "
            f"of expert's opened expeditions end below zero ({value(res.get('below_zero', 'random'))} of "
            f"random's), and the ones it opens on {LOW} or less still end at "
            f"{value(res.get('score_open_low'), sign=True)} on average.")


def tips(res):
    d = res.get("stake_first_minus_fifth")
    return [by_verdict(d, "The first card on an expedition is the decision that matters.",
                       "Once an expedition is under way, its fifth card's decision matters more than its first's.",
                       "Whether the first card on an expedition or the fifth matters more is undecided."),
            f"With two players {_stakes(res)} (what laying rather than throwing that card changes the final "
            f"margin by, as a strong bot plays it out), a difference of {row_text(d)}."]
