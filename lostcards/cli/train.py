"""`lostcards train`: learn the `learned` blueprint's weights by self-play (docs/learned.md)."""
from __future__ import annotations

import shlex
from pathlib import Path

import click

from lostcards.cli.common import SEED, SEED_HELP, THREADS, Count, Number, fail
from lostcards.errors import BadArgument, LostcardsError


@click.command()
@click.option("--generations", type=Count(1, 100_000), default=40, show_default=True,
              help="Generations to run (a stopped run resumes from its --out folder).")
@click.option("--seed", type=SEED, default=0, show_default=True, help=SEED_HELP)
@click.option("--out", "out", type=click.Path(file_okay=False), required=True,
              help="Folder for each generation's weights, curve.csv, curve.png, weights.json and state.json "
                   "(claimed: a folder holding anything else is refused; the same command resumes a stopped run).")
@click.option("--rules", "rules_text", default="expeditions/2", show_default=True,
              help="Rulesets the fitness and the gate average over: PRESET/PLAYERS, comma-separated.")
@click.option("--pairs", type=Count(1, 1000), default=8, show_default=True,
              help="Antithetic pairs of perturbed weights a generation.")
@click.option("--pool", type=Count(1, 100), default=4, show_default=True,
              help="The fitness's opponents: the champion and the champions before it, this many in all.")
@click.option("--deals", type=Count(10, 10**7), default=300, show_default=True,
              help="Duplicate deals per perturbed weights and ruleset (the fitness).")
@click.option("--gate", type=Count(4000, 10**8), default=4000, show_default=True,
              help="Duplicate deals per ruleset of the gate against the previous generation.")
@click.option("--sigma", type=Number(1e-6, 100), default=0.3, show_default=True, help="Perturbation scale.")
@click.option("--lr", type=Number(1e-6, 100), default=0.1, show_default=True, help="Adam's step size.")
@click.option("--reference", default="", show_default=False,
              help="Policies measured each generation for the learning curve only (e.g. expert).")
@click.option("--ref-deals", type=Count(10, 10**7), default=1000, show_default=True,
              help="Duplicate deals of each reference measurement.")
@click.option("--init", type=click.Path(dir_okay=False, exists=True), default=None,
              help="A weights file to start from (default: all zeros, uniformly random play).")
@click.option("--threads", type=THREADS, default=None, help="Worker threads (default: every core).")
def train(generations, seed, out, rules_text, pairs, pool, deals, gate, sigma, lr, reference, ref_deals, init, threads):
    """Learn the blueprint's weights by self-play, gated against the previous generation."""
    from lostcards.policies import resolve, split_policies
    from lostcards.training.selfplay import Settings, parse_rulesets
    from lostcards.training.selfplay import train as run
    try:
        if not out.strip():
            raise BadArgument("--out '' is not allowed: a folder for the run's files")
        refs = tuple(split_policies(reference, "--reference")) if reference.strip() else ()
        specs = [resolve(r).spec for r in refs]
        twice = sorted({r for r in specs if specs.count(r) > 1})
        if twice:
            raise BadArgument(f"--reference names {', '.join(twice)} twice: give each policy once")
        st = Settings(generations=generations, seed=seed, rulesets=parse_rulesets(rules_text), pairs=pairs, pool=pool,
                      deals=deals, gate=gate, sigma=sigma, lr=lr, reference=refs, ref_deals=ref_deals,
                      threads=threads, init=init)
        command = " ".join(["lostcards train", f"--generations {generations} --seed {seed}",
                            f"--rules {shlex.quote(','.join(st.rulesets))} --pairs {pairs} --pool {pool}",
                            f"--deals {deals} --gate {gate} --sigma {sigma:g} --lr {lr:g}"]
                           + ([f"--reference {shlex.quote(reference)} --ref-deals {ref_deals}"] if refs else [])
                           + ([f"--init {shlex.quote(init)}"] if init else []) + [f"--out {shlex.quote(out)}"])
        run(st, Path(out), command=command.strip(), say=lambda m: click.echo(m, err=True))
    except LostcardsError as e:
        fail(e)
    except KeyboardInterrupt:
        click.echo(f"interrupted: the generations done are kept in {out}; the same command resumes", err=True)
        raise
