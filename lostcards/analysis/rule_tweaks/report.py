"""The rule-tweaks report: ``rule-tweaks.csv``, ``rule-tweaks.json``, the figures and ``rule-tweaks.md``,
from the results of ``rule_tweaks.run`` (or re-read from an earlier run's files: ``load``).

Every number a sentence of ``rule-tweaks.md`` shows is a value of a row of
``rule-tweaks.csv`` (``tests/test_rule_tweaks.py`` checks it): the run's
settings are rows too (kind ``config``).
"""
from __future__ import annotations

import json
import math
import textwrap
from pathlib import Path

import numpy as np
import pandas as pd

from lostcards.analysis.claims.verdict import ALPHA, FAILING, FAILS, HARMFUL, HOLDS, NO_EFFECT, UNDECIDED
from lostcards.analysis.claims.words import fmt, short
from lostcards.analysis.metrics import METRICS
from lostcards.analysis.rule_tweaks.declare import CHANGES, KEY, PASSER, PERCENT, STALLER, STATEMENTS
from lostcards.analysis.rule_tweaks.rows import PARTLY, verdicts
from lostcards.analysis.sweep import CHECKS, THRESHOLDS, WHY
from lostcards.run.batchdir import write_manifest

PARTS = ("statements", "bots", "metrics", "effects", "checks", "fires", "sensitivity", "stall", "depth", "steps")
KINDS = {"statements": "statement", "bots": "bot", "metrics": "metric", "effects": "effect", "checks": "check",
         "fires": "fire", "sensitivity": "sensitivity", "stall": "stall", "depth": "depth", "steps": "depth-step"}
CONFIG = ("seed", "rounds", "edge_rounds", "deciding_rows", "level", "depth_deals")


def _unit(metric: str) -> str:
    return "share" if metric in PERCENT else ""


def _iv(e, lo, hi, unit="", sign=False) -> str:
    """estimate [low, high], as the tables write it (shares as percentages; effects on shares in pp)."""
    if unit == "share" and sign:
        return f"{100 * e:+.2f} pp [{100 * lo:+.2f}, {100 * hi:+.2f}]"
    s = f"{fmt(e, unit)} [{fmt(lo, unit)}, {fmt(hi, unit)}]"
    return ("+" + s if sign and e >= 0 else s)


def _r(df, **eq):
    """The first row of df with these column values (None if none)."""
    if df is None or not isinstance(df, pd.DataFrame) or df.empty:
        return None
    m = np.ones(len(df), bool)
    for k, v in eq.items():
        m &= (df[k] == v).to_numpy()
    return None if not m.any() else df[m].iloc[0]


def _said(r, unit="", sign=False) -> str:
    """A row's estimate and interval, short, for a sentence."""
    if r is None:
        return "–"
    s = lambda x: (("+" if sign and x >= 0 else "") + short(x, unit))  # noqa: E731
    return f"{s(r['estimate'])} [{s(r['ci_low'])}, {s(r['ci_high'])}]"


# ---- figures ------------------------------------------------------------------------------

def _plt():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def _fig_statements(st: pd.DataFrame, path):
    plt = _plt()
    d = st[st["decides"] == "true"].reset_index(drop=True)
    names = list(dict.fromkeys(d["measure"]))
    fig, axes = plt.subplots(2, math.ceil(len(names) / 2), figsize=(4 * math.ceil(len(names) / 2), 8))
    for ax, name in zip(axes.flat, names):
        sub = d[d["measure"] == name]
        sc = 100 if sub["unit"].iloc[0] == "share" else 1
        y = np.arange(len(sub))[::-1]
        for yy, (_, r) in zip(y, sub.iterrows()):
            col = "tab:green" if r["verdict"] == HOLDS else "tab:red" if r["verdict"] in FAILING else "tab:grey"
            e, lo, hi = sc * r["estimate"], sc * r["ci_low"], sc * r["ci_high"]
            ax.errorbar([e], [yy], xerr=[[max(0, e - lo)], [max(0, hi - e)]], fmt="o", color=col, capsize=3)
        for edge in (sub["region_low"].iloc[0], sub["region_high"].iloc[0]):
            if math.isfinite(edge):
                ax.axvline(sc * edge, color="black", ls="--", lw=1)
        ax.set_yticks(y, [f"{p}p {w}" for p, w in zip(sub["players"], sub["where"])], fontsize=7)
        ax.set_title(textwrap.fill(sub["label"].iloc[0], 38), fontsize=8)
    for ax in list(axes.flat)[len(names):]:
        ax.axis("off")
    fig.suptitle("Deciding rows: simultaneous intervals (green holds, red does not, grey undecided); "
                 "dashed: the edge of the region where the statement is true", fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def _fig_effects(eff: pd.DataFrame, p: int, path):
    plt = _plt()
    eff = eff[eff["players"] == p]
    fig, axes = plt.subplots(2, 4, figsize=(18, 8.5))
    order = [("all", "total")] + [(c["name"], ctx) for c in CHANGES if p in c["players"]
                                  for ctx in ("in published", "in expeditions")]
    labels = ["ALL (expeditions − published)"] + [f"{n}: {ctx}" for n, ctx in order[1:]]
    y = np.arange(len(order))[::-1]
    for ax, (metric, opp, words) in zip(axes.flat, KEY[:8]):
        sc = 100 if metric in PERCENT else 1
        for yy, (n, ctx) in zip(y, order):
            r = _r(eff, change=n, context=ctx, metric=metric, opponent=opp)
            if r is not None:
                e = sc * r["estimate"]
                lo, hi = min(e, sc * r["ci_low"]), max(e, sc * r["ci_high"])
                ax.errorbar([e], [yy], xerr=[[e - lo], [hi - e]], fmt="o", capsize=3,
                            color="black" if n == "all" else ("tab:blue" if ctx == "in published" else "tab:orange"))
        ax.axvline(0, color="grey", lw=1, ls="--")
        ax.set_yticks(y, labels, fontsize=7)
        ax.set_title(textwrap.fill(words + (" (pp)" if metric in PERCENT else ""), 40), fontsize=9)
    fig.suptitle(f"Each change, {p} players, expert self-play: effect (adapted − published), 95% intervals; "
                 "blue: applied to the published rules, orange: undone in Expeditions")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def _fig_depth(depth: pd.DataFrame, path):
    plt = _plt()
    fig, ax = plt.subplots(figsize=(7, 4.5))
    b, m = depth["budget"].to_numpy(float), depth["margin"].to_numpy(float)
    ax.errorbar(b, m, yerr=[m - depth["margin_ci_low"], depth["margin_ci_high"] - m], fmt="o-", capsize=4)
    ax.set_xscale("log", base=2)
    ax.axhline(0, color="grey", lw=1, ls="--")
    ax.set_xlabel("search budget (iterations a decision)")
    ax.set_ylabel("margin against expert, points per round")
    ax.set_title(f"Skill trace, Expeditions 2 players ({int(depth['n'].iloc[0])} duplicate deals per budget)")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


# ---- files --------------------------------------------------------------------------------

TIMED = ("seconds_per_deal",)     # timing columns: printed, never written (the files stay byte-identical)


def _config_rows(cfg: dict, timing: dict) -> pd.DataFrame:
    """The run's settings as rows (the sentences that quote them find them in the CSV); `timing`: none is
    written by ``write`` (timings differ from run to run; the command prints them)."""
    return pd.DataFrame([{"kind": "config", "metric": k, "estimate": float(cfg[k])} for k in CONFIG if k in cfg]
                        + [{"kind": "config", "metric": f"seconds {k}", "estimate": float(v)}
                           for k, v in timing.items()])


def write(res: dict, out: Path, command: str = "lostcards rule-tweaks"):
    out = Path(out)
    figs = out / "figures"
    figs.mkdir(parents=True, exist_ok=True)
    parts = [_config_rows(res["config"], {})]      # no timings: the same plan and seed give the same bytes
    for k in PARTS:
        if isinstance(res.get(k), pd.DataFrame) and not res[k].empty:
            parts.append(res[k].drop(columns=list(TIMED), errors="ignore").assign(kind=KINDS[k]))
    pd.concat(parts, ignore_index=True, sort=False).to_csv(out / "rule-tweaks.csv", index=False)
    names = ["rule-tweaks-statements.png"]
    _fig_statements(res["statements"], figs / names[0])
    for p in sorted(set(res["effects"]["players"])):
        _fig_effects(res["effects"], p, figs / f"rule-tweaks-effects-{p}p.png")
        names.append(f"rule-tweaks-effects-{p}p.png")
    if isinstance(res["depth"], pd.DataFrame):
        _fig_depth(res["depth"], figs / "rule-tweaks-skill-trace.png")
        names.append("rule-tweaks-skill-trace.png")
    (out / "rule-tweaks.md").write_text(markdown(res, names))
    config = {k: v for k, v in res["config"].items() if k not in ("source", "date")}
    write_manifest(out, {"config": config, "figures": names, "command": command}, "rule-tweaks.json")


def load(out: Path) -> dict:
    """The results of an earlier run, from rule-tweaks.csv and .json (to render the report again)."""
    out = Path(out)
    df = pd.read_csv(out / "rule-tweaks.csv", low_memory=False, keep_default_na=False, na_values=[""])
    for c in df.columns:
        if not pd.api.types.is_numeric_dtype(df[c]) and not pd.api.types.is_bool_dtype(df[c]):
            df[c] = df[c].astype(object).where(df[c].notna(), "").astype(str)
    for c in ("same_deals", "flagged", "first"):
        if c in df:
            df[c] = df[c].astype(str).eq("True")
    if "decides" in df:          # "true"/"false", as the rows write it (pandas reads them as booleans)
        df["decides"] = df["decides"].astype(str).str.lower().where(df["kind"] == "statement", "")
    res = {}
    for k in PARTS:
        part = df[df["kind"] == KINDS[k]].dropna(axis=1, how="all").reset_index(drop=True)
        for c in ("players", "n", "budget", "from_budget", "to_budget", "stall_ended", "rounds"):
            if c in part and part[c].notna().all() and not part.empty:
                part[c] = part[c].astype(float).astype(int)
        res[k] = part if not part.empty else None
    meta = json.loads((out / "rule-tweaks.json").read_text())
    return {**res, "timing": meta.get("timing", {}), "config": meta["config"]}


# ---- the markdown -------------------------------------------------------------------------

VERB = {HOLDS: "holds", FAILS: "does not hold", PARTLY: "holds in part", UNDECIDED: "is undecided",
        HARMFUL: "harmful", NO_EFFECT: "no material effect"}

def _statement_section(st, rows: pd.DataFrame, v: dict) -> list:
    L = [f"### {st.title}: {VERB[v.get('all', '')] if v.get('all') in VERB else 'not measured'}\n",
         f"{st.text} {st.measured}\n",
         "| measure | bot | players | where | estimate [interval] | n | true for | verdict | "
         "comes out the other way under |", "|---|---|---|---|---|---|---|---|---|"]
    for _, r in rows[rows["claim"] == st.id].iterrows():
        deciding = r["decides"] == "true"
        iv = _iv(r["estimate"], r["ci_low"], r["ci_high"], r["unit"], r["form"] == "effect")
        L.append(f"| {r['label']} | {r['policy']} | {r['players']} | {r['where']} | {iv}"
                 f"{'' if deciding else ' (95%, context)'} | {int(r['n']):,} | "
                 f"{r['expectation'] if deciding else '–'} | {r['verdict'] or '–'} | {r['fails_under'] or '–'} |")
    L.append("")
    return L


def _bots_section(res) -> list:
    st, bots = res["statements"], res["bots"]
    L = ["## The bots that use the stall and pass rules\n"]
    if bots is None or bots.empty:
        return L + ["Not measured in this run.\n"]
    s = lambda **eq: _r(st, decides="true", **eq)  # noqa: E731
    b = lambda **eq: _r(bots, **eq)  # noqa: E731
    for p in sorted(set(bots["players"])):
        end = s(measure="stall_ended", players=p, where="expeditions")
        draws = b(policy=STALLER, players=p, metric="pile_draws_per_round")
        mar = b(policy=STALLER, players=p, metric="margin", where="expeditions")
        if end is None or mar is None:
            continue
        L.append(f"- **{STALLER}, {p} players, Expeditions:** the stall rule ended {_said(end, 'share')} of its "
                 f"self-play rounds; it draws {_said(draws, '', True)} more cards off a discard pile per round than "
                 f"expert on the same deals; against expert on duplicate deals its margin is {_said(mar, '', True)} "
                 "points a round. A stall ends a round only when every seat stalls, and the side behind, "
                 "playing as expert, takes the deck instead.")
    for where in ("expeditions", "published"):
        used = s(measure="pass_used", players=4, where=where)
        mar = b(policy=PASSER, players=4, metric="margin", where=where)
        off = s(measure="pass_pays", players=4, where=where)
        if used is not None and mar is not None:
            L.append(f"- **{PASSER}, 4 players, {where}:** it passes {_said(used)} times a round (all four seats); "
                     f"its margin over expert is {_said(mar, '', True)} and over the same bot never passing "
                     f"{_said(off, '', True)} points a round (duplicate deals).")
    L += ["", "| bot | against | players | ruleset | measure | estimate [95%] | n |", "|---|---|---|---|---|---|---|"]
    for _, r in bots.iterrows():
        L.append(f"| {r['policy']} | {r['versus']} | {r['players']} | {r['where']} | {r['metric']} | "
                 f"{_iv(r['estimate'], r['ci_low'], r['ci_high'], '', True)} | {int(r['n']):,} |")
    return L + [""]


def _checks_section(res) -> list:
    chk, fires = res["checks"], res["fires"]
    L = ["## Checks a designer can rely on\n",
         "`lostcards sweep` flags a ruleset when (thresholds in `lostcards/analysis/sweep.py`, `THRESHOLDS`; "
         "`--max-stall`, `--max-first`, `--min-skill` change them):\n"]
    for k, (_, _, text) in CHECKS.items():
        L.append(f"- `{k}`: {text.format(t=THRESHOLDS[k])}. Why there: {WHY[k]}")
    if fires is not None and not fires.empty:
        L += ["", "Each check on a ruleset made to trip it (a check that cannot fire checks nothing):\n",
              "| check | bot | players | ruleset | measured [95%] | n | flagged |", "|---|---|---|---|---|---|---|"]
        for _, f in fires.iterrows():
            L.append(f"| `{f['check']}` | {f['policy']} | {f['players']} | {f['rules']} | "
                     f"{_iv(f['estimate'], f['ci_low'], f['ci_high'], 'share')} | {int(f['n']):,} | "
                     f"{'yes' if f['flagged'] else 'no'} |")
    L += _sensitivity_lines(res.get("sensitivity"))
    bad = chk[chk["flagged"]]
    L.append("")
    L.append("Among the report's own rulesets (expert self-play; skill against greedy): "
             + ("none is flagged." if bad.empty else "; ".join(
                 f"{f['players']} players, {f['label']}: `{f['check']}`" for _, f in bad.iterrows()) + "."))
    L += ["", "| check | closest ruleset | measured [95%] | n | threshold |", "|---|---|---|---|---|"]
    for k in CHECKS:
        sub = chk[chk["check"] == k].dropna(subset=["estimate"])
        if not sub.empty:
            r = sub.loc[sub["estimate"].idxmin() if k == "skill" else sub["estimate"].idxmax()]
            L.append(f"| `{k}` | {r['players']} players, {r['label']} | "
                     f"{_iv(r['estimate'], r['ci_low'], r['ci_high'], 'share')} | {int(r['n']):,} | "
                     f"{fmt(r['threshold'], 'share')} |")
    ns = sorted({int(x) for part in (chk, res.get("fires"), res.get("sensitivity")) if part is not None
                 and not part.empty for x in part["n"] if x})
    if len(ns) > 1:
        L += ["", "Note on sample sizes: a check's quantity is measured on "
              + ", ".join(f"{n:,}" for n in ns) + " rounds in the tables above (the report's own rulesets on "
              "its self-play rounds, the rulesets made to trip a check and the sensitivity steps on fewer); each "
              "row shows its own `n`. The first player's win rate of the statements is measured apart, on the "
              "edge rounds shown there."]
    return L + [""]


def _whole(v):
    """A rule's value as written: 5, not 5.0 (a CSV read back turns a column of integers into floats)."""
    return int(v) if isinstance(v, float) and v.is_integer() else v


def _sensitivity_lines(sens) -> list:
    """The smallest change of a real rule that trips each check (``play.sensitivity_rows``)."""
    if sens is None or sens.empty:
        return []
    from lostcards.analysis.rule_tweaks.play import smallest_trips
    small = smallest_trips(sens)
    L = ["", "The smallest change of a real rule that trips each check (each check on its bot, as above; each rule "
         "stepped away from the Expeditions value, one step at a time in each direction: "
         + "; ".join(f"{r} {'/'.join(map(str, dn))} and {'/'.join(map(str, up))}"
                     for r, (dn, up) in _steps().items()) + "; stall_limit 0 is the rule off):\n",
         "| check | bot | players | smallest change that trips it | steps | measured [95%] | n |",
         "|---|---|---|---|---|---|---|"]
    for _, r in small.iterrows():
        iv = f"{_iv(r['estimate'], r['ci_low'], r['ci_high'], 'share')} | {int(r['n']):,} |"
        if not r["rule"]:
            L.append(f"| `{r['check']}` | {r['policy']} | {r['players']} | none within the steps tried (closest: "
                     f"{r['closest']} = {_whole(r['value'])}) | – | {iv}")
            continue
        L.append(f"| `{r['check']}` | {r['policy']} | {r['players']} | {r['rule']} = {_whole(r['value'])} "
                 f"({r['rules']}) | {int(r['step'])} | {iv}")
    return L


def _steps() -> dict:
    from lostcards.analysis.rule_tweaks.declare import SENSITIVITY
    return SENSITIVITY


def _effects_section(res) -> list:
    eff = res["effects"]
    L = ["## Each change, every metric (expert self-play, paired, 95%)\n",
         "Signed in the direction of the adaptation (adapted minus published); \"in published\": the published "
         "rules with the change against without it; \"in expeditions\": Expeditions against the change undone; "
         "pp: percentage points. A change between different decks (the suits) pairs independent deals.\n",
         "| players | change | context | " + " | ".join(w for _, _, w in KEY) + " |",
         "|---|---|---|" + "---|" * len(KEY)]
    for (p, ch, ctx), sub in eff.groupby(["players", "change", "context"], sort=False):
        cells = []
        for metric, opp, _ in KEY:
            r = _r(sub, metric=metric, opponent=opp)
            cells.append("–" if r is None else _iv(r["estimate"], r["ci_low"], r["ci_high"], _unit(metric), True))
        L.append(f"| {p} | {ch} | {ctx} | " + " | ".join(cells) + " |")
    return L + ["", "![effects, 2 players](figures/rule-tweaks-effects-2p.png)", ""]


def _stall_section(res) -> list:
    st = res["stall"]
    L = ["## The stall rule's endings, per bot (Expeditions)\n",
         "A stalled round is *still moving* when the same deal, played by the same bots with the same random "
         "draws but without the stall rule, makes an expedition play or a deck draw within the next "
         "stall-limit x players turns.\n",
         "| players | bot | rounds | ended by stall [95%] | still moving | without the rule: extra turns |",
         "|---|---|---|---|---|---|"]
    for _, s in st.iterrows():
        done = s["stall_ended"] > 0 and s.get("checked", 0) > 0
        moving = f"{int(s['still_moving'])} of {int(s['prefix_same'])}" if done else "–"
        extra = f"{s['cf_extra_turns']:.1f}" if done else "–"
        L.append(f"| {s['players']} | {s['policy']} | {int(s['rounds']):,} | {int(s['stall_ended'])}: "
                 f"{_iv(s['share'], s['share_ci_low'], s['share_ci_high'], 'share')} | {moving} | {extra} |")
    return L + [""]


def _depth_section(res) -> list:
    depth, steps = res["depth"], res["steps"]
    L = ["## Depth: does more thinking keep paying? (skill trace)\n"]
    if not isinstance(depth, pd.DataFrame) or depth.empty:
        return L + ["Not run this time (`--depth-deals 0`); `lostcards sweep --depth 250,500,1000,2000` runs it.\n"]
    L += [f"The `search` bot (`docs/search.md`) at doubling budgets (iterations a decision) against expert, "
          f"Expeditions, 2 players, on the same {int(depth['n'].iloc[0])} duplicate deals per budget.\n",
          "| iterations | margin against expert [95%] | win rate [95%] |", "|---|---|---|"]
    for _, r in depth.iterrows():
        L.append(f"| {r['budget']} | {_iv(r['margin'], r['margin_ci_low'], r['margin_ci_high'], '', True)} | "
                 f"{_iv(r['win_rate'], r['win_rate_ci_low'], r['win_rate_ci_high'], 'share')} |")
    L += ["", "| doubling | gain in margin [95%], paired |", "|---|---|"]
    for _, r in steps.iterrows():
        L.append(f"| {r['from_budget']} → {r['to_budget']} | {_iv(r['gain'], r['ci_low'], r['ci_high'], '', True)} |")
    last = steps.iloc[-1]
    L.append(f"\nThe last doubling changes the margin by {_said(last.rename({'gain': 'estimate'}), '', True)} "
             f"points a round: {'more thinking still pays there' if last['ci_low'] > 0 else 'no measurable gain'}.")
    return L + [""]


def markdown(res: dict, figures: list) -> str:
    cfg, st = res["config"], res["statements"]
    v = verdicts(st.to_dict("records"))
    m, level = int(cfg["deciding_rows"]), float(cfg["level"])
    L = ["# Rule tweaks: the adaptation's rule changes, as statements decided by simulation\n",
         "Expeditions changed the published Lost Cities rules in five ways. Each statement below about those "
         "changes was declared before anything was played (`lostcards/analysis/rule_tweaks/declare.py`): what "
         "it says, the values for which it is true with the smallest effect that matters, the bot that "
         "measures it, and the controls. Generated by `lostcards rule-tweaks --out reports` (`make report`).\n",
         "## How it was measured\n",
         f"- {cfg['rounds']:,} self-play rounds per ruleset and bot, and {cfg['rounds']:,} duplicate deals per "
         f"pair of bots (each deal played twice, the sides swapped); the first player's edge on "
         f"{cfg['edge_rounds']:,} rounds per ruleset. Seed {cfg['seed']}: rulesets with the same deck share "
         "their deals, so an effect is a paired difference.",
         f"- {m} deciding rows; each deciding interval is at {100 * level:.2f}%, simultaneous over all {m} "
         f"(Bonferroni: family-wise error {ALPHA:.0%}). Rows of other bots beside the deciding one are at "
         "95% and decide nothing.",
         "- A row holds when its whole interval lies where the statement is true, does not hold when the whole "
         "interval lies outside, and is undecided otherwise (the claims' rule, `docs/claims.md`); a comparison "
         "that does not hold is harmful (wholly below minus its smallest effect) or of no material effect "
         "(wholly within plus or minus it) where its interval says which. A statement combines its rows: all "
         "hold, holds; all fail, how they fail; some of each, partly.",
         "- Each deciding row names the control under which it comes out the other way; "
         "`tests/test_rule_tweaks.py` plays every control on a small run and checks that it does.",
         f"- Code: `lostcards {cfg.get('version', '?')}`.\n",
         "## Verdicts\n", "| statement | 2 players | 4 players | overall |", "|---|---|---|---|"]
    for s in STATEMENTS:
        x = v.get(s.id, {})
        L.append(f"| {s.title} | {x.get('2p', '–')} | {x.get('4p', '–')} | **{x.get('all', '–')}** |")
    L += ["", "![deciding rows](figures/rule-tweaks-statements.png)", "", "## The statements\n"]
    for s in STATEMENTS:
        if s.id in v:
            L += _statement_section(s, st, v[s.id])
    L += _bots_section(res) + _checks_section(res) + _effects_section(res) + _stall_section(res)
    L += _depth_section(res)
    L += ["## Files\n",
          "- `reports/rule-tweaks.csv`: every number above; column `kind`: " + ", ".join(
              f"`{k}`" for k in ("config", *KINDS.values())) + "."]
    L += [f"- `reports/figures/{f}`" for f in figures]
    L.append("")
    L.append("Metric definitions (`lostcards.analysis.metrics.METRICS`):\n")
    L += [f"- `{k}` ({g}, per {u}): {t}" for k, (g, u, t) in METRICS.items()]
    return "\n".join(L) + "\n"
