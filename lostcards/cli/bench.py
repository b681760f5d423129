"""`lostcards bench`: rounds per second for random vs random, beside the C yardstick."""
from __future__ import annotations

import click

from lostcards.cli.common import Count


@click.command()
@click.option("--rounds", type=Count(1000, 10**10), default=2_000_000, show_default=True,
              help="Rounds per measurement (random vs random).")
@click.option("--json", "json_path", type=click.Path(dir_okay=False), default="bench.json", show_default=True,
              help="Where the measurements go, as JSON (rounds per second per setting, the machine, the versions); "
                   "a file there that no lostcards bench wrote is refused.")
@click.option("--yardstick", type=click.Path(), default=None,
              help="The C yardstick's folder (holding cengine.c), to run it in the same go and print the ratio.")
@click.option("--compile", "compile_only", is_flag=True,
              help="Instead: the compile seconds of every entry point and decider on a cold cache (a scratch "
                   "cache folder; yours is left alone).")
@click.option("--profile", "profile", default=None, metavar="WORKLOADS",
              help="Instead: perf profiles (software clock, one pinned core) by JIT function and instruction, "
                   "of a comma-separated list among random2, expert2, expert4, improve, strongest, student2, "
                   "or 'all' "
                   "(docs/engine.md, 'Profiling').")
@click.option("--profile-rounds", type=Count(1, 10**9), default=None,
              help="Rounds of each profiled workload (default: its own, a few seconds).")
@click.option("--profile-out", default="runs/profile", show_default=True, type=click.Path(file_okay=False),
              help="Where --profile writes its reports, perf data and objects.")
@click.pass_context
def bench(ctx, rounds, json_path, yardstick, compile_only, profile, profile_out, profile_rounds):
    """Rounds per second for random vs random, on one core and on all cores."""
    given = [n for n in ("rounds", "json_path", "yardstick", "profile_rounds", "profile_out")
             if ctx.get_parameter_source(n) == click.core.ParameterSource.COMMANDLINE]
    flag = {"rounds": "--rounds", "json_path": "--json", "yardstick": "--yardstick",
            "profile_rounds": "--profile-rounds", "profile_out": "--profile-out"}
    if compile_only and profile is not None:
        raise click.UsageError("--compile and --profile are two different runs: give one of them")
    mode = "--profile" if profile is not None else "--compile" if compile_only else None
    wrong = [n for n in given if (n.startswith("profile_") and mode != "--profile")
             or (not n.startswith("profile_") and mode is not None)]
    if wrong:
        raise click.UsageError(f"{flag[wrong[0]]} does not go with {mode or 'the rounds-per-second run'}"
                               + (" (it goes with --profile)" if wrong[0].startswith("profile_") else ""))
    if profile is not None:
        from lostcards.run.profile import WORKLOADS, run_profile
        if profile.strip() == "all":
            names = list(WORKLOADS)
        else:
            names = [w.strip() for w in profile.split(",")]
            if not all(names):
                raise click.BadParameter(f"{profile!r:.60} has an empty entry: a comma-separated list of "
                                         f"{', '.join(WORKLOADS)}, or 'all'", param_hint="--profile")
        run_profile(names, profile_rounds, profile_out)
        return
    if compile_only:
        from lostcards.run.compile_report import compile_times
        compile_times()
        return
    from lostcards.run.bench import run_bench
    run_bench(rounds, json_path, yardstick)
