"""`lostcards rule-tweaks`: the adaptation's rule changes, measured (``lostcards.analysis.rule_tweaks``)."""
from __future__ import annotations

import shlex
import sys
from pathlib import Path

import click

from lostcards.analysis import rule_tweaks as rt
from lostcards.analysis.rule_tweaks_report import load, write
from lostcards.run.batchdir import probe


def _ints(option: str, text: str) -> tuple:
    try:
        values = tuple(int(v) for v in text.split(",") if v.strip())
    except ValueError:
        raise click.BadParameter(f"{text!r}: integers separated by commas", param_hint=option) from None
    return values


@click.command("rule-tweaks")
@click.option("--out", "out", type=click.Path(file_okay=False), default="runs/rule-tweaks", show_default=True,
              help="Output folder (figures go in OUT/figures); `make report` names reports/.")
@click.option("--rounds", type=click.IntRange(min=3), default=rt.ROUNDS, show_default=True,
              help="Self-play rounds and duplicate deals per ruleset.")
@click.option("--seed", type=click.IntRange(min=0, max=2**63 - 1), default=rt.SEED, show_default=True)
@click.option("--depth-deals", type=click.IntRange(min=0), default=rt.DEPTH["deals"], show_default=True,
              help="Duplicate deals per search budget in the skill trace (0: skip it).")
@click.option("--budgets", default=",".join(map(str, rt.DEPTH["budgets"])), show_default=True,
              help="Search budgets (rollouts) of the skill trace.")
@click.option("--players", default="2,4", show_default=True, help="Player counts, e.g. 2 or 2,4.")
@click.option("--threads", type=click.IntRange(min=1), default=None, help="Numba threads (default: all cores).")
@click.option("--render", is_flag=True,
              help="Play nothing: rewrite the report and figures from OUT/rule-tweaks.csv and .json.")
def rule_tweaks(out, rounds, seed, depth_deals, budgets, players, threads, render):
    """What each of the adaptation's rule changes does to the game (writes rule-tweaks.csv, .md, figures)."""
    out = Path(out)
    budgets_ = _ints("--budgets", budgets)
    players_ = _ints("--players", players)
    bad = [p for p in players_ if p not in rt.PLAYERS]
    if bad or not players_:
        raise click.BadParameter(f"{players!r}: player counts among {', '.join(map(str, rt.PLAYERS))}",
                                 param_hint="--players")
    command = "lostcards " + " ".join(shlex.quote(a) for a in sys.argv[1:]) if sys.argv[1:2] == ["rule-tweaks"] \
        else f"lostcards rule-tweaks --out {shlex.quote(str(out))}"
    if render:
        write(load(out), out, command)
        click.echo(f"rewrote {out}/rule-tweaks.md and {out}/figures/rule-tweaks-*.png from {out}/rule-tweaks.csv")
        return
    probe(out)
    res = rt.run(rounds, seed, depth_deals, budgets_, players_, threads,
                 say=lambda s: click.echo(s, err=True))
    write(res, out, command)
    click.echo(f"wrote {out}/rule-tweaks.csv, {out}/rule-tweaks.md, {out}/figures/rule-tweaks-*.png "
               f"({res['timing']['total_s']:.0f} s)")
