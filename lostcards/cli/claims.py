"""`lostcards claims`: the rule sheet's strategy tips, measured (``lostcards.analysis.claims``)."""
from __future__ import annotations

import shlex
import sys
from pathlib import Path

import click

from lostcards.analysis.claims.runner import MAX_STAGES
from lostcards.cli.common import SEED, SEED_HELP, THREADS


@click.command("claims")
@click.argument("ids", nargs=-1)
@click.option("--quick", is_flag=True,
              help="A small run for CI (a few minutes on two cores): too small to decide anything.")
@click.option("--out", "out", type=click.Path(file_okay=False), default="runs/claims", show_default=True,
              help="Where claims.csv, claims.md and figures/ go (`make report` names reports/). A quick or "
                   "partial run is refused where a full report is.")
@click.option("--seed", type=SEED, default=1, show_default=True, help=SEED_HELP)
@click.option("--threads", type=THREADS, default=None, help="Numba threads (default: all cores).")
@click.option("--stages", type=click.IntRange(min=1, max=6), default=MAX_STAGES, show_default=True,
              help="Most stages: an undecided deciding row is measured again on twice the rounds, within the "
                   "plan's most rounds per kind of data (a budget in rounds, never seconds).")
@click.option("--experiments", "directory", type=click.Path(file_okay=False, exists=True), default=None,
              help="The experiments folder (default: the installed lostcards.experiments).")
def claims(ids, quick, out, seed, threads, stages, directory):
    """Check the rule sheet's strategy tips: verdicts, claims.csv, claims.md, tips.md and a figure each.

    IDS: claim ids to run (default: all), e.g. plays-per-round reach-22-plus-60.
    """
    from lostcards.analysis.claims import load_experiments, run_claims
    from lostcards.errors import ClaimsError
    from lostcards.run.batchdir import claim
    command = "lostcards " + " ".join(shlex.quote(a) for a in sys.argv[1:]) if sys.argv[1:2] == ["claims"] \
        else "lostcards claims" + "".join(f" {i}" for i in ids) + (" --quick" if quick else "") + f" --out {out}"
    known = load_experiments(directory)
    unknown = [i for i in ids if i not in known]
    if unknown:
        raise ClaimsError(f"unknown claim {', '.join(unknown)} (known: {', '.join(known) or 'none'})")
    twice = sorted({i for i in ids if ids.count(i) > 1})
    if twice:
        raise ClaimsError(f"claim {', '.join(twice)} is named twice: name each claim once")
    chosen = list(ids) or list(known)
    outputs = ["claims.csv", "claims.md", "tips.md", "claims.manifest.json",
               *(f"figures/{c}.{x}" for c in chosen for x in ("png", "svg"))]
    identity = {"claims": sorted(chosen) if ids else "all", "quick": quick, "seed": seed}
    with claim(Path(out), "claims", identity, outputs, command) as c:
        try:
            with c.staging() as tmp:      # the report whole, or nothing: a failure leaves `out` as it was
                df = run_claims(ids, out=tmp, quick=quick, seed=seed, directory=directory, threads=threads,
                                stages=stages,
                                say=lambda s: click.echo(s.replace(str(tmp), str(out)), err=True), command=command)
        except KeyboardInterrupt:
            click.echo(f"interrupted: nothing of this run was written to {out}", err=True)
            sys.exit(130)
    width = df.policy.str.len().max() if len(df) else 6
    for _, r in df[df.decides == "true"].iterrows():
        click.echo(f"{r.claim:<24} {r.measure:<28} {r.table:<8} {r.policy:<{width}} {r.estimate:>9.3g} "
                   f"[{r.ci_low:.3g}, {r.ci_high:.3g}]  {r.verdict}")
