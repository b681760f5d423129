"""The rule-tweaks report: ``rule-tweaks.csv``, ``rule-tweaks.json``, the figures and ``rule-tweaks.md``,
from the results of ``lostcards.analysis.rule_tweaks.run`` (or re-read from an earlier run's files)."""
from __future__ import annotations

import json
import math
import textwrap
from pathlib import Path

import numpy as np
import pandas as pd

from lostcards.analysis.metrics import METRICS, NO_UNIT_DIFFERS
from lostcards.analysis.rule_tweaks import CHANGES, KEY, PERCENT, STALL_POLICIES
from lostcards.analysis.sweep import CHECKS, THRESHOLDS
from lostcards.run.batchdir import write_manifest


def _f(metric: str, v: float, signed: bool = False) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "–"
    if metric in PERCENT:
        x = 100 * v
        d = 2 if abs(x) < 1 and x != 0 else 1
        return f"{x:+.{d}f}" if signed else f"{x:.{d}f}%"
    d = 2 if abs(v) < 10 else 1
    return f"{v:+.{d}f}" if signed else f"{v:.{d}f}"


def _est(metric, e, lo, hi, signed=False) -> str:
    unit = " pp" if signed and metric in PERCENT else ""
    return f"{_f(metric, e, signed)}{unit} [{_f(metric, lo, signed)}, {_f(metric, hi, signed)}]"


def _row(df, **eq):
    m = np.ones(len(df), bool)
    for k, v in eq.items():
        m &= (df[k] == v).to_numpy()
    r = df[m]
    return None if r.empty else r.iloc[0]


def _same(e) -> bool:
    """No unit differs: the two rulesets played every round / deal identically (for this metric)."""
    return e is not None and e["method"] == NO_UNIT_DIFFERS


def _effect_words(metric: str, words: str, e) -> str:
    if e is None or math.isnan(e["estimate"]) or _same(e):
        return ""
    lo, hi, est = e["ci_low"], e["ci_high"], e["estimate"]
    iv = _est(metric, est, lo, hi, True)
    if lo <= 0 <= hi:
        return f"no measurable change in the {words} ({iv})"
    if metric == "turns_per_round":
        return f"{'lengthens' if est > 0 else 'shortens'} the round by {abs(est):.1f} turns ({iv})"
    verb = "raises" if est > 0 else "lowers"
    if metric in PERCENT:
        size = f"{100 * abs(est):.{2 if abs(est) < 0.01 else 1}f} percentage points"
    else:
        size = f"{abs(est):.{2 if abs(est) < 10 else 1}f} points"
    return f"{verb} the {words} by {size} ({iv})"


def _change_sentence(effs: list) -> str:
    """effs: [(metric, opp, words, effect row)] -> one sentence for the report."""
    bits = [b for b in (_effect_words(m, w, e) for m, _, w, e in effs) if b]
    same = [w for m, _, w, e in effs if _same(e)]
    if not bits and same:
        return ("the bots played every round and every deal exactly as without it: under expert play "
                "this rule never came into play")
    out = "; ".join(bits)
    if same:
        out += ("; " if out else "") + "not a single round or deal differs in: " + ", ".join(same)
    return out


def _fig_effects(res, p, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    eff = res["effects"][res["effects"]["players"] == p]
    fig, axes = plt.subplots(2, 4, figsize=(18, 8.5))
    order = [("all", "total")] + [(c["name"], ctx) for c in CHANGES if p in c["players"]
                                  for ctx in ("in published", "in expeditions")]
    labels = ["ALL (expeditions − published)"] + [f"{n}: {ctx}" for n, ctx in order[1:]]
    for ax, (metric, opp, words) in zip(axes.flat, KEY[:8]):
        y = np.arange(len(order))[::-1]
        for yy, (n, ctx) in zip(y, order):
            r = _row(eff, change=n, context=ctx, metric=metric, opponent=opp)
            if r is None:
                continue
            sc = 100 if metric in PERCENT else 1
            e = sc * r["estimate"]
            lo, hi = min(e, sc * r["ci_low"]), max(e, sc * r["ci_high"])
            ax.errorbar([e], [yy], xerr=[[e - lo], [hi - e]], fmt="o", capsize=3,
                        color="black" if n == "all" else ("tab:blue" if ctx == "in published" else "tab:orange"))
        ax.axvline(0, color="grey", lw=1, ls="--")
        ax.set_yticks(y, labels, fontsize=7)
        ax.set_title(textwrap.fill(words + (" (pp)" if metric in PERCENT else ""), 40), fontsize=9)
    fig.suptitle(f"Each change of the adaptation, {p} players: effect (adapted − published) with 95% intervals; "
                 "blue: applied to the published rules, orange: undone in Expeditions")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _fig_cells(res, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    met = res["metrics"]
    fig, axes = plt.subplots(2, 4, figsize=(18, 9))
    cellnames = list(dict.fromkeys(met["cell"]))
    for ax, (metric, opp, words) in zip(axes.flat, KEY[:8]):
        for p, col, off in ((2, "tab:blue", 0.15), (4, "tab:red", -0.15)):
            for k, c in enumerate(cellnames):
                r = _row(met, players=p, cell=c, metric=metric, opponent=opp)
                if r is None:
                    continue
                sc = 100 if metric in PERCENT else 1
                e = sc * r["estimate"]
                lo, hi = min(e, sc * r["ci_low"]), max(e, sc * r["ci_high"])
                ax.errorbar([e], [len(cellnames) - 1 - k + off], xerr=[[e - lo], [hi - e]], fmt="o",
                            color=col, capsize=2, ms=4, label=f"{p} players" if k == 0 else None)
        ax.set_yticks(range(len(cellnames))[::-1], cellnames, fontsize=7)
        ax.set_title(textwrap.fill(words + (" (%)" if metric in PERCENT else ""), 40), fontsize=9)
    axes.flat[0].legend(fontsize=8)
    fig.suptitle("Game metrics per ruleset (expert self-play; skill: expert against greedy / random on "
                 "duplicate deals), 95% intervals")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _fig_depth(depth: pd.DataFrame, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(7, 4.5))
    b = depth["budget"].to_numpy(float)
    m = depth["margin"].to_numpy(float)
    ax.errorbar(b, m, yerr=[m - depth["margin_ci_low"], depth["margin_ci_high"] - m], fmt="o-", capsize=4)
    ax.set_xscale("log", base=2)
    ax.axhline(0, color="grey", lw=1, ls="--")
    ax.set_xlabel("search budget (rollouts per candidate move)")
    ax.set_ylabel("margin against expert, points per round")
    ax.set_title(f"Skill trace, Expeditions 2 players ({int(depth['n'].iloc[0])} duplicate deals per budget)")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def write(res: dict, out: Path, command: str = "lostcards rule-tweaks"):
    out.mkdir(parents=True, exist_ok=True)
    figs = out / "figures"
    figs.mkdir(parents=True, exist_ok=True)
    parts = [res["metrics"], res["effects"], res["checks"], res["stall"]]
    if isinstance(res["depth"], pd.DataFrame):
        parts += [res["depth"], res["steps"]]
    pd.concat(parts, ignore_index=True, sort=False).to_csv(out / "rule-tweaks.csv", index=False)
    names = []
    for p in sorted(set(res["metrics"]["players"])):
        _fig_effects(res, p, figs / f"rule-tweaks-effects-{p}p.png")
        names.append(f"rule-tweaks-effects-{p}p.png")
    _fig_cells(res, figs / "rule-tweaks-cells.png")
    names.append("rule-tweaks-cells.png")
    if isinstance(res["depth"], pd.DataFrame):
        _fig_depth(res["depth"], figs / "rule-tweaks-skill-trace.png")
        names.append("rule-tweaks-skill-trace.png")
    (out / "rule-tweaks.md").write_text(markdown(res, names))
    write_manifest(out, {"config": res["config"], "timing": res["timing"], "figures": names, "command": command},
                   "rule-tweaks.json")


def load(out: Path) -> dict:
    """The results of an earlier run, from reports/rule-tweaks.csv and .json (to re-render the report)."""
    df = pd.read_csv(out / "rule-tweaks.csv", low_memory=False)
    for c in ("cell", "change", "role", "opponent", "context", "versus", "label", "check", "note", "method",
              "unit", "group", "metric", "policy", "rules"):
        if c in df:
            df[c] = df[c].astype(object).where(df[c].notna(), "").astype(str)
    for c in ("same_deals", "flagged"):
        df[c] = df[c].astype(str).eq("True")
    part = {k: df[df["kind"] == k].reset_index(drop=True) for k in df["kind"].unique()}
    for k in part.values():
        for c in ("players", "n", "budget", "from_budget", "to_budget", "stall_ended", "rounds"):
            if c in k and k[c].notna().all():
                k[c] = k[c].astype(int)
    meta = json.loads((out / "rule-tweaks.json").read_text())
    depth = part.get("depth")
    return {"metrics": part["metric"], "effects": part["effect"], "checks": part["check"], "stall": part["stall"],
            "depth": depth, "steps": part.get("depth-step"), "timing": meta["timing"], "config": meta["config"]}


def markdown(res: dict, figures: list) -> str:
    met, eff, st, chk = res["metrics"], res["effects"], res["stall"], res["checks"]
    cfg, timing = res["config"], res["timing"]
    players = sorted(set(met["players"]))
    L = []
    w = L.append

    def m(p, cell, metric, opp=""):
        return _row(met, players=p, cell=cell, metric=metric, opponent=opp)

    def e(p, change, ctx, metric, opp=""):
        return _row(eff, players=p, change=change, context=ctx, metric=metric, opponent=opp)

    def val(r, signed=False):
        return "–" if r is None else _est(r["metric"], r["estimate"], r["ci_low"], r["ci_high"], signed)

    w("# Rule tweaks: what each of the adaptation's changes does\n")
    w("Expeditions changed the published Lost Cities rules in five ways. This report measures each change "
      "alone, in both directions (applied to the published rules, and undone in Expeditions), for 2 and 4 "
      "players, by simulation. Generated by `lostcards rule-tweaks` (`make report`); every number "
      "comes with its 95% interval and, where it is not obvious, its sample size n.\n")
    w("## How it was measured\n")
    w(f"- Bots: **expert self-play** for every game metric ({cfg['rounds']:,} rounds per ruleset, in 3-round "
      "matches whose round r is started by seat r mod players); **skill**: expert against greedy and against "
      f"random on {cfg['rounds']:,} duplicate deals per ruleset (each deal played twice with the sides swapped).")
    w(f"- Seed {cfg['seed']}; every ruleset plays the same round indices. Rulesets with the same deck (same suits; "
      "same player count) get the same shuffles, so an effect within a deck is a *paired* difference over the "
      "same rounds (common random numbers). The suit change alters the deck, so its pairs are independent deals; "
      "the paired interval is still valid, only wider.")
    w("- Intervals: Wilson for shares, t for means, the delta method for ratios (bonus rate), conditional shares "
      "(leader after round 1) and the score spread; effects: paired t / paired delta. When not a single round "
      "or deal differs between two rulesets in a metric (e.g. no stall ending in either), the effect is exactly 0 "
      "on the sample; for a share its interval is then ± the Wilson upper bound of 0 differing rounds in n.")
    w("- Effects are signed in the direction of the adaptation: **adapted value − published value**. "
      "\"in published\" = (published rules + this change) − published rules; \"in expeditions\" = Expeditions − "
      "(Expeditions with this change undone); \"all\" = Expeditions − published.")
    w("- The published rules have no stall rule; the simulator stops such a round at 2,000 turns and flags it "
      "`capped` (never hidden). The pass rules matter only with 4 players, so the pass change is measured for 4 "
      "players only. \"Hand size\" moves the 4-player pass minimum with it (6 in Expeditions, 8 published), "
      "as the rule sheet ties them.")
    code = f"lostcards {cfg['version']}" if "version" in cfg else cfg.get("git", "?")
    w(f"- Code: {code}, lostcards source hash {cfg['source']} (the numbers belong to this version of the bots); "
      f"run {cfg['date']}.\n")

    # ---- the answers ------------------------------------------------------------------------
    w("## The answers\n")
    w("### 1. The stall rule\n")
    for p in players:
        r = m(p, "expeditions", "ended_by_stall")
        if r is not None:
            w(f"- **{p} players, expert self-play:** the stall rule ended {int(round(r['estimate'] * r['n']))} of "
              f"{int(r['n']):,} rounds ({val(r)}).")
    sub = st[st["policy"].isin(STALL_POLICIES)]
    if not sub.empty:
        w("\nEvery bot, Expeditions rules (a stalled round is *still moving* when the same deal, played by the same "
          "bots with the same random draws but without the stall rule, makes an expedition play or a draw off the "
          "deck within the next 8 × players turns after the point where the rule ended it):\n")
        w("| players | bot | rounds | ended by stall | share [95%] | checked | still moving [95%] | "
          "without the rule: extra turns | total score change | deck left at the stall |")
        w("|---|---|---|---|---|---|---|---|---|---|")
        for _, s in sub.iterrows():
            share = f"{100 * s['share']:.2f}% [{100 * s['share_ci_low']:.2f}, {100 * s['share_ci_high']:.2f}]"
            if s["stall_ended"] and s.get("checked", 0):
                mv = (f"{int(s['still_moving'])} of {int(s['prefix_same'])}: {100 * s['moving_share']:.0f}% "
                      f"[{100 * s['moving_ci_low']:.0f}, {100 * s['moving_ci_high']:.0f}]")
                extra = f"{s['cf_extra_turns']:.1f}"
                sc = f"{s['cf_score_change']:.1f}"
                dl = f"{s['deck_left']:.1f}"
            else:
                mv, extra, sc, dl = "–", "–", "–", "–"
            w(f"| {s['players']} | {s['policy']} | {int(s['rounds']):,} | {int(s['stall_ended'])} | {share} | "
              f"{int(s.get('checked', 0) or 0)} | {mv} | {extra} | {sc} | {dl} |")
        w("")
    for p in players:
        r_cap = m(p, "expeditions without stall", "ended_by_capped")
        effs = [(metric, opp, words, e(p, "stall", "in expeditions", metric, opp)) for metric, opp, words in KEY]
        if r_cap is not None:
            w(f"- **{p} players, Expeditions without the stall rule** (expert self-play; a 2,000-turn cap instead): "
              f"capped rounds {val(r_cap)}; the stall rule's effect: {_change_sentence(effs)}.")
    ex = st[st["policy"] == "expert"]
    never = not ex.empty and int(ex["stall_ended"].sum()) == 0
    moving = st[(st["stall_ended"] > 0) & (st.get("checked", 0) > 0)] if "checked" in st else st.iloc[0:0]
    words = []
    if never:
        words.append(f"under expert play the stall rule never ended a round ({int(ex['rounds'].sum()):,} rounds, "
                     "2 and 4 players), and rounds without it were never capped: the expert bot itself takes the "
                     "deck once a run of discard-and-pile-draw turns reaches 2 × players (`_draw` in "
                     "`lostcards/policies/expert.py`), long before the rule's 8 × players")
    elif not ex.empty:
        words.append(f"under expert play the stall rule ended {int(ex['stall_ended'].sum())} of "
                     f"{int(ex['rounds'].sum()):,} rounds")
    for _, s_ in moving.iterrows():
        words.append(f"with {s_['policy']} self-play ({int(s_['players'])} players) it ended "
                     f"{int(s_['stall_ended'])} of {int(s_['rounds']):,} rounds ({_f('ended_by_stall', s_['share'])}), "
                     f"and {int(s_['still_moving'])} of {int(s_['prefix_same'])} "
                     f"of those were still moving ({100 * s_['moving_share']:.0f}% "
                     f"[{100 * s_['moving_ci_low']:.0f}, {100 * s_['moving_ci_high']:.0f}]): without the rule the "
                     f"same deal went on for {s_['cf_extra_turns']:.0f} more turns on average and the two scores "
                     f"moved by {s_['cf_score_change']:.0f} points in all")
    if words:
        w("\nIn words: " + "; ".join(words) + ". So the rule never shapes a game between careful players; it "
          "only cuts rounds short for players who circle through the discard piles, and for a random player "
          "those rounds were not stuck.\n")

    w("### 2. The 6-card hand and the 6-card bonus, against the published values\n")
    for p in players:
        w(f"**{p} players** (effect of the change; \"in published\" = applied to the published rules, "
          "\"in expeditions\" = Expeditions minus Expeditions with the published value back):\n")
        w("| change | context | turns per round | plays per seat | mean score | score sd | bonus rate | "
          "margin over greedy | margin over random | win rate vs greedy |")
        w("|---|---|---|---|---|---|---|---|---|---|")
        for ch in ("hand", "bonus"):
            for ctx in ("in published", "in expeditions"):
                cols = [e(p, ch, ctx, "turns_per_round"), e(p, ch, ctx, "plays_per_seat"),
                        e(p, ch, ctx, "score_mean"), e(p, ch, ctx, "score_sd"), e(p, ch, ctx, "bonus_rate"),
                        e(p, ch, ctx, "margin", "greedy"), e(p, ch, ctx, "margin", "random"),
                        e(p, ch, ctx, "win_rate", "greedy")]
                w(f"| {ch} 8 → 6 | {ctx} | " + " | ".join(val(c, True) for c in cols) + " |")
        base = [("published", "published"), ("expeditions", "expeditions")]
        for name, cell in base:
            cols = [m(p, cell, "turns_per_round"), m(p, cell, "plays_per_seat"), m(p, cell, "score_mean"),
                    m(p, cell, "score_sd"), m(p, cell, "bonus_rate"), m(p, cell, "margin", "greedy"),
                    m(p, cell, "margin", "random"), m(p, cell, "win_rate", "greedy")]
            w(f"| *{name} (level)* | | " + " | ".join(val(c) for c in cols) + " |")
        w("")
    short = [("turns_per_round", "", "turns per round"), ("score_mean", "", "mean score of a side"),
             ("margin", "greedy", "expert's margin over greedy"),
             ("win_rate", "greedy", "expert's win rate against greedy"),
             ("margin", "random", "expert's margin over random")]
    w("In words (the skill gap is the expert's edge over greedy and random on the same deals):\n")
    for ch, name in (("hand", "Dealing 6 cards instead of 8"), ("bonus", "Paying the bonus at 6 cards instead of 8")):
        for p in players:
            parts = []
            for ctx, where in (("in published", "in the published game"), ("in expeditions", "in Expeditions")):
                effs = [(mm, o, ww, e(p, ch, ctx, mm, o)) for mm, o, ww in short]
                parts.append(f"{where} it {_change_sentence(effs)}")
            w(f"- {name}, {p} players: " + "; ".join(parts) + ".")
    w("")
    w("(Percent-point effects are marked pp; n = "
      f"{cfg['rounds']:,} rounds or deals per ruleset.)\n")

    w("### 3. Does the first player have an edge?\n")
    w("| players | ruleset | first player's win rate (draws half) | first player's margin, points | drawn rounds |")
    w("|---|---|---|---|---|")
    for p in players:
        for cell in ("expeditions", "published"):
            w(f"| {p} | {cell} | {val(m(p, cell, 'first_player_win_rate'))} | "
              f"{val(m(p, cell, 'first_player_margin'))} | {val(m(p, cell, 'drawn_rounds'))} |")
    edges = []
    for p in players:
        for cell in ("expeditions", "published"):
            r = m(p, cell, "first_player_win_rate")
            if r is not None:
                edges.append((p, cell, r))
    sig = [x for x in edges if x[2]["ci_low"] > 0.5]
    w("")
    if sig:
        w("In words: " + "; ".join(f"with {p} players in {cell} the first player wins {100 * r['estimate']:.1f}% "
                                    f"[{100 * r['ci_low']:.1f}, {100 * r['ci_high']:.1f}]" for p, cell, r in sig)
          + " of rounds (draws half) — a small but real edge"
          + (", far below the sweep's flag at "
             f"{100 * THRESHOLDS['first_player']:.0f}%." if all(r["estimate"] <= THRESHOLDS["first_player"]
                                                                 for _, _, r in sig) else "."))
    else:
        w("In words: no measurable first-player edge in any of these rulesets.")
    w("")
    for p in players:
        r = e(p, "all", "total", "first_player_win_rate")
        if r is not None:
            w(f"- {p} players, Expeditions against published: the first player's win rate changes by {val(r, True)}.")
    w("\nOver a 3-round match, round r is started by seat r mod players, so seat 0's side starts rounds 1 "
      "and 3. Its match win rate (draws half), n = matches:\n")
    for p in players:
        for cell in ("expeditions", "published"):
            r = m(p, cell, "match_first_seat_win_rate")
            if r is not None:
                w(f"- {p} players, {cell}: {val(r)}, n = {int(r['n']):,}")
    w("")

    # ---- each change in plain words -----------------------------------------------------------
    w("## Each change in plain words\n")
    for c in [{"name": "all", "what": "all five changes together: Expeditions against the published rules",
               "players": (2, 4)}] + CHANGES:
        w(f"### {c['what'][0].upper() + c['what'][1:]}\n")
        for p in players:
            if p not in c["players"]:
                continue
            ctxs = ["total"] if c["name"] == "all" else ["in published", "in expeditions"]
            for ctx in ctxs:
                effs = [(metric, opp, words, e(p, c["name"], ctx, metric, opp)) for metric, opp, words in KEY]
                r = e(p, c["name"], ctx, "turns_per_round")
                where = {"total": "Expeditions against the published game",
                         "in published": "applied to the published rules",
                         "in expeditions": "in Expeditions (against putting the published value back)"}[ctx]
                deals = "" if r is None else (" (same deals)" if r["same_deals"] else
                                              " (different decks: independent deals)")
                w(f"- **{p} players, {where}{deals}:** " + _change_sentence(effs) + ".")
        w("")

    # ---- checks -------------------------------------------------------------------------------
    w("## Checks a designer can rely on\n")
    w("`lostcards sweep` flags a ruleset when (thresholds in `lostcards/sweep.py`, `THRESHOLDS`; changeable "
      "with `--max-stall`, `--max-first`, `--min-skill`):\n")
    for k, (_, _, text) in CHECKS.items():
        w(f"- `{k}`: {text.format(t=THRESHOLDS[k])}.")
    bad = chk[chk["flagged"]]
    w("")
    if bad.empty:
        w(f"None of the {len(chk) // len(CHECKS)} rulesets measured here is flagged.")
    else:
        w("Flagged here:\n")
        for _, f in bad.iterrows():
            w(f"- {f['players']} players, {f['label']}: `{f['check']}` — {f['metric']}"
              + (f" vs {f['opponent']}" if f["opponent"] else "")
              + f" = {_est(f['metric'], f['estimate'], f['ci_low'], f['ci_high'])}, n = {int(f['n']):,}")
    worst = {}
    for k, (metric, opp, _) in CHECKS.items():
        sub = chk[chk["check"] == k].dropna(subset=["estimate"])
        if not sub.empty:
            r = sub.loc[sub["estimate"].idxmin() if k == "skill" else sub["estimate"].idxmax()]
            worst[k] = r
    if worst:
        w("\nClosest to a flag: " + "; ".join(
            f"{k}: {r['players']} players, {r['label']}: {_est(r['metric'], r['estimate'], r['ci_low'], r['ci_high'])}"
            for k, r in worst.items()) + ".")
    w("")

    # ---- depth ----------------------------------------------------------------------------------
    w("## Depth: does more thinking keep paying? (skill trace)\n")
    depth, steps = res["depth"], res["steps"]
    if isinstance(depth, pd.DataFrame) and not depth.empty:
        w(f"The `search` bot (flat Monte Carlo over determinizations) at doubling budgets (rollouts per candidate "
          f"move) against expert, Expeditions, 2 players, on the same {int(depth['n'].iloc[0])} duplicate deals per "
          f"budget (a few hundred only: search took {depth['seconds_per_deal'].iloc[-1]:.2f} s per deal of two "
          f"rounds at {int(depth['budget'].iloc[-1])} rollouts on this machine, so these intervals are wide).\n")
        w("| rollouts | margin against expert, points per round | win rate (draws half) | seconds per deal |")
        w("|---|---|---|---|")
        for _, r in depth.iterrows():
            w(f"| {r['budget']} | {r['margin']:+.1f} [{r['margin_ci_low']:+.1f}, {r['margin_ci_high']:+.1f}] | "
              f"{100 * r['win_rate']:.1f}% [{100 * r['win_rate_ci_low']:.1f}, {100 * r['win_rate_ci_high']:.1f}] | "
              f"{r['seconds_per_deal']:.2f} |")
        w("\nEach doubling, paired on the same deals:\n")
        w("| budget | gain in margin, points per round |")
        w("|---|---|")
        for _, r in steps.iterrows():
            w(f"| {r['from_budget']} → {r['to_budget']} | {r['gain']:+.1f} [{r['ci_low']:+.1f}, {r['ci_high']:+.1f}] |")
        pays = [r for _, r in steps.iterrows() if r["ci_low"] > 0]
        flat = [r for _, r in steps.iterrows() if r["ci_low"] <= 0]
        w("")
        par = depth[depth["margin_ci_high"] >= 0]
        last = steps.iloc[-1]
        w("In words: "
          + ("measurable gains from the doublings "
             f"{', '.join(f'{int(r.from_budget)}→{int(r.to_budget)}' for r in pays)}"
             if pays else "no doubling pays measurably at this sample size")
          + (f"; no measurable gain from {', '.join(f'{int(r.from_budget)}→{int(r.to_budget)}' for r in flat)}"
             if flat else "")
          + (f". Search first matches the expert (interval reaching 0 or above) at {int(par['budget'].iloc[0])} "
             "rollouts" if not par.empty else ". Search stays below the expert at every budget tried")
          + (f"; the last doubling ({int(last.from_budget)}→{int(last.to_budget)}) "
             + ("still pays" if last["ci_low"] > 0 else "adds nothing measurable")
             + f" ({last['gain']:+.1f} [{last['ci_low']:+.1f}, {last['ci_high']:+.1f}] points per round)")
          + ". A skill trace that keeps rising means more thinking keeps paying (a deep game); one that "
            "flattens means the game, or this search, saturates there. Against expert as the yardstick a flat "
            "top can also mean both bots have reached the same plateau; more deals per budget and larger "
            "budgets would tell.")
    elif isinstance(depth, str):
        w(f"**Pending**: the skill trace could not run ({depth}). The code path is "
          "`lostcards.metrics.skill_trace` (also `lostcards sweep --depth 2,4,8,16`).")
    else:
        w("**Pending**: not run this time (`--depth-deals 0`). The code path is `lostcards.metrics.skill_trace` "
          "(also `lostcards sweep --depth 2,4,8,16`).")
    w("")

    # ---- files ----------------------------------------------------------------------------------
    w("## Files and timing\n")
    w("- `reports/rule-tweaks.csv`: every number above, tidy; column `kind`: `metric` (one row per ruleset and "
      "metric), `effect` (paired differences), `check` (the sweep's checks per ruleset), `stall`, `depth`, "
      "`depth-step`.")
    for f in figures:
        w(f"- `reports/figures/{f}`")
    w("")
    w("![effects, 2 players](figures/rule-tweaks-effects-2p.png)\n")
    w("Time taken on this machine (2 cores shared with other engineers, so timings are noisy): "
      + ", ".join(f"{k.replace('_s', '')} {v:.0f} s" for k, v in timing.items()) + ".\n")
    w("Metric definitions (`lostcards.metrics.METRICS`):\n")
    for k, (g, unit, text) in METRICS.items():
        w(f"- `{k}` ({g}, per {unit}): {text}")
    return "\n".join(L) + "\n"
