"""What the commands share: option types that state their bounds, and the one-time compile notice."""
from __future__ import annotations

import math

import click

from lostcards.errors import LostcardsError
from lostcards.rules.ruleset import check_int, shorten


class Count(click.ParamType):
    """An integer option within lo..hi; a bad value is named (shortened if long) with its bound and why."""

    name = "integer"

    def __init__(self, lo: int, hi: int | None = None, why: str = ""):
        self.lo, self.hi, self.why = lo, hi, why

    def convert(self, value, param, ctx):
        try:
            return check_int("value", value, self.lo, self.hi, self.why, click.BadParameter)
        except click.BadParameter as e:
            self.fail(str(e).split(" = ", 1)[-1], param, ctx)

    def get_metavar(self, param, ctx=None):
        return "N"


class Number(click.ParamType):
    """A finite number option within lo..hi (nan and inf are refused)."""

    name = "number"

    def __init__(self, lo: float, hi: float):
        self.lo, self.hi = lo, hi

    def convert(self, value, param, ctx):
        try:
            v = float(value) if not isinstance(value, str) or len(value) <= 40 else math.nan
        except ValueError:
            v = math.nan
        if not (math.isfinite(v) and self.lo <= v <= self.hi):
            self.fail(f"{shorten(str(value))} is not allowed: a number in {self.lo:g}..{self.hi:g}", param, ctx)
        return v

    def get_metavar(self, param, ctx=None):
        return "X"


SEED = Count(0, 2**63 - 1)
SEED_HELP = "The seed: round i of seed s is the same round whatever the workers, threads or shard size."
THREADS = Count(1, 1024)

def fail(e: LostcardsError):
    """A library refusal as click's one-line error (exit status 1)."""
    raise click.ClickException(str(e)) from None
