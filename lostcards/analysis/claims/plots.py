"""Figures of the claims report: one look for every tip (matplotlib, no display needed)."""
from __future__ import annotations

import numpy as np

from lostcards.stats import cluster_mean

COLORS = {"random": "#9e9e9e", "greedy": "#e69f00", "expert": "#0072b2", "search": "#009e73",
          "opponent": "#56b4e9", "variant": "#cc79a7", "ref": "#d55e00"}
MIN_BIN = 20          # fewer events than this in a bin: not drawn


def color(bot: str) -> str:
    """A bot's colour; variants of a bot (other switches) share one colour of their own."""
    if bot.startswith("search"):
        return COLORS["search"]
    return COLORS.get(bot, COLORS["variant"])


def new_figure(ncols: int = 2, nrows: int = 1, width: float = 6.0, height: float = 4.2, title: str = ""):
    """A grid of panels (axes[row, col]) with a bold title."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(nrows, ncols, figsize=(width * ncols, height * nrows + (0.5 if title else 0)),
                             squeeze=False)
    if title:
        fig.suptitle(title, fontsize=13, fontweight="bold")
    return fig, axes


def save(fig, stem) -> None:
    """`stem`.png and `stem`.svg, the same bytes for the same figure: fixed SVG ids, no dates or versions."""
    import matplotlib
    with matplotlib.rc_context({"svg.hashsalt": "lostcards", "svg.fonttype": "path"}):
        fig.savefig(f"{stem}.png", dpi=100, bbox_inches="tight", metadata={"Software": None})
        fig.savefig(f"{stem}.svg", bbox_inches="tight", metadata={"Date": None, "Creator": None})


VERDICT_COLORS = {"holds": "#009e73", "does not hold": "#d55e00", "at the edge": "#56b4e9", "undecided": "#9e9e9e"}


def scaled(row) -> tuple:
    """A deciding row in units of its tolerance t: (estimate, low, high, region low, region high), 0 at the
    tip's number (a comparison: at no effect)."""
    x, e = row.expect, row.est
    t = x.smallest_effect if x.smallest_effect and np.isfinite(x.smallest_effect) else 1.0
    zero = 0.0 if x.equivalence else (x.value if np.isfinite(x.value) else (x.low + x.high) / 2)
    f = [(v - zero) / t for v in (e.estimate, e.ci_low, e.ci_high, x.low, x.high)]
    return tuple(f)


def summary_figure(run):
    """Every deciding row against its region (forest plot, units of its own tolerance), coloured by verdict."""
    rows = [r for res in run.results.values() for r in res.rows if r.decides]
    fig, ax = new_figure(1, 1, width=9.0, height=0.9 + 0.22 * len(rows),
                         title="Every deciding effect, against its region")
    a = ax[0, 0]
    lim = 60.0
    for i, r in enumerate(rows):
        est, lo, hi, rlo, rhi = scaled(r)
        a.fill_betweenx([i - 0.4, i + 0.4], max(rlo, -lim), min(rhi, lim), color="#009e73", alpha=0.15, lw=0)
        c = VERDICT_COLORS.get(r.verdict, "#333333")
        a.plot([np.clip(lo, -lim, lim), np.clip(hi, -lim, lim)], [i, i], color=c, lw=2.5)
        a.plot([np.clip(est, -lim, lim)], [i], "o", color=c, ms=4)
    a.axvline(0, color="#333333", lw=0.8)
    for v in (-1, 1):
        a.axvline(v, color="#333333", lw=0.8, ls=":")
    a.set_yticks(range(len(rows)), [f"{r.claim} {r.measure.name} ({r.bot}, {r.table})" for r in rows], fontsize=7)
    a.set_ylim(len(rows) - 0.5, -0.5)
    a.set_xscale("symlog", linthresh=2.0)
    a.set_xlim(-lim, lim)
    a.set_xlabel("estimate and interval, in units of the row's tolerance (linear within ±2, then logarithmic; "
                 "clipped at ±60)")
    from matplotlib.lines import Line2D
    used = [v for v in VERDICT_COLORS if any(r.verdict == v for r in rows)]
    a.legend([Line2D([0], [0], color=VERDICT_COLORS[v], lw=3) for v in used], used, fontsize=7, loc="lower right")
    fig.tight_layout()
    return fig


def close(fig) -> None:
    import matplotlib.pyplot as plt
    plt.close(fig)


def ref_line(ax, y=None, x=None, label: str = "", color_: str = None, ls: str = "--"):
    c = color_ or COLORS["ref"]
    if y is not None:
        ax.axhline(y, color=c, ls=ls, lw=1.6, label=label or None, zorder=1)
    if x is not None:
        ax.axvline(x, color=c, ls=ls if ls != "--" else ":", lw=1.6, label=label or None, zorder=1)


def interval_bars(ax, labels, ests, colors=None, ref=None, ref_label: str = "", unit: str = "", scale: float = 1.0):
    """Estimates as points with interval whiskers, one per label, top to bottom."""
    pos = np.arange(len(labels))
    vals = np.array([e.estimate for e in ests]) * scale
    lo = vals - np.array([e.ci_low for e in ests]) * scale
    hi = np.array([e.ci_high for e in ests]) * scale - vals
    cols = colors or ["#333333"] * len(labels)
    for i in range(len(labels)):
        ax.errorbar(vals[i], pos[i], xerr=[[np.nan_to_num(lo[i])], [np.nan_to_num(hi[i])]], fmt="o",
                    color=cols[i], capsize=5, ms=7, lw=2)
    ax.set_yticks(pos, labels, fontsize=8)
    ax.set_ylim(len(labels) - 0.4, -0.6)
    if ref is not None:
        ref_line(ax, x=ref, label=ref_label)
    if unit:
        ax.set_xlabel(unit)


def binned(x, y, groups, edges):
    """Clustered mean of y per bin of x: (bin centres, [Estimate])."""
    x = np.asarray(x, float)
    y = np.asarray(y, float)
    g = np.asarray(groups)
    cs, es = [], []
    for lo, hi in zip(edges[:-1], edges[1:]):
        m = (x >= lo) & (x < hi)
        if m.sum() >= MIN_BIN:
            cs.append((lo + min(hi, x.max() + 1)) / 2 if np.isfinite(hi) else lo)
            es.append(cluster_mean(y[m], g[m]))
    return np.array(cs), es


def band_plot(ax, xs, ests, col, label, marker="o", ls="-"):
    """A line of estimates with its interval as a shaded band."""
    if not len(xs):
        return
    v = np.array([e.estimate for e in ests])
    lo = np.array([e.ci_low for e in ests])
    hi = np.array([e.ci_high for e in ests])
    ax.plot(xs, v, marker=marker, color=col, label=label, lw=1.8, ms=4, ls=ls)
    ax.fill_between(xs, lo, hi, color=col, alpha=0.2, lw=0)


def sweep_plot(ax, res, names_values, bot: str = "expert", tables=("2p",), xlabel: str = "", title: str = ""):
    """Paired margins of a switch swept over values: one line per table (points a round)."""
    for table in tables:
        pts = [(v, res.get(name, bot, table)) for name, v in names_values]
        pts = [(v, r.est) for v, r in pts if r is not None]
        if pts:
            band_plot(ax, np.array([p[0] for p in pts], float), [p[1] for p in pts],
                      TABLE_COLORS.get(table, "#333333"), table)
    ax.axhline(0, color="#333333", lw=0.8)
    ax.set_xlabel(xlabel)
    ax.set_ylabel("margin, points a round (95% band)")
    ax.set_title(title)
    ax.legend(fontsize=8)


TABLE_COLORS = {"2p": "#0072b2", "4p-seat": "#cc79a7", "4p-team": "#cc79a7", "1p": "#e69f00", "lc": "#009e73"}


def rows_panel(ax, rows, title: str = "", unit: str = "", ref=None, ref_label: str = "", scale: float = 1.0):
    """The rows of one measure (every bot and table) as intervals, deciding rows in bold colour."""
    several = len({r.measure.name for r in rows}) > 1
    labels = [(f"{r.measure.statement or r.measure.name} · " if several else "") + f"{r.bot} · {r.table}"
              for r in rows]
    cols = [color(r.bot) if r.decides else "#bbbbbb" for r in rows]
    interval_bars(ax, labels, [r.est for r in rows], cols, ref=ref, ref_label=ref_label, unit=unit, scale=scale)
    ax.set_title(title, fontsize=10)
    if ref is not None and ref_label:
        ax.legend(fontsize=7)
