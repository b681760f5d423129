"""The `lostcards` command line (click only): the group, its error mapping and the entry point.

Each command lives in its own module and calls the library; nothing in the
library imports this package.  The library raises ``lostcards.errors`` types
for bad input; the group turns any ``LostcardsError`` into one line and exit
status 1 (a bug elsewhere still shows its traceback).
"""
from __future__ import annotations

import sys

import click

from lostcards import __version__
from lostcards.cli.bench import bench
from lostcards.cli.claims import claims
from lostcards.cli.replay import replay
from lostcards.cli.rule_tweaks import rule_tweaks
from lostcards.cli.rules import rules
from lostcards.cli.simulate import simulate, summary
from lostcards.cli.sweep import sweep
from lostcards.cli.tournament import tournament
from lostcards.errors import LostcardsError


class Group(click.Group):
    """The command group: the package's own errors become one clear line and exit status 1."""

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except LostcardsError as e:
            raise click.ClickException(str(e)) from None


@click.group(cls=Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="lostcards")
def main():
    """Play the Expeditions card game millions of times and check what players say about it."""


for command in (rules, simulate, summary, replay, bench, tournament, sweep, claims, rule_tweaks):
    main.add_command(command)


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
