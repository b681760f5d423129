"""The rounds the rule-tweaks statements need, played once and kept: self-play cells and duplicate deals.

``Data.cell(bot, rules, rounds)`` is one ruleset played by one bot against
itself (``metrics.measure``: every game metric as per-round samples; for the
expert also its skill games against greedy and random); ``Data.pair(a, b,
rules)`` is a's margin over b on duplicate deals (each deal played twice, the
seats swapped).  Everything is played on one seed, so rulesets with the same
deck share their deals and a change's effect is a paired difference.
"""
from __future__ import annotations

import time

import numpy as np

from lostcards.analysis.rule_tweaks.declare import EDGE_ROUNDS, OPPONENTS, POLICY, ROUNDS, SEED


class Data:
    """Plays and caches; ``sizes`` scale a small run (the controls' tests) down from the report's."""

    def __init__(self, seed: int = SEED, rounds: int = ROUNDS, skill_rounds: int | None = None,
                 edge_rounds: int = EDGE_ROUNDS, pair_deals: int | None = None, opponents=OPPONENTS,
                 threads=None, say=None):
        self.seed, self.rounds, self.threads = int(seed), int(rounds), threads
        self.skill_rounds = skill_rounds
        self.edge_rounds = int(edge_rounds)
        self.pair_deals = int(pair_deals or rounds)
        self.opponents = tuple(opponents)
        self.say = say or (lambda *_: None)
        self._cells: dict = {}
        self._pairs: dict = {}
        self.seconds: dict = {}

    def size(self, rounds: int) -> int:
        """The rounds a declaration asks for (``ROUNDS`` or ``EDGE_ROUNDS``) at this run's size."""
        return self.edge_rounds if rounds == EDGE_ROUNDS else self.rounds

    def _timed(self, what: str, t0: float):
        self.seconds[what] = self.seconds.get(what, 0.0) + time.time() - t0

    def cell(self, bot: str, rules, rounds: int = ROUNDS, label: str = ""):
        """Self-play of `bot` on `rules` (the expert with its skill games too), as ``metrics.CellData``."""
        from lostcards.analysis.metrics import measure
        n = self.size(rounds)
        key = (bot, tuple(rules.params()), rules.players, n)
        if key not in self._cells:
            t0 = time.time()
            opps = self.opponents if bot == POLICY and n == self.rounds else ()
            self._cells[key] = measure(rules, bot, opps, n, self.seed, self.skill_rounds, self.threads)
            self._timed("cells" if bot == POLICY and opps else "bots", t0)
            self.say(f"[{rules.players} players] {bot} on {label or rules.describe()}: {n:,} rounds"
                     + (f" and duplicate deals against {', '.join(opps)}" if opps else "")
                     + f", {time.time() - t0:.1f} s")
        return self._cells[key]

    def games(self, a: str, b: str, rules, rounds: int | None = None):
        """One seating, a on side A (``runner.Batch``): for what a bot does (stall endings, passes)."""
        from lostcards.run.runner import play
        n = int(rounds or self.pair_deals)
        key = ("games", a, b, tuple(rules.params()), rules.players, n)
        if key not in self._pairs:
            t0 = time.time()
            self._pairs[key] = play(rules, a, b, rounds=n, seed=self.seed, threads=self.threads)
            self._timed("bots", t0)
        return self._pairs[key]

    def pair(self, a: str, b: str, rules) -> np.ndarray:
        """a's margin over b per duplicate deal (points a round), deals 0..n-1 of the seed."""
        from lostcards.analysis.tournament import play_pair
        key = (a, b, tuple(rules.params()), rules.players)
        if key not in self._pairs:
            t0 = time.time()
            d = play_pair(rules, a, b, rounds=self.pair_deals, seed=self.seed, threads=self.threads)
            self._pairs[key] = d["margin"].to_numpy(np.float64)
            self._timed("pairs", t0)
            self.say(f"[{rules.players} players] {a} against {b} on {rules.describe()}: {self.pair_deals:,} "
                     f"duplicate deals, {time.time() - t0:.1f} s")
        return self._pairs[key]
