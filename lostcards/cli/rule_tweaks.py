"""`lostcards rule-tweaks`: the adaptation's rule changes, measured (``lostcards.analysis.rule_tweaks``)."""
from __future__ import annotations

import shlex
import sys
from pathlib import Path

import click

from lostcards.analysis import rule_tweaks as rt
from lostcards.cli.common import SEED, SEED_HELP, THREADS, Count
from lostcards.rules.ruleset import check_int, shorten

OUTPUTS = ("rule-tweaks.csv", "rule-tweaks.md", "rule-tweaks.json",
           *(f"figures/rule-tweaks-{f}.png"
             for f in ("statements", "effects-2p", "effects-4p", "skill-trace")))


def _ints(option: str, text: str, lo: int, hi: int) -> tuple:
    parts = [v.strip() for v in text.split(",")]
    if len(parts) > 64:
        raise click.BadParameter(f"{text[:40]!r}...: at most 64 values", param_hint=option)
    if not all(parts):
        raise click.BadParameter(f"{shorten(text)!r} has an empty entry: integers separated by commas",
                                 param_hint=option)
    values = tuple(check_int(option, v, lo, hi, "(separated by commas)", click.BadParameter) for v in parts)
    twice = sorted({v for v in values if values.count(v) > 1})
    if twice:
        raise click.BadParameter(f"{shorten(text)!r} gives {', '.join(map(str, twice))} twice: each value once",
                                 param_hint=option)
    return values


@click.command("rule-tweaks")
@click.option("--out", "out", type=click.Path(file_okay=False), default="runs/rule-tweaks", show_default=True,
              help="Output folder (figures go in OUT/figures); `make report` names reports/.")
@click.option("--rounds", type=Count(3, 10**9), default=rt.ROUNDS, show_default=True,
              help="Self-play rounds and duplicate deals per ruleset.")
@click.option("--edge-rounds", type=Count(3, 10**9), default=rt.EDGE_ROUNDS, show_default=True,
              help="Self-play rounds per ruleset for the first player's edge.")
@click.option("--fire-rounds", type=Count(3, 10**9), default=rt.FIRE_ROUNDS, show_default=True,
              help="Self-play rounds per ruleset where a check is made to trip and each real rule is stepped.")
@click.option("--seed", type=SEED, default=rt.SEED, show_default=True, help=SEED_HELP)
@click.option("--depth-deals", type=Count(0, 10**7), default=rt.DEPTH["deals"], show_default=True,
              help="Duplicate deals per search budget in the skill trace (0: skip it).")
@click.option("--budgets", default=",".join(map(str, rt.DEPTH["budgets"])), show_default=True,
              help="Search budgets (iterations a decision) of the skill trace.")
@click.option("--players", default="2,4", show_default=True, help="Player counts, e.g. 2 or 2,4.")
@click.option("--threads", type=THREADS, default=None, help="Numba threads (default: all cores).")
@click.option("--render", is_flag=True,
              help="Play nothing: rewrite the report and figures from OUT/rule-tweaks.csv and .json.")
def rule_tweaks(out, rounds, edge_rounds, fire_rounds, seed, depth_deals, budgets, players, threads, render):
    """What each of the adaptation's rule changes does to the game (writes rule-tweaks.csv, .md, figures)."""
    from lostcards.analysis.rule_tweaks.report import load, write
    from lostcards.errors import BatchError
    from lostcards.run.batchdir import claim, identity_of, manifests_in
    out = Path(out)
    budgets_ = _ints("--budgets", budgets, 1, 10_000_000)
    players_ = _ints("--players", players, 1, 4)
    bad = [p for p in players_ if p not in rt.PLAYERS]
    if bad or not players_:
        raise click.BadParameter(f"{players!r}: player counts among {', '.join(map(str, rt.PLAYERS))}",
                                 param_hint="--players")
    command = "lostcards " + " ".join(shlex.quote(a) for a in sys.argv[1:]) if sys.argv[1:2] == ["rule-tweaks"] \
        else f"lostcards rule-tweaks --out {shlex.quote(str(out))}"
    if render:
        held = manifests_in(out).get("rule-tweaks") if out.is_dir() else None
        if held is None:
            raise BatchError(f"{out} holds no rule-tweaks output (rule-tweaks.json) to render again")
        with claim(out, "rule-tweaks", identity_of("rule-tweaks", held), OUTPUTS, command) as c:
            res = load(out)
            with c.staging() as tmp:
                write(res, tmp, command)
        click.echo(f"rewrote {out}/rule-tweaks.md and {out}/figures/rule-tweaks-*.png from {out}/rule-tweaks.csv")
        return
    identity = {"seed": seed, "rounds": rounds, "edge_rounds": edge_rounds, "players": list(players_),
                "depth_deals": depth_deals, "budgets": list(budgets_)}
    if fire_rounds != rt.FIRE_ROUNDS:             # (the default's identity is the one earlier runs wrote)
        identity["fire_rounds"] = fire_rounds
    with claim(out, "rule-tweaks", identity, OUTPUTS, command) as c:
        try:
            res = rt.run(rounds, seed, depth_deals, budgets_, players_, threads,
                         say=lambda s: click.echo(s, err=True), edge_rounds=edge_rounds,
                         fire_rounds=fire_rounds)
        except KeyboardInterrupt:
            click.echo(f"interrupted: nothing of this run was written to {out}", err=True)
            sys.exit(130)
        with c.staging() as tmp:      # every file whole, or none: a full disk leaves `out` as it was
            write(res, tmp, command)
    click.echo(f"wrote {out}/rule-tweaks.csv, {out}/rule-tweaks.md, {out}/figures/rule-tweaks-*.png "
               f"({res['timing']['total_s']:.0f} s)")
