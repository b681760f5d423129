"""depth-bonus: six cards pay 20; reachable in anything you commit to; depth is the thing to play for."""
import numpy as np

from lostcards.analysis.claims import FAILS, HOLDS, Claim, Control, Measure, described, gains
from lostcards.analysis.claims.measures import event_mean, event_share
from lostcards.analysis.claims.plots import color, tip_figure
from lostcards.analysis.claims.tolerance import WIN
from lostcards.analysis.claims.words import across, by_verdict, changes, row_text, value

PAIRED = ("2p", "4p-team", "1p")        # the tip's six cards: lost-cities pays the bonus at 8, so it is context
ALL = (*PAIRED, "lc")
PUBLISHED_BONUS = "the published rules' bonus at 8 cards"

CLAIM = Claim(
    id="depth-bonus",
    order=5,
    title="Depth pays: the 6-card bonus",
    tip=("Six cards in one expedition pays a flat 20. Investments count toward the six, and the bonus comes "
         "after the multiplier, so it's the same 20 whether the expedition is doubled or not. It's reachable "
         "in anything you commit to, which makes depth the thing to play for: a sixth card is worth its own "
         "value plus twenty."),
    measured=("\"Depth is the thing to play for\", tested by doing without it: expert against "
              "`expert:bonus=off` (the same bot, blind to the bonus) on duplicate deals, in every table; and "
              "\"in anything you commit to\": expert against `expert:bonus_from=1` (it plays for the bonus only "
              "in expeditions it has invested in). Over the expeditions each side opened: the share that reach "
              "the bonus (6 cards; 8 under lost-cities), also by investments laid. For context: what the card "
              "that reaches the bonus adds, against its face value (by the rules it adds its value times the "
              "multiplier, plus the bonus)."),
    statements={"depth": "depth is the thing to play for",
                "any": "it is worth playing for in anything you commit to, invested or not"},
    scope=PAIRED,
    untested=("\"Reachable\" names no rate: the share of opened expeditions that reach the bonus is shown as "
              "context, not judged against a threshold the tip does not name."),
    measures=(
        Measure("margin_bonus", "expert against its bonus-blind self", gains(basis=WIN), "points a round", tables=PAIRED,
                context=("lc",), bots=("expert",), pair=("", "bonus=off"), statement="depth",
                controls=(Control(FAILS, overrides=(("bonus_cards", 8),), variant=PUBLISHED_BONUS,
                                  tables=("2p", "4p-team")),
                          Control(FAILS, overrides=(("bonus_points", 0),), tables=("1p",)),
                          Control(HOLDS, overrides=(("bonus_points", 60),)))),
        Measure("margin_bonus_uninvested", "expert against playing for the bonus only when invested", gains(basis=WIN),
                "points a round", tables=PAIRED, context=("lc",), bots=("expert",), pair=("", "bonus_from=1"),
                statement="any",
                controls=(Control(HOLDS, overrides=(("bonus_cards", 4),)),
                          Control(FAILS, overrides=(("bonus_cards", 8),), variant=PUBLISHED_BONUS))),
        Measure("bonus_share", "opened expeditions reaching the bonus", described(), "share", decides=False,
                context=ALL),
        *(Measure(f"bonus_share_inv{k}", f"opened expeditions with {k} investments reaching the bonus", described(),
                  "share", decides=False, context=("2p", "lc")) for k in range(4)),
        Measure("bonus_card_points", "points the card that reaches the bonus adds", described(), "points",
                decides=False, context=("2p",)),
        Measure("bonus_card_value", "face value of the card that reaches the bonus", described(), "points",
                decides=False, context=("2p",)),
    ),
    not_run="search and the casual bots: no bonus switches, so the paired rows are expert's.",
)


def measure(s):
    ss = s.table("seat_suits")
    op = ss[(ss.exp_cards > 0) & (ss.seat == ss.side)]       # one row per side's opened expedition
    bc = s.rules.bonus_cards
    out = {"bonus_share": event_share(op, op.exp_cards >= bc)}
    for k in range(4):
        t = op[op.exp_investments == k]
        out[f"bonus_share_inv{k}"] = event_share(t, t.exp_cards >= bc)
    if s.players == 2:
        c = s.facts("cards")
        c = c[c.k == bc]
        out.update(bonus_card_points=event_mean(c, "points"), bonus_card_value=event_mean(c, "value"))
    return out


def figure(res):
    def by_commitment(a):
        bots = [b for b in ("random", "greedy", "expert", "search", "improve")
                if any(res.get(f"bonus_share_inv{k}", b) for k in range(4))]
        w = 0.8 / max(len(bots), 1)
        for i, bot in enumerate(bots):
            rs = [res.get(f"bonus_share_inv{k}", bot) for k in range(4)]
            xs = np.array([k for k, r in enumerate(rs) if r is not None])
            if len(xs):
                e = [rs[k].est for k in xs]
                v = np.array([x.estimate for x in e]) * 100
                err = np.nan_to_num([v - np.array([x.ci_low for x in e]) * 100,
                                     np.array([x.ci_high for x in e]) * 100 - v])
                a.bar(xs + (i - (len(bots) - 1) / 2) * w, v, w, yerr=err, color=color(bot), label=bot,
                      error_kw={"lw": 0.8, "capsize": 1.5})
        a.set_xticks(range(4))
        a.set_xlabel("investments laid on the expedition")
        a.set_ylabel("% of opened expeditions reaching the bonus\n(2 players; 95% interval)")
        a.set_title("Reachable in anything you commit to? (context)", fontsize=10)
        a.legend(fontsize=8)

    return tip_figure(res, "The bonus: playing for depth, and how often it is reached", (by_commitment,))


def reading(res):
    return (f"Playing for the bonus pays expert {across(res, 'margin_bonus')}; playing for it in uninvested "
            f"expeditions too is worth {row_text(res.get('margin_bonus_uninvested'))}. But the bonus is reached in "
            f"{value(res.get('bonus_share'))} of expert's opened expeditions ({value(res.get('bonus_share', 'search'))} "
            f"for search), {value(res.get('bonus_share_inv0'))} of those without an investment and "
            f"{value(res.get('bonus_share_inv2'))} of those with two. The card that reaches it adds "
            f"{value(res.get('bonus_card_points'))} points on average against a face value of "
            f"{value(res.get('bonus_card_value'))}: most expeditions that get there are invested, so the card's "
            "own value is multiplied before the bonus is added.")


def tips(res):
    m = res.get("margin_bonus")
    u = res.get("margin_bonus_uninvested")
    return [by_verdict(m, "With two players, depth pays: play for the 6-card bonus.",
                       "With two players, playing for the 6-card bonus is not worth a point of win rate.",
                       "With two players, whether playing for the 6-card bonus pays is undecided.",
                       harmful="With two players, playing for the 6-card bonus costs points."),
            f"A strong bot that plays for the bonus, against the same bot blind to it, "
            f"{changes(res, 'margin_bonus', tables=('2p', '4p-team', '1p'))}; under lost-cities, where the "
            f"bonus takes 8 cards, the same comparison gives {row_text(res.get('margin_bonus', table='lc'))}.",
            by_verdict(u, "Play for the bonus in anything you commit to, invested or not.",
                       "In an uninvested expedition, playing for the bonus is not worth a point of win rate.",
                       "Whether to play for the bonus in an uninvested expedition is undecided.",
                       harmful="In an uninvested expedition, don't play for the bonus: it costs points."),
            f"One that plays for it in every expedition, not only invested ones, "
            f"{changes(res, 'margin_bonus_uninvested', tables=('2p', '4p-team', '1p'))}."]
