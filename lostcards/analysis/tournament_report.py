"""A tournament's output: the figure, the text report and the files (CSV tables and the manifest)."""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd

from lostcards.run.batchdir import write_manifest


def figure(tabs: dict, path, title: str):
    """Two panels: the mean margin per pair with its 95% interval, and the ratings with theirs."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    pairs, ratings = tabs["pairs"], tabs["ratings"]
    solo = ratings["method"].iloc[0].startswith("solitaire")
    h = max(3.0, 0.45 * max(len(pairs), len(ratings)) + 1.6)
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(13, h))
    if len(pairs):
        y = np.arange(len(pairs))[::-1]
        m = pairs["margin"].to_numpy()
        err = np.vstack([m - pairs["ci_low"].to_numpy(), pairs["ci_high"].to_numpy() - m])
        ax1.errorbar(m, y, xerr=err, fmt="o", color="tab:blue", capsize=4, label="95% interval")
        ax1.set_yticks(y, [f"{a} vs {b}" for a, b in zip(pairs["policy_a"], pairs["policy_b"])])
        ax1.axvline(0, color="grey", lw=1, ls="--")
        ax1.legend(loc="best", fontsize=8)
    ax1.set_xlabel("mean margin A − B (points per round)")
    ax1.set_title("Paired difference on the same deals" if solo else "Duplicate-deal margin per pair")
    y = np.arange(len(ratings))[::-1]
    m = ratings["rating"].to_numpy()
    lo, hi = ratings["ci_low"].to_numpy(), ratings["ci_high"].to_numpy()
    err = np.vstack([m - lo, hi - m])
    ax2.errorbar(m, y, xerr=None if np.isnan(err).all() else err, fmt="s", color="tab:red", capsize=4)
    ax2.set_yticks(y, list(ratings["policy"]))
    if solo:
        ax2.set_xlabel("mean points per round (95% t interval)")
        ax2.set_title("Solitaire ranking")
    else:
        ax2.axvline(0, color="grey", lw=1, ls="--")
        ax2.set_xlabel("rating (Elo points, Bradley–Terry; bootstrap 95% interval)")
        ax2.set_title("Ratings")
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def _fmt_table(df: pd.DataFrame, cols: dict) -> str:
    out = df[list(cols)].copy()
    for c, f in cols.items():
        if f:
            out[c] = [f.format(v) if v is not None and not (isinstance(v, float) and math.isnan(v))
                      else "-" for v in out[c]]
    return out.to_string(index=False)


def report(tabs: dict, r, seed: int) -> str:
    """The readable summary printed on stdout."""
    solo = r.players == 1
    lines = [f"tournament: {r.describe()}, {r.players} player{'s' if r.players > 1 else ''}, seed {seed}"
             + ("" if solo else ", duplicate deals (each deal played with the sides swapped)"), ""]
    rt = tabs["ratings"].copy()
    rt["interval"] = [f"[{a:.1f}, {b:.1f}]" if not math.isnan(a) else "-" for a, b in zip(rt["ci_low"], rt["ci_high"])]
    lines.append("ratings (" + rt["method"].iloc[0] + "):")
    cols = {"rank": "", "policy": "", "rating": "{:+.1f}" if not solo else "{:.2f}", "interval": ""}
    if not solo:
        cols.update({"score": "{:.3f}", "games": "{:,}"})
    lines += ["  " + s for s in _fmt_table(rt, cols).splitlines()]
    lines.append("")
    pr = tabs["pairs"].copy()
    if len(pr):
        pr["interval"] = [f"[{a:+.2f}, {b:+.2f}]" for a, b in zip(pr["ci_low"], pr["ci_high"])]
        lines.append("pairs (margin: A − B, points per round; 95% interval over deals"
                     + (", paired)" if solo else "; win/draw per game)") + ":")
        cols = {"policy_a": "", "policy_b": "", "deals": "{:,}", "margin": "{:+.2f}", "interval": "",
                "a_win_rate": "{:.3f}", "draw_rate": "{:.3f}", "b_win_rate": "{:.3f}"}
        if not solo:
            cols["stopped"] = ""
        lines += ["  " + s for s in _fmt_table(pr, cols).splitlines()]
        lines.append("")
    pt = tabs["policies"]
    lines.append("play per policy (per round of its side" + ("" if r.players < 4 else ", a team of 2 seats")
                 + "):")
    cols = {"policy": "", "rounds": "{:,}", "points_per_round": "{:+.2f}", "discards_per_round": "{:.2f}",
            "discard_share": "{:.3f}", "expeditions_per_round": "{:.2f}", "bonus_rate": "{:.3f}",
            "investments_per_round": "{:.2f}"}
    short = {"points_per_round": "points", "discards_per_round": "discards",
             "expeditions_per_round": "expeditions", "investments_per_round": "investments"}
    table = _fmt_table(pt.rename(columns=short), {short.get(c, c): f for c, f in cols.items()})
    lines += ["  " + s for s in table.splitlines()]
    capped = int(pt["capped"].sum()) if r.players == 1 else int(tabs["pairs"]["capped"].sum())
    if r.turn_cap or capped:
        games = int(pt["rounds"].sum()) if r.players == 1 else int(tabs["pairs"]["games"].sum())
        lines.append(f"\nrounds stopped at the turn cap ({r.turn_cap} turns): {capped:,} of {games:,} "
                     "(scored as they stood; per pair in pairs.csv, column capped)")
    return "\n".join(lines)


def write(tabs: dict, out, r, manifest: dict):
    """pairs.csv, ratings.csv, policies.csv, looks.csv, tournament.png and manifest.json into `out`."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    for name in ("pairs", "ratings", "policies", "looks"):
        tabs[name].to_csv(out / f"{name}.csv", index=False)
    title = (f"Round robin, {r.describe()}, {r.players} player{'s' if r.players > 1 else ''}, "
             f"seed {manifest.get('seed')}" + ("" if r.players == 1 else ", duplicate deals"))
    figure(tabs, out / "tournament.png", title)
    write_manifest(out, manifest)
