"""The `lostcards` click group: commands loaded on demand, the package's errors as one line and exit status 1.

A command's module is imported only when that command runs, so ``lostcards
rules``, ``replay``, ``summary`` and ``--help`` never import the engine (numba).
"""
from __future__ import annotations

from importlib import import_module

import click

from lostcards import __version__
from lostcards.cli.status import (
    EXIT_BROKEN_PIPE,
    EXIT_FAILED,
    EXIT_INTERRUPTED,
    EXIT_OK,
    interrupted,
    os_failure,
    quiet_stdout,
    stdout_failed,
)
from lostcards.errors import LostcardsError

# name -> (module, attribute, the one-line help `lostcards --help` shows; a test keeps it the command's own)
COMMANDS = {
    "rules": ("lostcards.cli.rules", "rules", "List the presets and every rule parameter."),
    "simulate": ("lostcards.cli.simulate", "simulate",
                 "Play a batch of rounds and write tidy tables (Parquet; CSV with --csv) and a manifest."),
    "summary": ("lostcards.cli.simulate", "summary", "Print the one-screen summary of a finished or partial batch."),
    "replay": ("lostcards.cli.replay", "replay",
               "Check round records turn by turn (FILE: one JSON record, or JSON Lines; '-' reads stdin)."),
    "bench": ("lostcards.cli.bench", "bench", "Rounds per second for random vs random, on one core and on all cores."),
    "tournament": ("lostcards.cli.tournament", "tournament",
                   "A round robin among policies on duplicate deals, with ratings and sequential stopping."),
    "sweep": ("lostcards.cli.sweep", "sweep",
              "The game metrics over a grid of rule parameters, every cell on the same seeds."),
    "claims": ("lostcards.cli.claims", "claims",
               "Check the rule sheet's strategy tips: verdicts, claims.csv, claims.md, tips.md and a figure each."),
    "rule-tweaks": ("lostcards.cli.rule_tweaks", "rule_tweaks",
                    "What each of the adaptation's rule changes does to the game (writes rule-tweaks.csv, .md, "
                    "figures)."),
    "train": ("lostcards.cli.train", "train",
              "Learn the blueprint's weights by self-play, gated against the previous generation."),
    "iterate": ("lostcards.cli.iterate", "iterate",
                "Expert iteration: improve around the network labels rounds, the network fits them, gated each "
                "generation."),
    "analyze": ("lostcards.cli.analyze", "analyze",
                "Expected points lost by each move of one seat in a round record, against the best move from "
                "its information set."),
    "play": ("lostcards.cli.play", "play",
             "Take a seat against bots for one round, typing your moves; the round is saved as a record."),
    "serve": ("lostcards.cli.serve", "serve",
              "Play any bot in a browser, see your costliest moves, try a rule change (docs/web.md)."),
    "ladder": ("lostcards.cli.ladder", "ladder",
               "Every bot against expert on duplicate deals: a Markdown row a bot and table (docs/bots.md)."),
}

EXIT_HELP = """\b
Exit statuses (every command):
  0    done
  1    refused or failed: a value the command checked (a rule parameter, a
       policy, a bound), an --out directory or output file holding other
       output, a policy that raised, a full disk or stdout; one line
  2    usage: an unknown command or option, a missing or mistyped value
  3    sweep --fail-on-flag: a cell was flagged
  130  interrupted (Ctrl-C); a batch keeps its finished shards
  141  the output's reader went away (a broken pipe, `| head`): not a verdict
replay keeps its own: 0 every record legal, 1 an illegal turn, 2 a malformed
record or unreadable file."""


_NO_ARGS = getattr(click.exceptions, "NoArgsIsHelpError", ())     # click 8.1 prints the help itself


class _Stop(Exception):
    """Carries an exit status past click's own handling of Ctrl-C and broken pipes."""

    def __init__(self, code: int):
        super().__init__(code)
        self.code = code


class Group(click.Group):
    """Commands loaded on demand; the package's own errors become one clear line and exit status 1."""

    def list_commands(self, ctx):
        return [*COMMANDS, *(n for n in self.commands if n not in COMMANDS)]

    def get_command(self, ctx, name):
        if name in self.commands:                 # added with main.add_command
            return self.commands[name]
        if name not in COMMANDS:
            return None
        module, attr, _ = COMMANDS[name]
        return getattr(import_module(module), attr)

    def format_commands(self, ctx, formatter):
        with formatter.section("Commands"):
            formatter.write_dl([(name, short) for name, (_, _, short) in COMMANDS.items()]
                               + [(n, c.get_short_help_str()) for n, c in self.commands.items() if n not in COMMANDS])

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except LostcardsError as e:
            raise click.ClickException(str(e)) from None
        except KeyboardInterrupt:          # click would print a blank line and "Aborted!"
            interrupted()
            raise _Stop(EXIT_INTERRUPTED) from None
        except BrokenPipeError:            # click would exit 1, which replay's verdicts give "illegal"
            raise _Stop(EXIT_BROKEN_PIPE) from None
        except OSError as e:               # a full disk or stdout, a path the system refuses: one line
            raise click.ClickException(os_failure(e)) from None


@click.group(cls=Group, context_settings={"help_option_names": ["-h", "--help"]}, epilog=EXIT_HELP)
@click.version_option(__version__, prog_name="lostcards")
def main():
    """Play the Expeditions card game millions of times and check what players say about it."""


def main_status(args=None) -> int:
    """Run the group on `args` (default: the command line); returns the exit status."""
    try:
        rv = main.main(args=args, prog_name="lostcards", standalone_mode=False)
    except _Stop as e:
        if e.code == EXIT_BROKEN_PIPE:
            quiet_stdout()
        return e.code
    except click.exceptions.Abort:
        interrupted()
        return EXIT_INTERRUPTED
    except _NO_ARGS as e:              # `lostcards` alone: the help, as help (click 8.2 on)
        click.echo(e.ctx.get_help(), err=True)
        return e.exit_code
    except click.UsageError as e:
        where = e.ctx.command_path if e.ctx else "lostcards"
        msg = " ".join(e.format_message().split())
        msg = msg if len(msg) <= 300 else msg[:280] + f"... ({len(msg):,} characters)"
        click.echo(f"Error: {msg} (see: {where} --help)", err=True)
        return e.exit_code
    except click.ClickException as e:
        if stdout_failed():
            quiet_stdout()
        e.show()
        return e.exit_code if e.exit_code else EXIT_FAILED
    return rv if isinstance(rv, int) else EXIT_OK
