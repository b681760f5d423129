"""`lostcards ladder`: every bot's margin against expert on duplicate deals (``lostcards.analysis.ladder``)."""
from __future__ import annotations

import click

from lostcards.cli.common import SEED, Count

SEED_DEFAULT = 20261203      # analysis.ladder.DEFAULT_SEED, here so that --help imports no engine


@click.command("ladder")
@click.option("--bots", default="improve", show_default=True,
              help="The bots measured against expert, comma-separated policy specs (e.g. improve,greedy).")
@click.option("--tables", default="2p,4p,lost-cities,solitaire", show_default=True,
              help="Tables, comma-separated: 2p, 4p (expeditions), lost-cities (2 players), solitaire.")
@click.option("--deals", type=Count(2, 10**7, "duplicate deals: an interval needs 2"), default=1000,
              show_default=True, help="Duplicate deals a bot and table (2 and 4 players), 2 to 10^7.")
@click.option("--solitaire-deals", "solitaire_deals", type=Count(2, 10**6, "deals: an interval needs 2"),
              default=500, show_default=True, help="Solitaire deals a bot, 2 to 10^6.")
@click.option("--seed", type=SEED, default=SEED_DEFAULT, show_default=True,
              help="The deals' seed (the ladder's own, never used to tune a bot).")
@click.option("--start", type=Count(0, 10**11 - 10**7, "the first deal's index"), default=0, show_default=True,
              help="The first deal (2 and 4 players): deals start..start+deals-1.")
def ladder(bots, tables, deals, solitaire_deals, seed, start):
    """Every bot against expert on duplicate deals: a Markdown row a bot and table (docs/bots.md).

    Each deal is played twice with the seats swapped, on one thread; the
    margin is the bot's points a round over expert with a 95% interval, and
    solitaire compares the bot's score with the clairvoyant optimum of the same
    deals.  Progress goes to stderr.
    """
    from lostcards.analysis.ladder import HEAD, line, parse_tables, plan, rows
    from lostcards.policies import resolve, split_policies
    cells = plan(parse_tables(tables), [resolve(b) for b in split_policies(bots, "--bots")])
    for k, row in enumerate(rows(cells, deals, solitaire_deals, seed, start, say=lambda m: click.echo(m, err=True))):
        click.echo(line(row) if k else HEAD + "\n" + line(row))     # the head with the first row, not before
