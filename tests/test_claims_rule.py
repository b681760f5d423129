"""The verdict rule of `lostcards claims`, branch by branch, and the estimators it reads."""
import math

import numpy as np
import pytest

from lostcards.analysis.claims.verdict import (
    AT_EDGE,
    FAILS,
    HARMFUL,
    HOLDS,
    LEFT_OUT,
    MIXED,
    NO_EFFECT,
    NOT_TESTED,
    UNDECIDED,
    VERDICTS,
    about,
    across_tables,
    at_least,
    at_most,
    between,
    combine,
    combine_bots,
    gains,
    row_verdict,
    simultaneous_level,
)
from lostcards.stats import (
    cluster_diff,
    cluster_mean,
    cluster_ratio,
    mean_ci,
    ols_clustered,
    quantiles,
    share_ci,
)

INF = math.inf


@pytest.mark.parametrize("lo,hi,a,b,want", [
    (17, 19, 16.2, 19.8, HOLDS),               # inside the region
    (16.2, 19.8, 16.2, 19.8, HOLDS),           # touching both edges is inside
    (20, 21, 16.2, 19.8, FAILS),               # wholly above
    (10, 12, 16.2, 19.8, FAILS),               # wholly below
    (19, 20.5, 16.2, 19.8, UNDECIDED),         # straddles the top edge
    (15, 17, 16.2, 19.8, UNDECIDED),           # straddles the bottom edge
    (10, 30, 16.2, 19.8, UNDECIDED),           # wider than the region
    (1.5, 3.0, 1.0, INF, HOLDS),               # a gain of at least the smallest effect
    (0.2, 0.8, 1.0, INF, FAILS),               # a gain smaller than the smallest effect: no effect
    (-3.0, -2.0, 1.0, INF, FAILS),             # the other way
    (-0.5, 0.5, 1.0, INF, FAILS),              # no effect, whichever side of zero
    (0.5, 1.5, 1.0, INF, UNDECIDED),           # straddles the smallest effect
    (math.nan, 1.0, 0.0, 1.0, UNDECIDED),      # no interval: too few observations
    (2.0, 1.0, 0.0, 3.0, UNDECIDED),           # an inverted interval is not an interval
])
def test_row_verdict(lo, hi, a, b, want):
    assert row_verdict(lo, hi, a, b) == want


@pytest.mark.parametrize("verdicts,want", [
    ([HOLDS, HOLDS], HOLDS),
    ([FAILS], FAILS),
    ([HOLDS, FAILS], MIXED),
    ([HOLDS, FAILS, UNDECIDED], MIXED),        # some hold and some fail, whatever else is undecided
    ([HOLDS, UNDECIDED], UNDECIDED),
    ([FAILS, UNDECIDED], UNDECIDED),
    ([UNDECIDED], UNDECIDED),
    ([MIXED, HOLDS], MIXED),                   # a statement whose bots disagree, among the tip's statements
    ([MIXED], MIXED),
    ([HOLDS, AT_EDGE], AT_EDGE),
    ([FAILS, AT_EDGE], AT_EDGE),
    ([], UNDECIDED),                           # nothing to go on
])
def test_combine(verdicts, want):
    assert combine(verdicts) == want


def test_expectations_declare_their_region_and_smallest_effect():
    e = about(18, 1.8)
    assert (e.low, e.high, e.smallest_effect, e.value) == pytest.approx((16.2, 19.8, 1.8, 18))
    g = gains(1.0)
    assert (g.low, g.high, g.smallest_effect) == (1.0, INF, 1.0)
    a = at_least(0.4, 0.02)
    assert (a.low, a.high) == pytest.approx((0.38, INF))
    m = at_most(0, 1)
    assert (m.low, m.high) == (-INF, 1)
    b = between(20, 24.2, 22)
    assert (b.low, b.high, b.value) == (20, 24.2, 22)
    assert g.verdict(2.5, 3.0) == HOLDS and g.verdict(-0.1, 0.1) == FAILS and g.way(-0.1, 0.1) == NO_EFFECT


@pytest.mark.parametrize("lo,hi,want,way", [
    (1.5, 3.0, HOLDS, ""),                     # a gain of at least the smallest effect
    (0.12, 0.97, FAILS, NO_EFFECT),            # reliably positive, but within the equivalence margin [-1, 1]
    (-0.5, 0.5, FAILS, NO_EFFECT),             # no effect, whichever side of zero
    (-1.0, 1.0, FAILS, NO_EFFECT),             # touching both edges of the margin is within it
    (-21.0, -3.1, FAILS, HARMFUL),             # doing what the tip says costs more than the margin
    (-2.2, -0.54, FAILS, ""),                  # below the smallest gain, spanning -1: harmful or negligible, unknown
    (0.5, 1.5, UNDECIDED, ""),                 # straddles the smallest effect
    (-3.0, 2.0, UNDECIDED, ""),                # straddles it, and -1 too
    (math.nan, 1.0, UNDECIDED, ""),            # no interval
])
def test_a_comparison_says_which_way_it_fails(lo, hi, want, way):
    g = gains(1.0)
    assert (g.plain(lo, hi), g.way(lo, hi)) == (want, way)
    assert g.judged(lo, hi) == (way or want)


@pytest.mark.parametrize("expect,lo,hi,want", [
    (gains(1.0), 1.5, 3.0, AT_EDGE),           # holds, but 0.5 from the edge with a width of 1.5
    (gains(1.0), 2.5, 3.0, HOLDS),             # 1.5 from the edge, width 0.5
    (gains(1.0), -4.0, -3.5, FAILS),           # far below 1 for its width (harmful: its way, not its verdict)
    (gains(1.0), -3.0, -1.5, FAILS),           # harmful or not, it does not hold: -1 is no edge of the region
    (gains(1.0), 0.12, 0.97, AT_EDGE),         # does not hold, 0.03 from e
    (about(18, 1.8), 19.759, 19.799, AT_EDGE),      # holds, 0.001 from 19.8 with a width of 0.04
    (about(18, 1.8), 18.0, 18.1, HOLDS),
    (about(18, 1.8), 10, 12, FAILS),
    (about(18, 1.8), 17, 21, UNDECIDED),            # straddling stays undecided
])
def test_at_the_edge(expect, lo, hi, want):
    assert expect.verdict(lo, hi) == want


@pytest.mark.parametrize("expect,lo,hi,flip", [
    (gains(1.0), 1.5, 3.0, 1.5),               # holds up to e = 1.5 (the interval's low end)
    (gains(1.0), 0.12, 0.97, 0.97),            # does not hold from e = 0.97 on
    (about(18, 1.8), 19.759, 19.799, 1.799),        # "about 18" holds from a tolerance of 1.799 (10.0%) on
    (about(0.6, 0.06), 0.62, 0.65, 0.05),            # holds from 0.05 on
    (at_least(0.4, 0.02), 0.1, 0.2, 0.2),      # fails until the tolerance reaches 0.2 (then undecided)
])
def test_flip_point(expect, lo, hi, flip):
    f = expect.flip(lo, hi)
    assert f == pytest.approx(flip)
    step = 1e-6
    assert expect.at(f - step).plain(lo, hi) != expect.at(f + step).plain(lo, hi)
    assert expect.at(expect.smallest_effect).plain(lo, hi) == expect.plain(lo, hi)


def test_only_comparisons_tell_harmful_from_no_effect():
    assert about(18, 1.8).verdict(10, 12) == FAILS and at_least(0.4, 0.02).verdict(0.1, 0.2) == FAILS
    assert about(18, 1.8).way(10, 12) == "" and gains(1.0).way(-3, -2) == HARMFUL


def test_six_verdict_words():
    assert VERDICTS == (HOLDS, FAILS, AT_EDGE, UNDECIDED, MIXED, NOT_TESTED)
    assert len(set(VERDICTS)) == 6 and HARMFUL not in VERDICTS and NO_EFFECT not in VERDICTS


@pytest.mark.parametrize("verdicts,want", [
    ([HOLDS, HOLDS], HOLDS),
    ([FAILS, FAILS], FAILS),
    ([HOLDS, FAILS], MIXED),                   # expert holds, improve does not
    ([HOLDS, FAILS, UNDECIDED], MIXED),
    ([HOLDS, UNDECIDED], UNDECIDED),
    ([], UNDECIDED),
    ([HOLDS, LEFT_OUT], HOLDS),                # a strong bot with too few games leaves the others to decide
    ([FAILS, LEFT_OUT], FAILS),
    ([LEFT_OUT, LEFT_OUT], UNDECIDED),         # nobody decided
    ([HOLDS, AT_EDGE], AT_EDGE),
    ([FAILS, AT_EDGE, UNDECIDED], UNDECIDED),
])
def test_combine_bots(verdicts, want):
    assert combine_bots(verdicts) == want


def test_a_bots_measures_with_too_few_games_stay_left_out():
    assert combine([LEFT_OUT]) == LEFT_OUT and combine([LEFT_OUT, LEFT_OUT]) == LEFT_OUT
    assert combine([HOLDS, LEFT_OUT]) == HOLDS
    assert combine_bots([HOLDS, combine([LEFT_OUT])]) == HOLDS


@pytest.mark.parametrize("verdicts,want", [
    ([HOLDS, FAILS], MIXED),                   # statements disagree
    ([MIXED, HOLDS], MIXED),                   # a statement whose bots disagree
    ([MIXED, HOLDS, FAILS], MIXED),
    ([FAILS, FAILS], FAILS),
    ([AT_EDGE, FAILS], AT_EDGE),
])
def test_combine_statements(verdicts, want):
    assert combine(verdicts) == want


def test_across_tables():
    assert across_tables([HOLDS, HOLDS]) == HOLDS
    assert across_tables([HOLDS, FAILS]) == MIXED
    assert across_tables([]) == NOT_TESTED


def test_bonferroni_level():
    assert simultaneous_level(80, 3) == pytest.approx(1 - 0.05 / 240)
    assert simultaneous_level(1) == pytest.approx(0.95)


def test_estimates_restate_their_interval_at_another_level():
    rng = np.random.default_rng(1)
    x = rng.normal(2, 1, 400)
    e = mean_ci(x)
    w = e.at(1 - 0.05 / 100)
    assert w.ci_low < e.ci_low < e.estimate < e.ci_high < w.ci_high
    assert w.at(0.95).ci_low == pytest.approx(e.ci_low)
    s = share_ci(30, 100)
    ws = s.at(0.999)
    assert 0 <= ws.ci_low < s.ci_low and s.ci_high < ws.ci_high <= 1
    g = np.repeat(np.arange(200), 2)
    c = cluster_mean((rng.random(400) < 0.9).astype(float), g)
    assert 0 <= c.at(1 - 1e-6).ci_low and c.at(1 - 1e-6).ci_high <= 1      # a share stays a share


def test_clustered_estimators_cover_the_truth():
    rng = np.random.default_rng(0)
    g = np.repeat(np.arange(500), 2)
    y = rng.normal(3, 1, g.size)
    e = cluster_mean(y, g)
    assert e.ci_low < 3 < e.ci_high and e.n == 1000 and e.clusters == 500
    r = cluster_ratio(np.ones(1000), np.full(1000, 4.0), g)
    assert r.estimate == pytest.approx(0.25) and r.ci_high - r.ci_low < 1e-9
    x = rng.uniform(0, 30, g.size)
    fit = ols_clustered(x, 22 + 0.6 * x + rng.normal(0, 2, g.size), g)
    assert fit.intercept.ci_low < 22 < fit.intercept.ci_high
    assert fit.slope.ci_low < 0.6 < fit.slope.ci_high
    d = cluster_diff(y[:500] + 1, g[:500], y[500:], g[500:])
    assert d.ci_low < 1 < d.ci_high


def test_quantiles_with_a_cluster_bootstrap():
    rng = np.random.default_rng(2)
    x = rng.integers(0, 100, 5000).astype(float)
    p10, med, p90 = quantiles(x, (0.1, 0.5, 0.9), np.repeat(np.arange(2500), 2))
    assert p10.estimate < med.estimate < p90.estimate
    assert p10.ci_low <= p10.estimate <= p10.ci_high and abs(med.estimate - 49.5) < 3
    with pytest.raises(ValueError):
        med.at(0.999)              # a bootstrap interval has only its own level


@pytest.mark.parametrize("preset,players", [("expeditions", 1), ("expeditions", 2), ("expeditions", 4),
                                            ("lost-cities", 2)])
def test_walked_records_are_the_batch_rounds_and_their_facts_add_up(preset, players):
    from lostcards import rules
    from lostcards.analysis.movelog import LAID, walk
    from lostcards.run.runner import play, play_records
    r = rules(preset, players=players)
    w = walk(play_records(r, "expert", "greedy", range(60), seed=3), range(60))
    b = play(r, "expert", "greedy", rounds=60, seed=3)
    assert (w.round_info[:, :3 + r.sides] == b.round_info[:, :3 + r.sides]).all()
    assert (w.seats == b.seats).all() and (w.side_suits == b.side_suits).all()
    f = w.facts
    cards = f["cards"].groupby(["round", "side", "suit"]).points.sum()       # an expedition's cards add up
    x = f["expeditions"].set_index(["round", "side", "suit"]).score
    assert (cards.reindex(x.index) == x).all()
    d = f["discards"]
    d = d[~d.investment]
    assert not (d.taken_by_opp & d.taken_by_own).any()
    assert (d.opp_points[~d.laid_by_opp] == 0).all() and not (d.laid_by_opp & d.opp_dead).any()
    e = f["entries"]
    assert (e.groupby("round").size() > r.players * r.hand_size).all()
    assert ((e.fate == LAID).groupby(e["round"]).sum().to_numpy()
            == b.side_suits[:, :, :, 0].sum(axis=(1, 2))).all()       # every card laid entered a hand
