"""The adaptation's choices, measured: Expeditions against the published Lost Cities rules.

    lostcards rule-tweaks --out reports                 # what `make report` runs
    lostcards rule-tweaks --rounds 2000 --depth-deals 0 --out /tmp/rt   # a quick look

Expeditions changed the published game on purpose, in five ways (``CHANGES``).
For 2 and 4 players this plays the two rulesets and, for each change, the
change applied alone to the published rules and undone alone in Expeditions;
every cell is measured with ``lostcards.metrics`` (expert self-play; expert
against greedy and random on duplicate deals) on the same seed, so cells with
the same deck share their deals and each change's effect is a paired
difference with its own 95% interval.  Also: the stall rule's endings under
each bot and whether the rounds it ended were still moving
(``lostcards.metrics.stall_check``), the sweep checks on every cell
(``lostcards.sweep.flag_table``), and the skill trace (search at doubling
budgets against expert; slow, a few hundred deals per budget).

``run`` plays and measures; ``lostcards.analysis.rule_tweaks_report`` writes
``reports/rule-tweaks.csv`` (tidy; column ``kind``: metric, effect,
stall, check, depth, depth-step), ``reports/figures/rule-tweaks-*.png`` and
``reports/rule-tweaks.md``.
"""
from __future__ import annotations

import time

import pandas as pd

from lostcards import __version__
from lostcards.analysis.depth import skill_trace
from lostcards.analysis.metrics import diff_table, measure, same_deals
from lostcards.analysis.stall import stall_check
from lostcards.analysis.sweep import flag_table
from lostcards.numba_cache import source_hash
from lostcards.rules.ruleset import rules as make_rules

# ---- the experiment, declared ---------------------------------------------------------------

SEED = 20_240_601
ROUNDS = 20_000                  # self-play rounds per cell, and duplicate deals per opponent
PLAYERS = (2, 4)
POLICY = "expert"
OPPONENTS = ("greedy", "random")

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

STALL_POLICIES = ("expert", "greedy", "random")    # bots whose stall endings are counted
DEPTH = {"budgets": (2, 4, 8, 16, 32, 64), "deals": 200, "players": 2}   # the skill trace, on Expeditions

# metrics in the plain-words summary and the figures: (metric, opponent, words)
KEY = [("turns_per_round", "", "turns per round"),
       ("score_mean", "", "mean score of a side"),
       ("score_sd", "", "spread (sd) of a side's score"),
       ("bonus_rate", "", "share of opened expeditions that earn the bonus"),
       ("margin", "greedy", "expert's margin over greedy"),
       ("margin", "random", "expert's margin over random"),
       ("first_player_win_rate", "", "first player's win rate"),
       ("drawn_rounds", "", "share of drawn rounds"),
       ("leader_loses_match", "", "share of matches lost by the leader after round 1"),
       ("ended_by_stall_or_cap", "", "share of rounds ended by stall or cap")]
PERCENT = {"ended_by_deck", "ended_by_stall", "ended_by_capped", "ended_by_stall_or_cap",
           "first_player_win_rate", "drawn_rounds", "drawn_matches", "win_rate", "negative_rounds",
           "bonus_rate", "leader_loses_match"}


def ruleset(values: dict, players: int):
    """The ruleset with these values: the Expeditions family while it has the suit letters (<= 4), else
    the published family (same engine parameters and deck either way; only the letters differ)."""
    preset = "expeditions" if values["suits"] <= 4 else "lost-cities"
    return make_rules(preset, **values, players=players)


def cells(players: int) -> list[dict]:
    """The cells for one player count: the two games, then each change undone / applied alone."""
    out = [{"cell": "expeditions", "change": "", "role": "adapted", "values": dict(ADAPTED)},
           {"cell": "published", "change": "", "role": "published", "values": dict(PUBLISHED)}]
    for c in CHANGES:
        if players not in c["players"]:
            continue
        undone = {**ADAPTED, **{k: PUBLISHED[k] for k in c["params"]}}
        applied = {**PUBLISHED, **{k: ADAPTED[k] for k in c["params"]}}
        out.append({"cell": f"expeditions without {c['name']}", "change": c["name"], "role": "undone",
                    "values": undone})
        out.append({"cell": f"published with {c['name']}", "change": c["name"], "role": "applied",
                    "values": applied})
    for c in out:
        c["rules"] = ruleset(c["values"], players)
        c["players"] = players
    return out


# ---- running ------------------------------------------------------------------------------

def run(rounds: int = ROUNDS, seed: int = SEED, depth_deals: int = DEPTH["deals"],
        budgets=DEPTH["budgets"], players=PLAYERS, threads=None, say=print) -> dict:
    t_start = time.time()
    source = source_hash(length=12)      # before playing: the sources may change meanwhile
    tabs, effects, checks, stall_rows = [], [], [], []
    data = {}
    timing = {}
    for p in players:
        todo = cells(p)
        t0 = time.time()
        for k, c in enumerate(todo):
            d = measure(c["rules"], POLICY, OPPONENTS, rounds, seed, threads=threads)
            data[(p, c["cell"])] = d
            t = d.table()
            t.insert(0, "kind", "metric")
            t.insert(1, "cell", c["cell"])
            t.insert(2, "change", c["change"])
            t.insert(3, "role", c["role"])
            tabs.append(t)
            say(f"[{p} players, cell {k + 1}/{len(todo)}] {c['cell']} ({c['rules'].describe()}): {d.seconds:.1f} s")
        timing[f"cells_{p}p_s"] = round(time.time() - t0, 1)
        by = {c["cell"]: c for c in todo}
        # effects, in the direction of the adaptation: adapted value minus published value
        pairs = [("all", "total", "expeditions", "published")]
        for c in CHANGES:
            if p in c["players"]:
                pairs.append((c["name"], "in expeditions", "expeditions", f"expeditions without {c['name']}"))
                pairs.append((c["name"], "in published", f"published with {c['name']}", "published"))
        for name, ctx, a, b in pairs:
            t = diff_table(data[(p, a)], data[(p, b)])
            t.insert(0, "kind", "effect")
            t.insert(1, "players", p)
            t.insert(2, "change", name)
            t.insert(3, "context", ctx)
            t.insert(4, "cell", a)
            t.insert(5, "versus", b)
            t.insert(6, "same_deals", same_deals(by[a]["rules"], by[b]["rules"]))
            effects.append(t)
        # the sweep's checks on every cell
        m = pd.concat([x for x in tabs if x["players"].iloc[0] == p], ignore_index=True)
        m = m.rename(columns={"cell": "label"})
        m["cell"] = m["label"]
        f = flag_table(m)
        f.insert(0, "kind", "check")
        f.insert(1, "players", p)
        checks.append(f)
        # the stall rule: endings per bot, and were the stalled rounds still moving?
        t0 = time.time()
        for pol in STALL_POLICIES:
            s, _ = stall_check(ruleset(ADAPTED, p), pol, rounds, seed, threads=threads)
            stall_rows.append({"kind": "stall", **s})
            say(f"[{p} players] stall rule under {pol} self-play: {s['stall_ended']} of {s['rounds']:,} rounds"
                + (f", {s.get('still_moving', 0)} of {s.get('checked', 0)} still moving" if s["stall_ended"] else ""))
        timing[f"stall_{p}p_s"] = round(time.time() - t0, 1)
    depth = steps = None
    if depth_deals and budgets:
        t0 = time.time()
        try:
            depth, steps = skill_trace(ruleset(ADAPTED, DEPTH["players"]), tuple(budgets), depth_deals, seed,
                                       against=POLICY, threads=threads, progress=say)
            depth.insert(0, "kind", "depth")
            steps.insert(0, "kind", "depth-step")
        except Exception as e:       # the skill trace is an extra: report its failure, keep the rest
            say(f"skill trace not measured: {type(e).__name__}: {e}")
            depth = steps = f"{type(e).__name__}: {e}"
        timing["skill_trace_s"] = round(time.time() - t0, 1)
    timing["total_s"] = round(time.time() - t_start, 1)
    res = {"metrics": pd.concat(tabs, ignore_index=True), "effects": pd.concat(effects, ignore_index=True),
           "checks": pd.concat(checks, ignore_index=True), "stall": pd.DataFrame(stall_rows),
           "depth": depth, "steps": steps, "timing": timing,
           "config": {"seed": seed, "rounds": rounds, "players": list(players), "policy": POLICY,
                      "opponents": list(OPPONENTS), "depth_deals": depth_deals, "budgets": list(budgets),
                      "source": source, "version": __version__,
                      "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}}
    return res
