"""The `lostcards` command line: rules, simulate, summary, replay, bench."""
from __future__ import annotations

import functools
import json
import shlex
import sys
from pathlib import Path

import click

from .ruleset import PARAMETERS, PRESETS, RulesError, rules as make_rules


class Failure(click.ClickException):
    """One clear line and exit status 1."""


def friendly(f):
    """Turn the package's own errors into one clear line instead of a traceback."""
    @functools.wraps(f)
    def wrapper(*args, **kwargs):
        from .policies import PolicyError
        from .runner import PolicyFailure
        from .simulate import BatchError
        try:
            return f(*args, **kwargs)
        except (RulesError, PolicyError, BatchError, PolicyFailure, ValueError) as e:
            raise Failure(str(e)) from None
    return wrapper


def split_policies(text: str) -> list[str]:
    """'expert:invest=never,endgame=off,greedy' -> ['expert:invest=never,endgame=off', 'greedy']."""
    out: list[str] = []
    for piece in (p.strip() for p in text.split(",")):
        if out and "=" in piece and ":" not in piece.split("=", 1)[0]:
            out[-1] += "," + piece
        elif piece:
            out.append(piece)
    return out


def build_rules(preset: str, sets: tuple, players: int | None):
    overrides = {}
    for item in sets:
        if "=" not in item:
            raise RulesError(f"--set {item!r} must be PARAM=VALUE (parameters: {', '.join(PARAMETERS)})")
        k, v = item.split("=", 1)
        overrides[k.strip()] = v.strip()
    if players is not None:
        overrides["players"] = players
    return make_rules(preset, **overrides)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="lostcards")
def main():
    """Play the Expeditions card game millions of times and check what players say about it."""


@main.command("rules")
@friendly
def rules_cmd():
    """List the presets and every rule parameter."""
    names = list(PRESETS)
    click.echo(f"{'parameter':<14}" + "".join(f"{n:>14}" for n in names) + "  meaning")
    for p, (_, meaning) in PARAMETERS.items():
        vals = []
        for n in names:
            v = getattr(PRESETS[n], p)
            v = ",".join(map(str, v)) if isinstance(v, tuple) else (str(v).lower() if isinstance(v, bool) else v)
            if p == "numbers" and isinstance(v, str):
                v = "2..10" if v == "2,3,4,5,6,7,8,9,10" else v
            vals.append(f"{v:>14}")
        click.echo(f"{p:<14}" + "".join(vals) + f"  {meaning}")
    click.echo("\nOverride with --set PARAM=VALUE (lists as 2,3,4 or 2..8); e.g. --set hand_size=8.")


@main.command()
@click.option("--rules", "preset", default="expeditions", show_default=True,
              type=click.Choice(list(PRESETS)), help="The preset ruleset.")
@click.option("--set", "sets", multiple=True, metavar="PARAM=VALUE", help="Override one rule parameter (repeatable).")
@click.option("--players", type=click.Choice(["1", "2", "4"]), default=None, help="Players (default 2).")
@click.option("--policies", default="random,random", show_default=True,
              help="Side A's and side B's policies, e.g. expert,greedy or expert:invest=never,random.")
@click.option("--rounds", type=click.IntRange(min=1), default=10_000, show_default=True)
@click.option("--seed", type=click.IntRange(min=0, max=2**63 - 1), default=0, show_default=True)
@click.option("--first", type=int, default=0, show_default=True,
              help="The seat that starts every round; -1: round i is started by seat i mod players.")
@click.option("--out", "out", type=click.Path(file_okay=False), default="runs/latest", show_default=True,
              help="Output directory (created; rerunning the same command resumes).")
@click.option("--csv", is_flag=True, help="Also write the tables as CSV.")
@click.option("--records", default=None, metavar="all|N", help="Write round records (SPEC §5) of all or N sampled rounds.")
@click.option("--turns", "turns", type=click.IntRange(min=0), default=0, metavar="N",
              help="Also write the `turns` table (one row per turn) for N rounds spread over the batch.")
@click.option("--shard-size", type=click.IntRange(min=1), default=100_000, show_default=True,
              help="Rounds per shard (each shard is written as soon as it is played).")
@click.option("--threads", type=click.IntRange(min=1), default=None,
              help="Numba threads per worker (default: all cores, shared among local workers).")
@click.option("--workers", type=click.IntRange(min=1), default=1, show_default=True,
              help="Local worker processes, each playing whole shards.")
@click.option("--scheduler", default=None, metavar="ADDRESS",
              help="Play the shards on this dask.distributed scheduler (e.g. tcp://host:8786).")
@click.option("--dask-local", "dask_local", type=click.IntRange(min=1), default=None, metavar="N",
              help="Start a local Dask cluster of N workers for this run (testing).")
@click.option("--progress/--no-progress", "show_progress", default=True, show_default=True,
              help="The progress line on stderr (rounds/s, time left).")
@friendly
def simulate(preset, sets, players, policies, rounds, seed, first, out, csv, records, turns, shard_size,
             threads, workers, scheduler, dask_local, show_progress):
    """Play a batch of rounds and write tidy tables (Parquet; CSV with --csv) and a manifest."""
    from . import backends
    from . import simulate as sim
    from .policies import resolve
    r = build_rules(preset, sets, int(players) if players else None)
    specs = split_policies(policies)
    if len(specs) == 1:
        specs = specs * 2
    if len(specs) != 2:
        raise Failure(f"--policies needs one or two policies, got {len(specs)}: {policies!r}")
    resolved = [resolve(p) for p in specs]
    if not (first == -1 or 0 <= first < r.players):
        raise Failure(f"--first = {first} is not allowed: a seat 0..{r.players - 1}, or -1")
    if records is not None and records != "all" and not (records.isdigit() and int(records) > 0):
        raise Failure(f"--records = {records!r} is not allowed: 'all' or a positive number")
    if scheduler is not None and dask_local is not None:
        raise Failure("--scheduler and --dask-local are not allowed together: one Dask cluster")
    if workers > 1 and (scheduler is not None or dask_local is not None):
        raise Failure("--workers is not allowed with --scheduler or --dask-local: the cluster's workers play")
    if any(p.kernel is None for p in resolved) and (workers > 1 or scheduler or dask_local):
        raise Failure("plain-Python policies play in this process only: drop --workers, --scheduler, --dask-local")
    spec = sim.BatchSpec(r, tuple(p.spec for p in resolved), seed, rounds, first, shard_size, turns)
    command = "lostcards " + " ".join(shlex.quote(a) for a in sys.argv[1:])
    out = Path(out)
    backend = backends.make(workers, threads, scheduler, dask_local)
    progress = sim.Progress(sys.stderr) if show_progress else None
    try:
        sim.run(spec, out, command=command, csv=csv, records=records, threads=threads,
                progress=progress, backend=backend, log=lambda line: click.echo(line, err=True))
    except KeyboardInterrupt:
        if progress is not None:
            progress.close()
        click.echo(f"interrupted: finished shards are kept in {out}; run the same command to resume",
                   err=True)
        if isinstance(backend, backends.Dask):
            backends.silence_stderr()
        sys.exit(130)
    except BaseException:
        if progress is not None:
            progress.close()
        raise
    if progress is not None:
        progress.close()
    click.echo(sim.summarize(out))
    names = ",".join(spec.tables)
    click.echo(f"tables: {out}/{{{names}}}/ (load with lostcards.load({str(out)!r}))")


@main.command()
@click.argument("directory", type=click.Path(file_okay=False))
@friendly
def summary(directory):
    """Print the one-screen summary of a finished or partial batch."""
    from . import simulate as sim
    click.echo(sim.summarize(Path(directory)))


@main.command()
@click.option("--rounds", type=click.IntRange(min=1000), default=2_000_000, show_default=True,
              help="Rounds per measurement (random vs random).")
@click.option("--json", "json_path", type=click.Path(dir_okay=False), default="bench.json", show_default=True)
@click.option("--yardstick", type=click.Path(), default=None,
              help="The C yardstick's folder, to run it in the same go and print the ratio.")
@friendly
def bench(rounds, json_path, yardstick):
    """Rounds per second for random vs random, on one core and on all cores."""
    from .bench import run_bench
    run_bench(rounds, json_path, yardstick)


def _attach_commands():
    from .replay import replay
    from .claims import claims
    from .sweep import sweep
    from .tournament import tournament
    main.add_command(claims)
    main.add_command(replay)
    main.add_command(tournament)
    main.add_command(sweep)


_attach_commands()


def run():
    """The console entry point: click's usage errors shrink to one line (which value, what is allowed)."""
    try:
        rv = main.main(prog_name="lostcards", standalone_mode=False)
    except click.exceptions.Abort:
        click.echo("aborted", err=True)
        sys.exit(130)
    except click.UsageError as e:
        where = e.ctx.command_path if e.ctx else "lostcards"
        click.echo(f"Error: {e.format_message()} (see: {where} --help)", err=True)
        sys.exit(e.exit_code)
    except click.ClickException as e:
        e.show()
        sys.exit(e.exit_code)
    sys.exit(rv if isinstance(rv, int) else 0)


if __name__ == "__main__":
    run()
