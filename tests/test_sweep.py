"""Rule-tweak validation: metrics of one ruleset, `lostcards sweep`, the rule-tweaks experiment.

Grid parsing and refusal before anything runs, common random numbers, paired
intervals, the checks on constructed bad rulesets, the CLI's files.
"""
import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner
from scipy import stats as _st

from lostcards.analysis import metrics as M
from lostcards.analysis import sweep as S
from lostcards.analysis.depth import skill_trace
from lostcards.analysis.metrics import NO_UNIT_DIFFERS, Sample, diff_table, measure, paired_diff, same_deals
from lostcards.analysis.sweep import build_cells, choose_baseline, flag_table, parse_grid
from lostcards.cli import main
from lostcards.errors import SweepError
from lostcards.rules.ruleset import rules
from lostcards.run.runner import play_records as records

ROOT = Path(__file__).resolve().parents[1]


def _flags(r, policy="expert", rounds=600, skill=300):
    cell = measure(r, policy, ("greedy",), rounds, seed=3, skill_rounds=skill)
    t = cell.table()
    t.insert(0, "cell", 0)
    t.insert(1, "label", r.describe())
    f = flag_table(t)
    return dict(zip(f["check"], f["flagged"])), f


# ---- grid parsing and refusal ---------------------------------------------------------

def test_parse_grid_values_ranges_and_lists():
    g = parse_grid(["hand_size=5,6,7,8", "bonus_cards=5..8", "pass_twice=yes,no",
                    "extra_low=2,3,4;2;", "numbers=2..10;3..10"])
    assert g["hand_size"] == [5, 6, 7, 8]
    assert g["bonus_cards"] == [5, 6, 7, 8]
    assert g["pass_twice"] == [True, False]
    assert g["extra_low"] == [(2, 3, 4), (2,), ()]
    assert g["numbers"] == [tuple(range(2, 11)), tuple(range(3, 11))]
    cells = build_cells("expeditions", {}, {"hand_size": [5, 6], "bonus_cards": [6, 8]})
    assert [c.values for c in cells] == [{"hand_size": 5, "bonus_cards": 6}, {"hand_size": 5, "bonus_cards": 8},
                                         {"hand_size": 6, "bonus_cards": 6}, {"hand_size": 6, "bonus_cards": 8}]
    assert cells[3].rules.hand_size == 6 and cells[3].rules.bonus_cards == 8
    assert choose_baseline(cells) == 2                      # the preset's values
    assert choose_baseline(cells, ["hand_size=5", "bonus_cards=8"]) == 1
    with pytest.raises(SweepError, match="^--baseline hand_size: "):      # not blamed on --grid
        choose_baseline(cells, ["hand_size=\u00b2"])


@pytest.mark.parametrize("items, word", [
    (["hand_size=5,x"], "hand_size"),
    (["colour=1,2"], "colour"),
    (["hand_size=5,6", "hand_size=7"], "hand_size"),
    (["hand_size="], "hand_size"),
    (["hand_size=5,5"], "hand_size"),
    (["hand_size"], "PARAM=V1"),
    (["bonus_cards=8..5"], "bonus_cards"),
    (["hand_size=1..99999999999999999999"], "at most 1,000"),     # refused before it is listed (memory)
    (["hand_size=1..1001"], "a range of 1,001 values"),
])
def test_parse_grid_refuses(items, word):
    with pytest.raises(SweepError, match=word):
        parse_grid(items)


@pytest.mark.parametrize("grid, sets, word", [
    ({"hand_size": [5, 0]}, {}, "hand_size"),
    ({"suits": [4, 9]}, {}, "suits"),
    ({"bonus_cards": [6, 13]}, {}, "bonus_cards"),
    ({"hand_size": [6, 30]}, {"players": 4}, "hand_size"),
    ({"stall_limit": [0, 8]}, {}, "turn_cap"),            # no stall limit and no cap: refused
    ({"investments": [3, 4]}, {}, "investments"),
])
def test_impossible_cells_are_refused_naming_the_parameter(grid, sets, word):
    with pytest.raises(SweepError, match=word) as e:
        build_cells("expeditions", sets, grid)
    assert "grid cell" in str(e.value) or "--set" in str(e.value)


def test_cli_refuses_before_anything_runs(tmp_path, monkeypatch):
    def boom(*a, **k):
        raise AssertionError("a cell was played before the grid was validated")
    monkeypatch.setattr(S, "measure", boom)
    out = tmp_path / "o"
    res = CliRunner().invoke(main, ["sweep", "--grid", "hand_size=5,6,0", "--grid", "bonus_cards=6,8",
                                     "--out", str(out)])
    assert res.exit_code == 1, res.output
    assert "hand_size = 0" in res.output and "not allowed" in res.output
    assert not (out / "metrics.csv").exists()
    res = CliRunner().invoke(main, ["sweep", "--grid", "bonus_cards=5..14", "--out", str(out)])
    assert res.exit_code == 1 and "bonus_cards" in res.output
    res = CliRunner().invoke(main, ["sweep", "--grid", "hand_size=5,6", "--set", "hand_size=7", "--out", str(out)])
    assert res.exit_code == 1 and "hand_size" in res.output
    res = CliRunner().invoke(main, ["sweep", "--policy", "nosuchbot", "--out", str(out)])
    assert res.exit_code == 1 and "nosuchbot" in res.output


# ---- common random numbers ---------------------------------------------------------------

def _shuffle(rec):
    return [c for h in rec["hands"] for c in h] + rec["deck"]


def test_common_random_numbers_same_deck_same_deals():
    a, b = rules(), rules(stall_limit=3)
    assert same_deals(a, b)
    ra = records(a, "random", "random", [0, 5, 17], seed=11)
    rb = records(b, "random", "random", [0, 5, 17], seed=11)
    for x, y in zip(ra, rb):
        assert x["hands"] == y["hands"] and x["deck"] == y["deck"]
    # a different hand size deals differently but from the same shuffle
    rc = records(rules(hand_size=8), "random", "random", [0, 5, 17], seed=11)
    assert all(_shuffle(x) == _shuffle(y) for x, y in zip(ra, rc))
    assert same_deals(a, rules(bonus_cards=8, hand_size=8))
    # the published family with 4 suits has the same deck (letters aside): the same shuffle
    rl = records(rules("lost-cities", suits=4), "random", "random", [5], seed=11)
    assert len(_shuffle(rl[0])) == len(_shuffle(ra[1]))
    assert same_deals(a, rules("lost-cities", suits=4))
    # another deck: other shuffles
    assert not same_deals(a, rules(suits=3))
    assert not same_deals(a, rules(players=4))
    assert _shuffle(records(rules(suits=3), "random", "random", [5], seed=11)[0]) != _shuffle(ra[1])[:36]


def test_cells_that_differ_only_off_the_deal_play_identically():
    """stall_limit 8 vs 12 under expert: the same deals, and (the expert never stalls) the same play:
    every paired difference is exactly 0."""
    a = measure(rules(), "expert", ("greedy",), 300, seed=5, skill_rounds=60)
    b = measure(rules(stall_limit=12), "expert", ("greedy",), 300, seed=5, skill_rounds=60)
    d = diff_table(a, b)
    assert (d["estimate"] == 0).all()
    assert (d["method"] == NO_UNIT_DIFFERS).all()
    shares = d["metric"].isin(["ended_by_stall", "drawn_rounds", "first_player_win_rate"])
    assert (d.loc[shares, "ci_high"] > 0).all() and (d.loc[shares, "ci_high"] < 0.02).all()


# ---- paired intervals ---------------------------------------------------------------------

def test_paired_difference_matches_a_paired_t_test_and_beats_unpaired():
    rng = np.random.default_rng(0)
    n = 2000
    base = rng.normal(40, 25, n)
    x = base + rng.normal(1.0, 3, n)
    y = base
    idx = np.arange(n)
    d = paired_diff(Sample("score_mean", "mean", idx, x), Sample("score_mean", "mean", idx, y))
    diff = x - y
    half = _st.t.ppf(0.975, n - 1) * diff.std(ddof=1) / math.sqrt(n)
    assert d["estimate"] == pytest.approx(diff.mean())
    assert d["ci_low"] == pytest.approx(diff.mean() - half)
    assert d["ci_high"] == pytest.approx(diff.mean() + half)
    unpaired = 1.96 * math.sqrt(x.var(ddof=1) / n + y.var(ddof=1) / n)
    assert (d["ci_high"] - d["ci_low"]) / 2 < unpaired / 5
    assert d["ci_low"] < 1.0 < d["ci_high"]
    # only the common units are paired
    d2 = paired_diff(Sample("score_mean", "mean", idx[:1500], x[:1500]),
                     Sample("score_mean", "mean", idx[500:], y[500:]))
    assert d2["n"] == 1000
    assert d2["estimate"] == pytest.approx((x[500:1500] - y[500:1500]).mean())


def test_delta_method_estimators():
    rng = np.random.default_rng(1)
    n = 4000
    idx = np.arange(n)
    # ratio: sum num / sum den
    den = rng.integers(1, 5, n).astype(float)
    num = rng.binomial(den.astype(int), 0.3).astype(float)
    est, lo, hi, k, method = M.estimate(Sample("bonus_rate", "ratio", idx, num, den=den))
    assert est == pytest.approx(num.sum() / den.sum()) and lo < 0.3 < hi and method == "delta"
    # conditional share: n is the units that qualify
    mask = rng.random(n) < 0.4
    xs = (rng.random(n) < 0.25).astype(float)
    est, lo, hi, k, _ = M.estimate(Sample("leader_loses_match", "cond", idx, xs, mask=mask))
    assert est == pytest.approx(xs[mask].mean()) and k == mask.sum() and lo < 0.25 < hi
    # standard deviation of pooled values: near the sample sd, interval around the truth
    v = rng.normal(0, 10, (n, 2))
    est, lo, hi, k, _ = M.estimate(Sample("score_sd", "sd", idx, v))
    assert est == pytest.approx(v.std(), rel=1e-3) and lo < 10 < hi and hi - lo < 1
    # a rate whose units are all equal gets a Wilson interval, not a point
    est, lo, hi, k, method = M.estimate(Sample("win_rate", "rate", idx, np.ones(n)))
    assert est == 1 and lo < 1 and hi == pytest.approx(1) and "Wilson" in method


# ---- one ruleset's metrics ------------------------------------------------------------------

def test_metrics_table_is_tidy_with_intervals_and_n():
    t = M.metrics(rules(), "expert", ("greedy", "random"), rounds=300, seed=2, skill_rounds=60)
    assert list(t.columns) == M.COLUMNS
    got = set(zip(t["metric"], t["opponent"]))
    for m in ("turns_per_round", "plays_per_seat", "ended_by_deck", "ended_by_stall", "ended_by_capped",
              "first_player_win_rate", "first_player_margin", "drawn_rounds", "drawn_matches", "score_mean",
              "score_sd", "negative_rounds", "expeditions_opened", "bonus_rate", "investments_laid",
              "discards_per_round", "pile_draws_per_round", "leader_loses_match", "match_first_seat_win_rate"):
        assert (m, "") in got, m
    assert {("win_rate", "greedy"), ("margin", "random")} <= got
    row = t.set_index(["metric", "opponent"])
    assert row.loc[("turns_per_round", ""), "n"] == 300
    assert row.loc[("drawn_matches", ""), "n"] == 100
    assert row.loc[("margin", "greedy"), "n"] == 60
    assert (t["ci_low"] <= t["estimate"] + 1e-12).all() and (t["estimate"] <= t["ci_high"] + 1e-12).all()
    assert row.loc[("margin", "random"), "ci_low"] > 50       # expert crushes random
    assert row.loc[("ended_by_deck", ""), "estimate"] == 1.0
    assert set(t["group"]) == {"length", "balance", "ties", "skill", "scores", "tension"}


def test_metrics_four_players_and_solitaire():
    t4 = M.metrics(rules(players=4), "greedy", ("random",), rounds=90, seed=1, skill_rounds=30)
    assert ("passes_per_round", "") in set(zip(t4["metric"], t4["opponent"]))
    assert (t4["players"] == 4).all()
    t1 = M.metrics(rules(players=1), "expert", ("random",), rounds=90, seed=1, skill_rounds=30)
    ms = set(t1["metric"])
    assert "ended_by_hand_empty" in ms and "first_player_win_rate" not in ms and "win_rate" in ms


def test_match_layout_round_r_started_by_seat_r_mod_players():
    blocks, m = M._blocks(10, 2)
    assert m == 4 and blocks == [(0, 4, 0), (4, 4, 1), (8, 2, 0)]
    idx, ri, *_ = M.self_play(rules(players=4), "random", 9, seed=1)
    assert list(idx) == list(range(9))
    assert list(ri[:, 0]) == [0, 0, 0, 1, 1, 1, 2, 2, 2]


# ---- checks -------------------------------------------------------------------------------

def test_flags_trigger_on_constructed_bad_rulesets():
    f, tab = _flags(rules(stall_limit=1), policy="random")
    assert f["stall_or_cap"]
    assert tab.set_index("check").loc["stall_or_cap", "estimate"] > 0.2
    f, _ = _flags(rules(suits=3, investments=0, cost=0))        # odd draw pile: the first player gets a play more
    assert f["first_player"] and not f["stall_or_cap"]
    # the skill check is against greedy (against random every bot wins ~99%, so it could never fire):
    # with the numbers 8, 9 and 10 only, there is little to choose, and greedy wins about 2 rounds in 5
    f, tab = _flags(rules(numbers="8,9,10"), skill=1000)
    assert f["skill"] and tab.set_index("check").loc["skill", "estimate"] < 0.6
    f, _ = _flags(rules())
    assert not any(f.values())


# ---- the command ----------------------------------------------------------------------------

def test_cli_sweep_writes_csv_figures_manifest(tmp_path):
    out = tmp_path / "sw"
    res = CliRunner().invoke(main, ["sweep", "--grid", "hand_size=5,6", "--grid", "stall_limit=4,8", "--rounds", "150",
                                     "--skill-rounds", "40", "--seed", "4", "--out", str(out), "--no-progress"])
    assert res.exit_code == 0, res.output
    for f in ("metrics.csv", "diffs.csv", "flags.csv", "cells.csv", "sweep-metrics.png", "sweep-diffs.png",
              "manifest.json"):
        assert (out / f).exists(), f
    met = pd.read_csv(out / "metrics.csv", keep_default_na=False)
    assert {"cell", "label", "hand_size", "stall_limit", "metric", "estimate", "ci_low", "ci_high", "n"} <= set(met)
    assert met["cell"].nunique() == 4
    diffs = pd.read_csv(out / "diffs.csv", keep_default_na=False)
    assert set(diffs["baseline"]) == {"hand_size=6, stall_limit=8"}
    assert diffs["same_deals"].astype(str).eq("True").all()
    # stall_limit 4 vs 8 under expert: the same play on the same deals
    same = diffs[(diffs["hand_size"] == 6) & (diffs["stall_limit"] == 4)]
    assert (same["estimate"] == 0).all()
    man = json.loads((out / "manifest.json").read_text())
    assert man["cells"] == 4 and man["thresholds"]["first_player"] == 0.55 and man["seed"] == 4
    assert "cell 4: hand_size=6, stall_limit=8" in res.output and "(baseline)" in res.output
    assert "checks (a cell is flagged when)" in res.output


def test_cli_one_parameter_lines_and_fail_on_flag(tmp_path):
    out = tmp_path / "one"
    res = CliRunner().invoke(main, ["sweep", "--grid", "stall_limit=1,8", "--policy", "random", "--opponents", "none",
                                     "--rounds", "600", "--out", str(out), "--fail-on-flag", "--no-progress"])
    assert res.exit_code == 3, res.output
    assert "FLAG cell 1 (stall_limit=1): stall_or_cap" in res.output
    assert (out / "sweep-metrics.png").exists() and (out / "sweep-diffs.png").exists()
    flags = pd.read_csv(out / "flags.csv", keep_default_na=False)
    assert set(flags["check"]) == {"stall_or_cap", "first_player", "skill"}
    # a single ruleset: just its metrics and checks
    res = CliRunner().invoke(main, ["sweep", "--rules", "lost-cities", "--players", "4", "--rounds", "60",
                                     "--skill-rounds", "20", "--out", str(tmp_path / "single"), "--no-progress"])
    assert res.exit_code == 0, res.output
    assert "cell 1: lost-cities" in res.output and "no cell flagged" in res.output


# ---- the rule-tweaks experiment -----------------------------------------------------------------

def _experiment():
    from lostcards.analysis import rule_tweaks
    return rule_tweaks


def test_experiment_cells_change_one_thing_at_a_time():
    rt = _experiment()
    for p, k in ((2, 10), (4, 12)):
        cs = rt.cells(p)
        assert len(cs) == k
        by = {c["cell"]: c for c in cs}
        assert by["expeditions"]["rules"].params().tolist() == rules(players=p).params().tolist()
        assert by["published"]["rules"].params().tolist() == rules("lost-cities", players=p).params().tolist()
        for c in cs[2:]:
            ref = by["expeditions"] if c["role"] == "undone" else by["published"]
            ch = next(x for x in rt.CHANGES if x["name"] == c["change"])
            moved = {q for q in c["values"] if c["values"][q] != ref["values"][q]}
            assert moved == set(ch["params"]), c["cell"]


@pytest.mark.slow      # a whole small rule-tweaks report (test_rule_tweaks.py checks one in make test)
def test_experiment_runs_and_writes_its_report(tmp_path):
    res = CliRunner().invoke(main, ["rule-tweaks", "--out", str(tmp_path), "--rounds", "60", "--seed", "1",
                                    "--depth-deals", "0", "--players", "2"])
    assert res.exit_code == 0, res.output
    csv = pd.read_csv(tmp_path / "rule-tweaks.csv", keep_default_na=False)
    assert {"config", "statement", "bot", "metric", "effect", "check", "fire", "stall"} <= set(csv["kind"])
    md = (tmp_path / "rule-tweaks.md").read_text()
    for s in ("## Verdicts", "### The stall rule ends rounds", "### The first player's edge is small",
              "Checks a designer can rely on", "above 5%", "above 55%", "below 60%", "Not run this time"):
        assert s in md, s
    assert (tmp_path / "figures" / "rule-tweaks-effects-2p.png").exists()
    # the numbers hold together: intervals around their estimates on the 60 rounds asked for, one
    # ending per round, no stall ending without a stall rule, effects = differences of the cells' means
    metric = csv[csv["kind"] == "metric"]
    value = {(c, m): float(e) for c, m, e in zip(metric["cell"], metric["metric"], metric["estimate"])}
    for row in metric[metric["metric"].str.startswith(("turns_", "plays_", "ended_by_"))].itertuples():
        # (1e-12: the Wilson bound at a share of 1 comes out as 0.9999999999999998)
        assert float(row.ci_low) - 1e-12 <= float(row.estimate) <= float(row.ci_high) + 1e-12, row
        assert float(row.n) == 60, row
    for cell in set(metric["cell"]):
        assert math.isclose(sum(value[cell, f"ended_by_{e}"] for e in ("deck", "stall", "capped")), 1), cell
    for cell in ("published", "expeditions without stall"):
        assert value[cell, "ended_by_stall"] == 0, cell
    effects = csv[(csv["kind"] == "effect") & csv["metric"].isin(["turns_per_round", "plays_per_seat"])]
    assert len(effects) >= 9
    for row in effects.itertuples():
        want = value[row.cell, row.metric] - value[row.versus, row.metric]
        assert math.isclose(float(row.estimate), want, abs_tol=1e-9), row
    meta = json.loads((tmp_path / "rule-tweaks.json").read_text())
    assert meta["config"]["rounds"] == 60 and meta["config"]["players"] == [2]
    assert meta["command"].startswith("lostcards rule-tweaks")
    (tmp_path / "rule-tweaks.md").unlink()             # --render rebuilds the report from the CSV and JSON
    res = CliRunner().invoke(main, ["rule-tweaks", "--out", str(tmp_path), "--render"])
    assert res.exit_code == 0, res.output
    assert (tmp_path / "rule-tweaks.md").read_text() == md


@pytest.mark.slow
def test_skill_trace_code_path():
    levels, steps = skill_trace(rules(), budgets=(1, 2), deals=4, seed=1)
    assert list(levels["budget"]) == [1, 2] and (levels["n"] == 4).all()
    assert len(steps) == 1 and steps["n"].iloc[0] == 4


def test_cli_players_in_the_grid_compares_across_decks(tmp_path):
    out = tmp_path / "pl"
    res = CliRunner().invoke(main, ["sweep", "--grid", "players=2,4", "--policy", "greedy", "--opponents", "random",
                                     "--rounds", "60", "--skill-rounds", "20", "--out", str(out), "--no-progress"])
    assert res.exit_code == 0, res.output
    diffs = pd.read_csv(out / "diffs.csv", keep_default_na=False)
    assert set(diffs.loc[diffs["players"] == 4, "same_deals"].astype(str)) == {"False"}
    assert "passes_per_round" not in set(diffs["metric"])          # only the 4-player cell has passes
    met = pd.read_csv(out / "metrics.csv", keep_default_na=False)
    assert "passes_per_round" in set(met.loc[met["players"] == 4, "metric"])


@pytest.mark.slow      # worker processes, a package copy or a long play: make test-slow
def test_sweep_keeps_each_cell_as_it_finishes_and_resumes(tmp_path, monkeypatch):
    """A crash in the last cell loses only that cell; the same command run again plays only it, and
    the files equal those of a sweep that never stopped."""
    args = ["sweep", "--grid", "hand_size=5,6,7", "--policy", "greedy", "--opponents", "random", "--rounds", "60",
            "--skill-rounds", "20", "--seed", "2", "--no-progress"]
    real = S.measure
    calls = []

    def crashing(*a, **k):
        calls.append(a[0].hand_size)
        if len(calls) == 3:
            raise RuntimeError("the machine went down")
        return real(*a, **k)

    out = tmp_path / "sw"
    monkeypatch.setattr(S, "measure", crashing)
    res = CliRunner().invoke(main, [*args, "--out", str(out)])
    assert res.exit_code != 0 and isinstance(res.exception, RuntimeError)
    assert sorted(p.name for p in (out / "cells").iterdir()) == ["cell-0001.npz", "cell-0002.npz"]
    assert not (out / "metrics.csv").exists()
    calls.clear()
    monkeypatch.setattr(S, "measure", lambda *a, **k: calls.append(a[0].hand_size) or real(*a, **k))
    res = CliRunner().invoke(main, [*args, "--out", str(out)])
    assert res.exit_code == 0, res.output
    assert calls == [7]                                   # only the lost cell is played again
    monkeypatch.setattr(S, "measure", real)
    fresh = tmp_path / "fresh"
    assert CliRunner().invoke(main, [*args, "--out", str(fresh)]).exit_code == 0
    for name in ("metrics.csv", "diffs.csv", "flags.csv"):
        a = pd.read_csv(out / name).drop(columns=["seconds"], errors="ignore")
        b = pd.read_csv(fresh / name).drop(columns=["seconds"], errors="ignore")
        pd.testing.assert_frame_equal(a, b)
    man = json.loads((out / "manifest.json").read_text())
    assert man["complete"] and "cells/cell-0003.npz" in man["outputs"]
    # another sweep in the same directory is still refused, before anything is played
    res = CliRunner().invoke(main, [*args[:-1], "--seed", "3", "--no-progress", "--out", str(out)])
    assert res.exit_code == 1 and "different sweep run" in res.output


def test_a_stored_cell_of_another_run_is_played_again(tmp_path):
    from lostcards.analysis.sweep_cells import CellStore, cell_key
    r = rules(hand_size=5)
    store = CellStore(tmp_path)
    key = cell_key(r, "greedy", ["random"], 30, 10, 1)
    cell = measure(r, "greedy", ("random",), 30, seed=1, skill_rounds=10)
    store.save(0, key, cell)
    back = store.load(0, key, r)
    assert back is not None and set(back.samples) == set(cell.samples)
    for k, s in cell.samples.items():
        assert (back.samples[k].x == s.x).all() and (back.samples[k].index == s.index).all()
    assert store.load(0, {**key, "seed": 2}, r) is None              # another seed: not this cell
    (tmp_path / "cells" / "cell-0001.npz").write_bytes(b"not a cell")
    assert store.load(0, key, r) is None                              # unreadable: played again
