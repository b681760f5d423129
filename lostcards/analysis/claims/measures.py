"""Shared measurement helpers for the experiments: a few lines each, the same estimator every time.

Per unit (seat, or team in a team table) means and percentiles of a tidy
table's column, pooled shares, clustered shares of events, least-squares
fits, and the declarations that go with them (percentile rows, switch sweeps).
"""
from __future__ import annotations

import math

import numpy as np

from lostcards.analysis.claims.declare import Measure
from lostcards.analysis.claims.verdict import described
from lostcards.stats import Estimate, cluster_mean, cluster_ratio, ols_clustered, quantiles, t_estimate

PERCENTILES = (("p10", 0.1, "10th percentile"), ("median", 0.5, "median"), ("p90", 0.9, "90th percentile"))


def unit_mean(s, table: str, col: str):
    """Mean of a column per seat (or per team), clustered by round."""
    u = s.units(s.table(table), [col])
    return cluster_mean(u[col].to_numpy(float), u.cluster.to_numpy())


def unit_ratio(s, table: str, num: str, den: str):
    """Sum of one column over the sum of another, per seat or team, clustered by round."""
    u = s.units(s.table(table), [num, den])
    return cluster_ratio(u[num].to_numpy(float), u[den].to_numpy(float), u.cluster.to_numpy())


def unit_percentiles(s, table: str, col: str, name: str) -> dict:
    """{name_p10, name_median, name_p90}: percentiles of a column per seat (or team)."""
    u = s.units(s.table(table), [col])
    return percentiles(u[col].to_numpy(float), u.cluster.to_numpy(), name)


def percentiles(x, clusters, name: str) -> dict:
    es = quantiles(x, [q for _, q, _ in PERCENTILES], clusters)
    return {f"{name}_{k}": e for (k, _, _), e in zip(PERCENTILES, es)}


def distribution(name: str, label: str, unit: str = "", tables=(), bots=None) -> tuple:
    """Context declarations for the percentiles ``percentiles`` returns."""
    return tuple(Measure(f"{name}_{k}", f"{label}: {words}", described("a description (percentile)"), unit,
                         decides=False, context=tuple(tables), bots=bots, tables=())
                 for k, _, words in PERCENTILES)


def event_share(df, mask) -> object:
    """Share of events (rows) for which mask holds, clustered by round."""
    return cluster_mean(np.asarray(mask, float), df.cluster.to_numpy())


def event_mean(df, col: str):
    return cluster_mean(df[col].to_numpy(float), df.cluster.to_numpy())


def fit(df, x: str, y: str, name: str) -> dict:
    """{name_intercept, name_slope}: y = a + b x by least squares, clustered by round."""
    f = ols_clustered(df[x].to_numpy(float), df[y].to_numpy(float), df.cluster.to_numpy())
    return {f"{name}_intercept": f.intercept, f"{name}_slope": f.slope}


def sweep(name: str, label: str, switch: str, values, tables=("2p",), prescribed: bool = True) -> tuple:
    """Context declarations of paired comparisons over a switch's values (e.g. open_hand=5..25);
    `label` is a format string of the value, e.g. "open only with {v}+ in hand, against expert"."""
    out = []
    for v in values:
        sw = f"{switch}={v:g}"
        pair = (sw, "") if prescribed else ("", sw)
        out.append(Measure(f"{name}_{v:g}", label.format(v=f"{v:g}"), described("a description (the curve)"),
                           "points a round", decides=False, tables=(), context=tuple(tables), bots=("expert",),
                           pair=pair))
    return tuple(out)


def rms(y, groups) -> Estimate:
    """The root of the mean of y (y: unbiased values of a square, e.g. split-half products of a stake), with
    the interval of the mean taken to the root (clipped at 0); clustered, descriptive."""
    m = cluster_mean(y, groups)
    root = lambda v: math.sqrt(max(v, 0.0)) if math.isfinite(v) else math.nan    # noqa: E731
    return Estimate(root(m.estimate), root(m.ci_low), root(m.ci_high), m.n, m.clusters, method="fixed")


def rms_difference(y, first, groups) -> Estimate:
    """sqrt(mean y | first) - sqrt(mean y | not first): the difference of two root-mean-squares over the same
    clusters (rounds), its variance linearised per cluster (the delta method, G/(G-1), t on G-1 df), so that
    its interval can be restated at any level."""
    y, first = np.asarray(y, float), np.asarray(first, bool)
    inv = np.unique(np.asarray(groups), return_inverse=True)[1].ravel()
    G = int(inv.max()) + 1 if inv.size else 0
    parts = []
    for mask in (first, ~first):
        n = int(mask.sum())
        if n == 0:
            return Estimate(math.nan, math.nan, math.nan, int(y.size), G)
        m = float(y[mask].mean())
        tot = np.bincount(inv[mask], weights=y[mask], minlength=G)
        cnt = np.bincount(inv[mask], minlength=G).astype(float)
        parts.append((m, (tot - m * cnt) / n))
    (m1, u1), (m2, u2) = parts
    if m1 <= 0 or m2 <= 0 or G < 2:
        return Estimate(math.sqrt(max(m1, 0)) - math.sqrt(max(m2, 0)), math.nan, math.nan, int(y.size), G)
    u = u1 / (2 * math.sqrt(m1)) - u2 / (2 * math.sqrt(m2))
    se = math.sqrt(G / (G - 1) * float((u * u).sum()))
    return t_estimate(math.sqrt(m1) - math.sqrt(m2), se, G - 1, int(y.size), G, 0.95)
