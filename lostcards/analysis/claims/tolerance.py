"""Tolerances a player can feel, derived from each table's own rounds (``Feel``), not declared.

A verdict needs the smallest effect that matters (``Expect.smallest_effect``).
The report derives it, once per table, from a strong player's own rounds there
(expert's self-play at the plan's first-stage size):

- **points a round**: the margin worth one percentage point of win rate, 0.01 / f(0),
  where f is the density of a side's final margin (its score less the other
  side's) at 0: adding d points to every round of a side moves its win rate by
  f(0) d.  f(0) is a Gaussian kernel estimate (Silverman's bandwidth); its
  interval is the kernel mean's.  Solitaire has no opponent, so its margin is
  the score less the bot's median score: the points worth one percentage point
  of the chance to beat its own typical round.  ``win_point_naive`` is the same
  quantity counted by brute force (shift every margin, count the wins), the
  tests' twin.
- **a count of cards a round** ("about 18 plays", "about 9 discards"): one card,
  the least error that changes a count of plays left.
- **a share of the plays** ("over 40% of its plays"): one card of a round's plays,
  1 / (a strong player's plays a round in that table).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import numpy as np

from lostcards.stats import Estimate, mean_ci

WIN_POINT = 0.01          # one percentage point of win rate


def _bandwidth(x: np.ndarray) -> float:
    """Silverman's rule of thumb: 0.9 min(sd, IQR / 1.34) n^(-1/5)."""
    sd = float(x.std(ddof=1))
    q75, q25 = np.percentile(x, [75, 25])
    spread = min(sd, float(q75 - q25) / 1.34) or sd
    return 0.9 * spread * x.size ** -0.2


def win_point(margins) -> Estimate:
    """Points a round worth one percentage point of win rate: 0.01 / f(0), f the margins' density at 0
    (Gaussian kernel), with the interval of the kernel mean turned round (a 'fixed' interval)."""
    d = np.asarray(margins, float)
    d = d[np.isfinite(d)]
    if d.size < 2 or not d.std() > 0:
        return Estimate(math.nan, math.nan, math.nan, int(d.size), method="fixed")
    h = _bandwidth(d)
    k = np.exp(-0.5 * (d / h) ** 2) / (h * math.sqrt(2 * math.pi))
    f = mean_ci(k)
    hi = WIN_POINT / f.ci_low if f.ci_low > 0 else math.inf
    return Estimate(WIN_POINT / f.estimate, WIN_POINT / f.ci_high, hi, int(d.size), method="fixed")


def win_rate(margins, shift: float = 0.0) -> float:
    """The share of rounds won (a tie half) with `shift` points added to every margin."""
    d = np.asarray(margins, float) + shift
    return float(np.mean((d > 0) + 0.5 * (d == 0)))


def win_point_naive(margins, step: float = 0.01, most: float = 100.0) -> float:
    """The naive twin of ``win_point``: the smallest shift d, on a grid of `step`, at which adding d points
    to every margin and taking d away moves the win rate by two percentage points between them."""
    d = np.asarray(margins, float)
    for s in np.arange(step, most, step):
        if win_rate(d, s) - win_rate(d, -s) >= 2 * WIN_POINT:
            return float(s)
    return math.nan


def margins_of(rounds, players: int) -> np.ndarray:
    """A side's final margin per round from a ``rounds`` table (side A's score less side B's); solitaire:
    the score less its median."""
    a = rounds.score_a.to_numpy(float)
    if players == 1:
        return a - float(np.median(a))
    return a - rounds.score_b.to_numpy(float)


@dataclass(frozen=True)
class Feel:
    """One table's tolerances, derived from a strong player's rounds there (see the module)."""

    table: str
    points: Estimate          # the margin worth one percentage point of win rate, points a round
    plays: Estimate           # plays per seat (per team in a team table) a round
    held: Estimate            # the numbers a seat is dealt in a suit it is dealt any of
    bot: str = "expert"

    @property
    def card(self) -> float:
        """A count of cards a round: one card."""
        return 1.0

    @property
    def card_share(self) -> float:
        """A share of a round's plays: one card of them."""
        return 1.0 / self.plays.estimate

    def text(self) -> str:
        p = self.points
        return (f"1 percentage point of win rate = {p.estimate:.3g} [{p.ci_low:.3g}, {p.ci_high:.3g}] points a "
                f"round; one card of {self.plays.estimate:.3g} plays = {self.card_share:.1%}; "
                f"{self.held.estimate:.3g} dealt in a suit held (n = {p.n:,} rounds of {self.bot})")


@dataclass(frozen=True)
class Basis:
    """How a statement's tolerance follows from a table's ``Feel``: `of(feel)`, with its derivation in words
    (`short` goes into the row's expectation, `words` into the report's method)."""

    name: str
    short: str
    words: str
    of: Callable


WIN = Basis("win", "1 pp of win rate", "the margin worth one percentage point of win rate in the table (0.01 / the "
            "density of a side's final margin at 0; solitaire: of its score at its median)",
            lambda f: f.points.estimate)
CARD = Basis("card", "one card", "one card a round: the least error that changes a count of plays left",
             lambda f: f.card)
CARD_SHARE = Basis("card share", "one card of a round's plays", "one card of a strong player's plays a round in "
                   "the table (1 / its plays)", lambda f: f.card_share)
BASES = (WIN, CARD, CARD_SHARE)
