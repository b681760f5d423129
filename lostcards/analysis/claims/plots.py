"""Figures of the claims report: one look for every tip (matplotlib, no display needed).

Every tip's figure (``tip_figure``) opens with its deciding rows, each in its
own unit, against the region in which the tip's words are true (the tip's
number with its tolerance for "about X"; a gain of at least e, and [-e, e] and
below -e, for a comparison), coloured by verdict as in the summary's forest
plot (``summary_figure``); its other panels are context that explains the
verdict.  Everything drawn comes from the rows (the columns of claims.csv).
"""
from __future__ import annotations

import math
import re
import textwrap

import numpy as np

from lostcards.stats import cluster_mean

COLORS = {"random": "#9e9e9e", "greedy": "#e69f00", "expert": "#0072b2", "search": "#009e73",
          "opponent": "#56b4e9", "variant": "#cc79a7", "ref": "#333333"}
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
    """`stem`.png and `stem`.svg, the same bytes for the same figure: fixed SVG ids, no dates or versions.

    The figure is laid out and its tight box found once, for both files (savefig's ``bbox_inches="tight"``
    draws the figure once more for each file only to find that box)."""
    import matplotlib
    with matplotlib.rc_context({"svg.hashsalt": "lostcards", "svg.fonttype": "path"}):
        fig.set_dpi(100)
        fig.draw_without_rendering()
        box = fig.get_tightbbox().padded(matplotlib.rcParams["savefig.pad_inches"])
        fig.set_layout_engine("none")
        fig.savefig(f"{stem}.png", dpi=100, bbox_inches=box, metadata={"Software": None})
        fig.savefig(f"{stem}.svg", bbox_inches=box, metadata={"Date": None, "Creator": None})


VERDICT_COLORS = {"holds": "#009e73", "does not hold": "#d55e00", "at the edge": "#56b4e9", "undecided": "#9e9e9e"}
# A deciding row's shaded regions (``regions``): where the tip holds, and for a comparison where it has no
# material effect and where it is harmful.
REGION_STYLE = {"holds": ("#009e73", 0.22, "where the tip holds (its region)"),
                "no material effect": ("#f0e442", 0.3, "no material effect: [−e, e]"),
                "harmful": ("#d55e00", 0.14, "harmful: below −e")}
BAND_SHARE = 0.05     # a band of ± a row's tolerance fills at least this share of its axis, else its tables
#                       get an axis each where that at least doubles its width (a ±1 band beside a 39)
NUMBER_LINE = {"color": "#333333", "lw": 1.6}                 # the tip's number ("about 18")
ZERO_LINE = {"color": "#555555", "lw": 1.0, "ls": "--"}      # a comparison's no difference
PAD = 0.08            # the share of an axis's span left either side of what it draws


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


def regions(row) -> list:
    """A deciding row's shaded regions, [(kind, low, high)] in the row's unit: where the tip's words hold
    (``holds``: region_low to region_high of claims.csv), and for a comparison also [-e, e] (``no material
    effect``) and (-inf, -e] (``harmful``), e its equivalence margin."""
    x = row.expect
    out = [("holds", float(x.low), float(x.high))]
    if x.equivalence:
        e = float(x.smallest_effect)
        out += [("no material effect", -e, e), ("harmful", -math.inf, -e)]
    return out


def region_gid(row, kind: str) -> str:
    """The id of a row's shaded region in the figure (and the SVG): region.<measure>.<bot>.<table>.<kind>."""
    parts = (row.measure.name, row.bot, row.table, kind)
    return "region." + ".".join(re.sub(r"[^A-Za-z0-9_-]", "_", p) for p in parts)


def _finite(*vs) -> list:
    return [float(v) for v in vs if v is not None and math.isfinite(v)]


def span(rows) -> tuple:
    """The x-range of one axis of deciding rows: their intervals, the tip's numbers and every finite edge of
    their regions, padded."""
    vals = []
    for r in rows:
        vals += _finite(r.est.ci_low, r.est.ci_high, r.est.estimate, r.expect.value)
        for _, lo, hi in regions(r):
            vals += _finite(lo, hi)
    lo, hi = (min(vals), max(vals)) if vals else (-1.0, 1.0)
    pad = PAD * (hi - lo) if hi > lo else max(1.0, abs(lo))
    return lo - pad, hi + pad


def _width(rows) -> float:
    lo, hi = span(rows)
    return hi - lo


def deciding_groups(rows) -> list:
    """The deciding rows, one list per axis: a measure's rows share one (one unit, one scale) unless a band of
    their tolerance would fill less than ``BAND_SHARE`` of it and an axis per table would make every band at
    least twice as wide; then each of its tables gets its own."""
    by = {}
    for r in rows:
        if r.decides:
            by.setdefault(r.measure.name, []).append(r)
    out = []
    for rs in by.values():
        tables = [[r for r in rs if r.table == t] for t in dict.fromkeys(r.table for r in rs)]
        t = min((r.expect.smallest_effect for r in rs if math.isfinite(r.expect.smallest_effect)), default=math.nan)
        crowded = math.isfinite(t) and 2 * t < BAND_SHARE * _width(rs)
        if len(tables) > 1 and crowded and max(_width(g) for g in tables) * 2 <= _width(rs):
            out.extend(tables)
        else:
            out.append(rs)
    return out


def _unit_label(rows) -> str:
    unit = rows[0].measure.unit
    return unit if unit else "no unit (a ratio)"


def deciding_axis(a, rows) -> None:
    """Rows of one measure (one unit) against their regions: each row's regions shaded on its line, the tip's
    number as a short line, the estimate and its interval coloured by verdict."""
    lo, hi = span(rows)
    from matplotlib.patches import Rectangle
    for i, r in enumerate(rows):
        for kind, rlo, rhi in regions(r):
            x0, x1 = max(rlo, lo), min(rhi, hi)
            if x1 > x0:
                col, alpha, _ = REGION_STYLE[kind]
                a.add_patch(Rectangle((x0, i - 0.42), x1 - x0, 0.84, facecolor=col, alpha=alpha, lw=0, zorder=0,
                                      gid=region_gid(r, kind)))
        v = r.expect.value
        if math.isfinite(v):
            style = ZERO_LINE if r.expect.equivalence else NUMBER_LINE
            a.plot([v, v], [i - 0.42, i + 0.42], zorder=2, **style)
        c = VERDICT_COLORS.get(r.verdict, "#333333")
        e = r.est
        if math.isfinite(e.ci_low) and math.isfinite(e.ci_high):
            a.plot([e.ci_low, e.ci_high], [i, i], color=c, lw=2.8, solid_capstyle="butt", zorder=3)
        if math.isfinite(e.estimate):
            a.plot([e.estimate], [i], "o", color=c, ms=5.5, zorder=4)
    a.set_xlim(lo, hi)
    a.set_ylim(len(rows) - 0.5, -0.5)
    a.set_yticks(range(len(rows)), [f"{r.bot} · {r.table}" for r in rows], fontsize=8)
    a.tick_params(axis="x", labelsize=8)
    a.set_xlabel(_unit_label(rows), fontsize=8)
    m = rows[0].measure
    head = f"{m.statement}: " if m.statement and m.statement != m.name else ""
    a.set_title(textwrap.fill(head + m.label, 62), fontsize=8.5, loc="left")


def _legend_entries(rows) -> tuple:
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch
    kinds = [k for k in REGION_STYLE if any(k == kk for r in rows for kk, _, _ in regions(r))]
    handles = [Patch(facecolor=REGION_STYLE[k][0], alpha=REGION_STYLE[k][1], lw=0) for k in kinds]
    labels = [REGION_STYLE[k][2] for k in kinds]
    for style, label, which in ((NUMBER_LINE, "the tip's number", False), (ZERO_LINE, "no difference (0)", True)):
        if any(math.isfinite(r.expect.value) and r.expect.equivalence == which for r in rows):
            handles.append(Line2D([0], [0], **style))
            labels.append(label)
    used = [v for v in VERDICT_COLORS if any(r.verdict == v for r in rows)]
    handles += [Line2D([0], [0], color=VERDICT_COLORS[v], lw=2.8, marker="o", ms=5) for v in used]
    labels += [f"{v} (interval)" for v in used]
    return handles, labels


def tip_figure(res, title: str, context=(), context_width: float = 5.6):
    """A tip's figure: first its deciding rows against their regions (one axis per measure, or per table where
    a measure's sizes differ too much, ``deciding_groups``), then one panel for each function in `context`
    (it draws on the axis it is given: context that explains the verdict, its unit labelled)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    groups = deciding_groups(res.rows)
    n = sum(len(g) for g in groups)
    height = max(4.6, 1.6 + 0.95 * len(groups) + 0.3 * n)
    width = 6.2
    fig = plt.figure(figsize=(width + context_width * len(context), height), layout="constrained")
    fig.suptitle(title, fontsize=13, fontweight="bold")
    subs = np.atleast_1d(fig.subfigures(1, 1 + len(context), width_ratios=[width] + [context_width] * len(context),
                                        wspace=0.02))
    left = subs[0]
    left.suptitle("The deciding rows, each against the region where the tip holds", fontsize=10)
    if groups:
        axes = left.subplots(len(groups), 1, squeeze=False, height_ratios=[len(g) + 1.3 for g in groups])[:, 0]
        for i, (a, rows) in enumerate(zip(axes, groups)):
            deciding_axis(a, rows)
            a.set_gid(f"deciding.{i}")
        handles, labels = _legend_entries([r for g in groups for r in g])
        left.legend(handles, labels, loc="outside lower center", ncol=2, fontsize=7, frameon=False)
    else:
        a = left.subplots()
        a.set_axis_off()
        a.text(0.5, 0.5, "no deciding row", ha="center", va="center")
    for sub, draw in zip(subs[1:], context):
        draw(sub.subplots())
    return fig


def deciding_axes(fig) -> list:
    """The axes of a tip figure's first panel, top to bottom (``tip_figure``)."""
    found = [a for a in fig.get_axes() if (a.get_gid() or "").startswith("deciding.")]
    return sorted(found, key=lambda a: int(a.get_gid().split(".")[1]))
