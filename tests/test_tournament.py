"""`lostcards tournament`: duplicate deals, sequential stopping, ratings, files, errors."""
import json
import math

import numpy as np
import pytest
from click.testing import CliRunner

from lostcards.analysis.ratings import bradley_terry
from lostcards.analysis.tournament import boundary_z, play_pair, run_tournament
from lostcards.cli import main
from lostcards.engine.core import make_play
from lostcards.engine.observation import accepted, hand_card, hand_count, has, players, side
from lostcards.numba_cache import jit
from lostcards.policies import Policy, resolve
from lostcards.rules.ruleset import rules
from lostcards.run.runner import play_records as records


@jit
def bad(obs, params, rng):
    """Discard the first card, draw from the deck (nothing in solitaire): never scores."""
    # with 2 or 4 players a discard is always legal and the deck is never empty at
    # the start of a turn (the round ends when its last card is drawn); in
    # solitaire the draw must be "nothing" once the deck is out, so ask for none
    return make_play(hand_card(obs, 0), 1, 7 if players(obs) == 1 else 0)


@jit
def investor(obs, params, rng):
    """Lay an investment card wherever one may go, else discard: opens expeditions it never fills."""
    draw = 7 if players(obs) == 1 else 0
    for i in range(hand_count(obs)):
        c = hand_card(obs, i)
        if c % 12 < 3 and has(accepted(obs, side(obs)), c):
            return make_play(c, 0, draw)
    return make_play(hand_card(obs, 0), 1, draw)


BAD = Policy("discarder", bad)
INVESTOR = Policy("investor", investor)
RANDOM = resolve("random")


@pytest.fixture(scope="module")
def rr():
    """One small round robin on the default rules (2 players)."""
    return run_tournament(rules(), ["random", BAD, INVESTOR], rounds=2000, seed=3, block=1000,
                          target=0.0, bootstrap=200)


def _pair(tabs, a, b):
    p = tabs["pairs"]
    row = p[(p.policy_a == a) & (p.policy_b == b)]
    assert len(row) == 1
    return row.iloc[0]


def test_known_order(rr):
    # random opens expeditions it cannot pay for: about -50 points a round, so the
    # policy that never plays a card (0 every round) beats it, and one that lays
    # investments everywhere (about -230) loses to it
    order = list(rr["ratings"]["policy"])
    assert order == ["discarder", "random", "investor"]
    r_vs_inv = _pair(rr, "random", "investor")
    assert r_vs_inv.ci_low > 0 and r_vs_inv.margin > 100
    r_vs_bad = _pair(rr, "random", "discarder")
    assert r_vs_bad.ci_high < 0
    ratings = rr["ratings"].set_index("policy")
    assert ratings.loc["random", "ci_low"] > ratings.loc["investor", "ci_high"]
    assert ratings.loc["discarder", "ci_low"] > ratings.loc["random", "ci_high"]
    # paired margin = mean of A's two game margins, A's and B's points are per game
    assert r_vs_inv.margin == pytest.approx(r_vs_inv.a_points - r_vs_inv.b_points)
    assert r_vs_inv.a_win_rate + r_vs_inv.draw_rate + r_vs_inv.b_win_rate == pytest.approx(1)


def test_policy_statistics(rr):
    pt = rr["policies"].set_index("policy")
    pairs = rr["pairs"]
    for name, row in pt.iterrows():                         # two games a deal, with each opponent
        mine = pairs[(pairs.policy_a == name) | (pairs.policy_b == name)]
        assert row.rounds == 2 * mine.deals.sum()
    d = pt.loc["discarder"]
    assert d.points_per_round == 0 and d.expeditions_per_round == 0 and d.discard_share == 1
    assert d.investments_per_round == 0 and math.isnan(d.bonus_rate)
    inv = pt.loc["investor"]
    assert inv.points_per_round < -150 and inv.investments_per_round > 4
    assert inv.bonus_rate == 0                              # investments alone never reach 6 cards
    rnd = pt.loc["random"]
    assert 0 < rnd.discard_share < 1 and rnd.expeditions_per_round > 1
    assert rnd.points_ci_low < rnd.points_per_round < rnd.points_ci_high
    # the points a policy scored against the others add up with theirs
    assert (pt["points_per_round"] * pt["rounds"]).sum() == pytest.approx(
        (pt["opp_points_per_round"] * pt["rounds"]).sum())


def test_bootstrap_intervals_contain_the_estimate(rr):
    rt = rr["ratings"]
    assert ((rt.ci_low <= rt.rating) & (rt.rating <= rt.ci_high)).all()
    assert rt.rating.mean() == pytest.approx(0, abs=1e-6)
    assert rt["method"].iloc[0].startswith("Bradley-Terry")


def test_bradley_terry_known_answer():
    beta = bradley_terry(np.array([[0.0, 75.0], [25.0, 0.0]]), prior_games=0)
    assert beta[0] - beta[1] == pytest.approx(math.log(3))
    # a clean sweep stays finite thanks to the one drawn game added per pair
    assert np.isfinite(bradley_terry(np.array([[0.0, 100.0], [0.0, 0.0]]))).all()


def test_duplicate_deals_are_the_same_deals():
    r = rules()
    one = records(r, "random", BAD, [0, 7], seed=5)
    two = records(r, BAD, "random", [0, 7], seed=5)
    for x, y in zip(one, two):
        assert x["hands"] == y["hands"] and x["deck"] == y["deck"]


@pytest.mark.parametrize("players", [2, 4])
def test_same_policy_against_itself_gives_zero_margin(players):
    twin = Policy("random-twin", RANDOM.kernel)
    d = play_pair(rules(players=players), RANDOM, twin, rounds=500, seed=11)
    assert (d["margin"] == 0).all() and (d["a1"] == d["b2"]).all()
    assert d["a1"].std() > 0                               # the deals do differ from each other
    t = run_tournament(rules(players=players), [RANDOM, twin], rounds=1000, block=500, seed=11,
                       bootstrap=50)
    assert (t["deals"]["margin"] == 0).all()
    p = t["pairs"].iloc[0]
    assert p.margin == 0 and p.stopped == "precision" and p.deals == 500
    assert p.a_win_rate == p.b_win_rate
    assert t["ratings"]["rating"].abs().max() < 1e-9


def test_sequential_stopping_stops_early_on_a_clear_difference():
    t = run_tournament(rules(), ["random", INVESTOR], rounds=20_000, block=500, seed=2,
                       target=0.0, bootstrap=0)
    p = t["pairs"].iloc[0]
    assert p.deals == 500 and p.looks == 1 and p.stopped == "significant"
    assert t["looks"]["z"].iloc[0] > boundary_z(20_000, 500)
    # the sequential-safe interval is wider than the nominal one
    assert p.rci_low < p.ci_low < p.margin < p.ci_high < p.rci_high
    # a loose precision target stops too; --fixed plays every deal
    t = run_tournament(rules(), ["random", "greedy"], rounds=3000, block=500, seed=2, target=50,
                       bootstrap=0)
    assert t["pairs"].iloc[0].stopped == "precision" and t["pairs"].iloc[0].deals == 500
    t = run_tournament(rules(), ["random", INVESTOR], rounds=1500, block=500, seed=2,
                       sequential=False, bootstrap=0)
    p = t["pairs"].iloc[0]
    assert p.deals == 1500 and p.looks == 3 and p.stopped == "max-rounds"
    assert list(t["looks"]["decision"]) == ["continue", "continue", "max-rounds"]


def test_boundary():
    assert boundary_z(1000, 1000) == pytest.approx(1.959964, abs=1e-5)
    assert boundary_z(20_000, 2_000) == pytest.approx(2.807034, abs=1e-5)   # 10 looks


def test_four_players_and_solitaire():
    t = run_tournament(rules(players=4), ["random", BAD], rounds=500, seed=4, block=500, bootstrap=50)
    assert _pair(t, "random", "discarder").ci_high < 0
    assert "passes_per_round" in t["policies"].columns
    t = run_tournament(rules(players=1), ["random", BAD, INVESTOR], rounds=1000, seed=4, block=500,
                       target=0.0)
    rt = t["ratings"]
    assert list(rt["policy"]) == ["discarder", "random", "investor"]
    assert rt["method"].iloc[0].startswith("solitaire")
    assert ((rt.ci_low <= rt.rating) & (rt.rating <= rt.ci_high)).all()
    assert (t["policies"]["rounds"] == 1000).all()
    assert _pair(t, "random", "investor").ci_low > 0


def test_cli_writes_files(tmp_path):
    out = tmp_path / "t"
    res = CliRunner().invoke(main, ["tournament", "--policies", "random,greedy", "--rounds", "1000",
                                          "--block", "500", "--bootstrap", "50", "--seed", "7",
                                          "--out", str(out)])
    assert res.exit_code == 0, res.output
    for f in ("pairs.csv", "ratings.csv", "policies.csv", "looks.csv", "tournament.png", "manifest.json"):
        assert (out / f).stat().st_size > 0
    m = json.loads((out / "manifest.json").read_text())
    assert m["policies"] == ["random", "greedy"] and m["seed"] == 7 and m["rounds"] == 1000
    assert m["ruleset"] == "expeditions" and "versions" in m and m["seconds"] >= 0
    assert m["command"].startswith("lostcards tournament ")
    assert "ratings" in res.output and "greedy" in res.output


@pytest.mark.parametrize("args, words", [
    (["--policies", "random,nosuchbot"], "unknown policy"),
    (["--policies", "random"], "at least 2 policies"),
    (["--policies", "random,random"], "listed twice"),
    (["--policies", "random,greedy", "--set", "hand_size=0"], "hand_size"),
    (["--policies", "random,greedy", "--set", "colour=red"], "colour"),
    (["--policies", "random,greedy:bogus=1"], "bogus"),
])
def test_cli_bad_input_is_one_line(tmp_path, args, words):
    res = CliRunner().invoke(main, ["tournament", *args, "--out", str(tmp_path / "x")])
    assert res.exit_code != 0
    lines = [x for x in res.output.splitlines() if x.strip()]
    assert len(lines) == 1 and words in lines[0], res.output
    assert "Traceback" not in res.output


def test_capped_rounds_are_counted():
    from lostcards.analysis.tournament import CAPPED
    from lostcards.rules.outcome import Ending
    assert Ending.of_code(CAPPED) == "capped"
    r = rules("lost-cities", turn_cap=20)
    t = run_tournament(r, ["random", BAD], rounds=200, block=200, seed=1, bootstrap=0)
    assert t["pairs"].iloc[0].capped == 400                 # every game of every deal
    assert (t["policies"]["capped"] == 400).all()
