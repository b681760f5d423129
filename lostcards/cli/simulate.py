"""`lostcards simulate` (a batch of rounds into tidy tables) and `lostcards summary` (its one-screen summary)."""
from __future__ import annotations

import shlex
import sys
from pathlib import Path

import click

from lostcards.cli.common import SEED, SEED_HELP, THREADS, Count
from lostcards.rules.ruleset import PRESETS, shorten
from lostcards.run.shards import MAX_ROUNDS, MAX_SHARDS, SHARD_MEMORY


@click.command()
@click.option("--rules", "preset", default="expeditions", show_default=True,
              type=click.Choice(list(PRESETS)), help="The preset ruleset.")
@click.option("--set", "sets", multiple=True, metavar="PARAM=VALUE",
              help="Override one rule parameter (repeatable; `lostcards rules` lists them).")
@click.option("--players", type=click.Choice(["1", "2", "4"]), default=None, help="Players (default 2).")
@click.option("--policies", default="random,random", show_default=True,
              help="Side A's and side B's policies, e.g. expert,greedy or expert:invest=never,random.")
@click.option("--rounds", type=Count(1, MAX_ROUNDS, "per batch (40 days of play at 30,000 rounds a second)"),
              default=10_000, show_default=True,
              help=f"Rounds to play, 1 to 10^11 (40 days of play at 30,000 rounds a second), in at most "
                   f"{MAX_SHARDS:,} shards.")
@click.option("--seed", type=SEED, default=0, show_default=True, help=SEED_HELP)
@click.option("--first", type=Count(-1, 3), default=0, show_default=True,
              help="The seat that starts every round; -1: round i is started by seat i mod players.")
@click.option("--out", "out", type=click.Path(file_okay=False), default="runs/latest", show_default=True,
              help="Output directory (created; rerunning the same command resumes; another command's "
                   "output is refused).")
@click.option("--csv", is_flag=True, help="Also write the tables as CSV.")
@click.option("--records", default=None, metavar="all|N",
              help="Write round records (SPEC §5) of all or N sampled rounds (at most 10,000,000).")
@click.option("--turns", "turns", type=Count(0, 100_000), default=0, metavar="N",
              help="Also write the `turns` table (one row per turn) for N rounds spread over the batch.")
@click.option("--shard-size", type=Count(1), default=100_000, show_default=True,
              help=f"Rounds per shard (each shard is written as soon as it is played). One shard's arrays and "
                   f"tables are in memory at once, so it is at most {SHARD_MEMORY // 2**30} GiB / (150 + 75 x "
                   f"players x suits) bytes a round: 2,863,311 for two players and four suits.")
@click.option("--threads", type=THREADS, default=None,
              help="Numba threads per worker (default: all cores, shared among local workers).")
@click.option("--workers", type=Count(1, 1024), default=1, show_default=True,
              help="Local worker processes, each playing whole shards.")
@click.option("--scheduler", default=None, metavar="ADDRESS",
              help="Play the shards on this dask.distributed scheduler (e.g. tcp://host:8786).")
@click.option("--dask-local", "dask_local", type=Count(1, 1024), default=None, metavar="N",
              help="Start a local Dask cluster of N workers for this run (testing).")
@click.option("--progress/--no-progress", "show_progress", default=True, show_default=True,
              help="The progress line on stderr (rounds/s, time left).")
def simulate(preset, sets, players, policies, rounds, seed, first, out, csv, records, turns, shard_size,
             threads, workers, scheduler, dask_local, show_progress):
    """Play a batch of rounds and write tidy tables (Parquet; CSV with --csv) and a manifest."""
    from lostcards.errors import BatchError, PolicyError
    from lostcards.policies import resolve, split_policies
    from lostcards.rules.ruleset import build_rules
    from lostcards.run import backends
    from lostcards.run.progress import Progress
    from lostcards.run.shards import BatchSpec
    from lostcards.run.simulate import check_records, run

    r = build_rules(preset, sets, int(players) if players else None)
    specs = split_policies(policies)
    given = click.get_current_context().get_parameter_source("policies") is not click.core.ParameterSource.DEFAULT
    if r.players == 1 and len(specs) > 1 and given:
        raise PolicyError(f"--policies {shorten(policies)!r} names {len(specs)} policies, but solitaire "
                          "(--players 1) has one seat: give one policy")
    if len(specs) == 1 or r.players == 1:
        specs = specs[:1] * 2
    if len(specs) != 2:
        raise PolicyError(f"--policies needs one or two policies, got {len(specs)}: {policies[:60]!r}")
    resolved = [resolve(p) for p in specs]
    if not (first == -1 or 0 <= first < r.players):
        raise BatchError(f"--first = {first} is not allowed: a seat 0..{r.players - 1}, or -1")
    if records is not None and records != "all":
        records = check_records(records, rounds)
    if scheduler is not None and dask_local is not None:
        raise BatchError("--scheduler and --dask-local are not allowed together: one Dask cluster")
    if workers > 1 and (scheduler is not None or dask_local is not None):
        raise BatchError("--workers is not allowed with --scheduler or --dask-local: the cluster's workers play")
    if any(p.kernel is None for p in resolved) and (workers > 1 or scheduler or dask_local):
        raise BatchError("plain-Python policies play in this process only: drop --workers, --scheduler, --dask-local")
    spec = BatchSpec(r, tuple(p.spec for p in resolved), seed, rounds, first, shard_size, turns)
    command = "lostcards " + " ".join(shlex.quote(a) for a in sys.argv[1:])
    out = Path(out)
    backend = backends.make(workers, threads, scheduler, dask_local)
    progress = Progress(sys.stderr) if show_progress else None
    try:
        run(spec, out, command=command, csv=csv, records=records, threads=threads,
            progress=progress, backend=backend, log=lambda line: click.echo(line, err=True))
    except KeyboardInterrupt:
        if progress is not None:
            progress.close()
        click.echo(f"interrupted: finished shards are kept in {out}; run the same command to resume", err=True)
        if isinstance(backend, backends.Dask):
            backends.silence_stderr()
        sys.exit(130)
    finally:
        if progress is not None:
            progress.close()
    from lostcards.run.summary import summarize
    click.echo(summarize(out))
    names = ",".join(spec.tables)
    click.echo(f"tables: {out}/{{{names}}}/ (load with lostcards.load({str(out)!r}))")


@click.command()
@click.argument("directory", type=click.Path(file_okay=False))
def summary(directory):
    """Print the one-screen summary of a finished or partial batch.

    Every shard the manifest lists is checked to be there with its rows first.
    """
    from lostcards.run.summary import summarize
    click.echo(summarize(Path(directory)))
