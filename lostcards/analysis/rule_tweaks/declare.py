"""The rule-tweaks experiment, declared before anything is played: the two games, the five changes,
the bots that measure them, and the statements the report decides.

The rulesets: Expeditions (``ADAPTED``) and the published Lost Cities rules
(``PUBLISHED``), and each change (``CHANGES``) undone alone in Expeditions
("in expeditions") and applied alone to the published rules ("in published").

A statement (``Statement``) is tested by deciding measures (``Tweak``), each
with what the statement says it should be and its smallest effect that
matters (an ``Expect`` of the claims framework: ``gains``, ``at_least``,
``at_most``, ``between``), the bot that measures it, and at least one control
(``Control``: a bot or a ruleset) under which it holds and one under which it
does not; the tests run each control on a small run.  Every deciding interval
is simultaneous over all the deciding rows (Bonferroni, as in the claims).
"""
from __future__ import annotations

from dataclasses import dataclass

from lostcards.analysis.claims.verdict import FAILS, HOLDS, INF, Expect, at_least, at_most, between, gains
from lostcards.rules.ruleset import rules as make_rules

SEED = 20_240_601
ROUNDS = 20_000                  # self-play rounds per ruleset, and duplicate deals per opponent or pair
EDGE_ROUNDS = 200_000            # self-play rounds per ruleset for the first player's edge
TURN_SAMPLE = 2_000              # rounds whose turns are logged to count the staller's stall turns
PLAYERS = (2, 4)
POLICY = "expert"                # the bot of every game metric
OPPONENTS = ("greedy",)        # skill against a casual player (against random every bot wins ~99%)
STALLER = "staller"              # the bots that use the stall and pass rules
PASSER = "expert:pass=pays"
NO_PASS = "expert:pass=off"
STALL_POLICIES = ("expert", "greedy", "random", STALLER)   # bots whose stall endings are checked

# the rule values of the two games (every other parameter is the same in both)
ADAPTED = {"suits": 4, "hand_size": 6, "pass_min_hand": 6, "bonus_cards": 6, "pass_twice": False,
           "stall_limit": 8, "turn_cap": 0}
PUBLISHED = {"suits": 5, "hand_size": 8, "pass_min_hand": 8, "bonus_cards": 8, "pass_twice": True,
             "stall_limit": 0, "turn_cap": 2000}

# each difference from the published rules: the parameters it moves together
CHANGES = [
    {"name": "suits", "what": "four suits instead of five", "params": ("suits",), "players": (2, 4)},
    {"name": "hand", "what": "6-card hands instead of 8 (with 4 players, passing from 6 cards instead of 8)",
     "params": ("hand_size", "pass_min_hand"), "players": (2, 4)},
    {"name": "bonus", "what": "the 20-point bonus at 6 cards instead of 8", "params": ("bonus_cards",),
     "players": (2, 4)},
    {"name": "pass", "what": "no passing on two of one's own turns in a row (4 players only)",
     "params": ("pass_twice",), "players": (4,)},
    {"name": "stall", "what": "the stall rule: 8 turns per player in a row of discard-and-pile-draw end the round "
                              "(the published rules have none; a 2,000-turn cap stands in for it)",
     "params": ("stall_limit", "turn_cap"), "players": (2, 4)},
]
CONTEXTS = {"in expeditions": "Expeditions against Expeditions with the published value back",
            "in published": "the published rules with this change against the published rules"}

DEPTH = {"budgets": (250, 500, 1000, 2000, 4000), "deals": 200, "players": 2}   # the skill trace, on Expeditions

# metrics in the report's tables and the figures: (metric, opponent, words)
KEY = [("turns_per_round", "", "turns per round"),
       ("score_mean", "", "mean score of a side"),
       ("score_sd", "", "spread (sd) of a side's score"),
       ("bonus_rate", "", "share of opened expeditions that earn the bonus"),
       ("margin", "greedy", "expert's margin over greedy"),
       ("first_player_win_rate", "", "first player's win rate"),
       ("drawn_rounds", "", "share of drawn rounds"),
       ("leader_loses_match", "", "share of matches lost by the leader after round 1"),
       ("ended_by_stall_or_cap", "", "share of rounds ended by stall or cap")]
PERCENT = {"ended_by_deck", "ended_by_stall", "ended_by_capped", "ended_by_stall_or_cap",
           "first_player_win_rate", "drawn_rounds", "drawn_matches", "win_rate", "negative_rounds",
           "bonus_rate", "leader_loses_match"}

# checks of `lostcards sweep` shown to fire: (check, bot, players, rule overrides)
FIRES = [("stall_or_cap", "random", 2, (("stall_limit", 2),)),
         ("first_player", "expert", 2, (("suits", 3), ("investments", 0), ("hand_size", 10))),
         ("skill", "expert", 2, (("numbers", (8, 9, 10)),))]
FIRE_ROUNDS = 3_000

# The real rules a designer would change (the published rules' differ in each), each stepped away from the
# adapted value one step at a time in each direction, to find the smallest change that trips each check.
# A value the rules do not allow at a player count ends that direction; stall_limit 0 (off) is the
# published rule, with its turn cap.
SENSITIVITY = {"hand_size": ((5, 4, 3, 2), (7, 8, 9, 10, 11, 12)),
               "bonus_cards": ((5, 4, 3, 2), (7, 8, 9, 10)),
               "suits": ((3, 2, 1), (5,)),
               "stall_limit": ((6, 4, 3, 2, 1), (12, 0))}
# the bot each check is read on, as in FIRES: random play for the stall rule (a strong bot never stalls it),
# expert for the first player's edge and, against greedy, for skill
SENSITIVITY_BOT = {"stall_or_cap": "random", "first_player": "expert", "skill": "expert"}


def ruleset(values: dict, players: int, overrides=()):
    """The ruleset with these values: the Expeditions family while it has the suit letters (<= 4), else
    the published family (same engine parameters and deck either way; only the letters differ)."""
    values = {**values, **dict(overrides)}
    preset = "expeditions" if values["suits"] <= 4 else "lost-cities"
    return make_rules(preset, **values, players=players)


def cell_values(cell: str) -> dict:
    """The rule values of a named cell: expeditions, published, expeditions without X, published with X."""
    if cell in ("expeditions", "published"):
        return dict(ADAPTED if cell == "expeditions" else PUBLISHED)
    game, _, name = cell.partition(" without ") if " without " in cell else cell.partition(" with ")
    ch = next(c for c in CHANGES if c["name"] == name)
    base, other = (ADAPTED, PUBLISHED) if game == "expeditions" else (PUBLISHED, ADAPTED)
    return {**base, **{k: other[k] for k in ch["params"]}}


def cells(players: int) -> list[dict]:
    """The cells for one player count: the two games, then each change undone / applied alone."""
    names = ["expeditions", "published"]
    for c in CHANGES:
        if players in c["players"]:
            names += [f"expeditions without {c['name']}", f"published with {c['name']}"]
    out = []
    for n in names:
        change = n.split(" with")[-1].split()[-1] if " with" in n else ""
        role = {"expeditions": "adapted", "published": "published"}.get(n, "undone" if "without" in n else "applied")
        out.append({"cell": n, "change": change, "role": role, "values": cell_values(n),
                    "rules": ruleset(cell_values(n), players), "players": players})
    return out


def compared(change: str, context: str) -> tuple:
    """(cell a, cell b) of an effect, signed in the direction of the adaptation: a - b."""
    if change == "all":
        return "expeditions", "published"
    if context == "in expeditions":
        return "expeditions", f"expeditions without {change}"
    return f"published with {change}", "published"


# ---- the statements ----------------------------------------------------------------------------

@dataclass(frozen=True)
class Control:
    """A setting under which a deciding measure gives `gives`: another bot, rule overrides on both
    rulesets of the comparison, a player count, and where (default: the measure's first ``where``)."""

    gives: str
    policy: str = ""
    overrides: tuple = ()
    players: int = 2
    where: str = ""

    def __post_init__(self):
        assert self.gives in (HOLDS, FAILS), self.gives

    def text(self, bot: str) -> str:
        where = ", ".join(f"{k}={','.join(map(str, v)) if isinstance(v, tuple) else v}" for k, v in self.overrides)
        at = f", {self.where}" if self.where else ""
        return f"{self.policy or bot} ({self.players} players{at}{', ' + where if where else ''}): {self.gives}"


@dataclass(frozen=True)
class Tweak:
    """A measure of a statement.

    kind ``level``: a metric of one cell (``where``: the cells); ``effect``: the paired difference
    cell a - cell b of ``change`` (``where``: the contexts); ``pair``: the bot's margin over
    ``baseline`` on duplicate deals (``where``: the cells).  ``bot`` decides; ``context_bots`` are
    measured beside it (95% intervals, no verdict).
    """

    name: str
    label: str
    kind: str
    metric: str
    expect: Expect
    bot: str
    where: tuple
    controls: tuple
    unit: str = ""
    change: str = ""
    opponent: str = ""
    baseline: str = ""
    players: tuple = PLAYERS
    rounds: int = ROUNDS
    context_bots: tuple = ()


@dataclass(frozen=True)
class Statement:
    id: str
    title: str
    text: str
    measured: str
    tweaks: tuple


IN_BOTH = ("in expeditions", "in published")
STALL_CELLS = ("expeditions", "published with stall")
GAMES = ("expeditions", "published")
SHORTER = Expect(-INF, -1.0, 1.0, "shorter by at least 1 turn a round", -1.0)

STATEMENTS = (
    Statement(
        "stall-rule", "The stall rule ends rounds that would otherwise drag on",
        "A round where nothing moves ends: after 8 turns in a row for every player that only discard and draw "
        "off a discard pile, the round is scored as it stands.",
        "With the staller, a bot that stalls while its side is ahead (`docs/expert.md` is the rest of its play), "
        "in self-play: the share of rounds the rule ends, and the rule's effect on the length of a round on the "
        "same deals (the rule against no rule and a 2,000-turn cap). Expert and random are shown beside it.",
        (Tweak("stall_ended", "share of rounds ended by the stall rule", "level", "ended_by_stall",
               at_least(0.01, 0.005, "at least 1% of rounds (less than 0.5 percentage points short: no difference)"),
               STALLER, STALL_CELLS, (Control(FAILS, "expert"), Control(HOLDS, "random")), "share",
               context_bots=("expert", "random")),
         Tweak("stall_shortens", "turns per round, with the rule minus without it", "effect", "turns_per_round",
               SHORTER, STALLER, IN_BOTH,
               (Control(FAILS, "expert"), Control(HOLDS, "random", where="in published")), "turns", "stall",
               context_bots=("expert", "random")))),
    Statement(
        "pass-rule", "The pass rule matters",
        "With 4 players you can pass two cards to your partner instead of playing, from a hand of 6 "
        "(published: 8).",
        "With the passing expert (`expert:pass=pays`: a pass whenever its best move costs the side at least "
        "8 points) against the same bot that never passes, on duplicate deals, and how often it passes.",
        (Tweak("pass_pays", "margin of the passing bot over the same bot never passing", "pair", "margin",
               gains(0.5), PASSER, GAMES,
               (Control(FAILS, "expert", players=4),
                Control(HOLDS, "expert:pass=pays,pass_at=0", (("suits", 2),), 4)),
               "points a round", baseline=NO_PASS, players=(4,), context_bots=("expert",)),
         Tweak("pass_used", "passes per round (all four seats)", "level", "passes_per_round",
               at_least(0.2, 0.04, "at least 0.2 a round: a pass in one round in five (less than 0.04 short: "
                                   "no difference)"),
               PASSER, GAMES, (Control(FAILS, "expert", players=4),
                               Control(HOLDS, "expert:pass=pays,pass_at=0", players=4)),
               "passes", players=(4,), context_bots=("expert",)))),
    Statement(
        "pass-twice", "The ban on passing on two turns in a row changes nothing",
        "With 4 players you can't pass on two of your turns in a row. The published rules set no limit.",
        "The ban's effect on the passes a round, on the same deals, with the passing expert.",
        (Tweak("pass_twice_passes", "passes per round, with the ban minus without it", "effect", "passes_per_round",
               between(-0.05, 0.05, 0.0, "within 0.05 passes a round of no change"), PASSER, IN_BOTH,
               (Control(HOLDS, players=4), Control(FAILS, "random", players=4)), "passes", "pass", players=(4,),
               context_bots=("expert",)),)),
    Statement(
        "first-player", "The first player's edge is small",
        "Round r is started by seat r mod players; does moving first win more rounds?",
        "Expert self-play, on the first-player sample (How it was measured): the first player's side's win "
        "rate, draws half.",
        (Tweak("first_win_rate", "first player's win rate (draws half)", "level", "first_player_win_rate",
               at_most(0.55, 0.005, "at most 55% (less than 0.5 percentage points over: no difference)"), POLICY, GAMES,
               (Control(HOLDS), Control(FAILS, overrides=(("suits", 3), ("investments", 0), ("hand_size", 10))))
               , "share", rounds=EDGE_ROUNDS),)),
    Statement(
        "hand", "6-card hands reward skill",
        "Hands are 6 cards. The published rules deal 8.",
        "The change's effect on the expert's margin over greedy, a casual player, on the same deals.",
        (Tweak("hand_skill", "expert's margin over greedy, 6-card hands minus 8", "effect", "margin",
               gains(2.0), POLICY, IN_BOTH,
               (Control(HOLDS), Control(FAILS, overrides=(("numbers", (8, 9, 10)),))), "points a round", "hand",
               opponent="greedy"),)),
    Statement(
        "bonus", "The bonus at 6 cards makes the bonus common, raises scores and rewards skill",
        "The 20-point bonus needs 6 cards in an expedition. The published rules pay it at 8.",
        "The change's effects under expert self-play on the same deals: the share of opened expeditions that "
        "earn the bonus, a side's mean score, and the expert's margin over greedy.",
        (Tweak("bonus_rate", "share of opened expeditions earning the bonus, at 6 minus at 8", "effect",
               "bonus_rate", gains(0.10, "percentage points", "a rise of at least 10 percentage points"),
               POLICY, IN_BOTH, (Control(HOLDS), Control(FAILS, "random")), "share", "bonus"),
         Tweak("bonus_score", "a side's mean score, bonus at 6 minus at 8", "effect", "score_mean", gains(5.0),
               POLICY, IN_BOTH, (Control(HOLDS), Control(FAILS, "random")), "points a round", "bonus"),
         Tweak("bonus_skill", "expert's margin over greedy, bonus at 6 minus at 8", "effect", "margin", gains(2.0),
               POLICY, IN_BOTH, (Control(HOLDS), Control(FAILS, overrides=(("bonus_points", 0),))),
               "points a round", "bonus", opponent="greedy"))),
)


def statement(sid: str) -> Statement:
    return next(s for s in STATEMENTS if s.id == sid)
