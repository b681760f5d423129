"""`lostcards tournament`: a round robin among policies on duplicate deals (``lostcards.analysis.tournament``)."""
from __future__ import annotations

import shlex
import sys
import time
from pathlib import Path

import click

from lostcards.cli.common import SEED, SEED_HELP, THREADS, Count, Number
from lostcards.errors import TournamentError

FILES = ("pairs.csv", "ratings.csv", "policies.csv", "looks.csv", "tournament.png", "manifest.json")


@click.command("tournament")
@click.option("--rules", "preset", default="expeditions", show_default=True,
              type=click.Choice(["expeditions", "lost-cities"]), help="The preset ruleset.")
@click.option("--set", "sets", multiple=True, metavar="PARAM=VALUE", help="Override one rule parameter (repeatable).")
@click.option("--players", type=click.Choice(["1", "2", "4"]), default=None,
              help="Players (default 2); 1 = solitaire, ranked by mean points per round.")
@click.option("--policies", required=True,
              help="Two or more policies, e.g. random,greedy,expert:invest=never,endgame=off.")
@click.option("--rounds", type=Count(1, 10**9, "deals per pair"), default=20_000, show_default=True,
              help="The most deals per pair (each deal is played twice, sides swapped), 1 to 10^9.")
@click.option("--block", type=Count(1, 10**9), default=2_000, show_default=True,
              help="Deals between two looks of the sequential rule.")
@click.option("--target", type=Number(0, 1e6), default=0.5, show_default=True,
              help="Stop a pair once its 95% interval is narrower than ± this many points per round.")
@click.option("--fixed", is_flag=True, help="No early stopping: play --rounds deals for every pair.")
@click.option("--seed", type=SEED, default=0, show_default=True, help=SEED_HELP)
@click.option("--first", type=Count(-1, 3), default=0, show_default=True,
              help="The seat that starts every round; -1: round i is started by seat i mod players.")
@click.option("--bootstrap", type=Count(0, 10**6), default=1_000, show_default=True,
              help="Bootstrap resamples for the rating intervals.")
@click.option("--threads", type=THREADS, default=None, help="Worker threads (default: all cores).")
@click.option("--out", "out", type=click.Path(file_okay=False), default="runs/tournament", show_default=True,
              help="Output directory (created; rerunning the same tournament replaces its files; another "
                   "command's or another tournament's output is refused).")
def tournament(preset, sets, players, policies, rounds, block, target, fixed, seed, first, bootstrap,
               threads, out):
    """A round robin among policies on duplicate deals, with ratings and sequential stopping."""
    return _tournament(preset, sets, players, policies, rounds, block, target, fixed, seed,
                       first, bootstrap, threads, out)


def _tournament(preset, sets, players, policies, rounds, block, target, fixed, seed, first, bootstrap,
                threads, out):
    from lostcards.analysis.tournament import resolve_policies
    from lostcards.policies import split_policies
    from lostcards.rules.ruleset import build_rules
    from lostcards.run.batchdir import claim
    r = build_rules(preset, sets, int(players) if players else None)
    pols = resolve_policies(split_policies(policies))
    if not (first == -1 or 0 <= first < r.players):
        raise TournamentError(f"--first = {first} is not allowed: a seat 0..{r.players - 1}, or -1")
    out = Path(out)
    args = ["--rules", preset, *[a for s in sets for a in ("--set", s)],
            *(["--players", str(players)] if players else []), "--policies", policies,
            "--rounds", str(rounds), "--block", str(block), "--target", f"{target:g}",
            *(["--fixed"] if fixed else []), "--seed", str(seed), "--first", str(first),
            "--bootstrap", str(bootstrap), "--out", str(out)]
    command = "lostcards tournament " + " ".join(shlex.quote(a) for a in args)
    identity = {"rules": r.to_record(), "players": r.players, "policies": [p.spec for p in pols], "seed": seed,
                "rounds": rounds, "block": block, "target": target, "fixed": fixed, "first": first,
                "bootstrap": bootstrap}
    with claim(out, "tournament", identity, FILES, command) as c:
        _play(c, r, pols, rounds, block, target, fixed, seed, first, bootstrap, threads, out, command)


def _play(c, r, pols, rounds, block, target, fixed, seed, first, bootstrap, threads, out, command):
    from lostcards.analysis.ratings import BT_PRIOR_GAMES
    from lostcards.analysis.tournament import ALPHA, boundary_z, max_looks, run_tournament
    from lostcards.analysis.tournament_report import report, write
    from lostcards.run.batchdir import versions
    t0 = time.time()
    try:
        tabs = run_tournament(r, pols, rounds, seed, block=block, target=target, sequential=not fixed,
                              first=first, bootstrap=bootstrap, threads=threads,
                              progress=lambda line: click.echo(line, err=True), keep_deals=False)
    except KeyboardInterrupt:
        click.echo(f"interrupted: nothing of this tournament was written to {out}", err=True)
        sys.exit(130)
    seconds = round(time.time() - t0, 3)
    pairs = tabs["pairs"]
    manifest = {
        "command": command, "kind": "tournament", "ruleset": r.describe(), "rules": r.to_record(),
        "players": r.players, "policies": [p.spec for p in pols], "seed": seed,
        "rounds": rounds, "block": block, "target": target, "first": first,
        "sequential": None if fixed else {
            "rule": ("stop a pair at the first look where the 95% t interval's half-width < target, "
                     "or |mean margin| > z * se (z Bonferroni over the maximum number of looks: "
                     "alpha/(2K) each side), or at `rounds` deals"
                     if r.players > 1 else
                     "stop a policy at the first look where its 95% t interval's half-width < target, "
                     "or at `rounds` rounds"),
            "alpha": ALPHA, "max_looks": max_looks(rounds, block),
            "z": boundary_z(rounds, block) if r.players > 1 else None},
        "deals_played": ({f"{a} vs {b}": int(n) for a, b, n in
                          zip(pairs["policy_a"], pairs["policy_b"], pairs["deals"])} if r.players > 1 else
                         {row["policy"]: int(row["rounds"]) for _, row in tabs["policies"].iterrows()}),
        "rating_method": tabs["ratings"]["method"].iloc[0], "bootstrap": bootstrap,
        "bt_prior_games": BT_PRIOR_GAMES if r.players > 1 else None,
        "turn_cap": r.turn_cap,
        "capped_rounds": int(tabs["policies"]["capped"].sum() if r.players == 1 else pairs["capped"].sum()),
        "files": ["pairs.csv", "ratings.csv", "policies.csv", "looks.csv", "tournament.png"],
        "versions": versions(), "seconds": seconds,
    }
    with c.staging() as tmp:          # every file whole, or none: a full disk leaves `out` as it was
        write(tabs, tmp, r, manifest)
    click.echo(report(tabs, r, seed))
    click.echo(f"\nfiles: {out}/{{pairs,ratings,policies,looks}}.csv, tournament.png, manifest.json "
               f"({seconds:.1f} s)")
