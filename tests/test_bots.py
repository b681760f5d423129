"""The `greedy` and `expert` bots: always legal, every parameter works, and the ladder holds.

Legality: the engine checks every move, and ``runner.play`` raises
``PolicyFailure`` on the first illegal one; a sample of the rounds is also
recorded and replayed on the reference engine, which must agree.
Strength: duplicate deals (the same rounds with the seats swapped) and the
95% confidence interval of the mean margin.
"""
import numpy as np
import pytest

from lostcards.policies import resolve
from lostcards.records.replay import replay_record
from lostcards.rules.outcome import Ending
from lostcards.rules.ruleset import rules
from lostcards.run import runner

PRESETS = ("expeditions", "lost-cities")
PLAYERS = (1, 2, 4)
TWEAKS = (
    {"hand_size": 8},
    {"bonus_cards": 4},
    {"suits": 3},
    {"suits": 1},
    {"numbers": "5,7,9,10"},
    {"investments": 0},
    {"cost": 0},
    {"cost": 40, "bonus_points": 60, "bonus_cards": 3},
    {"stall_limit": 1},
    {"hand_size": 12},
)


def duplicate_margin(r, a, b, n, seed=1):
    """Mean margin of A over B on duplicate deals, and its 95% half-width."""
    x = runner.play(r, a, b, rounds=n, seed=seed, first=-1)
    y = runner.play(r, b, a, rounds=n, seed=seed, first=-1)
    m = ((x.round_info[:, 3] - x.round_info[:, 4]) + (y.round_info[:, 4] - y.round_info[:, 3])) / 2
    return m.mean(), 1.96 * m.std(ddof=1) / np.sqrt(n)


def play_all_seatings(r, a, b, n, seed, sample=12):
    """A against B and B against A: no illegal move (PolicyFailure otherwise); every round's score is
    the sum of its expeditions'; a sample of the rounds, recorded and replayed on the reference
    engine, is legal turn by turn and gives the batch's turns, ending and scores."""
    for x, y in ((a, b), (b, a)):
        batch = runner.play(r, x, y, rounds=n, seed=seed, first=-1)
        assert (batch.scores == batch.side_suits[..., 2].sum(axis=2)).all()
        idx = np.unique(np.linspace(0, n - 1, min(n, sample)).astype(int))
        for i, rec in zip(idx, runner.play_records(r, x, y, idx, seed=seed, first=-1)):
            v = replay_record(rec)
            assert v["ok"], (x, y, int(i), v)
            assert (v["turns"], v["ended_by"], v["scores"]) == (
                batch.round_info[i, 1], Ending.of_code(batch.round_info[i, 2]),
                list(batch.scores[i])), (x, y, int(i))


# ---------------------------------------------------------------------------
# registration
# ---------------------------------------------------------------------------

def test_registered_with_their_switches():
    greedy = resolve("greedy")
    expert = resolve("expert")
    assert greedy.doc and expert.doc
    for name in ("invest", "endgame", "safety", "bonus"):
        assert name in expert.parameters
    assert list(expert.parameters["invest"])[:3] == ["normal", "eager", "never"]
    assert resolve("expert:invest=never,endgame=off").spec == "expert:invest=never,endgame=off"


# ---------------------------------------------------------------------------
# legality
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("preset", PRESETS)
@pytest.mark.parametrize("players", PLAYERS)
def test_legal_on_presets(preset, players):
    r = rules(preset, players=players)
    play_all_seatings(r, "expert", "greedy", 1500, seed=11)
    play_all_seatings(r, "greedy", "random", 500, seed=12)
    play_all_seatings(r, "expert", "random", 500, seed=13)


@pytest.mark.parametrize("tweak", TWEAKS, ids=lambda t: ",".join(f"{k}={v}" for k, v in t.items()))
@pytest.mark.parametrize("players", PLAYERS)
def test_legal_on_tweaked_rules(tweak, players):
    try:
        r = rules("expeditions", players=players, **tweak)
    except ValueError:
        pytest.skip("a ruleset the validator refuses")
    play_all_seatings(r, "expert", "greedy", 300, seed=21)


@pytest.mark.parametrize("players", PLAYERS)
def test_legal_with_six_suits_and_free_passes(players):
    r = rules("lost-cities", players=players, suits=6, pass_min_hand=3)
    play_all_seatings(r, "expert", "greedy", 300, seed=22)


def _all_values(policy):
    """Every word value of every parameter, and each number halved and doubled."""
    for name, default in policy.parameters.items():
        if isinstance(default, dict):
            for word in default:
                yield f"{name}={word}"
        else:
            for v in (default / 2, default * 2, 0):
                yield f"{name}={v:g}"


@pytest.mark.parametrize("name", ("greedy", "expert"))
@pytest.mark.parametrize("players", PLAYERS)
def test_every_parameter_value_works(name, players):
    base = resolve(name)
    r = rules("expeditions", players=players)
    for value in _all_values(base):
        p = resolve(f"{name}:{value}")
        batch = runner.play(r, p, "expert", rounds=100, seed=31, first=-1)
        assert (batch.round_info[:, 2] >= 0).all(), value
    # all switches off at once
    off = resolve("expert:invest=never,endgame=off,safety=off,bonus=off,deny=off,pass=off")
    play_all_seatings(r, off, "expert", 200, seed=32)


def test_same_seed_same_rounds():
    r = rules("expeditions")
    a = runner.play(r, "expert", "greedy", rounds=300, seed=5, threads=1)
    b = runner.play(r, "expert", "greedy", rounds=300, seed=5, threads=2)
    assert (a.round_info == b.round_info).all()
    assert (a.seats == b.seats).all()


# ---------------------------------------------------------------------------
# the ladder: random < greedy < expert, on duplicate deals
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("preset", PRESETS)
@pytest.mark.parametrize("players", (2, 4))
def test_ladder(preset, players):
    r = rules(preset, players=players)
    m, ci = duplicate_margin(r, "greedy", "random", 2000, seed=41)
    assert m - ci > 0, (m, ci)
    m, ci = duplicate_margin(r, "expert", "greedy", 2000, seed=42)
    assert m - ci > 0, (m, ci)


@pytest.mark.parametrize("preset", PRESETS)
def test_solitaire_ladder(preset):
    r = rules(preset, players=1)
    means = {}
    for name in ("random", "greedy", "expert"):
        s = runner.play(r, name, rounds=2000, seed=43).round_info[:, 3]
        means[name] = (s.mean(), 1.96 * s.std(ddof=1) / np.sqrt(len(s)))
    assert means["greedy"][0] - means["greedy"][1] > means["random"][0] + means["random"][1]
    assert means["expert"][0] - means["expert"][1] > means["greedy"][0] + means["greedy"][1]


# ---------------------------------------------------------------------------
# no stalling under rules without a stall limit
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("players", (2, 4))
@pytest.mark.parametrize("pair", (("expert", "expert"), ("greedy", "greedy"), ("expert", "greedy")))
def test_lost_cities_rounds_end_by_the_deck(players, pair):
    r = rules("lost-cities", players=players)
    assert r.stall_limit == 0 and r.turn_cap > 0
    b = runner.play(r, *pair, rounds=600, seed=51, first=-1)        # 0 of 2,000 ended otherwise
    ended = b.round_info[:, 2]
    assert (ended == 0).mean() >= 0.999, np.bincount(ended, minlength=4)


# ---------------------------------------------------------------------------
# slow: the same claims on more rounds
# ---------------------------------------------------------------------------

@pytest.mark.slow
@pytest.mark.parametrize("preset", PRESETS)
@pytest.mark.parametrize("players", PLAYERS)
def test_legal_many_rounds(preset, players):
    r = rules(preset, players=players)
    for a, b in (("expert", "greedy"), ("expert", "expert"), ("greedy", "random"),
                 ("expert:invest=eager,deny=off", "expert:invest=never,safety=off")):
        play_all_seatings(r, a, b, 20000, seed=61)


@pytest.mark.slow
@pytest.mark.parametrize("preset", PRESETS)
@pytest.mark.parametrize("players", (2, 4))
def test_ladder_many_rounds(preset, players):
    r = rules(preset, players=players)
    for a, b in (("greedy", "random"), ("expert", "greedy")):
        m, ci = duplicate_margin(r, a, b, 20000, seed=62)
        assert m - ci > 0, (a, b, m, ci)


@pytest.mark.slow
def test_lost_cities_self_play_many_rounds():
    for players in (2, 4):
        b = runner.play(rules("lost-cities", players=players), "expert", rounds=100000, seed=63)
        assert (b.round_info[:, 2] == 0).mean() >= 0.999
