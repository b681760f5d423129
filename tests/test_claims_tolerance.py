"""The tolerances a player can feel (``claims.tolerance``): derived from a table's rounds, checked on synthetic
margins against the analytic value and a naive twin (shift every margin, count the wins)."""
import math

import numpy as np
import pandas as pd
import pytest

from lostcards.analysis.claims.tolerance import (
    CARD,
    CARD_SHARE,
    WIN,
    Feel,
    margins_of,
    win_point,
    win_point_naive,
    win_rate,
)
from lostcards.analysis.claims.verdict import FAILS, HOLDS, about, at_least, gains
from lostcards.stats import Estimate


@pytest.mark.parametrize("sd", [10.0, 40.0])
def test_win_point_of_normal_margins_is_the_analytic_value(sd):
    d = np.random.default_rng(3).normal(0.0, sd, 200_000)
    e = win_point(d)
    want = 0.01 * sd * math.sqrt(2 * math.pi)          # 0.01 / phi(0; sd)
    assert e.estimate == pytest.approx(want, rel=0.04)
    assert e.ci_low < e.estimate < e.ci_high and e.n == d.size


@pytest.mark.parametrize("margins", [
    np.random.default_rng(4).normal(5.0, 30.0, 200_000),                         # a favourite: f(0) off the mode
    np.random.default_rng(5).laplace(0.0, 20.0, 200_000),                        # peaked at 0
    np.round(np.random.default_rng(6).normal(0.0, 40.0, 200_000)),              # whole points, ties at 0
])
def test_win_point_agrees_with_its_naive_twin(margins):
    assert win_point(margins).estimate == pytest.approx(win_point_naive(margins, step=0.02), rel=0.08)


def test_the_naive_twin_counts_wins_and_ties():
    assert win_rate([-1, 0, 1, 2]) == pytest.approx(0.625)
    assert win_rate([-1, 0, 1, 2], 1.0) == pytest.approx(0.875)
    assert win_point_naive(np.linspace(-50, 50, 100_001), step=0.01) == pytest.approx(1.0, abs=0.02)


def test_a_wider_game_needs_more_points_for_the_same_win_rate():
    rng = np.random.default_rng(7)
    assert win_point(rng.normal(0, 60, 50_000)).estimate > 1.4 * win_point(rng.normal(0, 40, 50_000)).estimate


def test_margins_of_a_table():
    r = pd.DataFrame({"score_a": [10, 30, -5], "score_b": pd.array([4, 40, -5], dtype="Int32")})
    assert list(margins_of(r, 2)) == [6, -10, 0]
    assert list(margins_of(r, 1)) == [0, 20, -15]                 # solitaire: against its median score


def test_too_few_margins_give_no_tolerance():
    assert math.isnan(win_point([3.0]).estimate) and math.isnan(win_point([2.0, 2.0, 2.0]).estimate)


def _feel(points=0.9, plays=20.0, held=12.0):
    est = lambda x: Estimate(x, x, x, 1000)                       # noqa: E731
    return Feel("2p", est(points), est(plays), est(held))


def test_derived_expectations_take_the_tables_tolerance():
    f = _feel()
    g = gains(basis=WIN).felt(f)
    assert (g.low, g.smallest_effect) == pytest.approx((0.9, 0.9)) and "0.9 points a round" in g.text
    a = about(18, basis=CARD).felt(f)
    assert (a.low, a.high, a.smallest_effect) == pytest.approx((17, 19, 1)) and "17 to 19" in a.text
    s = at_least(0.4, basis=CARD_SHARE).felt(f)
    assert s.low == pytest.approx(0.35)
    assert a.verdict(19.76, 19.80) == FAILS and a.verdict(17.8, 18.1) == HOLDS
    d = gains(1.0)
    assert d.felt(f) is d                                         # a declared tolerance stays as it is


def test_a_derived_expectation_needs_its_table():
    with pytest.raises(ValueError):
        gains(basis=WIN).felt(None)
    with pytest.raises(ValueError):
        about(18)


def test_rms_difference_against_its_naive_twin():
    """The delta-method interval of sqrt(mean y | first) - sqrt(mean y | other), clustered, against a cluster
    bootstrap of the same quantity (the naive twin)."""
    from lostcards.analysis.claims.measures import rms, rms_difference
    rng = np.random.default_rng(11)
    rounds = np.repeat(np.arange(400), 6)
    first = np.tile([True, True, True, True, False, False], 400)
    y = np.where(first, rng.normal(144, 60, rounds.size), rng.normal(400, 120, rounds.size))
    e = rms_difference(y, first, rounds)
    assert e.estimate == pytest.approx(math.sqrt(y[first].mean()) - math.sqrt(y[~first].mean()))
    boot = []
    for _ in range(400):
        pick = rng.integers(0, 400, 400)
        idx = (pick[:, None] * 6 + np.arange(6)).ravel()
        yy, ff = y[idx], first[idx]
        boot.append(math.sqrt(yy[ff].mean()) - math.sqrt(yy[~ff].mean()))
    assert e.se == pytest.approx(np.std(boot), rel=0.15)
    assert rms(y[first], rounds[first]).estimate == pytest.approx(math.sqrt(y[first].mean()))


def test_stakes_of_a_few_rounds():
    """What laying rather than throwing a card is worth, on two rounds: one row per decision of each class,
    each at a turn of the round, with its noise."""
    from lostcards.analysis.claims.stakes import FIFTH, OPEN, stakes
    from lostcards.rules.ruleset import rules
    d = stakes(rules("expeditions", players=2), "expert", range(2), seed=5, samples=8)
    assert list(d.columns) == ["round", "seat", "turn", "k", "stake2", "stake", "noise"]
    assert set(d.k) <= {OPEN, FIFTH} and (d.k == OPEN).sum() > 10
    assert set(d["round"]) == {0, 1} and (d.stake >= 0).all() and (d.noise >= 0).all()
    assert not d.duplicated(["round", "turn", "k"]).any()          # one decision of each class a turn
    again = stakes(rules("expeditions", players=2), "expert", range(2), seed=5, samples=8)
    assert d.equals(again)                                          # the same seed, the same stakes
