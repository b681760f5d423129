"""Game metrics of one ruleset, each with a 95% interval and its sample size.

``metrics(rules("expeditions", hand_size=8))`` plays expert self-play rounds
(and expert against greedy and random on duplicate deals) and returns a tidy
DataFrame, one row per metric::

    group  metric  estimate  ci_low  ci_high  n  unit  method  policy  opponent  rules  preset  players  seed

The groups:

- ``length``: turns per round, plays per seat, share of rounds ended by the
  deck, by the stall rule, capped (solitaire: by an empty hand);
- ``balance``: the first player's win rate (draws count half) and mean margin
  in self-play (the first player's side minus the other; with 4 players the
  side of the seat that moves first);
- ``ties``: share of drawn rounds and of drawn 3-round matches;
- ``skill``: the policy against each weaker opponent on duplicate deals (each
  deal played twice, sides swapped): win rate (per game, draws half) and mean
  margin per round; solitaire: the paired score difference on the same deals;
- ``scores``: mean and standard deviation of a side's round score, share of
  negative side-rounds, expeditions opened per side, bonus rate (share of opened
  expeditions that reach the bonus), investments laid per side;
- ``tension``: discards and pile draws per round (all seats), passes per round
  (4 players), and in 3-round matches how often the side leading after round 1
  ends the match behind.

The measurements are *samples*: per-unit values (one per round, deal or match)
indexed by the round index of the seed, so that two rulesets played on the same
seed can be compared unit by unit (``paired_diff``).  A round's deal depends on
(seed, round index) and the deck only, so two rulesets with the same deck get
the same shuffles: common random numbers, and the paired differences are
measured far more precisely than either value.

Matches: the self-play rounds are played in three blocks of M = ceil(n / 3)
consecutive round indices; block r is started by seat r mod players, and match
m is rounds (m, M + m, 2M + m), so round r of every match is started by seat
r mod players, as SPEC §2 says.

Intervals: a share (0/1 per unit) gets the Wilson score interval, a mean the t
interval (``lostcards.stats``); a ratio, a conditional share and a standard
deviation get a normal interval from their influence values (the delta method),
which is also how their paired differences are measured.

``estimate`` and ``paired_diff`` take a confidence level (95% by default), so
that a report can state its deciding intervals at a simultaneous level.
``lostcards.analysis.depth`` (the skill trace) and ``lostcards.analysis.stall``
build on these samples.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from lostcards.rules.outcome import Ending
from lostcards.stats import INF, half_width, mean_ci, share_ci

NO_UNIT_DIFFERS = "no unit differs"

# metric -> (group, unit, meaning); the order is the tables' order
METRICS = {
    "turns_per_round": ("length", "rounds", "turns in a round (passes included)"),
    "plays_per_seat": ("length", "rounds", "cards played (to an expedition or discarded) per seat"),
    "ended_by_deck": ("length", "rounds", "share of rounds ended by the last deck card"),
    "ended_by_stall": ("length", "rounds", "share of rounds ended by the stall rule"),
    "ended_by_capped": ("length", "rounds", "share of rounds stopped at the turn cap"),
    "ended_by_stall_or_cap": ("length", "rounds", "share of rounds ended by the stall rule or the turn cap"),
    "ended_by_hand_empty": ("length", "rounds", "share of rounds ended by an empty hand (solitaire)"),
    "first_player_win_rate": ("balance", "rounds", "the first player's side: wins + draws/2 per round"),
    "first_player_margin": ("balance", "rounds", "first player's side minus the other, points per round"),
    "match_first_seat_win_rate": ("balance", "matches",
                                  "3-round matches won (draws half) by the side of seat 0, which starts "
                                  "rounds 1 and 3"),
    "drawn_rounds": ("ties", "rounds", "share of rounds with equal scores"),
    "drawn_matches": ("ties", "matches", "share of 3-round matches with equal totals"),
    "win_rate": ("skill", "deals", "policy's games won + drawn/2 against the opponent (2 games a deal)"),
    "margin": ("skill", "deals", "policy minus opponent, points per round (duplicate deals)"),
    "score_mean": ("scores", "rounds", "a side's round score"),
    "score_sd": ("scores", "rounds", "standard deviation of a side's round score"),
    "negative_rounds": ("scores", "rounds", "share of side-rounds scoring below 0"),
    "expeditions_opened": ("scores", "rounds", "expeditions opened per side per round"),
    "bonus_rate": ("scores", "rounds", "share of opened expeditions that reach the bonus"),
    "investments_laid": ("scores", "rounds", "investment cards laid per side per round"),
    "discards_per_round": ("tension", "rounds", "discards per round, all seats"),
    "pile_draws_per_round": ("tension", "rounds", "draws off a discard pile per round, all seats"),
    "passes_per_round": ("tension", "rounds", "passes per round, all seats (4 players)"),
    "leader_loses_match": ("tension", "matches",
                           "share of 3-round matches led after round 1 whose leader ends behind"),
}

COLUMNS = ["group", "metric", "estimate", "ci_low", "ci_high", "n", "unit", "method", "policy",
           "opponent", "rules", "preset", "players", "seed"]


# ---- samples: per-unit values and their estimators ------------------------------

@dataclass
class Sample:
    """The per-unit data of one metric.

    kind: ``share`` (0/1 values), ``mean``, ``rate`` (a mean of values in
    0..1, e.g. wins + draws/2), ``ratio`` (sum x / sum den),
    ``cond`` (mean of x over the units where mask is true), ``sd`` (standard
    deviation of the pooled values x[unit, k]).
    index: the unit ids (round, deal or match index of the seed), for pairing.
    """

    metric: str
    kind: str
    index: np.ndarray
    x: np.ndarray
    den: np.ndarray | None = None
    mask: np.ndarray | None = None
    opponent: str = ""

    @property
    def key(self) -> tuple:
        return (self.metric, self.opponent)

    def take(self, pos: np.ndarray) -> "Sample":
        return Sample(self.metric, self.kind, self.index[pos], self.x[pos],
                      None if self.den is None else self.den[pos],
                      None if self.mask is None else self.mask[pos], self.opponent)


def influence(s: Sample) -> tuple[float, np.ndarray]:
    """(estimate, influence value of each unit): estimate ≈ estimate + mean(influence) to first order."""
    n = s.index.size
    if n == 0:
        return float("nan"), np.zeros(0)
    if s.kind in ("share", "mean", "rate"):
        m = float(s.x.mean())
        return m, s.x - m
    if s.kind == "ratio":
        dbar = float(s.den.mean())
        if dbar == 0:
            return float("nan"), np.zeros(n)
        est = float(s.x.sum() / s.den.sum())
        return est, (s.x - est * s.den) / dbar
    if s.kind == "cond":
        p = float(s.mask.mean())
        if p == 0:
            return float("nan"), np.zeros(n)
        est = float(s.x[s.mask].mean())
        return est, np.where(s.mask, s.x - est, 0.0) / p
    if s.kind == "sd":
        x = s.x.reshape(n, -1).astype(np.float64)
        m = float(x.mean())
        per = ((x - m) ** 2).mean(axis=1)
        var = float(per.mean())
        sd = math.sqrt(var)
        if sd == 0:
            return 0.0, np.zeros(n)
        return sd, (per - var) / (2 * sd)
    raise ValueError(f"unknown sample kind {s.kind!r}")


def estimate(s: Sample, level: float = 0.95) -> tuple[float, float, float, int, str]:
    """(estimate, ci_low, ci_high, n, method) with an interval at `level` (95% unless a simultaneous
    level is asked for)."""
    if s.kind == "share":
        e = share_ci(int(s.x.sum()), s.index.size, level)
        return e.estimate, e.ci_low, e.ci_high, e.n, "Wilson"
    if s.kind == "mean":
        e = mean_ci(s.x, level)
        return e.estimate, e.ci_low, e.ci_high, e.n, "t"
    if s.kind == "rate":
        e = mean_ci(s.x, level)
        if s.x.size and (e.ci_low == e.ci_high or np.isnan(e.ci_low)):
            # every unit alike (e.g. all won): the t interval collapses; Wilson on n units instead
            w = share_ci(float(s.x.sum()), s.x.size, level)
            return e.estimate, min(w.ci_low, e.estimate), max(w.ci_high, e.estimate), e.n, "Wilson (all units equal)"
        return e.estimate, e.ci_low, e.ci_high, e.n, "t"
    est, inf = influence(s)
    n = int(s.mask.sum()) if s.kind == "cond" else s.index.size
    if s.index.size < 2 or math.isnan(est):
        return est, float("nan"), float("nan"), n, "delta"
    half = half_width(float(inf.std(ddof=1)), s.index.size, INF, level)
    return est, est - half, est + half, n, "delta"


def paired_diff(a: Sample, b: Sample, level: float = 0.95) -> dict:
    """a - b on the units both have (same round/deal/match index): estimate, interval at `level`, n.

    Units with the same index were dealt the same cards when both rulesets have
    the same deck (common random numbers); otherwise they are independent pairs
    and the interval is still right (just wider).
    """
    common, ia, ib = np.intersect1d(a.index, b.index, return_indices=True)
    a, b = a.take(ia), b.take(ib)
    n = common.size
    ea, fa = influence(a)
    eb, fb = influence(b)
    d = fa - fb
    est = ea - eb
    if n < 2 or math.isnan(est):
        return {"estimate": est, "ci_low": float("nan"), "ci_high": float("nan"), "n": n, "method": "-"}
    sd = float(d.std(ddof=1))
    if sd == 0 and np.all(d == 0) and est == 0:
        # no unit differs between the two rulesets: the difference is exactly 0 on this sample.  For a
        # share or a rate (values in 0..1) |difference| <= the share of units that differ, whose 95%
        # upper bound with 0 of n seen is Wilson's; other metrics have no such bound: [0, 0].
        u = share_ci(0, n, level).ci_high if a.kind in ("share", "rate") else 0.0
        return {"estimate": 0.0, "ci_low": -u, "ci_high": u, "n": n, "method": NO_UNIT_DIFFERS}
    if a.kind in ("share", "mean", "rate"):
        df, method = n - 1, "paired t"
    else:
        df, method = INF, "paired delta"
    half = half_width(sd, n, df, level)
    return {"estimate": est, "ci_low": est - half, "ci_high": est + half, "n": n, "method": method}


# ---- playing one ruleset ------------------------------------------------------------

@dataclass
class CellData:
    """Everything measured on one ruleset: the samples, keyed by (metric, opponent)."""

    rules: object
    policy: str
    seed: int
    samples: dict = field(default_factory=dict)
    seconds: float = 0.0
    rounds: int = 0

    def add(self, s: Sample):
        self.samples[s.key] = s

    def table(self) -> pd.DataFrame:
        r = self.rules
        rows = []
        for (metric, opp), s in self.samples.items():
            est, lo, hi, n, method = estimate(s)
            rows.append({"group": METRICS[metric][0], "metric": metric, "estimate": est, "ci_low": lo,
                         "ci_high": hi, "n": n,
                         "unit": "matches led after round 1" if metric == "leader_loses_match"
                         else ("opened expeditions" if metric == "bonus_rate" else METRICS[metric][1]),
                         "method": method, "policy": self.policy, "opponent": opp, "rules": r.describe(),
                         "preset": r.preset, "players": r.players, "seed": self.seed})
        return pd.DataFrame(rows, columns=COLUMNS)


def _blocks(n: int, players: int):
    """(start, count, first) of the three self-play blocks (see the module doc)."""
    m = -(-n // 3)
    out = []
    for r in range(3):
        count = max(0, min(m, n - r * m))
        if count:
            out.append((r * m, count, r % players))
    return out, m


def self_play(r, policy, rounds: int, seed: int, threads=None):
    """Play `rounds` self-play rounds in the match layout; returns (index, round_info, seats, side_suits, M)."""
    from lostcards.run.runner import play
    blocks, m = _blocks(rounds, r.players)
    parts = [play(r, policy, policy, rounds=c, seed=seed, start=s, first=f, threads=threads)
             for s, c, f in blocks]
    idx = np.concatenate([np.arange(s, s + c, dtype=np.int64) for s, c, _ in blocks])
    ri = np.concatenate([p.round_info for p in parts])
    seats = np.concatenate([p.seats for p in parts])
    sides = np.concatenate([p.side_suits for p in parts])
    return idx, ri, seats, sides, m


def _round_samples(cell: CellData, idx, ri, seats, side_suits, m: int):
    r = cell.rules
    f64 = lambda a: np.asarray(a, np.float64)  # noqa: E731
    add = cell.add
    add(Sample("turns_per_round", "mean", idx, f64(ri[:, 1])))
    add(Sample("plays_per_seat", "mean", idx, f64(seats[:, :, 0]).mean(axis=1)))
    ended = ri[:, 2]
    names = (Ending.DECK, Ending.STALL, Ending.CAPPED) if r.players > 1 else (Ending.HAND_EMPTY,)
    for name in names:
        add(Sample(f"ended_by_{name.replace('-', '_')}", "share", idx, f64(ended == Ending(name).code)))
    if r.players > 1:
        add(Sample("ended_by_stall_or_cap", "share", idx,
                   f64((ended == Ending("stall").code) | (ended == Ending("capped").code))))
    ns = r.sides
    sc = f64(ri[:, 3:3 + ns])
    if r.players > 1:
        fs = ri[:, 0] % 2
        mine = np.where(fs == 0, sc[:, 0], sc[:, 1])
        other = np.where(fs == 0, sc[:, 1], sc[:, 0])
        add(Sample("first_player_win_rate", "rate", idx, (np.sign(mine - other) + 1) / 2))
        add(Sample("first_player_margin", "mean", idx, mine - other))
        add(Sample("drawn_rounds", "share", idx, f64(sc[:, 0] == sc[:, 1])))
    add(Sample("score_mean", "mean", idx, sc.mean(axis=1)))
    add(Sample("score_sd", "sd", idx, sc))
    add(Sample("negative_rounds", "mean" if ns > 1 else "share", idx, f64(sc < 0).mean(axis=1)))
    cards = f64(side_suits[:, :, :, 0])
    opened = (cards > 0).sum(axis=2)                       # [n, sides]
    bonus = ((cards >= r.bonus_cards) & (cards > 0)).sum(axis=2)
    add(Sample("expeditions_opened", "mean", idx, f64(opened).mean(axis=1)))
    add(Sample("bonus_rate", "ratio", idx, f64(bonus.sum(axis=1)), den=f64(opened.sum(axis=1))))
    add(Sample("investments_laid", "mean", idx, f64(side_suits[:, :, :, 1]).sum(axis=2).mean(axis=1)))
    if r.players > 1:
        add(Sample("discards_per_round", "mean", idx, f64(seats[:, :, 1]).sum(axis=1)))
        add(Sample("pile_draws_per_round", "mean", idx, f64(seats[:, :, 3]).sum(axis=1)))
    else:
        add(Sample("discards_per_round", "mean", idx, f64(seats[:, :, 1]).sum(axis=1)))
    if r.players == 4:
        add(Sample("passes_per_round", "mean", idx, f64(seats[:, :, 4]).sum(axis=1)))
    # matches: m-th match = rounds m, M + m, 2M + m
    if r.players > 1:
        pos = {int(i): k for k, i in enumerate(idx)}
        mids = np.array([j for j in range(m) if all((j + t * m) in pos for t in range(3))], np.int64)
        if mids.size:
            rows = np.array([[pos[int(j + t * m)] for t in range(3)] for j in mids])
            s1 = sc[rows[:, 0]]
            tot = sc[rows].sum(axis=1)
            add(Sample("match_first_seat_win_rate", "rate", mids, (np.sign(tot[:, 0] - tot[:, 1]) + 1) / 2))
            add(Sample("drawn_matches", "share", mids, f64(tot[:, 0] == tot[:, 1])))
            led = s1[:, 0] != s1[:, 1]
            leader = np.where(s1[:, 0] > s1[:, 1], 0, 1)
            lead_tot = np.where(leader == 0, tot[:, 0], tot[:, 1])
            trail_tot = np.where(leader == 0, tot[:, 1], tot[:, 0])
            add(Sample("leader_loses_match", "cond", mids, f64(lead_tot < trail_tot), mask=led))


def _skill_samples(cell: CellData, opponent: str, rounds: int, threads=None):
    from lostcards.analysis.tournament import play_pair
    from lostcards.run.runner import play
    r = cell.rules
    if r.players == 1:
        a = play(r, cell.policy, None, rounds=rounds, seed=cell.seed, threads=threads).round_info[:, 3]
        b = play(r, opponent, None, rounds=rounds, seed=cell.seed, threads=threads).round_info[:, 3]
        idx = np.arange(rounds, dtype=np.int64)
        d = (a - b).astype(np.float64)
        cell.add(Sample("win_rate", "rate", idx, (np.sign(d) + 1) / 2, opponent=opponent))
        cell.add(Sample("margin", "mean", idx, d, opponent=opponent))
        return
    deals = play_pair(r, cell.policy, opponent, rounds=rounds, seed=cell.seed, threads=threads)
    idx = deals["deal"].to_numpy(np.int64)
    cell.add(Sample("win_rate", "rate", idx, deals["win_points"].to_numpy(np.float64) / 2, opponent=opponent))
    cell.add(Sample("margin", "mean", idx, deals["margin"].to_numpy(np.float64), opponent=opponent))


def policy_spec(p) -> str:
    from lostcards.policies import resolve
    return resolve(p).spec


def measure(rules, policy: str = "expert", opponents=("greedy", "random"), rounds: int = 20_000,
            seed: int = 0, skill_rounds: int | None = None, threads=None) -> CellData:
    """Play one ruleset and keep every per-unit sample (for ``CellData.table`` and ``paired_diff``).

    rounds: self-play rounds (policy against itself); skill_rounds: duplicate
    deals per opponent (default: rounds).  An opponent equal to the policy is skipped.
    """
    from lostcards.rules.ruleset import Ruleset
    from lostcards.rules.ruleset import rules as make_rules
    r = rules if isinstance(rules, Ruleset) else make_rules(rules)
    pol = policy_spec(policy)
    cell = CellData(r, pol, int(seed))
    t0 = time.time()
    if rounds:
        idx, ri, seats, sides, m = self_play(r, pol, int(rounds), int(seed), threads)
        _round_samples(cell, idx, ri, seats, sides, m)
    cell.rounds = int(rounds)
    k = int(rounds if skill_rounds is None else skill_rounds)
    for opp in opponents or ():
        o = policy_spec(opp)
        if o != pol and k:
            _skill_samples(cell, o, k, threads)
    cell.seconds = time.time() - t0
    return cell


def metrics(rules="expeditions", policy: str = "expert", opponents=("greedy", "random"),
            rounds: int = 20_000, seed: int = 0, skill_rounds: int | None = None,
            threads=None) -> pd.DataFrame:
    """The game metrics of one ruleset as a tidy DataFrame (see the module doc for the columns)."""
    return measure(rules, policy, opponents, rounds, seed, skill_rounds, threads).table()


def diff_table(a: CellData, b: CellData) -> pd.DataFrame:
    """Paired differences a - b for every metric both cells measured (tidy rows)."""
    rows = []
    for key, sa in a.samples.items():
        sb = b.samples.get(key)
        if sb is None:
            continue
        if a is b:
            est = influence(sa)[0]
            d = {"estimate": 0.0 if not math.isnan(est) else est, "ci_low": 0.0, "ci_high": 0.0,
                 "n": sa.index.size, "method": "baseline itself"}
        else:
            d = paired_diff(sa, sb)
        rows.append({"group": METRICS[key[0]][0], "metric": key[0], "opponent": key[1], **d})
    return pd.DataFrame(rows, columns=["group", "metric", "opponent", "estimate", "ci_low", "ci_high",
                                       "n", "method"])


def same_deals(a, b) -> bool:
    """Whether two rulesets get the same shuffles for the same seed and round (same deck, same seats)."""
    from lostcards.rules.cards import deck_codes
    return a.players == b.players and deck_codes(a) == deck_codes(b)
