"""`lostcards bench`: rounds per second for random vs random, beside the C yardstick."""
from __future__ import annotations

import click

from lostcards.run.bench import run_bench


@click.command()
@click.option("--rounds", type=click.IntRange(min=1000), default=2_000_000, show_default=True,
              help="Rounds per measurement (random vs random).")
@click.option("--json", "json_path", type=click.Path(dir_okay=False), default="bench.json", show_default=True)
@click.option("--yardstick", type=click.Path(), default=None,
              help="The C yardstick's folder, to run it in the same go and print the ratio.")
def bench(rounds, json_path, yardstick):
    """Rounds per second for random vs random, on one core and on all cores."""
    run_bench(rounds, json_path, yardstick)
