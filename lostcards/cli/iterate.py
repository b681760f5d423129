"""`lostcards iterate`: expert iteration for a network policy, `student` or `learned` (docs/learned.md)."""
from __future__ import annotations

import shlex
from pathlib import Path

import click

from lostcards.cli.common import SEED, SEED_HELP, Count, Number, fail
from lostcards.errors import BadArgument, LostcardsError


@click.command()
@click.option("--generations", type=Count(1, 1000), default=3, show_default=True,
              help="Generations to run (a stopped run resumes from its --out folder).")
@click.option("--seed", type=SEED, default=0, show_default=True, help=SEED_HELP)
@click.option("--out", "out", type=click.Path(file_okay=False), required=True,
              help="Folder for the teacher's shards, each generation's weights, curve.csv, curve.png and "
                   "iterate.json.")
@click.option("--rules", "rules_text", default="expeditions/2", show_default=True,
              help="The tables the teacher labels, PRESET/PLAYERS (1, 2 or 4 players), comma-separated: "
                   "--rounds of each; the first one's gate and reference (solitaire: points on the same "
                   "deals).")
@click.option("--rounds", type=Count(1, 10**8), default=2000, show_default=True,
              help="Rounds the teacher labels a generation.")
@click.option("--other-rounds", type=Count(0, 10**8), default=0, show_default=True,
              help="Rounds the teacher labels of each table after the first (0: --rounds).")
@click.option("--shard", type=Count(1, 10**6), default=25, show_default=True, help="Rounds a teacher shard.")
@click.option("--k", "k", type=Count(2, 256), default=64, show_default=True,
              help="The teacher's determinizations a choice.")
@click.option("--explore", type=Number(0, 1), default=0.12, show_default=True,
              help="Share of the teacher's choices sampled from softmax(gain / temp).")
@click.option("--temp", type=Number(0.01, 100), default=2.0, show_default=True,
              help="Points: the soft targets' and the exploration's temperature.")
@click.option("--epochs", type=Count(1, 1000), default=4, show_default=True, help="Epochs of each fit.")
@click.option("--batch", type=Count(1, 10**7), default=1024, show_default=True, help="Choices a minibatch of the fit.")
@click.option("--lr", type=Number(1e-6, 1), default=2e-3, show_default=True, help="Adam's step size.")
@click.option("--loss", type=click.Choice(["soft", "gain"]), default="soft", show_default=True,
              help="The fit: soft (cross-entropy to softmax(shrunk gains / temp)) or gain (the scores "
                   "regressed on the gains, for a student gated by --margin).")
@click.option("--margin", type=Number(0, 100), default=0.0, show_default=True,
              help="Points: the networks play their reference's move unless another's score beats it by more "
                   "(0: the best-scoring move).")
@click.option("--keep", type=Count(1, 100), default=3, show_default=True,
              help="Generations of labels a fit uses (the last ones).")
@click.option("--gate", type=Count(4000, 10**8), default=4000, show_default=True,
              help="Duplicate deals of the gate against the previous generation.")
@click.option("--reference", type=Count(0, 10**8), default=1000, show_default=True,
              help="Duplicate deals against expert each generation (the learning curve only).")
@click.option("--workers", type=Count(1, 1024), default=1, show_default=True,
              help="Processes labelling the teacher's shards (the labels are the same whatever the number).")
@click.option("--line", type=click.Choice(["student", "learned"]), default="student", show_default=True,
              help="student: from expert, expert's move its reference; learned: from the self-play blueprint, "
                   "the blueprint's move its reference (expert never a base, a feature or a gate).")
@click.option("--init", "init", type=click.Path(dir_okay=False), default=None,
              help="A network weights file of the line (e.g. the package's) as generation 0's champion, so the "
                   "first teacher is improve around it (default: the line's start, expert or blueprint).")
@click.option("--others", default="", show_default=False,
              help="The teacher's play-outs: the other side's seats move by this policy (as improve's others; "
                   "default: the champion).")
@click.option("--depth", type=Count(0, 200), default=0, show_default=True,
              help="The teacher's play-outs: turns in which the own side moves by the champion, then by "
                   "--others (0: throughout).")
@click.option("--luck", type=Number(0, 4), default=0.0, show_default=True,
              help="The teacher's play-outs: times the deck draws' luck taken off each return (0: off).")
@click.option("--ship", "ship_to", type=click.Path(dir_okay=False), default=None,
              help="At the end, write the champion's weights to this file (the package's: "
                   "lostcards/policies/student/weights/student.npz, lostcards/policies/learned/weights/learned.npz).")
@click.option("--ship-generation", type=Count(1, 1000), default=None,
              help="With --ship: that generation's weights, accepted or not (its gate goes with them).")
def iterate(generations, seed, out, rules_text, rounds, other_rounds, shard, k, explore, temp, epochs, batch, lr,
            loss, margin, keep, gate, reference, workers, line, init, others, depth, luck, ship_to, ship_generation):
    """Expert iteration: improve around the network labels rounds, the network fits them, gated each generation."""
    from lostcards.training.loop import LoopSettings, ship
    from lostcards.training.loop import iterate as run
    if ship_generation is not None and not ship_to:
        raise BadArgument(f"--ship-generation {ship_generation} goes with --ship FILE (where the weights go)")
    if ship_generation is not None and ship_generation > generations:
        raise BadArgument(f"--ship-generation {ship_generation} is after the last generation run (--generations "
                          f"{generations}): give --generations {ship_generation} at least")
    try:
        st = LoopSettings(generations=generations, rules=rules_text, seed=seed, rounds=rounds, shard=shard, k=k,
                          explore=explore, temp=temp, epochs=epochs, batch=batch, lr=lr, keep=keep, gate=gate,
                          reference=reference, workers=workers, loss=loss, margin=margin,
                          other_rounds=other_rounds, init=init or "", line=line, others=others, depth=depth,
                          luck=luck)
        command = (f"lostcards iterate --generations {generations} --seed {seed} --rules {shlex.quote(rules_text)} "
                   f"--rounds {rounds} --other-rounds {other_rounds} --shard {shard} --k {k} "
                   f"--explore {explore:g} --temp {temp:g} --epochs {epochs} --batch {batch} --lr {lr:g} "
                   f"--loss {loss} --margin {margin:g} --keep {keep} --gate {gate} --reference {reference} "
                   f"--out {shlex.quote(out)}" + (f" --line {line}" if line != "student" else "")
                   + (f" --init {shlex.quote(init)}" if init else "")
                   + (f" --others {shlex.quote(others)}" if others else "")
                   + (f" --depth {depth}" if depth else "") + (f" --luck {luck:g}" if luck else ""))
        run(st, Path(out), command=command, say=lambda m: click.echo(m, err=True))
        if ship_to:
            cmd = command + f" --ship {shlex.quote(ship_to)}" + (
                f" --ship-generation {ship_generation}" if ship_generation else "")
            click.echo(f"shipped to {ship(out, ship_to, cmd, ship_generation)}", err=True)
    except LostcardsError as e:
        fail(e)
