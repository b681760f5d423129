"""`lostcards play`: take a seat against bots, one round, typed at a prompt (``lostcards.play``)."""
from __future__ import annotations

import os
import secrets
import sys
from pathlib import Path

import click

from lostcards.cli.common import SEED, Count
from lostcards.errors import BadArgument


@click.command("play")
@click.option("--against", default="expert", show_default=True,
              help="The policy of every other seat (any policy spec, e.g. greedy, expert:invest=never).")
@click.option("--partner", default=None, metavar="SPEC",
              help="4 players: your partner's policy (default: --against).")
@click.option("--opponents", default=None, metavar="SPEC[,SPEC]",
              help="The opponents' policies, one a seat in seat order, or one for all (default: --against).")
@click.option("--players", type=click.Choice(["1", "2", "4"]), default="2", show_default=True,
              help="Players: 1 = solitaire, 2, or 4 (you and seat +2 are a team).")
@click.option("--seat", type=Count(0, 3), default=0, show_default=True, help="Your seat (0 .. players - 1).")
@click.option("--first", type=Count(0, 3), default=0, show_default=True, help="The seat that plays first.")
@click.option("--rules", "preset", default="expeditions", show_default=True,
              type=click.Choice(["expeditions", "lost-cities"]), help="The preset ruleset.")
@click.option("--set", "sets", multiple=True, metavar="PARAM=VALUE", help="Override one rule parameter (repeatable).")
@click.option("--seed", type=SEED, default=None,
              help="The deal: the same seed deals the same round (default: a new one, printed).")
@click.option("--out", "out", type=click.Path(dir_okay=False), default=None, metavar="FILE",
              help="Where the round's record goes (default: runs/play/round-seed<SEED>.json, numbered "
                   "if taken); written after every turn.")
@click.option("--samples", type=Count(2, 20_000, "determinizations a turn"), default=32, show_default=True,
              help="Determinizations a turn for the analysis at the end.")
@click.option("--no-analysis", "no_analysis", is_flag=True, help="Skip the analysis of your moves at the end.")
@click.option("--reveal", is_flag=True, help="At the end, show the other hands.")
def play(against, partner, opponents, players, seat, first, preset, sets, seed, out, samples, no_analysis, reveal):
    """Take a seat against bots for one round, typing your moves; the round is saved as a record.

    Your screen shows what your seat may see and the legal moves; type e.g.
    'play 7H' or 'discard QS', then 'draw deck' or 'draw S' ('help' lists
    every command; 'undo' takes back the card before the draw; 'quit'
    stops).  At the end your costliest moves are shown with the better move
    (docs/play.md).
    """
    from lostcards.interactive.session import Session
    from lostcards.policies import resolve, split_policies
    from lostcards.rules.ruleset import build_rules
    if out is not None and not out.strip():
        raise BadArgument("--out '' is not allowed: a file name for the round's record (or leave --out out)")
    if sys.stdin is None or sys.stdin.closed:
        raise BadArgument("lostcards play reads your moves from standard input, which is closed: run it at a "
                          "terminal, or feed it the moves (e.g. < moves.txt)")
    r = build_rules(preset, sets, int(players))
    if seat >= r.players:
        raise BadArgument(f"--seat = {seat} is not allowed: a seat 0..{r.players - 1}")
    if first >= r.players:
        raise BadArgument(f"--first = {first} is not allowed: a seat 0..{r.players - 1}")
    bots = _bots(r.players, seat, against, partner, opponents, resolve, split_policies)
    if seed is None:
        seed = secrets.randbelow(10**6)
    path = Path(out) if out else _free(Path("runs/play") / f"round-seed{seed}.json")
    _check_out(path)
    click.echo(f"lostcards play: seed {seed} (--seed {seed} deals this round again); the record goes to {path}")
    session = Session(r, seed, seat, bots, path, first, read=_Lines(), write=click.echo)
    try:
        finished = session.play()
    except KeyboardInterrupt:
        session.save()
        click.echo(f"\ninterrupted: the round so far is saved in {path} (lostcards replay {path})", err=True)
        raise
    if not finished:
        click.echo(f"stopped: the round so far is saved in {path} (lostcards replay {path})")
        return
    click.echo(session.summary())
    click.echo(f"the record: {path} (lostcards replay {path}; lostcards analyze {path} --seat {seat})")
    if reveal:
        click.echo(session.reveal())
    if not no_analysis:
        click.echo("analysing your moves ...")
        click.echo(session.analysis(samples))


class _Lines:
    """Lines typed on stdin, read so that Ctrl-C is honoured at once: waiting in ``select`` with a
    short timeout lets Python run its signal handler even when the interrupt came just before the wait
    (a plain blocking read would sleep through it until the next key)."""

    def __init__(self):
        self.buf = b""
        try:
            self.fd = sys.stdin.fileno()
        except (AttributeError, OSError, ValueError):
            self.fd = None             # no file descriptor (a test's stream): input() reads it

    def __call__(self, prompt: str) -> str:
        import io
        import select
        sys.stdout.write(prompt)
        sys.stdout.flush()
        if self.fd is None:
            try:
                return input()
            except RuntimeError:       # input(): lost sys.stdin
                raise EOFError from None
        while b"\n" not in self.buf:
            try:
                if not select.select([self.fd], [], [], 0.2)[0]:
                    continue
            except (OSError, ValueError, io.UnsupportedOperation):
                pass                   # select cannot wait on it: read, blocking
            data = os.read(self.fd, 4096)
            if not data:
                if not self.buf:
                    raise EOFError
                self.buf += b"\n"
            self.buf += data
        line, _, self.buf = self.buf.partition(b"\n")
        return line.decode("utf-8", "replace").rstrip("\r")


def _bots(players, seat, against, partner, opponents, resolve, split_policies) -> dict:
    """Each other seat's Policy: the partner's, then the opponents' in seat order."""
    if partner is not None and players != 4:
        raise BadArgument(f"--partner is for 4 players; this round has {players}")
    others = [s for s in range(players) if s != seat]
    mate = (seat + 2) % 4 if players == 4 else None
    opp_seats = [s for s in others if s != mate]
    for spec in (against, partner):
        if spec is not None:          # checked even where no seat plays it (solitaire)
            resolve(spec)
    specs = {s: against for s in others}
    if mate is not None and partner is not None:
        specs[mate] = partner
    if opponents is not None:
        given = split_policies(opponents)
        if players == 1:
            raise BadArgument("--opponents: a solitaire round has none")
        if len(given) == 1:
            given = given * len(opp_seats)
        if len(given) != len(opp_seats):
            raise BadArgument(f"--opponents names {len(given)} policies: give one, or one for each of seats "
                              f"{', '.join(map(str, opp_seats))}")
        specs.update(zip(opp_seats, given))
    return {s: resolve(spec) for s, spec in specs.items()}


def _free(path: Path) -> Path:
    """`path`, or path-2, path-3, ... the first that does not exist."""
    k = 2
    p = path
    while p.exists():
        p = path.with_name(f"{path.stem}-{k}{path.suffix}")
        k += 1
    return p


def _check_out(path: Path) -> None:
    """An --out file that exists must be a round record (it is replaced); a folder is refused."""
    if path.is_dir():
        raise BadArgument(f"--out {path} is a folder: give a file name")
    if path.exists():
        try:
            head = path.read_text()[:200]
        except (OSError, UnicodeDecodeError):
            head = ""
        if '"lostcards-round/1"' not in head:
            raise BadArgument(f"--out {path} exists and is not a round record: it is left alone")
