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
def bench(rounds, json_path, yardstick, compile_only):
    """Rounds per second for random vs random, on one core and on all cores."""
    if compile_only:
        from lostcards.run.compile_report import compile_times
        compile_times()
        return
    from lostcards.run.bench import run_bench
    run_bench(rounds, json_path, yardstick)
