"""Bots against expert on the same duplicate deals, and each one's paired difference to the first.

    python -m examples.improve_pairs expeditions 2 20261206 1000 improve:race=2.5 improve:race=2.5,infer=1

Each bot plays `deals` duplicate deals (0..deals-1 of `seed`, seats swapped) against expert, one
thread; a line per bot (mean margin a round, its 95% interval, CPU seconds a round of the pair of
games), then each later bot's paired difference to the first, deal by deal (common random
numbers: the same deals, so the luck of the deal cancels).
"""
from __future__ import annotations

import resource

import click
import numpy as np

import lostcards
from lostcards.analysis.tournament import play_pair
from lostcards.errors import LostcardsError


def interval(x: np.ndarray) -> tuple[float, float, float]:
    """Mean and normal 95% interval of per-deal values."""
    m = float(x.mean())
    h = 1.96 * float(x.std(ddof=1)) / np.sqrt(len(x))
    return m, m - h, m + h


def measure(rules: str, players: int, seed: int, deals: int, bots: list[str]) -> dict[str, np.ndarray]:
    """Per-deal margins of each bot against expert on the same duplicate deals; prints as it goes."""
    r = lostcards.rules(rules, players=players)
    out = {}
    for b in bots:
        play_pair(r, b, "expert", 1, seed=seed + 1, threads=1)      # compiled before the clock starts
        c0 = resource.getrusage(resource.RUSAGE_SELF).ru_utime
        m = play_pair(r, b, "expert", deals, seed=seed, threads=1)["margin"].to_numpy(float)
        cpu = (resource.getrusage(resource.RUSAGE_SELF).ru_utime - c0) / (2 * deals)
        out[b] = m
        click.echo("{} against expert: {:+.2f} [{:+.2f}, {:+.2f}] (n={}), {:.3f} CPU s a round".format(
            b, *interval(m), deals, cpu))
    for b in bots[1:]:
        click.echo("{} - {}: {:+.2f} [{:+.2f}, {:+.2f}] (n={}, paired)".format(
            b, bots[0], *interval(out[b] - out[bots[0]]), deals))
    return out


@click.command()
@click.argument("rules", type=click.Choice(["expeditions", "lost-cities"]))
@click.argument("players", type=click.Choice(["2", "4"]))
@click.argument("seed", type=click.IntRange(0))
@click.argument("deals", type=click.IntRange(2))
@click.argument("bots", nargs=-1, required=True)
def main(rules, players, seed, deals, bots):
    """Bots against expert on the same duplicate deals, paired to the first (module docstring)."""
    from lostcards.policies import resolve
    try:
        for b in bots:
            resolve(b)
    except LostcardsError as e:
        raise click.ClickException(str(e)) from None
    measure(rules, int(players), seed, deals, list(bots))


if __name__ == "__main__":
    main()
