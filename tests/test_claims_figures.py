"""Every tip's figure opens with its deciding rows against their regions: read back from the figure objects,
the first panel's shaded regions are the rows' own (region_low to region_high; for a comparison also [-e, e]
and below -e), one unit and one measure an axis, and no line there that is not a row's number."""
import math

import pytest

from lostcards.analysis.claims import load_experiments
from lostcards.analysis.claims.declare import Result, Row, Setting
from lostcards.analysis.claims.plots import (
    BAND_SHARE,
    VERDICT_COLORS,
    close,
    deciding_axes,
    deciding_groups,
    region_gid,
    regions,
    save,
    span,
)
from lostcards.analysis.claims.verdict import about
from lostcards.stats import Estimate

MODS = load_experiments()
# where a row's interval lies, in tolerances from the tip's number: inside, across an edge, far out, very far
OFFSETS = ((0.1, 0.3), (-1.2, 0.4), (-6.0, 1.0), (35.0, 2.0), (2.5, 0.2))


def _expect(m, setting):
    x = m.expect(setting) if callable(m.expect) else m.expect
    if x.basis is None:
        return x
    v = x.value if math.isfinite(x.value) else 0.0
    return x.at(max(abs(v), 1.0) * 0.1)          # a tolerance of a tenth of the tip's number (at least 0.1)


def synthetic(mod) -> Result:
    """A claim's rows as a run would give them (every measure, table and bot it declares), with intervals placed
    inside, across and far outside their regions: no game is played, no subject is there."""
    claim, rows, k = mod.CLAIM, [], 0
    for m in claim.measures:
        for table in m.where():
            deciding = m.decides and table in m.tables
            bots = claim.deciding_bots(table) if deciding else (m.bots or claim.bots)
            for bot in (b for b in bots if m.bots is None or b in m.bots):
                setting = Setting(table)
                x = _expect(m, setting)
                t = x.smallest_effect if math.isfinite(x.smallest_effect) and x.smallest_effect > 0 else 1.0
                zero = x.value if math.isfinite(x.value) else 0.0
                mid, half = OFFSETS[k % len(OFFSETS)]
                k += 1
                est = Estimate(zero + mid * t, zero + (mid - half) * t, zero + (mid + half) * t, 100)
                r = Row(claim.id, m, bot, bot, "", setting, est, x, deciding)
                r.verdict = x.verdict(est.ci_low, est.ci_high) if deciding else ""
                rows.append(r)
    return Result(claim, rows)


@pytest.fixture(scope="module", params=sorted(MODS))
def drawn(request):
    res = synthetic(MODS[request.param])
    fig = MODS[request.param].figure(res)
    fig.canvas.draw()                                   # the layout: panels where they are shown
    yield res, fig
    close(fig)


def _rects(ax) -> dict:
    return {p.get_gid(): p for p in ax.patches if (p.get_gid() or "").startswith("region.")}


def test_the_first_panel_shades_every_deciding_rows_regions(drawn):
    res, fig = drawn
    dec = [r for r in res.rows if r.decides]
    axes = deciding_axes(fig)
    assert dec and axes
    others = [a for a in fig.get_axes() if a not in axes]
    assert all(a.get_window_extent().x1 < b.get_window_extent().x0 for a in axes for b in others)   # left panel
    seen = {}
    for ax in axes:
        lo, hi = ax.get_xlim()
        labels = [t.get_text() for t in ax.get_yticklabels()]
        rows = {region_gid(r, kind): (r, a, b) for r in dec for kind, a, b in regions(r)}
        names = set()
        for gid, patch in _rects(ax).items():
            r, a, b = rows[gid]
            names.add(r.measure.name)
            x0, x1 = patch.get_x(), patch.get_x() + patch.get_width()
            assert x0 == pytest.approx(max(a, lo)) and x1 == pytest.approx(min(b, hi)), gid
            if math.isfinite(a):
                assert lo < a, gid                     # every finite edge is in view
            if math.isfinite(b):
                assert b < hi, gid
            y = round(patch.get_y() + patch.get_height() / 2)
            assert labels[y] == f"{r.bot} · {r.table}", gid
            seen[gid] = ax
        assert len(names) == 1                          # one measure (so one unit) an axis
        unit = next(r for r in dec if r.measure.name in names).measure.unit
        assert ax.get_xlabel() == (unit or "no unit (a ratio)")
    assert set(seen) == {region_gid(r, kind) for r in dec for kind, _, _ in regions(r)}


def test_the_first_panel_draws_only_the_rows_numbers_and_intervals_coloured_by_verdict(drawn):
    res, fig = drawn
    dec = [r for r in res.rows if r.decides]
    numbers = {r.expect.value for r in dec if math.isfinite(r.expect.value)}
    colors = set()
    for ax in deciding_axes(fig):
        for line in ax.get_lines():
            xs = list(line.get_xdata())
            if len(xs) == 2 and xs[0] == xs[1]:          # an upright line: only the tip's number
                assert any(xs[0] == pytest.approx(v) for v in numbers), xs
            else:
                colors.add(line.get_color())
    assert colors == {VERDICT_COLORS[r.verdict] for r in dec}


def test_a_comparison_shows_the_three_regions_of_its_margin():
    res = synthetic(MODS["endgame-count"])
    r = next(r for r in res.rows if r.decides)
    e = r.expect.smallest_effect
    assert regions(r) == [("holds", r.expect.low, math.inf), ("no material effect", -e, e), ("harmful", -math.inf, -e)]
    assert r.expect.low == pytest.approx(e)


def test_sizes_ten_times_apart_get_an_axis_each_and_every_band_stays_visible():
    m = MODS["plays-per-round"].CLAIM.measure_named("plays")
    rows = []
    for table, x in (("2p", 100.0), ("4p-seat", 9.0)):
        est = Estimate(x + 0.5, x + 0.2, x + 0.8, 100)
        rows.append(Row("plays-per-round", m, "expert", "expert", "", Setting(table), est, about(x, 1.0), True,
                        "holds"))
    groups = deciding_groups(rows)
    assert [[r.table for r in g] for g in groups] == [["2p"], ["4p-seat"]]
    for g in groups:
        lo, hi = span(g)
        assert 2 * g[0].expect.smallest_effect >= BAND_SHARE * (hi - lo)
    near = [rows[1], Row("plays-per-round", m, "improve", "improve", "", Setting("4p-seat"), rows[1].est,
                         about(9.0, 1.0), True, "holds")]
    assert len(deciding_groups(near)) == 1


def test_a_tip_figure_is_saved_as_the_same_bytes_twice(tmp_path):
    mod = MODS["endgame-count"]
    for d in ("a", "b"):
        fig = mod.figure(synthetic(mod))
        (tmp_path / d).mkdir()
        save(fig, tmp_path / d / "f")
        close(fig)
    for ext in ("png", "svg"):
        assert (tmp_path / "a" / f"f.{ext}").read_bytes() == (tmp_path / "b" / f"f.{ext}").read_bytes()
