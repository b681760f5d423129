"""Writing a claims run: ``claims.csv`` (the contract other programs read), ``claims.md``, figures, manifest.

``claims.csv`` has one row per measure, bot and table, with the columns of
``CSV_COLUMNS`` in that order (``EXTRA_COLUMNS`` follow): ``ci_low`` and
``ci_high`` are the simultaneous intervals for deciding rows (``decides`` true)
and 95% intervals for context rows, whose ``verdict`` is empty.
"""
from __future__ import annotations

from pathlib import Path

import pandas as pd

from lostcards.analysis.claims.declare import DECIDING_BY_TABLE, TABLES, Setting
from lostcards.analysis.claims.plots import close
from lostcards.analysis.claims.sheet import tips_markdown
from lostcards.analysis.claims.tolerance import CARD, CARD_SHARE, WIN
from lostcards.analysis.claims.verdict import ALPHA, AT_EDGE, FAILS, LEFT_OUT, MIXED, TOO_FEW, UNDECIDED, VERDICTS
from lostcards.analysis.claims.words import fmt, fmt_est, join
from lostcards.run.batchdir import versions, write_manifest

CSV_COLUMNS = ("claim", "measure", "policy", "rules", "players", "estimate", "ci_low", "ci_high", "n",
               "smallest_effect", "verdict", "decides", "fails_under")
EXTRA_COLUMNS = ("table", "unit", "baseline", "level", "ci95_low", "ci95_high", "clusters", "expected",
                 "region_low", "region_high", "expectation", "label", "statement", "equivalence_margin",
                 "flips_at", "plain_verdict", "way", "cause", "tolerance_basis")


def csv_rows(run) -> list:
    out = []
    for res in run.results.values():
        for r in res.rows:
            e, x, m = r.est, r.expect, r.measure
            e95 = e.at(0.95) if r.decides else e
            out.append({
                "claim": r.claim, "measure": m.name, "policy": r.policy, "rules": r.setting.rules().describe(),
                "players": r.setting.spec.players, "estimate": e.estimate, "ci_low": e.ci_low, "ci_high": e.ci_high,
                "n": e.n, "smallest_effect": x.smallest_effect, "verdict": r.verdict,
                "decides": "true" if r.decides else "false",
                "fails_under": fails_under(r),
                "table": r.table, "unit": m.unit or "", "baseline": r.baseline, "level": e.level,
                "ci95_low": e95.ci_low, "ci95_high": e95.ci_high, "clusters": e.clusters, "expected": x.value,
                "region_low": x.low, "region_high": x.high, "expectation": x.text, "label": m.label,
                "statement": m.statement,
                "equivalence_margin": x.smallest_effect if (x.equivalence and r.decides) else float("nan"),
                "flips_at": flips_at(r), "plain_verdict": x.plain(e.ci_low, e.ci_high) if r.decides else "",
                "way": r.way, "cause": r.cause, "tolerance_basis": x.basis.name if x.basis is not None else ""})
    return out


def flips_at(row) -> float:
    """A deciding row's flip point: the tolerance (smallest effect) at which its verdict would change."""
    return row.expect.flip(row.est.ci_low, row.est.ci_high) if row.decides else float("nan")


def flip_text(row) -> str:
    """'e = 0.42' (with the share of the tip's number for "about"), or '' when none."""
    f = flips_at(row)
    if f != f:
        return "" if not row.decides else "no tolerance turns it"
    x = row.expect.value
    rel = f" ({f / abs(x):.1%} of {fmt(x, row.measure.unit)})" if row.expect.edges[:2] == (x, -1.0) and x else ""
    return f"e = {fmt(f, row.measure.unit)}{rel}"


def edge_text(row) -> str:
    """Why a row is at the edge: the tolerance that flips it, or (none does) its interval near an edge."""
    head, f = f"`{row.measure.name}` ({row.bot})", flips_at(row)
    if f == f:                                           # not NaN (as in flip_text)
        return f"{head} flips at {flip_text(row)}"
    return f"{head} lies within its interval's width of an edge at n = {row.est.n:,} (no tolerance turns it)"


def fails_under(row) -> str:
    """For a deciding row: the control(s), in the row's own table, under which its measure comes out the
    other way (for a row that is undecided: all of them)."""
    if not row.decides:
        return ""
    v, way = row.verdict, row.way
    if v == AT_EDGE:                   # the way it leans
        v = row.expect.plain(row.est.ci_low, row.est.ci_high)
    cs = [c for c in row.measure.controls if c.applies(row.table) and not c.matches(v, way)]
    return "; ".join(c.text(row.table) for c in cs)


def where_text(res) -> str:
    """'holds: 2 players, lost-cities; does not hold: solitaire' from the verdicts per table."""
    tv = res.table_verdicts()
    parts = []
    for v in VERDICTS:
        ts = [TABLES[t].label for t, w in tv.items() if w == v]
        if ts:
            parts.append(f"{v}: {', '.join(ts)}")
    return "; ".join(parts)


def row_verdict_text(r) -> str:
    """A deciding row's verdict with its cause: '**does not hold** (harmful)', '**undecided** (too few
    games)', '**at the edge** (leans holds)'."""
    if not r.decides:
        return ""
    why = r.cause or r.way
    if r.verdict == AT_EDGE:
        lean = r.expect.plain(r.est.ci_low, r.est.ci_high)
        why = f"leans {lean}" + (f", {r.way}" if r.way else "")
    return f"**{r.verdict}**" + (f" ({why})" if why else "")


def _statement_why(res, statement: str, table: str) -> str:
    """Why a statement in a table reads as it does: who decided, what each bot said where they differ, the
    rows that straddle or lie at an edge, the way a comparison fails, and the bots left out."""
    v = res.statement_verdicts()[statement, table]
    bots = res.bot_verdicts(statement, table)
    rows = [r for r in res.rows if r.decides and r.table == table
            and (r.measure.statement or r.measure.name) == statement]
    out = [", ".join(f"{b}: {TOO_FEW if w == LEFT_OUT else w}" for b, w in bots.items())]
    if v == MIXED:
        out.append("the bots disagree; the size is each bot's")
    if v == UNDECIDED:
        out += [f"`{r.measure.name}` ({r.bot}) straddles an edge at n = {r.est.n:,}" for r in rows
                if r.verdict == UNDECIDED and not r.left_out]
    if v == AT_EDGE:
        out += [edge_text(r) for r in rows if r.verdict == AT_EDGE]
    ways = sorted({r.way for r in rows if r.way and r.verdict in (FAILS, AT_EDGE)})
    if ways and v in (FAILS, AT_EDGE, MIXED):
        out.append(" and ".join(ways))
    out += [f"{r.bot}'s `{r.measure.name}` left out: {r.cause} at n = {r.est.n:,}" for r in rows if r.left_out]
    return "; ".join(o for o in out if o)


def tip_why(res) -> str:
    """The cause of a tip's verdict, said in its summary line: where it is mixed, which tables, statements or
    bots come out differently; where undecided, which rows straddle; at the edge, which rows flip where;
    not tested, why."""
    v = res.overall()
    if v == "not tested":
        return "no row tests its words"
    tv = res.table_verdicts()
    sv = res.statement_verdicts()
    said = res.claim.statements
    bits = []
    if len(set(tv.values())) > 1:
        bits.append("by table: " + where_text(res))
    for t, w in tv.items():
        if w not in (MIXED, UNDECIDED, AT_EDGE):
            continue
        keys = [k for k in sv if k[1] == t and (w == MIXED or sv[k] == w)]
        lead = (f"{TABLES[t].label}, its statements differ: " if w == MIXED and len({sv[k] for k in keys}) > 1
                else f"{TABLES[t].label}: ")
        bits.append(lead + "; ".join(f"“{said.get(st, st)}” {sv[st, tt]} ({_statement_why(res, st, tt)})"
                                     for st, tt in keys))
    if not bits:
        ways = sorted({r.way for r in res.rows if r.decides and r.way})
        return where_text(res) + (f" ({' and '.join(ways)})" if ways else "")
    return " — ".join(bits)


def _table_line(res, table: str, verdict: str) -> str:
    """A table's verdict, and each statement's, with its cause."""
    said = res.claim.statements
    bits = []
    for (st, t), v in res.statement_verdicts().items():
        if t != table:
            continue
        bits.append(f"“{said.get(st, st)}” {v} ({_statement_why(res, st, t)})")
    return f"| {TABLES[table].label} | **{verdict}** | {'; '.join(bits)} |"


def _row_line(r) -> str:
    m = r.measure
    where = TABLES[r.table].label
    pol = r.policy + (f" − {r.baseline}" if r.baseline else "")
    ctrl = fails_under(r)
    eff = fmt(r.expect.smallest_effect, m.unit) if r.decides else ""
    if not r.decides:
        return (f"| {m.label} (`{m.name}`) | {pol} | {where} | {fmt_est(r.est, m.unit)} | {r.est.n:,} | "
                f"{r.expect.text} |")
    return (f"| {m.label} (`{m.name}`) | {pol} | {where} | {fmt_est(r.est, m.unit)} | {r.est.n:,} | "
            f"{r.expect.text} | {eff} | {flip_text(r)} | {row_verdict_text(r)} | {ctrl} |")


HEAD = ("| measure | policy | table | estimate [interval] | n | the tip says | smallest effect | flips at | "
        "verdict | fails under |\n|---|---|---|---|---|---|---|---|---|---|")
CONTEXT_HEAD = ("| measure | policy | table | estimate [95% interval] | n | what it is |\n|---|---|---|---|---|---|")


def markdown(run) -> str:
    ctx = run.ctx
    L = []
    size = "quick size: too small to decide anything" if ctx.quick else "default size"
    L.append("# The strategy tips, checked\n")
    L.append(f"Generated by `{run.command}` (seed {ctx.seed}, {size}). The summary and the figure answer, for "
             "each tip, whether it holds, for which bots, where and by how much; each tip's section below gives "
             "its deciding rows; `claims-context.md` holds the context rows, `claims.csv` every row, `tips.md` "
             "the tips rewritten from these numbers.\n")
    L.append("## Summary\n")
    L.append("| tip | verdict | why: where, which statements and bots | in one line |\n|---|---|---|---|")
    for res in run.results.values():
        c = res.claim
        line = res.reading.split(". ")[0].strip().rstrip(".") + "." if res.reading else ""
        L.append(f"| [{c.title}](#{c.id}) | **{res.overall()}** | {tip_why(res)} | {line} |")
    L.append("")
    L.extend(_statement_lines(run))
    if run.results and any(r.decides for res in run.results.values() for r in res.rows):
        L.append("![Every deciding effect against its region](figures/summary.png)\n")
        L.append("Every deciding row, in units of its own tolerance (its smallest effect): 0 is the tip's number "
                 "(or no effect, for a comparison), the shaded band the values for which the statement holds, "
                 "the dotted lines the smallest effect either side; colour: the row's verdict.\n")
    L.append("## How to read the verdicts\n")
    L.append(
        "Each tip is split into its statements, and each statement into measures that could come out "
        "against it. Before anything is run, every deciding measure declares the values for which the "
        "statement is true; its *tolerance* (the smallest effect that matters) is not declared but derived, "
        "once per table, from a strong player's own rounds there (expert's self-play at the plan's first "
        "stage, the same at every stage):\n\n"
        f"- **{WIN.short}**, for a comparison of two versions of a bot on the same deals (points a round): "
        "adding d points to every round of a side moves its win rate by f(0) × d, f the density of a side's "
        "final margin at 0, so the points worth one percentage point of win rate are 0.01 / f(0) (a Gaussian "
        "kernel estimate of f(0); solitaire, which has no opponent: the density of the score at its median, "
        "the chance to beat its own typical round). Smaller than that, a player cannot feel the difference "
        "in a hundred rounds;\n"
        f"- **{CARD.short}**, for \"about N\" plays or discards a round: {CARD.words.split(': ')[1]};\n"
        f"- **{CARD_SHARE.short}**, for a share of the plays (\"over 40%\"): 1 / a strong player's plays a "
        "round in the table;\n"
        "- a tip whose number informs one decision has the band that keeps that decision: \"about 22\" "
        "reaching the hand is 22 ± 2, down to the cost of 20 where a suit held empty stops paying (and its "
        "\"60%\" the same ± 2 spread over the numbers a seat is dealt in a suit).\n")
    feels = run.ctx.feels()
    if feels:
        L.append("| table | 1 pp of win rate (points a round) [95%] | plays a round (one card of them) | "
                 "n (rounds) |\n|---|---|---|---|")
        for t, f in feels.items():
            p = f.points
            L.append(f"| {TABLES[t].label} | {fmt(p.estimate)} [{fmt(p.ci_low)}, {fmt(p.ci_high)}] | "
                     f"{fmt(f.plays.estimate)} ({fmt(f.card_share, 'share')}) | {p.n:,} |")
        L.append("")
    L.append(
        "A row's verdict, six words in all, one meaning each:\n\n"
        "- **holds**: its whole interval lies inside the region, further from every edge than its own width;\n"
        "- **does not hold**: its whole interval lies outside the region, as far from its edges; a comparison "
        "also says which way, as its cause: *harmful* (the interval lies below −e: doing what the tip says "
        "costs at least e) or *no material effect* (within [−e, e]);\n"
        "- **at the edge**: it holds or does not, but its interval lies within its own width of an edge, so a "
        "slightly different tolerance or seed could turn it (the cause says which way it leans); every "
        "deciding row prints its *flip point* (`flips at`), the tolerance at which its verdict changes;\n"
        "- **undecided**: the interval straddles an edge; a strong bot's row still undecided at its plan's "
        "most games has *too few games* (its cause), and is left out: the other bots decide the statement.\n\n"
        "A statement in one table combines its bots' rows, a tip in one table its statements, and a tip over "
        "its tables its tables' verdicts; where these parts come out differently the verdict is **mixed**, "
        "and the summary's line says which bots, statements or tables give what. A tip whose own words no "
        "row tests is **not tested**.\n")
    L.append(
        "**What decides.** Only rows that test a tip's own words decide it: the numbers and thresholds it "
        "names, in the tables it speaks of (its *scope*), for the bots it speaks of, once per quantity. A row "
        "that conditions on a bot's own choices is context: the tip is tested by a paired intervention "
        "instead.\n")
    L.append(
        f"**Simultaneous intervals.** The intervals that decide verdicts are simultaneous over the whole "
        f"report: Bonferroni over the {run.deciding} deciding rows and the {run.looks} "
        f"looks the runner may take at each, so each is a {100 * run.level:.4f}% interval (family-wise error "
        f"{ALPHA:.0%}); `claims.csv`'s `ci_low`/`ci_high` are these intervals (its `ci95_low`/`ci95_high` the "
        "plain 95% ones). Context rows keep 95% intervals and decide nothing.\n")
    L.append(_stages_text(run))
    L.append("**Can fail.** Every deciding row names the controls (`fails under`) under which its measure "
             "comes out the other way, run in the row's own table: another bot of the ladder or a ruleset a "
             "player could meet (marked in brackets) where one does it, else a constructed case. The test suite "
             "runs each control and checks that it does.\n")
    L.extend(_players(run))
    for res in run.results.values():
        L.extend(_section(res))
    return "\n".join(L)


def _statement_lines(run) -> list:
    """One line per statement and table: its verdict, who decided it, and its cause."""
    L = ["| tip | statement | table | verdict | why |\n|---|---|---|---|---|"]
    for res in run.results.values():
        said = res.claim.statements
        for (st, t), v in res.statement_verdicts().items():
            L.append(f"| {res.claim.title} | {said.get(st, st)} | {TABLES[t].label} | **{v}** | "
                     f"{_statement_why(res, st, t)} |")
    L.append("")
    return L


def _players(run) -> list:
    ctx = run.ctx
    L = ["## The players\n"]
    L.append("- `random`: a legal move at random (`docs/engine.md`); `greedy`: a casual player's rules of "
             "thumb; `expert`: expected values from the cards seen (`docs/expert.md`). They play themselves.")
    strong = {}
    for (bot, table), e in run.strength.items():
        strong.setdefault(bot, []).append(f"{'+' if e.estimate >= 0 else ''}{fmt(e.estimate)} "
                                          f"[{fmt(e.ci_low)}, {fmt(e.ci_high)}] points a round "
                                          f"{'with 2 players' if table == '2p' else 'in solitaire'} "
                                          f"(n = {e.n:,} duplicate deals)")
    for bot, parts in strong.items():
        played = ", ".join(f"{n:,} ({DATA_LABELS[d]})" for d, n in _improve_played(ctx).items())
        L.append(f"- `{ctx.spec(bot)}` (`docs/bots.md`): expert's move unless another, played out by expert "
                 f"from the same determinizations, beats it; against `expert` on duplicate deals it gains "
                 f"{join(parts)}, measured in this run (95% intervals). It plays itself, every move logged, in "
                 f"every table: {played} rounds. Its budget is k = {ctx.spec(bot).split('k=')[-1]} "
                 "determinizations a decision (its default is 128), so that its games fit the "
                 "report's plan; a row of it still undecided at the plan's most games reads **too few games**.")
    s2 = ctx.search_played(Setting("2p"))
    s1 = ctx.search_played(Setting("1p"))
    L.append(f"- `{ctx.spec('search')}` (`docs/search.md`), context only: it is weaker than `expert` "
             f"({_search_margin(ctx)}). {s2:,} deals against `expert` with 2 players, each dealt twice with the "
             f"seats swapped, and {s1:,} solitaire rounds; `expert (against search)` rows are its opponent on "
             "the same deals.")
    L.append("- The bots that decide, per table (`DECIDING_BY_TABLE`): "
             + "; ".join(f"{TABLES[t].label}: {', '.join(b)}" for t, b in DECIDING_BY_TABLE.items())
             + " (a tip that names a bot, such as the Expert's discards, is decided by that bot alone).")
    L.append("- Paired comparisons (a bot with one behaviour switched, `docs/expert.md`) play the same deals "
             "twice with the seats swapped (solitaire: each version plays the deal), so the luck of the deal "
             "cancels; only `expert` has the switches, so those rows are expert's alone.\n")
    return L


DATA_LABELS = {"2p": "2 players", "4p": "4 players", "1p": "solitaire", "lc": "lost-cities"}


def _improve_played(ctx) -> dict:
    """{data key: improve's self-play rounds played} (what the run holds; nothing is played here)."""
    return {d: ctx.played_count(("improve-games", ctx.spec("improve"), d)) for d in DATA_LABELS
            if ctx.played_count(("improve-games", ctx.spec("improve"), d))}


def _search_margin(ctx) -> str:
    """Search's points a round minus expert's on their shared 2-player deals (its logged games)."""
    from lostcards.stats import mean_ci
    key = ("search-games", ctx.spec("search"), "2p")
    if not ctx.played_count(key):
        return "not measured in this run"
    t = ctx.played_value(key)["tables"]["rounds"]
    own = (t.score_a - t.score_b).where(t.game == 0, t.score_b - t.score_a).to_numpy(float)
    per = pd.Series(own).groupby(t["round"].to_numpy()).mean().to_numpy()
    e = mean_ci(per)
    return (f"{fmt(e.estimate)} [{fmt(e.ci_low)}, {fmt(e.ci_high)}] points a round against it with 2 players, "
            f"n = {e.n:,} deals, 95%")


def _caps_text(ctx) -> str:
    most = ctx.sizes.most or {}
    words = {"search_deals": "search's games", "rounds": "self-play rounds", "records": "logged rounds",
             "deals": "duplicate deals"}
    bits = [f"{words.get(k, k)} at most {', '.join(f'{n:,} ({t})' for t, n in v.items())}" for k, v in most.items()]
    return "; ".join(bits)


def _stages_text(run) -> str:
    parts = []
    for stage, scale, rows, secs, left in run.stages:
        what = f"{rows} deciding rows" if stage == 1 else f"{rows} undecided rows again"
        parts.append(f"stage {stage} (×{scale} the rounds): {what}"
                     + (f", {left} left out at the plan's most rounds" if left else ""))
    undecided = [r for res in run.results.values() for r in res.rows if r.decides and r.verdict == UNDECIDED]
    end = (f" {len(undecided)} deciding rows are still undecided (the last stage, or the plan's most rounds, "
           "was reached)." if undecided else " No deciding row is left undecided.")
    caps = _caps_text(run.ctx)
    return ("**More rounds where undecided.** An undecided deciding row is measured again on twice the rounds "
            f"(those already played are kept), up to {run.looks} stages. The budget is the plan's, in rounds "
            f"and deals, never seconds: each kind of data may at most double twice"
            + (f" ({caps})" if caps else "")
            + ", so the stages and every sample size follow from the plan and the seed alone and the report is "
            "the same on a busy machine or a quiet one (only the timings differ): " + "; ".join(parts) + "."
            + end + "\n")


def _section(res) -> list:
    c = res.claim
    L = [f"<a id=\"{c.id}\"></a>\n## {c.title} (`{c.id}`): {res.overall()}\n"]
    L.append("> " + c.tip.replace("\n", "\n> ") + "\n")
    L.append(f"**Measured.** {c.measured}\n")
    if c.not_run:
        L.append(f"**Not run.** {c.not_run}\n")
    if c.untested:
        L.append(f"**Not tested.** {c.untested}\n")
    tv = res.table_verdicts()
    if tv:
        L.append("| table | verdict | statements |\n|---|---|---|")
        L.extend(_table_line(res, t, v) for t, v in tv.items())
        L.append("")
    dec = [r for r in res.rows if r.decides]
    ctx_rows = [r for r in res.rows if not r.decides]
    if dec:
        L.append("Deciding rows (simultaneous intervals):\n")
        L.append(HEAD)
        L.extend(_row_line(r) for r in dec)
        L.append("")
    if ctx_rows:
        L.append(f"Context: {len(ctx_rows)} rows in [claims-context.md](claims-context.md#{c.id}).\n")
    why = {}
    for m, bot, table, reason in res.skipped:
        why.setdefault(reason, []).append(f"`{m}` for {bot} ({TABLES[table].label})")
    for reason, items in why.items():
        L.append(f"- Not reported: {join(sorted(set(items))[:8])}{' and others' if len(set(items)) > 8 else ''}: "
                 f"{reason}.")
    if why:
        L.append("")
    if res.details:
        L.append(res.details.strip() + "\n")
    if res.figure is not None:
        L.append(f"![{c.title}](figures/{c.id}.png)\n")
    if res.reading:
        L.append(f"**Reading.** {res.reading}\n")
    return L


def context_markdown(run) -> str:
    """claims-context.md: every tip's context rows (95% intervals, no verdict), out of the main report."""
    L = ["# The strategy tips: context rows\n",
         f"The rows of `{run.command}` that decide nothing (descriptions, other bots, sweeps), 95% intervals; "
         "the verdicts are in [claims.md](claims.md).\n"]
    for res in run.results.values():
        rows = [r for r in res.rows if not r.decides]
        if not rows:
            continue
        c = res.claim
        L.append(f"<a id=\"{c.id}\"></a>\n## {c.title} (`{c.id}`)\n")
        L.append(CONTEXT_HEAD)
        L.extend(_row_line(r) for r in rows)
        L.append("")
    return "\n".join(L)


def write_all(run, out: Path) -> pd.DataFrame:
    from lostcards.analysis.claims.plots import save, summary_figure
    out = Path(out)
    (out / "figures").mkdir(parents=True, exist_ok=True)
    figures = {cid: res.figure for cid, res in run.results.items() if res.figure is not None}
    if any(r.decides for res in run.results.values() for r in res.rows):
        figures["summary"] = summary_figure(run)
    for name, fig in figures.items():
        save(fig, out / "figures" / name)
        close(fig)
    df = pd.DataFrame(csv_rows(run), columns=list(CSV_COLUMNS + EXTRA_COLUMNS))
    df.to_csv(out / "claims.csv", index=False, float_format="%.6g")
    (out / "claims.md").write_text(markdown(run), encoding="utf-8")
    (out / "claims-context.md").write_text(context_markdown(run), encoding="utf-8")
    (out / "tips.md").write_text(tips_markdown(run), encoding="utf-8")
    ctx = run.ctx
    # Deterministic: the same plan and seed give the same bytes (timings go to the untracked log only).
    manifest = {"command": run.command, "claims": list(run.results), "seed": ctx.seed, "quick": ctx.quick,
                "sizes": {k: v for k, v in ctx.sizes.__dict__.items()}, "level": run.level,
                "deciding_rows": run.deciding, "stages": [list(s[:3]) + [s[4]] for s in run.stages],
                "most": ctx.sizes.most, "played": ctx.played,
                "tip_checks": [c for res in run.results.values() for c in res.tip_checks], "versions": versions()}
    write_manifest(out, manifest, "claims.manifest.json")
    return df
