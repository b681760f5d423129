"""Estimates with intervals: the one estimator module of the package (the ground floor: it imports
nothing of lostcards, so every layer may use it).

Every estimate carries its interval, its sample size and, where its data come
in clusters (the turns or seats of one round, the two games of a duplicate
deal), the number of clusters.  An estimate also keeps what it needs to be
re-stated at another confidence level (``Estimate.at``): the claims report
widens the intervals that decide its verdicts to a simultaneous level
(Bonferroni) once it knows how many there are.

- ``half_width``: the one interval formula (q x sd / sqrt(n), t or normal);
  ``duplicate_margins``: the one paired margin of duplicate deals.
- ``mean_ci``: mean, t interval; ``share_ci``: proportion, Wilson interval.
- ``cluster_mean``, ``cluster_ratio``, ``cluster_diff``: means, pooled ratios
  and differences of means of events that come in clusters (linearised
  variance with the G/(G-1) correction, t on G-1 degrees of freedom).
- ``ols_clustered``: a least-squares line with cluster-robust standard errors.
- ``quantiles``: percentiles of clustered data, with a cluster bootstrap
  interval (descriptive only: it cannot be re-stated at another level).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np
from scipy import stats as _st

NAN = float("nan")
INF = float("inf")


def _quantile(level: float, df: float) -> float:
    """The two-sided critical value of a t (or, for df = inf, normal) interval."""
    p = 0.5 + level / 2
    return float(_st.norm.ppf(p) if not np.isfinite(df) else _st.t.ppf(p, df))


Z95 = _quantile(0.95, INF)        # 1.959963984540054: the normal 95% critical value


def half_width(spread: float, n: int = 1, df: float = INF, level: float = 0.95) -> float:
    """Half the two-sided interval at `level`: q x spread / sqrt(n), q from t on `df` degrees of
    freedom (the normal when df is infinite); `spread` is the standard deviation of n values, or
    a standard error already (n = 1)."""
    return _quantile(level, df) * spread / math.sqrt(n)


def duplicate_margins(a1, b1, a2, b2):
    """A's margin over B on each duplicate deal, both seatings averaged: (a1 - b1 + a2 - b2) / 2
    (a1, b1: the scores of game 1, A on side A; a2, b2: game 2, the seats swapped)."""
    return (a1 - b1 + a2 - b2) / 2.0


@dataclass(frozen=True)
class Estimate:
    """A mean, share or coefficient with its interval at `level`, its sample size and clusters.

    ``method`` says how the interval is built, so that ``at`` can build it again at
    another level: "t" (estimate +/- q x se, q from t on `df` degrees of freedom,
    normal when df is infinite, clipped to `bounds`), "wilson" (a share of n
    independent trials) or "fixed" (a bootstrap: only its own level).
    """

    estimate: float
    ci_low: float
    ci_high: float
    n: int
    clusters: int = 0
    se: float = NAN
    df: float = INF
    level: float = 0.95
    method: str = "t"
    bounds: tuple = (-INF, INF)

    @property
    def half(self) -> float:
        return (self.ci_high - self.ci_low) / 2

    def at(self, level: float) -> "Estimate":
        """The same estimate with its interval at another confidence level."""
        if level == self.level:
            return self
        if self.method == "wilson":
            return replace(share_ci(self.estimate * self.n, self.n, level), clusters=self.clusters)
        if self.method == "fixed":
            raise ValueError("a bootstrap interval cannot be re-stated at another level")
        if not np.isfinite(self.se):
            return replace(self, level=level)
        h = half_width(self.se, 1, self.df, level)
        lo, hi = self.bounds
        return replace(self, ci_low=max(self.estimate - h, lo), ci_high=min(self.estimate + h, hi), level=level)

    def __str__(self) -> str:
        return f"{self.estimate:.3f} ± {self.half:.3f} (n={self.n})"


def _empty(n: int = 0, clusters: int = 0) -> Estimate:
    return Estimate(NAN, NAN, NAN, n, clusters)


def t_estimate(m: float, se: float, df: float, n: int, clusters: int, level: float,
                bounds=(-INF, INF)) -> Estimate:
    if not np.isfinite(se) or df < 1:
        return Estimate(m, NAN, NAN, n, clusters, se, df, level, "t", bounds)
    h = half_width(se, 1, df, level)
    return Estimate(m, max(m - h, bounds[0]), min(m + h, bounds[1]), n, clusters, se, df, level, "t", bounds)


def mean_ci(x, level: float = 0.95) -> Estimate:
    """Mean of independent values with a t interval."""
    x = np.asarray(x, dtype=float)
    n = x.size
    if n == 0:
        return _empty()
    m = float(x.mean())
    se = float(x.std(ddof=1)) / math.sqrt(n) if n > 1 else NAN
    return t_estimate(m, se, n - 1, n, 0, level)


def share_ci(successes, n: int, level: float = 0.95) -> Estimate:
    """A proportion of n independent trials with its Wilson score interval."""
    n = int(n)
    if n == 0:
        return _empty()
    p = float(successes) / n
    z = _quantile(level, INF)
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return Estimate(p, c - h, c + h, n, 0, math.sqrt(p * (1 - p) / n), INF, level, "wilson", (0.0, 1.0))


def _clusters(groups):
    _, inv = np.unique(np.asarray(groups), return_inverse=True)
    return inv.ravel(), (int(inv.max()) + 1 if inv.size else 0)


def cluster_mean(y, groups, level: float = 0.95) -> Estimate:
    """Mean of per-event values whose events come in clusters (a ratio estimator; linearised
    variance with the G/(G-1) correction, t on G-1 degrees of freedom).  A share (values 0
    and 1 only) keeps its interval within [0, 1]."""
    y = np.asarray(y, float)
    n = y.size
    if n == 0:
        return _empty()
    inv, G = _clusters(groups)
    m = float(y.mean())
    bounds = (0.0, 1.0) if np.isin(y, (0.0, 1.0)).all() else (-INF, INF)
    if G < 2:
        return Estimate(m, NAN, NAN, n, G, bounds=bounds)
    tot = np.bincount(inv, weights=y, minlength=G)
    cnt = np.bincount(inv, minlength=G).astype(float)
    u = (tot - m * cnt) / n
    se = math.sqrt(G / (G - 1) * float((u * u).sum()))
    return t_estimate(m, se, G - 1, n, G, level, bounds)


def cluster_ratio(num, den, groups, level: float = 0.95) -> Estimate:
    """Sum of num over sum of den (a pooled share or rate), clustered (linearised variance)."""
    num = np.asarray(num, float)
    den = np.asarray(den, float)
    if num.size == 0 or den.sum() == 0:
        return _empty(int(num.size))
    inv, G = _clusters(groups)
    N = np.bincount(inv, weights=num, minlength=G)
    D = np.bincount(inv, weights=den, minlength=G)
    r = float(N.sum() / D.sum())
    if G < 2:
        return Estimate(r, NAN, NAN, int(num.size), G)
    u = (N - r * D) / D.sum()
    se = math.sqrt(G / (G - 1) * float((u * u).sum()))
    return t_estimate(r, se, G - 1, int(num.size), G, level)


def cluster_diff(y1, g1, y2, g2, level: float = 0.95) -> Estimate:
    """Mean of group 1 minus mean of group 2, events of both from the same clusters."""
    y1, y2 = np.asarray(y1, float), np.asarray(y2, float)
    n1, n2 = y1.size, y2.size
    if n1 == 0 or n2 == 0:
        return _empty()
    inv, G = _clusters(np.concatenate([np.asarray(g1), np.asarray(g2)]))
    i1, i2 = inv[:n1], inv[n1:]
    m1, m2 = float(y1.mean()), float(y2.mean())
    d = m1 - m2
    if G < 2:
        return Estimate(d, NAN, NAN, n1 + n2, G)
    u = (np.bincount(i1, weights=y1 - m1, minlength=G) / n1
         - np.bincount(i2, weights=y2 - m2, minlength=G) / n2)
    se = math.sqrt(G / (G - 1) * float((u * u).sum()))
    return t_estimate(d, se, G - 1, n1 + n2, G, level)


@dataclass(frozen=True)
class Fit:
    """y = intercept + slope x, each coefficient an Estimate."""

    intercept: Estimate
    slope: Estimate
    n: int
    residual_sd: float


def ols_clustered(x, y, groups, level: float = 0.95) -> Fit:
    """y = a + b x by least squares, with cluster-robust (sandwich) standard errors."""
    x = np.asarray(x, float)
    y = np.asarray(y, float)
    n = x.size
    if n < 3:
        return Fit(_empty(n), _empty(n), n, NAN)
    X = np.column_stack([np.ones_like(x), x])
    XtX_inv = np.linalg.pinv(X.T @ X)
    beta = XtX_inv @ (X.T @ y)
    e = y - X @ beta
    inv, G = _clusters(groups)
    if G < 2:
        return Fit(_empty(n, G), _empty(n, G), n, NAN)
    s = np.zeros((G, 2))
    np.add.at(s, inv, X * e[:, None])
    c = G / (G - 1) * (n - 1) / (n - 2)
    V = c * XtX_inv @ (s.T @ s) @ XtX_inv
    ests = [t_estimate(float(beta[j]), math.sqrt(max(V[j, j], 0.0)), G - 1, n, G, level) for j in range(2)]
    return Fit(ests[0], ests[1], n, float(e.std(ddof=2)))


def quantiles(x, qs=(0.1, 0.5, 0.9), groups=None, boot: int = 100, seed: int = 0,
              level: float = 0.95) -> list:
    """Quantiles (each 0..1) of x, each with a bootstrap interval that resamples whole clusters
    (rounds) by Poisson weights; descriptive: the intervals stay at their own level."""
    x = np.asarray(x, float)
    n = x.size
    if n == 0:
        return [_empty() for _ in qs]
    ests = [float(np.quantile(x, q)) for q in qs]
    inv, G = _clusters(np.arange(n) if groups is None else groups)
    if G < 2:
        return [Estimate(e, NAN, NAN, n, G, method="fixed", level=level) for e in ests]
    order = np.argsort(x, kind="stable")
    xs, cl = x[order], inv[order]
    rng = np.random.default_rng(seed)
    reps = np.empty((boot, len(qs)))
    for b in range(boot):
        w = rng.poisson(1.0, G).astype(float)[cl]
        c = np.cumsum(w)
        reps[b] = xs[np.minimum(np.searchsorted(c, np.asarray(qs) * c[-1]), n - 1)]
    a = (1 - level) / 2
    lo, hi = np.quantile(reps, [a, 1 - a], axis=0)
    return [Estimate(e, min(float(lo[j]), e), max(float(hi[j]), e), n, G, level=level, method="fixed")
            for j, e in enumerate(ests)]
