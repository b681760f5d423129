"""`lostcards claims`: the CSV contract, the verdict rule, the figures, and the per-turn walker."""
import math

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from lostcards import rules
from lostcards.analysis.claims import (
    FAILS,
    HOLDS,
    ROUGHLY,
    about,
    at_least,
    est_cluster_mean,
    est_ratio,
    exactly,
    load_experiments,
    ols_clustered,
    verdict,
)
from lostcards.analysis.movelog import logged_rounds, walk
from lostcards.cli import main
from lostcards.rules.cards import deck_codes
from lostcards.run.runner import play, record_of
from lostcards.run.runner import play_records as records


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    out = tmp_path_factory.mktemp("claims")
    res = CliRunner().invoke(main, ["claims", "--quick", "--out", str(out)], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    return out


def test_quick_run_writes_a_row_per_measure_with_a_consistent_verdict(quick):
    df = pd.read_csv(quick / "claims.csv")
    for col in ("claim", "measure", "policy", "rules", "players", "estimate", "ci_low", "ci_high", "n",
                "expected", "verdict"):
        assert col in df.columns
    assert len(df) > 30
    assert set(df.verdict) <= {HOLDS, ROUGHLY, FAILS}
    for r in df.itertuples():
        assert np.isfinite([r.estimate, r.ci_low, r.ci_high, r.expected]).all(), r
        assert r.ci_low - 1e-9 <= r.estimate <= r.ci_high + 1e-9, r
        assert r.n > 0
        # the verdict follows from the interval and the declared bands (claims.py, "The verdict rule")
        inside = r.tol_low - 1e-9 <= r.ci_low and r.ci_high <= r.tol_high + 1e-9
        outside = r.ci_high < r.rough_low - 1e-9 or r.ci_low > r.rough_high + 1e-9
        want = HOLDS if inside else (FAILS if outside else ROUGHLY)
        assert r.verdict == want, r
        assert r.rough_low <= r.tol_low <= r.expected <= r.tol_high <= r.rough_high or r.tol_high == math.inf


def test_every_claim_has_rows_a_figure_and_a_section(quick):
    df = pd.read_csv(quick / "claims.csv")
    ids = list(load_experiments())
    assert len(ids) == 10
    md = (quick / "claims.md").read_text()
    for cid in ids:
        assert (df.claim == cid).any(), cid
        for ext in ("png", "svg"):
            f = quick / "figures" / f"{cid}.{ext}"
            assert f.exists() and f.stat().st_size > 5000, f
        assert f"figures/{cid}.png" in md
        assert f'id="{cid}"' in md
    assert (quick / "claims.manifest.json").exists()


def test_one_claim_by_id_and_unknown_ids(tmp_path):
    res = CliRunner().invoke(main, ["claims", "plays-per-round", "--quick", "--out", str(tmp_path)])
    assert res.exit_code == 0, res.output
    assert set(pd.read_csv(tmp_path / "claims.csv").claim) == {"plays-per-round"}
    bad = CliRunner().invoke(main, ["claims", "no-such-tip", "--quick", "--out", str(tmp_path)])
    assert bad.exit_code != 0 and "unknown claim" in bad.output


def test_verdict_rule():
    e = about(18)                       # holds in [16.2, 19.8], roughly in [14.4, 21.6]
    assert verdict(17, 19, e) == HOLDS
    assert verdict(19, 20.5, e) == ROUGHLY
    assert verdict(20, 21, e) == ROUGHLY       # outside the tolerance, inside the rough band
    assert verdict(22, 23, e) == FAILS
    assert verdict(10, 12, e) == FAILS
    assert verdict(10, 30, e) == ROUGHLY       # too wide to decide
    z = at_least(0)
    assert verdict(0.5, 2, z) == HOLDS and verdict(-1, 2, z) == ROUGHLY and verdict(-2, -1, z) == FAILS
    assert verdict(24, 24, exactly(24)) == HOLDS


def test_estimators():
    rng = np.random.default_rng(0)
    g = np.repeat(np.arange(500), 2)
    y = rng.normal(3, 1, g.size)
    e = est_cluster_mean(y, g)
    assert e.ci_low < 3 < e.ci_high and e.n == 1000 and e.clusters == 500
    r = est_ratio(np.ones(1000), np.full(1000, 4.0), g)
    assert r.estimate == pytest.approx(0.25) and r.ci_high - r.ci_low < 1e-9
    x = rng.uniform(0, 30, g.size)
    fit = ols_clustered(x, 22 + 0.6 * x + rng.normal(0, 2, g.size), g)
    assert fit.intercept.ci_low < 22 < fit.intercept.ci_high
    assert fit.slope.ci_low < 0.6 < fit.slope.ci_high


@pytest.mark.parametrize("policy", ["random", "expert"])
def test_logged_rounds_are_the_batch_rounds_and_walk_agrees(policy):
    r = rules("expeditions")
    lg = logged_rounds(r, policy, policy, range(40), seed=3)
    f = walk(lg)
    b = play(r, policy, policy, rounds=40, seed=3)
    R = f["rounds"]
    assert (R.score0.to_numpy() == b.round_info[:, 3]).all()
    assert (R.turns.to_numpy() == b.round_info[:, 1]).all()
    ss = f["seat_suits"]
    assert (ss.reached_sum.to_numpy() == b.seat_suits[:, :, :, 3].ravel()).all()
    deck = deck_codes(r)
    rec = records(r, policy, policy, [7], seed=3)[0]
    assert record_of(r, [deck[p] for p in lg.orders[7]], lg.logs[7], 0) == rec
    # facts are internally consistent: every expedition's cards add up to its score
    cards = f["cards"].groupby(["round", "seat", "suit"]).points.sum()
    x = f["expeditions"].set_index(["round", "seat", "suit"]).score
    assert (cards.reindex(x.index) == x).all()
    # a discard is taken by at most one side; points only for cards the opponent laid
    d = f["discards"]
    d = d[~d.investment]
    assert not (d.taken_by_opp & d.taken_by_self).any()
    assert (d.opp_points[~d.laid_by_opp] == 0).all() and (d.opp_points[d.laid_by_opp] > 0).all()
    assert not (d.laid_by_opp & d.opp_dead).any()


@pytest.mark.slow
def test_parallel_logs_equal_serial_logs():
    r = rules("expeditions")
    a = logged_rounds(r, "greedy", "expert", range(64), seed=5)
    b = logged_rounds(r, "greedy", "expert", range(64), seed=5, parallel=True)
    assert (a.logs == b.logs).all() and (a.orders == b.orders).all()
