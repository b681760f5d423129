"""`lostcards sweep`: the game metrics over a grid of rule parameters (``lostcards.analysis.sweep``)."""
from __future__ import annotations

import shlex
import sys
import time
from pathlib import Path

import click

from lostcards.analysis.sweep import CHECKS, THRESHOLDS, build_cells, choose_baseline, parse_grid, run_sweep
from lostcards.analysis.sweep_report import summary, write
from lostcards.cli.common import SEED, SEED_HELP, THREADS, Count, Number
from lostcards.errors import SweepError
from lostcards.policies import split_policies
from lostcards.rules.ruleset import PRESETS, check_int, format_value, parse_overrides, shorten


@click.command("sweep")
@click.option("--rules", "preset", default="expeditions", show_default=True,
              type=click.Choice(list(PRESETS)), help="The preset every cell starts from.")
@click.option("--set", "sets", multiple=True, metavar="PARAM=VALUE",
              help="Override one rule parameter in every cell (repeatable).")
@click.option("--grid", "grid", multiple=True, metavar="PARAM=V1,V2,...",
              help="Sweep a rule parameter over these values (repeatable: the cells are every "
                   "combination; a..b for a range of integers; ';' between list values).")
@click.option("--players", type=click.Choice(["1", "2", "4"]), default=None, help="Players (default 2).")
@click.option("--policy", default="expert", show_default=True,
              help="The self-play policy (greedy, search:iterations=500, ...).")
@click.option("--opponents", default="greedy,random", show_default=True,
              help="Weaker policies the policy meets on duplicate deals (skill); 'none' for no skill rows.")
@click.option("--rounds", type=Count(3, 10**9, "per cell"), default=20_000, show_default=True,
              help="Self-play rounds per cell (in 3-round matches), 3 to 10^9.")
@click.option("--skill-rounds", type=Count(0, 10**9, "per opponent and cell"), default=None,
              help="Duplicate deals per opponent and cell (default: --rounds).")
@click.option("--seed", type=SEED, default=0, show_default=True, help=SEED_HELP)
@click.option("--baseline", multiple=True, metavar="PARAM=VALUE",
              help="The cell the others are compared with (default: the preset's values if in the "
                   "grid, else the first cell).")
@click.option("--max-stall", type=Number(0, 1), default=THRESHOLDS["stall_or_cap"], show_default=True,
              help="Flag a cell whose share of rounds ended by stall or cap is above this.")
@click.option("--max-first", type=Number(0, 1), default=THRESHOLDS["first_player"], show_default=True,
              help="Flag a cell whose first player's win rate is above this (interval above 0.5).")
@click.option("--min-skill", type=Number(0, 1), default=THRESHOLDS["skill"], show_default=True,
              help="Flag a cell where the policy's win rate against greedy is below this.")
@click.option("--depth", default=None, metavar="B1,B2,...",
              help="Also the skill trace on the baseline cell: search at these budgets (iterations a "
                   "decision) against the policy (slow: about 0.3 s a round at 4000 iterations).")
@click.option("--depth-deals", type=Count(1, 10**7), default=200, show_default=True,
              help="Duplicate deals per budget of the skill trace.")
@click.option("--fail-on-flag", is_flag=True, help="Exit with status 3 when a cell is flagged.")
@click.option("--threads", type=THREADS, default=None, help="Worker threads (default: all cores).")
@click.option("--out", "out", type=click.Path(file_okay=False), default="runs/sweep", show_default=True,
              help="Output directory (created; each cell is kept as it finishes, so the same sweep run again "
                   "plays only the cells it lacks; another command's or another sweep's output is refused).")
@click.option("--progress/--no-progress", "show_progress", default=True, show_default=True,
              help="A line per finished cell on stderr.")
def sweep(preset, sets, grid, players, policy, opponents, rounds, skill_rounds, seed, baseline, max_stall,
          max_first, min_skill, depth, depth_deals, fail_on_flag, threads, out, show_progress):
    """The game metrics over a grid of rule parameters, every cell on the same seeds.

    Paired differences against a baseline cell, checks with stated thresholds,
    CSV files and figures.  Every cell is validated before anything is played.
    """
    return _sweep(preset, sets, grid, players, policy, opponents, rounds, skill_rounds, seed,
                            baseline, max_stall, max_first, min_skill, depth, depth_deals, fail_on_flag,
                            threads, out, show_progress)


def _sweep(preset, sets, grid, players, policy, opponents, rounds, skill_rounds, seed, baseline, max_stall,
           max_first, min_skill, depth, depth_deals, fail_on_flag, threads, out, show_progress):
    from lostcards.policies import resolve
    from lostcards.run.batchdir import claim
    t0 = time.time()
    # everything is checked before anything is played
    try:
        g = parse_grid(grid)
        cells = build_cells(preset, parse_overrides(sets), g, int(players) if players else None)
        base = choose_baseline(cells, baseline)
        pol = resolve(policy).spec
        opps = [] if opponents.strip().lower() == "none" else [resolve(o).spec
                                                                for o in split_policies(opponents, "--opponents")]
        budgets = []
        if depth is not None:                  # '' is an empty entry, refused below
            parts = [b.strip() for b in depth.split(",")]
            if not all(parts):
                raise SweepError(f"--depth {shorten(depth)!r} has an empty entry: budgets must be integers >= 1, "
                                 "e.g. 250,500,1000")
            budgets = [check_int("--depth budget", b, 1, 10_000_000, "(search iterations, e.g. 250,500,1000)",
                                 SweepError) for b in parts[:64]]
            if len(set(budgets)) < len(budgets):
                raise SweepError(f"--depth {shorten(depth)!r} gives a budget twice: each budget once")
            resolve(f"search:iterations={budgets[0]}")
    except SweepError as e:
        raise click.ClickException(str(e)) from None
    out = Path(out)
    thresholds = {"stall_or_cap": max_stall, "first_player": max_first, "skill": min_skill}
    identity = {"rules": preset, "set": list(sets), "grid": list(grid), "players": players, "policy": pol,
                "opponents": opps, "rounds": rounds, "skill_rounds": skill_rounds, "seed": seed,
                "baseline": list(baseline), "thresholds": thresholds, "depth": budgets,
                "depth_deals": depth_deals if budgets else None}
    args = ["--rules", preset, *[a for s in sets for a in ("--set", s)], *[a for s in grid for a in ("--grid", s)],
            *(["--players", str(players)] if players else []), "--policy", policy, "--opponents", opponents,
            "--rounds", str(rounds), *(["--skill-rounds", str(skill_rounds)] if skill_rounds is not None else []),
            "--seed", str(seed), *[a for s in baseline for a in ("--baseline", s)],
            "--max-stall", f"{max_stall:g}", "--max-first", f"{max_first:g}", "--min-skill", f"{min_skill:g}",
            *(["--depth", depth, "--depth-deals", str(depth_deals)] if budgets else []), "--out", str(out)]
    from lostcards.analysis.sweep_cells import CellStore, cell_file
    outputs = (*SWEEP_FILES, *(cell_file(c.index) for c in cells))
    with claim(out, "sweep", identity, outputs, "lostcards sweep " + " ".join(shlex.quote(a) for a in args)) as c:
        say = (lambda line: click.echo(line, err=True)) if show_progress else None
        if say:
            vs = (f"{skill_rounds if skill_rounds is not None else rounds:,} duplicate deals against {', '.join(opps)}"
                  if opps else "no duplicate deals (--opponents none)")
            say(f"sweep: {len(cells)} cell{'s' if len(cells) != 1 else ''} x {rounds:,} self-play rounds "
                f"({pol}) + {vs}, seed {seed}")
        try:
            res = run_sweep(cells, pol, opps, rounds, seed, skill_rounds, base, thresholds, threads, say,
                            store=CellStore(out))
            if budgets:
                from lostcards.analysis.depth import skill_trace
                res["depth"], res["depth_steps"] = skill_trace(cells[base].rules, budgets, depth_deals, seed,
                                                               against=pol, threads=threads, progress=say)
        except KeyboardInterrupt:
            click.echo(f"interrupted: the finished cells are kept in {out}/cells; run the same command again "
                       "to play the rest", err=True)
            sys.exit(130)
        _write(c, res, out, cells, base, g, sets, preset, pol, opps, rounds, skill_rounds, seed, thresholds,
               budgets, depth_deals, args, t0, fail_on_flag)


SWEEP_FILES = ("metrics.csv", "diffs.csv", "flags.csv", "cells.csv", "sweep-metrics.png", "sweep-diffs.png",
               "depth.csv", "depth-steps.csv", "manifest.json")


def _write(c, res, out, cells, base, g, sets, preset, pol, opps, rounds, skill_rounds, seed, thresholds,
           budgets, depth_deals, args, t0, fail_on_flag):
    from lostcards.run.batchdir import versions
    seconds = round(time.time() - t0, 2)
    manifest = {
        "command": "lostcards sweep " + " ".join(shlex.quote(a) for a in args), "kind": "sweep",
        "preset": preset, "set": list(sets), "grid": {k: [(format_value(v) if isinstance(v, tuple) else v) for v in vs]
                                                     for k, vs in g.items()},
        "cells": len(cells), "baseline": cells[base].label, "policy": pol, "opponents": opps,
        "rounds": rounds, "skill_rounds": skill_rounds if skill_rounds is not None else rounds, "seed": seed,
        "thresholds": thresholds, "checks": {k: v[2].format(t=thresholds[k]) for k, v in CHECKS.items()},
        "common_random_numbers": "every cell plays round indices 0..n-1 of the seed; cells with the same deck "
                                 "get the same shuffles",
        "depth": {"budgets": budgets, "deals": depth_deals} if budgets else None,
        "versions": versions(), "seconds": seconds,
    }
    title = f"sweep over {', '.join(res['grid']) or 'one ruleset'} ({preset}, {pol} self-play, seed {seed})"
    with c.staging() as tmp:          # every file whole, or none: a full disk leaves `out` as it was
        files = write(res, tmp, manifest, title)
    click.echo(summary(res, thresholds))
    if budgets:
        click.echo("\nskill trace (search at doubling budgets against " + pol + "):")
        for _, r in res["depth"].iterrows():
            click.echo(f"  iterations={r['budget']:<6} margin {r['margin']:+.2f} [{r['margin_ci_low']:+.2f}, "
                       f"{r['margin_ci_high']:+.2f}]  win rate {r['win_rate']:.3f}  n={r['n']} deals")
    click.echo(f"\nfiles: {out}/{{{','.join(files)}}}, manifest.json ({seconds:.1f} s)")
    if fail_on_flag and res["flags"]["flagged"].any():
        sys.exit(3)


