"""`lostcards claims`: the rule sheet's strategy tips, measured (``lostcards.analysis.claims``)."""
from __future__ import annotations

import shlex
import sys

import click

from lostcards.analysis.claims import run_claims


@click.command("claims")
@click.argument("ids", nargs=-1)
@click.option("--quick", is_flag=True, help="A small run (about a minute) for CI: too small to decide anything.")
@click.option("--out", "out", type=click.Path(file_okay=False), default="reports", show_default=True,
              help="Where claims.csv, claims.md and figures/ go.")
@click.option("--seed", type=click.IntRange(min=0, max=2**63 - 1), default=1, show_default=True)
@click.option("--threads", type=click.IntRange(min=1), default=None, help="Numba threads (default: all cores).")
@click.option("--experiments", "directory", type=click.Path(file_okay=False, exists=True), default=None,
              help="The experiments folder (default: experiments/ beside the package).")
def claims(ids, quick, out, seed, threads, directory):
    """Check the rule sheet's strategy tips: an experiment, a verdict, a CSV row and a figure each.

    IDS: claim ids to run (default: all), e.g. plays-per-round reach-22-plus-60.
    """
    command = "lostcards claims " + " ".join(shlex.quote(a) for a in sys.argv[1:]) if sys.argv[1:2] == ["claims"] \
        else "lostcards claims" + "".join(f" {i}" for i in ids) + (" --quick" if quick else "") + f" --out {out}"
    df = run_claims(ids, out=out, quick=quick, seed=seed, directory=directory, threads=threads,
                    say=lambda s: click.echo(s, err=True), command=command)
    width = df.policy.str.len().max() if len(df) else 6
    for _, r in df.iterrows():
        click.echo(f"{r.claim:<22} {r.measure:<34} {r.policy:<{width}} {r.estimate:>9.3g} "
                   f"[{r.ci_low:.3g}, {r.ci_high:.3g}]  {r.verdict}")
