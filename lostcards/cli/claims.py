"""`lostcards claims`: the rule sheet's strategy tips, measured (``lostcards.analysis.claims``)."""
from __future__ import annotations

import shlex
import sys

import click

from lostcards.analysis.claims import run_claims
from lostcards.analysis.claims.runner import BUDGET_S, MAX_STAGES


@click.command("claims")
@click.argument("ids", nargs=-1)
@click.option("--quick", is_flag=True, help="A small run (about a minute) for CI: too small to decide anything.")
@click.option("--out", "out", type=click.Path(file_okay=False), default="reports", show_default=True,
              help="Where claims.csv, claims.md, tips.md and figures/ go.")
@click.option("--seed", type=click.IntRange(min=0, max=2**63 - 1), default=1, show_default=True)
@click.option("--threads", type=click.IntRange(min=1), default=None, help="Numba threads (default: all cores).")
@click.option("--budget", type=click.FloatRange(min=0), default=BUDGET_S, show_default=True,
              help="Seconds the run may take, later stages included: no stage starts that would pass it.")
@click.option("--stages", type=click.IntRange(min=1, max=6), default=MAX_STAGES, show_default=True,
              help="Most stages: a tip with an undecided row is measured again on twice the rounds.")
@click.option("--experiments", "directory", type=click.Path(file_okay=False, exists=True), default=None,
              help="The experiments folder (default: the installed lostcards.experiments).")
def claims(ids, quick, out, seed, threads, budget, stages, directory):
    """Check the rule sheet's strategy tips: verdicts, claims.csv, claims.md, tips.md and a figure each.

    IDS: claim ids to run (default: all), e.g. plays-per-round reach-22-plus-60.
    """
    args = sys.argv[1:]
    if "claims" in args:                     # the command as typed, from the subcommand on
        command = "lostcards " + " ".join(shlex.quote(a) for a in args[args.index("claims"):])
    else:
        command = ("lostcards claims" + "".join(f" {i}" for i in ids) + (" --quick" if quick else "")
                   + f" --out {out}")
    df = run_claims(ids, out=out, quick=quick, seed=seed, directory=directory, threads=threads, budget=budget,
                    stages=stages, say=lambda s: click.echo(s, err=True), command=command)
    width = df.policy.str.len().max() if len(df) else 6
    for _, r in df[df.decides == "true"].iterrows():
        click.echo(f"{r.claim:<24} {r.measure:<28} {r.table:<8} {r.policy:<{width}} {r.estimate:>9.3g} "
                   f"[{r.ci_low:.3g}, {r.ci_high:.3g}]  {r.verdict}")
