"""A sweep's figures, its readable summary and its files (``lostcards.analysis.sweep`` plays it)."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from lostcards.analysis.sweep import CHECKS, KEY_METRICS, THRESHOLDS
from lostcards.run.batchdir import write_manifest

# ---- figures -----------------------------------------------------------------------------

def _pick(df: pd.DataFrame, metric: str, opp: str) -> pd.DataFrame:
    return df[(df["metric"] == metric) & (df["opponent"] == opp)].sort_values("cell")


def _title(metric: str, opp: str) -> str:
    return metric.replace("_", " ") + (f" vs {opp}" if opp else "")


def figure(table: pd.DataFrame, grid: list, path, title: str, diff: bool = False) -> bool:
    """Heat maps (two grid parameters), lines with 95% intervals (one), or dots with intervals."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    panels = [(m, o) for m, o in KEY_METRICS if not _pick(table, m, o).empty]
    if not panels:
        return False
    ncol = min(4, len(panels))
    nrow = -(-len(panels) // ncol)
    w = 4.2 if len(grid) != 2 else max(4.2, 0.9 * len(table[grid[1]].unique()) + 1.5)
    fig, axes = plt.subplots(nrow, ncol, figsize=(w * ncol, 3.6 * nrow + (0.6 if len(grid) > 2 else 0)),
                             squeeze=False)
    for ax in axes.flat[len(panels):]:
        ax.axis("off")
    for ax, (metric, opp) in zip(axes.flat, panels):
        d = _pick(table, metric, opp)
        est = d["estimate"].to_numpy(float)
        lo = np.fmin(d["ci_low"].to_numpy(float), est)      # guard float round-off at the bounds
        hi = np.fmax(d["ci_high"].to_numpy(float), est)
        half = (hi - lo) / 2
        if len(grid) == 2:
            a, b = grid
            av = list(dict.fromkeys(d[a]))
            bv = list(dict.fromkeys(d[b]))
            M = np.full((len(av), len(bv)), np.nan)
            H = np.full_like(M, np.nan)
            for e, h, x, y in zip(est, half, d[a], d[b]):
                M[av.index(x), bv.index(y)] = e
                H[av.index(x), bv.index(y)] = h
            if diff:
                lim = np.nanmax(np.abs(M)) or 1.0
                im = ax.imshow(M, cmap="RdBu_r", vmin=-lim, vmax=lim, aspect="auto", origin="lower")
            else:
                im = ax.imshow(M, cmap="viridis", aspect="auto", origin="lower")
            cb = fig.colorbar(im, ax=ax, fraction=0.046, pad=0.04)
            cb.formatter.set_useOffset(False)
            cb.update_ticks()
            for i in range(len(av)):
                for j in range(len(bv)):
                    if not np.isnan(M[i, j]):
                        sig = "*" if diff and abs(M[i, j]) > H[i, j] else ""
                        ax.text(j, i, f"{M[i, j]:.3g}{sig}\n±{H[i, j]:.2g}", ha="center", va="center",
                                fontsize=7, color="white" if not diff else "black")
            ax.set_xticks(range(len(bv)), [str(v) for v in bv])
            ax.set_yticks(range(len(av)), [str(v) for v in av])
            ax.set_xlabel(b)
            ax.set_ylabel(a)
        elif len(grid) == 1:
            a = grid[0]
            xs = list(d[a])
            num = all(isinstance(v, (int, np.integer, float)) and not isinstance(v, bool) for v in xs)
            x = np.array(xs, float) if num else np.arange(len(xs))
            ax.errorbar(x, est, yerr=np.vstack([est - lo, hi - est]), fmt="o-", capsize=4)
            if not num:
                ax.set_xticks(x, [str(v) for v in xs])
            ax.set_xlabel(a)
            if diff:
                ax.axhline(0, color="grey", lw=1, ls="--")
        else:
            y = np.arange(len(d))[::-1]
            ax.errorbar(est, y, xerr=np.vstack([est - lo, hi - est]), fmt="o", capsize=3)
            ax.set_yticks(y, list(d["label"]), fontsize=7)
            if diff:
                ax.axvline(0, color="grey", lw=1, ls="--")
        ax.set_title(("Δ " if diff else "") + _title(metric, opp), fontsize=10)
    fig.suptitle(title + ("  (* : 95% interval excludes 0)" if diff and len(grid) == 2 else ""))
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


# ---- output ---------------------------------------------------------------------------------

def summary(res: dict, thresholds: dict | None = None) -> str:
    """The readable summary: key metrics per cell with intervals, then the flags."""
    met, flags = res["metrics"], res["flags"]
    th = {**THRESHOLDS, **(thresholds or {})}
    lines = []
    show = [(m, o) for m, o in KEY_METRICS if not _pick(met, m, o).empty]
    for _, c in res["cells"].iterrows():
        mark = "  (baseline)" if c["baseline"] else ""
        lines.append(f"cell {c['cell'] + 1}: {c['label']}  [{c['rules']}, {c['players']} players]{mark}")
        for m, o in show:
            r = met[(met["cell"] == c["cell"]) & (met["metric"] == m) & (met["opponent"] == o)]
            if r.empty:
                continue
            r = r.iloc[0]
            lines.append(f"    {_title(m, o):<28} {r['estimate']:>9.4g}  [{r['ci_low']:.4g}, {r['ci_high']:.4g}]"
                         f"  n={int(r['n']):,}")
    lines.append("")
    lines.append("checks (a cell is flagged when):")
    for check, (_, _, text) in CHECKS.items():
        lines.append(f"  {check}: {text.format(t=th[check])}")
    bad = flags[flags["flagged"]]
    if bad.empty:
        lines.append("no cell flagged")
    else:
        for _, f in bad.iterrows():
            lines.append(f"FLAG cell {f['cell'] + 1} ({f['label']}): {f['check']}: {f['metric']}"
                         + (f" vs {f['opponent']}" if f["opponent"] else "")
                         + f" = {f['estimate']:.3f} [{f['ci_low']:.3f}, {f['ci_high']:.3f}], n={f['n']:,}")
    return "\n".join(lines)


def write(res: dict, out, manifest: dict, title: str) -> list:
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    files = []
    for name in ("metrics", "diffs", "flags", "cells"):
        res[name].to_csv(out / f"{name}.csv", index=False)
        files.append(f"{name}.csv")
    if figure(res["metrics"], res["grid"], out / "sweep-metrics.png", title):
        files.append("sweep-metrics.png")
    if len(res["cells"]) > 1:
        base = res["cells"].loc[res["baseline"], "label"]
        if figure(res["diffs"], res["grid"], out / "sweep-diffs.png",
                  f"{title}: paired difference from {base} (95% intervals)", diff=True):
            files.append("sweep-diffs.png")
    for name in ("depth", "depth_steps"):
        if name in res:
            res[name].to_csv(out / f"{name.replace('_', '-')}.csv", index=False)
            files.append(f"{name.replace('_', '-')}.csv")
    manifest = {**manifest, "files": files + ["manifest.json"]}
    write_manifest(out, manifest)
    return files
