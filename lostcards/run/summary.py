"""The one-screen summary of a batch: turns, endings, scores and margins with 95% intervals, per-seat means."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from lostcards.errors import BatchError
from lostcards.run.load import iter_shards, read_manifest
from lostcards.stats import Estimate, half_width, share_ci

_SEAT_STATS = ["plays", "discards", "deck_draws", "pile_draws", "passes"]


class _Moments:
    """Exact count, sum and sum of squares of integers, fed chunk by chunk."""

    def __init__(self):
        self.n = self.s = self.ss = 0

    def add(self, x):
        x = np.asarray(x, dtype=np.int64)
        self.n += int(x.size)
        self.s += int(x.sum())
        self.ss += int((x * x).sum())

    def estimate(self, level: float = 0.95) -> Estimate:
        n = self.n
        if n == 0:
            return Estimate(float("nan"), float("nan"), float("nan"), 0)
        m = self.s / n
        if n < 2:
            return Estimate(m, float("nan"), float("nan"), n)
        var = (self.ss - self.s * self.s / n) / (n - 1)
        se = float(np.sqrt(max(var, 0.0))) / np.sqrt(n)
        h = half_width(se, 1, n - 1, level)
        return Estimate(m, m - h, m + h, n)


class _Summary:
    def __init__(self):
        self.n = 0
        self.turns, self.a, self.b, self.margin = _Moments(), _Moments(), _Moments(), _Moments()
        self.two_sided = True
        self.ended: dict = {}
        self.wins = self.draws = 0
        self.pol = None
        self.seat_sum = None
        self.seat_n = None

    def add_rounds(self, r: pd.DataFrame):
        if not len(r):
            return
        self.n += len(r)
        if self.pol is None:
            self.pol = (str(r["policy_a"].iloc[0]), str(r["policy_b"].iloc[0]))
        self.turns.add(r["turns"])
        self.a.add(r["score_a"])
        for k, v in r["ended_by"].value_counts(sort=False).items():
            self.ended[k] = self.ended.get(k, 0) + int(v)
        sb = r["score_b"]
        if self.two_sided and sb.notna().all():
            sb = sb.to_numpy(dtype=np.int64)
            m = r["score_a"].to_numpy(np.int64) - sb
            self.b.add(sb)
            self.margin.add(m)
            self.wins += int((m > 0).sum())
            self.draws += int((m == 0).sum())
        else:
            self.two_sided = False

    def add_seats(self, s: pd.DataFrame):
        if not len(s):
            return
        g = s.groupby("seat", observed=True)[_SEAT_STATS]
        sums, counts = g.sum(), g.size()
        self.seat_sum = sums if self.seat_sum is None else self.seat_sum.add(sums, fill_value=0)
        self.seat_n = counts if self.seat_n is None else self.seat_n.add(counts, fill_value=0)

    def text(self, manifest: dict | None) -> str:
        lines = []
        if manifest:
            b = manifest.get("batch", {})
            lines.append(f"batch: {manifest.get('ruleset')}, {b.get('players')} players, "
                         f"{' vs '.join(manifest.get('policies', []))}, seed {b.get('seed')}")
            if "shards" in manifest and not manifest.get("complete", len(manifest.get("shards_done", []))
                                                      == manifest["shards"]):
                lines.append(f"partial: {len(manifest.get('shards_done', []))} of {manifest['shards']} shards "
                             f"({self.n:,} of {b.get('rounds', 0):,} rounds); run the same command to finish")
        n = self.n
        if n == 0:
            return "\n".join(lines + ["no rounds played yet"])
        lines.append(f"rounds: {n:,}   (x ± h: a mean and its 95% interval, x - h to x + h; n: rounds)")
        lines.append(f"turns per round: {self.turns.estimate()}")
        ended = ", ".join(f"{k} {share_ci(v, n).estimate:.2%}"
                          for k, v in sorted(self.ended.items(), key=lambda kv: -kv[1]) if v)
        lines.append(f"ended by: {ended}")
        lines.append(f"score, side A ({self.pol[0]}): {self.a.estimate()}")
        if self.two_sided:
            lines.append(f"score, side B ({self.pol[1]}): {self.b.estimate()}")
            lines.append(f"margin A - B: {self.margin.estimate()}; A wins {share_ci(self.wins, n).estimate:.1%}, "
                         f"draws {share_ci(self.draws, n).estimate:.1%}")
        if self.seat_sum is not None:
            per_seat = self.seat_sum.div(self.seat_n, axis=0)
            lines.append("per seat (means):  " + "  ".join(f"{c:>10}" for c in per_seat.columns))
            for seat, row in per_seat.iterrows():
                lines.append(f"  seat {seat}:          " + "  ".join(f"{v:10.2f}" for v in row))
        if manifest and manifest.get("seconds"):
            lines.append(f"time: {manifest['seconds']:.1f} s ({n / max(manifest['seconds'], 1e-9):,.0f} rounds/s)")
        return "\n".join(lines)


_ROUND_COLS = ["policy_a", "policy_b", "turns", "ended_by", "score_a", "score_b"]


def summary(tabs: dict[str, pd.DataFrame], manifest: dict | None = None) -> str:
    """The one-screen summary of a batch's tables (DataFrames, as ``load`` returns)."""
    if not isinstance(tabs, dict) or not all(isinstance(tabs.get(t), pd.DataFrame) for t in ("rounds", "seats")):
        raise BatchError(f"tabs = {tabs!r:.40} is not allowed: the tables of a batch as lostcards.load returns "
                         "them (a dict with 'rounds' and 'seats' DataFrames)")
    for t, cols in (("rounds", _ROUND_COLS), ("seats", ["seat", *_SEAT_STATS])):
        missing = [c for c in cols if c not in tabs[t].columns]
        if missing:
            raise BatchError(f"tabs[{t!r}] has no column {missing[0]!r}: the {t} table of a batch as lostcards.load "
                             f"returns it (columns {', '.join(cols)})")
        numeric = ["turns", "score_a"] if t == "rounds" else cols        # score_b is empty in solitaire
        if not all(pd.api.types.is_numeric_dtype(tabs[t][c]) for c in numeric) \
                or not np.isfinite(tabs[t][numeric].to_numpy(dtype=float)).all():
            raise BatchError(f"tabs[{t!r}] holds a value that is not a finite number in {', '.join(numeric)}")
    if manifest is not None and not _manifest_shape(manifest):
        raise BatchError(f"manifest = {repr(manifest)[:40]} is not allowed: a batch's manifest as manifest.json "
                         "holds it, or None")
    acc = _Summary()
    acc.add_rounds(tabs["rounds"])
    acc.add_seats(tabs["seats"])
    return acc.text(manifest)


def _manifest_shape(m) -> bool:
    """Whether `m` has the shape of the fields the summary prints (the types manifest.json gives them)."""
    def number(v):
        return isinstance(v, (int, float)) and not isinstance(v, bool)
    return (isinstance(m, dict) and isinstance(m.get("batch", {}), dict)
            and isinstance(m.get("policies", []), list) and all(isinstance(p, str) for p in m.get("policies", []))
            and number(m.get("seconds", 0)) and isinstance(m.get("shards", 0), int)
            and isinstance(m.get("shards_done", []), list))


def summarize(out) -> str:
    """The one-screen summary of a finished or partial batch directory, read shard by shard."""
    out = Path(out)
    manifest = read_manifest(out)
    acc = _Summary()
    for df in iter_shards(out, "rounds", _ROUND_COLS, manifest):
        acc.add_rounds(df)
    for df in iter_shards(out, "seats", ["seat", *_SEAT_STATS], manifest):
        acc.add_seats(df)
    if isinstance(manifest.get("rounds_done"), int) and manifest["rounds_done"] != acc.n:
        raise BatchError(f"{out}/manifest.json says {manifest['rounds_done']:,} rounds done, its finished shards "
                         f"hold {acc.n:,}: it was edited or damaged")
    return acc.text(manifest)
