"""The skill trace: search at doubling budgets against a fixed opponent on duplicate deals (does skill keep paying?)."""
from __future__ import annotations

import time

import numpy as np
import pandas as pd

from lostcards.analysis.metrics import Sample, paired_diff
from lostcards.stats import mean_ci


def skill_trace(rules="expeditions", budgets=(250, 500, 1000, 2000, 4000), deals: int = 200, seed: int = 0,
                search: str = "search", param: str = "iterations", against: str = "expert",
                threads=None, chunk: int = 20, progress=None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Search at doubling budgets against `against` on the same duplicate deals.

    Returns (levels, steps): levels has one row per budget (margin and win rate
    against `against`, each with a 95% interval, n deals, seconds per deal);
    steps has the paired difference in margin from each budget to the next (does
    doubling the budget still pay?).
    """
    from lostcards.analysis.tournament import play_pair
    from lostcards.rules.ruleset import Ruleset
    from lostcards.rules.ruleset import rules as make_rules
    r = rules if isinstance(rules, Ruleset) else make_rules(rules)
    levels, margins = [], {}
    for b in budgets:
        spec = f"{search}:{param}={b}"
        t0 = time.time()
        parts = []
        for s in range(0, deals, chunk):
            parts.append(play_pair(r, spec, against, rounds=min(chunk, deals - s), seed=seed, start=s,
                                   threads=threads))
            if progress:
                progress(f"skill trace {spec} vs {against}: {min(deals, s + chunk)}/{deals} deals, "
                         f"{time.time() - t0:.0f} s")
        d = pd.concat(parts, ignore_index=True)
        secs = time.time() - t0
        x = d["margin"].to_numpy(np.float64)
        w = d["win_points"].to_numpy(np.float64) / 2
        margins[b] = Sample("margin", "mean", d["deal"].to_numpy(np.int64), x, opponent=against)
        em, ew = mean_ci(x), mean_ci(w)
        ew = type(ew)(ew.estimate, max(0.0, ew.ci_low), min(1.0, ew.ci_high), ew.n)
        levels.append({"budget": b, "policy": spec, "opponent": against, "rules": r.describe(),
                       "players": r.players, "margin": em.estimate, "margin_ci_low": em.ci_low,
                       "margin_ci_high": em.ci_high, "win_rate": ew.estimate, "win_rate_ci_low": ew.ci_low,
                       "win_rate_ci_high": ew.ci_high, "n": em.n, "unit": "deals (2 games each)",
                       "seconds_per_deal": secs / max(1, deals), "seed": seed})
    steps = []
    for lo, hi in zip(budgets[:-1], budgets[1:]):
        d = paired_diff(margins[hi], margins[lo])
        steps.append({"from_budget": lo, "to_budget": hi, "gain": d["estimate"], "ci_low": d["ci_low"],
                      "ci_high": d["ci_high"], "n": d["n"], "method": d["method"]})
    return pd.DataFrame(levels), pd.DataFrame(steps)
