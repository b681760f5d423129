"""Running the claims: measure every tip, widen the deciding intervals, play more where undecided, write.

1. Every claim's measures are taken for every bot and table they declare
   (``measure_claim``): a paired comparison through ``Subject.margin``, any
   other measure from the experiment's ``measure(subject)``.
2. The deciding intervals are made simultaneous over the whole report:
   Bonferroni over the m deciding rows and the most stages the runner may take,
   level 1 - 0.05 / (m x stages).  Context rows keep 95% and get no verdict.
3. While some deciding row is undecided, those rows are measured again on twice
   the rounds (stage 2, 3, ...): the rounds already played are kept and only new
   ones are played.  The budget is the plan's, in rounds and deals
   (``Sizes.most``: the most rounds each kind of data may reach), never seconds,
   so the stages, the rows they measure and every sample size follow from the
   declared plan and the seed alone: the same report on a busy or a quiet machine.
4. The verdicts per table and per tip, the figures, words, ``claims.csv``,
   ``claims.md``, ``tips.md`` and the manifest are written.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np

from lostcards.analysis.claims.data import Context, with_switches
from lostcards.analysis.claims.declare import (
    OPPONENT,
    SEARCH_TABLES,
    STRONG,
    Result,
    Row,
    Setting,
    switches_for,
)
from lostcards.analysis.claims.loader import experiments_dir, load_experiments
from lostcards.analysis.claims.report import write_all
from lostcards.analysis.claims.verdict import TOO_FEW, UNDECIDED, simultaneous_level
from lostcards.analysis.claims.words import noting
from lostcards.errors import ClaimsError

MIN_N = 20              # a context row with fewer observations is left out (the report says so)
MAX_STAGES = 3          # stage k plays 2^(k-1) times the first stage's rounds
CONTEXT_SHARE = 0.5     # context comparisons (sweeps) play half the deals of deciding ones


def policy_label(subject) -> str:
    return "expert (against search)" if subject.bot == OPPONENT else subject.spec


def measure_claim(mod, ctx: Context, wanted=None) -> Result:
    """The rows of one claim at the context's present size (all, or the (measure, bot, table) keys
    in `wanted`); their verdicts come later (``judge``)."""
    claim = mod.CLAIM
    subjects, values = {}, {}
    rows, skipped = [], []
    for m in claim.measures:
        for table in m.where():
            setting = Setting(table)
            for bot in (m.bots or claim.bots):
                if wanted is not None and (m.name, bot, table) not in wanted:
                    continue
                s = subjects.setdefault((bot, table), ctx.subject(bot, setting))
                if s.available():
                    continue                # said once for the report (its section on the players)
                decides = m.decides and table in m.tables and bot in claim.deciding_bots(table)
                if m.pair:
                    ctx.touched = set()
                    a, b = (switches_for(p, s.rules) for p in m.pair)
                    est = s.margin(a, b, 1.0 if decides else CONTEXT_SHARE)
                    policy, baseline, data = with_switches(s.spec, a), with_switches(s.spec, b), ctx.touched
                else:
                    if (bot, table) not in values:
                        ctx.touched = set()
                        values[bot, table] = (mod.measure(s), ctx.touched)
                    got, data = values[bot, table]
                    est = got.get(m.name)
                    if est is None:
                        continue
                    policy, baseline = policy_label(s), ""
                if not decides and _invalid(est):
                    skipped.append((m.name, bot, table, _invalid(est)))
                    continue
                rows.append(Row(claim.id, m, bot, policy, baseline, setting, est, expect_in(m, setting, ctx), decides,
                                data=frozenset(data)))
    return Result(claim, rows, skipped, subjects=subjects)


def expect_in(m, setting: Setting, ctx: Context):
    """What measure `m` expects in `setting`, its tolerance derived from the table's rounds where it
    declares a basis (``Context.feel``: expert's self-play there, played once)."""
    e = m.expect(setting) if callable(m.expect) else m.expect
    return m.expect_for(setting, ctx.feel(setting) if e.basis is not None else None)


def planned_deciding(mods: dict) -> list:
    """The (claim, measure, bot, table) of every deciding row the plan declares: what the report's
    simultaneous level is taken over (before any row is measured)."""
    out = []
    for cid, mod in mods.items():
        c = mod.CLAIM
        for m in c.measures:
            if not m.decides:
                continue
            for t in m.tables:
                for bot in (m.bots or c.bots):
                    if bot in c.deciding_bots(t) and not (bot in ("search", OPPONENT) and t not in SEARCH_TABLES):
                        out.append((cid, m.name, bot, t))
    return out


def control_row(mod, measure, control, ctx: Context, table: str = "2p", level: float = 0.95) -> Row:
    """A deciding measure taken under one of its controls in the table of the row it controls (`table`),
    judged at `level` (the report's simultaneous level: the tests check its verdict there) by the plain rule
    (which way it comes out; how near an edge it lies is the report's rows' concern, not a control's)."""
    setting = control.setting(table)
    s = ctx.subject(control.bot, setting)
    if measure.pair:
        a, b = (switches_for(p, s.rules) for p in measure.pair)
        est, policy = s.margin(a, b), with_switches(s.spec, a)
    else:
        est, policy = mod.measure(s)[measure.name], s.spec
    est = est.at(level)
    expect = expect_in(measure, setting, ctx)
    return Row(mod.CLAIM.id, measure, control.bot, policy, "", setting, est, expect, True,
               expect.plain(est.ci_low, est.ci_high), way=expect.way(est.ci_low, est.ci_high))


def _invalid(e) -> str:
    if e.n < MIN_N:
        return f"only {e.n} observations"
    if not all(np.isfinite([e.estimate, e.ci_low, e.ci_high])):
        return "no finite interval"
    return ""


def _next_stage(results: dict, ctx: Context, scale: int) -> tuple:
    """({claim id: {row keys}} to measure again at `scale` times the first stage's rounds, rows left out).

    A row is left out when one of its kinds of data would pass the plan's cap (``Sizes.most``); nothing
    here depends on the clock."""
    todo, left = {}, 0
    for cid, res in results.items():
        for r in res.rows:
            if not (r.decides and r.verdict == UNDECIDED):
                continue
            if all(ctx.may_grow(k, scale) for k in r.data):
                todo.setdefault(cid, set()).add(r.key)
            else:
                left += 1
    return todo, left


STRENGTH_TABLES = ("2p", "1p")   # where each strong bot's margin over expert is measured for the players section


def too_few(rows) -> None:
    """A strong bot's deciding row still undecided once its games reached the plan's cap: "too few games"
    (``combine_bots`` then lets the other bots decide the statement)."""
    for r in rows:
        if r.decides and r.verdict == UNDECIDED and r.bot in STRONG:
            r.cause = TOO_FEW


def judge(res: Result, level: float) -> None:
    judge_rows(res.rows, level)


def judge_rows(rows, level: float) -> None:
    """Deciding rows: their interval at the simultaneous level, and their verdict; context rows: none."""
    for r in rows:
        if r.decides:
            r.est = r.est.at(level)
            r.verdict = r.expect.verdict(r.est.ci_low, r.est.ci_high)
            r.way = r.expect.way(r.est.ci_low, r.est.ci_high)
        else:
            r.verdict = r.way = ""


@dataclass
class Run:
    """What a claims run found and how it went (for the writers)."""

    results: dict                   # claim id -> Result
    ctx: Context
    level: float
    deciding: int
    stages: list = field(default_factory=list)      # (stage, scale, rows measured, seconds, rows left out)
    seconds: float = 0.0
    command: str = ""
    looks: int = MAX_STAGES
    strength: dict = field(default_factory=dict)    # (strong bot, table) -> its margin over expert (Estimate)


def run_claims(ids=(), out="reports", quick: bool = False, seed: int = 1, directory=None,
               say: Callable = None, threads: int | None = None, command: str = "",
               stages: int = MAX_STAGES, sizes=None):
    """Run the experiments (all, or those named), write the report into `out`; returns the CSV table."""
    t0 = time.time()
    say = say or (lambda *_: None)
    mods = load_experiments(directory)
    if not mods:
        raise ClaimsError(f"no experiments found in {directory or experiments_dir()}")
    unknown = [i for i in ids if i not in mods]
    if unknown:
        raise ClaimsError(f"unknown claim {', '.join(unknown)} (known: {', '.join(mods)})")
    chosen = {i: mods[i] for i in (ids or mods)}
    ctx = Context(seed=seed, quick=quick, say=say, threads=threads, sizes=sizes)
    results, log = {}, []
    ts = time.time()
    for cid, mod in chosen.items():
        say(f"{cid} ...")
        results[cid] = measure_claim(mod, ctx)
    deciding = sum(r.decides for res in results.values() for r in res.rows)
    level = simultaneous_level(deciding, max(1, stages))
    for res in results.values():
        judge(res, level)
    log.append((1, 1, deciding, round(time.time() - ts, 1), 0))
    for stage in range(2, max(1, stages) + 1):
        todo, left = _next_stage(results, ctx, ctx.scale * 2)
        if not todo:
            if left:
                log.append((stage, ctx.scale * 2, 0, 0.0, left))
            break
        ts = time.time()
        ctx.scale *= 2
        say(f"stage {stage} (x{ctx.scale} the rounds): {sum(map(len, todo.values()))} undecided rows")
        for cid, wanted in todo.items():
            new = {r.key: r for r in measure_claim(chosen[cid], ctx, wanted).rows}
            judge_rows(new.values(), level)
            for r in new.values():
                r.stage = stage
            results[cid].rows = [new.get(r.key, r) for r in results[cid].rows]
        log.append((stage, ctx.scale, sum(map(len, todo.values())), round(time.time() - ts, 1), left))
    for res in results.values():
        too_few(res.rows)
    strength = {}
    for bot in STRONG:
        for table in STRENGTH_TABLES:
            say(f"{bot} against expert on duplicate deals ({table}) ...")
            strength[bot, table] = ctx.strength(bot, Setting(table))
    for cid, res in results.items():
        mod = chosen[cid]
        res.figure = mod.figure(res) if hasattr(mod, "figure") else None
        res.reading = mod.reading(res) if hasattr(mod, "reading") else ""
        with noting() as notes:
            res.tips = mod.tips(res) if hasattr(mod, "tips") else []
        res.tip_checks = list(notes)
    run = Run(results, ctx, level, deciding, log, time.time() - t0, command or "lostcards claims", max(1, stages),
              strength)
    df = write_all(run, Path(out))
    say(f"wrote {out}: {len(df)} rows, {deciding} deciding, in {time.time() - t0:.0f}s")
    return df
