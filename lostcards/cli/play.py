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
    if out == "-":
        raise BadArgument("--out - is not allowed: the record is a file (standard output is the table); give a "
                          "file name")
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
    try:                               # a refusal echoes what was typed: never fail on a terminal's encoding
        sys.stdout.reconfigure(errors="backslashreplace")
    except (AttributeError, ValueError, OSError):
        pass                           # not a text file of its own (a test's stream)
    reader = _Lines()
    click.echo(f"lostcards play: seed {seed} (--seed {seed} deals this round again); the record goes to {path}")
    session = Session(r, seed, seat, bots, path, first, read=reader, write=click.echo)
    try:
        finished = session.play()
    except KeyboardInterrupt:
        from lostcards.cli.status import interrupted
        interrupted(say=False)         # a second Ctrl-C must not cut the save short
        session.save()
        click.echo(("\n" if getattr(reader, "waiting", False) else "") +
                   f"lostcards: interrupted: the round so far is saved in {path} (lostcards replay {path})", err=True)
        raise click.exceptions.Exit(130) from None
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


MAX_LINE_BYTES = 65536        # a typed line longer than this is refused, not held


class _Lines:
    """Lines typed on stdin, read so that Ctrl-C is honoured at once: waiting in ``select`` with a
    short timeout lets Python run its signal handler even when the interrupt came just before the wait
    (a plain blocking read would sleep through it until the next key)."""

    def __init__(self):
        self.buf = b""
        self.waiting = False           # at a prompt (a Ctrl-C then starts a new line)
        try:
            self.fd = sys.stdin.fileno()
        except (AttributeError, OSError, ValueError):
            self.fd = None             # no file descriptor (a test's stream): input() reads it

    def __call__(self, prompt: str) -> str:
        sys.stdout.write(prompt)
        sys.stdout.flush()
        self.waiting = True
        try:
            return self._line()
        finally:
            self.waiting = False

    def _line(self) -> str:
        import io
        import select
        if self.fd is None:
            try:
                return input()
            except RuntimeError:       # input(): lost sys.stdin
                raise EOFError from None
        seen = 0                       # bytes of buf already searched for the end of the line
        skipped = 0                    # bytes dropped from a line too long to keep
        while (end := self.buf.find(b"\n", seen)) < 0:
            seen = len(self.buf)
            if seen > MAX_LINE_BYTES:  # keep no more of it than that: the rest is counted, not held
                skipped += seen
                self.buf, seen = b"", 0
            try:
                if not select.select([self.fd], [], [], 0.2)[0]:
                    continue
            except (OSError, ValueError, io.UnsupportedOperation):
                pass                   # select cannot wait on it: read, blocking
            data = os.read(self.fd, 65536)
            if not data:
                if not self.buf and not skipped:
                    raise EOFError
                data = b"\n"
            self.buf += data
        line, self.buf = self.buf[:end], self.buf[end + 1:]
        if skipped:
            from lostcards.interactive.moves import InputRefused
            raise InputRefused(f"a line of {skipped + len(line):,} bytes is too long (at most {MAX_LINE_BYTES:,}): "
                               "it is skipped; type a move, e.g. 'play 7H'")
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
        given = split_policies(opponents, "--opponents")
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


MAX_RECORD_FILE = 1 << 20       # an --out file larger than this is no record of one round


def _check_out(path: Path) -> None:
    """An --out file that exists must be one round record, a plain file (it is replaced); a folder, a
    device, a pipe, a file of several records or any other file is refused, and its folder must be one."""
    import json
    import stat
    if path.is_dir():
        raise BadArgument(f"--out {path} is a folder: give a file name")
    parent = path.parent
    if parent.exists() and not parent.is_dir():
        raise BadArgument(f"--out {path}: {parent} is not a folder, so the record cannot go there")
    try:
        st = path.stat()
    except FileNotFoundError:
        return
    except OSError as e:
        raise BadArgument(f"--out {path} cannot be used: {e.strerror}") from None
    if not stat.S_ISREG(st.st_mode):
        raise BadArgument(f"--out {path} is not a plain file (a device, a pipe or a socket): give a file name")
    record = None
    if st.st_size <= MAX_RECORD_FILE:
        try:
            with open(path, "rb") as f:
                record = json.loads(f.read(MAX_RECORD_FILE + 1).decode("utf-8"))
        except (OSError, UnicodeDecodeError, ValueError, RecursionError):
            record = None
    if not (isinstance(record, dict) and record.get("format") == "lostcards-round/1"):
        raise BadArgument(f"--out {path} exists and is not a round record (another file, or a file of several "
                          "records): it is left alone")
