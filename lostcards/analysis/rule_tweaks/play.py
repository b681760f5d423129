"""The adaptation's choices, measured: Expeditions against the published Lost Cities rules.

    lostcards rule-tweaks --out reports                 # what `make report` runs
    lostcards rule-tweaks --rounds 2000 --depth-deals 0 --out /tmp/rt   # a quick look

``run`` plays everything once (``data.Data``) and returns the tables the
report writes (``report.write``), each a kind of row of ``rule-tweaks.csv``:

- ``statement``: the declared statements' rows (``rows.statement_rows``):
  deciding rows with Bonferroni intervals over all of them and a verdict,
  context rows (other bots) at 95%;
- ``bot``: the measuring bots against expert on duplicate deals (what stalling
  and passing are worth), and their rates of the behaviour;
- ``metric`` / ``effect``: every game metric of every cell (expert self-play;
  against greedy and random on duplicate deals) and each change's paired effect;
- ``check``: the sweep's checks on every cell; ``fire``: each check on a
  ruleset made to trip it (a check that cannot fire checks nothing);
- ``stall``: the stall rule's endings per bot and whether those rounds were still moving;
- ``depth`` / ``depth-step``: the skill trace (search at doubling budgets against expert).
"""
from __future__ import annotations

import time

import pandas as pd

from lostcards import __version__
from lostcards.analysis.depth import skill_trace
from lostcards.analysis.metrics import diff_table, measure, paired_diff, same_deals
from lostcards.analysis.rule_tweaks.data import Data
from lostcards.analysis.rule_tweaks.declare import (
    ADAPTED,
    CHANGES,
    DEPTH,
    EDGE_ROUNDS,
    FIRE_ROUNDS,
    FIRES,
    PASSER,
    PLAYERS,
    POLICY,
    ROUNDS,
    SEED,
    SENSITIVITY,
    SENSITIVITY_BOT,
    STALL_POLICIES,
    STALLER,
    cell_values,
    cells,
    ruleset,
)
from lostcards.analysis.rule_tweaks.rows import statement_rows
from lostcards.analysis.stall import stall_check
from lostcards.analysis.sweep import flag_table
from lostcards.stats import mean_ci

# the measuring bots against expert on duplicate deals: (bot, players, cell)
BOT_PAIRS = [(STALLER, 2, "expeditions"), (STALLER, 4, "expeditions"),
             (STALLER, 2, "published with stall"), (STALLER, 4, "published with stall"),
             (PASSER, 4, "expeditions"), (PASSER, 4, "published")]


def _cells_of(data: Data, p: int):
    """Expert on every cell of `p` players: (metrics rows, effect rows, check rows)."""
    todo = cells(p)
    got = {c["cell"]: data.cell(POLICY, c["rules"], ROUNDS, c["cell"]) for c in todo}
    tabs = []
    for c in todo:
        t = got[c["cell"]].table()
        t.insert(0, "kind", "metric")
        t.insert(1, "cell", c["cell"])
        t.insert(2, "change", c["change"])
        t.insert(3, "role", c["role"])
        tabs.append(t)
    by = {c["cell"]: c for c in todo}
    pairs = [("all", "total", "expeditions", "published")]
    for c in CHANGES:
        if p in c["players"]:
            pairs.append((c["name"], "in expeditions", "expeditions", f"expeditions without {c['name']}"))
            pairs.append((c["name"], "in published", f"published with {c['name']}", "published"))
    effects = []
    for name, ctx, a, b in pairs:
        t = diff_table(got[a], got[b])
        for k, (col, v) in enumerate((("kind", "effect"), ("players", p), ("change", name), ("context", ctx),
                                      ("cell", a), ("versus", b),
                                      ("same_deals", same_deals(by[a]["rules"], by[b]["rules"])))):
            t.insert(k, col, v)
        effects.append(t)
    m = pd.concat(tabs, ignore_index=True).rename(columns={"cell": "label"})
    m["cell"] = m["label"]
    f = flag_table(m)
    f.insert(0, "kind", "check")
    f.insert(1, "players", p)
    return tabs, effects, f


def bot_rows(data: Data, players=PLAYERS) -> list:
    """What the measuring bots' behaviour is worth: each against expert on duplicate deals (95%)."""
    out = []
    for bot, p, cell in BOT_PAIRS:
        if p not in players:
            continue
        r = ruleset(cell_values(cell), p)
        e = mean_ci(data.pair(bot, POLICY, r))
        out.append({"kind": "bot", "policy": bot, "versus": POLICY, "players": p, "where": cell,
                    "rules": r.describe(), "metric": "margin", "estimate": e.estimate, "ci_low": e.ci_low,
                    "ci_high": e.ci_high, "n": e.n, "unit": "points a round", "level": 0.95,
                    "method": "t (duplicate deals)"})
        if bot == STALLER:      # its stalls: draws off a discard pile, against expert's on the same deals
            key = ("pile_draws_per_round", "")
            a, b = (data.cell(x, r, ROUNDS, cell).samples[key] for x in (bot, POLICY))
            d = paired_diff(a, b)
            out.append({**out[-1], "metric": "pile_draws_per_round", "estimate": d["estimate"],
                        "ci_low": d["ci_low"], "ci_high": d["ci_high"], "n": d["n"], "unit": "draws a round",
                        "method": d["method"] + " (self-play, same deals)"})
    return out


def fire_rows(seed: int, rounds: int = FIRE_ROUNDS, threads=None) -> pd.DataFrame:
    """Each sweep check on a ruleset made to trip it (``FIRES``): the check's row, flagged or not."""
    out = []
    for check, bot, p, over in FIRES:
        r = ruleset(ADAPTED, p, over)
        d = measure(r, bot, ("greedy",) if check == "skill" else (), rounds, seed, threads=threads)
        t = d.table().assign(cell=r.describe(), label=r.describe())
        f = flag_table(t)
        f = f[f["check"] == check].copy()
        f.insert(0, "kind", "fire")
        f.insert(1, "players", p)
        f["policy"] = bot
        f["rules"] = r.describe()
        out.append(f)
    return pd.concat(out, ignore_index=True)


def _stepped(values: dict, rule: str, v, players: int):
    over = ((rule, v),)
    if rule == "stall_limit" and v == 0:
        over += (("turn_cap", 2000),)
    if rule == "hand_size":                 # a pass needs a full hand: the two move together
        over += (("pass_min_hand", v),)
    return ruleset(values, players, over)


def sensitivity_rows(seed: int, rounds: int = FIRE_ROUNDS, players=PLAYERS, threads=None) -> pd.DataFrame:
    """For each sweep check, each real rule (``SENSITIVITY``) and each direction: the rule stepped away from
    the adapted value one step at a time, on the check's bot (``SENSITIVITY_BOT``; skill: against greedy),
    until the check trips or the steps run out. One row per check and ruleset played (``first`` marks the
    first step that trips the check in its direction)."""
    out = []
    for p in players:
        for rule, directions in SENSITIVITY.items():
            for direction, steps in zip(("down", "up"), directions):
                tripped = set()
                for i, v in enumerate(steps):
                    try:
                        r = _stepped(ADAPTED, rule, v, p)
                    except Exception:         # not allowed at this player count: the direction ends
                        break
                    flags = {}
                    for bot in dict.fromkeys(SENSITIVITY_BOT.values()):
                        d = measure(r, bot, ("greedy",) if bot == "expert" else (), rounds, seed, threads=threads)
                        flags[bot] = flag_table(d.table().assign(cell=r.describe(), label=r.describe()))
                    f = pd.concat([flags[b][flags[b]["check"] == c] for c, b in SENSITIVITY_BOT.items()])
                    for _, row in f.iterrows():
                        bot = SENSITIVITY_BOT[row["check"]]
                        first = bool(row["flagged"]) and row["check"] not in tripped
                        if row["flagged"]:
                            tripped.add(row["check"])
                        out.append({"kind": "sensitivity", "check": row["check"], "players": p, "policy": bot,
                                    "rule": rule, "direction": direction, "value": v, "adapted": ADAPTED[rule],
                                    "step": i + 1, "rules": r.describe(), "estimate": row["estimate"],
                                    "ci_low": row["ci_low"], "ci_high": row["ci_high"], "n": row["n"],
                                    "threshold": row["threshold"], "flagged": bool(row["flagged"]),
                                    "first": first})
                    if tripped >= set(f["check"]):
                        break
    return pd.DataFrame(out)


def smallest_trips(sens: pd.DataFrame) -> pd.DataFrame:
    """Per check and player count: the smallest change of a real rule that trips it (fewest steps from the
    adapted value; ties: every rule that does), or none within the steps tried."""
    rows = []
    for (check, p), g in sens.groupby(["check", "players"], sort=False):
        hit = g[g["first"]]
        if hit.empty:             # none trips it: the closest step to the threshold, for scale
            g = g.dropna(subset=["estimate"])
            r = g.loc[g["estimate"].idxmin() if check == "skill" else g["estimate"].idxmax()]
            rows.append({"check": check, "players": p, "rule": "", "value": r["value"], "step": None,
                         "rules": r["rules"], "estimate": r["estimate"], "ci_low": r["ci_low"],
                         "ci_high": r["ci_high"], "n": r["n"], "closest": r["rule"], "policy": r["policy"]})
            continue
        best = hit[hit["step"] == hit["step"].min()]
        for _, r in best.iterrows():
            rows.append({k: r[k] for k in ("check", "players", "rule", "value", "step", "rules", "estimate",
                                           "ci_low", "ci_high", "n", "policy")})
    return pd.DataFrame(rows)


def run(rounds: int = ROUNDS, seed: int = SEED, depth_deals: int = DEPTH["deals"],
        budgets=DEPTH["budgets"], players=PLAYERS, threads=None, say=print,
        edge_rounds: int = EDGE_ROUNDS, fire_rounds: int = FIRE_ROUNDS) -> dict:
    t_start = time.time()
    data = Data(seed, rounds, edge_rounds=edge_rounds, threads=threads, say=say)
    t0 = time.time()
    rows, level, m = statement_rows(data, players)
    timing = {"statements_s": round(time.time() - t0, 1)}
    say(f"{m} deciding rows, each interval at {100 * level:.3f}% (Bonferroni over all of them)")
    t0 = time.time()
    bots = bot_rows(data, players)
    timing["bots_s"] = round(time.time() - t0, 1)
    t0 = time.time()
    tabs, effects, checks = [], [], []
    for p in players:
        a, b, c = _cells_of(data, p)
        tabs += a
        effects += b
        checks.append(c)
    fires = fire_rows(seed, fire_rounds, threads)
    say("the checks' sensitivity: each real rule stepped until a check trips")
    sensitivity = sensitivity_rows(seed, fire_rounds, players, threads)
    timing["cells_s"] = round(time.time() - t0, 1)
    t0 = time.time()
    stall_rows = []
    for p in players:
        for pol in STALL_POLICIES:
            s, _ = stall_check(ruleset(ADAPTED, p), pol, rounds, seed, threads=threads)
            stall_rows.append({"kind": "stall", **s})
    timing["stall_s"] = round(time.time() - t0, 1)
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
    return {"statements": pd.DataFrame(rows), "bots": pd.DataFrame(bots),
            "metrics": pd.concat(tabs, ignore_index=True), "effects": pd.concat(effects, ignore_index=True),
            "checks": pd.concat(checks, ignore_index=True), "fires": fires, "sensitivity": sensitivity,
            "stall": pd.DataFrame(stall_rows),
            "depth": depth, "steps": steps, "timing": timing,
            "config": {"seed": seed, "rounds": rounds, "edge_rounds": edge_rounds, "players": list(players),
                       "policy": POLICY, "deciding_rows": m, "level": level, "depth_deals": depth_deals,
                       "budgets": list(budgets), "version": __version__}}
