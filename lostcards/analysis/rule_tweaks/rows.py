"""The statements' rows: each measure of each bot in each ruleset, its interval and its verdict.

Deciding rows (a statement's own bot) get intervals simultaneous over all the
deciding rows of the report (Bonferroni: level 1 - 0.05 / m, the claims
framework's ``simultaneous_level``) and a verdict from the declared region
(``Expect.verdict``); context rows (other bots beside it) keep 95% and get
none.  A statement's verdict for a player count combines its deciding rows
there (``combine``), and its overall verdict combines the player counts.
``control_row`` measures a deciding measure under one of its controls (the
tests check that it gives the verdict declared).
"""
from __future__ import annotations

from lostcards.analysis.claims.verdict import FAILING, FAILS, HOLDS, UNDECIDED, simultaneous_level
from lostcards.analysis.metrics import estimate, paired_diff
from lostcards.analysis.rule_tweaks.declare import STATEMENTS, cell_values, compared, ruleset
from lostcards.stats import mean_ci


def _interval(t, bot: str, players: int, where: str, data, level: float, overrides=()) -> dict:
    """{estimate, ci_low, ci_high (at level), ci95_low, ci95_high, n, method, rules, versus}."""
    if t.kind == "level" or t.kind == "pair":
        r = ruleset(cell_values(where), players, overrides)
        if t.kind == "level":
            s = data.cell(bot, r, t.rounds, where).samples[(t.metric, t.opponent)]
            e, lo, hi, n, method = estimate(s, level)
            _, lo95, hi95, _, _ = estimate(s)
        else:
            x = data.pair(bot, t.baseline, r)
            e95, el = mean_ci(x), mean_ci(x, level)
            e, lo, hi, n, method = el.estimate, el.ci_low, el.ci_high, el.n, "t (duplicate deals)"
            lo95, hi95 = e95.ci_low, e95.ci_high
        return {"estimate": e, "ci_low": lo, "ci_high": hi, "ci95_low": lo95, "ci95_high": hi95, "n": n,
                "method": method, "rules": r.describe(), "versus": t.baseline}
    a, b = compared(t.change, where)
    ra, rb = (ruleset(cell_values(c), players, overrides) for c in (a, b))
    sa = data.cell(bot, ra, t.rounds, a).samples[(t.metric, t.opponent)]
    sb = data.cell(bot, rb, t.rounds, b).samples[(t.metric, t.opponent)]
    d, d95 = paired_diff(sa, sb, level), paired_diff(sa, sb)
    return {"estimate": d["estimate"], "ci_low": d["ci_low"], "ci_high": d["ci_high"], "ci95_low": d95["ci_low"],
            "ci95_high": d95["ci_high"], "n": d["n"], "method": d["method"], "rules": ra.describe(),
            "versus": rb.describe()}


def _row(st, t, bot, players, where, data, level, decides) -> dict:
    got = _interval(t, bot, players, where, data, level if decides else 0.95)
    verdict = t.expect.judged(got["ci_low"], got["ci_high"]) if decides else ""
    same = lambda c: c.gives == verdict or (c.gives == FAILS and verdict in FAILING)  # noqa: E731
    fails = "; ".join(c.text(t.bot) for c in t.controls if not same(c)) if decides else ""
    return {"claim": st.id, "measure": t.name, "policy": bot, "rules": got["rules"], "players": players,
            "estimate": got["estimate"], "ci_low": got["ci_low"], "ci_high": got["ci_high"], "n": got["n"],
            "smallest_effect": t.expect.smallest_effect if decides else float("nan"), "verdict": verdict,
            "decides": "true" if decides else "false", "fails_under": fails,
            "kind": "statement", "table": f"{players}p", "where": where, "versus": got["versus"],
            "level": level if decides else 0.95, "ci95_low": got["ci95_low"], "ci95_high": got["ci95_high"],
            "region_low": t.expect.low, "region_high": t.expect.high, "expectation": t.expect.text,
            "label": t.label, "unit": t.unit, "method": got["method"], "metric": t.metric,
            "opponent": t.opponent, "change": t.change, "form": t.kind}


def planned(players=(2, 4)) -> list:
    """(statement, tweak, bot, players, where, decides) of every row of the report, deciding first."""
    out = []
    for st in STATEMENTS:
        for t in st.tweaks:
            for p in (p for p in t.players if p in players):
                for w in t.where:
                    out.append((st, t, t.bot, p, w, True))
                    out.extend((st, t, b, p, w, False) for b in t.context_bots)
    return out


def deciding_count(players=(2, 4)) -> int:
    return sum(1 for *_, d in planned(players) if d)


def statement_rows(data, players=(2, 4)) -> tuple[list, float, int]:
    """(rows, the simultaneous level, the number of deciding rows)."""
    m = deciding_count(players)
    level = simultaneous_level(m)
    rows = [_row(st, t, bot, p, w, data, level, d) for st, t, bot, p, w, d in planned(players)]
    return rows, level, m


def control_row(t, control, data) -> dict:
    """A deciding measure under one of its controls, at 95%, with the verdict it gives there."""
    bot = control.policy or t.bot
    got = _interval(t, bot, control.players, control.where or t.where[0], data, 0.95, control.overrides)
    return {**got, "policy": bot, "verdict": t.expect.judged(got["ci_low"], got["ci_high"])}


PARTLY = "partly"


def combine(verdicts) -> str:
    """One verdict from a statement's rows (or player counts): all hold: holds; all fail: how they fail (the
    same way, or plain "does not hold"); some hold and some fail: partly (whatever else is undecided);
    otherwise undecided."""
    vs = list(verdicts)
    h = sum(v in (HOLDS, PARTLY) for v in vs)
    f = [v for v in vs if v in FAILING or v == PARTLY]
    if h and f:
        return PARTLY
    if any(v == UNDECIDED for v in vs) or not vs:
        return UNDECIDED
    if h:
        return HOLDS
    kinds = set(f)
    return kinds.pop() if len(kinds) == 1 else FAILS


def verdicts(rows) -> dict:
    """{statement id: {"2p": verdict, "4p": ..., "all": overall}} over the deciding rows."""
    out: dict = {}
    for r in rows:
        if r["decides"] == "true":
            out.setdefault(r["claim"], {}).setdefault(r["table"], []).append(r["verdict"])
    res = {}
    for sid, by in out.items():
        v = {t: combine(vs) for t, vs in sorted(by.items())}
        v["all"] = combine(v.values())
        res[sid] = v
    return res
