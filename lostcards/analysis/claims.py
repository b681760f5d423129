"""`lostcards claims`: the strategy tips of the rule sheet, checked on simulated rounds.

Every tip is an experiment in ``experiments/<name>.py``: a declarative ``Claim``
(the tip's words, what is measured, the expected value and the tolerance for
"about", the policies, ruleset, players and sizes) and a function
``measure(ctx) -> Result`` that turns the simulated rounds into rows (one per
measure and policy, each an estimate with a 95% interval and its sample size),
a figure and a reading.  This module is the shared machinery:

- ``Context``: plays the rounds the experiments ask for through the batch
  runner (``runner.play``, ``tournament.play_pair``) and the move-log player
  (``analysis.logged_rounds`` + ``analysis.walk``), with fixed seeds, and keeps
  them for the whole run, so claims that need the same rounds share them.
- Estimators with intervals: means and shares (``stats.mean_ci``,
  ``stats.share_ci``), means over events clustered by round (turns of one round
  are not independent), paired margins on duplicate deals, a regression with
  round-clustered standard errors.
- ``Expect`` and ``verdict``: the declared band for each measure and the rule
  that turns an interval into a verdict (below).
- Writers: ``claims.csv``, ``figures/<claim>.png`` and ``.svg``, ``claims.md``,
  ``claims.manifest.json``.

The verdict rule (declared before anything is run, the same for every row):
each measure has a *tolerance band* (what the tip's words allow: "about 18"
is 18 +/- 10%, "over 40%" is [0.40, 1], "more than 0" is [0, inf)) and a wider
*rough band* ("about" +/- 20%; for one-sided statements the same band).

- holds: the whole 95% interval lies inside the tolerance band;
- does not hold: the whole interval lies outside the rough band;
- roughly: anything else (the interval reaches into the rough band without
  lying inside the tolerance band, or straddles an edge).

With one band (rough = tolerance) this is the plain rule "inside / outside /
straddling"; the rough band only keeps a number that is off by 10-20% from
being called wrong.
"""
from __future__ import annotations

import importlib.util
import math
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional

import numpy as np
import pandas as pd
from scipy import stats as _st

from lostcards.analysis.stats import Estimate, mean_ci, share_ci
from lostcards.errors import ClaimsError
from lostcards.rules.outcome import FINISHED
from lostcards.run.batchdir import write_manifest

HOLDS, ROUGHLY, FAILS = "holds", "roughly", "does not hold"
VERDICTS = (HOLDS, ROUGHLY, FAILS)
INF = float("inf")
ABOUT = 0.10          # "about X": X +/- 10% holds ...
ROUGH = 0.20          # ... and X +/- 20% is still "roughly"
MIN_N = 20            # fewer observations than this: no row (the report says so)

CSV_COLUMNS = ("claim", "measure", "policy", "rules", "players", "estimate", "ci_low", "ci_high", "n",
               "expected", "verdict", "tol_low", "tol_high", "rough_low", "rough_high", "expectation",
               "unit", "clusters")


# ---------------------------------------------------------------------------
# Expectations and verdicts
# ---------------------------------------------------------------------------

@dataclass(frozen=True)
class Expect:
    """What a tip says a measure should be: its number, the tolerance band and the rough band."""

    value: float
    low: float
    high: float
    rough_low: float
    rough_high: float
    text: str

    def verdict(self, est: Estimate) -> str:
        return verdict(est.ci_low, est.ci_high, self)


def about(x: float, tol: float = ABOUT, rough: float = ROUGH, text: str = "") -> Expect:
    """'about x': x +/- tol (relative) holds; x +/- rough is roughly."""
    a, b = abs(x) * tol, abs(x) * rough
    return Expect(x, x - a, x + a, x - b, x + b,
                  text or f"about {_g(x)} (holds within ±{tol:.0%}, roughly within ±{rough:.0%})")


def at_least(x: float, rough: float | None = None, text: str = "") -> Expect:
    """'at least / more than x': [x, inf) holds; [rough, inf) is roughly (default: the same band)."""
    r = x if rough is None else rough
    return Expect(x, x, INF, r, INF, text or f"at least {_g(x)}")


def at_most(x: float, rough: float | None = None, text: str = "") -> Expect:
    """'at most / less than x': (-inf, x] holds; (-inf, rough] is roughly."""
    r = x if rough is None else rough
    return Expect(x, -INF, x, -INF, r, text or f"at most {_g(x)}")


def between(lo: float, hi: float, value: float, rough_lo: float | None = None, rough_hi: float | None = None,
            text: str = "") -> Expect:
    return Expect(value, lo, hi, lo if rough_lo is None else rough_lo, hi if rough_hi is None else rough_hi,
                  text or f"between {_g(lo)} and {_g(hi)}")


def exactly(x: float, text: str = "") -> Expect:
    return Expect(x, x, x, x, x, text or f"exactly {_g(x)}")


def verdict(ci_low: float, ci_high: float, e: Expect) -> str:
    """holds: the interval inside the tolerance band; does not hold: entirely outside the rough band."""
    eps = 1e-9 * max(1.0, abs(ci_low), abs(ci_high))
    if e.low - eps <= ci_low and ci_high <= e.high + eps:
        return HOLDS
    if ci_high < e.rough_low - eps or ci_low > e.rough_high + eps:
        return FAILS
    return ROUGHLY


def _g(x: float) -> str:
    if x in (INF, -INF):
        return "∞" if x > 0 else "-∞"
    return f"{x:g}"


# ---------------------------------------------------------------------------
# Estimators (95% intervals)
# ---------------------------------------------------------------------------

@dataclass(frozen=True)
class Est:
    """An estimate with its 95% interval, sample size and (for clustered data) the number of rounds."""

    estimate: float
    ci_low: float
    ci_high: float
    n: int
    clusters: int = 0

    @property
    def half(self) -> float:
        return (self.ci_high - self.ci_low) / 2


def est_mean(x) -> Est:
    e = mean_ci(np.asarray(x, float))
    return Est(e.estimate, e.ci_low, e.ci_high, e.n)


def est_share(successes, n) -> Est:
    e = share_ci(int(successes), int(n))
    return Est(e.estimate, e.ci_low, e.ci_high, e.n)


def est_cluster_mean(y, groups) -> Est:
    """Mean of per-event values y whose events come in clusters (rounds): ratio estimator,
    linearised variance with the usual G/(G-1) correction, t interval on G-1 degrees of freedom."""
    y = np.asarray(y, float)
    g = np.asarray(groups)
    n = y.size
    if n == 0:
        return Est(math.nan, math.nan, math.nan, 0, 0)
    _, inv = np.unique(g, return_inverse=True)
    G = int(inv.max()) + 1
    m = float(y.mean())
    if G < 2:
        return Est(m, math.nan, math.nan, n, G)
    tot = np.bincount(inv, weights=y, minlength=G)
    cnt = np.bincount(inv, minlength=G).astype(float)
    u = (tot - m * cnt) / n
    var = G / (G - 1) * float((u * u).sum())
    q = _st.t.ppf(0.975, G - 1)
    h = q * math.sqrt(var)
    lo, hi = m - h, m + h
    if np.isin(y, (0.0, 1.0)).all():          # a share: its interval stays within [0, 1]
        lo, hi = max(lo, 0.0), min(hi, 1.0)
    return Est(m, lo, hi, n, G)


def est_ratio(num, den, clusters) -> Est:
    """Sum of num over sum of den (a pooled share or rate), clustered by round (linearised variance)."""
    num = np.asarray(num, float)
    den = np.asarray(den, float)
    if num.size == 0 or den.sum() == 0:
        return Est(math.nan, math.nan, math.nan, int(num.size), 0)
    _, inv = np.unique(np.asarray(clusters), return_inverse=True)
    G = int(inv.max()) + 1
    N = np.bincount(inv, weights=num, minlength=G)
    D = np.bincount(inv, weights=den, minlength=G)
    r = float(N.sum() / D.sum())
    if G < 2:
        return Est(r, math.nan, math.nan, int(num.size), G)
    u = (N - r * D) / D.sum()
    var = G / (G - 1) * float((u * u).sum())
    h = _st.t.ppf(0.975, G - 1) * math.sqrt(var)
    return Est(r, r - h, r + h, int(num.size), G)


def est_cluster_diff(y1, g1, y2, g2) -> Est:
    """Difference of two event means (group 1 minus group 2) from the same rounds, clustered by round."""
    y1, y2 = np.asarray(y1, float), np.asarray(y2, float)
    n1, n2 = y1.size, y2.size
    if n1 == 0 or n2 == 0:
        return Est(math.nan, math.nan, math.nan, 0, 0)
    keys, inv = np.unique(np.concatenate([np.asarray(g1), np.asarray(g2)]), return_inverse=True)
    G = keys.size
    i1, i2 = inv[:n1], inv[n1:]
    m1, m2 = float(y1.mean()), float(y2.mean())
    u = (np.bincount(i1, weights=y1 - m1, minlength=G) / n1
         - np.bincount(i2, weights=y2 - m2, minlength=G) / n2)
    d = m1 - m2
    if G < 2:
        return Est(d, math.nan, math.nan, n1 + n2, G)
    var = G / (G - 1) * float((u * u).sum())
    h = _st.t.ppf(0.975, G - 1) * math.sqrt(var)
    return Est(d, d - h, d + h, n1 + n2, G)


@dataclass(frozen=True)
class Fit:
    intercept: Est
    slope: Est
    n: int
    residual_sd: float


def ols_clustered(x, y, groups) -> Fit:
    """y = a + b x by least squares, with round-clustered (sandwich) standard errors."""
    x = np.asarray(x, float)
    y = np.asarray(y, float)
    X = np.column_stack([np.ones_like(x), x])
    XtX_inv = np.linalg.inv(X.T @ X)
    beta = XtX_inv @ (X.T @ y)
    e = y - X @ beta
    _, inv = np.unique(np.asarray(groups), return_inverse=True)
    G = int(inv.max()) + 1
    s = np.zeros((G, 2))
    np.add.at(s, inv, X * e[:, None])
    n = x.size
    k = 2
    c = G / (G - 1) * (n - 1) / (n - k)
    V = c * XtX_inv @ (s.T @ s) @ XtX_inv
    q = _st.t.ppf(0.975, G - 1)
    ests = []
    for j in range(2):
        se = math.sqrt(V[j, j])
        ests.append(Est(float(beta[j]), float(beta[j] - q * se), float(beta[j] + q * se), n, G))
    return Fit(ests[0], ests[1], n, float(e.std(ddof=2)))


# ---------------------------------------------------------------------------
# Claims, rows, results
# ---------------------------------------------------------------------------

@dataclass(frozen=True)
class Sizes:
    """How many rounds each kind of data gets (one set for the default run, one for --quick)."""

    rounds: int = 100_000         # self-play rounds per cheap policy (random, greedy, expert), 2 players
    records: int = 5_000          # of those, rounds replayed turn by turn (move logs) per policy
    deals: int = 50_000           # duplicate deals per bot comparison (each played twice, seats swapped)
    search_deals: int = 300       # search against expert: duplicate deals (2 rounds each), all logged
    rollouts: int = 64            # the search budget (determinizations per candidate move)
    rounds_4p: int = 20_000       # 4-player self-play rounds per policy
    rounds_1p: int = 20_000       # solitaire rounds per policy


STANDARD = Sizes(rounds=100_000, records=5_000, deals=50_000)
QUICK = Sizes(rounds=2_000, records=200, deals=1_000, search_deals=2, rollouts=4, rounds_4p=500,
              rounds_1p=500)


@dataclass(frozen=True)
class Claim:
    """One strategy tip as an experiment (declared before it is run)."""

    id: str
    order: int
    title: str
    tip: str                       # the tip's own words, quoted from the rule sheet
    measured: str                  # what is measured, in plain words
    tolerance: str                 # how the tip's numbers are read ("about" = ...), declared up front
    policies: tuple = ("random", "greedy", "expert", "search")
    rules: str = "expeditions"
    players: tuple = (2,)
    sizes: Sizes = STANDARD
    quick: Sizes = QUICK
    not_run: str = ""              # which policy/measure is left out and why
    primary: tuple = ()            # the measures whose verdicts make the tip's verdict


@dataclass
class Row:
    measure: str
    policy: str
    est: Est
    expect: Expect
    unit: str = ""
    players: int = 2
    rules: str = "expeditions"
    label: str = ""                # a reader's name for the measure

    @property
    def verdict(self) -> str:
        return verdict(self.est.ci_low, self.est.ci_high, self.expect)


@dataclass
class Result:
    rows: list
    figure: object                 # a matplotlib Figure
    reading: str                   # one paragraph for a strategy writer
    details: str = ""              # optional markdown (context tables) shown under the numbers
    summary: str = ""              # the tip's verdict in one line (the summary table); default: the
                                   # reading's first sentence
    skipped: list = field(default_factory=list)   # (measure, policy, why) left out


# ---------------------------------------------------------------------------
# The data: played once per run, shared by the claims
# ---------------------------------------------------------------------------

BOTS = ("random", "greedy", "expert", "search")


class Context:
    """Plays and caches the rounds the experiments need (fixed seeds: the same run gives the same numbers)."""

    def __init__(self, seed: int = 1, quick: bool = False, say: Callable = None, threads: int | None = None):
        self.seed = int(seed)
        self.quick = quick
        self.sizes = QUICK if quick else STANDARD
        self.say = say or (lambda *_: None)
        self.threads = threads
        self._cache: dict = {}
        self.timings: dict = {}
        self.played: dict = {}          # what was played, for the manifest

    # -- policies ----------------------------------------------------------
    def spec(self, name: str) -> str:
        """The policy spec for a bot name; `search` gets this run's budget."""
        if name == "search":
            return f"search:rollouts={self.sizes.rollouts}"
        return name

    @property
    def search_spec(self) -> str:
        return self.spec("search")

    def rules(self, players: int = 2, preset: str = "expeditions"):
        from lostcards.rules.ruleset import rules as make_rules
        return make_rules(preset, players=players)

    def _cached(self, key, make):
        if key not in self._cache:
            t = time.time()
            self._cache[key] = make()
            dt = time.time() - t
            self.timings[str(key)] = round(dt, 2)
            self.say(f"  played {key} in {dt:.1f}s")
        return self._cache[key]

    # -- batches (per-round statistics) --------------------------------------
    def batch(self, policy: str, players: int = 2, rounds: int | None = None):
        """Self-play (every seat plays `policy`) of rounds 0..n-1 of the run's seed."""
        from lostcards.run.runner import play
        if rounds is None:
            rounds = {1: self.sizes.rounds_1p, 2: self.sizes.rounds, 4: self.sizes.rounds_4p}[players]
        spec = self.spec(policy)
        key = ("batch", spec, players, rounds)

        def make():
            self.played[f"self-play {spec}, {players} players"] = rounds
            return play(self.rules(players), spec, spec, rounds=rounds, seed=self.seed, threads=self.threads)
        return self._cached(key, make)

    def pair(self, a, b, deals: int | None = None) -> pd.DataFrame:
        """Duplicate deals: `a` against `b` (specs or Policy objects) on rounds 0..n-1, each played twice
        with the seats swapped.  One row per deal; `margin` = a's points minus b's, averaged over the two games."""
        from lostcards.analysis.tournament import play_pair
        from lostcards.policies import resolve
        deals = deals or self.sizes.deals
        sa, sb = resolve(a).spec, resolve(b).spec
        key = ("pair", sa, sb, deals)

        def make():
            self.played[f"duplicate {sa} vs {sb}"] = deals
            return play_pair(self.rules(2), a, b, rounds=deals, seed=self.seed, threads=self.threads)
        return self._cached(key, make)

    # -- move logs, walked turn by turn ----------------------------------------
    def facts(self, policy: str) -> dict:
        """Per-turn facts (``analysis.FACT_COLUMNS``) of this policy's own seats.

        Cheap policies: self-play, the first `records` rounds of the batch (both seats).
        search: against expert on `search_deals` duplicate deals (both seatings), its own seats only.
        A `policy` column names the seat's policy; `game` is 0 (seat 0 = side A) or 1 (swapped).
        """
        spec = self.spec(policy)
        if policy == "search":
            return self._search_facts()
        key = ("facts", spec, self.sizes.records)

        def make():
            from lostcards.analysis.movelog import logged_rounds, walk
            lg = logged_rounds(self.rules(2), spec, spec, range(self.sizes.records), seed=self.seed)
            f = walk(lg)
            for t in f.values():
                if "seat" in t:
                    t["policy"] = spec
                t["game"] = 0
            self.played[f"move logs {spec} self-play"] = self.sizes.records
            return f
        return self._cached(key, make)

    def _search_games(self) -> dict:
        """search against expert on duplicate deals, every move logged and walked (both games)."""
        spec = self.search_spec
        n = self.sizes.search_deals
        key = ("search-games", spec, n)

        def make():
            from lostcards.analysis.movelog import logged_rounds, walk
            out = []
            for game, (a, b) in enumerate(((spec, "expert"), ("expert", spec))):
                self.say(f"  search: game {game + 1} of 2 on {n} deals ({a} vs {b}) ...")
                lg = logged_rounds(self.rules(2), a, b, range(n), seed=self.seed, parallel=not self.quick,
                                   threads=self.threads)
                f = walk(lg)
                for name, t in f.items():
                    t["game"] = game
                    if "seat" in t:
                        t["policy"] = np.where(t["seat"].to_numpy() == 0, a, b)
                out.append(f)
            self.played[f"duplicate {spec} vs expert (move logs)"] = n
            return {name: pd.concat([o[name] for o in out], ignore_index=True) for name in out[0]}
        return self._cached(key, make)

    def _search_facts(self) -> dict:
        f = self._search_games()
        spec = self.search_spec
        out = {}
        for name, t in f.items():
            out[name] = t[t["policy"] == spec].reset_index(drop=True) if "policy" in t else t
        return out

    def search_margin(self) -> Est:
        """search minus expert, points per round, on the logged duplicate deals."""
        r = self._search_games()["rounds"]
        g0 = r[r.game == 0].sort_values("round")
        g1 = r[r.game == 1].sort_values("round")
        m = ((g0.score0.to_numpy() - g0.score1.to_numpy()) + (g1.score1.to_numpy() - g1.score0.to_numpy())) / 2
        return est_mean(m)

    # -- per-seat tables, the same columns whatever their source --------------------
    def seat_tables(self, policy: str) -> dict:
        """`seats` and `seat_suits` (2 players) of the policy's own seats: from the big self-play batch
        for cheap policies, from the logged games for search.  Columns as ``analysis.FACT_COLUMNS``
        plus `cluster` (the round, as a cluster id)."""
        key = ("seat-tables", self.spec(policy))

        def make():
            if policy == "search":
                f = self._search_facts()
                seats = f["seats"].copy()
                ss = f["seat_suits"].copy()
                for t in (seats, ss):
                    t["cluster"] = t["round"]       # both games of a deal share its cards: one cluster
                return {"seats": seats, "seat_suits": ss}
            b = self.batch(policy)
            return _batch_tables(b)
        return self._cached(key, make)

    def round_table(self, policy: str) -> pd.DataFrame:
        """One row per round the policy played (2 players): turns, pile draws (both seats), ended_by."""
        key = ("round-table", self.spec(policy))

        def make():
            if policy == "search":
                r = self._search_games()["rounds"].copy()
                r["cluster"] = r["round"]
                return r[["round", "turns", "pile_draws", "ended_by", "cluster"]]
            b = self.batch(policy)
            return pd.DataFrame({"round": np.arange(b.start, b.start + b.n),
                                 "turns": b.round_info[:, 1], "pile_draws": b.seats[:, :, 3].sum(1),
                                 "ended_by": np.array([e.value for e in FINISHED])[b.round_info[:, 2]],
                                 "cluster": np.arange(b.start, b.start + b.n)})
        return self._cached(key, make)


def _batch_tables(b) -> dict:
    r = b.rules
    n, players, suits = b.n, r.players, r.suits
    rounds = np.arange(b.start, b.start + n)
    st = b.seats.reshape(n * players, 5)
    seat = np.tile(np.arange(players), n)
    scores = b.round_info[:, 3:5]
    sc = scores[np.repeat(np.arange(n), players), seat % 2]
    opp = scores[np.repeat(np.arange(n), players), 1 - seat % 2]
    seats = pd.DataFrame({"round": np.repeat(rounds, players), "seat": seat, "plays": st[:, 0],
                          "discards": st[:, 1], "deck_draws": st[:, 2], "pile_draws": st[:, 3],
                          "passes": st[:, 4], "score": sc, "opp_score": opp})
    k = n * players * suits
    held = b.seat_suits.reshape(k, 4).astype(np.int64)
    seat_k = np.tile(np.repeat(np.arange(players), suits), n)
    side_k = seat_k % 2 if players > 1 else seat_k * 0
    suit_k = np.tile(np.arange(suits), n * players)
    rows = np.repeat(np.arange(n), players * suits)
    exp = b.side_suits[rows, side_k, suit_k].astype(np.int64)
    cards, inv, score = exp[:, 0], exp[:, 1], exp[:, 2]
    bonus = np.where(cards >= r.bonus_cards, r.bonus_points, 0)
    numbers = np.where(cards > 0, (score - bonus) // (inv + 1) + r.cost, 0)
    ss = pd.DataFrame({"round": rounds[rows], "seat": seat_k, "suit": suit_k,
                       "held_count": held[:, 0], "held_sum": held[:, 1],
                       "reached_count": held[:, 2], "reached_sum": held[:, 3],
                       "exp_cards": cards, "exp_investments": inv, "exp_score": score,
                       "exp_numbers_sum": numbers})
    seats["cluster"] = seats["round"]
    ss["cluster"] = ss["round"]
    return {"seats": seats, "seat_suits": ss}


# ---------------------------------------------------------------------------
# Figures
# ---------------------------------------------------------------------------

COLORS = {"random": "#9e9e9e", "greedy": "#e69f00", "expert": "#0072b2", "search": "#009e73",
          "variant": "#cc79a7", "ref": "#d55e00"}


def bot_name(spec: str) -> str:
    """The bot a spec is built on: 'search:rollouts=64' -> 'search', 'expert+tip-invest' -> 'expert'."""
    return spec.split(":", 1)[0].split("+", 1)[0]


def color(spec: str) -> str:
    """A bot's colour; variants of a bot (other parameters, wrappers) share one colour of their own."""
    if spec.startswith("search"):
        return COLORS["search"]
    return COLORS.get(spec, COLORS["variant"])


def new_figure(ncols: int = 2, nrows: int = 1, width: float = 6.0, height: float = 4.2, title: str = "",
               ratios=None):
    """A grid of panels (axes[row, col]) with a bold title; `ratios`: relative panel widths."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    kw = {"gridspec_kw": {"width_ratios": list(ratios)}} if ratios else {}
    total = sum(ratios) / len(ratios) if ratios else 1.0
    fig, axes = plt.subplots(nrows, ncols, figsize=(width * ncols * total, height * nrows + (0.5 if title else 0)),
                             squeeze=False, **kw)
    if title:
        fig.suptitle(title, fontsize=13, fontweight="bold")
    return fig, axes


def ref_line(ax, y=None, x=None, label: str = "", color_: str = None):
    c = color_ or COLORS["ref"]
    if y is not None:
        ax.axhline(y, color=c, ls="--", lw=1.6, label=label or None, zorder=1)
    if x is not None:
        ax.axvline(x, color=c, ls=":", lw=1.6, label=label or None, zorder=1)


def interval_bars(ax, labels, ests, colors=None, horizontal=True, ref=None, ref_label="", unit=""):
    """Estimates as points with 95% interval whiskers, one per label."""
    pos = np.arange(len(labels))
    vals = np.array([e.estimate for e in ests])
    lo = vals - np.array([e.ci_low for e in ests])
    hi = np.array([e.ci_high for e in ests]) - vals
    cols = colors or ["#333333"] * len(labels)
    for i in range(len(labels)):
        if horizontal:
            ax.errorbar(vals[i], pos[i], xerr=[[lo[i]], [hi[i]]], fmt="o", color=cols[i], capsize=5, ms=7, lw=2)
        else:
            ax.errorbar(pos[i], vals[i], yerr=[[lo[i]], [hi[i]]], fmt="o", color=cols[i], capsize=5, ms=7, lw=2)
    if horizontal:
        ax.set_yticks(pos, labels)
        ax.set_ylim(len(labels) - 0.4, -0.6)
        if ref is not None:
            ref_line(ax, x=ref, label=ref_label)
        if unit:
            ax.set_xlabel(unit)
    else:
        ax.set_xticks(pos, labels)
        if ref is not None:
            ref_line(ax, y=ref, label=ref_label)
        if unit:
            ax.set_ylabel(unit)


def binned(x, y, groups, edges):
    """Clustered mean of y per bin of x: (centres, [Est])."""
    x = np.asarray(x, float)
    y = np.asarray(y, float)
    g = np.asarray(groups)
    cs, es = [], []
    for lo, hi in zip(edges[:-1], edges[1:]):
        m = (x >= lo) & (x < hi)
        if m.sum() >= MIN_N:
            cs.append((lo + min(hi, x.max() + 1)) / 2 if np.isfinite(hi) else lo)
            es.append(est_cluster_mean(y[m], g[m]))
    return np.array(cs), es


def band_plot(ax, xs, ests, col, label, marker="o"):
    if not len(xs):
        return
    v = np.array([e.estimate for e in ests])
    lo = np.array([e.ci_low for e in ests])
    hi = np.array([e.ci_high for e in ests])
    ax.plot(xs, v, marker=marker, color=col, label=label, lw=1.8, ms=4)
    ax.fill_between(xs, lo, hi, color=col, alpha=0.2, lw=0)


# ---------------------------------------------------------------------------
# Loading experiments, running them, writing the report
# ---------------------------------------------------------------------------

def experiments_dir() -> Path:
    """The experiments folder: the installed ``lostcards.experiments`` package (``experiments/`` of the source tree)."""
    try:
        import lostcards.experiments as ex
        return Path(list(ex.__path__)[0])
    except ImportError:         # a source tree on sys.path without the install's package mapping
        here = Path(__file__).resolve().parents[2] / "experiments"
        return here if here.is_dir() else Path.cwd() / "experiments"


def load_experiments(directory: Path | None = None) -> dict:
    """{claim id: module} for every experiments/*.py that declares a ``CLAIM``, in the claims' order."""
    directory = Path(directory) if directory else experiments_dir()
    found = []
    for path in sorted(directory.glob("*.py")):
        text = path.read_text(encoding="utf-8")
        if "CLAIM = Claim(" not in text:
            continue                  # other scripts live there too
        name = f"lostcards_experiment_{path.stem}"
        spec = importlib.util.spec_from_file_location(name, path)
        mod = importlib.util.module_from_spec(spec)
        sys.modules[name] = mod
        spec.loader.exec_module(mod)
        found.append(mod)
    found.sort(key=lambda m: (m.CLAIM.order, m.CLAIM.id))
    return {m.CLAIM.id: m for m in found}


def overall(claim: Claim, rows: list) -> str:
    """The tip's verdict: over its primary measures for the strongest bots measured (search, expert):
    holds if all hold, does not hold if all fail, roughly otherwise."""
    prim = [r for r in rows if (not claim.primary or r.measure in claim.primary)]
    strong = [r for r in prim if bot_name(r.policy) in ("expert", "search")]
    use = strong or prim
    vs = {r.verdict for r in use}
    if not vs:
        return ROUGHLY
    if vs == {HOLDS}:
        return HOLDS
    if vs == {FAILS}:
        return FAILS
    return ROUGHLY


def says(e: Est, above: str, below: str, unclear: str) -> str:
    """Words for an interval against 0: `above` if it lies above, `below` if below, else `unclear`."""
    if e.ci_low > 0:
        return above
    if e.ci_high < 0:
        return below
    return unclear


def fmt(x: float, unit: str = "") -> str:
    if not np.isfinite(x):
        return _g(x)
    if unit == "share":
        return f"{100 * x:.1f}%"
    a = abs(x)
    if a >= 100:
        return f"{x:.0f}"
    if a >= 10:
        return f"{x:.1f}"
    if a >= 1:
        return f"{x:.2f}"
    return f"{x:.3f}"


def fmt_est(e: Est, unit: str = "") -> str:
    return f"{fmt(e.estimate, unit)} [{fmt(e.ci_low, unit)}, {fmt(e.ci_high, unit)}]"


def csv_rows(claim: Claim, rows: list) -> list[dict]:
    out = []
    for r in rows:
        e = r.est
        out.append({"claim": claim.id, "measure": r.measure, "policy": r.policy, "rules": r.rules,
                    "players": r.players, "estimate": e.estimate, "ci_low": e.ci_low, "ci_high": e.ci_high,
                    "n": e.n, "expected": r.expect.value, "verdict": r.verdict, "tol_low": r.expect.low,
                    "tol_high": r.expect.high, "rough_low": r.expect.rough_low,
                    "rough_high": r.expect.rough_high, "expectation": r.expect.text, "unit": r.unit,
                    "clusters": e.clusters})
    return out


def index(rows: list) -> dict:
    """{"policy/measure": row} for the rows that will be reported (see ``valid_row``)."""
    return {f"{r.policy}/{r.measure}": r for r in rows if valid_row(r) is None}


def valid_row(r: Row) -> Optional[str]:
    """Why a row cannot be reported (too few observations, no interval), or None."""
    e = r.est
    if e.n < MIN_N:
        return f"only {e.n} observations"
    if not all(np.isfinite([e.estimate, e.ci_low, e.ci_high])):
        return "no finite interval"
    if not (e.ci_low - 1e-9 <= e.estimate <= e.ci_high + 1e-9):
        return "estimate outside its interval"
    return None


def markdown(claims: list, results: dict, ctx: Context, seconds: float, command: str) -> str:
    L = []
    size = "quick (CI) size: too small to decide anything" if ctx.quick else "default size"
    L.append("# The strategy tips, checked\n")
    L.append(f"Generated by `{command}` (seed {ctx.seed}, {size}) in {seconds / 60:.1f} minutes. "
             "Every number is an estimate with its 95% interval and its sample size; the table of all "
             "rows is `claims.csv`, the figures are in `figures/`.\n")
    L.append("## How to read the verdicts\n")
    L.append("Each tip was turned into measurements that could come out against it, and the tolerance "
             "for its words was fixed before anything was run: **\"about X\" holds within ±10% of X** "
             "and is still **roughly** right within ±20%; \"over X\", \"more than X\" and \"at most X\" "
             "are one-sided bands; a comparison between two bots \"holds\" when the margin's interval "
             "lies above zero. A row **holds** when its whole 95% interval lies inside the tolerance "
             "band, **does not hold** when the whole interval lies outside the rough band, and is "
             "**roughly** right otherwise. A tip's own verdict (in the summary) combines its main "
             "measures for the two strongest bots, `expert` and `search` (all hold: holds; all fail: "
             "does not hold; otherwise roughly); `random` and `greedy` are shown for contrast and as a "
             "check (the `random` rows can be recomputed by any program that implements the random "
             "policy of `docs/engine.md`).\n")
    L.append("## The players\n")
    sm = results.get("_search_margin")
    L.append("- `random`: a legal move at random (`docs/engine.md`); `greedy`: a casual player's "
             "rules of thumb; `expert`: expected values from the cards seen (`lostcards/policies/expert.py`).")
    key = str(("search-games", ctx.search_spec, ctx.sizes.search_deals))
    per = ctx.timings.get(key, 0.0) / max(2 * ctx.sizes.search_deals, 1)
    if ctx.quick:
        budget = "a token budget: the quick run only exercises the code"
    else:
        budget = ("half the search bot's default of 128, to fit the time budget; in a trial before this run, "
                  "on 60 duplicate deals against "
                  "`expert` per budget, 32 was not clearly stronger than `expert`, 64 was, and 128 did no "
                  "better than 64")
    sline = (f"- `{ctx.search_spec}`: Monte Carlo search over the hidden cards with expert play-outs, at "
             f"{ctx.sizes.rollouts} determinizations per candidate move ({budget}). It is slow "
             f"({per:.2f} s a round in this run, against well under a millisecond for expert), so it plays "
             f"far fewer rounds: {ctx.sizes.search_deals} deals against `expert`, each dealt twice with the "
             "seats swapped, every move logged; its measures come from its own seat.")
    if sm is not None:
        sline += (f" On these deals it scored **{fmt_est(sm)} points per round** more than `expert` "
                  f"(n = {sm.n} deals)"
                  + (": clearly the stronger bot." if sm.ci_low > 0 else
                     ": not clearly stronger on these deals; read its rows as those of a different strong bot."))
    L.append(sline)
    L.append("- Unless a tip says otherwise: 2 players, `expeditions` rules; cheap bots play themselves "
             f"({ctx.sizes.rounds:,} rounds each, the first {ctx.sizes.records:,} replayed turn by turn for the "
             f"per-turn measures); comparisons between a bot and a variant of itself use "
             f"{ctx.sizes.deals:,} duplicate deals (each deal played twice, seats swapped, so the luck of "
             "the deal cancels).\n")
    L.append("## Summary\n")
    L.append("| tip | verdict | in one line |")
    L.append("|---|---|---|")
    for c in claims:
        res = results[c.id]
        line = res.summary or (res.reading.split(". ")[0].strip().rstrip(".") + ".")
        L.append(f"| [{c.title}](#{c.id}) | **{overall(c, res.rows)}** | {line} |")
    L.append("")
    for c in claims:
        res = results[c.id]
        L.append(f"<a id=\"{c.id}\"></a>\n## {c.title} (`{c.id}`): {overall(c, res.rows)}\n")
        L.append("> " + c.tip.replace("\n", "\n> ") + "\n")
        L.append(f"**Measured.** {c.measured}\n")
        L.append(f"**Tolerance, declared before the run.** {c.tolerance}\n")
        if c.not_run:
            L.append(f"**Not run.** {c.not_run}\n")
        L.append("| measure | policy | estimate [95% interval] | n | the tip says | verdict |")
        L.append("|---|---|---|---|---|---|")
        for r in res.rows:
            where = {1: ", solitaire", 2: "", 4: ", 4 players"}.get(r.players, f", {r.players} players")
            L.append(f"| {(r.label or r.measure).replace('|', '/')} (`{r.measure}`) | {r.policy}{where} | "
                     f"{fmt_est(r.est, r.unit)} | "
                     f"{r.est.n:,} | {r.expect.text} | **{r.verdict}** |")
        L.append("")
        for m, p, why in res.skipped:
            L.append(f"- `{m}` for {p}: not reported ({why}).")
        if res.skipped:
            L.append("")
        if res.details:
            L.append(res.details.strip() + "\n")
        L.append(f"![{c.title}](figures/{c.id}.png)\n")
        L.append(f"**Reading.** {res.reading}\n")
    return "\n".join(L)


def run_claims(ids=(), out="reports", quick: bool = False, seed: int = 1, directory=None,
               say: Callable = None, threads: int | None = None, command: str = "") -> pd.DataFrame:
    """Run the experiments (all, or those named) and write the report into `out`; returns the CSV table."""
    t0 = time.time()
    say = say or (lambda *_: None)
    mods = load_experiments(directory)
    if not mods:
        raise ClaimsError(f"no experiments found in {directory or experiments_dir()}")
    unknown = [i for i in ids if i not in mods]
    if unknown:
        raise ClaimsError(f"unknown claim {', '.join(unknown)} (known: {', '.join(mods)})")
    chosen = [mods[i] for i in (ids or mods)]
    out = Path(out)
    (out / "figures").mkdir(parents=True, exist_ok=True)
    ctx = Context(seed=seed, quick=quick, say=say, threads=threads)
    results = {}
    claims = []
    table = []
    per_claim = {}
    for mod in chosen:
        c = mod.CLAIM
        t = time.time()
        say(f"{c.id}: {c.title} ...")
        res = mod.measure(ctx)
        kept = []
        for r in res.rows:
            why = valid_row(r)
            if why:
                res.skipped.append((r.measure, r.policy, why))
            else:
                kept.append(r)
        res.rows = kept
        fig = res.figure
        fig.savefig(out / "figures" / f"{c.id}.png", dpi=110, bbox_inches="tight")
        fig.savefig(out / "figures" / f"{c.id}.svg", bbox_inches="tight")
        import matplotlib.pyplot as plt
        plt.close(fig)
        results[c.id] = res
        claims.append(c)
        table.extend(csv_rows(c, res.rows))
        per_claim[c.id] = round(time.time() - t, 1)
        say(f"{c.id}: {len(res.rows)} rows, verdict {overall(c, res.rows)} ({time.time() - t:.1f}s)")
    if any(isinstance(k, tuple) and k[0] == "search-games" for k in ctx._cache):
        results["_search_margin"] = ctx.search_margin()
    df = pd.DataFrame(table, columns=list(CSV_COLUMNS))
    df.to_csv(out / "claims.csv", index=False, float_format="%.6g")
    seconds = time.time() - t0
    (out / "claims.md").write_text(markdown(claims, results, ctx, seconds, command or "lostcards claims"),
                                   encoding="utf-8")
    from lostcards.run.batchdir import versions
    manifest = {"command": command or "lostcards claims", "claims": [c.id for c in claims], "seed": seed,
                "quick": quick, "sizes": ctx.sizes.__dict__, "rules": "expeditions",
                "policies": sorted({r["policy"] for r in table}), "played": ctx.played,
                "seconds": round(seconds, 1), "seconds_per_claim": per_claim, "data_seconds": ctx.timings,
                "versions": versions()}
    write_manifest(out, manifest, "claims.manifest.json")
    say(f"wrote {out / 'claims.csv'} ({len(df)} rows), {out / 'claims.md'}, {out / 'figures'}/ "
        f"in {seconds:.0f}s")
    return df
