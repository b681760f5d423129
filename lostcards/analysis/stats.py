"""Estimates with 95% confidence intervals (analysis helpers)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats as _st


@dataclass(frozen=True)
class Estimate:
    """A mean (or share) with its 95% interval and sample size."""

    estimate: float
    ci_low: float
    ci_high: float
    n: int

    def __str__(self) -> str:
        half = (self.ci_high - self.ci_low) / 2
        return f"{self.estimate:.3f} ± {half:.3f} (n={self.n})"


def mean_ci(x, level: float = 0.95) -> Estimate:
    """Mean with a t interval (normal for large n)."""
    x = np.asarray(x, dtype=float)
    n = x.size
    if n == 0:
        return Estimate(float("nan"), float("nan"), float("nan"), 0)
    m = float(x.mean())
    if n < 2:
        return Estimate(m, float("nan"), float("nan"), n)
    se = float(x.std(ddof=1)) / np.sqrt(n)
    q = _st.t.ppf(0.5 + level / 2, n - 1)
    return Estimate(m, m - q * se, m + q * se, n)


def share_ci(successes, n: int, level: float = 0.95) -> Estimate:
    """A proportion with its Wilson score interval."""
    n = int(n)
    if n == 0:
        return Estimate(float("nan"), float("nan"), float("nan"), 0)
    p = float(successes) / n
    z = _st.norm.ppf(0.5 + level / 2)
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return Estimate(p, c - h, c + h, n)
