"""expert-discards: the Expert bot discards about 9 times a round, over 40% of its plays."""
from lostcards.analysis.claims import (
    BOTS,
    FAILS,
    HOLDS,
    LADDER_RANDOM,
    OPPONENT,
    PUBLISHED_HAND,
    Claim,
    Control,
    Measure,
    about,
    at_least,
)
from lostcards.analysis.claims.measures import distribution, unit_mean, unit_percentiles, unit_ratio
from lostcards.analysis.claims.plots import tip_figure
from lostcards.analysis.claims.tolerance import CARD, CARD_SHARE
from lostcards.analysis.claims.words import by_verdict, value

ALL = ("2p", "4p-seat", "4p-team", "1p", "lc")
SEATS = ("2p", "4p-seat", "1p")      # "the Expert bot": one bot's seat; a team is two bots, lost-cities another game

CLAIM = Claim(
    id="expert-discards",
    order=6,
    title="The Expert discards about 9 times a round",
    tip=("Discarding is part of the game. The Expert bot discards about 9 times a round, over 40% of its "
         "plays. Four expeditions at 20 each means most hands hold more than you can use, so the real "
         "choice is which card goes."),
    measured=("Per seat and round (per team in the team table): discards, their distribution, and discards as a "
              "share of plays (pooled: all discards over all plays). The tip names a bot, the Expert: expert's rows decide, "
              "per seat (with 2 and 4 players and in solitaire); search (and its opponent on the same deals), "
              "random and greedy show the range, and a 4-player team (two bots' discards; its share is its "
              "seats' pooled ratio, the same quantity) and lost-cities (another game) are context."),
    statements={"nine": "about 9 discards a round", "share": "over 40% of its plays"},
    bots=(*BOTS, OPPONENT),
    deciding=("expert",),
    scope=SEATS,
    measures=(
        Measure("discards", "discards per seat and round (team table: per team)", about(9, basis=CARD), "discards",
                tables=SEATS, context=("4p-team", "lc"), statement="nine",
                controls=(Control(HOLDS, overrides=(("cost", 25),), tables=("2p",)),
                          Control(HOLDS, overrides=(("cost", 45),), tables=("4p-seat",)),
                          Control(HOLDS, overrides=(("cost", 22),), tables=("1p",)),
                          Control(FAILS, overrides=(("hand_size", 8),), variant=PUBLISHED_HAND),
                          Control(FAILS, policy="random", variant=LADDER_RANDOM))),
        Measure("discard_share", "discards / plays", at_least(0.4, basis=CARD_SHARE), "share", tables=SEATS,
                context=("4p-team", "lc"), statement="share",
                controls=(Control(HOLDS, policy="random", variant=LADDER_RANDOM),
                          Control(FAILS, overrides=(("hand_size", 8),), variant=PUBLISHED_HAND, tables=("2p", "1p")),
                          Control(FAILS, overrides=(("cost", 5),)))),
        *distribution("discards", "discards per seat and round (team table: per team)", "discards", ALL),
    ),
)


def measure(s):
    return {"discards": unit_mean(s, "seats", "discards"), "discard_share": unit_ratio(s, "seats", "discards", "plays"),
            **unit_percentiles(s, "seats", "discards", "discards")}


def figure(res):
    return tip_figure(res, "Discards a round: the tip says about 9, over 40% of plays")


def reading(res):
    g = res.get
    return (f"A strong 2-player bot discards {value(g('discards'))} times a round, {value(g('discard_share'))} of "
            f"its plays (expert; search {value(g('discards', 'search'))}, {value(g('discard_share', 'search'))}, and "
            f"expert against search {value(g('discards', OPPONENT))}); with four players a seat discards "
            f"{value(g('discards', table='4p-seat'))} times ({value(g('discard_share', table='4p-seat'))}) and a team "
            f"{value(g('discards', table='4p-team'))}; in solitaire {value(g('discards', table='1p'))} "
            f"({value(g('discard_share', table='1p'))}); under lost-cities {value(g('discards', table='lc'))}. "
            f"Greedy, which opens only on a funded suit, discards {value(g('discards', 'greedy'))} times "
            f"({value(g('discard_share', 'greedy'))}), random {value(g('discards', 'random'))}: discarding a lot is "
            "not in itself a skill; choosing which card goes is.")


def tips(res):
    g = res.get
    d, sh = g("discards"), g("discard_share")
    fewer = "fewer" if d is not None and d.est.estimate < d.expect.value else "more"
    return [by_verdict(d, "The Expert bot discards about 9 times a round",
                       f"The Expert bot discards {fewer} than 9 times a round",
                       "Whether the Expert bot discards about 9 times a round is undecided")
            + ", and "
            + by_verdict(sh, "over 40% of its plays.", "not over 40% of its plays.",
                         "whether that is over 40% of its plays is undecided."),
            f"With two players it discards {value(d)} times a round, {value(sh)} of its plays (most rounds "
            f"{value(g('discards_p10'))} to {value(g('discards_p90'))}); a seat of four "
            f"{value(g('discards', table='4p-seat'))} times, {value(g('discard_share', table='4p-seat'))} of its "
            f"plays; the solitaire {value(g('discards', table='1p'))} times, {value(g('discard_share', table='1p'))}."]
